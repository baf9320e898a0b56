package fusion

import "github.com/hofuse/hofuse/graph"

// InlineLet inlines a let-bound term into its uses:
//
//	let x = e in body  =  body[x := e]
//
// Side condition: e is a function term (functions cost nothing until
// applied), or x is unused, or e is trivial (a variable, input, literal or a
// view of one), or x is used exactly once and not inside an inner lambda.
// Otherwise inlining would compute e more than once, and the let stays: it is
// a value computed once and reused, inside a kernel or between kernels.
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
	if !graph.IsFunc(let.Value) && count > 0 && !trivial(let.Value) && (count > 1 || under) {
		return nil, ErrNoMatch // a shared value: keeping it is the point of the let
	}
	return graph.Substitute(let.Body, map[*graph.Var]graph.Node{let.Var: let.Value})
}
