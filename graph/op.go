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
	StopGrad     // stopgrad a: a itself, a constant to differentiation
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
}

var ops = [numOps]opInfo{
	Add:      {name: "add", infix: "+", prec: 4, arity: 2, kind: arith, algebra: Algebra{true, true, true, 0}},
	Sub:      {name: "sub", infix: "-", prec: 4, arity: 2, kind: arith},
	Mul:      {name: "mul", infix: "*", prec: 5, arity: 2, kind: arith, algebra: Algebra{true, true, true, 1}},
	Div:      {name: "div", infix: "/", prec: 5, arity: 2, kind: arith},
	Neg:      {name: "neg", arity: 1, kind: arith},
	Min:      {name: "min", arity: 2, kind: arith, algebra: Algebra{true, true, true, math.Inf(1)}},
	Max:      {name: "max", arity: 2, kind: arith, algebra: Algebra{true, true, true, math.Inf(-1)}},
	Pow:      {name: "pow", arity: 2, kind: float},
	Abs:      {name: "abs", arity: 1, kind: arith},
	Exp:      {name: "exp", arity: 1, kind: float},
	Log:      {name: "log", arity: 1, kind: float},
	Sqrt:     {name: "sqrt", arity: 1, kind: float},
	Rsqrt:    {name: "rsqrt", arity: 1, kind: float},
	Tanh:     {name: "tanh", arity: 1, kind: float},
	Logistic: {name: "logistic", arity: 1, kind: float},
	Erf:      {name: "erf", arity: 1, kind: float},
	Lt:       {name: "lt", infix: "<", prec: 3, arity: 2, kind: compare},
	Le:       {name: "le", infix: "<=", prec: 3, arity: 2, kind: compare},
	Gt:       {name: "gt", infix: ">", prec: 3, arity: 2, kind: compare},
	Ge:       {name: "ge", infix: ">=", prec: 3, arity: 2, kind: compare},
	Eq:       {name: "eq", infix: "==", prec: 3, arity: 2, kind: compare},
	Ne:       {name: "ne", infix: "!=", prec: 3, arity: 2, kind: compare},
	And:      {name: "and", arity: 2, kind: logic, algebra: Algebra{true, true, true, 1}},
	Or:       {name: "or", arity: 2, kind: logic, algebra: Algebra{true, true, true, 0}},
	Not:      {name: "not", arity: 1, kind: logic},
	Select:   {name: "select", arity: 3, kind: choose},
	ToF32:    {name: "f32", arity: 1, kind: convert, result: Float32},
	ToF64:    {name: "f64", arity: 1, kind: convert, result: Float64},
	ToI32:    {name: "i32", arity: 1, kind: convert, result: Int32},
	StopGrad: {name: "stopgrad", arity: 1, kind: arith},
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
