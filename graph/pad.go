package graph

import (
	"fmt"
	"math"
)

// Padding and cropping.
//
// A padded array has elements that are in no buffer: the fill past the
// edges. No strided layout names them, so a padded view cannot be a
// Layout over its operand's buffer the way subdiv, flatten, flip and
// window are. Two representations were possible:
//
//   - Every layout carries validity guards (for each padded axis, a second
//     stride vector into the unpadded coordinates and the range they must
//     stay in), transformed by every view like the strides. Nothing is
//     copied anywhere, but every strided read in every pass and back end
//     must then test the guards, or silently read past the buffer; the
//     guards of a window over a padded axis span two axes, so no per-axis
//     extent can hold them.
//   - Padding is a view whose value is a fresh array: its type is the
//     row-major layout of the padded extents, exact like any other type,
//     and the interpreter (the oracle, slow on purpose) builds it. The
//     back ends never need to: a pad read only through a window is a
//     bounds test in the native back end's im2col packing and the padding
//     attribute of StableHLO's convolution and reduce_window.
//
// hofuse takes the second: PadView is a FreshView. Padding stays explicit
// in the term (pad, then window), the types stay plain layouts, and every
// pass that reads strides keeps reading them; what may not pass a pad is
// said where it matters (a pad commutes with an elementwise function f
// only when f maps the fill to itself, so no rule moves one across an
// nzip's function; a reduction of padded arrays is the padded reduction
// only when the fill is idempotent under the reduction). IsStrided tells
// the back ends which views they can read off a layout.
//
// CropView is the other direction, the cotangent of a pad: it keeps a
// range of an axis. It is strided but starts past the operand's first
// element, a ShiftedView.

// A FreshView is a view whose elements are not all elements of its
// operand, so that it is a new array rather than a layout over the
// operand's buffer: PadView. Apply gives its layout (row-major);
// Materialize builds it.
type FreshView interface {
	View
	// Materialize returns the view of a as a new array laid out as
	// Apply(a.Layout()) says, allocating at most limit bytes (0 means
	// DefaultMemoryLimit).
	Materialize(a *Array, limit int64) (*Array, error)
}

// A ShiftedView is a strided view whose first element is not its
// operand's first element: the view of an array at offset o with layout l
// is at offset o + Shift(l), with layout Apply(l). CropView is one.
type ShiftedView interface {
	View
	// Shift is the buffer distance, in elements, from the operand's first
	// element to the view's, for an operand of layout l on which Apply
	// succeeds.
	Shift(l Layout) int
}

// IsStrided reports whether v is a layout over its operand's buffer
// starting at the operand's first element, so that a back end can address
// it through the strides Apply gives alone: every view but a FreshView
// (pad) and a ShiftedView (crop). A back end that meets another view must
// handle it by name or refuse it.
func IsStrided(v View) bool {
	switch v.(type) {
	case FreshView, ShiftedView:
		return false
	}
	return true
}

// Fill is the value a PadView reads past the edges of its operand.
type Fill int

// The fills: zero for sums and products (a convolution's padding), -Inf
// for max (a max pooling's: the identity of max, so a padded window's
// maximum is the maximum of its real elements), +Inf for min.
const (
	FillZero Fill = iota
	FillNegInf
	FillPosInf
)

// Value returns the fill as a float64; DType.Round converts it to an
// element type (i32 saturates, bool reads nonzero as true).
func (f Fill) Value() float64 {
	switch f {
	case FillNegInf:
		return math.Inf(-1)
	case FillPosInf:
		return math.Inf(1)
	}
	return 0
}

// padNames are the keywords of the pads, by fill.
var padNames = [...]string{FillZero: "pad", FillNegInf: "padninf", FillPosInf: "padpinf"}

func (f Fill) String() string {
	switch f {
	case FillZero:
		return "0"
	case FillNegInf:
		return "-inf"
	case FillPosInf:
		return "+inf"
	}
	return fmt.Sprintf("Fill(%d)", int(f))
}

// PadView pads axis Axis: Lo fill elements before the first element, Hi
// after the last and Interior between each two neighbours,
//
//	pad d lo hi [in] : extent e at d  ->  lo + (e-1)*(in+1) + 1 + hi at d
//
// with element i of the operand at lo + i*(in+1). The notation writes the
// fill in the keyword: pad (0), padninf (-Inf), padpinf (+Inf). Interior
// padding is what a strided window's cotangent needs (XLA's pad has it
// too); it is written only when not 0. A PadView is a FreshView: its
// layout is the row-major one of the padded extents, whatever the
// operand's strides.
type PadView struct {
	Axis     int  // the axis padded
	Lo, Hi   int  // fill elements before and after; at least 0
	Interior int  // fill elements between neighbours; at least 0
	Fill     Fill // what the new elements read
}

// Name implements View: the keyword of the fill.
func (v PadView) Name() string {
	if v.Fill < 0 || int(v.Fill) >= len(padNames) {
		return "pad?"
	}
	return padNames[v.Fill]
}

// Params implements View.
func (v PadView) Params() []int {
	if v.Interior != 0 {
		return []int{v.Axis, v.Lo, v.Hi, v.Interior}
	}
	return []int{v.Axis, v.Lo, v.Hi}
}

// Extent is the padded extent of an axis of extent e.
func (v PadView) Extent(e int) int { return v.Lo + (e-1)*(v.Interior+1) + 1 + v.Hi }

// Apply implements View.
func (v PadView) Apply(l Layout) (Layout, error) {
	bad := func(format string, args ...any) error {
		return &LayoutError{Op: v.Name(), Axis: v.Axis, Layout: l, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case v.Fill < 0 || int(v.Fill) >= len(padNames):
		return nil, bad("unknown fill %d", int(v.Fill))
	case v.Axis < 0 || v.Axis >= len(l):
		return nil, bad("axis %d out of range for rank %d", v.Axis, len(l))
	case v.Lo < 0 || v.Hi < 0 || v.Interior < 0:
		return nil, bad("padding %d before, %d after and %d between must not be negative (crop to remove elements)", v.Lo, v.Hi, v.Interior)
	case v.Lo > MaxExtent || v.Hi > MaxExtent || v.Interior > MaxExtent:
		return nil, bad("padding %d before, %d after or %d between is past the cap of %d (graph.MaxExtent)", v.Lo, v.Hi, v.Interior, MaxExtent)
	}
	e := l.Extents()
	if e[v.Axis] > 1 && v.Interior > 0 && e[v.Axis]-1 > MaxExtent/(v.Interior+1) {
		return nil, bad("interior padding %d between the %d elements of axis %d is past the cap of %d (graph.MaxExtent)", v.Interior, e[v.Axis], v.Axis, MaxExtent)
	}
	e[v.Axis] = v.Extent(e[v.Axis])
	for i, x := range e {
		if x > MaxExtent {
			return nil, bad("padded extent %d of axis %d is past the cap of %d (graph.MaxExtent)", x, i, MaxExtent)
		}
	}
	out := RowMajor(e...)
	if err := out.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	return out, nil
}

// Inverse implements View: the padded array is a fresh one, so no layout
// over it gives the operand's strides back; CropView gives its elements.
func (PadView) Inverse(Layout) (View, bool) { return nil, false }

// Lift implements View.
func (v PadView) Lift() View {
	v.Axis++
	return v
}

// Materialize implements FreshView.
func (v PadView) Materialize(a *Array, limit int64) (*Array, error) {
	l, err := v.Apply(a.layout)
	if err != nil {
		return nil, err
	}
	out, err := NewArrayLimit(a.dtype, l, limit)
	if err != nil {
		return nil, err
	}
	fill := a.dtype.Round(v.Fill.Value())
	if fill != 0 {
		for k := range out.Size() {
			out.store(k, fill)
		}
	}
	// Element idx of a lands at idx with axis Axis mapped to
	// Lo + i*(Interior+1).
	ext := a.layout.Extents()
	idx := make([]int, len(ext))
	for k := range a.Size() {
		rem := k
		for d := len(ext) - 1; d >= 0; d-- {
			idx[d] = rem % ext[d]
			rem /= ext[d]
		}
		x := a.getFlat(k)
		idx[v.Axis] = v.Lo + idx[v.Axis]*(v.Interior+1)
		out.store(l.Offset(idx), x)
	}
	return out, nil
}

// CropView keeps elements Lo to e-Hi-1 of axis Axis (extent e): the
// inverse of a PadView without interior padding, and the cotangent of one.
//
//	crop d lo hi : (e, s) at d  ->  (e - lo - hi, s) at d, shifted by lo*s
//
// It is strided, a ShiftedView: it shows part of its operand, starting lo
// elements in, so it has no inverse.
type CropView struct {
	Axis   int // the axis cropped
	Lo, Hi int // elements dropped before and after; at least 0
}

// Name implements View.
func (CropView) Name() string { return "crop" }

// Params implements View.
func (v CropView) Params() []int { return []int{v.Axis, v.Lo, v.Hi} }

// Apply implements View.
func (v CropView) Apply(l Layout) (Layout, error) {
	bad := func(format string, args ...any) error {
		return &LayoutError{Op: "crop", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case v.Axis < 0 || v.Axis >= len(l):
		return nil, bad("axis %d out of range for rank %d", v.Axis, len(l))
	case v.Lo < 0 || v.Hi < 0:
		return nil, bad("crop of %d before and %d after must not be negative", v.Lo, v.Hi)
	case v.Lo > l[v.Axis].Extent || v.Hi > l[v.Axis].Extent-v.Lo-1:
		return nil, bad("crop of %d before and %d after leaves nothing of extent %d of axis %d", v.Lo, v.Hi, l[v.Axis].Extent, v.Axis)
	}
	out := append(Layout(nil), l...)
	out[v.Axis].Extent -= v.Lo + v.Hi
	return out, nil
}

// Shift implements ShiftedView.
func (v CropView) Shift(l Layout) int { return v.Lo * l[v.Axis].Stride }

// Inverse implements View: a crop shows part of its operand.
func (CropView) Inverse(Layout) (View, bool) { return nil, false }

// Lift implements View.
func (v CropView) Lift() View {
	v.Axis++
	return v
}

func init() {
	for f, name := range padNames {
		viewSyntaxes[name] = ViewSyntax{Name: name,
			Params:   []ViewParam{{"axis", 0}, {"padding before", 0}, {"padding after", 0}, {"interior padding", 0}},
			Optional: 1,
			Make: func(p []int) (View, error) {
				v := PadView{Axis: p[0], Lo: p[1], Hi: p[2], Fill: Fill(f)}
				if len(p) > 3 {
					v.Interior = p[3]
				}
				return v, nil
			}}
		Keywords[name] = true
	}
	viewSyntaxes["crop"] = ViewSyntax{Name: "crop",
		Params: []ViewParam{{"axis", 0}, {"crop before", 0}, {"crop after", 0}},
		Make:   func(p []int) (View, error) { return CropView{Axis: p[0], Lo: p[1], Hi: p[2]}, nil }}
	Keywords["crop"] = true
}
