package native

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// maxInvariantElems bounds the closed arguments rule 9 reads: each value
// it hoists is computed once per run for every element of them.
const maxInvariantElems = 1 << 12

// hoistInvariants is rule 9: the scalars a map computes from its closed
// arguments alone, and literals, are computed once per run,
//
//	nzip (\ps qs -> E[e qs]) As Bs
//	  = nzip (\ps qs h -> E[h]) As Bs H,   H = nzip (\qs -> e qs) Bs
//
// where the Bs have no free variable (they are the same at every
// application of the functions the map is under) and are vectors, and e
// is a call of ops on the qs, literals and lets of such values that reads
// a q (a call of literals alone takes its type from the context). H is
// hoisted like rule 1's subterms: computed into a buffer before the body.
// A BatchNorm's gradient otherwise computes the reciprocal square root of
// each channel's variance again for every element of every row. The same
// ops on the same values give the same bits; a let's value that is
// hoisted leaves a let of a variable, which rule 4 substitutes. ok is
// false where no call qualifies.
func (nz *normalizer) hoistInvariants(n *graph.NZip) (graph.Node, bool, error) {
	l, ok := n.Fn.(*graph.Lambda)
	if !ok || len(l.Params) != len(n.Args) || nz.closed(n) {
		return nil, false, nil // a closed map is rule 1's, hoisted whole
	}
	// defs maps each invariant variable to its value over the closed
	// parameters: a parameter to itself, a let's variable to its value.
	defs := map[*graph.Var]graph.Node{}
	var closedArgs []graph.Node
	var closedParams []*graph.Var
	for i, a := range n.Args {
		if !nz.closed(a) {
			continue
		}
		info, err := graph.Check(a)
		if err != nil {
			return nil, false, nil
		}
		at, ok := info.TypeOf(a).(*graph.ArrayType)
		if !ok || at.Rank() != 1 || at.Layout.Size() > maxInvariantElems {
			continue
		}
		defs[l.Params[i]] = l.Params[i]
		closedArgs, closedParams = append(closedArgs, a), append(closedParams, l.Params[i])
	}
	if len(closedArgs) == 0 {
		return nil, false, nil
	}
	invariant := func(e graph.Node) bool {
		ok := true
		graph.Inspect(e, func(x graph.Node) bool {
			switch x := x.(type) {
			case *graph.Call, *graph.Const:
			case *graph.Var:
				_, known := defs[x]
				ok = ok && known
			default:
				ok = false
			}
			return ok
		})
		return ok
	}
	expand := func(e graph.Node) (graph.Node, error) {
		sub := map[*graph.Var]graph.Node{}
		for v, d := range defs {
			if d != graph.Node(v) {
				sub[v] = d
			}
		}
		return graph.Substitute(e, sub)
	}
	readsParam := func(e graph.Node) bool {
		found := false
		graph.Inspect(e, func(x graph.Node) bool {
			if v, ok := x.(*graph.Var); ok && slices.Contains(closedParams, v) {
				found = true
			}
			return !found
		})
		return found
	}
	type hoisted struct {
		param *graph.Var
		def   graph.Node // over closedParams
	}
	var hs []hoisted
	byKey := map[string]*graph.Var{}
	var walk func(e graph.Node) (graph.Node, error)
	walk = func(e graph.Node) (graph.Node, error) {
		switch e := e.(type) {
		case *graph.Call:
			if e.Op == graph.StopGrad {
				if _, v := e.Args[0].(*graph.Var); v {
					return e, nil // its operand itself: nothing to compute
				}
			}
			if invariant(e) {
				d, err := expand(e)
				if err != nil {
					return nil, err
				}
				if !readsParam(d) {
					// Literals alone: their type is the context's, which
					// a map of them of its own would not have.
					return e, nil
				}
				key := graph.Print(d)
				if v, ok := byKey[key]; ok {
					return v, nil
				}
				v := graph.NewVar(fmt.Sprintf("inv%d", len(hs)))
				byKey[key] = v
				hs = append(hs, hoisted{v, d})
				return v, nil
			}
		case *graph.Let:
			if invariant(e.Value) {
				d, err := expand(e.Value)
				if err != nil {
					return nil, err
				}
				defs[e.Var] = d
				body, err := walk(e.Body)
				if err != nil {
					return nil, err
				}
				if !slices.Contains(nz.free.Of(body), e.Var) {
					// Every use was in a value hoisted whole, which
					// computes the let's value itself: the let goes.
					return body, nil
				}
				value, err := walk(e.Value)
				if err != nil {
					return nil, err
				}
				let, err := graph.NewLet(e.Var, value, body)
				if err != nil {
					return nil, err
				}
				return graph.WithSource(let, e.Source()), nil
			}
		case *graph.Lambda, *graph.NZip, *graph.RNZ, *graph.Section:
			return e, nil // another loop's or function's body: not this map's scalars
		}
		kids := graph.Children(e)
		changed := false
		for i, k := range kids {
			r, err := walk(k)
			if err != nil {
				return nil, err
			}
			changed = changed || r != k
			kids[i] = r
		}
		if !changed {
			return e, nil
		}
		return graph.WithChildren(e, kids)
	}
	body, err := walk(l.Body)
	if err != nil {
		return nil, false, err
	}
	if len(hs) == 0 {
		return nil, false, nil
	}
	params, args := append([]*graph.Var{}, l.Params...), append([]graph.Node{}, n.Args...)
	for _, h := range hs {
		fresh := make([]*graph.Var, len(closedParams))
		sub := map[*graph.Var]graph.Node{}
		for i, p := range closedParams {
			fresh[i] = graph.NewVar(p.Name)
			sub[p] = fresh[i]
		}
		d, err := graph.Substitute(h.def, sub)
		if err != nil {
			return nil, false, err
		}
		fn, err := graph.NewLambda(fresh, d)
		if err != nil {
			return nil, false, err
		}
		term, err := graph.NewNZip(fn, closedArgs...)
		if err != nil {
			return nil, false, err
		}
		info, err := graph.Check(term)
		if err != nil {
			return nil, false, fmt.Errorf("rule 9: the hoisted %s does not type-check: %w", graph.Abbrev(term, 60), err)
		}
		*nz.next++
		in, err := graph.NewInput(fmt.Sprintf("$h%d", *nz.next), graph.Materialized(info.TypeOf(term)), false)
		if err != nil {
			return nil, false, err
		}
		nz.hoists = append(nz.hoists, hoist{in: in, term: graph.WithSource(term, n.Source())})
		params, args = append(params, h.param), append(args, in)
	}
	fn, err := graph.NewLambda(params, body)
	if err != nil {
		return nil, false, err
	}
	r, err := graph.NewNZip(fn, args...)
	if err != nil {
		return nil, false, err
	}
	return graph.WithSource(r, n.Source()), true, nil
}
