package nd

import (
	"fmt"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Error is a problem with the operands of a tensor operation: which
// operation, and what is wrong (naming the operand, axis, extent or rank).
type Error struct {
	Op     string // the operation: "MatMul", "Transpose", …
	Source string // the Ops source name, "" when none
	Msg    string // what is wrong
	Err    error  // the underlying error, or nil
}

// Error writes "nd.Op (source): message: underlying error".
func (e *Error) Error() string {
	s := "nd." + e.Op
	if e.Source != "" {
		s += " (" + e.Source + ")"
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Ops builds terms whose nodes carry the source name Source (the imported
// node's name), so that it travels through fusion into kernel names and
// reports. Its zero value builds nodes without a source; the package-level
// functions are the zero value's methods.
type Ops struct {
	Source string
}

// op is one operation in progress: its name for errors and a builder whose
// nodes carry the source.
type op struct {
	name string
	src  string
	b    *layers.Builder
}

func (o Ops) begin(name string) *op {
	return &op{name: name, src: o.Source, b: layers.NewBuilder(o.Source)}
}

func (p *op) errorf(format string, args ...any) error {
	return &Error{Op: p.name, Source: p.src, Msg: fmt.Sprintf(format, args...)}
}

func (p *op) wrap(err error, format string, args ...any) error {
	return &Error{Op: p.name, Source: p.src, Msg: fmt.Sprintf(format, args...), Err: err}
}

// arr is an operand: its term and what its type says.
type arr struct {
	n   graph.Node
	dt  graph.DType
	lay graph.Layout // nil for a scalar
}

func (a arr) rank() int { return len(a.lay) }

func (a arr) extents() []int { return a.lay.Extents() }

// operand types x, which must be a scalar or an array; what names it in
// errors ("x", "b", "input 2").
func (p *op) operand(what string, x graph.Node) (arr, error) {
	if x == nil {
		return arr{}, p.errorf("%s is nil", what)
	}
	t, err := graph.TypeOf(x, nil)
	if err != nil {
		return arr{}, p.wrap(err, "%s is ill-typed", what)
	}
	t = graph.Concrete(t)
	switch t := t.(type) {
	case *graph.ScalarType:
		return arr{n: x, dt: t.DType}, nil
	case *graph.ArrayType:
		return arr{n: x, dt: t.DType, lay: t.Layout}, nil
	}
	return arr{}, p.errorf("%s has type %v, want a scalar or an array", what, t)
}

// done checks the term built and returns it; an error here means the
// operands' element types do not fit what the operation builds from them
// (f32 + f64, say) or a bug in this package, and names the operation.
func (p *op) done(y graph.Node) (graph.Node, error) {
	y, err := p.b.Done(y)
	if err != nil {
		return nil, p.wrap(err, "building the term")
	}
	if _, err := graph.TypeOf(y, nil); err != nil {
		return nil, p.wrap(err, "the term is ill-typed")
	}
	return y, nil
}

// Shape returns the element type and extents of x, outermost first; a
// scalar has rank 0 (extents empty, not nil).
func Shape(x graph.Node) (graph.DType, []int, error) {
	p := Ops{}.begin("Shape")
	a, err := p.operand("x", x)
	if err != nil {
		return graph.Invalid, nil, err
	}
	if a.lay == nil {
		return a.dt, []int{}, nil
	}
	return a.dt, a.extents(), nil
}

// normAxis resolves axis (negative counts from the end) for rank r.
func (p *op) normAxis(what string, axis, r int) (int, error) {
	if axis < -r || axis >= r {
		return 0, p.errorf("%s %d is out of range for rank %d (want %d..%d)", what, axis, r, -r, r-1)
	}
	if axis < 0 {
		axis += r
	}
	return axis, nil
}

// normAxes resolves a list of distinct axes for rank r.
func (p *op) normAxes(what string, axes []int, r int) ([]int, error) {
	out := make([]int, len(axes))
	seen := map[int]int{}
	for i, a := range axes {
		n, err := p.normAxis(what, a, r)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[n]; dup {
			return nil, p.errorf("%s %d and %d name the same axis %d of rank %d", what, axes[j], a, n, r)
		}
		seen[n] = i
		out[i] = n
	}
	return out, nil
}

func product(extents []int) int {
	n := 1
	for _, e := range extents {
		n *= e
	}
	return n
}

func shapeString(extents []int) string {
	parts := make([]string, len(extents))
	for i, e := range extents {
		parts[i] = fmt.Sprint(e)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// The views below build a view node and its layout together, so that an
// operation knows its operand's layout at every step without typing the
// term again.

func (p *op) flip(a arr, i, j int) (arr, error) {
	if i == j {
		return a, nil
	}
	return p.view(a, graph.FlipView{A: i, B: j})
}

func (p *op) view(a arr, v graph.View) (arr, error) {
	// A view that undoes the view a was made by gives a's operand back,
	// so that an Unsqueeze read by a broadcasting Binary (subdiv, then
	// flatten) leaves no view for the back ends to materialise.
	if w, under, ok := graph.AsView(a.n); ok {
		if t, err := graph.TypeOf(under, nil); err == nil {
			if at, ok := t.(*graph.ArrayType); ok {
				if inv, ok := w.Inverse(at.Layout); ok && sameView(inv, v) {
					return arr{n: under, dt: a.dt, lay: at.Layout}, nil
				}
			}
		}
	}
	l, err := v.Apply(a.lay)
	if err != nil {
		return arr{}, p.wrap(err, "%s", graph.ViewString(v))
	}
	if p.b.Err() != nil {
		return arr{}, p.b.Err()
	}
	n, err := graph.NewView(v, a.n)
	if err != nil {
		return arr{}, p.wrap(err, "%s", graph.ViewString(v))
	}
	return arr{n: graph.WithSource(n, p.src), dt: a.dt, lay: l}, nil
}

// sameView reports whether v and w are the same view: equal values, or
// flips of one pair of axes.
func sameView(v, w graph.View) bool {
	if v == w {
		return true
	}
	fv, ok1 := v.(graph.FlipView)
	fw, ok2 := w.(graph.FlipView)
	return ok1 && ok2 && fv.A == fw.B && fv.B == fw.A
}

// copyRowMajor materialises a into a fresh row-major array: a map of the
// identity at every level. Fusion folds it into whatever reads it.
func (p *op) copyRowMajor(a arr) arr {
	n := p.b.MapRank(a.rank(), a.n, func(_ *layers.Builder, v graph.Node) graph.Node { return v })
	return arr{n: n, dt: a.dt, lay: graph.RowMajor(a.extents()...)}
}

// permute returns a with its axes in the order perm (axis i of the result
// is axis perm[i] of a), as flips: no copy.
func (p *op) permute(a arr, perm []int) (arr, error) {
	cur := make([]int, len(perm))
	for i := range cur {
		cur[i] = i
	}
	var err error
	for i, want := range perm {
		j := i
		for cur[j] != want {
			j++
		}
		if j != i {
			if a, err = p.flip(a, i, j); err != nil {
				return arr{}, err
			}
			cur[i], cur[j] = cur[j], cur[i]
		}
	}
	return a, nil
}

// first returns the only element of a, an array of one element of rank 1,
// as a scalar: reduce (+) over one element applies no addition.
func (p *op) first(a arr) arr {
	return arr{n: p.b.Reduce(p.b.Op(graph.Add), a.n), dt: a.dt}
}

// squeezeAxis removes axis d of a, whose extent is 1: by a flatten with a
// neighbour where the strides allow (always, for row-major arrays), else
// after copying a into row-major order. An array of rank 1 becomes its
// element.
func (p *op) squeezeAxis(a arr, d int) (arr, error) {
	if a.lay[d].Extent != 1 {
		return arr{}, p.errorf("axis %d has extent %d, not 1", d, a.lay[d].Extent)
	}
	if a.rank() == 1 {
		return p.first(a), nil
	}
	if d+1 < a.rank() && a.lay[d].Stride == a.lay[d+1].Extent*a.lay[d+1].Stride {
		return p.view(a, graph.FlattenView{Axis: d})
	}
	if d > 0 && a.lay[d-1].Stride == a.lay[d].Stride {
		return p.view(a, graph.FlattenView{Axis: d - 1})
	}
	c := p.copyRowMajor(a)
	if d+1 < a.rank() {
		return p.view(c, graph.FlattenView{Axis: d})
	}
	return p.view(c, graph.FlattenView{Axis: d - 1})
}

// unsqueezeAxis inserts an axis of extent 1 at position d (0..rank) of a,
// an array: a subdiv, no copy.
func (p *op) unsqueezeAxis(a arr, d int) (arr, error) {
	if d < a.rank() {
		return p.view(a, graph.SubdivView{Axis: d, Block: a.lay[d].Extent})
	}
	return p.view(a, graph.SubdivView{Axis: d - 1, Block: 1})
}

// reshape gives a the extents, of the same element count: a view where the
// layout allows (every row-major array), else a copy into row-major order
// and a view of that. A scalar target takes the single element.
func (p *op) reshape(a arr, extents []int) (arr, error) {
	if a.lay == nil {
		if len(extents) == 0 {
			return a, nil
		}
		return arr{}, p.errorf("a scalar cannot become an array of shape %s: the IR builds arrays only by mapping over arrays (declare a constant of the wanted shape instead)", shapeString(extents))
	}
	if product(extents) != a.lay.Size() {
		return arr{}, p.errorf("shape %s has %d elements, the operand's %s has %d", shapeString(extents), product(extents), shapeString(a.extents()), a.lay.Size())
	}
	if a.lay.SameExtents(graph.RowMajor(extents...)) {
		return a, nil
	}
	flat, ok := a, true
	for flat.rank() > 1 && ok {
		if flat.lay[0].Stride != flat.lay[1].Extent*flat.lay[1].Stride {
			ok = false
			break
		}
		var err error
		if flat, err = p.view(flat, graph.FlattenView{Axis: 0}); err != nil {
			return arr{}, err
		}
	}
	if !ok {
		flat = p.copyRowMajor(a)
		for flat.rank() > 1 {
			var err error
			if flat, err = p.view(flat, graph.FlattenView{Axis: 0}); err != nil {
				return arr{}, err
			}
		}
	}
	if len(extents) == 0 {
		return p.first(flat), nil
	}
	for i := 0; i+1 < len(extents); i++ {
		var err error
		if flat, err = p.view(flat, graph.SubdivView{Axis: i, Block: product(extents[i+1:])}); err != nil {
			return arr{}, err
		}
	}
	return flat, nil
}
