package native

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// collapseNest merges the outer loops of a nest of zips, nzip (nzip g) xs
// into d, into one loop over the product of their extents when every
// argument and the destination can see its two outer axes as one
// (flatten 0: the outer stride is the inner one times its extent, as in a
// row-major array): nzip g (flatten 0 xs) into flatten 0 d visits the same
// elements in the same order. It repeats while it can, so that an
// elementwise nest over small inner axes (a ReLU's gradient over
// [8, 8, 8 channels], the sums of a window's scatter-add) becomes one
// vector loop over all its elements instead of a loop of short vector
// loops. A copy (the identity over arrays) merges alike, and so does a
// nest that writes a tuple of arrays (Adam's weight and moments). It
// returns false when nothing merges.
func collapseNest(fn *cval, args []*cval, dst *cval) (*cval, []*cval, *cval, bool) {
	merged := false
	for fn.kind == cvFunc && flattensDst(dst) {
		// A copy (the identity over arrays) merges its axes alike.
		_, copying := fn.node.(*graph.Ident)
		n, zips := fn.node.(*graph.NZip)
		zips = zips && graph.IsFunc(n) && len(n.Args) == 0
		if !copying && !zips {
			break
		}
		if slices.ContainsFunc(args, doesNotFlatten) {
			break
		}
		args, merged = flattenArgs(args, merged), true
		dst = flatten0Dst(dst)
		if zips {
			fn = &cval{kind: cvFunc, node: n.Fn, env: fn.env}
		}
	}
	return fn, args, dst, merged
}

// doesNotFlatten is !flattens(v).
func doesNotFlatten(v *cval) bool { return !flattens(v) }

// flattenArgs merges the two outer axes of every argument: in place when
// args is already the merging's own copy (copied), else in a copy.
func flattenArgs(args []*cval, copied bool) []*cval {
	if !copied {
		args = slices.Clone(args)
	}
	for i, a := range args {
		args[i] = flatten0(a)
	}
	return args
}

// flattens reports whether v is a plain view whose two outer axes are one.
func flattens(v *cval) bool {
	if v.kind != cvView || v.vary != nil || len(v.layout) < 2 {
		return false
	}
	a, b := v.layout[0], v.layout[1]
	return a.Stride == b.Stride*b.Extent || a.Extent == 1 || b.Extent == 1
}

// flattensDst is flattens for a destination: a view, or a tuple whose
// every leaf flattens (the outputs of an elementwise nest that returns a
// tuple, such as an optimizer's update of a weight and its moments).
func flattensDst(v *cval) bool {
	if v.kind == cvTuple {
		return len(v.elems) > 0 && !slices.ContainsFunc(v.elems, func(e *cval) bool { return !flattensDst(e) })
	}
	return flattens(v)
}

// flatten0Dst is flatten0 for a destination; flattensDst(v) holds.
func flatten0Dst(v *cval) *cval {
	if v.kind == cvTuple {
		out := &cval{kind: cvTuple, elems: make([]*cval, len(v.elems))}
		for i, e := range v.elems {
			out.elems[i] = flatten0Dst(e)
		}
		return out
	}
	return flatten0(v)
}

// flatten0 returns v with its two outer axes merged; flattens(v) holds.
func flatten0(v *cval) *cval {
	a, b := v.layout[0], v.layout[1]
	stride := b.Stride
	if b.Extent == 1 {
		stride = a.Stride
	}
	l := make(graph.Layout, 0, len(v.layout)-1)
	l = append(l, graph.Axis{Extent: a.Extent * b.Extent, Stride: stride})
	l = append(l, v.layout[2:]...)
	w := *v
	w.layout = l
	return &w
}

// collapseReduce merges a reduction over the rows of a reduction,
// rnz r (\p1 .. pk -> rnz r f p1 .. pk) xs, into rnz r f (flatten 0 xs)
// when every argument can see its two outer axes as one and r's ops are
// associative and commutative (the compiled nest accumulates every
// element into one accumulator in this order already; the merged loop
// only visits them as one loop). It repeats while it can, so that the
// per-channel sums over images, rows and columns of a BatchNorm become
// one reduction over all pixels, which flatReduce can run flat. It
// returns false when nothing merges.
func collapseReduce(red, fn *cval, args []*cval) (*cval, []*cval, bool) {
	if red.kind != cvFunc {
		return fn, args, false
	}
	r0, ok := graph.Reducer(red.node, red.env)
	if !ok || !commutes(r0.Ops) {
		return fn, args, false
	}
	merged := false
	for fn.kind == cvFunc {
		l, ok := fn.node.(*graph.Lambda)
		if !ok || len(l.Params) != len(args) {
			break
		}
		in, ok := l.Body.(*graph.RNZ)
		if !ok || len(in.Args) != len(l.Params) || usesAny(in.Fn, l.Params) || usesAny(in.Red, l.Params) {
			break
		}
		same := true
		for i, a := range in.Args {
			same = same && a == graph.Node(l.Params[i])
		}
		r1, ok := graph.Reducer(in.Red, fn.env)
		if !same || !ok || !slices.Equal(r1.Ops, r0.Ops) || !slices.Equal(r1.Lifts, r0.Lifts) {
			break
		}
		if slices.ContainsFunc(args, doesNotFlatten) {
			break
		}
		args, merged = flattenArgs(args, merged), true
		fn = &cval{kind: cvFunc, node: in.Fn, env: fn.env}
	}
	return fn, args, merged
}
