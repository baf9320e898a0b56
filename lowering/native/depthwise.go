package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// depthwiseInto recognises a depthwise convolution: a grouped one with one
// input channel and one filter per group, as an imported MobileNet writes
// it (an ONNX Conv with group equal to its channels) or layers.Conv2D with
// Groups = In = Out, with nothing after the products, a bias added, or an
// elementwise epilogue of them and per-channel vectors:
//
//	nzip (map (.. (\r -> B) ..)) W
//	B = P,  zip (+) P b,  or nzip E P A1 .. Ak
//	P = flatten 0 (nzip (\wg kg -> map (\f -> dot wg f) kg) WG (subdiv 0 1 C))
//
// with WG the window r split into its channels, one per group (checked on
// the layouts: the split views applied to r's must give the channels
// first, then r's taps, then the one channel of a group). Output channel
// n is then the dot of the window's taps at channel n with filter n.
//
// With the image's channels contiguous (an NHWC image, or an imported
// NCHW one that the graph materialises as NHWC scratch for its padding),
// it runs kernels.Depthwise over runs of positions: the positions along
// the last axis, whatever the convolution's stride, when the
// destination's channels are contiguous and its positions along that
// axis C apart (else one position at a time), the filters gathered
// tap-major into scratch (kept while they are a fixed input, as
// convInto's). The kernel keeps four positions' sums of a block of
// channels in registers over all the taps, each tap's filter loaded once
// for the four. The runs are split over the goroutines; the epilogue (a
// bias, or any elementwise function of the products and per-channel
// vectors: BatchNorm, ReLU6) is applied to each run. A destination whose
// channels are not contiguous is written element by element.
//
// A grouped convolution whose groups have g input channels and g filters
// each (a ResNeXt's, g of 2, 4 or 8, or 16 with AVX-512: GroupedVectors),
// float32, runs the same way with
// kernels.Grouped: the filters gathered [taps, g, C], output channel n
// the dot of the window's taps at its group's g channels with filter n.
// Other grouped convolutions run a product per group (groupedInto).
func (c *compiler) depthwiseInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if fn.kind != cvFunc || len(args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid {
		return nil, false, nil
	}
	x := args[0]
	if x.kind != cvView || (x.dt != graph.Float32 && x.dt != graph.Float64) || dst.dt != x.dt {
		return nil, false, nil
	}
	cv, err := conv.Find(fn.node, fn.env)
	if err != nil || cv.Group == nil || cv.PositionsRead ||
		len(cv.Dots) != 1 || cv.Fn == nil || cv.Dots[0] != cv.Fn.Body {
		return nil, false, nil
	}
	levels, k := cv.Levels, cv.Depth
	if len(x.layout) != levels+k || len(dst.layout) != levels+1 || k < 2 {
		return nil, false, nil
	}
	// The body: the products alone, a bias added to them, or an
	// elementwise epilogue nzip E P A1 .. Ak of the products P and
	// per-channel vectors.
	var bias graph.Node
	var epi *graph.NZip
	if !cv.Fused {
		z, ok := cv.Body.Body.(*graph.NZip)
		if !ok || graph.IsFunc(z) {
			return nil, false, nil
		}
		op, isOp := z.Fn.(*graph.OpRef)
		switch {
		case isOp && op.Op == graph.Add && len(z.Args) == 2 && z.Args[0] == cv.Filters && z.Args[1] != cv.Filters:
			bias = z.Args[1]
		case isOp && op.Op == graph.Add && len(z.Args) == 2 && z.Args[1] == cv.Filters && z.Args[0] != cv.Filters:
			bias = z.Args[0]
		default:
			epi = z
		}
	}
	// The window: [taps..., C]; split into groups of g channels it must
	// be [C/g, taps..., g], each group with as many filters as channels:
	// one (depthwise), or a few that kernels.Grouped takes a vector of
	// float32 channels at a time.
	win := x.layout[levels:]
	split := win
	for _, v := range cv.Group.WViews {
		if split, err = v.Apply(split); err != nil {
			return nil, false, nil
		}
	}
	taps := win[:k-1]
	C := win[k-1].Extent
	if len(split) != k+1 || win[k-1].Stride != 1 {
		return nil, false, nil
	}
	g := split[k].Extent
	if g != cv.Group.Block || (g > 1 && (x.dt != graph.Float32 || !kernels.GroupedVectors(g))) ||
		split[0].Extent*g != C || split[0].Stride != g || split[k].Stride != 1 ||
		!graph.Layout(split[1:k]).Equal(taps) {
		return nil, false, nil
	}
	M, ok := positions(x, dst, levels)
	if !ok || dst.layout[levels].Extent != C || x.buf == dst.buf {
		return nil, false, nil
	}
	// The filters, [C, taps..., g], and the bias, [C]: views that do not
	// depend on the window.
	rowReg := c.newInt()
	env1 := fn.env.bind(cv.Body.Params[0], &cval{kind: cvView, dt: x.dt, buf: x.buf, layout: win, reg: rowReg})
	cm, ok := c.viewOf(cv.C, env1)
	if !ok || cm.kind != cvView || cm.reg == rowReg || cm.dt != x.dt || len(cm.layout) != k+1 ||
		cm.layout[0].Extent != C || cm.layout[k].Extent != g || cm.buf == dst.buf {
		return nil, false, nil
	}
	for i, a := range taps {
		if cm.layout[1+i].Extent != a.Extent {
			return nil, false, nil
		}
	}
	var bv *cval
	if bias != nil {
		if bv, ok = c.viewOf(bias, env1); !ok || bv.kind != cvView || bv.reg == rowReg || bv.dt != x.dt || len(bv.layout) != 1 || bv.layout[0].Extent != C {
			return nil, false, nil
		}
	}
	// Runs of L positions: the positions along the last axis, when they
	// lie C apart in the destination with its channels contiguous, so
	// that the run's products are an L×C matrix the epilogue takes as
	// rows; a row too long for depthwiseRunMax in runs of the largest
	// divisor of its length that fits (a MobileNet's 56 positions of 192
	// channels in runs of 14: one at a time, the calls took more than
	// the products); otherwise one position at a time.
	L, ps := 1, 0
	if last := x.layout[levels-1]; last.Extent > 1 && dst.layout[levels].Stride == 1 && dst.layout[levels-1].Stride == C {
		for l := min(last.Extent, depthwiseRunMax/C); l > 1; l-- {
			if last.Extent%l == 0 {
				L, ps = l, last.Stride
				break
			}
		}
	}
	accBuf := c.b.alloc(x.dt, L*C, true)
	var e *epilogue
	dReg := -1
	if epi != nil {
		if e, dReg = c.depthwiseEpilogue(cv, epi, env1, rowReg, accBuf, x.dt, L, C, dst); e == nil {
			return nil, false, nil
		}
	}
	tapOff := offsets(taps)
	d := &depthwise{dt: x.dt, M: M, L: L, C: C, ps: ps, xb: x.buf, xr: x.reg, db: dst.buf, dr: dst.reg,
		posOff: offsets(x.layout[:levels]), tapOff: tapOff,
		dstOff: offsets(dst.layout[:levels]), dstStride: dst.layout[levels].Stride,
		io: &convIO{dt: x.dt, gb: c.b.alloc(x.dt, len(tapOff)*g*C, c.par), src: cm.buf, srcReg: cm.reg, sc: -1,
			offK: offsets(cm.layout[1:]), offN: offsets(cm.layout[:1]), leaf: c.b.leafAt(cm.dt, cm.buf), perFrame: c.par},
		bb: -1, acc: accBuf, epi: e, dReg: dReg}
	if bv != nil {
		d.bb, d.br, d.bStride = bv.buf, bv.reg, bv.layout[0].Stride
		d.bias = c.b.alloc(x.dt, L*C, c.par)
	}
	d.g = g
	d.grain = max(1, depthwiseGrain/max(1, len(d.tapOff)*g*L*C))
	d.threads = c.workers
	if c.par {
		d.threads = 1
	}
	inPlace := ""
	if s := x.pad; s != nil && x.reg == 0 && x.buf == s.buf {
		ok, err := c.depthwiseInPlace(d, s)
		if err != nil {
			return nil, false, err
		}
		if ok {
			inPlace = ", the windows that see no border read in place from the padded operand"
		}
	}
	c.b.onRuntime(d.io.bind)
	c.b.onRuntime(d.bind)
	what := "no bias"
	switch {
	case bias != nil:
		what = "bias added"
	case e != nil:
		what = "then " + e.describe()
	}
	run := "one position at a time"
	if L > 1 {
		run = fmt.Sprintf("in runs of %d positions %d apart", L, ps)
	}
	if g > 1 {
		c.note("grouped conv in groups of %d channels and filters over %d positions of %d taps and %d channels, %s%s (kernels.Grouped), %s, %v threads=%d",
			g, M, len(d.tapOff), C, run, inPlace, what, x.dt, d.threads)
	} else {
		c.note("depthwise conv over %d positions of %d taps and %d channels, %s%s (kernels.Depthwise), %s, %v threads=%d",
			M, len(d.tapOff), C, run, inPlace, what, x.dt, d.threads)
	}
	return d.run, true, nil
}

// depthwiseInPlace has d, whose image is the padded box s, read the
// windows that see none of the box's border in place from s's operand,
// and s copy into its interior only the bands the other windows read
// (padSite.narrow): each run of positions becomes segments of positions
// read from the box and from the operand. It reports false, changing
// nothing, when the operand is not a view whose channels are contiguous
// or the bands would cover it.
func (c *compiler) depthwiseInPlace(d *depthwise, s *padSite) (bool, error) {
	// The copy kept the operand apart from the destination; read in
	// place, it must not be the destination's buffer.
	if s.src == nil || s.shared || s.src.buf == d.db {
		return false, nil
	}
	n := len(s.layout)
	last := n - 1
	if s.layout[last].Extent != d.C || s.lo[last] != 0 || s.in[last] != d.C || s.src.layout[last].Stride != 1 {
		return false, nil
	}
	cs := make([]int, n)
	wlo, whi := make([]int, n), make([]int, n)
	lo, hi := make([]int, n), make([]int, n) // the bands copied
	inside := make([]bool, d.M)
	base := make([]int, d.M) // the operand's offset of an inside position's window
	var srcTap []int
	offs := make([]int, len(d.tapOff)) // a position's taps in the operand, valid when it is inside
	for p := range d.M {
		in := true
		for a := range n {
			wlo[a], whi[a] = s.layout[a].Extent, -1
		}
		for t, off := range d.tapOff {
			s.coords(d.posOff[p]+off, cs)
			if cs[last] != 0 {
				return false, nil
			}
			for a, v := range cs {
				wlo[a], whi[a] = min(wlo[a], v), max(whi[a], v)
			}
			in = in && s.inside(cs)
			offs[t] = s.srcOffset(cs)
		}
		if !in {
			// A window that sees the border along axis a reads, along
			// it, only the band of the interior next to that border.
			for a := range n {
				end := s.lo[a] + s.in[a]
				if wlo[a] < s.lo[a] {
					lo[a] = max(lo[a], min(whi[a]+1, end)-s.lo[a])
				}
				if whi[a] >= end {
					hi[a] = max(hi[a], end-max(wlo[a], s.lo[a]))
				}
			}
			continue
		}
		// The first tap is the position itself (offsets starts at 0).
		first := srcTap == nil
		if first {
			srcTap = make([]int, len(d.tapOff))
		}
		inside[p], base[p] = true, offs[0]
		for t, o := range offs {
			o -= base[p]
			if o < 0 || (!first && srcTap[t] != o) {
				return false, nil
			}
			srcTap[t] = o
		}
	}
	if srcTap == nil {
		return false, nil
	}
	// The runs' segments: positions alike in where they are read.
	var segs []dwSegment
	runSeg := make([]int, 0, d.M/d.L+1)
	srcPs := -1
	for r := range d.M / d.L {
		runSeg = append(runSeg, len(segs))
		for j := 0; j < d.L; {
			p := r*d.L + j
			k := j + 1
			for k < d.L && inside[r*d.L+k] == inside[p] {
				if inside[p] {
					step := base[r*d.L+k] - base[r*d.L+k-1]
					if srcPs < 0 {
						srcPs = step
					} else if step != srcPs {
						return false, nil
					}
				}
				k++
			}
			sg := dwSegment{j: j, n: k - j, src: inside[p], off: d.posOff[p]}
			if sg.src {
				sg.off = base[p]
			}
			segs = append(segs, sg)
			j = k
		}
	}
	runSeg = append(runSeg, len(segs))
	ok, err := c.narrow(s, lo, hi)
	if !ok || err != nil {
		return false, err
	}
	d.segs, d.runSeg, d.srcTap, d.srcPs = segs, runSeg, srcTap, max(srcPs, 0)
	d.sb, d.sr = s.src.buf, s.src.reg
	return true, nil
}

// dwSegment is a segment of a depthwise site's run of positions: n
// positions from the run's j-th, read from the padded box at offset off
// in it, or (src) in place from the box's operand at offset off from its
// view's first element.
type dwSegment struct {
	j, n int
	src  bool
	off  int
}

// depthwiseGrain is about the multiply-adds a goroutine takes at a time.
const depthwiseGrain = 1 << 15

// depthwiseRunMax bounds the elements of a run of positions (L·C): the
// run's products stay in the L1 cache between kernels.Depthwise, which
// writes them, and the epilogue, which reads them back.
const depthwiseRunMax = 1 << 12

// depthwise is a depthwise convolution site (depthwiseInto).
type depthwise struct {
	dt        graph.DType
	M, C      int
	L         int // positions per run: M is a multiple of it
	ps        int // the image's stride between a run's positions
	xb, xr    int // the image
	db, dr    int // the destination
	posOff    []int
	tapOff    []int
	g         int // the channels and filters of a group: 1, depthwise
	dstOff    []int
	dstStride int
	io        *convIO   // the filters, gathered tap-major: gb[t·C+n]
	epi       *epilogue // applied to acc into the destination; nil for none
	dReg      int       // the register epi's destination offset is set in
	bb, br    int       // the bias's buffer and register; bb -1 without one
	bStride   int
	bias      int // scratch for the bias, contiguous
	acc       int // per-frame scratch: one run's products
	grain     int
	threads   int
	rt        *runtime

	// With the image a padded box read in place where a window sees no
	// border (depthwiseInPlace): run r's segments segs[runSeg[r]:
	// runSeg[r+1]], and the operand's buffer and register, its taps'
	// offsets and its stride between a run's positions.
	segs   []dwSegment
	runSeg []int
	sb, sr int
	srcTap []int
	srcPs  int

	// The operands of the run in flight, for the goroutines of a split
	// run (threads > 1, so never two runs at once), and its range
	// functions, made once.
	a32    depthwiseArgs[float32]
	a64    depthwiseArgs[float64]
	rows32 rangeFn
	rows64 rangeFn
}

// depthwiseArgs are the operands of one run of a depthwise site.
type depthwiseArgs[T float32 | float64] struct {
	filters, bias, img, out []T
	ib, ob                  int
	src                     []T // the padded box's operand (depthwise.segs)
	sb                      int
}

func (d *depthwise) bind(rt *runtime) {
	d.rt = rt
	if d.epi != nil {
		d.epi.tiled = make([]int, len(rt.allFrames))
	}
	d.rows32 = func(f *frame, lo, hi int) { depthwiseRows(d, f, f.f32[d.acc], &d.a32, lo, hi) }
	d.rows64 = func(f *frame, lo, hi int) { depthwiseRows(d, f, f.f64[d.acc], &d.a64, lo, hi) }
}

func (d *depthwise) run(fr *frame) {
	switch d.dt {
	case graph.Float32:
		runDepthwise(d, fr, fr.f32, &d.a32, d.rows32)
	case graph.Float64:
		runDepthwise(d, fr, fr.f64, &d.a64, d.rows64)
	}
}

func runDepthwise[T float32 | float64](d *depthwise, fr *frame, bufs [][]T, shared *depthwiseArgs[T], rows rangeFn) {
	io := d.io
	if base := fr.ints[io.srcReg]; !io.gathered(fr, base) {
		gatherMatrix(bufs[io.gb], bufs[io.src], base, io.offK, io.offN)
	}
	a := depthwiseArgs[T]{filters: bufs[io.gb], img: bufs[d.xb], ib: fr.ints[d.xr], out: bufs[d.db], ob: fr.ints[d.dr]}
	if d.segs != nil {
		a.src, a.sb = bufs[d.sb], fr.ints[d.sr]
	}
	if d.bb >= 0 {
		a.bias = bufs[d.bias][:d.L*d.C]
		src, base := bufs[d.bb], fr.ints[d.br]
		for n := range d.C {
			a.bias[n] = src[base+n*d.bStride]
		}
		for k := d.C; k < len(a.bias); k += d.C {
			copy(a.bias[k:], a.bias[:d.C])
		}
	}
	// The epilogue's frames forget the per-channel operands they tiled:
	// the operands may have changed since the last run.
	if e := d.epi; e != nil {
		if fr.par {
			e.tiled[fr.w] = 0
		} else {
			clear(e.tiled)
		}
	}
	runs := d.M / d.L
	if d.threads > 1 && runs > d.grain && !fr.par {
		*shared = a
		d.rt.parallelFor(fr, runs, d.grain, rows)
		*shared = depthwiseArgs[T]{} // drop references to the run's memory
		return
	}
	depthwiseRows(d, fr, bufs[d.acc], &a, 0, runs)
}

// depthwiseRows computes the runs [lo, hi) of L positions on frame fr,
// with acc fr's scratch of L·C.
func depthwiseRows[T float32 | float64](d *depthwise, fr *frame, acc []T, a *depthwiseArgs[T], lo, hi int) {
	n := d.L * d.C
	acc = acc[:n]
	for r := lo; r < hi; r++ {
		p := r * d.L
		row := acc
		if d.dstStride == 1 && d.epi == nil {
			row = a.out[a.ob+d.dstOff[p]:][:n]
		}
		if d.segs == nil {
			kernels.Grouped(row, d.C, a.img[a.ib+d.posOff[p]:], d.ps, d.tapOff, a.filters, d.C, d.L, d.C, d.g)
		} else {
			for _, sg := range d.segs[d.runSeg[r]:d.runSeg[r+1]] {
				if sg.src {
					kernels.Grouped(row[sg.j*d.C:], d.C, a.src[a.sb+sg.off:], d.srcPs, d.srcTap, a.filters, d.C, sg.n, d.C, d.g)
				} else {
					kernels.Grouped(row[sg.j*d.C:], d.C, a.img[a.ib+sg.off:], d.ps, d.tapOff, a.filters, d.C, sg.n, d.C, d.g)
				}
			}
		}
		if a.bias != nil {
			kernels.Arith(kernels.Add, row, row, a.bias)
		}
		if d.epi != nil {
			fr.ints[d.dReg] = a.ob + d.dstOff[p]
			d.epi.applyRows(fr, 0, d.L, 0, d.C)
			continue
		}
		if d.dstStride != 1 {
			o := a.ob + d.dstOff[p]
			for n, v := range row {
				a.out[o+n*d.dstStride] = v
			}
		}
	}
}

// depthwiseEpilogue compiles the elementwise epilogue nzip E P A1 .. Ak of
// a depthwise convolution (convEpilogue) over L rows of C columns (a run
// of positions): the products are read from acc, the frame's scratch, and
// the result stored into the destination's run at the offset the
// returned register holds. It returns a nil epilogue when the body does
// not fit (the generic loops take it).
func (c *compiler) depthwiseEpilogue(cv *conv.Conv, z *graph.NZip, env1 *cenv, rowReg, acc int, dt graph.DType, L, C int, dst *cval) (*epilogue, int) {
	prod := &cval{kind: cvView, dt: dt, buf: acc, layout: graph.RowMajor(L, C), reg: 0}
	dReg := c.newInt()
	out := &cval{kind: cvView, dt: dst.dt, buf: dst.buf, layout: graph.Layout{{Extent: L, Stride: C}, {Extent: C, Stride: dst.layout[len(dst.layout)-1].Stride}}, reg: dReg}
	e := c.convEpilogue(cv, z, env1, rowReg, prod, out)
	return e, dReg
}

// convEpilogue compiles the elementwise epilogue nzip E P A1 .. Ak of a
// grouped convolution, P its products (cv.Filters) and each Ai a vector
// of the output channels that does not depend on the window (bound in
// env1, the window's register rowReg), as a GEMM epilogue over the rows of
// prod, [rows, channels], into out, of the same extents (which may be
// prod itself). It returns nil when the body does not fit.
func (c *compiler) convEpilogue(cv *conv.Conv, z *graph.NZip, env1 *cenv, rowReg int, prod, out *cval) *epilogue {
	L, C := prod.layout[0].Extent, prod.layout[1].Extent
	fi := -1
	for i, a := range z.Args {
		if a == cv.Filters {
			if fi >= 0 {
				return nil
			}
			fi = i
		}
	}
	if fi < 0 {
		return nil
	}
	var l2 *graph.Lambda
	switch f := z.Fn.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(z.Args) {
			return nil
		}
		l2 = f
	case *graph.OpRef:
		ps := make([]*graph.Var, len(z.Args))
		vs := make([]graph.Node, len(z.Args))
		for i := range ps {
			ps[i] = graph.NewVar(fmt.Sprintf("e%d", i))
			vs[i] = ps[i]
		}
		call, err := graph.NewCall(f.Op, vs...)
		if err != nil {
			return nil
		}
		if l2, err = graph.NewLambda(ps, call); err != nil {
			return nil
		}
	default:
		return nil
	}
	args2 := make([]*cval, len(z.Args))
	for i, a := range z.Args {
		if i == fi {
			args2[i] = &cval{kind: cvView, dt: prod.dt, layout: graph.Layout{{Extent: C, Stride: 1}}}
			continue
		}
		v, ok := c.viewOf(a, env1)
		if !ok || v.kind != cvView || v.reg == rowReg || len(v.layout) != 1 || v.layout[0].Extent != C || v.buf == out.buf {
			return nil
		}
		args2[i] = v
	}
	m := &dotMatch{dots: []graph.Node{l2.Params[fi]}, ix: 0, ic: fi}
	e, err := c.epilogue(m, cv.Body, l2, env1, nil, args2, prod, out, &gemmSite{M: L, N: C, ldc: C})
	if err != nil {
		return nil
	}
	return e
}
