package graph

import (
	"fmt"
	"math"
)

// This file is the one place that says what a scalar op means: which types
// its operands and result have (Resolve) and what it computes on them (Eval,
// Unary, Binary), following the package doc's "Scalar semantics". The
// checker, the interpreter and every back end take their rules from here.

// Resolve types op applied to operands of the types dts, where Invalid
// stands for an untyped literal (a *Const whose context has not decided its
// type yet). Untyped operands take the type of their typed partners: for
// select, its last two operands (an untyped condition is bool); for any
// other op, all its operands. When no partner is typed, the operands of the
// logical ops are bool, arithmetic (add, exp, max, ...) on literals only
// stays untyped and its result is Invalid too, like Go's constant
// arithmetic, and the operands of comparisons, select and conversions
// default to f64.
//
// It returns the type every operand is converted to (DType.Round) before op
// applies, and op's result type; or an error saying why the operands do not
// fit op (wrong count, mixed types, a bool where a number is needed, ...).
func (op Op) Resolve(dts []DType) (operands []DType, result DType, err error) {
	if !op.valid() {
		return nil, Invalid, fmt.Errorf("invalid scalar op %d", uint8(op))
	}
	info := &ops[op]
	if len(dts) != info.arity {
		return nil, Invalid, fmt.Errorf("%s takes %d operands, got %d", info.name, info.arity, len(dts))
	}
	rs := append([]DType(nil), dts...)
	group := rs
	if op == Select {
		group = rs[1:]
		if rs[0] == untyped {
			rs[0] = Bool
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
		switch info.kind {
		case logic:
			partner = Bool
		case arith, float:
			return rs, untyped, nil
		default:
			partner = Float64
		}
	}
	for i := range group {
		if group[i] == untyped {
			group[i] = partner
		}
	}
	dt, err := op.resultType(rs)
	if err != nil {
		return nil, Invalid, err
	}
	return rs, dt, nil
}

// resultType returns the dtype of op applied to operands of the given
// (typed) dtypes, or an error saying why they do not fit.
func (op Op) resultType(args []DType) (DType, error) {
	info := &ops[op]
	same := func(ds []DType) error {
		for _, d := range ds[1:] {
			if d != ds[0] {
				return fmt.Errorf("%s: operand types %v and %v differ", info.name, ds[0], d)
			}
		}
		return nil
	}
	switch info.kind {
	case arith, compare:
		if err := same(args); err != nil {
			return Invalid, err
		}
		if !args[0].IsNumeric() {
			return Invalid, fmt.Errorf("%s: operands of type %v are not numeric", info.name, args[0])
		}
		if info.kind == compare {
			return Bool, nil
		}
		return args[0], nil
	case float:
		if err := same(args); err != nil {
			return Invalid, err
		}
		if !args[0].IsFloat() {
			return Invalid, fmt.Errorf("%s: operands of type %v are not floating-point", info.name, args[0])
		}
		return args[0], nil
	case logic:
		for _, d := range args {
			if d != Bool {
				return Invalid, fmt.Errorf("%s: operand of type %v is not bool", info.name, d)
			}
		}
		return Bool, nil
	case choose:
		if args[0] != Bool {
			return Invalid, fmt.Errorf("select: condition of type %v is not bool", args[0])
		}
		if err := same(args[1:]); err != nil {
			return Invalid, err
		}
		return args[1], nil
	case convert:
		if args[0] == Invalid {
			return Invalid, fmt.Errorf("%s: invalid operand type", info.name)
		}
		return info.result, nil
	}
	return Invalid, fmt.Errorf("%s: unknown op kind", info.name)
}

// Eval applies op to args and returns its result, a value of dt. dt is
// op's result type as Resolve gives it (Invalid for arithmetic on untyped
// literals, computed in float64), and every operand must already be a value
// of its operand type from Resolve (DType.Round converts a literal). Eval
// follows the package doc's "Scalar semantics": max and min propagate NaN,
// i32 arithmetic wraps, i32 division by zero gives -1, and so on.
//
// Eval returns an error if op does not take len(args) operands or cannot
// give dt.
func (op Op) Eval(dt DType, args ...float64) (float64, error) {
	if len(args) != op.Arity() {
		return 0, fmt.Errorf("%v takes %d operands, got %d", op, op.Arity(), len(args))
	}
	switch len(args) {
	case 1:
		if f := op.Unary(dt); f != nil {
			return f(args[0]), nil
		}
	case 2:
		if f := op.Binary(dt); f != nil {
			return f(args[0], args[1]), nil
		}
	case 3:
		if args[0] != 0 {
			return args[1], nil
		}
		return args[2], nil
	}
	return 0, fmt.Errorf("%v cannot give a result of type %v", op, dt)
}

// Unary returns the function computing the unary op with result type dt
// (see Eval), or nil if op is not unary or cannot give dt. Back ends that
// specialise their inner loops per op and type take it for the cases they
// do not specialise, and for folding constants.
func (op Op) Unary(dt DType) func(x float64) float64 {
	if !op.valid() || ops[op].arity != 1 {
		return nil
	}
	if op == StopGrad {
		return func(x float64) float64 { return x }
	}
	switch ops[op].kind {
	case logic:
		return func(x float64) float64 { return b2f(x == 0) }
	case convert:
		switch ops[op].result {
		case Float32:
			return func(x float64) float64 { return float64(float32(x)) }
		case Float64:
			return func(x float64) float64 { return x }
		case Int32:
			return func(x float64) float64 { return float64(toInt32(x)) }
		}
		return nil
	}
	if dt == Int32 {
		switch op {
		case Neg:
			return func(x float64) float64 { return float64(-int32(x)) }
		case Abs:
			return func(x float64) float64 {
				if i := int32(x); i < 0 {
					return float64(-i) // abs(-2^31) wraps to -2^31
				}
				return x
			}
		}
		return nil
	}
	var f func(float64) float64
	switch op {
	case Neg:
		f = func(x float64) float64 { return -x }
	case Abs:
		f = math.Abs
	case Exp:
		f = ExpFloat64
	case Log:
		f = math.Log
	case Sqrt:
		f = math.Sqrt
	case Rsqrt:
		f = func(x float64) float64 { return 1 / math.Sqrt(x) }
	case Tanh:
		f = math.Tanh
	case Logistic:
		f = func(x float64) float64 { return 1 / (1 + ExpFloat64(-x)) }
	case Erf:
		f = math.Erf
	default:
		return nil
	}
	return roundFunc1(dt, f)
}

func roundFunc1(dt DType, f func(float64) float64) func(float64) float64 {
	switch dt {
	case Float32:
		return func(x float64) float64 { return float64(float32(f(x))) }
	case Float64, untyped:
		return f
	}
	return nil
}

// Binary returns the function computing the binary op with result type
// dt (see Eval), or nil if op is not binary or cannot give dt.
func (op Op) Binary(dt DType) func(x, y float64) float64 {
	if !op.valid() || ops[op].arity != 2 {
		return nil
	}
	switch op {
	case Lt:
		return func(x, y float64) float64 { return b2f(x < y) }
	case Le:
		return func(x, y float64) float64 { return b2f(x <= y) }
	case Gt:
		return func(x, y float64) float64 { return b2f(x > y) }
	case Ge:
		return func(x, y float64) float64 { return b2f(x >= y) }
	case Eq:
		return func(x, y float64) float64 { return b2f(x == y) }
	case Ne:
		return func(x, y float64) float64 { return b2f(x != y) }
	case And:
		return func(x, y float64) float64 { return b2f(x != 0 && y != 0) }
	case Or:
		return func(x, y float64) float64 { return b2f(x != 0 || y != 0) }
	case Max:
		// Go's max is IEEE 754-2019 maximum: NaN if either operand is
		// NaN, and max(-0, +0) = +0. Exact in every type.
		return func(x, y float64) float64 { return max(x, y) }
	case Min:
		return func(x, y float64) float64 { return min(x, y) }
	}
	if dt == Int32 {
		switch op {
		case Add:
			return func(x, y float64) float64 { return float64(int32(x) + int32(y)) }
		case Sub:
			return func(x, y float64) float64 { return float64(int32(x) - int32(y)) }
		case Mul:
			return func(x, y float64) float64 { return float64(int32(x) * int32(y)) }
		case Div:
			return func(x, y float64) float64 { return float64(divInt32(int32(x), int32(y))) }
		}
		return nil
	}
	var f func(x, y float64) float64
	switch op {
	case Add:
		f = func(x, y float64) float64 { return x + y }
	case Sub:
		f = func(x, y float64) float64 { return x - y }
	case Mul:
		f = func(x, y float64) float64 { return x * y }
	case Div:
		f = func(x, y float64) float64 { return x / y }
	case Pow:
		f = math.Pow
	default:
		return nil
	}
	switch dt {
	case Float32:
		return func(x, y float64) float64 { return float64(float32(f(x, y))) }
	case Float64, untyped:
		return f
	}
	return nil
}

// divInt32 is i32 division as the package doc defines it: the quotient
// rounded toward zero, x / 0 = -1 for every x, and -2^31 / -1 = -2^31 (the
// quotient wraps). These are XLA's answers, so the StableHLO lowering needs
// no extra ops.
func divInt32(x, y int32) int32 {
	switch {
	case y == 0:
		return -1
	case y == -1:
		return -x // wraps for -2^31
	}
	return x / y
}

// toInt32 converts v to i32 as the package doc defines it (the op i32, and
// DType.Round for Int32): rounding toward zero, NaN to 0, and values beyond
// the range of int32 (infinities included) to its nearest end, -2^31 or
// 2^31-1.
func toInt32(v float64) int32 {
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// ExpFloat64 is e**x in float64, the exp of the scalar semantics. It is
// math.Exp except near overflow: Go's amd64 math.Exp returns +Inf for x
// above about 709.436, where e**x is still finite up to about 709.78;
// there it squares e**(x/2), which keeps the result within an ulp or two.
// Every back end that computes exp in Go calls it.
func ExpFloat64(x float64) float64 {
	if x > 709 {
		e := math.Exp(x / 2)
		return e * e
	}
	return math.Exp(x)
}
