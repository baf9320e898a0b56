package stablehlo

import (
	"fmt"
	"math"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"
	"github.com/gomlx/go-xla/pkg/types/dtypes"

	"github.com/hofuse/hofuse/graph"
)

// opKind says how a scalar op is emitted; which operand and result types
// it has is graph's business (graph.Op.Resolve).
type opKind uint8

const (
	kindElementwise opKind = iota // unary or binary
	kindCompare                   // compare with dir
	kindSelect                    // select c a b
	kindConvert                   // convert to the result type
)

type opInfo struct {
	kind   opKind
	unary  func(*shlo.Value) (*shlo.Value, error)
	binary func(a, b *shlo.Value) (*shlo.Value, error)
	dir    types.ComparisonDirection // for compares
}

// scalarOps says how each graph op becomes a StableHLO elementwise op. Mul
// is special-cased (kept as a lazy product, see val), and so is select.
// Max and min are graph's IEEE 754-2019 maximum and minimum (see maximum).
var scalarOps = map[graph.Op]opInfo{
	graph.Add:      {binary: shlo.Add},
	graph.Sub:      {binary: shlo.Subtract},
	graph.Mul:      {binary: shlo.Multiply},
	graph.Div:      {binary: shlo.Divide},
	graph.Neg:      {unary: shlo.Negate},
	graph.Min:      {binary: minimum},
	graph.Max:      {binary: maximum},
	graph.Abs:      {unary: shlo.Abs},
	graph.Pow:      {binary: shlo.Power},
	graph.Exp:      {unary: shlo.Exponential},
	graph.Log:      {unary: shlo.Log},
	graph.Sqrt:     {unary: shlo.Sqrt},
	graph.Rsqrt:    {unary: shlo.Rsqrt},
	graph.Tanh:     {unary: shlo.Tanh},
	graph.Logistic: {unary: shlo.Logistic},
	graph.Erf:      {unary: shlo.Erf}, // chlo.erf, which XLA legalises
	graph.Lt:       {kind: kindCompare, dir: types.CompareLT},
	graph.Le:       {kind: kindCompare, dir: types.CompareLE},
	graph.Gt:       {kind: kindCompare, dir: types.CompareGT},
	graph.Ge:       {kind: kindCompare, dir: types.CompareGE},
	graph.Eq:       {kind: kindCompare, dir: types.CompareEQ},
	graph.Ne:       {kind: kindCompare, dir: types.CompareNE},
	graph.And:      {binary: shlo.And},
	graph.Or:       {binary: shlo.Or},
	graph.Not:      {unary: shlo.Not},
	graph.Select:   {kind: kindSelect},
	graph.ToF32:    {kind: kindConvert},
	graph.ToF64:    {kind: kindConvert},
	graph.ToI32:    {kind: kindConvert},
}

// call lowers op applied to args, elementwise over their loop levels.
func (l *lowerer) call(n graph.Node, op graph.Op, args []*val) (*val, error) {
	if op == graph.StopGrad && len(args) == 1 && args[0].tuple == nil {
		return args[0], nil // the value itself; it matters only to differentiation
	}
	info, ok := scalarOps[op]
	if !ok {
		return nil, l.unsupported(n, "scalar op %v has no StableHLO translation", op)
	}
	if len(args) != op.Arity() {
		return nil, l.errorf(n, "%v takes %d operands, got %d", op, op.Arity(), len(args))
	}
	dts := make([]graph.DType, len(args)) // graph.Invalid: an untyped literal
	allUntyped := true
	for i, a := range args {
		if a.tuple != nil {
			return nil, l.errorf(n, "%v: operand %d is a tuple, not a scalar", op, i)
		}
		if !a.untyped {
			if len(a.shape) != 0 {
				return nil, l.errorf(n, "%v: operand %d is an array of extents %v, not a scalar", op, i, a.shape)
			}
			dts[i] = a.dt
			allUntyped = false
		}
	}
	rs, rdt, err := op.Resolve(dts)
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	if allUntyped {
		// Fold at translation time, with the interpreter's rules.
		xs := make([]float64, len(args))
		for i, a := range args {
			xs[i] = rs[i].Round(a.c)
		}
		v, err := op.Eval(rdt, xs...)
		if err != nil {
			return nil, l.errorf(n, "%v", err)
		}
		if rdt == graph.Invalid {
			return &val{untyped: true, c: v}, nil
		}
		return l.constant(rdt, v)
	}

	// Give untyped literals the type Resolve decides.
	ops := make([]*val, len(args))
	for i, a := range args {
		if !a.untyped {
			ops[i] = a
			continue
		}
		c, err := l.constant(rs[i], a.c)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		ops[i] = c
	}

	if op == graph.Mul {
		// Keep the product lazy: a sum over a loop of it may become a
		// dot_general.
		out := &val{dt: rdt}
		for _, a := range ops {
			out.factors = append(out.factors, a.factors...)
		}
		return out, nil
	}

	// Bring every operand to the union of their loop levels.
	fs := make([]factor, len(ops))
	var all [][]int
	for i, a := range ops {
		f, err := l.merge(a)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		fs[i] = f
		all = append(all, f.levels)
	}
	levels := union(all...)
	ts := make([]*shlo.Value, len(ops))
	for i, f := range fs {
		t, err := l.expand(ops[i], f, levels)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		ts[i] = t
	}

	var t *shlo.Value
	switch info.kind {
	case kindCompare:
		ct := types.CompareFloat
		if rs[0] == graph.Int32 {
			ct = types.CompareSigned
		} else if rs[0] == graph.Bool {
			ct = types.CompareUnsigned
		}
		t, err = shlo.Compare(ts[0], ts[1], info.dir, ct)
	case kindSelect:
		t, err = shlo.Select(ts[0], ts[1], ts[2])
	case kindConvert:
		t, err = l.convert(ts[0], rs[0], rdt)
	default:
		switch {
		case op == graph.Exp && rdt == graph.Float32:
			t, err = l.expF32(ts[0])
		case info.unary != nil:
			t, err = info.unary(ts[0])
		case (op == graph.Max || op == graph.Min) && rdt.IsFloat() && (args[0].untyped || args[1].untyped):
			x, k, c := ts[0], ts[1], rs[1].Round(args[1].c)
			if args[0].untyped {
				x, k, c = ts[1], ts[0], rs[0].Round(args[0].c)
			}
			t, err = minMaxConst(x, k, c, op == graph.Max)
		default:
			t, err = info.binary(ts[0], ts[1])
		}
	}
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return &val{dt: rdt, factors: []factor{{t: t, levels: levels}}}, nil
}

// expF32 is exp on f32 with exp(+Inf) = +Inf. XLA's CPU code for an f32
// exponential inside a fused elementwise loop clamps its argument, so
// there exp(+Inf) is a large finite number and y - exp x for x = y = +Inf
// comes out +Inf instead of NaN (an exponential computed alone, and every
// f64 one, is right). A compare with +Inf and a select give back the IEEE
// answer; they cost two cheap ops beside the exponential's polynomial.
func (l *lowerer) expF32(x *shlo.Value) (*shlo.Value, error) {
	e, err := shlo.Exponential(x)
	if err != nil {
		return nil, err
	}
	inf, err := l.fn.ConstantFromScalar(float32(math.Inf(1)))
	if err != nil {
		return nil, err
	}
	if inf, err = shlo.BroadcastInDim(inf, x.Shape(), nil); err != nil {
		return nil, err
	}
	isInf, err := shlo.Compare(x, inf, types.CompareEQ, types.CompareFloat)
	if err != nil {
		return nil, err
	}
	return shlo.Select(isInf, inf, e)
}

// identity returns the identity element of the reduction op for dt.
func identity(op graph.Op, dt graph.DType) (float64, error) {
	alg := op.Algebra()
	if !alg.HasIdentity {
		return 0, fmt.Errorf("%v has no identity", op)
	}
	x := alg.Identity
	if dt == graph.Int32 && math.IsInf(x, 0) {
		if x > 0 {
			return math.MaxInt32, nil
		}
		return math.MinInt32, nil
	}
	return x, nil
}

// maximum is graph's max: IEEE 754-2019 maximum, as numpy.maximum: NaN
// when either operand is NaN, and max(-0, +0) = +0. StableHLO's maximum
// leaves both open, and XLA's CPU back end (with its default fast min/max)
// returns the other operand for a NaN and either zero for ±0; its debug
// option xla_cpu_enable_fast_min_max=false fixes NaN only, and cannot be set
// alone through PJRT's compile options. So floats are lowered explicitly:
//
//	a == b && a == a - a  ? a + b               (both zeros: the +0 of ±0)
//	a > b || a != a       ? a                   (a NaN picks a)
//	                      : b                   (b NaN picks b)
//
// For zeros a + b is -0 only when both are -0, which is max's rule; min's
// is -((-a) + (-b)). a - a is +0 for finite a and NaN otherwise, so the
// test holds for zeros alone (and an XLA that folds a - a to 0 changes
// nothing). Nothing here looks at the bits: an earlier form and-ed the
// operands' bits, which CUDA's XLA (jax-cuda13-pjrt 0.11.2) rewrote into
// an "and" of floats and then refused to compile.
//
// Integers use StableHLO's maximum, which is exact. The same function is
// the body of reductions by max, so reduce max of an array with a NaN is
// NaN.
func maximum(a, b *shlo.Value) (*shlo.Value, error) {
	return minMax(a, b, true)
}

// minimum is graph's min: IEEE 754-2019 minimum, min(-0, +0) = -0; see
// maximum.
func minimum(a, b *shlo.Value) (*shlo.Value, error) {
	return minMax(a, b, false)
}

func minMax(a, b *shlo.Value, isMax bool) (*shlo.Value, error) {
	if ft := a.Shape().DType; ft != dtypes.Float32 && ft != dtypes.Float64 {
		if isMax {
			return shlo.Maximum(a, b)
		}
		return shlo.Minimum(a, b)
	}
	dir := types.CompareGT
	if !isMax {
		dir = types.CompareLT
	}
	// zeros is the sum that picks between two zeros.
	zeros := func() (*shlo.Value, error) { return shlo.Add(a, b) }
	if !isMax {
		zeros = func() (*shlo.Value, error) {
			na, err := shlo.Negate(a)
			if err != nil {
				return nil, err
			}
			nb, err := shlo.Negate(b)
			if err != nil {
				return nil, err
			}
			s, err := shlo.Add(na, nb)
			if err != nil {
				return nil, err
			}
			return shlo.Negate(s)
		}
	}
	// The steps, each on the values of the ones before.
	var v [9]*shlo.Value
	steps := []func() (*shlo.Value, error){
		func() (*shlo.Value, error) { return shlo.Compare(a, b, types.CompareEQ, types.CompareFloat) },    // 0: a == b
		func() (*shlo.Value, error) { return shlo.Subtract(a, a) },                                        // 1: +0, or NaN
		func() (*shlo.Value, error) { return shlo.Compare(a, v[1], types.CompareEQ, types.CompareFloat) }, // 2: a is a zero
		func() (*shlo.Value, error) { return shlo.And(v[0], v[2]) },                                       // 3: both zeros
		zeros, // 4
		func() (*shlo.Value, error) { return shlo.Compare(a, b, dir, types.CompareFloat) },             // 5: a beats b
		func() (*shlo.Value, error) { return shlo.Compare(a, a, types.CompareNE, types.CompareFloat) }, // 6: a is NaN
		func() (*shlo.Value, error) { return shlo.Or(v[5], v[6]) },                                     // 7
		func() (*shlo.Value, error) { return shlo.Select(v[7], a, b) },                                 // 8
	}
	for i, step := range steps {
		var err error
		if v[i], err = step(); err != nil {
			return nil, err
		}
	}
	return shlo.Select(v[3], v[4], v[8])
}

// minMaxConst is max x k (isMax) or min x k for a literal k of value c:
// relu's max v 0. Where c is not NaN and not the zero that loses to the
// other (-0 for max, +0 for min), the definition needs no bits:
//
//	x > c || x != x ? x : c     (x < c for min)
//
// since x == c means x is c, or x is the other zero, which c beats.
// Otherwise it is minMax.
func minMaxConst(x, k *shlo.Value, c float64, isMax bool) (*shlo.Value, error) {
	if math.IsNaN(c) || c == 0 && math.Signbit(c) == isMax {
		return minMax(x, k, isMax)
	}
	dir := types.CompareGT
	if !isMax {
		dir = types.CompareLT
	}
	beats, err := shlo.Compare(x, k, dir, types.CompareFloat)
	if err != nil {
		return nil, err
	}
	isNaN, err := shlo.Compare(x, x, types.CompareNE, types.CompareFloat)
	if err != nil {
		return nil, err
	}
	pick, err := shlo.Or(beats, isNaN)
	if err != nil {
		return nil, err
	}
	return shlo.Select(pick, x, k)
}

// convert converts t from element type from to to.
func (l *lowerer) convert(t *shlo.Value, from, to graph.DType) (*shlo.Value, error) {
	if from == to {
		return t, nil
	}
	xdt, err := xlaDType(to)
	if err != nil {
		return nil, err
	}
	return shlo.Convert(t, xdt)
}
