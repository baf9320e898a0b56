package stablehlo

import (
	"fmt"
	"math"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"

	"github.com/hofuse/hofuse/graph"
)

// opKind groups the scalar ops by how their operand types are decided; it
// mirrors the rules of graph.Check.
type opKind uint8

const (
	kindArith   opKind = iota // numeric operands of one type, same result type
	kindFloat                 // float operands, same result type
	kindCompare               // numeric operands of one type, bool result
	kindLogic                 // bool operands and result
	kindSelect                // select c a b
	kindConvert               // any operand, fixed result type
)

type opInfo struct {
	kind   opKind
	unary  func(*shlo.Value) (*shlo.Value, error)
	binary func(a, b *shlo.Value) (*shlo.Value, error)
	dir    types.ComparisonDirection // for compares
	to     graph.DType               // for conversions
}

// scalarOps says how each graph op becomes a StableHLO elementwise op. Mul
// is special-cased (kept as a lazy product, see val), and so is select.
var scalarOps = map[graph.Op]opInfo{
	graph.Add:      {kind: kindArith, binary: shlo.Add},
	graph.Sub:      {kind: kindArith, binary: shlo.Subtract},
	graph.Mul:      {kind: kindArith, binary: shlo.Multiply},
	graph.Div:      {kind: kindArith, binary: shlo.Divide},
	graph.Neg:      {kind: kindArith, unary: shlo.Negate},
	graph.Min:      {kind: kindArith, binary: shlo.Minimum},
	graph.Max:      {kind: kindArith, binary: shlo.Maximum},
	graph.Abs:      {kind: kindArith, unary: shlo.Abs},
	graph.Pow:      {kind: kindFloat, binary: shlo.Power},
	graph.Exp:      {kind: kindFloat, unary: shlo.Exponential},
	graph.Log:      {kind: kindFloat, unary: shlo.Log},
	graph.Sqrt:     {kind: kindFloat, unary: shlo.Sqrt},
	graph.Rsqrt:    {kind: kindFloat, unary: shlo.Rsqrt},
	graph.Tanh:     {kind: kindFloat, unary: shlo.Tanh},
	graph.Logistic: {kind: kindFloat, unary: shlo.Logistic},
	graph.Erf:      {kind: kindFloat, unary: shlo.Erf}, // chlo.erf, which XLA legalises
	graph.Lt:       {kind: kindCompare, dir: types.CompareLT},
	graph.Le:       {kind: kindCompare, dir: types.CompareLE},
	graph.Gt:       {kind: kindCompare, dir: types.CompareGT},
	graph.Ge:       {kind: kindCompare, dir: types.CompareGE},
	graph.Eq:       {kind: kindCompare, dir: types.CompareEQ},
	graph.Ne:       {kind: kindCompare, dir: types.CompareNE},
	graph.And:      {kind: kindLogic, binary: shlo.And},
	graph.Or:       {kind: kindLogic, binary: shlo.Or},
	graph.Not:      {kind: kindLogic, unary: shlo.Not},
	graph.Select:   {kind: kindSelect},
	graph.ToF32:    {kind: kindConvert, to: graph.Float32},
	graph.ToF64:    {kind: kindConvert, to: graph.Float64},
	graph.ToI32:    {kind: kindConvert, to: graph.Int32},
}

// call lowers op applied to args, elementwise over their loop levels.
func (l *lowerer) call(n graph.Node, op graph.Op, args []*val) (*val, error) {
	info, ok := scalarOps[op]
	if !ok {
		return nil, l.unsupported(n, "scalar op %v has no StableHLO translation", op)
	}
	if len(args) != op.Arity() {
		return nil, l.errorf(n, "%v takes %d operands, got %d", op, op.Arity(), len(args))
	}
	allUntyped := true
	for i, a := range args {
		if a.tuple != nil {
			return nil, l.errorf(n, "%v: operand %d is a tuple, not a scalar", op, i)
		}
		if !a.untyped {
			if len(a.shape) != 0 {
				return nil, l.errorf(n, "%v: operand %d is an array of extents %v, not a scalar", op, i, a.shape)
			}
			allUntyped = false
		}
	}
	if allUntyped {
		return l.fold(op, info, args)
	}

	// Give untyped literals the type of their typed partners, as
	// graph.Check does.
	dts := make([]graph.DType, len(args))
	group := seq(len(args))
	if info.kind == kindSelect {
		group = group[1:]
		dts[0] = graph.Bool
	}
	partner := graph.Invalid
	for _, i := range group {
		if !args[i].untyped {
			partner = args[i].dt
			break
		}
	}
	if partner == graph.Invalid {
		switch info.kind {
		case kindLogic:
			partner = graph.Bool
		default: // select with two literal branches, or a conversion
			partner = graph.Float64
		}
	}
	for _, i := range group {
		dts[i] = partner
	}
	ops := make([]*val, len(args))
	for i, a := range args {
		if !a.untyped {
			ops[i] = a
			continue
		}
		c, err := l.constant(dts[i], a.c)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		ops[i] = c
	}

	if op == graph.Mul {
		// Keep the product lazy: a sum over a loop of it may become a
		// dot_general.
		out := &val{dt: partner}
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

	var (
		t   *shlo.Value
		err error
		rdt = partner
	)
	switch info.kind {
	case kindCompare:
		ct := types.CompareFloat
		if partner == graph.Int32 {
			ct = types.CompareSigned
		} else if partner == graph.Bool {
			ct = types.CompareUnsigned
		}
		t, err = shlo.Compare(ts[0], ts[1], info.dir, ct)
		rdt = graph.Bool
	case kindSelect:
		t, err = shlo.Select(ts[0], ts[1], ts[2])
	case kindConvert:
		rdt = info.to
		if ops[0].dt == info.to {
			t = ts[0]
			break
		}
		xdt, derr := xlaDType(info.to)
		if derr != nil {
			return nil, l.wrap(n, derr)
		}
		t, err = shlo.Convert(ts[0], xdt)
	default:
		if info.unary != nil {
			t, err = info.unary(ts[0])
		} else {
			t, err = info.binary(ts[0], ts[1])
		}
	}
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return &val{dt: rdt, factors: []factor{{t: t, levels: levels}}}, nil
}

// fold evaluates op on untyped literals at translation time, with the
// interpreter's rules: arithmetic on literals stays untyped and is computed
// in float64; other ops decide their operand types (f64, or bool for the
// logical ops) and give a typed scalar.
func (l *lowerer) fold(op graph.Op, info opInfo, args []*val) (*val, error) {
	xs := make([]float64, len(args))
	for i, a := range args {
		xs[i] = a.c
	}
	switch info.kind {
	case kindArith, kindFloat:
		return &val{untyped: true, c: op.Eval(graph.Invalid, xs...)}, nil
	}
	dts := make([]graph.DType, len(args))
	for i := range dts {
		dts[i] = graph.Float64
		if info.kind == kindLogic || (info.kind == kindSelect && i == 0) {
			dts[i] = graph.Bool
		}
		xs[i] = dts[i].Round(xs[i])
	}
	rdt, err := op.ResultDType(dts)
	if err != nil {
		return nil, err
	}
	return l.constant(rdt, op.Eval(rdt, xs...))
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
