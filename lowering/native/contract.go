package native

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// maxContractTable caps the offset tables of a strided contraction (one int
// per row, column and contracted element of its operands); a larger one
// is left to the generic loops. It caps a gathered convolution's tables
// too (one int per window and per window element), past which the
// windows are packed.
const maxContractTable = 1 << 22

// contractInto recognises a tensor contraction written as nested maps
// whose innermost body is a full contraction of two of the maps'
// elements:
//
//	map (\v1 -> map (\v2 -> .. map (\vj -> rnz (+) F a b) Xj ..) X2) X1
//
// where each Xi is a strided view of the program (an input, an earlier
// kernel's output, a materialised pad) or of one earlier vi, F is (*) or
// a nested contraction (as for convInto), a and b are two of the vi, and
// every vi leads to a or to b. A level may be a zip of several operands
// (eta-reduced or not) of which one leads to a or b and the others are
// never read, as autodiff leaves the windows of a convolution's input
// beside its cotangent in the input gradient's dY·Wᵀ. It is the shape fusion gives a
// convolution's weight gradient, dW[kh,co,kw,ci] = Σ_{n,ph,pw}
// dY[n,ph,pw,co]·X[n,ph+kh,pw+kw,ci]: the window axes of the image are the
// free axes of one operand, the output channels those of the other, and
// the contraction runs over the batch and the window positions, which no
// other pattern takes (convInto contracts over the window elements, gemmInto
// over one axis of two matrices).
//
// The maps that lead to a are the rows of a matrix product (M), those
// that lead to b its columns (N), and the contracted axes its depth (K),
// so the nest is one kernels.Gemm whatever the strides: an operand whose
// axes do not merge into a matrix is packed through offset tables
// computed at compile time, the left one straight into the micro-kernel's
// panels (GemmParams.PackA), the right one into scratch once per run; a
// destination whose axes do not merge gets the product in scratch and a
// scatter through its tables. Anything else falls back to the generic
// loops.
func (c *compiler) contractInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if c.opts.NoGEMM || fn.kind != cvFunc || len(args) == 0 || dst.kind != cvView || dst.acc != graph.OpInvalid || dst.vary != nil {
		return nil, false, nil
	}
	dt := args[0].dt
	if (dt != graph.Float32 && dt != graph.Float64) || dst.dt != dt {
		return nil, false, nil
	}
	// Each map or zip of the nest is a level, one axis of the destination;
	// each operand it iterates gives an element (an elem), a view of the
	// element its operand is a view of (parent) or of the program (a root).
	type elem struct {
		parent int // -1 for a view of the program
		root   *cval
		axis   graph.Axis
		level  int
	}
	type operand struct {
		v      *cval
		parent int
		root   *cval
	}
	var elems []elem
	vars := map[*graph.Var]int{} // the elem each parameter is bound to
	levels := 0
	cur := make([]operand, len(args))
	for i, a := range args {
		if a.kind != cvView || a.dt != dt || a.vary != nil {
			return nil, false, nil
		}
		cur[i] = operand{v: a, parent: -1, root: a}
	}
	node, env := fn.node, fn.env
	var rn *graph.RNZ
	for rn == nil {
		if levels >= len(dst.layout) {
			return nil, false, nil
		}
		ext := dst.layout[levels].Extent
		next := make([]operand, len(cur))
		for i, o := range cur {
			if len(o.v.layout) == 0 || o.v.layout[0].Extent != ext {
				return nil, false, nil
			}
			elems = append(elems, elem{parent: o.parent, root: o.root, axis: o.v.layout[0], level: levels})
			v := *o.v
			v.layout = o.v.layout[1:]
			next[i] = operand{v: &v, parent: len(elems) - 1, root: o.root}
		}
		levels++
		if n, ok := node.(*graph.NZip); ok && graph.IsFunc(n) && len(n.Args) == 0 {
			// zip g, the eta-reduced \v1 .. vk -> zip g v1 .. vk.
			node, cur = n.Fn, next
			continue
		}
		lam, ok := node.(*graph.Lambda)
		if !ok || len(lam.Params) != len(next) {
			return nil, false, nil
		}
		for i, p := range lam.Params {
			vars[p] = next[i].parent
			env = env.bind(p, next[i].v)
		}
		switch body := lam.Body.(type) {
		case *graph.NZip:
			if graph.IsFunc(body) || len(body.Args) == 0 {
				return nil, false, nil
			}
			cur = make([]operand, len(body.Args))
			for i, a := range body.Args {
				parent := -1
				for p, e := range vars {
					if conv.UsesVar(a, p) {
						if parent >= 0 {
							return nil, false, nil
						}
						parent = e
					}
				}
				v, ok := c.viewOf(a, env)
				if !ok || v.kind != cvView || v.dt != dt {
					return nil, false, nil
				}
				root := v
				if parent >= 0 {
					root = elems[parent].root
				}
				cur[i] = operand{v: v, parent: parent, root: root}
			}
			node = body.Fn
		case *graph.RNZ:
			rn = body
		default:
			return nil, false, nil
		}
	}
	if levels != len(dst.layout) || len(rn.Args) != 2 {
		return nil, false, nil
	}
	pa, aok := rn.Args[0].(*graph.Var)
	pb, bok := rn.Args[1].(*graph.Var)
	if !aok || !bok || pa == pb {
		return nil, false, nil
	}
	ia, aok := vars[pa]
	ib, bok := vars[pb]
	depth := conv.ContractionDepth(rn, env)
	if !aok || !bok || depth < 1 {
		return nil, false, nil
	}
	va, vb := env.lookup(pa), env.lookup(pb)
	if len(va.layout) != depth || len(vb.layout) != depth {
		return nil, false, nil
	}
	for i := range depth {
		if va.layout[i].Extent != vb.layout[i].Extent {
			return nil, false, nil
		}
	}
	// The elements that lead to a and to b; every level has exactly one
	// (the others, zipped along and never read, are dead).
	side := make([]int, levels)
	for i := range side {
		side[i] = -1
	}
	var free [2]graph.Layout // the free axes of a's and b's operands, in level order
	var dfree [2]graph.Layout
	lev := make([]graph.Axis, levels)
	for s, top := range []int{ia, ib} {
		for e := top; e >= 0; e = elems[e].parent {
			l := elems[e].level
			if side[l] >= 0 {
				return nil, false, nil
			}
			side[l], lev[l] = s, elems[e].axis
		}
	}
	for l, s := range side {
		if s < 0 {
			return nil, false, nil
		}
		free[s] = append(free[s], lev[l])
		dfree[s] = append(dfree[s], dst.layout[l])
	}
	roots := [2]*cval{elems[ia].root, elems[ib].root}
	ops := [2]contractOperand{
		{buf: roots[0].buf, reg: roots[0].reg, free: free[0], red: va.layout},
		{buf: roots[1].buf, reg: roots[1].reg, free: free[1], red: vb.layout},
	}
	K := ops[0].red.Size()
	if ops[0].free.Size() == 0 || ops[1].free.Size() == 0 || K == 0 {
		return nil, false, nil
	}
	for _, o := range ops {
		if o.buf == dst.buf {
			return nil, false, nil
		}
	}
	// The right operand is read in place when it is a matrix; the other
	// order is tried too (the product transposed), and failing both the
	// right operand is packed into scratch.
	s := &contractSite{dt: dt, K: K}
	order := [2]int{0, 1}
	if !ops[1].matrix() && ops[0].matrix() {
		order = [2]int{1, 0}
	}
	s.a, s.b = ops[order[0]], ops[order[1]]
	s.M, s.N = s.a.free.Size(), s.b.free.Size()
	if s.M+s.N+2*K > maxContractTable {
		return nil, false, nil
	}
	dm, dn := dfree[order[0]], dfree[order[1]]
	if ok := s.planA(); !ok {
		return nil, false, nil
	}
	s.planB(c)
	s.planC(c, dst, dm, dn)
	s.threads = c.workers
	if c.par {
		s.threads = 1
	}
	s.gather = s.packA && !s.transB && useGather(dt, s.N)
	c.b.onRuntime(s.bind)
	kernel := "kernels.Gemm"
	if s.gather {
		kernel = "kernels.GatherGemm"
	}
	c.note("contraction as gemm %dx%dx%d: %s, %s, %s %v threads=%d (%s)", s.M, s.N, K, s.aNote(), s.bNote(), s.cNote(), dt, s.threads, kernel)
	return s.run, true, nil
}

// A contractOperand is one side of a strided contraction: a view of buffer
// buf at the offset in register reg, with free axes (rows or columns of
// the product) and contracted axes.
type contractOperand struct {
	buf, reg  int
	free, red graph.Layout
}

// matrix reports whether the operand is a row-major (or, with trans,
// transposed) matrix of its free by its contracted axes, as the right
// operand of kernels.Gemm reads it: K×N with unit column stride, or with
// trans N×K with unit stride along K.
func (o *contractOperand) matrix() bool {
	_, _, ok := o.strides()
	return ok
}

// strides returns, when the free axes and the contracted axes each merge
// into one axis and one of them has unit stride, the leading dimension
// and whether the free axis is the contiguous one.
func (o *contractOperand) strides() (ld int, freeUnit bool, ok bool) {
	sf, fok := mergedStride(o.free)
	sr, rok := mergedStride(o.red)
	if !fok || !rok {
		return 0, false, false
	}
	nf, nr := o.free.Size(), o.red.Size()
	switch {
	case sf == 1 && (sr >= nf || nr == 1):
		return max(sr, nf), true, true
	case sr == 1 && (sf >= nr || nf == 1):
		return max(sf, nr), false, true
	}
	return 0, false, false
}

// offsets returns the offset of every element of the axes l, row-major.
func offsets(l graph.Layout) []int {
	out := []int{0}
	for _, a := range l {
		next := make([]int, 0, len(out)*a.Extent)
		for _, o := range out {
			for e := range a.Extent {
				next = append(next, o+e*a.Stride)
			}
		}
		out = next
	}
	return out
}

// runs returns, for each i, how many of offs from i on are consecutive.
func runs(offs []int) []int {
	out := make([]int, len(offs))
	for i := len(offs) - 1; i >= 0; i-- {
		out[i] = 1
		if i+1 < len(offs) && offs[i+1] == offs[i]+1 {
			out[i] = out[i+1] + 1
		}
	}
	return out
}

// A contractSite is a strided contraction run as C = A·B by kernels.Gemm.
type contractSite struct {
	M, N, K int
	dt      graph.DType
	a, b    contractOperand
	threads int

	// A: read in place (lda, transA) or packed into the micro-kernel's
	// panels through the offsets of its rows and columns (offM, offK;
	// runM[i] rows from i on lie consecutively) or by pk.
	packA      bool
	lda        int
	transA     bool
	offM, offK []int
	runM       []int
	pk         *windowPacker

	// B: read in place (ldb, transB) or packed into scratch buffer pb
	// (row-major K×N) through bOffK, bOffN.
	ldb          int
	transB       bool
	pb           int // -1 when B is read in place
	bOffK, bOffN []int

	// C: the destination directly (ldc) or scratch pc (row-major M×N)
	// scattered through cOffM, cOffN.
	cb, cr, ldc  int
	pc           int // -1 when the product is written in place
	cOffM, cOffN []int
	runCN        []int

	packF32 []func(dst []float32, mr, i0, h, k0, kc int)
	packF64 []func(dst []float64, mr, i0, h, k0, kc int)

	// gather: A is read through offM and offK by kernels.GatherGemm, in
	// blocks of gatherBlock rows (over the pool with threads > 1),
	// instead of packed.
	gather bool
	rt     *runtime
	rows   rangeFn
}

func (s *contractSite) planA() bool {
	o := &s.a
	if ld, freeUnit, ok := o.strides(); ok {
		s.lda, s.transA = ld, freeUnit
		return true
	}
	s.packA = true
	s.offM, s.offK = offsets(o.free), offsets(o.red)
	s.runM = runs(s.offM)
	s.pk = newWindowPacker(o.free, o.red)
	return true
}

func (s *contractSite) planB(c *compiler) {
	o := &s.b
	if ld, freeUnit, ok := o.strides(); ok {
		s.ldb, s.transB, s.pb = ld, !freeUnit, -1
		return
	}
	s.ldb, s.pb = s.N, c.b.alloc(s.dt, s.K*s.N, c.par)
	s.bOffK, s.bOffN = offsets(o.red), offsets(o.free)
}

func (s *contractSite) planC(c *compiler, dst *cval, dm, dn graph.Layout) {
	s.cb, s.cr = dst.buf, dst.reg
	sm, mok := mergedStride(dm)
	sn, nok := mergedStride(dn)
	if mok && nok && sn == 1 && (sm >= s.N || s.M == 1) {
		s.ldc, s.pc = max(sm, s.N), -1
		return
	}
	s.ldc, s.pc = s.N, c.b.alloc(s.dt, s.M*s.N, c.par)
	s.cOffM, s.cOffN = offsets(dm), offsets(dn)
	s.runCN = runs(s.cOffN)
}

func (s *contractSite) aNote() string {
	if s.gather {
		return "left operand read through its offsets"
	}
	if s.packA {
		return "left operand packed from its strides into the micro-kernel's panels"
	}
	if s.transA {
		return "left operand transposed in place"
	}
	return "left operand in place"
}

func (s *contractSite) bNote() string {
	switch {
	case s.pb >= 0:
		return "right operand packed into scratch"
	case s.transB:
		return "right operand transposed in place"
	}
	return "right operand in place"
}

func (s *contractSite) cNote() string {
	if s.pc >= 0 {
		return "product scattered from scratch"
	}
	return "product in place"
}

func (s *contractSite) bind(rt *runtime) {
	s.rt = rt
	if s.gather {
		s.rows = func(fr *frame, b0, b1 int) {
			r0, r1 := b0*gatherBlock, min(b1*gatherBlock, s.M)
			switch s.dt {
			case graph.Float32:
				gatherContract(s, fr, fr.f32, r0, r1, kernels.GatherGemmF32)
			case graph.Float64:
				gatherContract(s, fr, fr.f64, r0, r1, kernels.GatherGemmF64)
			}
		}
	}
	if !s.packA {
		return
	}
	for _, fr := range rt.allFrames {
		xb, xr := s.a.buf, s.a.reg
		s.packF32 = append(s.packF32, func(dst []float32, mr, i0, h, k0, kc int) {
			packStrided(s, dst, fr.f32[xb], fr.ints[xr], mr, i0, h, k0, kc)
		})
		s.packF64 = append(s.packF64, func(dst []float64, mr, i0, h, k0, kc int) {
			packStrided(s, dst, fr.f64[xb], fr.ints[xr], mr, i0, h, k0, kc)
		})
	}
}

func (s *contractSite) run(fr *frame) {
	switch s.dt {
	case graph.Float32:
		runContract(s, fr, fr.f32, s.packF32, kernels.GemmF32)
	case graph.Float64:
		runContract(s, fr, fr.f64, s.packF64, kernels.GemmF64)
	}
}

func runContract[T float32 | float64](s *contractSite, fr *frame, bufs [][]T, packs []func(dst []T, mr, i0, h, k0, kc int), gemm func(kernels.GemmParams[T])) {
	threads := s.threads
	if fr.par {
		threads = 1
	}
	p := kernels.GemmParams[T]{M: s.M, N: s.N, K: s.K, Threads: threads, Work: fr.ws}
	if s.packA {
		p.PackA = packs[fr.w]
	} else {
		p.A, p.LDA, p.TransA = bufs[s.a.buf][fr.ints[s.a.reg]:], s.lda, s.transA
	}
	if s.pb >= 0 {
		b, src, base := bufs[s.pb][:s.K*s.N], bufs[s.b.buf], fr.ints[s.b.reg]
		for k, ok := range s.bOffK {
			row := b[k*s.N : (k+1)*s.N]
			for j, on := range s.bOffN {
				row[j] = src[base+ok+on]
			}
		}
		p.B, p.LDB = b, s.N
	} else {
		p.B, p.LDB, p.TransB = bufs[s.b.buf][fr.ints[s.b.reg]:], s.ldb, s.transB
	}
	if s.pc < 0 {
		p.C, p.LDC = bufs[s.cb][fr.ints[s.cr]:], s.ldc
	} else {
		p.C, p.LDC = bufs[s.pc][:s.M*s.N], s.N
	}
	if s.gather {
		blocks := (s.M + gatherBlock - 1) / gatherBlock
		if threads > 1 && blocks > 1 && s.M*s.N*s.K >= gatherForkMin {
			s.rt.parallelFor(fr, blocks, (blocks+threads-1)/threads, s.rows)
		} else {
			s.rows(fr, 0, blocks)
		}
	} else {
		gemm(p)
	}
	if s.pc < 0 {
		return
	}
	cs := p.C
	d, base := bufs[s.cb], fr.ints[s.cr]
	for i, om := range s.cOffM {
		row := cs[i*s.N : (i+1)*s.N]
		for j := 0; j < s.N; {
			n := min(s.runCN[j], s.N-j)
			o := base + om + s.cOffN[j]
			copy(d[o:o+n], row[j:j+n])
			j += n
		}
	}
}

// gatherContract computes rows [r0, r1) of the product of s on fr by
// kernels.GatherGemm, the left operand read through its offsets; B is in
// place or already packed into scratch.
func gatherContract[T float32 | float64](s *contractSite, fr *frame, bufs [][]T, r0, r1 int, gather func(kernels.GatherParams[T]) bool) {
	p := kernels.GatherParams[T]{M: r1 - r0, N: s.N, K: s.K,
		X: bufs[s.a.buf][fr.ints[s.a.reg]:], RowOff: s.offM[r0:r1], ColOff: s.offK}
	if s.pb >= 0 {
		p.B, p.LDB = bufs[s.pb][:s.K*s.N], s.N
	} else {
		p.B, p.LDB = bufs[s.b.buf][fr.ints[s.b.reg]:], s.ldb
	}
	if s.pc >= 0 {
		p.C, p.LDC = bufs[s.pc][r0*s.N:s.M*s.N], s.N
	} else {
		p.C, p.LDC = bufs[s.cb][fr.ints[s.cr]+r0*s.ldc:], s.ldc
	}
	if !gather(p) {
		panic("native: kernels.GatherGemm declined a product it was compiled for")
	}
}

// noGather turns useGather off, for the tests of the packed paths.
var noGather bool

// gatherBlock is the rows of a gathered product one part of a threaded
// run computes at a time: a multiple of the kernel's 6 rows.
const gatherBlock = 6

// gatherForkMin is the least multiply-adds a gathered product splits over
// the pool for: below it, waking the workers costs more than they save.
const gatherForkMin = 1 << 18

// useGather reports whether a product of n columns of dt whose left
// operand is scattered (the windows of an image, or their transpose) is
// computed by kernels.GatherGemm rather than packed for kernels.Gemm or
// read by kernels.GemmWindows: on a machine with the gather kernels, for
// at most GatherMaxN columns. The CNN step's kernels at batch 128,
// isolated, before and after: conv1 (one input channel, 8 out) 188 µs
// against 58, its weight gradient (9x8x8192) 259 against 77; conv2 (8 in,
// 16 out, 16x16x72 per image, which GemmWindows declines) 360 against
// 122, its weight gradient (72x16x2048) 201 against 118. For 32 columns
// (8x8 positions, 16 channels in) GemmWindows took 8.3 µs an image and
// GatherGemm 4.5.
func useGather(dt graph.DType, n int) bool {
	if noGather || !kernels.GatherAvailable() {
		return false
	}
	switch dt {
	case graph.Float32:
		return n <= kernels.GatherMaxN[float32]()
	case graph.Float64:
		return n <= kernels.GatherMaxN[float64]()
	}
	return false
}

// packStrided writes rows [i0, i0+h) and columns [k0, k0+kc) of the left
// operand of s, read from src, into dst in the layout of
// kernels.GemmParams.PackA. Rows that lie consecutively in src (the window
// elements of a weight gradient, channels innermost) are copied as runs,
// one per column; otherwise the rows are packed as the windows of a
// convolution are, each run of contiguous columns transposed by
// kernels.PackRows.
func packStrided[T float32 | float64](s *contractSite, dst, src []T, base, mr, i0, h, k0, kc int) {
	if s.runM[i0] < h {
		packPanel(s.pk, dst, src, base, mr, i0, h, k0, kc)
		return
	}
	dst = dst[:kc*mr]
	o := base + s.offM[i0]
	for kk, ok := range s.offK[k0 : k0+kc] {
		copy(dst[kk*mr:kk*mr+h], src[o+ok:])
	}
	if h < mr {
		for kk := range kc {
			clear(dst[kk*mr+h : kk*mr+mr])
		}
	}
}
