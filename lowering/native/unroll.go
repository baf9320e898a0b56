package native

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
)

// Four more normalisation rules turn a pooling's nests of short vector
// loops into loops over all its positions, and preserve the term's value
// exactly (rules 7 and 8 are stated at fissionLet and exchangeMap):
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
//     images: a single vector loop (rowsMap). An Ak that computes (the
//     convolution a fused pooling reads) and that several Bj' read is
//     bound by a let around the result, so that it is computed once.
//  7. Let fission under a map: a small let whose value rule 6 can lift
//     is computed for all the map's elements first (fissionLet).
//  8. Exchanging a short map over a window's axes with the longer map of
//     positions around it (exchangeMap). With 7, max pooling's gradient
//     runs a few loops over all positions instead of about fifteen short
//     ones per position.
//
// Rules 6 to 8 leave functions that reduce where they are, for the
// convolution and contraction forms.

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

// mapNest peels the partial nzips that wrap the function of the nzip n:
// nzip (nzip .. (\ps -> body)) As, with levels nzips in all (n's own
// included). ok is false where the function under them is not a lambda
// taking one parameter per argument of n.
func mapNest(n *graph.NZip) (l *graph.Lambda, levels int, ok bool) {
	f, under := graph.UnderZips(n.Fn)
	l, ok = f.(*graph.Lambda)
	if !ok || graph.IsFunc(n) || len(l.Params) != len(n.Args) {
		return nil, 0, false
	}
	return l, under + 1, true
}

// paramViews returns the chain of views b applies to one of params,
// innermost first (conv.ViewChain), and that parameter's index; ok is
// false where b is not such a chain.
func paramViews(b graph.Node, params []*graph.Var) (views []graph.View, k int, ok bool) {
	views, x := conv.ViewChain(b)
	pv, isVar := x.(*graph.Var)
	if !isVar {
		return nil, 0, false
	}
	k = slices.Index(params, pv)
	return views, k, k >= 0
}

// applyLifted applies views (innermost first) to x, each lifted by
// levels axes.
func applyLifted(views []graph.View, levels int, x graph.Node) (graph.Node, error) {
	for _, v := range views {
		for range levels {
			v = v.Lift()
		}
		w, err := graph.NewView(v, x)
		if err != nil {
			return nil, err
		}
		x = w
	}
	return x, nil
}

// liftable reports whether e is an nzip (with arguments) of a function
// that does not mention params over views of params alone: the form rule
// 6 lifts out of a map over params. A function that reduces (a
// convolution over the windows of an image) is left in its map: the
// convolution forms run it image by image, each image's padded copy in
// cache, where lifted it would be one product over the whole batch.
func liftable(e graph.Node, params []*graph.Var) (*graph.NZip, bool) {
	inner, ok := e.(*graph.NZip)
	if !ok || graph.IsFunc(inner) || len(inner.Args) == 0 || usesAny(inner.Fn, params) || reduces(inner.Fn) {
		return nil, false
	}
	for _, b := range inner.Args {
		if _, _, ok := paramViews(b, params); !ok {
			return nil, false
		}
	}
	return inner, true
}

// liftViews is rule 6; ok is false where n does not have its form.
func (nz *normalizer) liftViews(n *graph.NZip) (graph.Node, bool, error) {
	l, levels, ok := mapNest(n)
	if !ok {
		return nil, false, nil
	}
	inner, ok := liftable(l.Body, l.Params)
	if !ok {
		return nil, false, nil
	}
	// An argument that computes (a convolution whose output a pooling
	// reads through its window's views) and that several views read is
	// bound by a let around the result, to be computed once, not once
	// per view.
	reads := make([]int, len(n.Args))
	for _, b := range inner.Args {
		_, k, _ := paramViews(b, l.Params)
		reads[k]++
	}
	nargs := slices.Clone(n.Args)
	bound := make([]bool, len(n.Args))
	for k, a := range nargs {
		if reads[k] > 1 && !trivial(a) {
			nargs[k], bound[k] = graph.NewVar("a"), true
		}
	}
	args := make([]graph.Node, len(inner.Args))
	for j, b := range inner.Args {
		views, k, _ := paramViews(b, l.Params)
		a, err := applyLifted(views, levels, nargs[k])
		if err != nil {
			return nil, false, err
		}
		args[j] = a
	}
	g, err := graph.LiftZips(inner.Fn, levels)
	if err != nil {
		return nil, false, err
	}
	z, err := graph.NewNZip(g, args...)
	if err != nil {
		return nil, false, err
	}
	r := graph.WithSource(z, n.Source())
	for k := len(nargs) - 1; k >= 0; k-- {
		if bound[k] {
			if r, err = graph.NewLet(nargs[k].(*graph.Var), n.Args[k], r); err != nil {
				return nil, false, err
			}
		}
	}
	return r, true, nil
}

// maxFission is the most elements rule 7 takes a let's value to have (the
// elements of its operands): a window's channels, not a row of a
// LayerNorm, whose values the row's loop keeps in registers.
const maxFission = 1024

// fissionLet is rule 7: a let under a map whose value rule 6 can lift,
//
//	nzip .. (\ps -> let s = nzip g Bs in E) As
//	  = let S = nzip .. (\ps -> nzip g Bs) As in nzip .. (\ps s -> E) As S
//
// computes the values for all the map's elements first, into S (one more
// argument of the map, whose elements the lambda's s now takes), so that
// the loop over them becomes one vector loop instead of one short loop
// per element. The value must be small (maxFission elements at most, by
// the type of an operand). ok is false where n does not have this form.
func (nz *normalizer) fissionLet(n *graph.NZip) (graph.Node, bool, error) {
	l, levels, ok := mapNest(n)
	if !ok {
		return nil, false, nil
	}
	let, ok := l.Body.(*graph.Let)
	if !ok {
		return nil, false, nil
	}
	value, ok := liftable(let.Value, l.Params)
	if !ok {
		return nil, false, nil
	}
	// Small values only: S holds one for every element of the map.
	size := 0
	for _, b := range value.Args {
		if bt := nz.arrayType(b); bt != nil {
			size = bt.Layout.Size()
			break
		}
	}
	if size == 0 || size > maxFission {
		return nil, false, nil
	}
	first, err := graph.NewLambda(l.Params, let.Value)
	if err != nil {
		return nil, false, err
	}
	ff, err := graph.LiftZips(first, levels-1)
	if err != nil {
		return nil, false, err
	}
	sv, err := graph.NewNZip(ff, n.Args...)
	if err != nil {
		return nil, false, err
	}
	S := graph.NewVar(let.Var.Name + "s")
	rest, err := graph.NewLambda(append(slices.Clone(l.Params), let.Var), let.Body)
	if err != nil {
		return nil, false, err
	}
	rf, err := graph.LiftZips(rest, levels-1)
	if err != nil {
		return nil, false, err
	}
	body, err := graph.NewNZip(rf, append(slices.Clone(n.Args), graph.Node(S))...)
	if err != nil {
		return nil, false, err
	}
	r, err := graph.NewLet(S, graph.WithSource(sv, n.Source()), graph.WithSource(body, n.Source()))
	if err != nil {
		return nil, false, err
	}
	return r, true, nil
}

// exchangeMap is rule 8: a short map over views of a long map's
// parameters, whose function reads the long map's other parameters,
//
//	nzip^L (\ps -> nzip F V1(p_k1) .. Vm(p_km)) As
//	  = move 0 L (nzip (\Q1 .. Qm -> nzip^L (\ps r1 .. rm -> F r1 .. rm) As Q1 .. Qm)
//	                  (move L 0 (V1'(A_k1))) .. (move L 0 (Vm'(A_km))))
//
// with F = \r1 .. rm -> body and Vi' the chain Vi lifted L axes (move d e
// a chain of flips taking axis d to e): the short map becomes the outer
// one, and the long map, over all of the As, its body, which rules 6 and
// 7 then turn into loops over all the long map's elements. The short map
// has at most maxUnroll elements and the long one more (a map as short as
// the one it would move out, a window's rows over its columns, is left as
// it is).
// An argument of the long map that computes (a copy, a pad) is bound by a
// let around the result, so that moving under the short map's lambda does
// not compute it once per short element. ok is false where n does not
// have this form.
func (nz *normalizer) exchangeMap(n *graph.NZip) (graph.Node, bool, error) {
	l, levels, ok := mapNest(n)
	if !ok {
		return nil, false, nil
	}
	inner, ok := l.Body.(*graph.NZip)
	if !ok || graph.IsFunc(inner) || len(inner.Args) == 0 {
		return nil, false, nil
	}
	if !usesAny(inner.Fn, l.Params) || !nz.producesArray(inner.Fn) || reduces(inner.Fn) {
		return nil, false, nil
	}
	f, ok := inner.Fn.(*graph.Lambda)
	if !ok {
		// A function written without a lambda (map g, eta reduced):
		// \r1 .. rm -> F r1 .. rm.
		rs := make([]*graph.Var, len(inner.Args))
		args := make([]graph.Node, len(rs))
		for j := range rs {
			rs[j] = graph.NewVar("r")
			args[j] = rs[j]
		}
		app, err := graph.NewApp(inner.Fn, args...)
		if err != nil {
			return nil, false, err
		}
		if f, err = graph.NewLambda(rs, app); err != nil {
			return nil, false, err
		}
	}
	if len(f.Params) != len(inner.Args) {
		return nil, false, nil
	}
	// The extents: the long map's from any argument whose type is known,
	// the short one's from the first view.
	long := 0
	for _, a := range n.Args {
		if at := nz.arrayType(a); at != nil && at.Rank() >= levels {
			long = at.Layout[:levels].Size()
			break
		}
	}
	it := nz.arrayType(inner.Args[0])
	if it == nil || it.Rank() < 1 || it.Layout[0].Extent > maxUnroll || long <= it.Layout[0].Extent {
		return nil, false, nil
	}
	// The long map's arguments move under the short map's lambda: one
	// that computes is bound outside it first, to be computed once.
	type binding struct {
		v *graph.Var
		a graph.Node
	}
	var lets []binding
	nargs := slices.Clone(n.Args)
	for i, a := range nargs {
		if !trivial(a) {
			v := graph.NewVar("a")
			lets = append(lets, binding{v, a})
			nargs[i] = v
		}
	}
	qs := make([]*graph.Var, len(inner.Args))
	outer := make([]graph.Node, len(inner.Args))
	for j, b := range inner.Args {
		views, k, ok := paramViews(b, l.Params)
		if !ok {
			return nil, false, nil
		}
		a, err := applyLifted(views, levels, nargs[k])
		if err != nil {
			return nil, false, err
		}
		// Axis levels (the short map's) to the front.
		for d := levels - 1; d >= 0; d-- {
			if a, err = graph.NewView(graph.FlipView{A: d, B: d + 1}, a); err != nil {
				return nil, false, err
			}
		}
		outer[j] = a
		qs[j] = graph.NewVar(f.Params[j].Name + "q")
	}
	body, err := graph.NewLambda(append(slices.Clone(l.Params), f.Params...), f.Body)
	if err != nil {
		return nil, false, err
	}
	wb, err := graph.LiftZips(body, levels-1)
	if err != nil {
		return nil, false, err
	}
	args := slices.Clone(nargs)
	for _, q := range qs {
		args = append(args, q)
	}
	longMap, err := graph.NewNZip(wb, args...)
	if err != nil {
		return nil, false, err
	}
	fq, err := graph.NewLambda(qs, longMap)
	if err != nil {
		return nil, false, err
	}
	var r graph.Node
	if r, err = graph.NewNZip(fq, outer...); err != nil {
		return nil, false, err
	}
	r = graph.WithSource(r, n.Source())
	// Axis 0 (the short map's) back to where it was, and the result row
	// major again, as the long map's was (a flatten may read it).
	for d := range levels {
		if r, err = graph.NewView(graph.FlipView{A: d, B: d + 1}, r); err != nil {
			return nil, false, err
		}
	}
	if nz.copyExchanged {
		if r, err = graph.NewNZip(graph.NewIdent(), r); err != nil {
			return nil, false, err
		}
	}
	nz.exchanged = true
	for i := len(lets) - 1; i >= 0; i-- {
		if r, err = graph.NewLet(lets[i].v, lets[i].a, r); err != nil {
			return nil, false, err
		}
	}
	return r, true, nil
}

// reduces reports whether n contains a reduction: rules 6 to 8 leave a
// function that reduces (a convolution's products) where the convolution
// and contraction forms find it.
func reduces(n graph.Node) bool {
	for m := range graph.All(n) {
		if _, ok := m.(*graph.RNZ); ok {
			return true
		}
	}
	return false
}

// producesArray reports whether the value of n is surely an array or a
// scalar, not a tuple (flips, which rule 8 puts around its result, see
// arrays alone). It is false where it cannot tell.
func (nz *normalizer) producesArray(n graph.Node) bool {
	switch n := n.(type) {
	case *graph.Tuple:
		return false
	case *graph.Lambda:
		return nz.producesArray(n.Body)
	case *graph.Let:
		return nz.producesArray(n.Body)
	case *graph.NZip:
		return nz.producesArray(n.Fn)
	case *graph.RNZ:
		return nz.producesArray(n.Fn)
	case *graph.Call, *graph.Const, *graph.OpRef:
		return true
	}
	if _, _, ok := graph.AsView(n); ok {
		return true
	}
	switch nz.info.TypeOf(n).(type) {
	case *graph.ArrayType, *graph.ScalarType:
		return true
	}
	return false
}
