package fusion

import "github.com/hofuse/hofuse/graph"

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
