package fusion

import "github.com/hofuse/hofuse/graph"

// MapRNZ exchanges a map with the reduction nested in it (the paper's flip
// identity):
//
//	map (\a -> rnz r m a u) A  =  rnz (lift r) (\a' q -> map (\α -> m α q) a') (flip 0 A) u
//
// where lift r is zip r, r applied element by element. The left side takes
// one dot product per row; the right adds scaled columns, reusing each
// element of u for a whole column, at the price of a row-sized accumulator.
// Every element m α q is combined by r in the same order on both sides, so
// no law of r is needed. Side condition: the reduction's arrays are each
// independent of the mapped element or a view of it (see exchange).
type MapRNZ struct{}

// Name implements Rule.
func (MapRNZ) Name() string { return "map-rnz" }

// Rewrite implements Rule.
func (r MapRNZ) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if !nestedKinds(n, false, true) {
		return nil, ErrNoMatch
	}
	return exchange(r, n)
}
