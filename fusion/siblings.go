package fusion

import (
	"math/big"

	"github.com/hofuse/hofuse/graph"
)

// mergeSiblings is the product rule for reductions that do not sit side by
// side in a tuple: closed rnz nodes anywhere in the term that traverse a
// common array (the same node among their arguments, so the same outer
// extent) and of which neither reads the other's result become one rnz with
// a tuple result, and each is replaced by its projection:
//
//	C[rnz r f xs, rnz q g ys]  =  let p = rnz (\a b -> (r (fst a) (fst b), q (snd a) (snd b)))
//	                                          (\xs' ys' -> (f xs', g ys')) xs ys
//	                              in C[fst p, snd p]
//
// (the let being a node the two projections share). The weight and bias
// gradients of a dense layer, both sums over the batch of the layer's input
// and output gradient, become one traversal; so do BatchNorm's backward
// sums. Both sides reduce in the same order, so the law is exact. Product's
// law is the case in which the two reductions are the elements of one
// tuple; fan-out then makes the merged traversal read each array once.
//
// Side conditions: both reductions are closed (so that the merged one may
// be computed where either was), neither is inside another's reduction
// operator, and neither depends on the other, directly or through other
// terms: a reduction that reads the other's result must run after it, and
// one traversal cannot. Candidates are taken in the order of a post-order
// walk and added greedily to the first group they may join.
//
// It runs once, at the start of the horizontal pass, after closed lets
// have become shared nodes (so that a reduction reading a let-bound value
// is closed); the pass's beta, eta and fan-out then bring the merged
// reduction operator to a tuple of lifted ops and merge the repeated
// arguments. It adds one rnz node and removes k ≥ 2, so it decreases the
// horizontal pass's measure H as product does.
func mergeSiblings(term graph.Node) (graph.Node, error) {
	term, err := letsToDAG(term)
	if err != nil {
		return nil, err
	}
	// One group at a time: two groups merged at once could each depend
	// on the other (A before C, D before B, groups {A, B} and {C, D}).
	for {
		next, err := mergeSiblingGroup(term)
		if err != nil || next == term {
			return next, err
		}
		term = next
	}
}

// mergeSiblingGroup merges the first group of sibling reductions of term
// that has two members or more, and returns term itself when there is none.
func mergeSiblingGroup(term graph.Node) (graph.Node, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	inReducer := map[graph.Node]bool{}
	var cands []*graph.RNZ
	index := map[graph.Node]int{}
	for n := range graph.All(term) {
		if z, ok := n.(*graph.RNZ); ok && !inReducer[z.Red] {
			graph.Inspect(z.Red, func(m graph.Node) bool {
				if inReducer[m] {
					return false
				}
				inReducer[m] = true
				return true
			})
		}
	}
	for n := range graph.All(term) {
		z, ok := n.(*graph.RNZ)
		if !ok || inReducer[z] || !info.Closed[z] || info.TypeOf(z) == nil || untyped(info.TypeOf(z)) {
			continue
		}
		index[z] = len(cands)
		cands = append(cands, z)
	}
	if len(cands) < 2 {
		return term, nil
	}
	// below[n] is the set of candidates among n's descendants (n itself
	// excluded), as a bit set over candidate indices.
	below := map[graph.Node]*big.Int{}
	for n := range graph.All(term) {
		set := new(big.Int)
		for _, c := range graph.Children(n) {
			set.Or(set, below[c])
			if i, ok := index[c]; ok {
				set.SetBit(set, i, 1)
			}
		}
		below[n] = set
	}
	type group struct {
		members []*graph.RNZ
		args    map[graph.Node]bool
		extent  int
		reach   *big.Int // candidates some member depends on
		mask    *big.Int // the members, as a bit set
	}
	var groups []*group
	extentOf := func(z *graph.RNZ) int {
		_, e, err := graph.ElemType(info.TypeOf(z.Args[0]))
		if err != nil {
			return -1
		}
		return e
	}
	for _, z := range cands {
		i, e := index[z], extentOf(z)
		if e < 0 {
			continue
		}
		var joined bool
		for _, g := range groups {
			if g.extent != e {
				continue
			}
			common := false
			for _, a := range z.Args {
				common = common || g.args[a]
			}
			if !common {
				continue
			}
			// Neither depends on the other: z reads no member, and no
			// member reads z.
			if new(big.Int).And(below[z], g.mask).Sign() != 0 || g.reach.Bit(i) != 0 {
				continue
			}
			g.members = append(g.members, z)
			for _, a := range z.Args {
				g.args[a] = true
			}
			g.reach.Or(g.reach, below[z])
			g.mask.SetBit(g.mask, i, 1)
			joined = true
			break
		}
		if !joined {
			g := &group{members: []*graph.RNZ{z}, args: map[graph.Node]bool{}, extent: e,
				reach: new(big.Int).Set(below[z]), mask: new(big.Int).SetBit(new(big.Int), i, 1)}
			for _, a := range z.Args {
				g.args[a] = true
			}
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		if len(g.members) < 2 {
			continue
		}
		sub := map[graph.Node]graph.Node{}
		nodes := make([]graph.Node, len(g.members))
		for k, m := range g.members {
			nodes[k] = m
		}
		merged, err := productRNZ(nodes)
		if err != nil {
			return nil, err
		}
		merged = keepSource(g.members[0], merged)
		for k, m := range g.members {
			p, err := graph.NewProj(k, merged)
			if err != nil {
				return nil, err
			}
			sub[m] = keepSource(m, p)
		}
		return replace(term, sub)
	}
	return term, nil
}
