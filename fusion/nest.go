package fusion

import (
	"fmt"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// hof is a higher-order function node taken apart: its kind, reduction
// operator, function in lambda form, and arguments.
type hof struct {
	node   graph.Node   // the *graph.NZip or *graph.RNZ
	red    graph.Node   // the reduction operator; nil for an nzip
	params []*graph.Var // the function's parameters
	body   graph.Node   // the function's body
	args   []graph.Node // the traversed arrays
}

func (h *hof) isRNZ() bool { return h.red != nil }

// asHOF takes apart a fully applied nzip or rnz, putting a function that is
// not a lambda (an op, a section) into lambda form with fresh parameters.
func asHOF(n graph.Node) (*hof, bool) {
	var fn, red graph.Node
	var args []graph.Node
	switch z := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(z) {
			return nil, false
		}
		fn, args = z.Fn, z.Args
	case *graph.RNZ:
		fn, red, args = z.Fn, z.Red, z.Args
	default:
		return nil, false
	}
	if l, ok := fn.(*graph.Lambda); ok && len(l.Params) == len(args) {
		return &hof{node: n, red: red, params: l.Params, body: l.Body, args: args}, true
	}
	params := make([]*graph.Var, len(args))
	vars := make([]graph.Node, len(args))
	for i := range args {
		params[i] = graph.NewVar(fmt.Sprintf("x%d", i))
		vars[i] = params[i]
	}
	body, err := apply(fn, vars)
	if err != nil {
		return nil, false
	}
	return &hof{node: n, red: red, params: params, body: body, args: args}, true
}

// build makes the node back from its parts, keeping the source of like.
func (h *hof) build(like graph.Node) (graph.Node, error) {
	l, err := graph.NewLambda(h.params, h.body)
	if err != nil {
		return nil, err
	}
	var fn graph.Node = l
	if like != nil {
		fn = keepSource(like, l)
	}
	var out graph.Node
	if h.red != nil {
		out, err = graph.NewRNZ(h.red, fn, h.args...)
	} else {
		out, err = graph.NewNZip(fn, h.args...)
	}
	if err != nil {
		return nil, err
	}
	if like != nil {
		out = keepSource(like, out)
	}
	return out, nil
}

// Level is one loop of a kernel's nest: the higher-order function that runs
// it and the arrays it traverses.
type Level struct {
	Kind string   // "map", "zip", "nzip" or "rnz"
	Args []string // the traversed arrays, in the notation
	Node graph.Node
}

func (l Level) String() string {
	parts := []string{l.Kind}
	for _, a := range l.Args {
		if strings.ContainsAny(a, " ") {
			a = "(" + a + ")"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// Nest returns the loop nest of a term: the chain of higher-order functions
// from the outermost inwards, following each function's body to the first
// higher-order function in it (through lets, views and scalar epilogues).
func Nest(term graph.Node) []Level {
	var out []Level
	n := spineHOF(term)
	for n != nil {
		h, ok := asHOF(n)
		if !ok {
			break
		}
		out = append(out, newLevel(n, h))
		n = spineHOF(h.body)
	}
	return out
}

// spineHOF finds the first higher-order function in n, looking through
// lets, layout operations, tuples and calls, but not into lambdas.
func spineHOF(n graph.Node) graph.Node {
	switch n := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(n) {
			return nil
		}
		if isCopy(n) {
			return spineHOF(n.Args[0]) // map id copies; it is no loop of the nest
		}
		return n
	case *graph.RNZ:
		return n
	case *graph.Lambda, *graph.Input, *graph.Var, *graph.Const, *graph.OpRef, *graph.Ident, *graph.Section:
		return nil
	case *graph.Let:
		if h := spineHOF(n.Body); h != nil {
			return h
		}
		return spineHOF(n.Value)
	}
	for _, c := range graph.Children(n) {
		if h := spineHOF(c); h != nil {
			return h
		}
	}
	return nil
}

// isCopy reports whether n is map id x, the IR's explicit copy.
func isCopy(n *graph.NZip) bool {
	_, id := n.Fn.(*graph.Ident)
	return id && len(n.Args) == 1
}

// NestOrder writes a term's loops outermost first: "map x > nzip (flip 0
// W) b > rnz r c"; a loop whose body runs several loops writes them in
// parentheses, separated by semicolons (NestTree): "map X > (map x > zip
// r cs; map (flip 0 x) > rnz id col)".
func NestOrder(term graph.Node) string {
	roots := NestTree(term)
	if len(roots) == 0 {
		return "(no loops)"
	}
	return treeOrder(roots)
}

func treeOrder(ts []*LoopTree) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Level.String()
		switch len(t.Children) {
		case 0:
		case 1:
			parts[i] += " > " + treeOrder(t.Children)
		default:
			parts[i] += " > (" + treeOrder(t.Children) + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// lambdaForm rewrites term so that every fully applied nzip and rnz has a
// lambda of its arity for its function (asHOF's form), except a copy (map
// id). It computes the same value with the same loops, and a check types
// every loop and every loop variable in it: in map (map f) x, the inner
// map's argument is a parameter of the outer lambda, where before it was a
// variable asHOF made that no check had seen. The cost model reads loop
// extents and strides from those types.
func lambdaForm(term graph.Node) (graph.Node, error) {
	return graph.Rewriter{Pre: func(n graph.Node) (graph.Node, bool, error) {
		switch z := n.(type) {
		case *graph.NZip:
			if graph.IsFunc(z) || isCopy(z) {
				return n, true, nil
			}
			if l, ok := z.Fn.(*graph.Lambda); ok && len(l.Params) == len(z.Args) {
				return n, true, nil
			}
		case *graph.RNZ:
			if l, ok := z.Fn.(*graph.Lambda); ok && len(l.Params) == len(z.Args) {
				return n, true, nil
			}
		default:
			return n, true, nil
		}
		h, ok := asHOF(n)
		if !ok {
			return n, true, nil
		}
		out, err := h.build(n)
		if err != nil {
			return nil, false, err
		}
		return out, true, nil
	}}.Rewrite(term)
}
