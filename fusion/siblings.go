package fusion

import (
	"math/big"

	"github.com/hofuse/hofuse/graph"
)

// mergeSiblings is the product rule for traversals that do not sit side by
// side in a tuple: closed rnz nodes anywhere in the term that traverse a
// common array (the same node among their arguments, so the same outer
// extent), and closed maps of vectors (nzips whose results have rank 1) of
// one outer extent, of which neither reads the other's result, become one
// rnz, or one nzip, with a tuple result, and each is replaced by its
// projection:
//
//	C[rnz r f xs, rnz q g ys]  =  let p = rnz (\a b -> (r (fst a) (fst b), q (snd a) (snd b)))
//	                                          (\xs' ys' -> (f xs', g ys')) xs ys
//	                              in C[fst p, snd p]
//	C[nzip f xs, nzip g ys]    =  let p = nzip (\xs' ys' -> (f xs', g ys')) xs ys
//	                              in C[fst p, snd p]
//
// (the let being a node the projections share). The weight and bias
// gradients of a dense layer, both sums over the batch of the layer's input
// and output gradient, become one traversal; so do BatchNorm's backward
// sums, and the optimizer's updates of the vector parameters with the
// running statistics. Both sides compute every element in the same order,
// so the law is exact. Product's law is the case in which the traversals
// are the elements of one tuple; fan-out then makes a merged traversal read
// each array once.
//
// Side conditions: the traversals are closed (so that the merged one may
// be computed where either was), neither is inside a reduction operator,
// and neither depends on the other, directly or through other terms: one
// that reads the other's result must run after it, and one traversal
// cannot. Maps of rows (a weight matrix's update, a matrix product) are
// left alone: they stay loop nests of their own, in the shapes the back
// ends' matrix kernels recognise. Candidates are taken in the order of a
// post-order walk and added greedily to the first group they may join.
//
// It runs once, at the start of the horizontal pass, after closed lets
// have become shared nodes (so that a traversal reading a let-bound value
// is closed); the pass's beta, eta and fan-out then bring the merged
// reduction operator to a tuple of lifted ops and merge the repeated
// arguments.
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
	var cands []graph.Node
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
		if _, isNZip := n.(*graph.NZip); (!isNZip && !isRNZ(n)) || graph.IsFunc(n) || inReducer[n] || !info.Closed[n] || info.TypeOf(n) == nil || graph.Untyped(info.TypeOf(n)) {
			continue
		}
		if !isRNZ(n) && !vectors(info.TypeOf(n)) {
			// A map of rows (a matrix update, a matrix product's
			// result) stays a loop nest of its own, in the shape the
			// back ends' matrix kernels recognise.
			continue
		}
		index[n] = len(cands)
		cands = append(cands, n)
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
		members []graph.Node
		rnz     bool
		args    map[graph.Node]bool
		extent  int
		reach   *big.Int // candidates some member depends on
		mask    *big.Int // the members, as a bit set
	}
	var groups []*group
	extentOf := func(z graph.Node) int {
		_, e, err := graph.ElemType(info.TypeOf(traversed(z)[0]))
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
			if g.extent != e || g.rnz != isRNZ(z) {
				continue
			}
			common := !g.rnz // maps of one extent are one loop, whatever they read
			for _, a := range traversed(z) {
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
			for _, a := range traversed(z) {
				g.args[a] = true
			}
			g.reach.Or(g.reach, below[z])
			g.mask.SetBit(g.mask, i, 1)
			joined = true
			break
		}
		if !joined {
			g := &group{members: []graph.Node{z}, rnz: isRNZ(z), args: map[graph.Node]bool{}, extent: e,
				reach: new(big.Int).Set(below[z]), mask: new(big.Int).SetBit(new(big.Int), i, 1)}
			for _, a := range traversed(z) {
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
		nodes := g.members
		var merged graph.Node
		var err error
		if g.rnz {
			merged, err = productRNZ(nodes)
		} else {
			merged, err = productNZip(nodes)
		}
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

func isRNZ(n graph.Node) bool {
	_, ok := n.(*graph.RNZ)
	return ok
}

// traversed returns the arrays the nzip or rnz n traverses.
func traversed(n graph.Node) []graph.Node {
	switch n := n.(type) {
	case *graph.NZip:
		return n.Args
	case *graph.RNZ:
		return n.Args
	}
	return nil
}

// vectors reports whether t is a rank-1 array or a tuple of those: the
// result of a map whose elements are scalars.
func vectors(t graph.Type) bool {
	switch t := t.(type) {
	case *graph.ArrayType:
		return t.Rank() == 1
	case *graph.TupleType:
		for _, e := range t.Elems {
			if !vectors(e) {
				return false
			}
		}
		return true
	}
	return false
}
