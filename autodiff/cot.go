package autodiff

import (
	"github.com/hofuse/hofuse/graph"
)

// cot is a cotangent: the gradient of the loss with respect to one value of
// the primal term. A nil *cot is zero. A cotangent of a tuple-typed value
// is either one tuple term (whole) or one cotangent per element (parts,
// with nil for zero elements), as a projection contributes to one element
// only; the parts are turned into a tuple only where a term is needed.
type cot struct {
	whole *typed // nil when parts holds the cotangent
	parts []*cot
}

func term(n graph.Node, t graph.Type) *cot { return &cot{whole: &typed{n, t}} }

// split returns the cotangent of element i of the tuple value c is about.
func (c *cot) split(i int) *cot {
	if c == nil {
		return nil
	}
	if c.whole != nil {
		tt := c.whole.t.(*graph.TupleType)
		return term(proj(i, c.whole.n), tt.Elems[i])
	}
	return c.parts[i]
}

// sum adds two cotangents of a value of type t.
func sum(a, b *cot, t graph.Type) *cot {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	if tt, ok := t.(*graph.TupleType); ok {
		parts := make([]*cot, len(tt.Elems))
		for i, e := range tt.Elems {
			parts[i] = sum(a.split(i), b.split(i), e)
		}
		return &cot{parts: parts}
	}
	mt := graph.Materialized(a.whole.t)
	return term(add(a.whole.n, b.whole.n, mt), mt)
}

// build returns c as one term for the value x of type t: parts become a
// tuple, and a zero (nil) becomes zeros of x's shape.
func build(c *cot, x graph.Node, t graph.Type) typed {
	if c == nil {
		return typed{zerosLike(x, t), graph.Materialized(t)}
	}
	if c.whole != nil {
		return *c.whole
	}
	tt := t.(*graph.TupleType)
	elems := make([]graph.Node, len(tt.Elems))
	types := make([]graph.Type, len(tt.Elems))
	for i, e := range tt.Elems {
		b := build(c.parts[i], proj(i, x), e)
		elems[i], types[i] = b.n, b.t
	}
	return typed{must(graph.NewTuple(elems...)), &graph.TupleType{Elems: types}}
}

// isZero reports whether c is zero throughout.
func (c *cot) isZero() bool {
	if c == nil {
		return true
	}
	if c.whole != nil {
		return false
	}
	for _, p := range c.parts {
		if !p.isZero() {
			return false
		}
	}
	return true
}
