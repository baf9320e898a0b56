package fusion

import "github.com/hofuse/hofuse/graph"

// Eta is η-reduction, which turns lambdas that only pass their parameters on
// into the function they pass them to, so that rules recognise reduction
// operators and patterns by shape:
//
//	\x0 .. xn -> f x0 .. xn    =  f      (f not mentioning the xi)
//	\a b -> a + b              =  (+)    (any scalar op, operands in order)
//	\a b -> zip f a b          =  zip f  (f not mentioning a, b)
//	\x -> x                    =  id
//	(fst p, snd p, .., proj n p) =  p      (p a tuple of n+1 components)
//
// The last is η for products: it undoes the tuple of projections that a
// product of reductions leaves when the reductions were a whole tuple.
type Eta struct{}

// Name implements Rule.
func (Eta) Name() string { return "eta" }

// Rewrite implements Rule.
func (Eta) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if t, ok := n.(*graph.Tuple); ok {
		return etaTuple(c, t)
	}
	l, ok := n.(*graph.Lambda)
	if !ok {
		return nil, ErrNoMatch
	}
	var fn graph.Node
	var args []graph.Node
	switch b := l.Body.(type) {
	case *graph.Var:
		if len(l.Params) == 1 && b == l.Params[0] {
			return keepSource(n, graph.NewIdent()), nil
		}
		return nil, ErrNoMatch
	case *graph.App:
		fn, args = b.Fn, b.Args
	case *graph.Call:
		op, err := graph.NewOpRef(b.Op)
		if err != nil {
			return nil, err
		}
		fn, args = keepSource(b, op), b.Args
	case *graph.NZip:
		if len(b.Args) != len(l.Params) {
			return nil, ErrNoMatch
		}
		partial, err := graph.NewNZip(b.Fn)
		if err != nil {
			return nil, err
		}
		fn, args = keepSource(b, partial), b.Args
	default:
		return nil, ErrNoMatch
	}
	if len(args) != len(l.Params) {
		return nil, ErrNoMatch
	}
	for i, a := range args {
		if a != graph.Node(l.Params[i]) {
			return nil, ErrNoMatch
		}
	}
	for _, v := range graph.FreeVars(fn) {
		for _, p := range l.Params {
			if v == p {
				return nil, ErrNoMatch
			}
		}
	}
	return fn, nil
}

// etaTuple rewrites (proj 0 p, .., proj n p) to p when p has n+1
// components.
func etaTuple(c *Context, t *graph.Tuple) (graph.Node, error) {
	var p graph.Node
	for i, e := range t.Elems {
		pr, ok := e.(*graph.Proj)
		if !ok || pr.Index != i || (p != nil && pr.X != p) {
			return nil, ErrNoMatch
		}
		p = pr.X
	}
	tt, ok := c.TypeOf(p).(*graph.TupleType)
	if !ok || len(tt.Elems) != len(t.Elems) {
		return nil, ErrNoMatch
	}
	return p, nil
}
