package stablehlo

import (
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
)

// reduceWindows recognises a pooling written over window views, the shape
// layers.MaxPool2D and AvgPool2D give for each image,
//
//	nzip (.. (\.. p .. -> .. nzip (\.. r .. -> E(rnz R F r)) .. p ..) ..) .. W ..
//
// with one nzip level per window position axis of W, W a chain of pads,
// windows and flips over a base array X whose every axis is windowed but
// at most one (the channels), and rnz R F r the reduction of a whole
// window r = [k1, .., kn, C] by one operator o, lifted over the channels:
// R is o (zip o with channels) and F reduces the remaining window axes
// the same way (reduce R, or \q -> rnz R F' q). Pads must fill with o's
// identity (-Inf for max, 0 for +, +Inf for min), so that they become
// reduce_window's padding, whose reads are the initial value. The other
// arguments of the nzips (an average's divisors) and the terms around the
// reduction stay as they are: n is lowered as usual with the reductions
// read off one stablehlo.reduce_window of X (its loop levels merged into a
// batch dimension), and the im2col of W, no longer read, is dead code XLA
// drops. Dilated windows are left to the im2col: go-xla writes a
// reduce_window's window dilations as its base dilations too. ok is false
// when n is not of this shape.
func (l *lowerer) reduceWindows(n *graph.NZip, e *env) (out *val, ok bool, err error) {
	// The window chain among n's arguments.
	idx, npos := -1, 0
	var views []graph.View
	var base graph.Node
	for i, a := range n.Args {
		vs, b := conv.ViewChain(a)
		k := 0
		for _, v := range vs {
			if _, ok := v.(graph.WindowView); ok {
				k++
			}
		}
		if k > 0 {
			idx, npos, views, base = i, k, vs, b
			break
		}
	}
	if idx < 0 {
		return nil, false, nil
	}
	// Down the levels of positions to the function of each window.
	levels := 1
	var vars []*graph.Var
	var win *graph.Var
	var final graph.Node
	fn := n.Fn
	for win == nil {
		switch f := fn.(type) {
		case *graph.NZip:
			if !graph.IsFunc(f) || levels == npos {
				return nil, false, nil
			}
			for _, a := range f.Args {
				if conv.UsesAny(a, vars) {
					return nil, false, nil
				}
			}
			idx += len(f.Args)
			fn = f.Fn
			levels++
		case *graph.Lambda:
			if idx >= len(f.Params) {
				return nil, false, nil
			}
			p := f.Params[idx]
			vars = append(vars, p)
			if levels == npos {
				win, final = p, f.Body
				continue
			}
			inner, j := passesOn(f.Body, p)
			if inner == nil {
				return nil, false, nil
			}
			fn, idx = inner.Fn, j
			levels++
		default:
			return nil, false, nil
		}
	}
	// The reductions of the window in E, by one operator and to the same
	// depth; the window is read nowhere else.
	var reds []graph.Node
	var op graph.Op
	depth, lift := -1, -1
	bad := false
	graph.Inspect(final, func(m graph.Node) bool {
		if bad {
			return false
		}
		rn, ok := m.(*graph.RNZ)
		if !ok || len(rn.Args) != 1 || rn.Args[0] != graph.Node(win) {
			return true
		}
		o, d, lf, ok := windowReduction(rn, e)
		if !ok || (depth >= 0 && (o != op || d != depth || lf != lift)) {
			bad = true
			return false
		}
		op, depth, lift = o, d, lf
		reds = append(reds, m)
		return false
	})
	if bad || len(reds) == 0 || usesVarOutside(final, win, reds) {
		return nil, false, nil
	}
	var fill graph.Fill
	switch op {
	case graph.Max:
		fill = graph.FillNegInf
	case graph.Add:
		fill = graph.FillZero
	case graph.Min:
		fill = graph.FillPosInf
	default:
		return nil, false, nil
	}
	x, err := l.value(base, e)
	if err != nil {
		return nil, true, err
	}
	if x.tuple != nil || x.untyped || len(x.shape) == 0 || (x.dt != graph.Float32 && x.dt != graph.Float64) {
		return nil, false, nil
	}
	g, err := conv.WindowGeometry(views, len(x.shape), fill)
	if err != nil || len(g.Positions) != npos || depth != npos || lift != len(g.Inner)-npos {
		return nil, false, nil
	}
	for i, a := range g.Inner {
		if (i < npos) != (a.Kind == conv.Element) {
			return nil, false, nil
		}
	}
	for _, w := range g.Windows {
		if w.Dilation != 1 {
			return nil, false, nil
		}
	}
	xt, xlevels, err := l.dense(x)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	// The input [batch, X's axes]; the window covers one element of the
	// batch and of the channels.
	batch := 1
	var bdims []int
	for _, lv := range xlevels {
		batch *= l.extents[lv]
		bdims = append(bdims, l.extents[lv])
	}
	in := append([]int{batch}, x.shape...)
	if xt, err = l.reshapeTo(x.dt, xt, in); err != nil {
		return nil, true, l.wrap(n, err)
	}
	rank := len(in)
	wdims, strides, wdil := make([]int, rank), make([]int, rank), make([]int, rank)
	pads := make([][2]int, rank)
	for i := range rank {
		wdims[i], strides[i], wdil[i] = 1, 1, 1
		if w, ok := g.Windows[i-1]; ok && i > 0 {
			wdims[i], strides[i] = w.Width, w.Stride
			pads[i] = g.Pads[i-1]
		}
	}
	iv, err := identity(op, x.dt)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	init, err := l.constant(x.dt, iv)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	region := l.fn.Closure()
	s, err := l.shape(x.dt, nil)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	lhs, err := region.Input(s)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	rhs, err := region.Input(s)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	r, err := scalarOps[op].binary(lhs, rhs)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	if err := region.Return(r); err != nil {
		return nil, true, l.wrap(n, err)
	}
	rw, err := shlo.ReduceWindow(xt, init.factors[0].t, region, wdims, strides, nil, wdil, pads)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	// [batch, X's axes] to [batch, positions in the levels' order,
	// channels], then the batch split back into X's loop levels.
	perm := []int{0}
	for _, p := range g.Positions {
		perm = append(perm, 1+p.Base)
	}
	var shape, axes []int
	if g.Channel >= 0 {
		perm = append(perm, 1+g.Channel)
		shape, axes = []int{x.shape[g.Channel]}, []int{0}
	}
	if !slices.Equal(perm, seq(rank)) {
		if rw, err = shlo.Transpose(rw, perm...); err != nil {
			return nil, true, l.wrap(n, err)
		}
	}
	odims := append(slices.Clone(bdims), rw.Shape().Dimensions[1:]...)
	if rw, err = l.reshapeTo(x.dt, rw, odims); err != nil {
		return nil, true, l.wrap(n, err)
	}
	first := len(l.extents)
	rlevels := slices.Clone(xlevels)
	for i := range npos {
		rlevels = append(rlevels, first+i)
	}
	rv := &val{dt: x.dt, shape: shape, factors: []factor{{t: rw, levels: rlevels, axes: axes}}}
	out, err = l.nzipWith(n, e, reds, rv)
	return out, true, err
}

// passesOn finds, under lets that do not read p, the nzip body traverses
// p with (an argument exactly p, the others and its function free of p),
// and returns it with p's index; nil when body is not of that shape.
func passesOn(body graph.Node, p *graph.Var) (*graph.NZip, int) {
	for {
		lt, ok := body.(*graph.Let)
		if !ok {
			break
		}
		if conv.UsesVar(lt.Value, p) {
			return nil, 0
		}
		body = lt.Body
	}
	nz, ok := body.(*graph.NZip)
	if !ok || graph.IsFunc(nz) || conv.UsesVar(nz.Fn, p) {
		return nil, 0
	}
	j := -1
	for i, a := range nz.Args {
		switch {
		case a == graph.Node(p) && j < 0:
			j = i
		case conv.UsesVar(a, p):
			return nil, 0
		}
	}
	if j < 0 {
		return nil, 0
	}
	return nz, j
}

// windowReduction returns the operator, the depth and the lifting of
// rn = rnz R F r when it reduces the leading depth axes of r by one
// operator lifted the same at every depth: R is o lifted (zip o, zip (zip
// o), ..) and F is id or \q -> q (depth 1) or \q -> such a reduction of
// q.
func windowReduction(rn *graph.RNZ, e *env) (graph.Op, int, int, bool) {
	red, ok := graph.Reducer(rn.Red, e)
	if !ok || len(red.Ops) != 1 || len(rn.Args) != 1 {
		return 0, 0, 0, false
	}
	op, lift := red.Ops[0], red.Lifts[0]
	switch f := rn.Fn.(type) {
	case *graph.Ident:
		return op, 1, lift, true
	case *graph.Lambda:
		if len(f.Params) != 1 {
			return 0, 0, 0, false
		}
		if f.Body == graph.Node(f.Params[0]) {
			return op, 1, lift, true
		}
		in, ok := f.Body.(*graph.RNZ)
		if !ok || len(in.Args) != 1 || in.Args[0] != graph.Node(f.Params[0]) ||
			conv.UsesVar(in.Red, f.Params[0]) || conv.UsesVar(in.Fn, f.Params[0]) {
			return 0, 0, 0, false
		}
		o, d, lf, ok := windowReduction(in, e)
		if !ok || o != op || lf != lift {
			return 0, 0, 0, false
		}
		return op, d + 1, lift, true
	}
	return 0, 0, 0, false
}

// usesVarOutside reports whether v occurs in n outside the terms skip.
func usesVarOutside(n graph.Node, v *graph.Var, skip []graph.Node) bool {
	found := false
	graph.Inspect(n, func(m graph.Node) bool {
		if found || slices.Contains(skip, m) {
			return false
		}
		if m == graph.Node(v) {
			found = true
		}
		return !found
	})
	return found
}
