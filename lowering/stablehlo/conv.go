package stablehlo

import (
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
)

// convolution recognises a convolution written over window views, the
// shape layers.Conv1D and Conv2D give for each image,
//
//	nzip (map (.. (\r -> nzip (\.. c .. p1 .. pk -> E(dot r c, p1, .., pk)) .. C .. P1 ..) ..)) W
//
// with j maps over the window positions of W, W a chain of zero pads,
// windows and flips over a base array X whose every axis is windowed but
// at most one (the channels), dot the full contraction of a window with a
// filter c of C (rnz (+) (\a b -> .. rnz (+) (*) a' b') r c), and C and the
// Pi independent of the positions. The dots are then one
// stablehlo.convolution of X (its loop levels merged into the batch
// dimension) with C, the windows' padding, strides and dilations as its
// attributes; n is lowered as usual with the dots read off the
// convolution's result, so E (bias, BatchNorm, activation) stays
// elementwise around it, and the im2col of W, no longer read, is dead
// code XLA drops. The shape is matched by conv.Find and the chain of W by
// conv.WindowGeometry; a grouped convolution's groups become the
// convolution's feature_group_count. ok is false when n is not of this
// shape.
func (l *lowerer) convolution(n *graph.NZip, e *env) (out *val, ok bool, err error) {
	if len(n.Args) != 1 {
		return nil, false, nil
	}
	cv, err := conv.Find(n.Fn, e)
	if err != nil {
		return nil, false, nil
	}
	levels, k, grp, dots := cv.Levels, cv.Depth, cv.Group, cv.Dots
	// The view chain of W over its base X.
	views, w := conv.ViewChain(n.Args[0])
	x, err := l.value(w, e)
	if err != nil {
		return nil, true, err
	}
	if x.tuple != nil || x.untyped || len(x.shape) == 0 || (x.dt != graph.Float32 && x.dt != graph.Float64) {
		return nil, false, nil
	}
	g, err := conv.WindowGeometry(views, len(x.shape), graph.FillZero)
	if err != nil || len(g.Positions) != levels || len(g.Inner) != k {
		return nil, false, nil
	}
	// C: filters [N, the window's k axes], independent of the loops.
	fv, err := l.value(cv.C, e)
	if err != nil {
		return nil, true, err
	}
	if fv.tuple != nil || fv.untyped || len(fv.shape) != 1+k || fv.dt != x.dt {
		return nil, false, nil
	}
	ct, clevels, err := l.dense(fv)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	if len(clevels) != 0 {
		return nil, false, nil
	}
	groups := 1
	if grp != nil {
		if groups, err = grp.Check(g, x.shape, fv.shape); err != nil {
			return nil, false, nil
		}
	}
	for i, ax := range g.Inner {
		want := g.Extent(ax, x.shape)
		if ax.Kind == conv.Channel {
			want /= groups
		}
		if fv.shape[1+i] != want {
			return nil, false, nil
		}
	}
	xt, xlevels, err := l.dense(x)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	// The input: [batch, X's axes, (a channel axis of 1 when X has none)].
	batch := 1
	var bdims []int
	for _, lv := range xlevels {
		batch *= l.extents[lv]
		bdims = append(bdims, l.extents[lv])
	}
	in := append([]int{batch}, x.shape...)
	chanIn := 1 + g.Channel
	if g.Channel < 0 {
		in, chanIn = append(in, 1), len(in)
	}
	if xt, err = l.reshapeTo(x.dt, xt, in); err != nil {
		return nil, true, l.wrap(n, err)
	}
	kdims := slices.Clone(fv.shape)
	kIn := -1
	var kSpatial, inSpatial, strides, dil []int
	var pads [][2]int
	for i, ax := range g.Inner {
		if ax.Kind == conv.Channel {
			kIn = 1 + i
		}
	}
	if kIn < 0 {
		kdims, kIn = append(kdims, 1), len(kdims)
		if ct, err = l.reshapeTo(x.dt, ct, kdims); err != nil {
			return nil, true, l.wrap(n, err)
		}
	}
	for _, p := range g.Positions {
		a := p.Base
		inSpatial = append(inSpatial, 1+a)
		kSpatial = append(kSpatial, 1+slices.Index(g.Inner, conv.Axis{Kind: conv.Element, Base: a}))
		win := g.Windows[a]
		strides = append(strides, win.Stride)
		dil = append(dil, win.Dilation)
		pads = append(pads, g.Pads[a])
	}
	outSpatial := make([]int, levels)
	for i := range outSpatial {
		outSpatial[i] = 1 + i
	}
	cy, err := shlo.Convolution(xt, ct, strides, pads, nil, dil,
		0, chanIn, inSpatial, kIn, 0, kSpatial, 0, levels+1, outSpatial, groups, 1,
		types.DotGeneralPrecisionHighest, types.DotGeneralPrecisionHighest)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	// Its result [batch, positions, N] with the batch split back into
	// X's loop levels: the dots' value over those levels, the position
	// levels and the filters' level (grouped: the groups' and the
	// filters' within a group, N split into [G, N/G]).
	res := cy.Shape().Dimensions
	odims := append(slices.Clone(bdims), res[1:]...)
	flevels := 1
	if grp != nil {
		odims = append(odims[:len(odims)-1], groups, res[len(res)-1]/groups)
		flevels = 2
	}
	if cy, err = l.reshapeTo(x.dt, cy, odims); err != nil {
		return nil, true, l.wrap(n, err)
	}
	first := len(l.extents)
	dlevels := slices.Clone(xlevels)
	for i := range levels + flevels {
		dlevels = append(dlevels, first+i)
	}
	dv := &val{dt: x.dt, factors: []factor{{t: cy, levels: dlevels}}}
	out, err = l.nzipWith(n, e, dots, dv)
	return out, true, err
}

// reshapeTo reshapes t to dims unless it has them.
func (l *lowerer) reshapeTo(dt graph.DType, t *shlo.Value, dims []int) (*shlo.Value, error) {
	if slices.Equal(t.Shape().Dimensions, dims) {
		return t, nil
	}
	s, err := l.shape(dt, dims)
	if err != nil {
		return nil, err
	}
	return shlo.Reshape(t, s)
}
