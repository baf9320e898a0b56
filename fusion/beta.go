package fusion

import "github.com/hofuse/hofuse/graph"

// Beta is β-reduction:
//
//	(\x0 .. xn -> body) a0 .. an  =  body[x0 := a0, .., xn := an]
//
// and likewise for the other function terms: an applied op is a call, an
// applied section a call with its operand, id a its argument, an applied
// partial nzip a fuller nzip. A parameter used more than once, or inside an
// inner lambda, with a non-trivial argument is bound with let instead of
// substituted, so that no work is duplicated. Applications of variables bound
// to functions are left to InlineLet. β for products is here too:
//
//	fst (a, b)  =  a        snd (a, b)  =  b
//
// which drops the other components, dead code, as β drops an unused
// argument.
type Beta struct{}

// Name implements Rule.
func (Beta) Name() string { return "beta" }

// Rewrite implements Rule.
func (Beta) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if p, ok := n.(*graph.Proj); ok {
		if t, ok := p.X.(*graph.Tuple); ok && p.Index < len(t.Elems) {
			return t.Elems[p.Index], nil
		}
		return nil, ErrNoMatch
	}
	app, ok := n.(*graph.App)
	if !ok {
		return nil, ErrNoMatch
	}
	if _, isVar := app.Fn.(*graph.Var); isVar {
		return nil, ErrNoMatch
	}
	out, err := apply(app.Fn, app.Args)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}
