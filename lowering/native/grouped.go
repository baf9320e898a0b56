package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
)

// groupedInto recognises a grouped convolution that depthwiseInto did not
// take (groups of other than 2, 4 or 8 float32 channels and as many
// filters, contiguous: a ResNeXt's wide groups, a ShuffleNet's, an
// AlexNet's, any float64 one), with nothing after the products, a bias
// added, or an elementwise epilogue of them and per-channel vectors
// (BatchNorm, ReLU):
//
//	nzip (map (.. (\r -> B) ..)) W
//	B = P  or  nzip E P A1 .. Ak
//	P = flatten 0 (nzip (\wg kg -> map (\f -> dot wg f) kg) WG (subdiv 0 N/G C))
//
// with WG the window r split into G groups of its channels (whatever the
// layout: the group axis the views bring to the front says where each
// group's window starts). Group g's outputs are then an ordinary
// convolution: the windows of group g's channels (the same window layout
// at g times the group axis's stride) by group g's N/G filters. Each runs
// as convInto's product — the windows read in place by
// kernels.GemmWindows or packed into the micro-kernel's panels, the
// filters gathered into scratch once (kept while they are a fixed input)
// as a K×N matrix whose columns g·N/G.. are group g's B — one group
// after the other, into the destination's columns of the group, or into
// scratch when there is an epilogue or the destination's channels are
// not contiguous (NCHW); the epilogue is then applied to the whole
// product's rows, and the result scattered. The generic loops computed
// each window's dot with each filter on its own: 80 times slower on a
// 3×3, 64→64 convolution of 32×32 images in two groups.
func (c *compiler) groupedInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if c.opts.NoGEMM || fn.kind != cvFunc || len(args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid {
		return nil, false, nil
	}
	x := args[0]
	if x.kind != cvView || (x.dt != graph.Float32 && x.dt != graph.Float64) || dst.dt != x.dt || x.buf == dst.buf {
		return nil, false, nil
	}
	cv, err := conv.Find(fn.node, fn.env)
	if err != nil || cv.Group == nil || cv.PositionsRead || len(cv.Dots) != 1 || cv.Fn == nil || cv.Dots[0] != cv.Fn.Body {
		return nil, false, nil
	}
	levels, k := cv.Levels, cv.Depth
	if len(x.layout) != levels+k || len(dst.layout) != levels+1 {
		return nil, false, nil
	}
	var epi *graph.NZip
	if !cv.Fused {
		z, ok := cv.Body.Body.(*graph.NZip)
		if !ok || graph.IsFunc(z) {
			return nil, false, nil
		}
		epi = z
	}
	// The window split into groups: [G, the window's axes with the
	// group's channels]. Group 0's window is the rest, group g's the same
	// g strides of the group axis on.
	win := x.layout[levels:]
	split := win
	for _, v := range cv.Group.WViews {
		if split, err = v.Apply(split); err != nil {
			return nil, false, nil
		}
	}
	if len(split) != k+1 {
		return nil, false, nil
	}
	G, gStep, gwin := split[0].Extent, split[0].Stride, split[1:]
	M, ok := positions(x, dst, levels)
	N, og := dst.layout[levels].Extent, cv.Group.Block
	if !ok || G < 2 || og < 1 || G*og != N {
		return nil, false, nil
	}
	// The filters, [N, the group window's axes], a view that does not
	// depend on the window.
	rowReg := c.newInt()
	env1 := fn.env.bind(cv.Body.Params[0], &cval{kind: cvView, dt: x.dt, buf: x.buf, layout: win, reg: rowReg})
	cm, ok := c.viewOf(cv.C, env1)
	if !ok || cm.kind != cvView || cm.reg == rowReg || cm.dt != x.dt || len(cm.layout) != k+1 ||
		cm.layout[0].Extent != N || cm.buf == dst.buf {
		return nil, false, nil
	}
	K := 1
	for i, a := range gwin {
		if cm.layout[1+i].Extent != a.Extent {
			return nil, false, nil
		}
		K *= a.Extent
	}
	threads := c.workers
	if c.par {
		threads = 1
	}
	gs := &groupedSite{G: G, og: og, M: M, N: N, xStep: gStep, xr: x.reg, dr: dst.reg}
	// All the filters gathered, K×N: group g's B is its columns g·og..,
	// LDB N.
	io := &convIO{dt: x.dt, gb: c.b.alloc(x.dt, K*N, c.par), src: cm.buf, srcReg: cm.reg, sc: -1,
		offK: offsets(cm.layout[1:]), offN: offsets(cm.layout[:1]), leaf: c.b.leafAt(cm.dt, cm.buf), perFrame: c.par}
	c.b.onRuntime(io.bind)
	s := &gemmSite{M: M, N: og, K: K, dt: x.dt, threads: threads,
		xb: x.buf, xr: c.newInt(), packer: newWindowPacker(x.layout[:levels], gwin),
		bb: io.gb, br: c.newInt(), ldb: N, cr: c.newInt()}
	gs.s = s
	// The destination: its positions one strided axis and its channels
	// contiguous, as the layers write it, takes the products in place;
	// otherwise, or with an epilogue, they go into scratch first.
	d0, ok := mergedStride(dst.layout[:levels])
	rowForm := ok && dst.layout[levels].Stride == 1 && (d0 >= N || M == 1)
	if rowForm && epi == nil {
		s.cb, s.ldc, gs.direct = dst.buf, max(N, d0), true
	} else {
		s.cb, s.ldc = c.b.alloc(x.dt, M*N, c.par), N
		prod := &cval{kind: cvView, dt: x.dt, buf: s.cb, layout: graph.RowMajor(M, N), reg: 0}
		out := prod
		if rowForm {
			out = &cval{kind: cvView, dt: dst.dt, buf: dst.buf, layout: graph.Layout{{Extent: M, Stride: max(N, d0)}, {Extent: N, Stride: 1}}, reg: dst.reg}
		} else {
			io.scatterFrom(s.cb, dst, levels, M, N)
		}
		if epi != nil {
			if gs.epi = c.convEpilogue(cv, epi, env1, rowReg, prod, out); gs.epi == nil {
				return nil, false, nil
			}
			c.b.onRuntime(gs.bind)
		}
	}
	inPlace := s.windowsInPlace(x.layout[:levels])
	c.b.onRuntime(s.bind)
	gs.product = s.run
	how := "packed from the image into the micro-kernel's panels (kernels.Gemm)"
	switch {
	case inPlace != "":
		how = inPlace + " (kernels.Gemm)"
	default:
		if w := newWindowsSite(s, s.packer); w != nil {
			gs.product = w.run
			how = fmt.Sprintf("read in place, %d runs of %d (kernels.GemmWindows; else packed from the image into the micro-kernel's panels)", len(s.packer.runs), s.packer.run.Extent)
		}
	}
	then := ""
	if gs.epi != nil {
		then = ", then " + gs.epi.describe()
	}
	c.note("grouped conv in %d groups, each a gemm %dx%dx%d over %d windows of %v, %s %v threads=%d%s%s",
		G, M, og, K, M, gwin, how, x.dt, threads, io.note(), then)
	return io.wrap(gs.run), true, nil
}

// A groupedSite runs a grouped convolution (groupedInto): its product
// site s once per group, its registers set to the group's window, filters
// and columns, then the epilogue over all the product's rows.
type groupedSite struct {
	G, og   int
	M, N    int
	xStep   int // the image's offset from one group's window to the next
	xr, dr  int // the registers of the image and the destination
	direct  bool
	s       *gemmSite
	product code
	epi     *epilogue
}

func (gs *groupedSite) bind(rt *runtime) {
	gs.epi.tiled = make([]int, len(rt.allFrames))
}

func (gs *groupedSite) run(fr *frame) {
	s := gs.s
	ints := fr.ints
	base, c0 := ints[gs.xr], 0
	if gs.direct {
		c0 = ints[gs.dr]
	}
	for g := range gs.G {
		ints[s.xr], ints[s.br], ints[s.cr] = base+g*gs.xStep, g*gs.og, c0+g*gs.og
		gs.product(fr)
	}
	if e := gs.epi; e != nil {
		// The frame forgets the per-channel operands it tiled: they may
		// have changed since the last run.
		e.tiled[fr.w] = 0
		e.applyRows(fr, 0, gs.M, 0, gs.N)
	}
}
