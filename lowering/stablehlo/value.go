package stablehlo

import (
	"fmt"
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types/dtypes"
	"github.com/gomlx/go-xla/pkg/types/shapes"

	"github.com/hofuse/hofuse/graph"
)

// val is the translation of a value term in the vectorising lowering.
//
// A term inside k enclosing nzip/rnz bodies denotes one value per iteration
// of those k loops. Its translation is one StableHLO tensor per factor
// whose leading axes are the loop ("batch") axes it depends on, followed by
// its logical axes. The active loops are numbered by nesting depth, 0
// outermost: their levels. A factor carries the sorted list of levels it
// depends on and the sorted list of logical axes it actually has; an absent
// level or logical axis means the factor is the same along it (a broadcast
// not yet made). So a loop-invariant value is never copied per iteration
// until an operation needs it to be.
//
// A val is one of:
//   - a tuple (tuple != nil), with one val per element;
//   - an untyped literal (untyped), whose element type the context decides;
//   - an array or scalar of element type dt and logical extents shape, the
//     product of its factors. Most vals have one factor; a multiplication
//     keeps its operands apart, so that a sum over a loop of a product can
//     become a dot_general with the factors as operands.
type val struct {
	tuple   []*val
	untyped bool
	c       float64 // the literal, when untyped

	dt      graph.DType
	shape   []int    // logical extents, outermost first
	factors []factor // at least one for an array or scalar
}

// typeOf returns v's type: its tuple structure, element type and logical
// extents, row-major; an untyped literal has element type Invalid, as
// graph's typing gives it.
func (v *val) typeOf() graph.Type {
	switch {
	case v == nil:
		return nil
	case v.tuple != nil:
		t := &graph.TupleType{Elems: make([]graph.Type, len(v.tuple))}
		for i, e := range v.tuple {
			t.Elems[i] = e.typeOf()
		}
		return t
	case v.untyped:
		return graph.Scalar(graph.Invalid)
	case len(v.shape) == 0:
		return graph.Scalar(v.dt)
	}
	return graph.ArrayOf(v.dt, v.shape...)
}

// factor is one tensor of a val. Its StableHLO shape is the extents of its
// levels followed by the extents of its present logical axes.
type factor struct {
	t      *shlo.Value
	levels []int // loop levels, ascending
	axes   []int // logical axes present, ascending
}

// axisBase separates the labels of logical axes from those of loop levels:
// a factor's axes are labelled by its levels, then axisBase+axis for each
// logical axis, an ascending list.
const axisBase = 1 << 20

func (f factor) labels() []int {
	out := make([]int, 0, len(f.levels)+len(f.axes))
	out = append(out, f.levels...)
	for _, a := range f.axes {
		out = append(out, axisBase+a)
	}
	return out
}

func splitLabels(labels []int) (levels, axes []int) {
	for _, l := range labels {
		if l >= axisBase {
			axes = append(axes, l-axisBase)
		} else {
			levels = append(levels, l)
		}
	}
	return levels, axes
}

// union returns the sorted union of sorted lists.
func union(lists ...[]int) []int {
	var out []int
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isSubset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func xlaDType(dt graph.DType) (dtypes.DType, error) {
	switch dt {
	case graph.Float32:
		return dtypes.Float32, nil
	case graph.Float64:
		return dtypes.Float64, nil
	case graph.Bool:
		return dtypes.Bool, nil
	case graph.Int32:
		return dtypes.Int32, nil
	}
	return dtypes.InvalidDType, fmt.Errorf("element type %v has no StableHLO equivalent", dt)
}

// dims returns the StableHLO extents of a tensor labelled labels that holds
// (part of) v.
func (l *lowerer) dims(v *val, labels []int) []int {
	out := make([]int, len(labels))
	for i, lab := range labels {
		if lab >= axisBase {
			out[i] = v.shape[lab-axisBase]
		} else {
			out[i] = l.extents[lab]
		}
	}
	return out
}

func shapeOf(dt dtypes.DType, dims []int) shapes.Shape { return shapes.Make(dt, dims...) }

func (l *lowerer) shape(dt graph.DType, dims []int) (shapes.Shape, error) {
	xdt, err := xlaDType(dt)
	if err != nil {
		return shapes.Shape{}, err
	}
	return shapes.Make(xdt, dims...), nil
}

// expand broadcasts factor f of v to the given labels, a superset of f's.
func (l *lowerer) expand(v *val, f factor, labels []int) (*shlo.Value, error) {
	have := f.labels()
	if slices.Equal(have, labels) {
		return f.t, nil
	}
	mapping := make([]int, len(have))
	for i, lab := range have {
		j := slices.Index(labels, lab)
		if j < 0 {
			return nil, fmt.Errorf("internal error: broadcast of labels %v to %v", have, labels)
		}
		mapping[i] = j
	}
	s, err := l.shape(v.dt, l.dims(v, labels))
	if err != nil {
		return nil, err
	}
	return shlo.BroadcastInDim(f.t, s, mapping)
}

// merge multiplies out the factors of v into one, left to right.
func (l *lowerer) merge(v *val) (factor, error) {
	if len(v.factors) == 1 {
		return v.factors[0], nil
	}
	var all [][]int
	for _, f := range v.factors {
		all = append(all, f.labels())
	}
	labels := union(all...)
	var acc *shlo.Value
	for _, f := range v.factors {
		t, err := l.expand(v, f, labels)
		if err != nil {
			return factor{}, err
		}
		if acc == nil {
			acc = t
			continue
		}
		if acc, err = shlo.Multiply(acc, t); err != nil {
			return factor{}, err
		}
	}
	levels, axes := splitLabels(labels)
	return factor{t: acc, levels: levels, axes: axes}, nil
}

// dense returns v as one tensor with every logical axis present, and the
// levels it depends on.
func (l *lowerer) dense(v *val) (*shlo.Value, []int, error) {
	f, err := l.merge(v)
	if err != nil {
		return nil, nil, err
	}
	all := seq(len(v.shape))
	if slices.Equal(f.axes, all) {
		return f.t, f.levels, nil
	}
	full := factor{levels: f.levels, axes: all}
	t, err := l.expand(v, f, full.labels())
	return t, f.levels, err
}

// constant returns a scalar val of type dt holding x (rounded to dt).
func (l *lowerer) constant(dt graph.DType, x float64) (*val, error) {
	x = dt.Round(x)
	var c any
	switch dt {
	case graph.Float32:
		c = float32(x)
	case graph.Float64:
		c = x
	case graph.Int32:
		c = int32(x)
	case graph.Bool:
		c = x != 0
	default:
		return nil, fmt.Errorf("constant of element type %v", dt)
	}
	t, err := l.fn.ConstantFromScalar(c)
	if err != nil {
		return nil, err
	}
	return &val{dt: dt, factors: []factor{{t: t}}}, nil
}

// concrete gives an untyped literal the default type f64, as graph.Check
// does where no context decides; tuples element by element.
func (l *lowerer) concrete(v *val) (*val, error) {
	switch {
	case v.tuple != nil:
		out := &val{tuple: make([]*val, len(v.tuple))}
		for i, e := range v.tuple {
			c, err := l.concrete(e)
			if err != nil {
				return nil, err
			}
			out.tuple[i] = c
		}
		return out, nil
	case v.untyped:
		return l.constant(graph.Float64, v.c)
	}
	return v, nil
}

// enter gives the elements of v along its outer axis, as the body of a loop
// at level sees them: the outer logical axis becomes the loop's level. No
// operation is emitted: the level is the innermost one, so its axis already
// sits right after the factor's other levels.
func enter(v *val, level int) (*val, error) {
	if v.tuple != nil {
		out := &val{tuple: make([]*val, len(v.tuple))}
		for i, e := range v.tuple {
			x, err := enter(e, level)
			if err != nil {
				return nil, err
			}
			out.tuple[i] = x
		}
		return out, nil
	}
	if v.untyped || len(v.shape) == 0 {
		return nil, fmt.Errorf("a scalar has no outer axis to traverse")
	}
	out := &val{dt: v.dt, shape: v.shape[1:], factors: make([]factor, len(v.factors))}
	for i, f := range v.factors {
		nf := factor{t: f.t, levels: f.levels}
		for _, a := range f.axes {
			if a == 0 {
				nf.levels = append(slices.Clone(f.levels), level)
			} else {
				nf.axes = append(nf.axes, a-1)
			}
		}
		out.factors[i] = nf
	}
	return out, nil
}

// exit stacks the per-iteration values v of the loop at level, the
// innermost one, into a value with a new outer axis of the given extent:
// the loop's level becomes logical axis 0. No operation is emitted.
func (l *lowerer) exit(v *val, level, extent int) (*val, error) {
	if v.tuple != nil {
		out := &val{tuple: make([]*val, len(v.tuple))}
		for i, e := range v.tuple {
			x, err := l.exit(e, level, extent)
			if err != nil {
				return nil, err
			}
			out.tuple[i] = x
		}
		return out, nil
	}
	v, err := l.concrete(v)
	if err != nil {
		return nil, err
	}
	out := &val{dt: v.dt, shape: append([]int{extent}, v.shape...), factors: make([]factor, len(v.factors))}
	for i, f := range v.factors {
		nf := factor{t: f.t, levels: f.levels}
		if n := len(f.levels); n > 0 && f.levels[n-1] == level {
			nf.levels = slices.Clone(f.levels[:n-1])
			nf.axes = []int{0}
		}
		for _, a := range f.axes {
			nf.axes = append(nf.axes, a+1)
		}
		out.factors[i] = nf
	}
	return out, nil
}

// outerExtent is the extent of v's outer axis (of its first element, for a
// tuple).
func outerExtent(v *val) (int, error) {
	for v.tuple != nil {
		v = v.tuple[0]
	}
	if v.untyped || len(v.shape) == 0 {
		return 0, fmt.Errorf("a scalar has no outer axis to traverse")
	}
	return v.shape[0], nil
}
