package autodiff

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// inverseView is the rule for views: the cotangent of a view of x is the
// inverse view (graph.View's Inverse on x's layout) of the view's
// cotangent, a view again, with no copy where the layout allows:
//
//	subdiv d b x  ->  flatten d ct
//	flatten d x   ->  subdiv d e ct, e the extent of axis d+1 of x
//	flip d1 d2 x  ->  flip d1 d2 ct
//
// Where the cotangent's layout does not allow the inverse (a flatten of
// axes a flip made non-contiguous), the cotangent is first copied into a
// row-major array. A view without an inverse (one that shows an element at
// several places, as a sliding window will) is refused: its cotangent is a
// scatter-add this package does not build yet. xType is the type of x. It
// returns x and its cotangent.
func inverseView(n graph.Node, xType graph.Type, ct *typed) (graph.Node, typed, error) {
	at, ok := ct.t.(*graph.ArrayType)
	if !ok {
		return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: cotangent of type %v is not an array", graph.Abbrev(n, 60), ct.t)
	}
	vn, ok := n.(graph.ViewNode)
	if !ok {
		return nil, typed{}, fmt.Errorf("autodiff: internal error: %s is not a view", graph.Abbrev(n, 60))
	}
	xt, ok := xType.(*graph.ArrayType)
	if !ok {
		return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: operand type %v", graph.Abbrev(n, 60), xType)
	}
	inv, ok := vn.View().Inverse(xt.Layout)
	if !ok {
		return nil, typed{}, fmt.Errorf("autodiff: %s: the view %s has no inverse, so its gradient (a scatter-add) is not supported", graph.Abbrev(n, 60), graph.ViewString(vn.View()))
	}
	x := ct.n
	l, err := inv.Apply(at.Layout)
	if err != nil {
		x = copyOf(ct.n, at)
		if l, err = inv.Apply(graph.RowMajor(at.Layout.Extents()...)); err != nil {
			return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
		}
	}
	v, err := graph.NewView(inv, x)
	if err != nil {
		return nil, typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
	}
	return vn.Operand(), typed{v, &graph.ArrayType{DType: at.DType, Layout: l}}, nil
}
