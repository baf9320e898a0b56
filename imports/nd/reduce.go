package nd

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// ReduceKind is the operation Reduce combines elements with.
type ReduceKind int

// The reductions, ONNX's Reduce* operators and their numpy equivalents.
const (
	Sum       ReduceKind = iota + 1 // sum: reduce (+)
	Mean                            // mean: the sum divided by the element count
	Max                             // maximum: reduce max; NaN if any element is NaN
	Min                             // minimum: reduce min; NaN if any element is NaN
	Prod                            // product: reduce (*)
	SumSquare                       // sum of squares: rnz (+) (\v -> v * v)
	L1                              // sum of absolute values: rnz (+) (\v -> abs v)
	L2                              // Euclidean norm: sqrt of the sum of squares
	LogSum                          // log of the sum
	LogSumExp                       // log Σ exp v, computed as m + log Σ exp (v - m), m the maximum
)

var reduceNames = map[ReduceKind]string{Sum: "sum", Mean: "mean", Max: "max", Min: "min", Prod: "prod",
	SumSquare: "sumsquare", L1: "l1", L2: "l2", LogSum: "logsum", LogSumExp: "logsumexp"}

// String returns the kind's name: sum, mean, max, min, prod, sumsquare,
// l1, l2, logsum or logsumexp.
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

// float reports whether the kind takes a logarithm or a square root, and
// so needs a float element type.
func (k ReduceKind) float() bool { return k == L2 || k == LogSum || k == LogSumExp }

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
// end) by kind: ONNX's ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and
// ReduceLogSumExp (numpy's sum, mean, max, min and prod with an axis
// tuple, and their compositions). The last three need f32 or f64.
// With keepDims each reduced axis stays with extent 1; without, it goes,
// and reducing every axis gives a scalar. An empty axes list returns x as
// it is: ONNX's conventions for empty axes (reduce everything, or nothing
// under noop_with_empty_axes) are the caller's to apply, by passing every
// axis. f32 sums accumulate in f32, left to right in the interpreter.
//
// For a row r of the reduced axes (merged into one where the strides
// allow) the term is reduce (+) r, reduce max r, …; a mean is
// reduce (+) r / n, a sum of squares rnz (+) (\v -> v * v) r, a
// log-sum-exp let m = reduce max r in m + log (rnz (+) (\v -> exp (v - m)) r).
// Several axes that cannot merge reduce as nested rnz:
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
	if kind.float() && !a.dt.IsFloat() {
		return nil, p.errorf("x has element type %v, want f32 or f64 for %v", a.dt, kind)
	}
	// red reduces z, of rank k, with op after applying leaf (nil: none)
	// to every element: nested rnz for k > 1.
	var red func(b *layers.Builder, op graph.Op, leaf func(v graph.Node) graph.Node, z graph.Node, k int) graph.Node
	red = func(b *layers.Builder, op graph.Op, leaf func(v graph.Node) graph.Node, z graph.Node, k int) graph.Node {
		if k == 1 {
			if leaf == nil {
				return b.Reduce(b.Op(op), z)
			}
			return b.RNZ(b.Op(op), b.Lambda1("v", leaf), z)
		}
		return b.RNZ(b.Op(op), b.Lambda1(fmt.Sprintf("w%d", k), func(w graph.Node) graph.Node { return red(b, op, leaf, w, k-1) }), z)
	}
	y, err := p.overAxes(a, norm, keepDims, func(b *layers.Builder, z graph.Node, k int) graph.Node {
		square := func(v graph.Node) graph.Node { return b.Mul(v, v) }
		switch kind {
		case Mean:
			return b.Div(red(b, graph.Add, nil, z, k), b.Const(float64(count)))
		case SumSquare:
			return red(b, graph.Add, square, z, k)
		case L1:
			return red(b, graph.Add, func(v graph.Node) graph.Node { return b.Call(graph.Abs, v) }, z, k)
		case L2:
			return b.Call(graph.Sqrt, red(b, graph.Add, square, z, k))
		case LogSum:
			return b.Call(graph.Log, red(b, graph.Add, nil, z, k))
		case LogSumExp:
			return b.Let("m", red(b, graph.Max, nil, z, k), func(m graph.Node) graph.Node {
				s := red(b, graph.Add, func(v graph.Node) graph.Node { return b.Call(graph.Exp, b.Sub(v, m)) }, z, k)
				return b.Add(m, b.Call(graph.Log, s))
			})
		}
		return red(b, kind.op(), nil, z, k)
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
// The term zips each row r along the axis with the index input of its
// extent n (see Index; bind it with BindIndexes):
//
//	let m = reduce max r in
//	rnz min (\v i -> select (v == m || v != v) i n) r nd.index.n
//
// the smallest index holding the maximum (the largest, by rnz max with -1
// for the others, under selectLastIndex). When the row holds a NaN, m is
// NaN, which equals nothing, and the NaNs are the ones picked.
func ArgMax(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return Ops{}.ArgMax(x, axis, keepDims, selectLastIndex)
}

// ArgMax is the package's ArgMax, with o's source name.
func (o Ops) ArgMax(x graph.Node, axis int, keepDims, selectLastIndex bool) (graph.Node, error) {
	return o.argExtreme("ArgMax", true, x, axis, keepDims, selectLastIndex)
}

// ArgMin is ArgMax for the smallest element (m is reduce min r); a NaN
// still counts as the extreme one, as in numpy.argmin.
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
	n := a.lay[axis].Extent
	idx, err := Index(n)
	if err != nil {
		return nil, p.wrap(err, "axis %d", axis)
	}
	extreme, pick, other := graph.Max, graph.Min, float64(n)
	if !largest {
		extreme = graph.Min
	}
	if last {
		pick, other = graph.Max, -1
	}
	y, err := p.overAxes(a, []int{axis}, keepDims, func(b *layers.Builder, z graph.Node, _ int) graph.Node {
		return b.Let("m", b.Reduce(b.Op(extreme), z), func(m graph.Node) graph.Node {
			at := b.Lambda([]string{"v", "i"}, func(vs []graph.Node) graph.Node {
				v, i := vs[0], vs[1]
				hit := b.Call(graph.Eq, v, m)
				if a.dt.IsFloat() {
					hit = b.Call(graph.Or, hit, b.Call(graph.Ne, v, v))
				}
				return b.Call(graph.Select, hit, i, b.Const(other))
			})
			return b.RNZ(b.Op(pick), at, z, idx)
		})
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

// SoftmaxFlattened is ONNX Softmax before opset 13 (and LogSoftmax with
// log set): x is seen as the matrix Flatten(x, axis) (axis may be
// negative, 0..rank), the softmax is taken over each of its rows, that is
// over all the axes from axis on together, and the result has x's shape.
// The reshapes are views for a row-major x.
func SoftmaxFlattened(x graph.Node, axis int, log bool) (graph.Node, error) {
	return Ops{}.SoftmaxFlattened(x, axis, log)
}

// SoftmaxFlattened is the package's SoftmaxFlattened, with o's source
// name.
func (o Ops) SoftmaxFlattened(x graph.Node, axis int, log bool) (graph.Node, error) {
	name := "SoftmaxFlattened"
	p := o.begin(name)
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	if a.rank() == 0 {
		return nil, p.errorf("x is a scalar, want an array")
	}
	m, err := o.Flatten(x, axis)
	if err != nil {
		return nil, err
	}
	if log {
		m, err = o.LogSoftmax(m, 1)
	} else {
		m, err = o.Softmax(m, 1)
	}
	if err != nil {
		return nil, err
	}
	return o.Reshape(m, a.extents())
}
