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
//
// Cost: counting x's uses and substituting walk only the paths down to
// them (the context's free-variable cache tells which subterms hold x), so
// inlining a let costs about the size of its value and the paths to its
// uses, not the size of its body. On a chain of n lets each used once by
// the next, an engine sweep inlines every other let, and the chain is gone
// after about log n sweeps, each linear in the term.
type InlineLet struct{}

// Name implements Rule.
func (InlineLet) Name() string { return "inline-let" }

// Rewrite implements Rule.
func (r InlineLet) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	let, ok := n.(*graph.Let)
	if !ok {
		return nil, ErrNoMatch
	}
	count, under := c.occurrences(let.Body, let.Var)
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
	return c.freeVars().Substitute(let.Body, map[*graph.Var]graph.Node{let.Var: let.Value})
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
