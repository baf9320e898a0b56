package fusion

import "github.com/hofuse/hofuse/graph"

// SplitLet names the costly arrays a cheap map reads, so that the map itself
// is inlined into its uses while the arrays are computed once:
//
//	let x = nzip f e0 .. en in body
//	  =  let t0 = e0 in .. let tn = en in body[x := nzip f t0 .. tn]
//
// where only the non-trivial ei are named (a trivial one stays in place).
// Side condition: f is cheap (see InlineLet), x is used more than once or
// inside a lambda (used once, inline-let fuses the map as it is), and some
// ei is not trivial.
//
// Naming the arrays and inlining the map are one step, not two: were the
// map left bound to x, inline-let would see each ti used once, outside any
// lambda, and put it back where it came from — the two rules would undo
// each other forever. In one step the ti are used wherever x was, and the
// let of x, whose value's size bounds the values of the new lets, is gone
// (the termination argument in the package doc).
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
	if !ok || graph.IsFunc(z) || !cheapFn(z.Fn) {
		return nil, ErrNoMatch
	}
	if count, under := c.occurrences(let.Body, let.Var); count <= 1 && !under {
		return nil, ErrNoMatch // used once: inline-let fuses it as it is
	}
	args := append([]graph.Node(nil), z.Args...)
	var names []*graph.Var
	var values []graph.Node
	for i, a := range args {
		if trivial(a) {
			continue
		}
		t := graph.NewVar(let.Var.Name + "_arg")
		args[i] = t
		names = append(names, t)
		values = append(values, a)
	}
	if len(names) == 0 {
		return nil, ErrNoMatch // a cheap map over trivial arrays: inline-let inlines it
	}
	m, err := graph.NewNZip(z.Fn, args...)
	if err != nil {
		return nil, err
	}
	out, err := graph.Substitute(let.Body, map[*graph.Var]graph.Node{let.Var: keepSource(z, m)})
	if err != nil {
		return nil, err
	}
	for k := len(names) - 1; k >= 0; k-- {
		l, err := graph.NewLet(names[k], values[k], out)
		if err != nil {
			return nil, err
		}
		out = keepSource(let, l)
	}
	return out, nil
}
