package nd

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// ReduceKind is the operation Reduce combines elements with.
type ReduceKind int

// The reductions.
const (
	Sum  ReduceKind = iota + 1 // sum: rnz (+)
	Mean                       // mean: the sum divided by the element count
	Max                        // maximum: rnz max; NaN if any element is NaN
	Min                        // minimum: rnz min; NaN if any element is NaN
	Prod                       // product: rnz (*)
)

var reduceNames = map[ReduceKind]string{Sum: "sum", Mean: "mean", Max: "max", Min: "min", Prod: "prod"}

// String returns the kind's name: sum, mean, max, min or prod.
func (k ReduceKind) String() string {
	if s, ok := reduceNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ReduceKind(%d)", int(k))
}

func (k ReduceKind) op() graph.Op {
	switch k {
	case Max:
		return graph.Max
	case Min:
		return graph.Min
	case Prod:
		return graph.Mul
	}
	return graph.Add
}

// nest applies row to every sub-array of x below its outer depth axes: row
// x for depth 0, map (\e -> row e) x for depth 1, and so on.
func (p *op) nest(depth int, x graph.Node, row func(z graph.Node) graph.Node) graph.Node {
	if depth == 0 {
		return row(x)
	}
	return p.b.Map(p.b.Lambda1(fmt.Sprintf("e%d", depth), func(e graph.Node) graph.Node {
		return p.nest(depth-1, e, row)
	}), x)
}

// overAxes reduces the axes (resolved, distinct, at least one) of a: it
// moves them innermost (flips), merges them into one where the strides
// allow (flatten), and maps row over the kept axes; row receives the
// sub-array of the reduced axes, of rank k (1 when they merged), and
// returns a scalar. With keepDims the reduced axes come back with extent 1
// (subdiv); reducing every axis without keepDims gives a scalar.
func (p *op) overAxes(a arr, axes []int, keepDims bool, row func(b *layers.Builder, z graph.Node, k int) graph.Node) (arr, error) {
	r := a.rank()
	axes = slices.Clone(axes)
	slices.Sort(axes)
	perm := make([]int, 0, r)
	for d := range r {
		if !slices.Contains(axes, d) {
			perm = append(perm, d)
		}
	}
	kept := len(perm)
	perm = append(perm, axes...)
	t, err := p.permute(a, perm)
	if err != nil {
		return arr{}, err
	}
	k := len(axes)
	for k > 1 {
		i := t.rank() - 2
		if t.lay[i].Stride != t.lay[i+1].Extent*t.lay[i+1].Stride {
			break
		}
		if t, err = p.view(t, graph.FlattenView{Axis: i}); err != nil {
			return arr{}, err
		}
		k--
	}
	keptExt := t.extents()[:kept]
	if kept == 0 && keepDims {
		// A scalar cannot gain axes, but a map over an outer axis of
		// extent 1 gives an array of one element.
		if t, err = p.unsqueezeAxis(t, 0); err != nil {
			return arr{}, err
		}
		kept, keptExt = 1, []int{1}
		axes = axes[1:]
	}
	y := p.nest(kept, t.n, func(z graph.Node) graph.Node { return row(p.b, z, k) })
	out := arr{n: y, dt: a.dt}
	if kept > 0 {
		out.lay = graph.RowMajor(keptExt...)
	}
	if keepDims {
		for _, d := range axes {
			if out, err = p.unsqueezeAxis(out, d); err != nil {
				return arr{}, err
			}
		}
	}
	return out, nil
}

// Reduce returns x reduced over the given axes (negative counts from the
// end) by kind, ONNX's ReduceSum, ReduceMean, ReduceMax, ReduceMin and
// ReduceProd and numpy's sum, mean, max, min and prod with an axis tuple.
// With keepDims each reduced axis stays with extent 1; without, it goes,
// and reducing every axis gives a scalar. An empty axes list returns x as
// it is: ONNX's conventions for empty axes (reduce everything, or nothing
// under noop_with_empty_axes) are the caller's to apply, by passing every
// axis. f32 sums accumulate in f32, left to right in the interpreter.
//
// For a row r of the reduced axes (merged into one where the strides
// allow) the term is reduce (+) r, reduce max r, …; a mean is
// reduce (+) r / n. Several axes that cannot merge reduce as nested rnz:
// rnz (+) (\w -> reduce (+) w) r.
func Reduce(kind ReduceKind, x graph.Node, axes []int, keepDims bool) (graph.Node, error) {
	return Ops{}.Reduce(kind, x, axes, keepDims)
}

// Reduce is the package's Reduce, with o's source name.
func (o Ops) Reduce(kind ReduceKind, x graph.Node, axes []int, keepDims bool) (graph.Node, error) {
	p := o.begin("Reduce " + kind.String())
	if _, ok := reduceNames[kind]; !ok {
		return nil, p.errorf("unknown reduction %v", kind)
	}
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	if !a.dt.IsNumeric() {
		return nil, p.errorf("x has element type %v, want f32, f64 or i32", a.dt)
	}
	norm, err := p.normAxes("axis", axes, a.rank())
	if err != nil {
		return nil, err
	}
	if len(norm) == 0 {
		return x, nil
	}
	count := 1
	for _, d := range norm {
		count *= a.lay[d].Extent
	}
	op := kind.op()
	var red func(b *layers.Builder, z graph.Node, k int) graph.Node
	red = func(b *layers.Builder, z graph.Node, k int) graph.Node {
		if k == 1 {
			return b.Reduce(b.Op(op), z)
		}
		return b.RNZ(b.Op(op), b.Lambda1(fmt.Sprintf("w%d", k), func(w graph.Node) graph.Node { return red(b, w, k-1) }), z)
	}
	y, err := p.overAxes(a, norm, keepDims, func(b *layers.Builder, z graph.Node, k int) graph.Node {
		s := red(b, z, k)
		if kind == Mean {
			s = b.Div(s, b.Const(float64(count)))
		}
		return s
	})
	if err != nil {
		return nil, err
	}
	return p.done(y.n)
}

// rows moves axis of a innermost, maps row over every row along it (row
// returns an array of the row's extent) and moves the axis back: the
// result has a's extents, as a view of a row-major array.
func (p *op) rows(a arr, axis int, row func(b *layers.Builder, r graph.Node) graph.Node) (graph.Node, error) {
	r := a.rank()
	perm := make([]int, 0, r)
	for d := range r {
		if d != axis {
			perm = append(perm, d)
		}
	}
	perm = append(perm, axis)
	t, err := p.permute(a, perm)
	if err != nil {
		return nil, err
	}
	y := arr{n: p.nest(r-1, t.n, func(z graph.Node) graph.Node { return row(p.b, z) }), dt: a.dt,
		lay: graph.RowMajor(t.extents()...)}
	inv := make([]int, r)
	for j, d := range perm {
		inv[d] = j
	}
	if y, err = p.permute(y, inv); err != nil {
		return nil, err
	}
	return p.done(y.n)
}

func (p *op) floatArray(x graph.Node, axis int) (arr, int, error) {
	a, err := p.operand("x", x)
	if err != nil {
		return arr{}, 0, err
	}
	if !a.dt.IsFloat() {
		return arr{}, 0, p.errorf("x has element type %v, want f32 or f64", a.dt)
	}
	if a.rank() == 0 {
		return arr{}, 0, p.errorf("x is a scalar, want an array")
	}
	axis, err = p.normAxis("axis", axis, a.rank())
	return a, axis, err
}

// Softmax returns exp(x - m) / sum exp(x - m) along axis (negative counts
// from the end), m the maximum along it, as ONNX Softmax since opset 13
// and numpy compute it; for opset 12 and before (softmax of the axes from
// axis on, flattened) the caller flattens with Flatten, calls Softmax on
// axis 1 and reshapes back. For each row r along the axis the term is
// layers.Softmax's:
//
//	let m = reduce max r in
//	let s = rnz (+) (\v -> exp (v - m)) r in
//	map (\v -> exp (v - m) / s) r
//
// the axis moved innermost by flips and back after, so no copy is made.
func Softmax(x graph.Node, axis int) (graph.Node, error) { return Ops{}.Softmax(x, axis) }

// Softmax is the package's Softmax, with o's source name.
func (o Ops) Softmax(x graph.Node, axis int) (graph.Node, error) {
	p := o.begin("Softmax")
	a, axis, err := p.floatArray(x, axis)
	if err != nil {
		return nil, err
	}
	return p.rows(a, axis, func(b *layers.Builder, r graph.Node) graph.Node {
		return b.Let("m", b.Reduce(b.Op(graph.Max), r), func(m graph.Node) graph.Node {
			shifted := func(v graph.Node) graph.Node { return b.Call(graph.Exp, b.Sub(v, m)) }
			sum := b.RNZ(b.Op(graph.Add), b.Lambda1("v", shifted), r)
			return b.Let("s", sum, func(s graph.Node) graph.Node {
				return b.Map(b.Lambda1("v", func(v graph.Node) graph.Node { return b.Div(shifted(v), s) }), r)
			})
		})
	})
}

// LogSoftmax returns x - m - log(sum exp(x - m)) along axis, m the maximum
// along it: the logarithm of Softmax, computed without forming it, so it
// stays finite where the softmax underflows. For each row r:
//
//	let m = reduce max r in
//	let l = log (rnz (+) (\v -> exp (v - m)) r) in
//	map (\v -> v - m - l) r
func LogSoftmax(x graph.Node, axis int) (graph.Node, error) { return Ops{}.LogSoftmax(x, axis) }

// LogSoftmax is the package's LogSoftmax, with o's source name.
func (o Ops) LogSoftmax(x graph.Node, axis int) (graph.Node, error) {
	p := o.begin("LogSoftmax")
	a, axis, err := p.floatArray(x, axis)
	if err != nil {
		return nil, err
	}
	return p.rows(a, axis, func(b *layers.Builder, r graph.Node) graph.Node {
		return b.Let("m", b.Reduce(b.Op(graph.Max), r), func(m graph.Node) graph.Node {
			sum := b.RNZ(b.Op(graph.Add), b.Lambda1("v", func(v graph.Node) graph.Node {
				return b.Call(graph.Exp, b.Sub(v, m))
			}), r)
			return b.Let("l", b.Call(graph.Log, sum), func(l graph.Node) graph.Node {
				return b.Map(b.Lambda1("v", func(v graph.Node) graph.Node { return b.Sub(b.Sub(v, m), l) }), r)
			})
		})
	})
}

// ArgMax returns the index (i32) of the largest element along axis
// (negative counts from the end): the first one among equals, or the last
// with selectLastIndex (ONNX's select_last_index). A NaN counts as the
// largest, as in numpy.argmax: the first NaN, or the last with
// selectLastIndex. keepDims keeps the axis with extent 1.
//
// The IR has no index array, so each row is reduced with a tuple
// accumulator (best value, its index, elements seen): every element v
// enters as (v, 0, 1) and two partial results combine as
//
//	\a c -> let t = take a c in
//	  (select t c.0 a.0, select t (a.2 + c.1) a.1, a.2 + c.2)
//
// an associative (not commutative) operator, so a back end may split the
// row into consecutive pieces.
func ArgMax(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return Ops{}.ArgMax(x, axis, keepDims, selectLastIndex)
}

// ArgMax is the package's ArgMax, with o's source name.
func (o Ops) ArgMax(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return o.argExtreme("ArgMax", true, x, axis, keepDims, selectLastIndex)
}

// ArgMin is ArgMax for the smallest element; a NaN still counts as the
// extreme one, as in numpy.argmin.
func ArgMin(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return Ops{}.ArgMin(x, axis, keepDims, selectLastIndex)
}

// ArgMin is the package's ArgMin, with o's source name.
func (o Ops) ArgMin(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return o.argExtreme("ArgMin", false, x, axis, keepDims, selectLastIndex)
}

func (o Ops) argExtreme(name string, largest bool, x graph.Node, axis int, keepDims, last bool) (graph.Node, error) {
	p := o.begin(name)
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	if !a.dt.IsNumeric() {
		return nil, p.errorf("x has element type %v, want f32, f64 or i32", a.dt)
	}
	if a.rank() == 0 {
		return nil, p.errorf("x is a scalar, want an array")
	}
	if axis, err = p.normAxis("axis", axis, a.rank()); err != nil {
		return nil, err
	}
	// better says whether c replaces the best so far, a.
	cmp := graph.Gt
	switch {
	case largest && last:
		cmp = graph.Ge
	case !largest && !last:
		cmp = graph.Lt
	case !largest && last:
		cmp = graph.Le
	}
	isNaN := func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Ne, v, v) }
	better := func(b *layers.Builder, va, vc graph.Node) graph.Node {
		if !a.dt.IsFloat() {
			return b.Call(cmp, vc, va)
		}
		// A NaN wins: the first one, or with last the latest.
		nan := isNaN(b, vc)
		if !last {
			nan = b.Call(graph.And, nan, b.Call(graph.Not, isNaN(b, va)))
		}
		return b.Call(graph.Or, b.Call(cmp, vc, va), nan)
	}
	i32 := func(b *layers.Builder, v float64) graph.Node { return b.Call(graph.ToI32, b.Const(v)) }
	y, err := p.overAxes(a, []int{axis}, keepDims, func(b *layers.Builder, z graph.Node, _ int) graph.Node {
		enter := b.Lambda1("v", func(v graph.Node) graph.Node { return b.Tuple(v, i32(b, 0), i32(b, 1)) })
		combine := b.Lambda([]string{"a", "c"}, func(vs []graph.Node) graph.Node {
			acc, c := vs[0], vs[1]
			return b.Let("t", better(b, b.Proj(0, acc), b.Proj(0, c)), func(t graph.Node) graph.Node {
				n := b.Proj(2, acc)
				return b.Tuple(
					b.Call(graph.Select, t, b.Proj(0, c), b.Proj(0, acc)),
					b.Call(graph.Select, t, b.Add(n, b.Proj(1, c)), b.Proj(1, acc)),
					b.Add(n, b.Proj(2, c)))
			})
		})
		return b.Proj(1, b.RNZ(combine, enter, z))
	})
	if err != nil {
		return nil, err
	}
	return p.done(y.n)
}

// Cast returns x converted to dt element by element, with graph's
// conversions (Scalar semantics in the graph package): to f32 and f64
// round to nearest, to i32 rounds toward zero and saturates (NaN gives 0),
// to bool is x != 0 (NaN is true, as numpy's astype(bool)). A cast to x's
// own type returns x.
func Cast(x graph.Node, dt graph.DType) (graph.Node, error) { return Ops{}.Cast(x, dt) }

// Cast is the package's Cast, with o's source name.
func (o Ops) Cast(x graph.Node, dt graph.DType) (graph.Node, error) {
	p := o.begin("Cast")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	var conv graph.Op
	switch dt {
	case graph.Float32:
		conv = graph.ToF32
	case graph.Float64:
		conv = graph.ToF64
	case graph.Int32:
		conv = graph.ToI32
	case graph.Bool:
	default:
		return nil, p.errorf("unknown target element type %v", dt)
	}
	if a.dt == dt {
		return x, nil
	}
	return o.zipWith("Cast", func(b *layers.Builder, vs ...graph.Node) graph.Node {
		if dt == graph.Bool {
			if a.dt == graph.Bool {
				return vs[0]
			}
			return b.Call(graph.Ne, vs[0], b.Const(0))
		}
		return b.Call(conv, vs[0])
	}, x)
}
