package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// SameArg merges arguments of an nzip or rnz that are one and the same
// node (common subterms are shared before every pass, so equal arrays are
// one node):
//
//	nzip (\.. p .. q ..-> e) .. X .. X ..  =  nzip (\.. p .. ..-> e[q := p]) .. X .. ..
//	rnz r (\.. p .. q ..-> e) .. X .. X .. =  rnz r (\.. p .. ..-> e[q := p]) .. X .. ..
//
// Both parameters are bound to the same element at every iteration, so
// the value is the same. Vertical fusion leaves such pairs behind — a
// softmax written as ONNX operators divides e by the sum of e's rows, and
// composing the sum into the quotient gives zip (\a e1 -> ..) e e — and
// while they stay, the producer of X counts two consumers, which the
// policy refuses to recompute; merged, it has one and fuses.
type SameArg struct{}

// Name implements Rule.
func (SameArg) Name() string { return "same-arg" }

// Rewrite implements Rule.
func (SameArg) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	h, ok := asHOF(n)
	if !ok || len(h.args) < 2 {
		return nil, ErrNoMatch
	}
	sub := map[*graph.Var]graph.Node{}
	var params []*graph.Var
	var args []graph.Node
	for i, a := range h.args {
		j := 0
		for j < len(args) && args[j] != a {
			j++
		}
		if j < len(args) {
			sub[h.params[i]] = params[j]
			continue
		}
		params, args = append(params, h.params[i]), append(args, a)
	}
	if len(sub) == 0 {
		return nil, ErrNoMatch
	}
	body, err := graph.Substitute(h.body, sub)
	if err != nil {
		return nil, err
	}
	return (&hof{red: h.red, params: params, body: body, args: args}).build(n)
}
