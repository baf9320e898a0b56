package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// SubdivMap tiles a map (or zip) with blocks of Block:
//
//	nzip f xs  =  flatten 0 (nzip (\xs' -> nzip f xs') (subdiv 0 b x1) .. (subdiv 0 b xn))
//
// The outer map runs over the blocks, the inner over the elements of one
// block; flatten 0 makes the blocks one axis again. Repeated, it tiles for
// every level of the memory hierarchy. Side condition: Block divides the
// outer extent (and the arguments are arrays, not tuples).
type SubdivMap struct {
	Block int
}

// Name implements Rule.
func (SubdivMap) Name() string { return "subdiv-map" }

// Rewrite implements Rule.
func (r SubdivMap) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	h, ok := asHOF(n)
	if !ok || h.isRNZ() {
		return nil, ErrNoMatch
	}
	if _, isArray := c.TypeOf(n).(*graph.ArrayType); !isArray {
		return nil, refuse(r, n, "the map's result is a tuple; flatten needs an array")
	}
	tiled, err := subdivide(r, c, n, h, r.Block)
	if err != nil {
		return nil, err
	}
	f, err := graph.NewFlatten(0, tiled)
	if err != nil {
		return nil, err
	}
	return keepSource(n, f), nil
}

// subdivide builds H (\xs' -> H f xs') (subdiv 0 b x1) .. for the taken
// apart h.
func subdivide(rule Rule, c *Context, n graph.Node, h *hof, block int) (graph.Node, error) {
	var extent int
	for i, a := range h.args {
		at, ok := c.TypeOf(a).(*graph.ArrayType)
		if !ok {
			return nil, refuse(rule, n, "argument %d is not an array", i)
		}
		extent = at.Layout[0].Extent
	}
	if block < 1 || extent%block != 0 {
		return nil, refuse(rule, n, "block %d does not divide the outer extent %d", block, extent)
	}
	params := make([]*graph.Var, len(h.args))
	blocks := make([]graph.Node, len(h.args))
	vars := make([]graph.Node, len(h.args))
	for i, a := range h.args {
		params[i] = graph.NewVar(h.params[i].Name + "s")
		vars[i] = params[i]
		s, err := graph.NewSubdiv(0, block, a)
		if err != nil {
			return nil, err
		}
		blocks[i] = s
	}
	inner, err := (&hof{red: h.red, params: h.params, body: h.body, args: vars}).build(n)
	if err != nil {
		return nil, err
	}
	return (&hof{red: h.red, params: params, body: inner, args: blocks}).build(n)
}
