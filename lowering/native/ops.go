package native

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
)

// untyped is the element type of a scalar literal until its context decides
// (graph's convention: graph.Invalid).
const untyped = graph.Invalid

// opKind classifies the scalar ops the way graph's checker does; the
// checker's table is unexported, so this mirrors it.
type opKind uint8

const (
	kNone    opKind = iota
	kArith          // numeric operands of one type, same result type
	kFloat          // float operands, same result type
	kCompare        // numeric operands of one type, bool result
	kLogic          // bool operands, bool result
	kChoose         // select
	kConvert        // any operand, fixed result type
)

var opKinds = map[graph.Op]opKind{
	graph.Add: kArith, graph.Sub: kArith, graph.Mul: kArith, graph.Div: kArith,
	graph.Neg: kArith, graph.Min: kArith, graph.Max: kArith, graph.Abs: kArith,
	graph.Pow: kFloat, graph.Exp: kFloat, graph.Log: kFloat, graph.Sqrt: kFloat,
	graph.Rsqrt: kFloat, graph.Tanh: kFloat, graph.Logistic: kFloat, graph.Erf: kFloat,
	graph.Lt: kCompare, graph.Le: kCompare, graph.Gt: kCompare, graph.Ge: kCompare,
	graph.Eq: kCompare, graph.Ne: kCompare,
	graph.And: kLogic, graph.Or: kLogic, graph.Not: kLogic,
	graph.Select: kChoose,
	graph.ToF32:  kConvert, graph.ToF64: kConvert, graph.ToI32: kConvert,
}

// resolve types op applied to operands of types dts, some possibly
// untyped, as graph's checker and interpreter do: untyped operands take the
// type of their typed partners (for select, its last two operands), and
// arithmetic on untyped operands only stays untyped. It returns the type
// every operand is rounded to before the op and the result type.
func resolve(op graph.Op, dts []graph.DType) ([]graph.DType, graph.DType, error) {
	k := opKinds[op]
	if k == kNone {
		return nil, graph.Invalid, fmt.Errorf("scalar op %v is not supported by the native back end", op)
	}
	if len(dts) != op.Arity() {
		return nil, graph.Invalid, fmt.Errorf("%v takes %d operands, got %d", op, op.Arity(), len(dts))
	}
	rs := append([]graph.DType(nil), dts...)
	group := rs
	if op == graph.Select {
		group = rs[1:]
		if rs[0] == untyped {
			rs[0] = graph.Bool
		}
	}
	partner := untyped
	for _, d := range group {
		if d != untyped {
			partner = d
			break
		}
	}
	if partner == untyped {
		if k == kLogic {
			partner = graph.Bool
		} else {
			if k == kArith || k == kFloat {
				return rs, untyped, nil
			}
			for i := range rs {
				if rs[i] == untyped {
					rs[i] = graph.Float64
				}
			}
			dt, err := op.ResultDType(rs)
			return rs, dt, err
		}
	}
	for i := range group {
		if group[i] == untyped {
			group[i] = partner
		}
	}
	dt, err := op.ResultDType(rs)
	return rs, dt, err
}

// concrete gives an untyped scalar the default type f64, as graph does for
// values that leave their context: results of nzip and rnz, let-bound
// values, tuple elements.
func concrete(dt graph.DType) graph.DType {
	if dt == untyped {
		return graph.Float64
	}
	return dt
}

// roundTo converts v to the nearest value of dt, as a store into an array
// of dt would (graph.DType.Round); untyped values are left alone.
func roundTo(dt graph.DType, v float64) float64 {
	switch dt {
	case graph.Float32:
		return float64(float32(v))
	case graph.Int32:
		return float64(int32(v))
	case graph.Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unaryFunc returns the float64 function of a unary op, before rounding.
// The definitions are graph's (op.go); the interpreter computes every op in
// float64 and rounds the result to the op's type, and so does this back end
// wherever it does not compute natively in float32 (where the two agree).
func unaryFunc(op graph.Op) func(float64) float64 {
	switch op {
	case graph.Neg:
		return func(x float64) float64 { return -x }
	case graph.Abs:
		return math.Abs
	case graph.Exp:
		return math.Exp
	case graph.Log:
		return math.Log
	case graph.Sqrt:
		return math.Sqrt
	case graph.Rsqrt:
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case graph.Tanh:
		return math.Tanh
	case graph.Logistic:
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	case graph.Erf:
		return math.Erf
	case graph.Not:
		return func(x float64) float64 { return b2f(x == 0) }
	case graph.ToF32, graph.ToF64:
		return func(x float64) float64 { return x }
	case graph.ToI32:
		return math.Trunc
	}
	return nil
}

// binaryFunc returns the float64 function of a binary op, before rounding.
func binaryFunc(op graph.Op) func(a, b float64) float64 {
	switch op {
	case graph.Add:
		return func(a, b float64) float64 { return a + b }
	case graph.Sub:
		return func(a, b float64) float64 { return a - b }
	case graph.Mul:
		return func(a, b float64) float64 { return a * b }
	case graph.Div:
		return func(a, b float64) float64 { return a / b }
	case graph.Min:
		return func(a, b float64) float64 { return min(a, b) }
	case graph.Max:
		return func(a, b float64) float64 { return max(a, b) }
	case graph.Pow:
		return math.Pow
	case graph.Lt:
		return func(a, b float64) float64 { return b2f(a < b) }
	case graph.Le:
		return func(a, b float64) float64 { return b2f(a <= b) }
	case graph.Gt:
		return func(a, b float64) float64 { return b2f(a > b) }
	case graph.Ge:
		return func(a, b float64) float64 { return b2f(a >= b) }
	case graph.Eq:
		return func(a, b float64) float64 { return b2f(a == b) }
	case graph.Ne:
		return func(a, b float64) float64 { return b2f(a != b) }
	case graph.And:
		return func(a, b float64) float64 { return b2f(a != 0 && b != 0) }
	case graph.Or:
		return func(a, b float64) float64 { return b2f(a != 0 || b != 0) }
	}
	return nil
}

// accOps are the ops a destination can accumulate with in place: a
// reduction by one of them (or by it lifted through zips) needs no
// temporary.
func isAccOp(op graph.Op) bool {
	switch op {
	case graph.Add, graph.Mul, graph.Max, graph.Min, graph.And, graph.Or:
		return true
	}
	return false
}

// nativeF32 reports whether op on float32 operands can be computed in
// float32 arithmetic with the interpreter's result: the correctly rounded
// ops (IEEE +, -, *, /, sqrt, and the exact ones). Double rounding through
// float64 is harmless for these because float64 has more than twice
// float32's precision.
func nativeF32(op graph.Op) bool {
	switch op {
	case graph.Add, graph.Sub, graph.Mul, graph.Div, graph.Neg, graph.Abs,
		graph.Min, graph.Max, graph.Sqrt, graph.Lt, graph.Le, graph.Gt, graph.Ge,
		graph.Eq, graph.Ne, graph.And, graph.Or, graph.Not, graph.Select, graph.ToF32:
		return true
	}
	return false
}
