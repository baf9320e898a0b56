package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
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
// elements) by Cᵀ, the implicit im2col of the window view: kernels.Gemm
// multiplies it by C read in place, and the windows are read in place
// from the image where kernels.GemmWindows takes them (windowsSite),
// otherwise packed straight from the image into the micro-kernel's panels
// (GemmParams.PackA; runs of elements contiguous in the image are read as
// runs), so the im2col matrix is never written; E is applied
// to each finished row segment (bias, BatchNorm, ReLU) as for a dense
// layer. Nothing is refused that the generic loops would not compute: a
// body that does not fit falls back to them.
func (c *compiler) convInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if c.opts.NoGEMM || fn.kind != cvFunc || len(args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid {
		return nil, false, nil
	}
	x := args[0]
	if x.kind != cvView || (x.dt != graph.Float32 && x.dt != graph.Float64) || dst.dt != x.dt {
		return nil, false, nil
	}
	// The maps over the positions down to \r -> nzip l2 args2, the
	// contractions in its body; the positions read nowhere else.
	cv, err := conv.Find(fn.node, fn.env)
	if err != nil || !cv.Fused || cv.Group != nil || cv.PositionsRead {
		return nil, false, nil
	}
	env, levels, l1 := fn.env, cv.Levels, cv.Body
	n2 := cv.Filters.(*graph.NZip)
	l2, k := cv.Fn, cv.Depth
	m := &dotMatch{ix: 0, ic: cv.Filter, dots: cv.Dots}
	if len(x.layout) != levels+k || len(dst.layout) != levels+1 {
		return nil, false, nil
	}
	M, ok := positions(x, dst, levels)
	if !ok {
		return nil, false, nil
	}
	// The destination: its rows (the positions) one strided axis and its
	// columns (the output channels) contiguous, as the layers write it;
	// otherwise (an imported NCHW convolution's result, channels the
	// outer axis) the product goes into scratch and is scattered.
	d0, ok := mergedStride(dst.layout[:levels])
	directC := ok && dst.layout[levels].Stride == 1 && (d0 >= dst.layout[levels].Extent || M == 1)
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
	if dst.layout[levels].Extent != N || cm.buf == dst.buf || x.buf == dst.buf {
		return nil, false, nil
	}
	threads := c.workers
	if c.par {
		threads = 1
	}
	s := &gemmSite{M: M, N: N, K: K, dt: x.dt, threads: threads,
		xb: x.buf, xr: x.reg, packer: newWindowPacker(x.layout[:levels], x.layout[levels:]),
		bb: cm.buf, br: cm.reg, bLeaf: c.b.leafAt(cm.dt, cm.buf),
		cb: dst.buf, cr: dst.reg, ldc: max(N, d0)}
	io := &convIO{dt: x.dt, gb: -1, sc: -1}
	// B: C's rows as Bᵀ, or C's columns as B; otherwise (an imported
	// OIHW filter, seen as [Cout, kh, kw, Cin]: its window axes are not
	// one strided axis) gathered into scratch, K×N, before the product.
	// kernels.GatherGemm, which a narrow product takes, reads B as K×N
	// only: C's rows are gathered then too.
	gather := useGather(x.dt, N) && M+K <= maxContractTable
	switch c0 := cm.layout[0].Stride; {
	case ok && ck == 1 && (c0 >= K || N == 1) && !gather:
		s.ldb, s.transB = max(c0, K), true
	case ok && c0 == 1 && (ck >= N || K == 1):
		s.ldb = max(ck, N)
	default:
		io.gb, io.src, io.srcReg = c.b.alloc(x.dt, K*N, c.par), cm.buf, cm.reg
		io.offK, io.offN = offsets(cm.layout[1:]), offsets(cm.layout[:1])
		io.leaf, io.perFrame = s.bLeaf, c.par
		c.b.onRuntime(io.bind)
		s.bb, s.br, s.ldb, s.bLeaf = io.gb, 0, N, nil
	}
	out := &cval{kind: cvView, dt: dst.dt, buf: dst.buf, layout: graph.Layout{{Extent: M, Stride: d0}, {Extent: N, Stride: 1}}, reg: dst.reg}
	if !directC {
		io.scatterFrom(c.b.alloc(x.dt, M*N, c.par), dst, levels, M, N)
		s.cb, s.cr, s.ldc = io.sc, 0, N
		out = &cval{kind: cvView, dt: dst.dt, buf: io.sc, layout: graph.RowMajor(M, N), reg: 0}
	}
	inPlace := s.windowsInPlace(x.layout[:levels])
	pk := s.packer
	isDot := len(m.dots) == 1 && m.dots[0] == l2.Body
	epi := ""
	if !isDot {
		e, err := c.epilogue(m, l1, l2, env1, nil, args2, out, out, s)
		if err != nil {
			return nil, false, err
		}
		s.epi = e
		epi = " + " + e.describe()
	}
	c.b.onRuntime(s.bind)
	how := io.note()
	if !s.transB && gather {
		s.rowOff, s.colOff = offsets(x.layout[:levels]), offsets(x.layout[levels:])
		s.gatherGrain = (c.grain(M, gatherRowsUnit) + gatherRowsUnit - 1) / gatherRowsUnit * gatherRowsUnit
		read := "read through their offsets (kernels.GatherGemm)"
		if threads > 1 {
			read += fmt.Sprintf(", split by rows over the goroutines in grains of %d", s.gatherGrain)
		}
		c.note("conv as gemm %dx%dx%d over %d windows of %v, %s %v threads=%d%s%s",
			M, N, K, M, x.layout[levels:], read, x.dt, threads, how, epi)
		return io.wrap(s.run), true, nil
	}
	if pk == nil {
		c.note("conv as gemm %dx%dx%d over %d windows of %v, %s %v threads=%d (kernels.Gemm)%s%s",
			M, N, K, M, x.layout[levels:], inPlace, x.dt, threads, how, epi)
		return io.wrap(s.run), true, nil
	}
	if w := newWindowsSite(s, pk); w != nil {
		c.note("conv as gemm %dx%dx%d over %d windows of %v read in place, %d runs of %d (kernels.GemmWindows; else packed from the image into the micro-kernel's panels) %v threads=%d%s%s",
			M, N, K, M, x.layout[levels:], len(pk.runs), pk.run.Extent, x.dt, threads, how, epi)
		return io.wrap(w.run), true, nil
	}
	c.note("conv as gemm %dx%dx%d over %d windows of %v, packed from the image into the micro-kernel's panels %v threads=%d (kernels.Gemm)%s%s",
		M, N, K, M, x.layout[levels:], x.dt, threads, how, epi)
	return io.wrap(s.run), true, nil
}

// gatherRowsUnit is the rows of kernels.GatherGemm's largest register
// tile: a split product's parts are multiples of it.
const gatherRowsUnit = 6

// positions returns the number of a convolution's window positions, the
// rows of its product: the first levels axes of the windows x, which the
// destination's must match.
func positions(x, dst *cval, levels int) (int, bool) {
	m := 1
	for i := range levels {
		if x.layout[i].Extent != dst.layout[i].Extent {
			return 0, false
		}
		m *= x.layout[i].Extent
	}
	return m, true
}

// A convIO is what a convolution's product needs around it when its
// operands are not where the micro-kernel takes them: filters whose
// window axes are not one strided axis, gathered into scratch gb (row-major
// K×N) from buffer src before the product; and a destination whose
// channels are not contiguous, for which the product is computed into
// scratch sc (row-major M×N, the epilogue applied there) and scattered.
// Both are what an imported NCHW model gives: OIHW filters, and a result
// with the channels outermost.
//
// Filters that are a fixed input (Plan.FixInputs), a model's weights, are
// gathered once for the array bound, not on every run: leaf is their
// input, and kept says, per frame when each frame has its own scratch
// (perFrame), which binding and offset the scratch holds.
type convIO struct {
	dt          graph.DType
	gb          int // -1: the filters are read in place
	src, srcReg int
	offK, offN  []int // gb[k·N+n] = src[base+offK[k]+offN[n]]
	leaf        *inputLeaf
	perFrame    bool
	kept        []keptGather
	sc          int // -1: the product is written in place
	dst, dstReg int
	offM, offN2 []int // dst[base+offM[m]+offN2[n]] = sc[m·N+n]
	// rows, when not nil: the destination is sc transposed, at stride ld
	// (dst[base+n·ld+m] = sc[rows[m]+n], rows[m] = m·N).
	rows []int
	ld   int
}

// keptGather is what a scratch copy of fixed filters holds: their
// binding's generation and offset, when ok.
type keptGather struct {
	gen uint64
	off int
	ok  bool
}

func (io *convIO) bind(rt *runtime) {
	n := 1
	if io.perFrame {
		n = len(rt.allFrames)
	}
	io.kept = make([]keptGather, n)
}

// gathered reports whether the scratch on fr holds the filters at offset
// off already, and records that it will from now on when not.
func (io *convIO) gathered(fr *frame, off int) bool {
	l := io.leaf
	if l == nil || !l.fixed || l.bound == nil {
		return false
	}
	k := &io.kept[0]
	if io.perFrame {
		k = &io.kept[fr.w]
	}
	if k.ok && k.gen == l.gen && k.off == off {
		return true
	}
	*k = keptGather{gen: l.gen, off: off, ok: true}
	if onGatherFilters != nil {
		onGatherFilters()
	}
	return false
}

// onGatherFilters, if not nil, is called whenever a convolution gathers
// fixed filters into the scratch it keeps: the tests count them.
var onGatherFilters func()

func (io *convIO) note() string {
	var s string
	if io.gb >= 0 {
		s += ", filters gathered into scratch"
	}
	switch {
	case io.rows != nil:
		s += ", product transposed from scratch (kernels.PackRows)"
	case io.sc >= 0:
		s += ", product scattered from scratch"
	}
	return s
}

// scatterFrom makes io scatter the product, row-major M×N in scratch sc,
// into dst, [positions (levels axes)..., N]: by kernels.PackRows, a
// transposition, where the positions are contiguous and the channels cs ≥
// M apart (NCHW); otherwise through the elements' offsets.
func (io *convIO) scatterFrom(sc int, dst *cval, levels, M, N int) {
	io.sc, io.dst, io.dstReg = sc, dst.buf, dst.reg
	io.offM, io.offN2 = offsets(dst.layout[:levels]), offsets(dst.layout[levels:])
	d0, ok := mergedStride(dst.layout[:levels])
	if cs := dst.layout[levels].Stride; ok && d0 == 1 && cs >= M {
		io.ld, io.rows = cs, make([]int, M)
		for i := range io.rows {
			io.rows[i] = i * N
		}
	}
}

// windowsInPlace makes s read a convolution's windows in place, instead
// of packing them, when each is one run of its K elements, and says how
// ("" when they stay packed). Contiguous runs (a 1×1 convolution,
// channels last) at positions one stride apart are the rows of a matrix.
// Runs of elements cs apart at contiguous positions (an imported NCHW
// model's 1×1 convolution of its input, each channel's plane cs apart)
// are the columns of a K×M matrix, read as Aᵀ: packing their elements
// one by one took 13% of an imported MobileNetV2 block's time.
func (s *gemmSite) windowsInPlace(pos graph.Layout) string {
	pk := s.packer
	if len(pk.runs) != 1 || pk.run.Extent != s.K {
		return ""
	}
	ps, ok := mergedStride(pos)
	switch cs := pk.run.Stride; {
	case ok && cs == 1 && (ps >= s.K || s.M == 1):
		s.packer, s.lda = nil, max(ps, s.K)
		return "the rows of a matrix read in place"
	case ok && cs > 1 && ps == 1 && cs >= s.M:
		s.packer, s.lda, s.transA = nil, cs, true
		return "the columns of a matrix read in place (Aᵀ)"
	}
	return ""
}

// wrap returns run with the gathering before it and the scattering after.
func (io *convIO) wrap(run code) code {
	if io.gb < 0 && io.sc < 0 {
		return run
	}
	return func(fr *frame) {
		switch io.dt {
		case graph.Float32:
			convAround(io, fr, fr.f32, run)
		case graph.Float64:
			convAround(io, fr, fr.f64, run)
		}
	}
}

func convAround[T float32 | float64](io *convIO, fr *frame, bufs [][]T, run code) {
	if base := fr.ints[io.srcReg]; io.gb >= 0 && !io.gathered(fr, base) {
		gatherMatrix(bufs[io.gb], bufs[io.src], base, io.offK, io.offN)
	}
	run(fr)
	switch {
	case io.rows != nil:
		kernels.PackRows(bufs[io.dst][fr.ints[io.dstReg]:], io.ld, bufs[io.sc], io.rows, len(io.offN2))
	case io.sc >= 0:
		scatterMatrix(bufs[io.dst], fr.ints[io.dstReg], bufs[io.sc], io.offM, io.offN2)
	}
}

// gatherMatrix fills m, a row-major len(offR)×len(offC) matrix, from src:
// m[i·len(offC)+j] = src[base+offR[i]+offC[j]].
func gatherMatrix[T float32 | float64](m, src []T, base int, offR, offC []int) {
	n := len(offC)
	for i, or := range offR {
		row := m[i*n : (i+1)*n]
		s := src[base+or:]
		for j, oc := range offC {
			row[j] = s[oc]
		}
	}
}

// scatterMatrix writes m, a row-major len(offR)×len(offC) matrix, to d:
// d[base+offR[i]+offC[j]] = m[i·len(offC)+j]. Columns whose elements lie
// apart (a transposition: the channels of an NCHW result) are written a
// block of rows at a time, column by column, so that the rows of a block,
// often neighbours in d, fill each line together and the block of m stays
// in cache.
func scatterMatrix[T float32 | float64](d []T, base int, m []T, offR, offC []int) {
	n := len(offC)
	if n > 1 && offC[1] == offC[0]+1 {
		for i, or := range offR {
			row := m[i*n : (i+1)*n]
			for j := 0; j < n; {
				k := j + 1
				for k < n && offC[k] == offC[k-1]+1 {
					k++
				}
				o := base + or + offC[j]
				copy(d[o:o+k-j], row[j:k])
				j = k
			}
		}
		return
	}
	const block = 256
	for i0 := 0; i0 < len(offR); i0 += block {
		rows := offR[i0:min(i0+block, len(offR))]
		for j, oc := range offC {
			for i, or := range rows {
				d[base+or+oc] = m[(i0+i)*n+j]
			}
		}
	}
}

// A windowsSite runs a convolution's product with kernels.GemmWindows,
// the windows read in place from the image rather than packed, where the
// kernels take it (AVX2 or AVX-512, whole column tiles, runs long
// enough), and as its gemmSite otherwise. On the conv block of
// BenchmarkConv (3×3, 64→64, 32×32, batch 32) the packing was 14% of the
// CPU time.
type windowsSite struct {
	s      *gemmSite
	rowExt []int
	rowStr []int
	taps   []int
	runLen int // the elements of one run
}

// newWindowsSite returns the windows site of s, or nil when its windows
// are not read as runs of at least kernels.MinWindowRun contiguous
// elements or B is transposed.
func newWindowsSite(s *gemmSite, pk *windowPacker) *windowsSite {
	if pk.run.Stride != 1 || pk.run.Extent < kernels.MinWindowRun || s.transB || s.acc || len(pk.rows) == 0 {
		return nil
	}
	w := &windowsSite{s: s, taps: pk.runs, runLen: pk.run.Extent}
	for _, a := range pk.rows {
		w.rowExt = append(w.rowExt, a.Extent)
		w.rowStr = append(w.rowStr, a.Stride)
	}
	return w
}

func (w *windowsSite) run(fr *frame) {
	s := w.s
	threads := s.threads
	if fr.par {
		threads = 1
	}
	s.readyEpilogue(fr, threads)
	var done bool
	switch s.dt {
	case graph.Float32:
		p := kernels.WindowsParams[float32]{M: s.M, N: s.N, X: fr.f32[s.xb], Base: fr.ints[s.xr],
			RowExtents: w.rowExt, RowStrides: w.rowStr, Taps: w.taps, Run: w.runLen,
			B: fr.f32[s.bb][fr.ints[s.br]:], LDB: s.ldb, C: fr.f32[s.cb][fr.ints[s.cr]:], LDC: s.ldc, Threads: threads}
		if s.epi != nil {
			if threads > 1 {
				p.EpiloguePart = s.partF32
			} else {
				p.Epilogue, p.EpilogueRows = s.perF32[fr.w], s.perRows[fr.w]
			}
		}
		done = kernels.GemmWindowsF32(p)
	case graph.Float64:
		p := kernels.WindowsParams[float64]{M: s.M, N: s.N, X: fr.f64[s.xb], Base: fr.ints[s.xr],
			RowExtents: w.rowExt, RowStrides: w.rowStr, Taps: w.taps, Run: w.runLen,
			B: fr.f64[s.bb][fr.ints[s.br]:], LDB: s.ldb, C: fr.f64[s.cb][fr.ints[s.cr]:], LDC: s.ldc, Threads: threads}
		if s.epi != nil {
			if threads > 1 {
				p.EpiloguePart = s.partF64
			} else {
				p.Epilogue, p.EpilogueRows = s.perF64[fr.w], s.perRows[fr.w]
			}
		}
		done = kernels.GemmWindowsF64(p)
	}
	if !done {
		s.run(fr)
	}
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

// A windowPacker packs the windows of a convolution's positions, as the
// rows of the implicit im2col matrix (one row of K elements per window),
// straight into the GEMM micro-kernel's panels (kernels.GemmParams.PackA).
type windowPacker struct {
	rows []graph.Axis // the position axes
	run  graph.Axis   // the window's last axis after merging: the run of elements each packed as one
	runs []int        // the offset in a window of each run, in window order
	K    int
}

func newWindowPacker(rows, win graph.Layout) *windowPacker {
	var merged []graph.Axis // adjacent contiguous axes merged, extents of 1 dropped
	for _, a := range win {
		if a.Extent == 1 {
			continue
		}
		if n := len(merged); n > 0 && merged[n-1].Stride == a.Stride*a.Extent {
			merged[n-1] = graph.Axis{Extent: merged[n-1].Extent * a.Extent, Stride: a.Stride}
			continue
		}
		merged = append(merged, a)
	}
	if len(merged) == 0 {
		merged = []graph.Axis{{Extent: 1, Stride: 1}}
	}
	p := &windowPacker{rows: rows, run: merged[len(merged)-1], runs: []int{0}}
	for d := len(merged) - 2; d >= 0; d-- {
		a := merged[d]
		next := make([]int, 0, len(p.runs)*a.Extent)
		for e := range a.Extent {
			for _, o := range p.runs {
				next = append(next, e*a.Stride+o)
			}
		}
		p.runs = next
	}
	p.K = len(p.runs) * p.run.Extent
	return p
}

// rowOffset returns the offset from base of row i's first element.
func (p *windowPacker) rowOffset(base, i int) int {
	off := base
	for d := len(p.rows) - 1; d >= 0; d-- {
		off += (i % p.rows[d].Extent) * p.rows[d].Stride
		i /= p.rows[d].Extent
	}
	return off
}

// packPanel writes elements [k0, k0+kc) of the windows of rows [i0, i0+h)
// of the image src (whose first element is at base) into dst, the panel
// layout of kernels.GemmParams.PackA: dst[kk·mr + ii] is element k0+kk of
// row i0+ii's window; rows h..mr-1 are zero. Each run of a window's
// elements contiguous in the image is transposed, for all the rows at
// once, by kernels.PackRows.
func packPanel[T float32 | float64](p *windowPacker, dst, src []T, base, mr, i0, h, k0, kc int) {
	dst = dst[:kc*mr]
	L, ls := p.run.Extent, p.run.Stride
	var rowOff, offs [16]int
	for r0 := 0; r0 < h; r0 += len(rowOff) {
		rows := min(len(rowOff), h-r0)
		for ii := range rows {
			rowOff[ii] = p.rowOffset(base, i0+r0+ii)
		}
		for k, o := k0, 0; k < k0+kc; {
			e := k % L
			n := min(L-e, k0+kc-k)
			at := p.runs[k/L] + e*ls
			if ls == 1 {
				for ii := range rows {
					offs[ii] = rowOff[ii] + at
				}
				kernels.PackRows(dst[o*mr+r0:], mr, src, offs[:rows], n)
			} else {
				for ii := range rows {
					d, a := dst[o*mr+r0+ii:], rowOff[ii]+at
					for t := range n {
						d[t*mr] = src[a+t*ls]
					}
				}
			}
			k += n
			o += n
		}
	}
	if h < mr {
		for kk := range kc {
			clear(dst[kk*mr+h : kk*mr+mr])
		}
	}
}
