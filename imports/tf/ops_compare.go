package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	ops["Less"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Lt)}
	ops["LessEqual"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Le)}
	ops["Greater"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Gt)}
	ops["GreaterEqual"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Ge)}
	ops["Equal"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Eq)}
	ops["NotEqual"] = opDef{arity: 2, outputs: 1, convert: compareOp(graph.Ne)}
	ops["LogicalAnd"] = opDef{arity: 2, outputs: 1, convert: logicOp(graph.And)}
	ops["LogicalOr"] = opDef{arity: 2, outputs: 1, convert: logicOp(graph.Or)}
	ops["LogicalNot"] = opDef{arity: 1, outputs: 1, convert: convLogicalNot}
	ops["SelectV2"] = opDef{arity: 3, outputs: 1, convert: convSelectV2}
}

// The comparisons, the logical ops and SelectV2 broadcast as NumPy does,
// like the arithmetic of ops_math.go, and give (or read) bool tensors.

// compareOp returns the converter of a comparison: Less(x, y) is x < y
// elementwise, broadcast, a bool tensor; LessEqual, Greater,
// GreaterEqual, Equal and NotEqual likewise. x and y have one numeric
// element type (IEEE: every comparison with NaN is false but NotEqual);
// Equal and NotEqual also compare bools. Equal's and NotEqual's
// incompatible_shape_error=false, which makes shapes that do not
// broadcast compare unequal, is not needed: shapes that do not broadcast
// are an error either way.
func compareOp(op graph.Op) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		x, err := c.data(in[0])
		if err != nil {
			return nil, err
		}
		y, err := c.data(in[1])
		if err != nil {
			return nil, err
		}
		dx, dy := elemOf(in[0].typ), elemOf(in[1].typ)
		if dx != dy {
			return nil, fmt.Errorf("x has element type %v and y %v; %s compares operands of one type", dx, dy, n.op)
		}
		o := nd.Ops{Source: n.name}
		if dx == graph.Bool {
			// The IR compares numbers; bools are equal when both or
			// neither hold.
			if op != graph.Eq && op != graph.Ne {
				return nil, fmt.Errorf("x and y are bool; %s compares numbers", n.op)
			}
			return c.result(o.ZipWith(func(b *layers.Builder, v ...graph.Node) graph.Node {
				differ := b.Call(graph.And, b.Call(graph.Or, v[0], v[1]), b.Call(graph.Not, b.Call(graph.And, v[0], v[1])))
				if op == graph.Ne {
					return differ
				}
				return b.Call(graph.Not, differ)
			}, x, y))
		}
		return c.result(o.Binary(op, x, y))
	}
}

// boolData returns v as a term of element type bool; what names the
// operand in the error.
func (c *converter) boolData(v value, what string) (graph.Node, error) {
	if dt := elemOf(v.typ); dt != graph.Bool {
		return nil, fmt.Errorf("%s has element type %v; the op needs bool", what, dt)
	}
	return c.data(v)
}

// logicOp returns the converter of LogicalAnd(x, y) (x and y,
// elementwise, broadcast) or LogicalOr(x, y) (x or y), on bool tensors.
func logicOp(op graph.Op) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		x, err := c.boolData(in[0], "x")
		if err != nil {
			return nil, err
		}
		y, err := c.boolData(in[1], "y")
		if err != nil {
			return nil, err
		}
		return c.result(nd.Ops{Source: n.name}.Binary(op, x, y))
	}
}

// convLogicalNot converts LogicalNot(x): not x, elementwise, on a bool
// tensor.
func convLogicalNot(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.boolData(in[0], "x")
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.Unary(graph.Not, x))
}

// convSelectV2 converts SelectV2(condition, t, e): t where the bool
// condition holds, else e, the three broadcast as NumPy does (unlike the
// older Select, whose condition may be a vector along t's first axis,
// which is not imported); t and e have one element type. Keras's
// Embedding writes it to wrap negative indices.
func convSelectV2(c *converter, n *node, in []value) ([]value, error) {
	cond, err := c.boolData(in[0], "condition")
	if err != nil {
		return nil, err
	}
	if dt, de := elemOf(in[1].typ), elemOf(in[2].typ); dt != de {
		return nil, fmt.Errorf("t has element type %v and e %v; SelectV2 needs one type", dt, de)
	}
	t, err := c.data(in[1])
	if err != nil {
		return nil, err
	}
	e, err := c.data(in[2])
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.ZipWith(func(b *layers.Builder, v ...graph.Node) graph.Node {
		return b.Call(graph.Select, v[0], v[1], v[2])
	}, cond, t, e))
}
