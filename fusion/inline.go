package fusion

import "github.com/hofuse/hofuse/graph"

// InlineLet inlines a let-bound term into its uses:
//
//	let x = e in body  =  body[x := e]
//
// Side condition: e is a function term (functions cost nothing until
// applied), or x is unused, or e is trivial (a variable, input, literal or a
// view of one), or x is used exactly once and not inside an inner lambda, or
// e is a cheap map over trivial arrays (a short scalar function, no inner
// higher-order function), which each use then recomputes as part of its own
// traversal instead of reading a materialised copy. Otherwise inlining
// would compute e more than once, and the let stays: a value computed once
// and reused, inside a kernel or between kernels.
type InlineLet struct{}

// Name implements Rule.
func (InlineLet) Name() string { return "inline-let" }

// Rewrite implements Rule.
func (r InlineLet) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	let, ok := n.(*graph.Let)
	if !ok {
		return nil, ErrNoMatch
	}
	count, under := occurrences(let.Body, let.Var)
	if !graph.IsFunc(let.Value) && count > 0 && !trivial(let.Value) && (count > 1 || under) && !cheapMap(let.Value) {
		if _, isSplit := let.Value.(*graph.NZip); isSplit && cheapFn(let.Value.(*graph.NZip).Fn) {
			return nil, ErrNoMatch // split-let names its arrays first
		}
		if !c.Closed(let.Value) {
			return nil, ErrNoMatch // a value inside a loop, computed once per iteration: nothing is refused
		}
		where := ""
		if under {
			where = ", inside an inner higher-order function"
		}
		return nil, refuse(r, n, "%s is used %s%s; inlining would compute it each time, so it is computed once (materialised if it is closed)",
			let.Var.Name, times(count), where)
	}
	return graph.Substitute(let.Body, map[*graph.Var]graph.Node{let.Var: let.Value})
}

// maxCheapOps is the most scalar operations per element a map may perform
// and still be recomputed by each consumer rather than materialised: below
// it, the arithmetic costs less than writing and reading the value back.
const maxCheapOps = 4

// cheapMap reports whether n is an nzip over trivial arrays whose function
// performs at most maxCheapOps scalar operations and no higher-order
// function.
func cheapMap(n graph.Node) bool {
	z, ok := n.(*graph.NZip)
	if !ok || graph.IsFunc(z) {
		return false
	}
	for _, a := range z.Args {
		if !trivial(a) {
			return false
		}
	}
	return cheapFn(z.Fn)
}

// cheapFn reports whether a map's function is short scalar code.
func cheapFn(fn graph.Node) bool {
	ops, hofs := workPerElement(fn)
	return hofs == 0 && ops <= maxCheapOps
}

// SplitLet names the costly arrays a cheap map reads, so that the map itself
// can be inlined into its uses while the arrays are computed once:
//
//	let x = nzip f .. e .. in body  =  let t = e in let x = nzip f .. t .. in body
//
// Side condition: f is cheap (see InlineLet) and e is not trivial.
type SplitLet struct{}

// Name implements Rule.
func (SplitLet) Name() string { return "split-let" }

// Rewrite implements Rule.
func (SplitLet) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	let, ok := n.(*graph.Let)
	if !ok {
		return nil, ErrNoMatch
	}
	z, ok := let.Value.(*graph.NZip)
	if !ok || graph.IsFunc(z) {
		return nil, ErrNoMatch
	}
	if !cheapFn(z.Fn) {
		return nil, ErrNoMatch
	}
	if count, under := occurrences(let.Body, let.Var); count <= 1 && !under {
		return nil, ErrNoMatch // used once: inline-let fuses it as it is
	}
	for i, a := range z.Args {
		if trivial(a) {
			continue
		}
		t := graph.NewVar(let.Var.Name + "_arg")
		args := append([]graph.Node(nil), z.Args...)
		args[i] = t
		inner, err := graph.NewNZip(z.Fn, args...)
		if err != nil {
			return nil, err
		}
		innerLet, err := graph.NewLet(let.Var, keepSource(z, inner), let.Body)
		if err != nil {
			return nil, err
		}
		out, err := graph.NewLet(t, a, keepSource(let, innerLet))
		if err != nil {
			return nil, err
		}
		return keepSource(let, out), nil
	}
	return nil, ErrNoMatch
}

// FloatLet moves a let out of the argument of a higher-order function, so
// that the function meets the let's body — usually the producer it can fuse
// with:
//
//	nzip f .. (let x = e in b) ..  =  let x = e in nzip f .. b ..
//	rnz r f .. (let x = e in b) .. =  let x = e in rnz r f .. b ..
//
// Variables are identified by pointer, so x cannot capture anything in the
// other arguments; the argument is evaluated once either way. No side
// condition.
type FloatLet struct{}

// Name implements Rule.
func (FloatLet) Name() string { return "float-let" }

// Rewrite implements Rule.
func (FloatLet) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	var args []graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(z) {
			return nil, ErrNoMatch
		}
		args = z.Args
	case *graph.RNZ:
		args = z.Args
	default:
		return nil, ErrNoMatch
	}
	for i, a := range args {
		let, ok := a.(*graph.Let)
		if !ok {
			continue
		}
		kids := graph.Children(n)
		kids[len(kids)-len(args)+i] = let.Body
		inner, err := graph.WithChildren(n, kids)
		if err != nil {
			return nil, err
		}
		out, err := graph.NewLet(let.Var, let.Value, inner)
		if err != nil {
			return nil, err
		}
		return keepSource(let, out), nil
	}
	return nil, ErrNoMatch
}
