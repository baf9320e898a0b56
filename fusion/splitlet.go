package fusion

import "github.com/hofuse/hofuse/graph"

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
