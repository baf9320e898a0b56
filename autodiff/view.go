package autodiff

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// inverseView is the rule for the layout operations: the cotangent of a
// view of x is the inverse view of the view's cotangent, a view again, with
// no copy where the layout allows:
//
//	subdiv d b x  ->  flatten d ct
//	flatten d x   ->  subdiv d e ct, e the extent of axis d+1 of x
//	flip d1 d2 x  ->  flip d1 d2 ct
//
// flatten is legal only on two contiguous axes; where the cotangent's
// layout does not allow it (it went through a flip), the cotangent is first
// copied into a row-major array. xType is the type of x. It returns x and
// its cotangent.
//
// This is the one place that knows the three view kinds; it is meant to
// become graph.View's inverse once graph has that interface.
func inverseView(n graph.Node, xType graph.Type, ct *typed) (graph.Node, typed, error) {
	at, ok := ct.t.(*graph.ArrayType)
	if !ok {
		return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: cotangent of type %v is not an array", graph.Abbrev(n, 60), ct.t)
	}
	switch n := n.(type) {
	case *graph.Subdiv:
		x, src := ct.n, at
		l, err := src.Layout.Flatten(n.Axis)
		if err != nil {
			src = graph.ArrayOf(at.DType, at.Layout.Extents()...)
			x = copyOf(ct.n, at)
			if l, err = src.Layout.Flatten(n.Axis); err != nil {
				return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
			}
		}
		return n.X, typed{must(graph.NewFlatten(n.Axis, x)), &graph.ArrayType{DType: at.DType, Layout: l}}, nil
	case *graph.Flatten:
		xt, ok := xType.(*graph.ArrayType)
		if !ok || n.Axis+1 >= xt.Rank() {
			return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: operand type %v", graph.Abbrev(n, 60), xType)
		}
		b := xt.Layout[n.Axis+1].Extent
		l, err := at.Layout.Subdiv(n.Axis, b)
		if err != nil {
			return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
		}
		return n.X, typed{must(graph.NewSubdiv(n.Axis, b, ct.n)), &graph.ArrayType{DType: at.DType, Layout: l}}, nil
	case *graph.Flip:
		l, err := at.Layout.Flip(n.Axis1, n.Axis2)
		if err != nil {
			return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
		}
		return n.X, typed{must(graph.NewFlip(n.Axis1, n.Axis2, ct.n)), &graph.ArrayType{DType: at.DType, Layout: l}}, nil
	}
	return nil, typed{}, fmt.Errorf("autodiff: internal error: %s is not a view", graph.Abbrev(n, 60))
}
