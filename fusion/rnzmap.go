package fusion

import "github.com/hofuse/hofuse/graph"

// RNZMap is the inverse of MapRNZ: a reduction with a lifted operator whose
// function maps over its elements becomes a map of reductions:
//
//	rnz (lift r) (\a' q -> map (\α -> m α q) a') A' u  =  map (\a -> rnz r m a u) (flip 0 A')
//
// Side conditions: the outer operator is a lift (zip r) — only then does it
// combine the map's elements one by one; the map's arrays are each
// independent of the reduction's elements or views of them.
type RNZMap struct{}

// Name implements Rule.
func (RNZMap) Name() string { return "rnz-map" }

// Rewrite implements Rule.
func (r RNZMap) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if !nestedKinds(n, true, false) {
		return nil, ErrNoMatch
	}
	return exchange(r, n)
}
