package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// SinkView moves a layout operation that a function applies to one of its
// parameters into the array the higher-order function traverses:
//
//	nzip (\.. p .. -> ..V p..) .. X ..  =  nzip (\.. p .. -> ..p..) .. V' X ..
//
// and likewise for rnz, where V' is V with its axes moved one level in, so
// that element i of V' X is V (X[i]). Exchanges leave such views on lambda
// parameters; sinking them makes the arrays each loop traverses readable
// from the arguments alone (the paper's A(1b) = flip 0 (subdiv 1 b A)).
// Side condition: every use of p is the same view of it.
type SinkView struct{}

// Name implements Rule.
func (SinkView) Name() string { return "sink-view" }

// Rewrite implements Rule.
func (SinkView) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	h, ok := asHOF(n)
	if !ok {
		return nil, ErrNoMatch
	}
	if _, isLambda := fnOf(n).(*graph.Lambda); !isLambda {
		return nil, ErrNoMatch
	}
	for i, p := range h.params {
		view, ok := onlyView(h.body, p)
		if !ok {
			continue
		}
		lifted, err := liftView(view, h.args[i])
		if err != nil {
			return nil, err
		}
		body, err := replace(h.body, map[graph.Node]graph.Node{view: p})
		if err != nil {
			return nil, err
		}
		args := append([]graph.Node(nil), h.args...)
		args[i] = lifted
		return (&hof{red: h.red, params: h.params, body: body, args: args}).build(n)
	}
	return nil, ErrNoMatch
}

func fnOf(n graph.Node) graph.Node {
	switch n := n.(type) {
	case *graph.NZip:
		return n.Fn
	case *graph.RNZ:
		return n.Fn
	}
	return nil
}

// onlyView returns the view of p that body uses, when every use of p is
// that one view node (a chain of layout operations ending in p).
func onlyView(body graph.Node, p *graph.Var) (graph.Node, bool) {
	var view graph.Node
	ok := true
	var walk func(n graph.Node, parentIsView bool)
	walk = func(n graph.Node, parentIsView bool) {
		if !ok {
			return
		}
		switch v := n.(type) {
		case *graph.Var:
			if v == p && !parentIsView {
				ok = false
			}
			return
		case graph.ViewNode:
			if !parentIsView && rootedAt(n, p) {
				if view != nil && view != n {
					ok = false
					return
				}
				view = n
			}
			walk(graph.Children(n)[0], true)
			return
		}
		for _, k := range graph.Children(n) {
			walk(k, false)
		}
	}
	walk(body, false)
	return view, ok && view != nil
}

// rootedAt reports whether n is a chain of layout operations over p.
func rootedAt(n graph.Node, p *graph.Var) bool {
	switch v := n.(type) {
	case *graph.Var:
		return v == p
	case graph.ViewNode:
		return rootedAt(v.Operand(), p)
	}
	return false
}
