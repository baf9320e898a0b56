package fusion

import "github.com/hofuse/hofuse/graph"

// SubdivRNZ tiles a reduction with blocks of Block:
//
//	rnz r f xs  =  rnz r (\xs' -> rnz r f xs') (subdiv 0 b x1) .. (subdiv 0 b xn)
//
// Each block is reduced, then the blocks' results. The elements are combined
// in the same order, regrouped. Side conditions: r is associative; Block
// divides the outer extent; the arguments are arrays.
type SubdivRNZ struct {
	Block int
}

// Name implements Rule.
func (SubdivRNZ) Name() string { return "subdiv-rnz" }

// Rewrite implements Rule.
func (r SubdivRNZ) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	h, ok := asHOF(n)
	if !ok || !h.isRNZ() {
		return nil, ErrNoMatch
	}
	if !algebraOf(h.red).Associative {
		return nil, refuse(r, n, "the reduction %s is not known to be associative, so it may not be regrouped", graph.Abbrev(h.red, 30))
	}
	return subdivide(r, c, n, h, r.Block)
}
