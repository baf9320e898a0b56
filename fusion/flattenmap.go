package fusion

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// FlattenMap merges the two outer loops of a map of maps whose result is
// flattened back into one loop over the flattened arguments:
//
//	flatten 0 (nzip (\ps -> nzip g ps) xs)  =  nzip g (flatten 0 x1) .. (flatten 0 xn)
//
// where the inner nzip traverses the outer function's parameters, each
// once, and g does not mention them. A flatten of a subdiv on the same
// axis cancels: flatten 0 (subdiv 0 b y) = y. This is subdiv-map read from
// right to left, and what a broadcast over a kept axis of extent 1 leaves
// between two maps: an imported LayerNorm computes its inverse deviation
// as map (map f) (subdiv 0 1 v), one element per row, and reads it as
// flatten 0 of that beside the rows; once the views are gone, the
// deviation is a map of v that vertical fusion composes into the rows'
// loop. The schedule pass chooses the subdivisions of the fused kernels.
//
// Side condition: each flatten 0 xi is legal on xi's layout (axis 0's
// stride is axis 1's extent times its stride), which holds for the blocks
// of a subdiv; otherwise the rule refuses, naming the argument.
type FlattenMap struct{}

// Name implements Rule.
func (FlattenMap) Name() string { return "flatten-map" }

// Rewrite implements Rule.
func (r FlattenMap) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	f, ok := n.(*graph.Flatten)
	if !ok || f.Axis != 0 {
		return nil, ErrNoMatch
	}
	h, ok := asHOF(f.X)
	if !ok || h.isRNZ() {
		return nil, ErrNoMatch
	}
	in, ok := asHOF(h.body)
	if !ok || in.isRNZ() || len(in.args) != len(h.params) {
		return nil, ErrNoMatch
	}
	// in.args must be h's parameters, each once: args[i] is the outer
	// argument the inner loop's i-th array runs over.
	args := make([]graph.Node, len(in.args))
	seen := make(map[*graph.Var]bool, len(h.params))
	for i, a := range in.args {
		v, ok := a.(*graph.Var)
		j := slices.Index(h.params, v)
		if !ok || j < 0 || seen[v] {
			return nil, ErrNoMatch
		}
		seen[v] = true
		args[i] = h.args[j]
	}
	for _, p := range h.params {
		if k, _ := c.occurrences(in.body, p); k > 0 {
			return nil, ErrNoMatch // the inner function reads the outer element
		}
	}
	for i, a := range args {
		if s, ok := a.(*graph.Subdiv); ok && s.Axis == 0 {
			args[i] = s.X
			continue
		}
		at, ok := c.TypeOf(a).(*graph.ArrayType)
		if !ok {
			return nil, ErrNoMatch
		}
		if _, err := at.Layout.Flatten(0); err != nil {
			return nil, refuse(r, n, "argument %d, %s, cannot be flattened: %v", i, graph.Abbrev(a, 30), err)
		}
		fa, err := graph.NewFlatten(0, a)
		if err != nil {
			return nil, err
		}
		args[i] = keepSource(n, fa)
	}
	return (&hof{params: in.params, body: in.body, args: args}).build(n)
}
