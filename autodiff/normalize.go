package autodiff

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// normalize rewrites a closed term into the form the backward pass reads,
// without changing its value:
//
//   - every let is inlined: let v = e in b becomes b with v replaced by the
//     one node e, shared (a DAG), so a let-bound value used several times
//     is one node with several parents, whose cotangents add up;
//   - every application is reduced: (\x -> b) a by substitution (beta),
//     an op, a section or id applied to operands to the call they mean, a
//     partial nzip applied to arrays to the full nzip;
//   - the function of every full nzip and rnz becomes a lambda with one
//     parameter per array (eta): nzip (+) x y becomes nzip (\a b -> a + b)
//     x y, a partial nzip such as zip (+) becomes \a b -> nzip (\c d ->
//     c + d) a b, (*2) becomes \x -> x * 2, id becomes \x -> x;
//   - a lambda that is the function of several traversals is copied, with
//     fresh variables, for all but the first, so that graph.Check types
//     each lambda body in one context: the arrays of one traversal.
//
// Reduction operators are left as they are; classifyRed reads them.
func normalize(n graph.Node) (graph.Node, error) {
	const maxRounds = 64
	for range maxRounds {
		if !hasRedex(n) {
			e, err := etaAll(n)
			if err != nil {
				return nil, err
			}
			return uniqueLambdas(e)
		}
		var err error
		n, err = graph.Rewrite(n, reduceOnce)
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("autodiff: lets and applications still left after %d rounds of inlining; the term may apply a function to itself", maxRounds)
}

func hasRedex(n graph.Node) bool {
	for m := range graph.All(n) {
		switch m.(type) {
		case *graph.Let, *graph.App:
			return true
		}
	}
	return false
}

// reduceOnce inlines one let or reduces one application at the node n,
// whose children are already rewritten.
func reduceOnce(n graph.Node) (graph.Node, error) {
	switch n := n.(type) {
	case *graph.Let:
		return substitute(n.Body, map[*graph.Var]graph.Node{n.Var: n.Value})
	case *graph.App:
		return applyFn(n, n.Fn, n.Args)
	}
	return n, nil
}

// substitute is graph.Substitute that, when a binder inside n would
// capture a free variable of a replacement, renames n's binders and tries
// again.
func substitute(n graph.Node, sub map[*graph.Var]graph.Node) (graph.Node, error) {
	r, err := graph.Substitute(n, sub)
	if err == nil {
		return r, nil
	}
	fresh, ferr := graph.Freshen(n)
	if ferr != nil {
		return nil, ferr
	}
	return graph.Substitute(fresh, sub)
}

// applyFn returns the value of the function term fn applied to args, at the
// application node app (for errors). A variable bound to a function is left
// applied: a later round, after its let is inlined, reduces it.
func applyFn(app, fn graph.Node, args []graph.Node) (graph.Node, error) {
	switch f := fn.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return nil, fmt.Errorf("autodiff: %s: function of %d parameters applied to %d arguments", graph.Abbrev(app, 60), len(f.Params), len(args))
		}
		sub := make(map[*graph.Var]graph.Node, len(args))
		for i, p := range f.Params {
			sub[p] = args[i]
		}
		return substitute(f.Body, sub)
	case *graph.OpRef:
		return graph.NewCall(f.Op, args...)
	case *graph.Section:
		if len(args) != 1 {
			return nil, fmt.Errorf("autodiff: %s: section applied to %d arguments, takes 1", graph.Abbrev(app, 60), len(args))
		}
		if f.Left {
			return graph.NewCall(f.Op, f.Operand, args[0])
		}
		return graph.NewCall(f.Op, args[0], f.Operand)
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("autodiff: %s: id applied to %d arguments, takes 1", graph.Abbrev(app, 60), len(args))
		}
		return args[0], nil
	case *graph.NZip:
		return graph.NewNZip(f.Fn, append(append([]graph.Node(nil), f.Args...), args...)...)
	case *graph.Var:
		return app, nil
	}
	return nil, fmt.Errorf("autodiff: %s: %T cannot be applied", graph.Abbrev(app, 60), fn)
}

// etaAll turns the function of every full nzip and rnz into a lambda.
func etaAll(n graph.Node) (graph.Node, error) {
	return graph.Rewrite(n, func(m graph.Node) (graph.Node, error) {
		switch m := m.(type) {
		case *graph.NZip:
			if isPartial(m) {
				return m, nil
			}
			fn, err := etaLambda(m.Fn, len(m.Args))
			if err != nil {
				return nil, err
			}
			if fn == m.Fn {
				return m, nil
			}
			return graph.WithChildren(m, append([]graph.Node{fn}, m.Args...))
		case *graph.RNZ:
			fn, err := etaLambda(m.Fn, len(m.Args))
			if err != nil {
				return nil, err
			}
			if fn == m.Fn {
				return m, nil
			}
			return graph.WithChildren(m, append([]graph.Node{m.Red, fn}, m.Args...))
		}
		return m, nil
	})
}

// isPartial reports whether the nzip n is given fewer arrays than its
// function takes, which makes it a function.
func isPartial(n *graph.NZip) bool {
	if len(n.Args) == 0 {
		return true
	}
	k, ok := graph.FuncArity(n.Fn)
	return ok && k > len(n.Args)
}

// etaLambda returns the function term fn, of k arguments, as a lambda.
func etaLambda(fn graph.Node, k int) (graph.Node, error) {
	params := func() ([]*graph.Var, []graph.Node) {
		vs := make([]*graph.Var, k)
		ns := make([]graph.Node, k)
		for i := range vs {
			vs[i] = graph.NewVar(fmt.Sprintf("x%d", i))
			ns[i] = vs[i]
		}
		return vs, ns
	}
	switch f := fn.(type) {
	case *graph.Lambda:
		return f, nil
	case *graph.OpRef, *graph.Section, *graph.Ident:
		vs, ns := params()
		body, err := applyFn(fn, fn, ns)
		if err != nil {
			return nil, err
		}
		return graph.NewLambda(vs, body)
	case *graph.NZip:
		vs, ns := params()
		inner, err := etaLambda(f.Fn, len(f.Args)+k)
		if err != nil {
			return nil, err
		}
		body, err := graph.NewNZip(inner, append(append([]graph.Node(nil), f.Args...), ns...)...)
		if err != nil {
			return nil, err
		}
		return graph.NewLambda(vs, body)
	}
	return nil, fmt.Errorf("autodiff: %s: cannot differentiate through this function term (%T); write it as a lambda", graph.Abbrev(fn, 60), fn)
}

// uniqueLambdas gives every nzip and rnz its own function: a lambda already
// used by another traversal is replaced by a copy with fresh binders.
func uniqueLambdas(n graph.Node) (graph.Node, error) {
	seen := map[*graph.Lambda]bool{}
	return graph.Rewrite(n, func(m graph.Node) (graph.Node, error) {
		var fn graph.Node
		switch m := m.(type) {
		case *graph.NZip:
			if isPartial(m) {
				return m, nil
			}
			fn = m.Fn
		case *graph.RNZ:
			fn = m.Fn
		default:
			return m, nil
		}
		f, ok := fn.(*graph.Lambda)
		if !ok {
			return m, nil
		}
		if !seen[f] {
			seen[f] = true
			return m, nil
		}
		c, err := freshCopy(f)
		if err != nil {
			return nil, err
		}
		seen[c] = true
		kids := graph.Children(m)
		kids[slices.Index(kids, fn)] = c
		return graph.WithChildren(m, kids)
	})
}

// freshCopy copies the lambda f with a new variable for every binder in
// it. Subterms that read none of those binders are shared, not copied.
func freshCopy(f *graph.Lambda) (*graph.Lambda, error) {
	fv := graph.FreeVarSets(f)
	ren := map[*graph.Var]graph.Node{}
	for m := range graph.All(f) {
		switch m := m.(type) {
		case *graph.Lambda:
			for _, p := range m.Params {
				ren[p] = graph.NewVar(p.Name)
			}
		case *graph.Let:
			ren[m.Var] = graph.NewVar(m.Var.Name)
		}
	}
	memo := map[graph.Node]graph.Node{}
	var cp func(n graph.Node) (graph.Node, error)
	cp = func(n graph.Node) (graph.Node, error) {
		if r, ok := memo[n]; ok {
			return r, nil
		}
		var out graph.Node
		var err error
		switch m := n.(type) {
		case *graph.Var:
			out = m
			if r, ok := ren[m]; ok {
				out = r
			}
		case *graph.Lambda:
			params := make([]*graph.Var, len(m.Params))
			for i, p := range m.Params {
				params[i] = ren[p].(*graph.Var)
			}
			var body graph.Node
			if body, err = cp(m.Body); err == nil {
				out, err = graph.NewLambda(params, body)
			}
		default:
			if n != graph.Node(f) && !slices.ContainsFunc(fv[n], func(v *graph.Var) bool { return ren[v] != nil }) {
				out = n
				break
			}
			kids := graph.Children(n)
			for i, c := range kids {
				if kids[i], err = cp(c); err != nil {
					return nil, err
				}
			}
			out, err = graph.WithChildren(n, kids)
		}
		if err != nil {
			return nil, err
		}
		memo[n] = out
		return out, nil
	}
	c, err := cp(f)
	if err != nil {
		return nil, err
	}
	return c.(*graph.Lambda), nil
}

// normalizeWith normalises loss and the aux terms together, as one tuple,
// so that the nodes they share stay shared, and returns them apart.
func normalizeWith(loss graph.Node, aux []graph.Node) (graph.Node, []graph.Node, error) {
	if len(aux) == 0 {
		n, err := normalize(loss)
		return n, nil, err
	}
	t, err := graph.NewTuple(append([]graph.Node{loss}, aux...)...)
	if err != nil {
		return nil, nil, err
	}
	n, err := normalize(t)
	if err != nil {
		return nil, nil, err
	}
	nt, ok := n.(*graph.Tuple)
	if !ok || len(nt.Elems) != len(aux)+1 {
		return nil, nil, fmt.Errorf("autodiff: internal error: normalising (loss, aux...) gave %s, not a tuple of %d", graph.Abbrev(n, 60), len(aux)+1)
	}
	return nt.Elems[0], nt.Elems[1:], nil
}
