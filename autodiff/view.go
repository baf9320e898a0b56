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
// row-major array. A view without an inverse that viewCotangents does not
// know (first, which would need a scatter) is refused. xType is the type
// of x. It returns x and its cotangent.
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

// viewCotangents returns the contributions of the cotangent ct of the view
// n to its operand, whose type is xType; they add up to the operand's
// cotangent. A view with an inverse gives one (inverseView); the window,
// pad and crop views, which have none, give theirs as views too:
//
//	crop d lo hi x   ->  pad d lo hi ct
//	pad d lo hi x    ->  crop d lo hi ct (with interior padding n, every
//	                     (n+1)-th element of it: first (d+1) (window d 1 (n+1) ..))
//	window d w s dl x  ->  sum over k < w of
//	                     pad d (k*dl) (e-k*dl-(P-1)*s-1) (s-1) (first (d+1) (crop (d+1) k (w-1-k) ct))
//
// The last is the overlapping scatter-add (col2im): element (p, k) of the
// window is element p*s + k*dl of x, so column k of the cotangent (all
// positions p at element k) lands on x at k*dl, k*dl + s, ...: a pad with
// s-1 zeros between its elements, shifted by k*dl. Every element of x
// receives the cotangents of every window that reads it, summed; the w
// terms are maps and views, so they fuse like any other.
func viewCotangents(n graph.Node, xType graph.Type, ct *typed) ([]typed, error) {
	vn, ok := n.(graph.ViewNode)
	if !ok {
		return nil, fmt.Errorf("autodiff: internal error: %s is not a view", graph.Abbrev(n, 60))
	}
	xt, ok := xType.(*graph.ArrayType)
	if !ok {
		return nil, fmt.Errorf("autodiff: internal error: %s: operand type %v", graph.Abbrev(n, 60), xType)
	}
	if _, ok := vn.View().Inverse(xt.Layout); ok {
		_, c, err := inverseView(n, xType, ct)
		if err != nil {
			return nil, err
		}
		return []typed{c}, nil
	}
	at, ok := ct.t.(*graph.ArrayType)
	if !ok {
		return nil, fmt.Errorf("autodiff: internal error: %s: cotangent of type %v is not an array", graph.Abbrev(n, 60), ct.t)
	}
	// chain applies views in order to the cotangent.
	chain := func(c typed, vs ...graph.View) (typed, error) {
		for _, v := range vs {
			ct, ok := c.t.(*graph.ArrayType)
			if !ok {
				return typed{}, fmt.Errorf("autodiff: internal error: %s: %v is not an array", graph.Abbrev(n, 60), c.t)
			}
			l, err := v.Apply(ct.Layout)
			if err != nil {
				return typed{}, fmt.Errorf("autodiff: internal error: %s: cotangent view %s: %v", graph.Abbrev(n, 60), graph.ViewString(v), err)
			}
			t, err := graph.NewView(v, c.n)
			if err != nil {
				return typed{}, fmt.Errorf("autodiff: internal error: %s: %v", graph.Abbrev(n, 60), err)
			}
			c = typed{t, &graph.ArrayType{DType: ct.DType, Layout: l}}
		}
		return c, nil
	}
	switch v := vn.View().(type) {
	case graph.CropView:
		c, err := chain(*ct, graph.PadView{Axis: v.Axis, Lo: v.Lo, Hi: v.Hi})
		return []typed{c}, err
	case graph.PadView:
		vs := []graph.View{graph.CropView{Axis: v.Axis, Lo: v.Lo, Hi: v.Hi}}
		if v.Interior > 0 {
			vs = append(vs, graph.WindowView{Axis: v.Axis, Width: 1, Stride: v.Interior + 1, Dilation: 1}, graph.FirstView{Axis: v.Axis + 1})
		}
		c, err := chain(*ct, vs...)
		return []typed{c}, err
	case graph.WindowView:
		d := v.Axis
		e := xt.Layout[d].Extent
		p := at.Layout[d].Extent
		out := make([]typed, 0, v.Width)
		for k := range v.Width {
			c, err := chain(*ct,
				graph.CropView{Axis: d + 1, Lo: k, Hi: v.Width - 1 - k},
				graph.FirstView{Axis: d + 1},
				graph.PadView{Axis: d, Lo: k * v.Dilation, Hi: e - k*v.Dilation - (p-1)*v.Stride - 1, Interior: v.Stride - 1})
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	_, c, err := inverseView(n, xType, ct)
	if err != nil {
		return nil, err
	}
	return []typed{c}, nil
}
