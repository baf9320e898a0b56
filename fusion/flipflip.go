package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// FlipFlip simplifies chains of flips, which the exchange rules pile up:
//
//	flip d d x                  =  x
//	flip a b (flip c e .. x)    =  the same permutation of x's axes in the
//	                               fewest flips
//
// A chain of flips is a permutation of axes; it is rewritten as one flip per
// cycle element (none for the identity). flip is an involution, so flip a b
// (flip a b x) = x is the simplest case. There are no side conditions; the
// rule applies only when the chain gets shorter.
type FlipFlip struct{}

// Name implements Rule.
func (FlipFlip) Name() string { return "flip-flip" }

// Rewrite implements Rule.
func (FlipFlip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	f, ok := n.(*graph.Flip)
	if !ok {
		return nil, ErrNoMatch
	}
	chain, x := flipChain(f)
	swaps := transpositions(chainPerm(chain, 0))
	if len(swaps) >= len(chain) {
		return nil, ErrNoMatch
	}
	out := x
	for k := range swaps { // swaps[0] applies first: it is the innermost flip
		nf, err := graph.NewFlip(swaps[k][0], swaps[k][1], out)
		if err != nil {
			return nil, err
		}
		out = keepSource(n, nf)
	}
	return out, nil
}

// transpositions returns swaps s0, s1, .. such that applying them in order
// (s0 first) to the identity gives perm, where perm[i] names the source axis
// shown at position i. It uses at most len(perm)-1 swaps.
func transpositions(perm []int) [][2]int {
	cur := make([]int, len(perm)) // cur[i]: source axis at position i
	pos := make([]int, len(perm)) // pos[a]: position of source axis a
	for i := range cur {
		cur[i], pos[i] = i, i
	}
	var out [][2]int
	for i, want := range perm {
		if cur[i] == want {
			continue
		}
		j := pos[want]
		out = append(out, [2]int{i, j})
		cur[i], cur[j] = cur[j], cur[i]
		pos[cur[i]], pos[cur[j]] = i, j
	}
	return out
}

// flipChain returns the chain of flips that starts at f, outermost first,
// and the term under it.
func flipChain(f *graph.Flip) ([]*graph.Flip, graph.Node) {
	var chain []*graph.Flip
	var x graph.Node = f
	for {
		g, ok := x.(*graph.Flip)
		if !ok {
			return chain, x
		}
		chain = append(chain, g)
		x = g.X
	}
}

// chainPerm returns the permutation a chain of flips (outermost first)
// applies, of at least rank axes: perm[i] is the axis of the term under
// the chain that axis i of the result shows.
func chainPerm(chain []*graph.Flip, rank int) []int {
	for _, g := range chain {
		rank = max(rank, g.Axis1+1, g.Axis2+1)
	}
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = i
	}
	for k := len(chain) - 1; k >= 0; k-- { // innermost first
		g := chain[k]
		perm[g.Axis1], perm[g.Axis2] = perm[g.Axis2], perm[g.Axis1]
	}
	return perm
}
