package fusion

import "github.com/hofuse/hofuse/graph"

// MapMap exchanges two nested maps (or zips), flipping the result:
//
//	map (\a -> map (\b -> h a b) v) u  =  flip 0 (map (\b -> map (\a -> h a b) u) v)
//
// The first result is an array of rows, the second of columns; flip 0 makes
// it rows again. h is applied to the same pairs in the same order of
// operations, so no law of h is needed. The inner arrays may also be views
// of the outer element (map (\R -> map f R) X), which the exchange turns into
// views of the whole array (flip 0 X). Side condition: every inner array is
// either independent of the outer element or a view of it (see exchange).
type MapMap struct{}

// Name implements Rule.
func (MapMap) Name() string { return "map-map" }

// Rewrite implements Rule.
func (r MapMap) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if !nestedKinds(n, false, false) {
		return nil, ErrNoMatch
	}
	return exchange(r, n)
}

// nestedKinds reports whether n is a higher-order function of the first
// kind (rnz when outerRNZ) whose function's body is one of the second.
func nestedKinds(n graph.Node, outerRNZ, innerRNZ bool) bool {
	h1, ok := asHOF(n)
	if !ok || h1.isRNZ() != outerRNZ {
		return false
	}
	h2, ok := asHOF(h1.body)
	return ok && h2.isRNZ() == innerRNZ
}
