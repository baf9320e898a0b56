package native

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// gemmInto recognises a matrix product with a per-column scalar epilogue:
//
//	nzip (\.. r .. -> nzip (\.. c .. p1 .. pk -> E(rnz (+) (*) r c, p1, .., pk)) .. C .. P1 .. Pk) .. X ..
//
// where r ranges over the rows of X (M×K, possibly a transposed view flip 0
// X' of a K×M matrix, as in a weight gradient Xᵀ·dY, packed in place by
// kernels.Gemm's TransA), c over the rows of C (N×K, as flip 0 W for a
// weight matrix W of K×N), C does not depend on r, the Pi
// are vectors of N elements and E uses r and c only through the dot
// product. The fusion pass produces this for dense → batch norm →
// activation blocks; the unfused dense layer
//
//	map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) X
//
// becomes it once the compiler inlines the inner map (normalize.go); and
// the naive matrix product map (\r -> map (\c -> rnz (+) (*) r c) (flip 0
// B)) A is it with E the dot itself.
//
// It compiles to kernels.Gemm writing the products into the destination
// (or into scratch when the destination's layout does not suit), with E
// compiled as a vector program over each finished row segment, applied in
// place while the segment is in cache.
func (c *compiler) gemmInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if c.opts.NoGEMM || fn.kind != cvFunc || dst.kind != cvView || len(dst.layout) != 2 ||
		(dst.acc != graph.OpInvalid && dst.acc != graph.Add) {
		return nil, false, nil
	}
	l1, ok := fn.node.(*graph.Lambda)
	if !ok || len(l1.Params) != len(args) {
		return nil, false, nil
	}
	n2, ok := l1.Body.(*graph.NZip)
	if !ok || graph.IsFunc(n2) {
		return nil, false, nil
	}
	l2, ok := n2.Fn.(*graph.Lambda)
	if !ok || len(l2.Params) != len(n2.Args) {
		return nil, false, nil
	}
	m := c.matchDots(l2.Body, l1, l2, fn.env)
	if m == nil {
		return nil, false, nil
	}
	x := args[m.ix]
	if x.kind != cvView || len(x.layout) != 2 || (x.dt != graph.Float32 && x.dt != graph.Float64) {
		return nil, false, nil
	}
	// Bind the outer elements as the generic loop would, then look at the
	// inner arguments: all must be views.
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, false, err
	}
	env1 := fn.env
	for i, p := range l1.Params {
		env1 = env1.bind(p, elems[i])
	}
	args2 := make([]*cval, len(n2.Args))
	for i, a := range n2.Args {
		v, ok := c.viewOf(a, env1)
		if !ok {
			return nil, false, nil
		}
		args2[i] = v
	}
	cm := args2[m.ic]
	if cm.kind != cvView || len(cm.layout) != 2 || cm.dt != x.dt {
		return nil, false, nil
	}
	for _, v := range vars {
		if cm.reg == v.elem {
			return nil, false, nil // C depends on the row
		}
	}
	for i, a := range args2 {
		if i != m.ic && (a.kind != cvView || len(a.layout) != 1) {
			return nil, false, nil // the epilogue takes scalars per column
		}
	}
	M, K, N := x.layout[0].Extent, x.layout[1].Extent, cm.layout[0].Extent
	if cm.layout[1].Extent != K || dst.layout[0].Extent != M || dst.layout[1].Extent != N {
		return nil, false, nil
	}
	if (cm.buf == dst.buf || x.buf == dst.buf) && dst.dt == x.dt {
		return nil, false, nil // never write a product over its operands
	}

	s := &gemmSite{M: M, N: N, K: K, dt: x.dt}
	// As many threads as the kernel will use: a product that runs on
	// one (a small layer) then runs its epilogue on the caller's frame,
	// with no registers to lend to the epilogue frames.
	threads := kernels.GemmThreads(M, N, K, c.workers, false)
	if c.par {
		threads = 1
	}
	s.threads = threads
	var pre []code
	// A: X with unit inner stride, X's columns contiguous (a transposed
	// view, flip 0 of a matrix, which the kernel's packing of A reads in
	// place), or packed.
	switch a0, a1 := x.layout[0].Stride, x.layout[1].Stride; {
	case a1 == 1 && (a0 >= K || M == 1):
		s.xb, s.xr, s.lda = x.buf, x.reg, max(a0, K)
	case a0 == 1 && (a1 >= M || K == 1):
		s.xb, s.xr, s.lda, s.transA = x.buf, x.reg, max(a1, M), true
	default:
		p, v, err := c.pack(x)
		if err != nil {
			return nil, false, err
		}
		pre = append(pre, p)
		s.xb, s.xr, s.lda = v.buf, v.reg, K
	}
	// B: C's rows as Bᵀ, C's columns as B, or packed.
	switch c0, c1 := cm.layout[0].Stride, cm.layout[1].Stride; {
	case c1 == 1 && (c0 >= K || N == 1):
		s.bb, s.br, s.ldb, s.transB = cm.buf, cm.reg, max(c0, K), true
		s.bLeaf = c.b.leafAt(cm.dt, cm.buf)
	case c0 == 1 && (c1 >= N || K == 1):
		s.bb, s.br, s.ldb = cm.buf, cm.reg, max(c1, N)
		s.bLeaf = c.b.leafAt(cm.dt, cm.buf)
	default:
		p, v, err := c.pack(cm)
		if err != nil {
			return nil, false, err
		}
		pre = append(pre, p)
		s.bb, s.br, s.ldb, s.transB = v.buf, v.reg, K, true
	}
	// C: the destination itself, or scratch. A destination that
	// accumulates takes the product directly (Gemm's Accumulate) when the
	// body is the bare dot product; otherwise the epilogue accumulates.
	out := dst
	isDot := len(m.dots) == 1 && m.dots[0] == l2.Body
	if d0, d1 := dst.layout[0].Stride, dst.layout[1].Stride; dst.dt != x.dt || d1 != 1 || (d0 < N && M > 1) ||
		(dst.acc != graph.OpInvalid && !isDot) {
		sc, err := c.scratch(graph.ArrayOf(x.dt, M, N))
		if err != nil {
			return nil, false, err
		}
		out = sc
	}
	s.cb, s.cr, s.ldc = out.buf, out.reg, max(N, out.layout[0].Stride)
	s.acc = out == dst && dst.acc == graph.Add

	// The epilogue: E over each row segment, the dot products read from
	// the product's row.
	if !isDot || out != dst {
		e, err := c.epilogue(m, l1, l2, env1, vars, args2, out, dst, s)
		if err != nil {
			return nil, false, err
		}
		s.epi = e
	}
	shape := "A·B"
	if s.transA {
		shape = "Aᵀ·B"
	}
	if s.transB {
		shape += "ᵀ"
	}
	epi := ""
	if s.epi != nil {
		epi = " + " + s.epi.describe()
	}
	if s.acc {
		shape = "C += " + shape
	}
	c.note("gemm %dx%dx%d %s %v threads=%d (kernels.Gemm)%s", M, N, K, shape, x.dt, threads, epi)
	c.b.onRuntime(s.bind)
	return seq(seq(pre...), s.run), true, nil
}

// pack copies the matrix view v into contiguous scratch, for a product
// operand whose strides the kernel cannot take.
func (c *compiler) pack(v *cval) (code, *cval, error) {
	t, err := v.typeOf()
	if err != nil {
		return nil, nil, err
	}
	sc, err := c.scratch(graph.Materialized(t))
	if err != nil {
		return nil, nil, err
	}
	c.note("pack %v into contiguous scratch", v.layout)
	w := *v
	w.acc = graph.OpInvalid
	cp, err := c.copyInto(&w, sc)
	return cp, sc, err
}

// dotMatch is what matchDots found: the dot product terms of E and which
// parameters they multiply.
type dotMatch struct {
	dots   []graph.Node
	ix, ic int // the outer parameter (a row of X) and the inner one (a row of C)
}

// matchDots finds the dot products rnz (+) (*) r c in E with r a parameter
// of the outer lambda and c one of the inner, the same pair everywhere, and
// checks that E uses r and c nowhere else.
func (c *compiler) matchDots(e graph.Node, l1, l2 *graph.Lambda, env *cenv) *dotMatch {
	idx := func(ps []*graph.Var, v *graph.Var) int {
		for i, p := range ps {
			if p == v {
				return i
			}
		}
		return -1
	}
	m := &dotMatch{ix: -1, ic: -1}
	bad := false
	var walk func(n graph.Node)
	walk = func(n graph.Node) {
		if bad {
			return
		}
		if r, ok := n.(*graph.RNZ); ok && len(r.Args) == 2 {
			red, fn := c.fnOf(r.Red, env), c.fnOf(r.Fn, env)
			op, depth, lifted := c.liftedOp(red)
			a, aok := r.Args[0].(*graph.Var)
			b, bok := r.Args[1].(*graph.Var)
			if lifted && op == graph.Add && depth == 0 && c.isMul(fn) && aok && bok {
				ix, ic := idx(l1.Params, a), idx(l2.Params, b)
				if ix < 0 || ic < 0 {
					ix, ic = idx(l1.Params, b), idx(l2.Params, a)
				}
				if ix >= 0 && ic >= 0 {
					if m.ix >= 0 && (m.ix != ix || m.ic != ic) {
						bad = true
						return
					}
					m.ix, m.ic = ix, ic
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
	if bad || m.ix < 0 {
		return nil
	}
	// r and c must appear only inside the dots.
	r, cv := l1.Params[m.ix], l2.Params[m.ic]
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
		return nil
	}
	return m
}

// An epilogue applies E to a finished row segment of a product.
type epilogue struct {
	vars     []loopVar // the outer loop's element registers, set per row
	rowReg   int       // offset of the product's row
	cr, ldc  int
	dstReg   int // offset of the destination's row
	dr, dst0 int
	prog     *vprog
	store    vstore

	// Blocks of whole rows (applyRows), when the rows are short and lie
	// end to end in the product and in the destination: flat is prog with
	// each load of a column operand reading a tile, that operand's n
	// columns repeated flatLen/n times, so that flatLen elements (whole
	// rows) run as one chunk. Nil when the rows run one at a time.
	flat    *vprog
	direct  bool // flat computes its result straight into the destination (direct)
	tiles   []tileLoad
	rows    []loopVar // the operands read per row that flat reads flat
	n       int       // the row's length
	flatLen int
	// tiled[w] is how many elements of the tiles on frame w (of
	// runtime.allFrames) hold their columns for the product in flight:
	// gemmSite.run clears it for the frames the product's epilogues run
	// on, and the first applyRows on a frame fills them, so that the
	// product's blocks of rows do not tile the same columns again. Each
	// entry is written by its frame's goroutine, or by run before the
	// product starts.
	tiled []int
}

// A tileLoad is a column operand of a flat epilogue: the strided source
// its load reads, and the per-frame tile it reads instead.
type tileLoad struct {
	ldt               graph.DType
	buf, base, stride int
	tile              int
}

// epilogue compiles E as a vector program over the columns of one row:
// the inner parameters load their column, the dot products load the
// product's row, and everything that depends only on the row is computed
// once per segment.
func (c *compiler) epilogue(m *dotMatch, l1, l2 *graph.Lambda, env1 *cenv, vars []loopVar, args2 []*cval, out, dst *cval, s *gemmSite) (*epilogue, error) {
	saved := c.par
	c.par = true // epilogues run concurrently, each on its own frame
	defer func() { c.par = saved }()
	loop := &vloop{n: s.N}
	env2 := env1
	var ivars []loopVar
	for i, p := range l2.Params {
		a := args2[i]
		if i == m.ic {
			// Only used inside the dots, which are substituted.
			env2 = env2.bind(p, &cval{kind: cvView, dt: a.dt, buf: a.buf, layout: a.layout[1:], reg: 0})
			continue
		}
		e, vs, err := c.elemOf(a, loop)
		if err != nil {
			return nil, err
		}
		env2 = env2.bind(p, e)
		ivars = append(ivars, vs...)
	}
	loop.vars = ivars
	e := &epilogue{vars: vars, rowReg: c.newInt(), cr: out.reg, ldc: s.ldc,
		dstReg: c.newInt(), dr: dst.reg, dst0: dst.layout[0].Stride}
	leaf := &cval{kind: cvView, dt: out.dt, buf: out.buf, reg: -1}
	leaf.vary = &vsource{loop: loop, base: e.rowReg, stride: 1}
	b := newVBuilder(c, loop)
	b.hoist = s.M > 1
	// Rows of at most half a chunk, end to end in the product and the
	// destination, with nothing read per row but the product (the row of
	// X only in the dots, no other element of the rows' loop, neither in
	// E nor in the inner arguments): blocks of them run flat.
	rowFree := true
	for i, p := range l1.Params {
		rowFree = rowFree && (i == m.ix || rowOperand(l1.Body, p))
	}
	flatLen := 0
	if n := s.N; rowFree && s.M > 1 && n > 0 && 2*n <= flatChunk && s.ldc == n &&
		dst.layout[0].Stride == n && dst.layout[1].Stride == 1 {
		// No longer than the rows there are: each frame holds the flat
		// registers and tiles, and a longer chunk would never fill.
		flatLen = min(flatChunk/n, s.M) * n
		b.regLen = flatLen
	}
	b.subst = map[graph.Node]*cval{}
	for _, d := range m.dots {
		b.subst[d] = leaf
	}
	outs, err := b.outputs(l2.Body, env2, 1)
	if err != nil {
		return nil, fmt.Errorf("gemm epilogue: %w", err)
	}
	e.prog = b.finish(outs, []graph.DType{dst.dt})
	e.store = vstore{dt: dst.dt, buf: dst.buf, reg: e.dstReg, stride: dst.layout[1].Stride, acc: dst.acc}
	if flatLen > 0 {
		c.flatEpilogue(e, s.N, flatLen)
	}
	return e, nil
}

// rowOperand reports whether the row loop's parameter p is unused in
// body, an epilogue's nzip E P A1 .. Ak, or is one of the Ai itself and
// nowhere else: an operand read per row only elementwise, as a residual's
// row is, which a flat epilogue reads flat when its rows lie end to end.
func rowOperand(body graph.Node, p *graph.Var) bool {
	z, ok := body.(*graph.NZip)
	if !ok || conv.UsesVar(z.Fn, p) {
		return !conv.UsesVar(body, p)
	}
	for _, a := range z.Args {
		if a != graph.Node(p) && conv.UsesVar(a, p) {
			return false
		}
	}
	return true
}

// flatEpilogue makes e's flat program, when every instruction of its
// body fits one: the loads of the product's row stay (its rows lie end to
// end), so do those of an operand read per row (a residual's row) whose
// rows lie end to end, the loads of column operands read tiles, and
// nothing may depend on the element's registers (per-element calls) or on
// the destination.
func (c *compiler) flatEpilogue(e *epilogue, n, flatLen int) {
	body := slices.Clone(e.prog.body)
	zero := c.newInt() // never written: the tiles are read from their start
	var tiles []tileLoad
	var rows []loopVar
	for i := range body {
		in := &body[i]
		switch in.kind {
		case vkElem:
			return
		case vkLoad:
			k := slices.IndexFunc(e.vars, func(v loopVar) bool { return v.elem == in.base })
			switch {
			case k >= 0:
				if v := e.vars[k]; in.stride != 1 || v.stride != n {
					return
				} else if !slices.Contains(rows, v) {
					rows = append(rows, v)
				}
			case in.base == e.rowReg:
				if in.stride != 1 {
					return
				}
			case in.base == e.dstReg || (in.ldt != graph.Float32 && in.ldt != graph.Float64):
				return
			default:
				t := tileLoad{ldt: in.ldt, buf: in.buf, base: in.base, stride: in.stride, tile: c.b.alloc(in.ldt, flatLen, true)}
				tiles = append(tiles, t)
				in.buf, in.base, in.stride = t.tile, zero, 1
			}
		}
	}
	flat := *e.prog
	flat.body = body
	e.flat, e.tiles, e.rows, e.n, e.flatLen = &flat, tiles, rows, n, flatLen
	// Stored plainly, a flat chunk's result is computed in the
	// destination's chunk: its copy from the register was a tenth of a
	// MobileNetV2 block's depthwise convolutions.
	e.direct = e.store.acc == graph.OpInvalid && !e.store.stream && direct(&flat, []vstore{e.store})
}

// describe says how the epilogue runs, for the plan's description.
func (e *epilogue) describe() string {
	if e.flat != nil {
		where := ""
		if e.direct {
			where = ", result computed in place"
		}
		return fmt.Sprintf("epilogue per row segment, blocks of rows as flat chunks of %d rows: %s%s", e.flatLen/e.n, e.prog.describe(), where)
	}
	return "epilogue per row segment: " + e.prog.describe()
}

// applyRows runs the epilogue on columns j0..j1-1 of rows i0..i1-1: as
// flat chunks of whole rows when it has a flat program and the columns
// are the whole row, otherwise row by row. Both compute every element by
// the same operations on the same values, so they agree bit for bit.
func (e *epilogue) applyRows(fr *frame, i0, i1, j0, j1 int) {
	if e.flat == nil || j0 != 0 || j1 != e.n || i1-i0 < 2 {
		for i := i0; i < i1; i++ {
			e.apply(fr, i, j0, j1)
		}
		return
	}
	p := e.flat
	p.prologue(fr)
	total := (i1 - i0) * e.n
	fill := min(e.flatLen, total)
	if e.tiled[fr.w] < fill {
		for _, t := range e.tiles {
			off := fr.ints[t.base]
			switch {
			case t.ldt == graph.Float32:
				tileColumns(fr.f32[t.tile][:fill], fr.f32[t.buf], off, t.stride, e.n)
			default:
				tileColumns(fr.f64[t.tile][:fill], fr.f64[t.buf], off, t.stride, e.n)
			}
		}
		e.tiled[fr.w] = fill
	}
	ints := fr.ints
	row, dst := ints[e.cr]+i0*e.ldc, ints[e.dr]+i0*e.dst0
	out := p.outs[0]
	for f := 0; f < total; f += e.flatLen {
		m := min(e.flatLen, total-f)
		ints[e.rowReg], ints[e.dstReg] = row+f, dst+f
		for _, v := range e.rows {
			ints[v.elem] = ints[v.base] + i0*v.stride + f
		}
		if e.direct {
			// The result's register is the destination's chunk for
			// this run of the program alone: the row-by-row program
			// shares it.
			if p.f32 {
				reg := fr.v32[out]
				fr.v32[out] = fr.f32[e.store.buf][dst+f : dst+f+m : dst+f+m]
				p.run(fr, 0, m)
				fr.v32[out] = reg
			} else {
				reg := fr.v64[out]
				fr.v64[out] = fr.f64[e.store.buf][dst+f : dst+f+m : dst+f+m]
				p.run(fr, 0, m)
				fr.v64[out] = reg
			}
			continue
		}
		p.run(fr, 0, m)
		if p.f32 {
			storeChunk(fr, &e.store, fr.v32[out][:m], 0)
		} else {
			storeChunk(fr, &e.store, fr.v64[out][:m], 0)
		}
	}
}

// tileColumns fills tile with the n elements src[off], src[off+stride],
// ... repeated: tile[k] = src[off + (k mod n)·stride].
func tileColumns[T float32 | float64](tile, src []T, off, stride, n int) {
	for j := range min(n, len(tile)) {
		tile[j] = src[off+j*stride]
	}
	for k := n; k < len(tile); k += n {
		copy(tile[k:], tile[:n])
	}
}

// apply runs the epilogue on columns j0..j1-1 of row i.
func (e *epilogue) apply(fr *frame, i, j0, j1 int) {
	ints := fr.ints
	for _, v := range e.vars {
		ints[v.elem] = ints[v.base] + i*v.stride
	}
	ints[e.rowReg] = ints[e.cr] + i*e.ldc
	ints[e.dstReg] = ints[e.dr] + i*e.dst0
	p := e.prog
	p.prologue(fr)
	out := p.outs[0]
	for j := j0; j < j1; j += chunk {
		m := min(chunk, j1-j)
		p.run(fr, j, m)
		if p.f32 {
			storeChunk(fr, &e.store, fr.v32[out][:m], j)
		} else {
			storeChunk(fr, &e.store, fr.v64[out][:m], j)
		}
	}
}

// A gemmSite is one compiled matrix product.
type gemmSite struct {
	M, N, K     int
	dt          graph.DType
	xb, xr, lda int
	transA      bool
	bb, br, ldb int
	transB      bool
	acc         bool // accumulate into C
	cb, cr, ldc int
	threads     int
	epi         *epilogue
	packer      *windowPacker // packs the left operand from the image at xb, xr (the windows of a convolution) instead of reading A

	rt      *runtime
	perF32  []func(row, col0 int, c []float32) // epilogue on frame w of rt.allFrames
	perF64  []func(row, col0 int, c []float64)
	perRows []func(row0, row1, col0, col1 int) // the epilogue on blocks of rows (kernels.GemmParams.EpilogueRows) on frame w
	partF32 func(part int) (func(row, col0 int, c []float32), func(row0, row1, col0, col1 int))
	partF64 func(part int) (func(row, col0 int, c []float64), func(row0, row1, col0, col1 int))
	packF32 []func(dst []float32, mr, i0, h, k0, kc int) // the packer on frame w
	packF64 []func(dst []float64, mr, i0, h, k0, kc int)

	// rowOff, colOff: the offsets of the windows' first elements and of a
	// window's elements, when the product reads the windows through them
	// by kernels.GatherGemm instead of packing them (nil otherwise): on
	// one goroutine, or split by rows over the goroutines (gatherGrain
	// rows at a time, gatherRows).
	rowOff, colOff []int
	gatherGrain    int
	gatherRows     rangeFn

	// bLeaf is the input leaf that B is read from in place, or nil. When
	// its input is fixed (Plan.FixInputs), the product keeps B packed
	// (pb32, pb64) for the binding pbGen of the leaf, at offset pbOff; a
	// product whose offset changes within one binding (one in a loop over
	// B's blocks) stops keeping it (pbVaries).
	bLeaf    *inputLeaf
	pb32     *kernels.PackedB[float32]
	pb64     *kernels.PackedB[float64]
	pbGen    uint64
	pbOff    int
	pbVaries bool
}

// keptB reports whether the product on fr reads its right operand from the
// packed copy it keeps, and whether that copy must be packed first.
func (s *gemmSite) keptB(fr *frame) (use, repack bool) {
	l := s.bLeaf
	if l == nil || !l.fixed || l.bound == nil || fr.par || s.pbVaries || !kernels.UsesPackedB(s.M, s.packer != nil, s.transB) {
		return false, false
	}
	off := fr.ints[s.br]
	if s.pbGen == l.gen {
		if off == s.pbOff {
			return true, false
		}
		s.pbVaries = true
		return false, false
	}
	s.pbGen, s.pbOff = l.gen, off
	if onRepackB != nil {
		onRepackB()
	}
	return true, true
}

// keepB points p at the packed copy of its right operand that s keeps
// in *pb (keptB), packing it first when it is stale.
func keepB[T float32 | float64](s *gemmSite, fr *frame, pb **kernels.PackedB[T], p *kernels.GemmParams[T]) {
	use, repack := s.keptB(fr)
	if !use {
		return
	}
	if repack {
		if *pb == nil {
			*pb = new(kernels.PackedB[T])
		}
		kernels.PackB(*pb, *p)
	}
	p.PackedB = *pb
}

// onRepackB, if not nil, is called whenever a product packs a fixed right
// operand: the tests count them.
var onRepackB func()

// bind makes the epilogue closures once the plan's frames exist, so that
// running the product allocates nothing.
func (s *gemmSite) bind(rt *runtime) {
	s.rt = rt
	if s.rowOff != nil {
		s.gatherRows = func(f *frame, lo, hi int) {
			switch s.dt {
			case graph.Float32:
				gatherSite(s, f, f.f32, kernels.GatherGemmF32, lo, hi)
			case graph.Float64:
				gatherSite(s, f, f.f64, kernels.GatherGemmF64, lo, hi)
			}
		}
	}
	if pk := s.packer; pk != nil {
		for _, fr := range rt.allFrames {
			xb, xr := s.xb, s.xr
			s.packF32 = append(s.packF32, func(dst []float32, mr, i0, h, k0, kc int) {
				packPanel(pk, dst, fr.f32[xb], fr.ints[xr], mr, i0, h, k0, kc)
			})
			s.packF64 = append(s.packF64, func(dst []float64, mr, i0, h, k0, kc int) {
				packPanel(pk, dst, fr.f64[xb], fr.ints[xr], mr, i0, h, k0, kc)
			})
		}
	}
	if s.epi == nil {
		return
	}
	e := s.epi
	e.tiled = make([]int, len(rt.allFrames))
	for _, fr := range rt.allFrames {
		s.perF32 = append(s.perF32, func(row, col0 int, c []float32) { e.apply(fr, row, col0, col0+len(c)) })
		s.perF64 = append(s.perF64, func(row, col0 int, c []float64) { e.apply(fr, row, col0, col0+len(c)) })
		s.perRows = append(s.perRows, func(row0, row1, col0, col1 int) { e.applyRows(fr, row0, row1, col0, col1) })
	}
	// A threaded product's part i runs its epilogues on epilogue frame i
	// (kernels.GemmParams.EpiloguePart): one goroutine at a time per
	// frame, without locks, and the parts' epilogues in parallel.
	epi0 := len(rt.frames)
	s.partF32 = func(part int) (func(row, col0 int, c []float32), func(row0, row1, col0, col1 int)) {
		return s.perF32[epi0+part], s.perRows[epi0+part]
	}
	s.partF64 = func(part int) (func(row, col0 int, c []float64), func(row0, row1, col0, col1 int)) {
		return s.perF64[epi0+part], s.perRows[epi0+part]
	}
}

// readyEpilogue prepares the epilogue's frames for a product on fr with
// threads parts: a threaded product's epilogue frames get fr's registers,
// and the frames that will run it forget the columns they tiled, which may
// have changed since the last run (the operands are inputs, or computed in
// a loop around).
func (s *gemmSite) readyEpilogue(fr *frame, threads int) {
	if s.epi == nil {
		return
	}
	if threads > 1 {
		fr.rt.lendRegisters(fr)
		clear(s.epi.tiled[len(fr.rt.frames):])
	} else {
		s.epi.tiled[fr.w] = 0
	}
}

// run computes the product on the frame fr.
func (s *gemmSite) run(fr *frame) {
	threads := s.threads
	if fr.par {
		threads = 1
	}
	s.readyEpilogue(fr, threads)
	if s.rowOff != nil {
		if threads > 1 && s.M > s.gatherGrain {
			if s.epi != nil {
				clear(s.epi.tiled[:len(fr.rt.frames)])
			}
			fr.rt.parallelFor(fr, s.M, s.gatherGrain, s.gatherRows)
			return
		}
		if threads > 1 && s.epi != nil {
			s.epi.tiled[fr.w] = 0
		}
		s.gatherRows(fr, 0, s.M)
		return
	}
	switch s.dt {
	case graph.Float32:
		p := kernels.GemmParams[float32]{M: s.M, N: s.N, K: s.K,
			A: fr.f32[s.xb][fr.ints[s.xr]:], LDA: s.lda,
			B: fr.f32[s.bb][fr.ints[s.br]:], LDB: s.ldb, TransA: s.transA, TransB: s.transB,
			C: fr.f32[s.cb][fr.ints[s.cr]:], LDC: s.ldc, Accumulate: s.acc,
			Threads: threads, Work: fr.ws}
		if s.epi != nil {
			if threads > 1 {
				p.EpiloguePart = s.partF32
			} else {
				p.Epilogue, p.EpilogueRows = s.perF32[fr.w], s.perRows[fr.w]
			}
		}
		if s.packer != nil {
			p.A, p.LDA, p.PackA = nil, 0, s.packF32[fr.w]
		}
		keepB(s, fr, &s.pb32, &p)
		kernels.GemmF32(p)
	case graph.Float64:
		p := kernels.GemmParams[float64]{M: s.M, N: s.N, K: s.K,
			A: fr.f64[s.xb][fr.ints[s.xr]:], LDA: s.lda,
			B: fr.f64[s.bb][fr.ints[s.br]:], LDB: s.ldb, TransA: s.transA, TransB: s.transB,
			C: fr.f64[s.cb][fr.ints[s.cr]:], LDC: s.ldc, Accumulate: s.acc,
			Threads: threads, Work: fr.ws}
		if s.epi != nil {
			if threads > 1 {
				p.EpiloguePart = s.partF64
			} else {
				p.Epilogue, p.EpilogueRows = s.perF64[fr.w], s.perRows[fr.w]
			}
		}
		if s.packer != nil {
			p.A, p.LDA, p.PackA = nil, 0, s.packF64[fr.w]
		}
		keepB(s, fr, &s.pb64, &p)
		kernels.GemmF64(p)
	}
}

// gatherSite computes rows lo to hi of the product of s on frame fr by
// kernels.GatherGemm, the windows read through their offsets, and then
// runs the epilogue on those rows.
func gatherSite[T float32 | float64](s *gemmSite, fr *frame, bufs [][]T, gather func(kernels.GatherParams[T]) bool, lo, hi int) {
	p := kernels.GatherParams[T]{M: hi - lo, N: s.N, K: s.K,
		X: bufs[s.xb][fr.ints[s.xr]:], RowOff: s.rowOff[lo:hi], ColOff: s.colOff,
		B: bufs[s.bb][fr.ints[s.br]:], LDB: s.ldb,
		C: bufs[s.cb][fr.ints[s.cr]+lo*s.ldc:], LDC: s.ldc, Accumulate: s.acc}
	if !gather(p) {
		panic("native: kernels.GatherGemm declined a product it was compiled for")
	}
	if s.epi != nil {
		s.perRows[fr.w](lo, hi, 0, s.N)
	}
}

// lendRegisters copies the caller's registers into the epilogue frames
// before a threaded product, so that epilogues see the bindings of the
// code around the product.
func (rt *runtime) lendRegisters(fr *frame) {
	for _, e := range rt.epi {
		copy(e.ints, fr.ints)
		copy(e.flts, fr.flts)
	}
}
