package native

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// depthwiseInto recognises a depthwise convolution: a grouped one with one
// input channel and one filter per group, as an imported MobileNet writes
// it (an ONNX Conv with group equal to its channels) or layers.Conv2D with
// Groups = In = Out, with nothing after the products or a bias added:
//
//	nzip (map (.. (\r -> B) ..)) W
//	B = flatten 0 (nzip (\wg kg -> map (\f -> dot wg f) kg) WG (subdiv 0 1 C)),  or zip (+) B b
//
// with WG the window r split into its channels, one per group (checked on
// the layouts: the split views applied to r's must give the channels
// first, then r's taps, then the one channel of a group). Output channel
// n is then the dot of the window's taps at channel n with filter n.
//
// With the image's channels contiguous (an NHWC image, or an imported
// NCHW one that the graph materialises as NHWC scratch for its padding),
// it runs over the positions a tap at a time as a vector loop over the
// channels (kernels.ChainProg: acc = w·f + acc), the filters gathered
// tap-major into scratch (kept while they are a fixed input, as
// convInto's); the positions are split over the goroutines. A destination
// whose channels are not contiguous is written element by element.
// Other grouped convolutions keep the generic loops.
func (c *compiler) depthwiseInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if fn.kind != cvFunc || len(args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid {
		return nil, false, nil
	}
	x := args[0]
	if x.kind != cvView || (x.dt != graph.Float32 && x.dt != graph.Float64) || dst.dt != x.dt {
		return nil, false, nil
	}
	cv, err := conv.Find(fn.node, fn.env)
	if err != nil || cv.Group == nil || cv.Group.Block != 1 || cv.PositionsRead ||
		len(cv.Dots) != 1 || cv.Fn == nil || cv.Dots[0] != cv.Fn.Body {
		return nil, false, nil
	}
	levels, k := cv.Levels, cv.Depth
	if len(x.layout) != levels+k || len(dst.layout) != levels+1 || k < 2 {
		return nil, false, nil
	}
	// The body: the products alone, or a bias added to them.
	var bias graph.Node
	if !cv.Fused {
		z, ok := cv.Body.Body.(*graph.NZip)
		if !ok || graph.IsFunc(z) || len(z.Args) != 2 {
			return nil, false, nil
		}
		if op, ok := z.Fn.(*graph.OpRef); !ok || op.Op != graph.Add {
			return nil, false, nil
		}
		switch cv.Filters {
		case z.Args[0]:
			bias = z.Args[1]
		case z.Args[1]:
			bias = z.Args[0]
		default:
			return nil, false, nil
		}
	}
	// The window: [taps..., C]; split into groups it must be [C, taps..., 1].
	win := x.layout[levels:]
	split := win
	for _, v := range cv.Group.WViews {
		if split, err = v.Apply(split); err != nil {
			return nil, false, nil
		}
	}
	taps := win[:k-1]
	C := win[k-1].Extent
	if len(split) != k+1 || split[0].Extent != C || split[0].Stride != win[k-1].Stride || split[k].Extent != 1 ||
		!graph.Layout(split[1:k]).Equal(taps) || win[k-1].Stride != 1 {
		return nil, false, nil
	}
	M, ok := positions(x, dst, levels)
	if !ok || dst.layout[levels].Extent != C || x.buf == dst.buf {
		return nil, false, nil
	}
	// The filters, [C, taps..., 1], and the bias, [C]: views that do not
	// depend on the window.
	rowReg := c.newInt()
	env1 := fn.env.bind(cv.Body.Params[0], &cval{kind: cvView, dt: x.dt, buf: x.buf, layout: win, reg: rowReg})
	cm, ok := c.viewOf(cv.C, env1)
	if !ok || cm.kind != cvView || cm.reg == rowReg || cm.dt != x.dt || len(cm.layout) != k+1 ||
		cm.layout[0].Extent != C || cm.layout[k].Extent != 1 || cm.buf == dst.buf {
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
	tapOff := offsets(taps)
	d := &depthwise{dt: x.dt, M: M, C: C, xb: x.buf, xr: x.reg, db: dst.buf, dr: dst.reg,
		posOff: offsets(x.layout[:levels]), tapOff: tapOff,
		dstOff: offsets(dst.layout[:levels]), dstStride: dst.layout[levels].Stride,
		io: &convIO{dt: x.dt, gb: c.b.alloc(x.dt, len(tapOff)*C, c.par), src: cm.buf, srcReg: cm.reg, sc: -1,
			offK: offsets(cm.layout[1:k]), offN: offsets(cm.layout[:1]), leaf: c.b.leafAt(cm.dt, cm.buf), perFrame: c.par},
		bb: -1, acc: c.b.alloc(x.dt, C, true)}
	if bv != nil {
		d.bb, d.br, d.bStride = bv.buf, bv.reg, bv.layout[0].Stride
		d.bias = c.b.alloc(x.dt, C, c.par)
	}
	d.grain = max(1, depthwiseGrain/max(1, len(d.tapOff)*C))
	d.threads = c.workers
	if c.par {
		d.threads = 1
	}
	steps32 := []kernels.ChainStep[float32]{{Op: kernels.Mul}, {Op: kernels.Add}}
	steps64 := []kernels.ChainStep[float64]{{Op: kernels.Mul}, {Op: kernels.Add}}
	d.prog32, d.prog64 = kernels.NewChainProg(steps32), kernels.NewChainProg(steps64)
	c.b.onRuntime(d.io.bind)
	c.b.onRuntime(d.bind)
	what := "no bias"
	if bias != nil {
		what = "bias added"
	}
	c.note("depthwise conv over %d positions of %d taps and %d channels, a tap at a time as a vector loop over the channels (kernels.ChainProg), %s, %v threads=%d",
		M, len(d.tapOff), C, what, x.dt, d.threads)
	return d.run, true, nil
}

// depthwiseGrain is about the multiply-adds a goroutine takes at a time.
const depthwiseGrain = 1 << 15

// depthwise is a depthwise convolution site (depthwiseInto).
type depthwise struct {
	dt        graph.DType
	M, C      int
	xb, xr    int // the image
	db, dr    int // the destination
	posOff    []int
	tapOff    []int
	dstOff    []int
	dstStride int
	io        *convIO // the filters, gathered tap-major: gb[t·C+n]
	bb, br    int     // the bias's buffer and register; bb -1 without one
	bStride   int
	bias      int // scratch for the bias, contiguous
	acc       int // per-frame scratch: one position's channels
	grain     int
	threads   int
	rt        *runtime

	prog32 *kernels.ChainProg[float32] // acc = w·f + acc
	prog64 *kernels.ChainProg[float64]
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
}

func (d *depthwise) bind(rt *runtime) {
	d.rt = rt
	d.rows32 = func(f *frame, lo, hi int) { depthwiseRows(d, f.f32[d.acc], d.prog32, &d.a32, lo, hi) }
	d.rows64 = func(f *frame, lo, hi int) { depthwiseRows(d, f.f64[d.acc], d.prog64, &d.a64, lo, hi) }
}

func (d *depthwise) run(fr *frame) {
	switch d.dt {
	case graph.Float32:
		runDepthwise(d, fr, fr.f32, d.prog32, &d.a32, d.rows32)
	case graph.Float64:
		runDepthwise(d, fr, fr.f64, d.prog64, &d.a64, d.rows64)
	}
}

func runDepthwise[T float32 | float64](d *depthwise, fr *frame, bufs [][]T, prog *kernels.ChainProg[T], shared *depthwiseArgs[T], rows rangeFn) {
	io := d.io
	if base := fr.ints[io.srcReg]; !io.gathered(fr, base) {
		gatherMatrix(bufs[io.gb], bufs[io.src], base, io.offK, io.offN)
	}
	a := depthwiseArgs[T]{filters: bufs[io.gb], img: bufs[d.xb], ib: fr.ints[d.xr], out: bufs[d.db], ob: fr.ints[d.dr]}
	if d.bb >= 0 {
		a.bias = bufs[d.bias][:d.C]
		src, base := bufs[d.bb], fr.ints[d.br]
		for n := range a.bias {
			a.bias[n] = src[base+n*d.bStride]
		}
	}
	if d.threads > 1 && d.M > d.grain && !fr.par {
		*shared = a
		d.rt.parallelFor(fr, d.M, d.grain, rows)
		*shared = depthwiseArgs[T]{} // drop references to the run's memory
		return
	}
	depthwiseRows(d, bufs[d.acc], prog, &a, 0, d.M)
}

// depthwiseRows computes positions [lo, hi), with acc a scratch of C.
func depthwiseRows[T float32 | float64](d *depthwise, acc []T, prog *kernels.ChainProg[T], a *depthwiseArgs[T], lo, hi int) {
	acc = acc[:d.C]
	var ys [kernels.MaxChain][]T
	for p := lo; p < hi; p++ {
		row := acc
		if d.dstStride == 1 {
			row = a.out[a.ob+d.dstOff[p]:][:d.C]
		}
		clear(row)
		base := a.ib + d.posOff[p]
		for t, o := range d.tapOff {
			ys[0], ys[1] = a.filters[t*d.C:][:d.C], row
			prog.Run(row, a.img[base+o:][:d.C], &ys)
		}
		if a.bias != nil {
			kernels.Arith(kernels.Add, row, row, a.bias)
		}
		if d.dstStride != 1 {
			o := a.ob + d.dstOff[p]
			for n, v := range row {
				a.out[o+n*d.dstStride] = v
			}
		}
	}
}
