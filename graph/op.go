package graph

import (
	"fmt"
	"math"
)

// Op is a scalar operation. Scalar operations are the leaves of every
// computation: higher-order functions apply them element by element.
type Op uint8

// The scalar operations.
const (
	OpInvalid Op = iota
	Add          // a + b
	Sub          // a - b
	Mul          // a * b
	Div          // a / b
	Neg          // -a
	Min          // min a b
	Max          // max a b
	Pow          // pow a b: a raised to b
	Abs          // abs a
	Exp          // exp a
	Log          // log a: natural logarithm
	Sqrt         // sqrt a
	Rsqrt        // rsqrt a: 1 / sqrt a
	Tanh         // tanh a
	Logistic     // logistic a: 1 / (1 + exp(-a))
	Erf          // erf a: the error function
	Lt           // a < b
	Le           // a <= b
	Gt           // a > b
	Ge           // a >= b
	Eq           // a == b
	Ne           // a != b
	And          // and a b: logical and of two bools
	Or           // or a b: logical or of two bools
	Not          // not a
	Select       // select c a b: a where c holds, else b
	ToF32        // f32 a: conversion to float32
	ToF64        // f64 a: conversion to float64
	ToI32        // i32 a: conversion to int32, rounding toward zero
	numOps
)

type opKind uint8

const (
	arith   opKind = iota // numeric operands of one type, same result type
	float                 // float operands, same result type
	compare               // numeric operands of one type, bool result
	logic                 // bool operands, bool result
	choose                // select
	convert               // any operand, fixed result type
)

// An Algebra says which laws a binary operation obeys. Rewrite rules that
// regroup or reorder a reduction consult it; nothing assumes them.
type Algebra struct {
	Associative bool
	Commutative bool
	// HasIdentity reports whether Identity is an identity element:
	// r(Identity, x) == r(x, Identity) == x for every x.
	HasIdentity bool
	Identity    float64
}

type opInfo struct {
	name    string // function name in the notation
	infix   string // infix symbol, if the notation writes the op infix
	prec    int    // infix precedence: higher binds tighter
	arity   int
	kind    opKind
	result  DType // for convert
	algebra Algebra
	eval    func(args []float64) float64
}

var ops = [numOps]opInfo{
	Add: {name: "add", infix: "+", prec: 4, arity: 2, kind: arith, algebra: Algebra{true, true, true, 0},
		eval: func(x []float64) float64 { return x[0] + x[1] }},
	Sub: {name: "sub", infix: "-", prec: 4, arity: 2, kind: arith,
		eval: func(x []float64) float64 { return x[0] - x[1] }},
	Mul: {name: "mul", infix: "*", prec: 5, arity: 2, kind: arith, algebra: Algebra{true, true, true, 1},
		eval: func(x []float64) float64 { return x[0] * x[1] }},
	Div: {name: "div", infix: "/", prec: 5, arity: 2, kind: arith,
		eval: func(x []float64) float64 { return x[0] / x[1] }},
	Neg: {name: "neg", arity: 1, kind: arith, eval: func(x []float64) float64 { return -x[0] }},
	Min: {name: "min", arity: 2, kind: arith, algebra: Algebra{true, true, true, math.Inf(1)},
		eval: func(x []float64) float64 { return math.Min(x[0], x[1]) }},
	Max: {name: "max", arity: 2, kind: arith, algebra: Algebra{true, true, true, math.Inf(-1)},
		eval: func(x []float64) float64 { return math.Max(x[0], x[1]) }},
	Pow:   {name: "pow", arity: 2, kind: float, eval: func(x []float64) float64 { return math.Pow(x[0], x[1]) }},
	Abs:   {name: "abs", arity: 1, kind: arith, eval: func(x []float64) float64 { return math.Abs(x[0]) }},
	Exp:   {name: "exp", arity: 1, kind: float, eval: func(x []float64) float64 { return math.Exp(x[0]) }},
	Log:   {name: "log", arity: 1, kind: float, eval: func(x []float64) float64 { return math.Log(x[0]) }},
	Sqrt:  {name: "sqrt", arity: 1, kind: float, eval: func(x []float64) float64 { return math.Sqrt(x[0]) }},
	Rsqrt: {name: "rsqrt", arity: 1, kind: float, eval: func(x []float64) float64 { return 1 / math.Sqrt(x[0]) }},
	Tanh:  {name: "tanh", arity: 1, kind: float, eval: func(x []float64) float64 { return math.Tanh(x[0]) }},
	Logistic: {name: "logistic", arity: 1, kind: float,
		eval: func(x []float64) float64 { return 1 / (1 + math.Exp(-x[0])) }},
	Erf: {name: "erf", arity: 1, kind: float, eval: func(x []float64) float64 { return math.Erf(x[0]) }},
	Lt:  {name: "lt", infix: "<", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] < x[1]) }},
	Le:  {name: "le", infix: "<=", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] <= x[1]) }},
	Gt:  {name: "gt", infix: ">", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] > x[1]) }},
	Ge:  {name: "ge", infix: ">=", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] >= x[1]) }},
	Eq:  {name: "eq", infix: "==", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] == x[1]) }},
	Ne:  {name: "ne", infix: "!=", prec: 3, arity: 2, kind: compare, eval: func(x []float64) float64 { return b2f(x[0] != x[1]) }},
	And: {name: "and", arity: 2, kind: logic, algebra: Algebra{true, true, true, 1},
		eval: func(x []float64) float64 { return b2f(x[0] != 0 && x[1] != 0) }},
	Or: {name: "or", arity: 2, kind: logic, algebra: Algebra{true, true, true, 0},
		eval: func(x []float64) float64 { return b2f(x[0] != 0 || x[1] != 0) }},
	Not: {name: "not", arity: 1, kind: logic, eval: func(x []float64) float64 { return b2f(x[0] == 0) }},
	Select: {name: "select", arity: 3, kind: choose, eval: func(x []float64) float64 {
		if x[0] != 0 {
			return x[1]
		}
		return x[2]
	}},
	ToF32: {name: "f32", arity: 1, kind: convert, result: Float32, eval: func(x []float64) float64 { return x[0] }},
	ToF64: {name: "f64", arity: 1, kind: convert, result: Float64, eval: func(x []float64) float64 { return x[0] }},
	ToI32: {name: "i32", arity: 1, kind: convert, result: Int32, eval: func(x []float64) float64 { return math.Trunc(x[0]) }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (op Op) valid() bool { return op > OpInvalid && op < numOps }

// String returns the op's function name in the notation (add, exp, max, ...).
func (op Op) String() string {
	if op.valid() {
		return ops[op].name
	}
	return fmt.Sprintf("op(%d)", uint8(op))
}

// Infix returns the op's infix symbol and precedence (higher binds tighter),
// or "" and 0 when the notation writes the op as a function.
func (op Op) Infix() (string, int) {
	if !op.valid() {
		return "", 0
	}
	return ops[op].infix, ops[op].prec
}

// Arity is the number of operands.
func (op Op) Arity() int {
	if !op.valid() {
		return 0
	}
	return ops[op].arity
}

// Algebra returns the laws the op obeys as a reduction operator. Only
// binary ops can have any. Floating-point addition and multiplication are
// treated as associative: regrouping them changes results only by rounding,
// and tests that regroup state the tolerance they allow for it.
func (op Op) Algebra() Algebra {
	if !op.valid() {
		return Algebra{}
	}
	return ops[op].algebra
}

// OpByName returns the op whose function name or infix symbol is s.
func OpByName(s string) (Op, bool) {
	for op := OpInvalid + 1; op < numOps; op++ {
		if ops[op].name == s || (ops[op].infix != "" && ops[op].infix == s) {
			return op, true
		}
	}
	return OpInvalid, false
}

// ResultDType returns the dtype of op applied to operands of the given
// dtypes, or an error saying why they do not fit.
func (op Op) ResultDType(args []DType) (DType, error) {
	if !op.valid() {
		return Invalid, fmt.Errorf("invalid scalar op %d", uint8(op))
	}
	info := &ops[op]
	if len(args) != info.arity {
		return Invalid, fmt.Errorf("%s takes %d operands, got %d", info.name, info.arity, len(args))
	}
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

// Eval applies op to args and rounds the result to dt, the op's result type.
func (op Op) Eval(dt DType, args ...float64) float64 {
	return dt.Round(ops[op].eval(args))
}
