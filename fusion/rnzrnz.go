package fusion

import "github.com/hofuse/hofuse/graph"

// RNZRNZ exchanges two nested reductions with the same operator:
//
//	rnz r (\a1 a2 -> rnz r m a1 a2 B) A1 A2
//	  = rnz r (\a1 a2 b -> rnz r (\α1 α2 -> m α1 α2 b) a1 a2) (flip 0 A1) (flip 0 A2) B
//
// Every m α1 α2 b appears exactly once on each side, combined in another
// order. Side conditions: both operators are the same, and it is associative
// and commutative (its Algebra says so); the inner arrays are independent of
// the outer elements or views of them.
type RNZRNZ struct{}

// Name implements Rule.
func (RNZRNZ) Name() string { return "rnz-rnz" }

// Rewrite implements Rule.
func (r RNZRNZ) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if !nestedKinds(n, true, true) {
		return nil, ErrNoMatch
	}
	return exchange(r, n)
}
