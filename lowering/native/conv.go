package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// convInto recognises a convolution over windows with a per-column scalar
// epilogue, the shape layers.Conv1D and Conv2D give (after the window
// views) for each image:
//
//	nzip (map (.. (\r -> nzip (\.. c .. p1 .. pk -> E(dot r c, p1, .., pk)) .. C .. P1 .. Pk) ..)) W
//
// with j ≥ 1 levels of maps over the window positions of W (rank j+k:
// positions, then the k axes of one window, e.g. [Ph, Pw, kh, kw, Cin]),
// dot the full contraction of two rank-k arrays
// (rnz (+) (\a b -> .. rnz (+) (*) a' b') r c), C rank 1+k ([Cout, kh, kw,
// Cin]) independent of the positions and its k inner axes one strided
// axis, and E using r and c only through the dot, as for gemmInto. The
// destination is [positions..., Cout], its position axes one strided
// axis.
//
// It is a matrix product of the M = Ph·Pw windows (as rows of K = kh·kw·Cin
// elements) by Cᵀ, the implicit im2col of the window view: the windows of
// a block of rows are packed into scratch, row by row (runs of elements
// contiguous in the image are copied as runs), and kernels.Gemm multiplies
// the block by C read in place, applying E to each finished row segment
// (bias, BatchNorm, ReLU) as for a dense layer. The blocks keep the
// packed rows in the caches; the micro-kernel's own packing of A then
// reads them there. Nothing is refused that the generic loops would not
// compute: a body that does not fit falls back to them.
func (c *compiler) convInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if c.opts.NoGEMM || fn.kind != cvFunc || len(args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid {
		return nil, false, nil
	}
	x := args[0]
	if x.kind != cvView || (x.dt != graph.Float32 && x.dt != graph.Float64) || dst.dt != x.dt {
		return nil, false, nil
	}
	// Peel the maps over the positions down to \r -> nzip l2 args2.
	levels := 1
	node, env := fn.node, fn.env
	var l1 *graph.Lambda
	for l1 == nil {
		switch n := node.(type) {
		case *graph.NZip:
			if !graph.IsFunc(n) || len(n.Args) != 0 {
				return nil, false, nil
			}
			node = n.Fn
		case *graph.Lambda:
			if len(n.Params) != 1 {
				return nil, false, nil
			}
			body, ok := n.Body.(*graph.NZip)
			if !ok || graph.IsFunc(body) {
				return nil, false, nil
			}
			if len(body.Args) == 1 && body.Args[0] == graph.Node(n.Params[0]) {
				if usesVar(body.Fn, n.Params[0]) {
					return nil, false, nil
				}
				node = body.Fn
			} else {
				l1 = n
				continue
			}
		default:
			return nil, false, nil
		}
		levels++
	}
	n2 := l1.Body.(*graph.NZip)
	l2, ok := n2.Fn.(*graph.Lambda)
	if !ok || len(l2.Params) != len(n2.Args) {
		return nil, false, nil
	}
	m, k := c.matchContractions(l2.Body, l1.Params[0], l2, env)
	if m == nil || levels < 1 || len(x.layout) != levels+k || len(dst.layout) != levels+1 {
		return nil, false, nil
	}
	// The rows: the position axes of x and of the destination.
	M := 1
	for i := range levels {
		if x.layout[i].Extent != dst.layout[i].Extent {
			return nil, false, nil
		}
		M *= x.layout[i].Extent
	}
	d0, ok := mergedStride(dst.layout[:levels])
	if !ok || dst.layout[levels].Stride != 1 {
		return nil, false, nil
	}
	// The inner arguments: views that do not depend on the row.
	rowReg := c.newInt()
	env1 := env.bind(l1.Params[0], &cval{kind: cvView, dt: x.dt, buf: x.buf, layout: x.layout[levels:], reg: rowReg})
	args2 := make([]*cval, len(n2.Args))
	for i, a := range n2.Args {
		v, ok := c.viewOf(a, env1)
		if !ok || v.kind != cvView || v.reg == rowReg {
			return nil, false, nil
		}
		args2[i] = v
	}
	cm := args2[m.ic]
	if len(cm.layout) != 1+k || cm.dt != x.dt {
		return nil, false, nil
	}
	for i, a := range args2 {
		if i != m.ic && len(a.layout) != 1 {
			return nil, false, nil // the epilogue takes scalars per column
		}
	}
	N, K := cm.layout[0].Extent, 1
	for i := range k {
		if cm.layout[1+i].Extent != x.layout[levels+i].Extent {
			return nil, false, nil
		}
		K *= cm.layout[1+i].Extent
	}
	ck, ok := mergedStride(cm.layout[1:])
	if !ok || dst.layout[levels].Extent != N || cm.buf == dst.buf || x.buf == dst.buf {
		return nil, false, nil
	}
	// B: C's rows as Bᵀ, or C's columns as B; otherwise the generic loops.
	var ldb int
	var transB bool
	switch c0 := cm.layout[0].Stride; {
	case ck == 1 && (c0 >= K || N == 1):
		ldb, transB = max(c0, K), true
	case c0 == 1 && (ck >= N || K == 1):
		ldb = max(ck, N)
	default:
		return nil, false, nil
	}

	pk := newWindowPacker(x.layout[:levels], x.layout[levels:])
	if len(pk.win) > 1+len(windowIndex{}) || (d0 < N && M > 1) {
		return nil, false, nil
	}
	// Blocks of rows: at most about 256K elements of packed windows.
	nblocks := (M*K + (1 << 18) - 1) / (1 << 18)
	mb := (M + nblocks - 1) / nblocks
	threads := c.workers
	if c.par {
		threads = 1
	}
	packed, err := c.scratch(graph.ArrayOf(x.dt, mb, K))
	if err != nil {
		return nil, false, err
	}
	blockReg := c.newInt()
	out := &cval{kind: cvView, dt: dst.dt, buf: dst.buf, layout: graph.Layout{{Extent: mb, Stride: d0}, {Extent: N, Stride: 1}}, reg: blockReg}
	site := func(rows int) *gemmSite {
		return &gemmSite{M: rows, N: N, K: K, dt: x.dt, threads: threads,
			xb: packed.buf, xr: 0, lda: K,
			bb: cm.buf, br: cm.reg, ldb: ldb, transB: transB,
			cb: dst.buf, cr: blockReg, ldc: max(N, d0)}
	}
	sites := []*gemmSite{site(mb)}
	if last := M - (nblocks-1)*mb; last != mb {
		sites = append(sites, site(last))
	}
	isDot := len(m.dots) == 1 && m.dots[0] == l2.Body
	if !isDot {
		e, err := c.epilogue(m, l1, l2, env1, nil, args2, out, out, sites[0])
		if err != nil {
			return nil, false, err
		}
		for _, s := range sites {
			s.epi = e
		}
	}
	for _, s := range sites {
		c.b.onRuntime(s.bind)
	}
	epi := ""
	if !isDot {
		epi = " + epilogue per row segment: " + sites[0].epi.prog.describe()
	}
	c.note("conv as gemm %dx%dx%d over %d windows of %v, packed %d rows at a time %v threads=%d (kernels.Gemm)%s",
		M, N, K, M, x.layout[levels:], mb, x.dt, threads, epi)
	xb, xr, dr, pb := x.buf, x.reg, dst.reg, packed.buf
	f32 := x.dt == graph.Float32
	return func(fr *frame) {
		for b := range nblocks {
			row0 := b * mb
			rows := min(mb, M-row0)
			if f32 {
				pk.pack(fr.f32[pb], fr.f32[xb], fr.ints[xr], row0, rows)
			} else {
				pk.pack64(fr.f64[pb], fr.f64[xb], fr.ints[xr], row0, rows)
			}
			fr.ints[blockReg] = fr.ints[dr] + row0*d0
			s := sites[0]
			if rows != mb {
				s = sites[1]
			}
			s.run(fr)
		}
	}, true, nil
}

// mergedStride returns the stride of axes l seen as one axis of their
// extents' product, when they are: each axis's stride is the next one's
// times its extent (axes of extent 1 aside).
func mergedStride(l graph.Layout) (int, bool) {
	stride, ext := 0, 1
	for i := len(l) - 1; i >= 0; i-- {
		a := l[i]
		if a.Extent == 1 {
			continue
		}
		if ext == 1 {
			stride, ext = a.Stride, a.Extent
			continue
		}
		if a.Stride != stride*ext {
			return 0, false
		}
		ext *= a.Extent
	}
	if ext == 1 {
		return 1, true
	}
	return stride, true
}

// matchContractions finds in E the full contractions of r (the outer
// parameter) with a parameter c of l2, all of the same depth k,
//
//	rnz (+) (*) r c                                  (k = 1)
//	rnz (+) (\a b -> <contraction of a and b>) r c   (k > 1)
//
// and checks that E uses r and c nowhere else.
func (c *compiler) matchContractions(e graph.Node, r *graph.Var, l2 *graph.Lambda, env *cenv) (*dotMatch, int) {
	m := &dotMatch{ix: 0, ic: -1}
	depth := -1
	bad := false
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
				ic := -1
				for i, p := range l2.Params {
					if p == b {
						ic = i
					}
				}
				if a == r && ic >= 0 {
					k := c.contractionDepth(rn, env)
					if k < 1 || (depth >= 0 && k != depth) || (m.ic >= 0 && m.ic != ic) {
						bad = true
						return
					}
					depth, m.ic = k, ic
					m.dots = append(m.dots, n)
					return
				}
			}
		}
		for _, k := range graph.Children(n) {
			walk(k)
		}
	}
	walk(e)
	if bad || m.ic < 0 {
		return nil, 0
	}
	cv := l2.Params[m.ic]
	var uses func(n graph.Node) bool
	uses = func(n graph.Node) bool {
		for _, d := range m.dots {
			if n == d {
				return false
			}
		}
		if v, ok := n.(*graph.Var); ok {
			return v == r || v == cv
		}
		for _, k := range graph.Children(n) {
			if uses(k) {
				return true
			}
		}
		return false
	}
	if uses(e) {
		return nil, 0
	}
	return m, depth
}

// contractionDepth returns k when rn is rnz (+) F a b with F (*) (k = 1)
// or \a' b' -> a contraction of depth k-1 of a' and b' (either order);
// 0 otherwise.
func (c *compiler) contractionDepth(rn *graph.RNZ, env *cenv) int {
	op, lift, ok := c.liftedOp(c.fnOf(rn.Red, env))
	if !ok || op != graph.Add || lift != 0 {
		return 0
	}
	if c.isMul(c.fnOf(rn.Fn, env)) {
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
	if !aok || !bok || a == b || (a != f.Params[0] && a != f.Params[1]) || (b != f.Params[0] && b != f.Params[1]) {
		return 0
	}
	if usesVar(in.Red, f.Params[0]) || usesVar(in.Red, f.Params[1]) || usesVar(in.Fn, f.Params[0]) || usesVar(in.Fn, f.Params[1]) {
		return 0
	}
	k := c.contractionDepth(in, env)
	if k == 0 {
		return 0
	}
	return k + 1
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

// windowIndex is the index of a row's run of elements in its window:
// windows of more axes (after merging) are left to the generic loops.
type windowIndex [8]int

// A windowPacker copies the windows of a block of rows into a row-major
// block, one row of K elements per window: the im2col of the rows.
type windowPacker struct {
	rows []graph.Axis // the position axes
	win  []graph.Axis // one window's axes, adjacent contiguous axes merged; the last is the run copied
	K    int
}

func newWindowPacker(rows, win graph.Layout) *windowPacker {
	p := &windowPacker{rows: rows}
	for _, a := range win {
		if a.Extent == 1 {
			continue
		}
		if n := len(p.win); n > 0 && p.win[n-1].Stride == a.Stride*a.Extent {
			p.win[n-1] = graph.Axis{Extent: p.win[n-1].Extent * a.Extent, Stride: a.Stride}
			continue
		}
		p.win = append(p.win, a)
	}
	if len(p.win) == 0 {
		p.win = []graph.Axis{{Extent: 1, Stride: 1}}
	}
	p.K = 1
	for _, a := range p.win {
		p.K *= a.Extent
	}
	return p
}

func (p *windowPacker) pack(dst, src []float32, base, row0, rows int) {
	packRows(p, dst, src, base, row0, rows)
}

func (p *windowPacker) pack64(dst, src []float64, base, row0, rows int) {
	packRows(p, dst, src, base, row0, rows)
}

func packRows[T float32 | float64](p *windowPacker, dst, src []T, base, row0, rows int) {
	var idx windowIndex
	last := p.win[len(p.win)-1]
	outer := p.win[:len(p.win)-1]
	if len(outer) > len(idx) {
		panic(fmt.Sprintf("native: internal error: window of %d axes", len(p.win)))
	}
	o := 0
	for i := row0; i < row0+rows; i++ {
		// The row's first element.
		off, rem := base, i
		for d := len(p.rows) - 1; d >= 0; d-- {
			off += (rem % p.rows[d].Extent) * p.rows[d].Stride
			rem /= p.rows[d].Extent
		}
		clear(idx[:len(outer)])
		for {
			at := off
			for d, a := range outer {
				at += idx[d] * a.Stride
			}
			if last.Stride == 1 {
				copy(dst[o:o+last.Extent], src[at:at+last.Extent])
			} else {
				for e := range last.Extent {
					dst[o+e] = src[at+e*last.Stride]
				}
			}
			o += last.Extent
			d := len(outer) - 1
			for d >= 0 {
				idx[d]++
				if idx[d] < outer[d].Extent {
					break
				}
				idx[d] = 0
				d--
			}
			if d < 0 {
				break
			}
		}
	}
}
