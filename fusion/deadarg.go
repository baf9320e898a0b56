package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// DeadArg drops an argument of an nzip or rnz whose parameter the function
// never reads:
//
//	nzip (\.. p ..-> e) .. X ..  =  nzip (\.. ..-> e) .. ..     (p not free in e)
//	rnz r (\.. p ..-> e) .. X .. =  rnz r (\.. ..-> e) .. ..
//
// An argument whose parameter is unused only gives the traversal its
// extent, and the other arguments have the same outer extent (the checker
// requires it), so the traversal, and every element it computes, stays the
// same. When every parameter is unused one argument stays, to keep the
// extent: the first that costs nothing to read (a variable, input or view
// of one), else the first. Reverse-mode derivatives leave such arguments
// behind — the cotangent of a dense layer traverses the weight's columns
// and the bias only for their extent — and they hide the shape of what
// is computed (a contraction) from the rules that follow.
type DeadArg struct{}

// Name implements Rule.
func (DeadArg) Name() string { return "dead-arg" }

// Rewrite implements Rule.
func (DeadArg) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	var fn, red graph.Node
	var args []graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(z) {
			return nil, ErrNoMatch
		}
		fn, args = z.Fn, z.Args
	case *graph.RNZ:
		fn, red, args = z.Fn, z.Red, z.Args
	default:
		return nil, ErrNoMatch
	}
	// The function may be lifted by partial nzips, nzip (nzip .. (\ps ->
	// e)) xs: the parameters are still the arguments', an axis further in
	// at each level, and the other arguments have the same extents there.
	fn, levels := graph.UnderZips(fn)
	l, ok := fn.(*graph.Lambda)
	if !ok || len(l.Params) != len(args) || len(args) < 2 {
		return nil, ErrNoMatch
	}
	var params []*graph.Var
	var kept []graph.Node
	src := n.Source()
	for i, p := range l.Params {
		if count, _ := c.occurrences(l.Body, p); count > 0 {
			params = append(params, p)
			kept = append(kept, args[i])
		} else if _, view := args[i].(graph.ViewNode); src == "" && view {
			// The dropped argument may be what named the layer (the view
			// of its weight): the traversal keeps the name.
			src = args[i].Source()
		}
	}
	if len(kept) == len(args) {
		return nil, ErrNoMatch
	}
	if len(kept) == 0 {
		k := 0
		for i, a := range args {
			if trivial(a) {
				k = i
				break
			}
		}
		params, kept = []*graph.Var{l.Params[k]}, []graph.Node{args[k]}
	}
	var out graph.Node
	var err error
	if levels == 0 {
		out, err = (&hof{red: red, params: params, body: l.Body, args: kept}).build(n)
	} else {
		out, err = liftedHOF(n, red, params, l.Body, levels, kept)
	}
	if err != nil || src == "" || out.Source() != "" {
		return out, err
	}
	return graph.WithSource(out, src), nil
}

// liftedHOF builds nzip (or rnz red) of \params -> body under levels
// partial nzips over args, with the source of like where it has none.
func liftedHOF(like graph.Node, red graph.Node, params []*graph.Var, body graph.Node, levels int, args []graph.Node) (graph.Node, error) {
	l, err := graph.NewLambda(params, body)
	if err != nil {
		return nil, err
	}
	fn, err := graph.LiftZips(l, levels)
	if err != nil {
		return nil, err
	}
	return newHOF(like, red, fn, args)
}

// newHOF builds rnz red fn args, or nzip fn args when red is nil, with
// the source of like where it has none.
func newHOF(like, red, fn graph.Node, args []graph.Node) (graph.Node, error) {
	var out graph.Node
	var err error
	if red != nil {
		out, err = graph.NewRNZ(red, fn, args...)
	} else {
		out, err = graph.NewNZip(fn, args...)
	}
	if err != nil {
		return nil, err
	}
	return keepSource(like, out), nil
}

// DropCopy removes explicit copies (map id x) whose result is only read
// element by element: an argument of an nzip or rnz, the body of its
// function, or the function itself:
//
//	H f .. (map id X) ..      =  H f .. X ..
//	H (\ps -> map id e) ..    =  H (\ps -> e) ..
//	H (map id) ..             =  H id ..
//
// A copy makes a fresh buffer of the same value; a traversal reads the
// same elements from the original, and the traversal's own result is
// written to its own buffer either way. Dead arguments leave such copies
// behind (nzip (\c b g -> g) C B G is map id G once C and B go).
type DropCopy struct{}

// Name implements Rule.
func (DropCopy) Name() string { return "drop-copy" }

// Rewrite implements Rule.
func (DropCopy) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	var fn, red graph.Node
	var args []graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(z) {
			return nil, ErrNoMatch
		}
		fn, args = z.Fn, z.Args
	case *graph.RNZ:
		fn, red, args = z.Fn, z.Red, z.Args
	default:
		return nil, ErrNoMatch
	}
	changed := false
	newArgs := make([]graph.Node, len(args))
	for i, a := range args {
		newArgs[i] = a
		if z, ok := a.(*graph.NZip); ok && isCopy(z) {
			newArgs[i], changed = z.Args[0], true
		}
	}
	switch f := fn.(type) {
	case *graph.NZip:
		if _, id := f.Fn.(*graph.Ident); id && len(f.Args) == 0 {
			fn, changed = keepSource(f, graph.NewIdent()), true
		}
	case *graph.Lambda:
		if z, ok := f.Body.(*graph.NZip); ok && isCopy(z) {
			l, err := graph.NewLambda(f.Params, z.Args[0])
			if err != nil {
				return nil, err
			}
			fn, changed = keepSource(f, l), true
		}
	}
	if !changed {
		return nil, ErrNoMatch
	}
	return newHOF(n, red, fn, newArgs)
}
