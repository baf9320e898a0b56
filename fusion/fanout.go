package fusion

import "github.com/hofuse/hofuse/graph"

// FanOut merges repeated arguments of one nzip or rnz, the paper's
// fanOut:
//
//	nzip f .. x .. x ..  =  nzip (\.. a .. -> f .. a .. a ..) .. x ..
//
// After Product has put two traversals of the same array side by side, this
// makes them read it once. It always applies; it has no side condition.
type FanOut struct{}

// Name implements Rule.
func (FanOut) Name() string { return "fan-out" }

// Rewrite implements Rule.
func (FanOut) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	var fn graph.Node
	var args []graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(z) {
			return nil, ErrNoMatch
		}
		fn, args = z.Fn, z.Args
	case *graph.RNZ:
		fn, args = z.Fn, z.Args
	default:
		return nil, ErrNoMatch
	}
	first := map[graph.Node]int{}
	dup := false
	for i, a := range args {
		if _, ok := first[a]; ok {
			dup = true
			continue
		}
		first[a] = i
	}
	if !dup {
		return nil, ErrNoMatch
	}
	var params []*graph.Var
	var kept []graph.Node
	paramOf := map[graph.Node]*graph.Var{}
	call := make([]graph.Node, len(args))
	for i, a := range args {
		v, ok := paramOf[a]
		if !ok {
			v = graph.NewVar(paramName(fn, i, "x"))
			paramOf[a] = v
			params = append(params, v)
			kept = append(kept, a)
		}
		call[i] = v
	}
	body, err := apply(fn, call)
	if err != nil {
		return nil, err
	}
	l, err := graph.NewLambda(params, body)
	if err != nil {
		return nil, err
	}
	newFn := keepSource(fn, l)
	var out graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		out, err = graph.NewNZip(newFn, kept...)
	case *graph.RNZ:
		out, err = graph.NewRNZ(z.Red, newFn, kept...)
	}
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}
