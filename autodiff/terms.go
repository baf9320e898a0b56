package autodiff

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// This file holds the small term builders the backward pass uses. Each
// returns the term together with its type, so that the pass knows the
// layout of every cotangent it builds (the inverse of a subdiv is a flatten,
// which is legal only on some layouts).

// internalError is what the term builders panic with when a term they
// build is malformed: a bug of this package, not of the caller's term.
// Grad recovers it and returns it as an error.
type internalError struct{ msg string }

// typed is a term and its type.
type typed struct {
	n graph.Node
	t graph.Type
}

// call builds op applied to args. The builders pass it well-formed operands,
// so an error here is a bug of this package.
func call(op graph.Op, args ...graph.Node) graph.Node {
	c, err := graph.NewCall(op, args...)
	if err != nil {
		panic(internalError{err.Error()})
	}
	return c
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(internalError{err.Error()})
	}
	return v
}

// lit is the literal v typed as dt, f32 or f64: a conversion of the
// untyped literal, so that it keeps its type where nothing else decides it.
func lit(v float64, dt graph.DType) graph.Node {
	conv := graph.ToF64
	if dt == graph.Float32 {
		conv = graph.ToF32
	}
	return call(conv, graph.NewConst(v))
}

// proj is element i of the tuple term x; of a literal tuple it is the
// element itself.
func proj(i int, x graph.Node) graph.Node {
	if t, ok := x.(*graph.Tuple); ok {
		return t.Elems[i]
	}
	return must(graph.NewProj(i, x))
}

func lambda(params []*graph.Var, body graph.Node) *graph.Lambda {
	return must(graph.NewLambda(params, body))
}

func nzip(fn graph.Node, args ...graph.Node) graph.Node {
	return must(graph.NewNZip(fn, args...))
}

func rnz(red, fn graph.Node, args ...graph.Node) graph.Node {
	return must(graph.NewRNZ(red, fn, args...))
}

// elemOf is the type of one element along the outer axis of t.
func elemOf(t graph.Type) graph.Type {
	e, _, err := graph.ElemType(t)
	if err != nil {
		panic(internalError{err.Error()})
	}
	return e
}

// outer is the outer extent of the array (or tuple of arrays) type t.
func outer(t graph.Type) int {
	_, n, err := graph.ElemType(t)
	if err != nil {
		panic(internalError{err.Error()})
	}
	return n
}

// mapN applies the scalar function f elementwise to operands of shape t (a
// scalar or array type; every operand has t's extents, in any layout): for
// a scalar it is f itself, for an array of rank r, r nested nzips around it.
// The result is row-major.
func mapN(t graph.Type, f func(xs []graph.Node) graph.Node, operands ...graph.Node) graph.Node {
	at, ok := t.(*graph.ArrayType)
	if !ok {
		return f(operands)
	}
	vars := make([]*graph.Var, len(operands))
	nodes := make([]graph.Node, len(operands))
	for i := range vars {
		vars[i] = graph.NewVar(fmt.Sprintf("e%d", i))
		nodes[i] = vars[i]
	}
	body := mapN(elemOf(at), f, nodes...)
	return nzip(lambda(vars, body), operands...)
}

// dtypeOf is the element type of a scalar or array type, Invalid otherwise.
func dtypeOf(t graph.Type) graph.DType {
	switch t := t.(type) {
	case *graph.ScalarType:
		return t.DType
	case *graph.ArrayType:
		return t.DType
	}
	return graph.Invalid
}

// hasFloat reports whether a value of type t carries floating-point numbers
// somewhere, and so can have a nonzero cotangent.
func hasFloat(t graph.Type) bool {
	switch t := t.(type) {
	case *graph.ScalarType:
		return t.DType.IsFloat()
	case *graph.ArrayType:
		return t.DType.IsFloat()
	case *graph.TupleType:
		for _, e := range t.Elems {
			if hasFloat(e) {
				return true
			}
		}
	}
	return false
}

// add is a + b for values of shape t: scalars add, arrays add elementwise,
// tuples componentwise. The result has t's materialised type.
func add(a, b graph.Node, t graph.Type) graph.Node {
	switch t := t.(type) {
	case *graph.TupleType:
		elems := make([]graph.Node, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = add(proj(i, a), proj(i, b), e)
		}
		return must(graph.NewTuple(elems...))
	}
	return mapN(t, func(x []graph.Node) graph.Node { return call(graph.Add, x[0], x[1]) }, a, b)
}

// sumFn is the reduction operator that adds two values of shape t: (+) for
// scalars, a lifted addition for arrays, componentwise for tuples.
func sumFn(t graph.Type) graph.Node {
	a, b := graph.NewVar("a"), graph.NewVar("b")
	return lambda([]*graph.Var{a, b}, add(a, b, graph.Materialized(t)))
}

// zerosLike is a zero of the shape of the value x of type t (row-major for
// arrays). It maps over x to get the extents; it reads no element of x.
func zerosLike(x graph.Node, t graph.Type) graph.Node {
	switch t := t.(type) {
	case *graph.TupleType:
		elems := make([]graph.Node, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = zerosLike(proj(i, x), e)
		}
		return must(graph.NewTuple(elems...))
	}
	dt := dtypeOf(t)
	return mapN(t, func([]graph.Node) graph.Node { return lit(0, dt) }, x)
}

// copyOf copies the array x of type t into a fresh row-major array.
func copyOf(x graph.Node, t graph.Type) graph.Node {
	return mapN(t, func(xs []graph.Node) graph.Node { return xs[0] }, x)
}
