package graph

import (
	"fmt"
	"math/rand/v2"
)

// Array is a strided view: a flat buffer, an offset into it and a layout.
// Views made by Subdiv, Flatten, Flip and Index share the buffer of the
// array they come from; nothing copies but Copy and the constructors. Writes
// through Set are visible through every view of the same buffer.
//
// The buffer is held in the slice of the array's element type; the other
// slices are nil.
type Array struct {
	dtype  DType
	layout Layout
	offset int
	f32    []float32
	f64    []float64
	b      []bool
	i32    []int32
}

// NewArray returns a zero-filled array of the given type in its layout's
// buffer span. Most callers want Zeros, which makes the row-major layout.
// It refuses, with a *MemoryError, a buffer of more than
// DefaultMemoryLimit bytes; NewArrayLimit takes another limit.
func NewArray(dt DType, layout Layout) (*Array, error) {
	return newArray(dt, layout, DefaultMemoryLimit, "the limit with graph.NewArrayLimit")
}

// NewArrayLimit is NewArray with a memory limit in bytes; 0 means
// DefaultMemoryLimit.
func NewArrayLimit(dt DType, layout Layout, limit int64) (*Array, error) {
	return newArray(dt, layout, memoryLimit(limit), "the limit passed to graph.NewArrayLimit")
}

func newArray(dt DType, layout Layout, limit int64, raise string) (*Array, error) {
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("new array: invalid element type %v", dt)
	}
	if err := checkArrayMemory(dt, layout, limit, raise); err != nil {
		return nil, err
	}
	a := &Array{dtype: dt, layout: append(Layout(nil), layout...)}
	n := layout.Span()
	switch dt {
	case Float32:
		a.f32 = make([]float32, n)
	case Float64:
		a.f64 = make([]float64, n)
	case Bool:
		a.b = make([]bool, n)
	case Int32:
		a.i32 = make([]int32, n)
	default:
		return nil, fmt.Errorf("new array: invalid element type %v", dt)
	}
	return a, nil
}

// Zeros returns a zero-filled row-major array of the given extents.
func Zeros(dt DType, extents ...int) (*Array, error) { return NewArray(dt, RowMajor(extents...)) }

// FromFloat32 wraps data, without copying, as a row-major array of the given
// extents. len(data) must equal their product.
func FromFloat32(data []float32, extents ...int) (*Array, error) {
	l := RowMajor(extents...)
	if err := checkLen(len(data), l); err != nil {
		return nil, err
	}
	return &Array{dtype: Float32, layout: l, f32: data}, nil
}

// FromFloat64 wraps data, without copying, as a row-major array of the given
// extents. len(data) must equal their product.
func FromFloat64(data []float64, extents ...int) (*Array, error) {
	l := RowMajor(extents...)
	if err := checkLen(len(data), l); err != nil {
		return nil, err
	}
	return &Array{dtype: Float64, layout: l, f64: data}, nil
}

func checkLen(n int, l Layout) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if n != l.Size() {
		return fmt.Errorf("array: %d values for extents %v, which need %d", n, l.Extents(), l.Size())
	}
	return nil
}

// RandomArray returns a row-major array of the given extents filled with
// values drawn uniformly from [-1, 1) by r (false/true and small integers for
// Bool and Int32). Like NewArray it refuses an array of more than
// DefaultMemoryLimit bytes; RandomArrayLimit takes another limit.
func RandomArray(r *rand.Rand, dt DType, extents ...int) (*Array, error) {
	return randomArray(r, dt, extents, DefaultMemoryLimit, "the limit with graph.RandomArrayLimit")
}

// RandomArrayLimit is RandomArray with a memory limit in bytes; 0 means
// DefaultMemoryLimit.
func RandomArrayLimit(r *rand.Rand, limit int64, dt DType, extents ...int) (*Array, error) {
	return randomArray(r, dt, extents, memoryLimit(limit), "the limit passed to graph.RandomArrayLimit")
}

func randomArray(r *rand.Rand, dt DType, extents []int, limit int64, raise string) (*Array, error) {
	// Past the caps RowMajor's strides wrap around, but Validate checks
	// the extents and their product before it looks at a stride.
	a, err := newArray(dt, RowMajor(extents...), limit, raise)
	if err != nil {
		return nil, err
	}
	for i := range a.layout.Size() {
		a.setFlat(i, dt.Round(randomScalar(r, dt)))
	}
	return a, nil
}

func randomScalar(r *rand.Rand, dt DType) float64 {
	switch dt {
	case Bool:
		return float64(r.IntN(2))
	case Int32:
		return float64(r.IntN(21) - 10)
	}
	return 2*r.Float64() - 1
}

// DType is the element type.
func (a *Array) DType() DType { return a.dtype }

// Layout is the view's layout. The caller must not modify it.
func (a *Array) Layout() Layout { return a.layout }

// Offset is the buffer position of the view's first element.
func (a *Array) Offset() int { return a.offset }

// Rank is the number of axes.
func (a *Array) Rank() int { return len(a.layout) }

// Extents returns the extent of every axis.
func (a *Array) Extents() []int { return a.layout.Extents() }

// Size is the number of elements in the view.
func (a *Array) Size() int { return a.layout.Size() }

// Float32s returns the buffer when a is a float32 array, nil otherwise. The
// view addresses it through Offset and Layout.
func (a *Array) Float32s() []float32 { return a.f32 }

// Float64s returns the buffer when a is a float64 array, nil otherwise. The
// view addresses it through Offset and Layout.
func (a *Array) Float64s() []float64 { return a.f64 }

// Type returns the array type of the view.
func (a *Array) Type() *ArrayType { return &ArrayType{DType: a.dtype, Layout: a.layout} }

func (a *Array) view(l Layout, off int) *Array {
	v := *a
	v.layout, v.offset = l, off
	return &v
}

// Subdiv returns the view of a with axis d split into blocks of b; see
// Layout.Subdiv.
func (a *Array) Subdiv(d, b int) (*Array, error) {
	l, err := a.layout.Subdiv(d, b)
	if err != nil {
		return nil, err
	}
	return a.view(l, a.offset), nil
}

// Flatten returns the view of a with axes d and d+1 merged; see
// Layout.Flatten.
func (a *Array) Flatten(d int) (*Array, error) {
	l, err := a.layout.Flatten(d)
	if err != nil {
		return nil, err
	}
	return a.view(l, a.offset), nil
}

// Flip returns the view of a with axes d1 and d2 swapped; see Layout.Flip.
func (a *Array) Flip(d1, d2 int) (*Array, error) {
	l, err := a.layout.Flip(d1, d2)
	if err != nil {
		return nil, err
	}
	return a.view(l, a.offset), nil
}

// View returns a seen through the view v: the same buffer and offset with
// the layout v.Apply gives, the offset moved by a ShiftedView's Shift, or
// for a FreshView (a pad) the new array it materializes, within
// DefaultMemoryLimit.
func (a *Array) View(v View) (*Array, error) { return a.viewLimit(v, DefaultMemoryLimit) }

func (a *Array) viewLimit(v View, limit int64) (*Array, error) {
	if f, ok := v.(FreshView); ok {
		return f.Materialize(a, limit)
	}
	l, err := v.Apply(a.layout)
	if err != nil {
		return nil, err
	}
	off := a.offset
	if s, ok := v.(ShiftedView); ok {
		off += s.Shift(a.layout)
	}
	return a.view(l, off), nil
}

// Index returns element i of the outermost axis: a view of rank one less.
// It returns an error when a has rank 0 or i is out of range.
func (a *Array) Index(i int) (*Array, error) {
	if len(a.layout) == 0 {
		return nil, fmt.Errorf("index: array has rank 0")
	}
	if i < 0 || i >= a.layout[0].Extent {
		return nil, fmt.Errorf("index: %d out of range for extent %d of axis 0", i, a.layout[0].Extent)
	}
	return a.view(a.layout[1:], a.offset+i*a.layout[0].Stride), nil
}

func (a *Array) checkIndex(idx []int) error {
	if len(idx) != len(a.layout) {
		return fmt.Errorf("array: %d indices for rank %d", len(idx), len(a.layout))
	}
	for d, i := range idx {
		if i < 0 || i >= a.layout[d].Extent {
			return fmt.Errorf("array: index %d out of range for extent %d of axis %d", i, a.layout[d].Extent, d)
		}
	}
	return nil
}

// At returns the element at idx as a float64 (0 or 1 for Bool). Like slice
// indexing, it panics when idx has the wrong length or is out of range.
func (a *Array) At(idx ...int) float64 {
	if err := a.checkIndex(idx); err != nil {
		panic(err)
	}
	return a.load(a.offset + a.layout.Offset(idx))
}

// Set stores v, rounded to the element type, at idx. Like slice indexing, it
// panics when idx has the wrong length or is out of range.
func (a *Array) Set(v float64, idx ...int) {
	if err := a.checkIndex(idx); err != nil {
		panic(err)
	}
	a.store(a.offset+a.layout.Offset(idx), v)
}

func (a *Array) load(p int) float64 {
	switch a.dtype {
	case Float32:
		return float64(a.f32[p])
	case Float64:
		return a.f64[p]
	case Bool:
		if a.b[p] {
			return 1
		}
		return 0
	case Int32:
		return float64(a.i32[p])
	}
	panic("graph: array of invalid element type")
}

func (a *Array) store(p int, v float64) {
	switch a.dtype {
	case Float32:
		a.f32[p] = float32(v)
	case Float64:
		a.f64[p] = v
	case Bool:
		a.b[p] = v != 0
	case Int32:
		a.i32[p] = toInt32(v)
	default:
		panic("graph: array of invalid element type")
	}
}

// flatOffset maps the row-major position k of an element to its buffer
// position.
func (a *Array) flatOffset(k int) int {
	p := a.offset
	for d := len(a.layout) - 1; d >= 0; d-- {
		e := a.layout[d].Extent
		p += (k % e) * a.layout[d].Stride
		k /= e
	}
	return p
}

// getFlat returns the element at row-major position k.
func (a *Array) getFlat(k int) float64 { return a.load(a.flatOffset(k)) }

func (a *Array) setFlat(k int, v float64) { a.store(a.flatOffset(k), v) }

// Values returns the elements in row-major order of the view's axes, as
// float64.
func (a *Array) Values() []float64 {
	out := make([]float64, a.Size())
	for k := range out {
		out[k] = a.getFlat(k)
	}
	return out
}

// Copy returns a new row-major array with the elements of the view.
func (a *Array) Copy() *Array {
	c, _ := Zeros(a.dtype, a.Extents()...) // a's layout is valid, so this cannot fail
	for k := range a.Size() {
		c.setFlat(k, a.getFlat(k))
	}
	return c
}

// CopyTo returns a copy of a laid out in l, which must have a's extents. Its
// buffer is l.Span() long, so gaps in l stay zero.
func (a *Array) CopyTo(l Layout) (*Array, error) {
	if !a.layout.SameExtents(l) {
		return nil, fmt.Errorf("copy: extents %v do not match layout %v", a.Extents(), l)
	}
	c, err := NewArray(a.dtype, l)
	if err != nil {
		return nil, err
	}
	for k := range a.Size() {
		c.setFlat(k, a.getFlat(k))
	}
	return c, nil
}

// String prints small arrays in full and large ones abbreviated.
func (a *Array) String() string {
	return fmt.Sprintf("%v%v%s", a.dtype, a.Extents(), formatValues(a))
}

// CopyValue returns a copy of v that shares no storage with it: arrays are
// copied (row-major), tuples element by element; scalars are values
// already. Use it to keep a result out of storage an executable reuses on
// its next run.
func CopyValue(v Value) Value {
	switch v := v.(type) {
	case *Array:
		return v.Copy()
	case TupleValue:
		out := make(TupleValue, len(v))
		for i, e := range v {
			out[i] = CopyValue(e)
		}
		return out
	}
	return v
}
