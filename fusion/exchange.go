package fusion

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// exchange swaps a higher-order function h1 with the one, h2, that is the
// body of its function, flipping the layouts so the result is unchanged:
//
//	H1 (\a1..an -> H2 (\b1..bm -> h) Y1..Ym) X1..Xn
//	  = [flip 0] H2' (\b1'..bm' -> H1' (\a1'.. d.. -> h') X'..) Y1'..Ym'
//
// Each argument Yj of the inner function must either not depend on the
// outer elements a (it is traversed as it is: Yj' = Yj) or be a view of one
// of them, V(ap) (then the new outer loop traverses the matching slices of
// the whole array: Yj' = flip 0 (V' Xp), where V' is V with its axes moved
// one level out). The new inner loop traverses the outer arrays the body
// uses directly, and the slices of the views.
//
// By kinds (the paper's exchange laws):
//
//	map/map: the result is flipped (flip 0), the elements computed in the
//	         same order of operations — no law of h is needed;
//	map/rnz r: the new outer reduction combines whole rows: lift r (zip r);
//	rnz (lift r)/map: the inverse; the inner reduction is r;
//	rnz r/rnz r: both reductions must be the same operator, associative and
//	         commutative, since the terms are combined in another order.
func exchange(rule Rule, n graph.Node) (graph.Node, error) {
	h1, ok := asHOF(n)
	if !ok {
		return nil, ErrNoMatch
	}
	inner := h1.body
	h2, ok := asHOF(inner)
	if !ok {
		return nil, ErrNoMatch
	}
	isParam := map[*graph.Var]int{}
	for i, p := range h1.params {
		isParam[p] = i
	}
	dependsOnOuter := func(x graph.Node) bool {
		for _, v := range graph.FreeVars(x) {
			if _, ok := isParam[v]; ok {
				return true
			}
		}
		return false
	}
	if h2.red != nil && dependsOnOuter(h2.red) {
		return nil, refuse(rule, n, "the inner reduction operator depends on the outer element")
	}
	// Classify the inner arguments.
	type innerArg struct {
		view  bool // a view of an outer element
		param int  // which outer parameter, for a view
	}
	kinds := make([]innerArg, len(h2.args))
	for j, y := range h2.args {
		if !dependsOnOuter(y) {
			continue
		}
		p, ok := viewOf(y, isParam)
		if !ok {
			return nil, refuse(rule, n, "inner argument %d, %s, depends on the outer element other than as a view of it", j, graph.Abbrev(y, 30))
		}
		kinds[j] = innerArg{view: true, param: p}
	}

	// The reductions' laws.
	var newOuterRed, newInnerRed graph.Node
	switch {
	case !h1.isRNZ() && !h2.isRNZ():
	case !h1.isRNZ() && h2.isRNZ():
		lifted, err := graph.NewNZip(h2.red)
		if err != nil {
			return nil, err
		}
		newOuterRed = lifted
	case h1.isRNZ() && !h2.isRNZ():
		z, ok := h1.red.(*graph.NZip)
		if !ok || len(z.Args) != 0 {
			return nil, refuse(rule, n, "the outer reduction %s is not a lifted (zip) operator, so it does not combine the inner map's elements one by one", graph.Abbrev(h1.red, 30))
		}
		newInnerRed = z.Fn
	default:
		if !sameOperator(h1.red, h2.red) {
			return nil, refuse(rule, n, "the two reductions differ (%s and %s)", graph.Abbrev(h1.red, 20), graph.Abbrev(h2.red, 20))
		}
		alg := algebraOf(h1.red)
		if !alg.Associative || !alg.Commutative {
			return nil, refuse(rule, n, "the reduction %s is not known to be associative and commutative", graph.Abbrev(h1.red, 20))
		}
		newOuterRed, newInnerRed = h2.red, h1.red
	}

	// The new outer loop: one parameter per inner argument.
	outerParams := make([]*graph.Var, len(h2.args))
	outerArgs := make([]graph.Node, len(h2.args))
	for j, y := range h2.args {
		outerParams[j] = graph.NewVar(h2.params[j].Name)
		if !kinds[j].view {
			outerArgs[j] = y
			continue
		}
		whole, err := liftView(y, h1.args[kinds[j].param])
		if err != nil {
			return nil, refuse(rule, n, "cannot lift view %s to the whole array: %v", graph.Abbrev(y, 30), err)
		}
		if outerArgs[j], err = graph.NewFlip(0, 1, whole); err != nil {
			return nil, err
		}
	}

	// The new inner loop: the outer arrays the body uses directly, then the
	// slices of the views.
	sub := map[*graph.Var]graph.Node{}
	var innerParams []*graph.Var
	var innerArgs []graph.Node
	for i, a := range h1.params {
		if count, _ := occurrences(h2.body, a); count == 0 {
			continue
		}
		v := graph.NewVar(a.Name)
		innerParams = append(innerParams, v)
		innerArgs = append(innerArgs, h1.args[i])
		sub[a] = v
	}
	for j, b := range h2.params {
		if !kinds[j].view {
			sub[b] = outerParams[j]
			continue
		}
		d := graph.NewVar(b.Name)
		innerParams = append(innerParams, d)
		innerArgs = append(innerArgs, outerParams[j])
		sub[b] = d
	}
	if len(innerArgs) == 0 {
		// The inner body ignores the outer elements: still traverse the
		// first outer array, with an unused parameter, so the loop keeps
		// its extent.
		innerParams = append(innerParams, graph.NewVar(h1.params[0].Name))
		innerArgs = append(innerArgs, h1.args[0])
	}
	body, err := graph.Substitute(h2.body, sub)
	if err != nil {
		return nil, err
	}
	newInner, err := (&hof{red: newInnerRed, params: innerParams, body: body, args: innerArgs}).build(n)
	if err != nil {
		return nil, err
	}
	out, err := (&hof{red: newOuterRed, params: outerParams, body: newInner, args: outerArgs}).build(inner)
	if err != nil {
		return nil, err
	}
	if !h1.isRNZ() && !h2.isRNZ() {
		f, err := graph.NewFlip(0, 1, out)
		if err != nil {
			return nil, err
		}
		return keepSource(n, f), nil
	}
	return out, nil
}

// viewOf reports whether y is a chain of layout operations over one of the
// parameters, and which.
func viewOf(y graph.Node, params map[*graph.Var]int) (int, bool) {
	switch y := y.(type) {
	case *graph.Var:
		p, ok := params[y]
		return p, ok
	case graph.ViewNode:
		return viewOf(y.Operand(), params)
	}
	return 0, false
}

// liftView rebuilds the view chain y with the parameter at its root replaced
// by the whole array x whose elements the parameter ranges over: every axis
// moves one level in.
func liftView(y, x graph.Node) (graph.Node, error) {
	switch y := y.(type) {
	case *graph.Var:
		return x, nil
	case graph.ViewNode:
		inner, err := liftView(y.Operand(), x)
		if err != nil {
			return nil, err
		}
		return graph.NewView(y.View().Lift(), inner)
	}
	return nil, fmt.Errorf("%s is not a view", graph.Abbrev(y, 30))
}

// sameOperator reports whether two reduction operators are the same: the
// same op, or lifts of the same operator.
func sameOperator(a, b graph.Node) bool {
	switch a := a.(type) {
	case *graph.OpRef:
		b, ok := b.(*graph.OpRef)
		return ok && a.Op == b.Op
	case *graph.NZip:
		b, ok := b.(*graph.NZip)
		return ok && len(a.Args) == 0 && len(b.Args) == 0 && sameOperator(a.Fn, b.Fn)
	}
	return a == b
}

// algebraOf returns the laws a reduction operator obeys: those of the ops
// graph.Reducer recognises in it, leaf by leaf. Anything else obeys no law
// the rules may use.
func algebraOf(r graph.Node) graph.Algebra {
	red, ok := graph.Reducer(r, nil)
	if !ok {
		return graph.Algebra{}
	}
	return red.Algebra()
}
