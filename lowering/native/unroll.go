package native

import (
	"github.com/hofuse/hofuse/graph"
)

// Two more normalisation rules turn a pooling's nest of short vector
// loops into one loop over its outputs, and preserve the term's value
// exactly:
//
//  5. Unrolling a short reduction. rnz R F x, where R is max, min or +
//     lifted over arrays and x has k ≤ maxUnroll rows (a pooling window's
//     rows, a row's columns, the ties counted in one), becomes
//     R (R (F x0) (F x1)) .. (F x(k-1)), the left fold rnz computes (and
//     the native loop, which stores the first and accumulates the rest in
//     order), with xi = first 0 (crop 0 i (k-1-i) x) the view of row i: a
//     loop of k steps, each a vector loop over the channels, becomes one
//     zip whose k operands the vector program loads side by side. A
//     reduction of several arrays (a convolution's products) is left to
//     the convolution and contraction forms.
//  6. Lifting views out of a map. nzip (\p1 .. pn -> nzip g B1 .. Bm)
//     A1 .. An, where every Bj is a chain of views of some parameter pk
//     and g does not mention the parameters, is nzip (nzip g) B1' .. Bm'
//     with Bj' the chain lifted one axis (View.Lift) applied to Ak: the
//     element i of Bj' is Bj with pk the element i of Ak. The map may be
//     wrapped in partial nzips, nzip (nzip .. (\p.. -> nzip g Bs)) As,
//     each lifting the chains once more. A max pooling over a batch,
//     written as maps over images and positions of a reduction over the
//     window, becomes after rule 5 one nest of zips over [batch,
//     positions, positions, channels], each window element a view of the
//     images: a single vector loop (rowsMap).

// maxUnroll is the most rows rule 5 unrolls: a 2×2 or 3×3 pooling
// window, 4×4 at most.
const maxUnroll = 4

// arrayType returns n's array type: recorded by the type check, an
// input's, or that of a view of a term whose array type is known. It is
// nil otherwise (a term a rule built whose type was not recorded).
func (nz *normalizer) arrayType(n graph.Node) *graph.ArrayType {
	var t graph.Type
	if in, ok := n.(*graph.Input); ok {
		t = in.Type
	} else {
		t = nz.info.TypeOf(n)
	}
	if at, ok := t.(*graph.ArrayType); ok {
		return at
	}
	if t != nil {
		return nil
	}
	v, x, ok := graph.AsView(n)
	if !ok {
		return nil
	}
	xt := nz.arrayType(x)
	if xt == nil {
		return nil
	}
	l, err := v.Apply(xt.Layout)
	if err != nil {
		return nil
	}
	return &graph.ArrayType{DType: xt.DType, Layout: l}
}

// unrollShort is rule 5; ok is false where n does not have its form.
func (nz *normalizer) unrollShort(n *graph.RNZ) (graph.Node, bool, error) {
	if len(n.Args) != 1 {
		return nil, false, nil
	}
	red, ok := graph.Reducer(n.Red, nil)
	if !ok || len(red.Ops) != 1 || (red.Ops[0] != graph.Max && red.Ops[0] != graph.Min && red.Ops[0] != graph.Add) {
		return nil, false, nil
	}
	x := n.Args[0]
	xt := nz.arrayType(x)
	// The rows must be arrays (first keeps rank 1 at least).
	if xt == nil || xt.Rank() < 2 {
		return nil, false, nil
	}
	k := xt.Layout[0].Extent
	if k < 2 || k > maxUnroll {
		return nil, false, nil
	}
	var acc graph.Node
	for i := range k {
		c, err := graph.NewView(graph.CropView{Axis: 0, Lo: i, Hi: k - 1 - i}, x)
		if err != nil {
			return nil, false, err
		}
		xi, err := graph.NewView(graph.FirstView{Axis: 0}, c)
		if err != nil {
			return nil, false, err
		}
		y, err := graph.NewApp(n.Fn, xi)
		if err != nil {
			return nil, false, err
		}
		if acc == nil {
			acc = y
			continue
		}
		if acc, err = graph.NewApp(n.Red, acc, y); err != nil {
			return nil, false, err
		}
	}
	return graph.WithSource(acc, n.Source()), true, nil
}

// liftViews is rule 6; ok is false where n does not have its form.
func (nz *normalizer) liftViews(n *graph.NZip) (graph.Node, bool, error) {
	// Down the partial nzips to the lambda.
	f, lifts := n.Fn, 1
	for {
		p, ok := f.(*graph.NZip)
		if !ok || !graph.IsFunc(p) || len(p.Args) != 0 {
			break
		}
		f, lifts = p.Fn, lifts+1
	}
	l, ok := f.(*graph.Lambda)
	if !ok || len(l.Params) != len(n.Args) {
		return nil, false, nil
	}
	inner, ok := l.Body.(*graph.NZip)
	if !ok || graph.IsFunc(inner) || len(inner.Args) == 0 || usesAny(inner.Fn, l.Params) {
		return nil, false, nil
	}
	param := map[*graph.Var]int{}
	for i, p := range l.Params {
		param[p] = i
	}
	args := make([]graph.Node, len(inner.Args))
	for j, b := range inner.Args {
		// The chain of views of b, outermost first, down to a parameter.
		var views []graph.View
		x := b
		for {
			v, y, ok := graph.AsView(x)
			if !ok {
				break
			}
			views = append(views, v)
			x = y
		}
		pv, ok := x.(*graph.Var)
		if !ok {
			return nil, false, nil
		}
		k, ok := param[pv]
		if !ok {
			return nil, false, nil
		}
		out := n.Args[k]
		for i := len(views) - 1; i >= 0; i-- {
			v := views[i]
			for range lifts {
				v = v.Lift()
			}
			w, err := graph.NewView(v, out)
			if err != nil {
				return nil, false, err
			}
			out = w
		}
		args[j] = out
	}
	g := inner.Fn
	for range lifts {
		p, err := graph.NewNZip(g)
		if err != nil {
			return nil, false, err
		}
		g = p
	}
	r, err := graph.NewNZip(g, args...)
	if err != nil {
		return nil, false, err
	}
	return graph.WithSource(r, n.Source()), true, nil
}
