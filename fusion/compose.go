package fusion

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// ncomp composes g before argument i of the n-ary function f:
//
//	ncomp i f g = \x0 .. x{i-1} y0 .. y{m-1} x{i+1} .. x{n-1} -> f x0 .. (g y0 .. y{m-1}) .. x{n-1}
//
// n is f's arity and m g's. The result is β-normalised, so composing two
// lambdas gives one lambda whose body is f's body with g's body in place of
// f's i-th parameter (let-bound when that parameter is used more than once).
func ncomp(i, n int, f graph.Node, m int, g graph.Node) (graph.Node, error) {
	var params []*graph.Var
	var fargs []graph.Node
	var gargs []graph.Node
	for k := range n {
		if k == i {
			for j := range m {
				y := graph.NewVar(paramName(g, j, "y"))
				params = append(params, y)
				gargs = append(gargs, y)
			}
			fargs = append(fargs, nil) // filled below
			continue
		}
		x := graph.NewVar(paramName(f, k, "x"))
		params = append(params, x)
		fargs = append(fargs, x)
	}
	gy, err := apply(g, gargs)
	if err != nil {
		return nil, err
	}
	fargs[i] = gy
	body, err := apply(f, fargs)
	if err != nil {
		return nil, err
	}
	l, err := graph.NewLambda(params, body)
	if err != nil {
		return nil, err
	}
	return keepSource(f, l), nil
}

// paramName names a new parameter after the one it replaces, when fn is a
// lambda.
func paramName(fn graph.Node, k int, dflt string) string {
	if l, ok := fn.(*graph.Lambda); ok && k < len(l.Params) {
		return l.Params[k].Name
	}
	return fmt.Sprintf("%s%d", dflt, k)
}

func keepSource(from, to graph.Node) graph.Node {
	if src := from.Source(); src != "" && to.Source() == "" {
		return graph.WithSource(to, src)
	}
	return to
}

// apply returns the value of the function term fn applied to args, reduced:
// a lambda is β-reduced, an op becomes a call, a section a call with its
// operand in place, id its argument, a partial nzip a fuller one. Any other
// function term (a variable bound to a function) stays an application.
func apply(fn graph.Node, args []graph.Node) (graph.Node, error) {
	var out graph.Node
	var err error
	switch f := fn.(type) {
	case *graph.Lambda:
		out, err = betaReduce(f, args)
	case *graph.OpRef:
		out, err = graph.NewCall(f.Op, args...)
	case *graph.Section:
		if len(args) != 1 {
			return nil, fmt.Errorf("section applied to %d arguments", len(args))
		}
		if f.Left {
			out, err = graph.NewCall(f.Op, f.Operand, args[0])
		} else {
			out, err = graph.NewCall(f.Op, args[0], f.Operand)
		}
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("id applied to %d arguments", len(args))
		}
		return args[0], nil
	case *graph.NZip:
		out, err = graph.NewNZip(f.Fn, append(append([]graph.Node(nil), f.Args...), args...)...)
	default:
		out, err = graph.NewApp(fn, args...)
	}
	if err != nil {
		return nil, err
	}
	return keepSource(fn, out), nil
}

// betaReduce substitutes args for the parameters of f. A parameter used at
// most once, outside any inner lambda, or bound to a trivial argument (a
// variable, an input, a literal, or a view of one) is replaced; any other is
// bound with let, so that the argument is computed once per application and
// never once per iteration of an inner higher-order function.
func betaReduce(f *graph.Lambda, args []graph.Node) (graph.Node, error) {
	if len(args) != len(f.Params) {
		return nil, fmt.Errorf("function of %d parameters applied to %d arguments", len(f.Params), len(args))
	}
	fl, err := freshenLambda(f)
	if err != nil {
		return nil, err
	}
	sub := map[*graph.Var]graph.Node{}
	type binding struct {
		v   *graph.Var
		val graph.Node
	}
	var lets []binding
	for i, p := range fl.Params {
		count, under := occurrences(fl.Body, p)
		switch {
		case count == 0:
			// Unused: the argument is dead.
		case trivial(args[i]) || (count == 1 && !under):
			sub[p] = args[i]
		default:
			lets = append(lets, binding{p, args[i]})
		}
	}
	out, err := graph.Substitute(fl.Body, sub)
	if err != nil {
		return nil, err
	}
	for k := len(lets) - 1; k >= 0; k-- {
		l, err := graph.NewLet(lets[k].v, lets[k].val, out)
		if err != nil {
			return nil, err
		}
		out = keepSource(f, l)
	}
	return out, nil
}

// freshenLambda returns a copy of f with new parameters, and new binders
// in the subterms that read them: graph.Freshen, except that a subterm in
// which no renamed variable is free is kept, shared with f, not copied. A
// closed subterm (a layer's matrix product that a gradient's function
// reads) thus stays one node however often the function is applied, and
// the fusion rules, which count a producer's consumers by node, see every
// consumer; a copy would look like a producer of one consumer, fusable
// into it, and the product would be computed twice.
func freshenLambda(f *graph.Lambda) (*graph.Lambda, error) {
	var fv graph.FreeVarCache
	var rw func(n graph.Node, ren map[*graph.Var]graph.Node) (graph.Node, error)
	rw = func(n graph.Node, ren map[*graph.Var]graph.Node) (graph.Node, error) {
		if _, isBinder := n.(*graph.Lambda); !isBinder {
			if _, isLet := n.(*graph.Let); !isLet && !slices.ContainsFunc(fv.Of(n), func(v *graph.Var) bool { _, ok := ren[v]; return ok }) {
				return n, nil
			}
		}
		switch n := n.(type) {
		case *graph.Var:
			return ren[n], nil
		case *graph.Lambda:
			if !slices.ContainsFunc(fv.Of(n), func(v *graph.Var) bool { _, ok := ren[v]; return ok }) && n != graph.Node(f) {
				return n, nil
			}
			inner := maps.Clone(ren)
			params := make([]*graph.Var, len(n.Params))
			for i, p := range n.Params {
				params[i] = graph.NewVar(p.Name)
				inner[p] = params[i]
			}
			body, err := rw(n.Body, inner)
			if err != nil {
				return nil, err
			}
			l, err := graph.NewLambda(params, body)
			if err != nil {
				return nil, err
			}
			return keepSource(n, l), nil
		case *graph.Let:
			if !slices.ContainsFunc(fv.Of(n), func(v *graph.Var) bool { _, ok := ren[v]; return ok }) {
				return n, nil
			}
			val, err := rw(n.Value, ren)
			if err != nil {
				return nil, err
			}
			inner := maps.Clone(ren)
			v := graph.NewVar(n.Var.Name)
			inner[n.Var] = v
			body, err := rw(n.Body, inner)
			if err != nil {
				return nil, err
			}
			l, err := graph.NewLet(v, val, body)
			if err != nil {
				return nil, err
			}
			return keepSource(n, l), nil
		}
		kids := graph.Children(n)
		for i, c := range kids {
			r, err := rw(c, ren)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		return graph.WithChildren(n, kids)
	}
	out, err := rw(f, map[*graph.Var]graph.Node{})
	if err != nil {
		return nil, err
	}
	return out.(*graph.Lambda), nil
}

// trivial reports whether n costs nothing to repeat: a variable, input or
// literal, or layout operations and projections of one.
func trivial(n graph.Node) bool {
	switch n := n.(type) {
	case *graph.Var, *graph.Input, *graph.Const:
		return true
	case graph.ViewNode:
		return trivial(n.Operand())
	case *graph.Proj:
		return trivial(n.X)
	}
	return false
}

// occurrences counts the free occurrences of v in n and reports whether any
// lies inside a lambda within n (where it would be evaluated once per
// application of that lambda).
func occurrences(n graph.Node, v *graph.Var) (count int, underLambda bool) {
	return occurrencesIn(nil, n, v)
}

// occurrencesIn is occurrences skipping the subterms in which fv, when not
// nil, finds v not free: on a chain of lets it looks only at the paths
// down to v's uses, not at the whole body.
func occurrencesIn(fv *graph.FreeVarCache, n graph.Node, v *graph.Var) (count int, underLambda bool) {
	// Each node's answer is remembered, so that a shared subterm (the
	// term is a DAG) is counted once per path without being walked once
	// per path; counts saturate at maxCount.
	type result struct {
		count int
		under bool // some occurrence lies inside a lambda or section within the node
	}
	const maxCount = 1 << 30
	memo := map[graph.Node]result{}
	var walk func(graph.Node) result
	walk = func(n graph.Node) result {
		if r, ok := memo[n]; ok {
			return r
		}
		var r result
		if fv != nil && !slices.Contains(fv.Of(n), v) {
			return r // v is not free in n
		}
		sum := func(k result) {
			r.count = min(r.count+k.count, maxCount)
			r.under = r.under || k.under
		}
		inside := func(k result) { sum(result{k.count, k.count > 0}) }
		switch n := n.(type) {
		case *graph.Var:
			if n == v {
				r.count = 1
			}
		case *graph.Lambda:
			if !slices.Contains(n.Params, v) { // else shadowed
				inside(walk(n.Body))
			}
		case *graph.Let:
			sum(walk(n.Value))
			if n.Var != v {
				sum(walk(n.Body))
			}
		case *graph.Section:
			// The operand is evaluated at every application of the section.
			inside(walk(n.Operand))
		default:
			for _, c := range graph.Children(n) {
				sum(walk(c))
			}
		}
		memo[n] = r
		return r
	}
	r := walk(n)
	return r.count, r.under
}
