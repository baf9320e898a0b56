package native

import (
	"errors"
	"fmt"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// Before a kernel body is compiled it is normalised; every step preserves
// the term's value exactly (no reassociation):
//
//  0. Row prologues. The row part of a contraction that every column
//     recomputes (a scaler fused into a dense layer) is computed once per
//     row, out of the columns' loop, leaving the plain product the GEMM
//     kernel takes (prologue.go; the products then sum in the kernel's
//     order).
//  1. Hoisting. A closed subterm that computes (contains an nzip or rnz)
//     and sits under a lambda, or is shared, is evaluated once per run
//     into a buffer of its own and replaced by that buffer: without this
//     it would be recomputed at every application of the lambda.
//  2. Local vertical fusion. An nzip argument of an nzip or rnz that is
//     itself an nzip is composed into the outer function (the paper's
//     ncomp rule), when that costs nothing: the inner elements are
//     scalars (they land in registers) or the outer function uses the
//     element once, outside any lambda. This removes the temporaries of
//     unfused-looking kernels; the unfused dense layer
//     map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) x
//     becomes the GEMM-with-epilogue shape this way.
//     This is not fusion's NZipNZip/RNZNZip: those need a fusion.Context
//     (types and use counts, which only fusion's engine builds) and guard
//     with a cost model of shared producers, which hoisting has already
//     taken care of here.
//  3. Beta reduction, by fusion's rule (fusion.Beta): (\x -> e) a becomes
//     e[x := a] when a is trivial (a variable, input, literal or view) or x
//     is used at most once outside any lambda; otherwise let x = a in e.
//     Applied ops and sections become calls.
//  4. A let of a trivial value (here also arithmetic on literals) is
//     substituted.
//  5. and 6. A short max, min or + reduction is unrolled, and the views
//     of a map's parameters are lifted out of it (unroll.go).
//  7. and 8. Short lets are fissioned out of maps, and short maps
//     exchanged with long ones (unroll.go).
//  9. The scalars a map computes from closed vectors alone are computed
//     once per run (invariant.go).
//  10. A floating-point negation is folded into the op around it or a
//     literal operand where an exact identity allows (foldNeg).
//
// Every step either succeeds or returns its error: a body that cannot be
// normalised, or whose normal form does not type-check, is an error
// naming the step, never silently compiled in another form.

// A hoist is a closed subterm computed before the kernel body, into the
// buffer of the input that replaces it.
type hoist struct {
	in   *graph.Input
	term graph.Node
}

type normalizer struct {
	info   *graph.Info
	free   graph.FreeVarCache
	refs   map[graph.Node]int
	comp   map[graph.Node]bool
	hoists []hoist
	hmemo  map[graph.Node]*graph.Input
	memo   map[graph.Node]graph.Node
	next   *int
	// copyExchanged makes rule 8 copy its results row major; exchanged
	// records that it applied.
	copyExchanged, exchanged bool
}

// normalize returns the normalised body and the subterms hoisted out of
// it, in the order they must be computed.
func normalize(body graph.Node, counter *int) (graph.Node, []hoist, error) {
	moved, changed, err := rowPrologue(body)
	if err != nil {
		return nil, nil, fmt.Errorf("moving row prologues out of contractions: %w", err)
	}
	info, err := graph.Check(moved)
	if err != nil && changed {
		// A prologue whose literals took their type from the product it
		// left (the 2 of y · 2, f32 beside an f32 y) defaults to f64 on
		// its own: compile the body as written.
		moved = body
		info, err = graph.Check(body)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the body does not type-check: %w", err)
	}
	body = moved
	saved := *counter
	out, hoists, exchanged, err := normalizeWith(body, info, counter, false)
	if err != nil && exchanged {
		// Rule 8 leaves the maps it exchanged strided, which a view
		// reading them (a flatten) may not take: copy them row major.
		*counter = saved
		out, hoists, _, err = normalizeWith(body, info, counter, true)
	}
	return out, hoists, err
}

// normalizeWith normalises body, whose type check is info, with rule 8
// copying its results row major when copyExchanged is set; exchanged
// reports whether rule 8 was applied.
func normalizeWith(body graph.Node, info *graph.Info, counter *int, copyExchanged bool) (graph.Node, []hoist, bool, error) {
	nz := &normalizer{info: info, refs: map[graph.Node]int{},
		comp: map[graph.Node]bool{}, hmemo: map[graph.Node]*graph.Input{}, memo: map[graph.Node]graph.Node{},
		next: counter, copyExchanged: copyExchanged}
	for n := range graph.All(body) {
		for _, k := range graph.Children(n) {
			nz.refs[k]++
		}
	}
	h, err := nz.hoist(body, body, false)
	if err != nil {
		return nil, nil, false, fmt.Errorf("hoisting closed subterms: %w", err)
	}
	out, err := nz.norm(h)
	if err != nil {
		return nil, nil, nz.exchanged, fmt.Errorf("normalising %s: %w", graph.Abbrev(h, 60), err)
	}
	outInfo, err := graph.Check(out)
	if err != nil {
		return nil, nil, nz.exchanged, fmt.Errorf("the normal form of %s does not type-check: %w", graph.Abbrev(h, 60), err)
	}
	if out, err = foldNegs(out, outInfo, map[graph.Node]graph.Node{}); err != nil {
		return nil, nil, nz.exchanged, fmt.Errorf("folding the negations of %s: %w", graph.Abbrev(h, 60), err)
	}
	return out, nz.hoists, nz.exchanged, nil
}

func (nz *normalizer) closed(n graph.Node) bool {
	return len(nz.free.Of(n)) == 0
}

// computes reports whether n contains a traversal.
func (nz *normalizer) computes(n graph.Node) bool {
	if c, ok := nz.comp[n]; ok {
		return c
	}
	c := false
	switch n.(type) {
	case *graph.NZip, *graph.RNZ:
		c = !graph.IsFunc(n)
	}
	for _, k := range graph.Children(n) {
		if c {
			break
		}
		c = nz.computes(k)
	}
	nz.comp[n] = c
	return c
}

// hoist replaces the hoistable subterms of n; under says n is evaluated
// once per application of some function. A subterm whose value is a
// literal's, typed by its context ((\y -> 1) (map id x)), is not hoisted:
// it would need a buffer of a type it does not have (graph.Untyped).
func (nz *normalizer) hoist(root, n graph.Node, under bool) (graph.Node, error) {
	if n != root && (under || nz.refs[n] > 1) && nz.closed(n) && !graph.IsFunc(n) && nz.computes(n) {
		if in, ok := nz.hmemo[n]; ok {
			return in, nil
		}
		t := nz.info.TypeOf(n)
		if t == nil {
			info, err := graph.Check(n)
			if err != nil {
				return nil, err
			}
			t = info.TypeOf(n)
		}
		if graph.Untyped(t) {
			return nz.hoistChildren(root, n, under)
		}
		*nz.next++
		in, err := graph.NewInput(fmt.Sprintf("$h%d", *nz.next), graph.Materialized(t), false)
		if err != nil {
			return nil, err
		}
		nz.hmemo[n] = in
		nz.hoists = append(nz.hoists, hoist{in: in, term: n})
		return in, nil
	}
	return nz.hoistChildren(root, n, under)
}

// hoistChildren is hoist on each child of n.
func (nz *normalizer) hoistChildren(root, n graph.Node, under bool) (graph.Node, error) {
	kids := graph.Children(n)
	changed := false
	for i, k := range kids {
		u := under || fnPosition(n, i)
		r, err := nz.hoist(root, k, u)
		if err != nil {
			return nil, err
		}
		if r != k {
			kids[i], changed = r, true
		}
	}
	if !changed {
		return n, nil
	}
	return graph.WithChildren(n, kids)
}

// fnPosition reports whether child i of n is evaluated once per
// application of a function: a lambda's body, a section's operand, the
// function of an nzip or rnz.
func fnPosition(n graph.Node, i int) bool {
	switch n.(type) {
	case *graph.Lambda, *graph.Section:
		return true
	case *graph.NZip:
		return i == 0
	case *graph.RNZ:
		return i < 2
	}
	return false
}

// norm normalises n bottom-up.
func (nz *normalizer) norm(n graph.Node) (graph.Node, error) {
	if r, ok := nz.memo[n]; ok {
		return r, nil
	}
	kids := graph.Children(n)
	for i, k := range kids {
		r, err := nz.norm(k)
		if err != nil {
			return nil, err
		}
		kids[i] = r
	}
	m, err := graph.WithChildren(n, kids)
	if err != nil {
		return nil, err
	}
	r, err := nz.rule(m)
	if err != nil {
		return nil, err
	}
	nz.memo[n] = r
	return r, nil
}

// rule applies one local rule to n, whose children are normal, and
// normalises the result.
func (nz *normalizer) rule(n graph.Node) (graph.Node, error) {
	switch n := n.(type) {
	case *graph.App:
		return nz.beta(n)
	case *graph.NZip:
		if graph.IsFunc(n) {
			return n, nil
		}
		fn, args, ok, err := nz.compose(n.Fn, n.Args)
		if err != nil {
			return nil, err
		}
		if ok {
			r, err := graph.NewNZip(fn, args...)
			if err != nil {
				return nil, err
			}
			return nz.norm(graph.WithSource(r, n.Source()))
		}
		for _, rule := range []func(*graph.NZip) (graph.Node, bool, error){nz.liftViews, nz.fissionLet, nz.exchangeMap, nz.hoistInvariants} {
			r, ok, err := rule(n)
			if err != nil {
				return nil, err
			}
			if ok {
				return nz.norm(r)
			}
		}
	case *graph.RNZ:
		r, ok, err := nz.unrollShort(n)
		if err != nil {
			return nil, err
		}
		if ok {
			return nz.norm(r)
		}
		fn, args, ok, err := nz.compose(n.Fn, n.Args)
		if err != nil {
			return nil, err
		}
		if ok {
			r, err := graph.NewRNZ(n.Red, fn, args...)
			if err != nil {
				return nil, err
			}
			return nz.norm(graph.WithSource(r, n.Source()))
		}
	case *graph.Let:
		if trivial(n.Value) && !graph.IsFunc(n.Value) {
			b, err := graph.Substitute(n.Body, map[*graph.Var]graph.Node{n.Var: n.Value})
			if err != nil {
				return nil, err
			}
			return nz.norm(b)
		}
	}
	return n, nil
}

// compose fuses the first nzip argument of f that can be fused: nzip f
// xs..(nzip g ys)..zs becomes nzip (\xs' ys' zs' -> f xs' (g ys') zs') xs
// ys zs. It reports whether it fused one; an error is a term it could not
// build.
func (nz *normalizer) compose(f graph.Node, args []graph.Node) (graph.Node, []graph.Node, bool, error) {
	for i, a := range args {
		inner, ok := a.(*graph.NZip)
		if !ok || graph.IsFunc(inner) || !nz.fusable(f, i, len(args), inner) {
			continue
		}
		var params []*graph.Var
		var outerArgs []graph.Node
		var newArgs []graph.Node
		for j, x := range args {
			if j == i {
				var ys []graph.Node
				for k, y := range inner.Args {
					v := graph.NewVar(fmt.Sprintf("y%d", k))
					params = append(params, v)
					ys = append(ys, v)
					newArgs = append(newArgs, y)
				}
				app, err := graph.NewApp(inner.Fn, ys...)
				if err != nil {
					return nil, nil, false, err
				}
				outerArgs = append(outerArgs, app)
				continue
			}
			v := graph.NewVar(fmt.Sprintf("x%d", j))
			params = append(params, v)
			outerArgs = append(outerArgs, v)
			newArgs = append(newArgs, x)
		}
		body, err := graph.NewApp(f, outerArgs...)
		if err != nil {
			return nil, nil, false, err
		}
		lam, err := graph.NewLambda(params, body)
		if err != nil {
			return nil, nil, false, err
		}
		return lam, newArgs, true, nil
	}
	return nil, nil, false, nil
}

// fusable reports whether composing the nzip inner into argument i of f
// costs nothing: its elements are scalars, or f uses the element once and
// outside any lambda (so it is substituted, not bound and stored).
func (nz *normalizer) fusable(f graph.Node, i, nargs int, inner *graph.NZip) bool {
	if t := nz.info.TypeOf(inner); t != nil && scalarElems(t) {
		return true
	}
	switch f := f.(type) {
	case *graph.OpRef, *graph.Section:
		return true
	case *graph.Lambda:
		if len(f.Params) != nargs {
			return false
		}
		uses, under := countUses(f.Body, f.Params[i], false)
		return uses == 1 && !under
	}
	return false
}

// scalarElems reports whether the elements of t (an array or a tuple of
// arrays) are scalars.
func scalarElems(t graph.Type) bool {
	switch t := t.(type) {
	case *graph.ArrayType:
		return t.Rank() == 1
	case *graph.TupleType:
		for _, e := range t.Elems {
			if !scalarElems(e) {
				return false
			}
		}
		return true
	}
	return false
}

// countUses counts the free occurrences of v in n and reports whether any
// is under a lambda or in a function position.
func countUses(n graph.Node, v *graph.Var, under bool) (int, bool) {
	switch n := n.(type) {
	case *graph.Var:
		if n == v {
			return 1, under
		}
		return 0, false
	case *graph.Lambda:
		for _, p := range n.Params {
			if p == v {
				return 0, false
			}
		}
	case *graph.Let:
		c1, u1 := countUses(n.Value, v, under)
		if n.Var == v {
			return c1, u1
		}
		c2, u2 := countUses(n.Body, v, under)
		return c1 + c2, u1 || u2
	}
	total, anyUnder := 0, false
	for i, k := range graph.Children(n) {
		c, u := countUses(k, v, under || fnPosition(n, i))
		total += c
		anyUnder = anyUnder || u
	}
	return total, anyUnder
}

// trivial reports whether n costs nothing to evaluate again: a variable,
// an input, a literal, a computation on literals only, or a view of those.
func trivial(n graph.Node) bool {
	switch n := n.(type) {
	case *graph.Var, *graph.Input, *graph.Const:
		return true
	case graph.ViewNode:
		// A pad copies its operand.
		return graph.IsStrided(n.View()) && trivial(n.Operand())
	case *graph.Proj:
		return trivial(graph.Children(n)[0])
	case *graph.Call:
		for _, a := range n.Args {
			if _, ok := a.(*graph.Const); !ok {
				if c, ok := a.(*graph.Call); !ok || !trivial(c) || hasVarOrInput(c) {
					return false
				}
			}
		}
		return true
	}
	return false
}

func hasVarOrInput(n graph.Node) bool {
	found := false
	graph.Inspect(n, func(m graph.Node) bool {
		switch m.(type) {
		case *graph.Var, *graph.Input:
			found = true
		}
		return !found
	})
	return found
}

// beta reduces an application with fusion's beta rule (fusion.Beta), which
// consults no context: a parameter used at most once outside inner
// lambdas, or bound to a trivial argument, is substituted; any other is
// bound with let. The result is normalised in turn.
func (nz *normalizer) beta(n *graph.App) (graph.Node, error) {
	r, err := betaRule.Rewrite(nil, n)
	if errors.Is(err, fusion.ErrNoMatch) {
		return n, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", graph.Abbrev(n, 60), err)
	}
	return nz.norm(r)
}

// betaRule is fusion's β-reduction.
var betaRule fusion.Beta
