package stablehlo

import (
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"

	"github.com/hofuse/hofuse/graph"
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
// code XLA drops. A grouped convolution's filters' term is matched by
// groupedFilters and becomes the convolution's feature_group_count. ok is
// false when n is not of this shape.
func (l *lowerer) convolution(n *graph.NZip, e *env) (out *val, ok bool, err error) {
	if len(n.Args) != 1 {
		return nil, false, nil
	}
	// The maps over the positions, down to \r -> nzip l2 args2.
	levels := 1
	var params []*graph.Var
	node := n.Fn
	var l1 *graph.Lambda
	for l1 == nil {
		switch f := node.(type) {
		case *graph.NZip:
			if !graph.IsFunc(f) || len(f.Args) != 0 {
				return nil, false, nil
			}
			node = f.Fn
		case *graph.Lambda:
			if len(f.Params) != 1 {
				return nil, false, nil
			}
			params = append(params, f.Params[0])
			if body, ok := f.Body.(*graph.NZip); ok && !graph.IsFunc(body) && len(body.Args) == 1 && body.Args[0] == graph.Node(f.Params[0]) {
				node = body.Fn
			} else {
				l1 = f
				continue
			}
		default:
			return nil, false, nil
		}
		levels++
	}
	// The filters' nzip is l1's body or, as in an unfused layer's
	// zip (+) (map (\c -> dot r c) C) b, an argument of it, traversed at
	// the same depth; r appears nowhere else. A grouped convolution's is
	// flatten 0 of an nzip over the groups (see groupedFilters).
	r := l1.Params[0]
	body := l1.Body
	cands := []graph.Node{body}
	if b, ok := body.(*graph.NZip); ok && !graph.IsFunc(b) {
		cands = append(cands, b.Args...)
	}
	var cand graph.Node
	var dots []graph.Node
	var ic, k int
	var filters graph.Node // C, [N, the window's k axes]
	var grp *grouping
	for _, c := range cands {
		if c, ok := c.(*graph.NZip); ok && !graph.IsFunc(c) {
			f, ok := c.Fn.(*graph.Lambda)
			if !ok || len(f.Params) != len(c.Args) {
				continue
			}
			if dots, ic, k = matchContractions(f.Body, r, f, e); dots != nil {
				cand, filters = c, c.Args[ic]
				break
			}
		}
		if gr, d, depth := groupedFilters(c, r, e); gr != nil {
			cand, filters, grp, dots, k = c, gr.filters, gr, d, depth
			break
		}
	}
	if cand == nil {
		return nil, false, nil
	}
	if cand != body {
		b := body.(*graph.NZip)
		if usesVar(b.Fn, r) {
			return nil, false, nil
		}
		for _, a := range b.Args {
			if a != cand && usesVar(a, r) {
				return nil, false, nil
			}
		}
	}
	if usesAny(filters, params) {
		return nil, false, nil
	}
	if cn, ok := cand.(*graph.NZip); ok && grp == nil {
		for _, a := range cn.Args {
			if usesAny(a, params) {
				return nil, false, nil
			}
		}
	}
	// The view chain of W over its base X.
	var views []graph.View
	w := n.Args[0]
	for {
		vn, ok := w.(graph.ViewNode)
		if !ok {
			break
		}
		views = append(views, vn.View())
		w = vn.Operand()
	}
	slices.Reverse(views)
	x, err := l.value(w, e)
	if err != nil {
		return nil, true, err
	}
	if x.tuple != nil || x.untyped || len(x.shape) == 0 || (x.dt != graph.Float32 && x.dt != graph.Float64) {
		return nil, false, nil
	}
	g, ok := windowGeometry(views, len(x.shape), graph.FillZero)
	if !ok || len(g.positions) != levels || len(g.inner) != k {
		return nil, false, nil
	}
	// C: filters [N, the window's k axes], independent of the loops.
	cv, err := l.value(filters, e)
	if err != nil {
		return nil, true, err
	}
	if cv.tuple != nil || cv.untyped || len(cv.shape) != 1+k || cv.dt != x.dt {
		return nil, false, nil
	}
	ct, clevels, err := l.dense(cv)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	if len(clevels) != 0 {
		return nil, false, nil
	}
	groups := 1
	if grp != nil {
		if groups, ok = grp.check(g, x.shape, cv.shape); !ok {
			return nil, false, nil
		}
	}
	for i, ax := range g.inner {
		want := g.extent(ax, x.shape)
		if ax.kind == axChannel {
			want /= groups
		}
		if cv.shape[1+i] != want {
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
	chanIn := 1 + g.channel
	if g.channel < 0 {
		in, chanIn = append(in, 1), len(in)
	}
	if xt, err = l.reshapeTo(x.dt, xt, in); err != nil {
		return nil, true, l.wrap(n, err)
	}
	kdims := slices.Clone(cv.shape)
	kIn := -1
	var kSpatial, inSpatial, strides, dil []int
	var pads [][2]int
	for i, ax := range g.inner {
		if ax.kind == axChannel {
			kIn = 1 + i
		}
	}
	if kIn < 0 {
		kdims, kIn = append(kdims, 1), len(kdims)
		if ct, err = l.reshapeTo(x.dt, ct, kdims); err != nil {
			return nil, true, l.wrap(n, err)
		}
	}
	for _, p := range g.positions {
		a := p.base
		inSpatial = append(inSpatial, 1+a)
		kSpatial = append(kSpatial, 1+slices.Index(g.inner, axis{kind: axElem, base: a}))
		win := g.windows[a]
		strides = append(strides, win.Stride)
		dil = append(dil, win.Dilation)
		pads = append(pads, g.pads[a])
	}
	outSpatial := make([]int, levels)
	for i := range outSpatial {
		outSpatial[i] = 1 + i
	}
	conv, err := shlo.Convolution(xt, ct, strides, pads, nil, dil,
		0, chanIn, inSpatial, kIn, 0, kSpatial, 0, levels+1, outSpatial, groups, 1,
		types.DotGeneralPrecisionHighest, types.DotGeneralPrecisionHighest)
	if err != nil {
		return nil, true, l.wrap(n, err)
	}
	// Its result [batch, positions, N] with the batch split back into
	// X's loop levels: the dots' value over those levels, the position
	// levels and the filters' level (grouped: the groups' and the
	// filters' within a group, N split into [G, N/G]).
	res := conv.Shape().Dimensions
	odims := append(slices.Clone(bdims), res[1:]...)
	flevels := 1
	if grp != nil {
		odims = append(odims[:len(odims)-1], groups, res[len(res)-1]/groups)
		flevels = 2
	}
	if conv, err = l.reshapeTo(x.dt, conv, odims); err != nil {
		return nil, true, l.wrap(n, err)
	}
	first := len(l.extents)
	dlevels := slices.Clone(xlevels)
	for i := range levels + flevels {
		dlevels = append(dlevels, first+i)
	}
	dv := &val{dt: x.dt, factors: []factor{{t: conv, levels: dlevels}}}
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

// axis kinds of a window view chain: an axis of the base array not
// windowed (the channels), the window positions of a base axis, or the
// elements of its windows.
const (
	axChannel = iota
	axPos
	axElem
)

type axis struct {
	kind int
	base int // the base array's axis
}

// geometry is what windowGeometry reads off a view chain.
type geometry struct {
	positions []axis // the leading axes: window positions
	inner     []axis // the rest: window elements and the channels
	channel   int    // the base axis not windowed, or -1
	windows   map[int]graph.WindowView
	pads      map[int][2]int
}

// extent is the extent of an inner axis over a base array of extents x.
func (g *geometry) extent(a axis, x []int) int {
	if a.kind == axElem {
		return g.windows[a.base].Width
	}
	return x[a.base]
}

// windowGeometry follows views (innermost first) over a base array of the
// given rank: pads of the given fill without interior padding, then at most one window
// per axis, and flips; every axis windowed but at most one. ok is false
// for any other chain, or when the positions do not lead.
func windowGeometry(views []graph.View, rank int, fill graph.Fill) (geometry, bool) {
	g := geometry{channel: -1, windows: map[int]graph.WindowView{}, pads: map[int][2]int{}}
	axes := make([]axis, rank)
	for i := range axes {
		axes[i] = axis{kind: axChannel, base: i}
	}
	for _, v := range views {
		switch v := v.(type) {
		case graph.PadView:
			if v.Axis >= len(axes) || v.Fill != fill || v.Interior != 0 || axes[v.Axis].kind != axChannel {
				return g, false
			}
			a := axes[v.Axis].base
			if _, done := g.windows[a]; done {
				return g, false
			}
			p := g.pads[a]
			g.pads[a] = [2]int{p[0] + v.Lo, p[1] + v.Hi}
		case graph.WindowView:
			if v.Axis >= len(axes) || axes[v.Axis].kind != axChannel {
				return g, false
			}
			a := axes[v.Axis].base
			g.windows[a] = v
			axes = slices.Insert(axes, v.Axis+1, axis{kind: axElem, base: a})
			axes[v.Axis] = axis{kind: axPos, base: a}
		case graph.FlipView:
			if v.A < 0 || v.B < 0 || v.A >= len(axes) || v.B >= len(axes) {
				return g, false
			}
			axes[v.A], axes[v.B] = axes[v.B], axes[v.A]
		default:
			return g, false
		}
	}
	npos := len(g.windows)
	if npos == 0 || npos < rank-1 {
		return g, false
	}
	for i, a := range axes {
		if (i < npos) != (a.kind == axPos) {
			return g, false
		}
		if a.kind == axChannel {
			g.channel = a.base
		}
	}
	g.positions, g.inner = axes[:npos], axes[npos:]
	return g, true
}

// matchContractions finds in E the full contractions of r with one
// parameter c of l2, all of the same depth k (see contractionDepth), and
// checks that E uses r and c nowhere else; it returns them, c's index and
// k, or nil.
func matchContractions(e graph.Node, r *graph.Var, l2 *graph.Lambda, env *env) ([]graph.Node, int, int) {
	var dots []graph.Node
	ic, depth, bad := -1, -1, false
	var walk func(n graph.Node)
	walk = func(n graph.Node) {
		if bad {
			return
		}
		if rn, ok := n.(*graph.RNZ); ok && len(rn.Args) == 2 {
			a, aok := rn.Args[0].(*graph.Var)
			b, bok := rn.Args[1].(*graph.Var)
			if aok && bok {
				if b == r {
					a, b = b, a
				}
				i := slices.Index(l2.Params, b)
				if a == r && i >= 0 {
					k := contractionDepth(rn, env)
					if k < 1 || (depth >= 0 && k != depth) || (ic >= 0 && ic != i) {
						bad = true
						return
					}
					depth, ic = k, i
					dots = append(dots, n)
					return
				}
			}
		}
		for _, c := range graph.Children(n) {
			walk(c)
		}
	}
	walk(e)
	if bad || ic < 0 {
		return nil, 0, 0
	}
	cv := l2.Params[ic]
	var uses func(n graph.Node) bool
	uses = func(n graph.Node) bool {
		if slices.Contains(dots, n) {
			return false
		}
		if v, ok := n.(*graph.Var); ok {
			return v == r || v == cv
		}
		for _, c := range graph.Children(n) {
			if uses(c) {
				return true
			}
		}
		return false
	}
	if uses(e) {
		return nil, 0, 0
	}
	return dots, ic, depth
}

// contractionDepth returns k when rn is rnz (+) F a b with F (*) (k = 1)
// or \a' b' -> a contraction of depth k-1 of a' and b'; 0 otherwise.
func contractionDepth(rn *graph.RNZ, e *env) int {
	red, ok := graph.Reducer(rn.Red, e)
	if !ok || len(red.Ops) != 1 || red.Ops[0] != graph.Add || red.Lifts[0] != 0 {
		return 0
	}
	if m, ok := graph.Reducer(rn.Fn, e); ok && len(m.Ops) == 1 && m.Ops[0] == graph.Mul && m.Lifts[0] == 0 {
		return 1
	}
	f, ok := rn.Fn.(*graph.Lambda)
	if !ok || len(f.Params) != 2 {
		return 0
	}
	in, ok := f.Body.(*graph.RNZ)
	if !ok || len(in.Args) != 2 {
		return 0
	}
	a, aok := in.Args[0].(*graph.Var)
	b, bok := in.Args[1].(*graph.Var)
	if !aok || !bok || a == b || !slices.Contains(f.Params, a) || !slices.Contains(f.Params, b) {
		return 0
	}
	for _, p := range f.Params {
		if usesVar(in.Red, p) || usesVar(in.Fn, p) {
			return 0
		}
	}
	if k := contractionDepth(in, e); k > 0 {
		return k + 1
	}
	return 0
}

// usesVar reports whether v occurs in n.
func usesVar(n graph.Node, v *graph.Var) bool {
	found := false
	graph.Inspect(n, func(m graph.Node) bool {
		if m == graph.Node(v) {
			found = true
		}
		return !found
	})
	return found
}
