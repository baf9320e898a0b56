package native

import (
	"errors"
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/conv"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// flatReduce compiles a sum over the rows of row-major arrays whose
// element function is a map over each row's C elements (a per-channel
// sum over pixels, as BatchNorm's statistics and its gradient take):
//
//	rnz (zip (+)) (\r1 .. rk -> nzip f a1 .. aj) X1 .. Xk
//
// with every Xi of shape [rows, C] row-major, every aj either some ri or
// a vector of C elements that does not depend on the row, and the
// accumulators vectors of C elements. Run row by row, each row pays the
// vector program's dispatch for only C elements. Here the rows run as one
// flat span instead, flatLen elements (whole rows) a chunk, the column
// operands read from tiles that repeat them once per row, and each chunk's
// results are added into flatLen partial sums, folded into the C
// accumulators at the end: the sums are regrouped (as the split over
// goroutines regroups them), which (+)'s algebra allows. ok is false,
// with nothing compiled, where the reduction does not have this form.
func (c *compiler) flatReduce(fn *cval, args []*cval, first, rest *cval, lo, hi int) (code, bool, error) {
	if fn.kind != cvFunc || hi-lo < 2 {
		return nil, false, nil
	}
	l1, ok := rowLambda(fn.node, len(args))
	if !ok {
		return nil, false, nil
	}
	// The accumulators: vectors of C floats, all accumulating by (+) (and
	// the first row's stores, the same leaves storing).
	leaves := rest.leaves()
	C := 0
	for _, l := range leaves {
		if l.kind != cvView || len(l.layout) != 1 || l.acc != graph.Add || (l.dt != graph.Float32 && l.dt != graph.Float64) {
			return nil, false, nil
		}
		if C == 0 {
			C = l.layout[0].Extent
		}
		if l.layout[0].Extent != C || l.dt != leaves[0].dt {
			return nil, false, nil
		}
	}
	var firstLeaves []*cval
	if first != nil {
		firstLeaves = first.leaves()
		if len(firstLeaves) != len(leaves) {
			return nil, false, nil
		}
		for i, l := range firstLeaves {
			if l.acc != graph.OpInvalid || l.buf != leaves[i].buf || l.reg != leaves[i].reg {
				return nil, false, nil
			}
		}
	}
	if C == 0 || 2*C > flatChunk {
		return nil, false, nil
	}
	if !flatRowArgs(args, C) {
		return nil, false, nil
	}
	// The row's results, one per accumulator: a map over the row, a
	// projection of a map that builds a tuple, or a row itself.
	parts := []graph.Node{l1.Body}
	if t, ok := l1.Body.(*graph.Tuple); ok {
		parts = t.Elems
	} else if nz, ok := l1.Body.(*graph.NZip); ok && len(leaves) > 1 && tupleArity(nz) == len(leaves) {
		// One map whose body builds a tuple (a BatchNorm's sums of
		// deviations and of their squares): a projection per accumulator.
		parts = parts[:0]
		for k := range leaves {
			pr, err := graph.NewProj(k, l1.Body)
			if err != nil {
				return nil, false, nil
			}
			parts = append(parts, pr)
		}
	}
	if len(parts) != len(leaves) {
		return nil, false, nil
	}
	// No longer than the rows there are: each frame holds the flat
	// registers, tiles and partial sums, and a longer chunk would never fill.
	flatLen := min(flatChunk/C, hi-lo) * C
	mark := c.vmark()
	fl := c.newFlatRows(l1, args, fn.env, C, flatLen)
	outs := make([]int, len(parts))
	for i, part := range parts {
		r, ok, err := fl.output(part)
		if err != nil {
			if errors.Is(err, errNotVectorisable) {
				c.rollback(mark)
				return nil, false, nil
			}
			return nil, false, err
		}
		if !ok {
			c.rollback(mark)
			return nil, false, nil
		}
		outs[i] = r
	}
	dts := make([]graph.DType, len(leaves))
	for i, l := range leaves {
		dts[i] = l.dt
	}
	p, tiles, tileReg, ok := fl.finish(outs, dts, flatLen)
	if !ok {
		c.rollback(mark)
		return nil, false, nil
	}
	dt := leaves[0].dt
	accs := make([]int, len(leaves))
	for i := range accs {
		accs[i] = c.b.alloc(dt, flatLen, true)
	}
	sums := c.b.alloc(dt, C, true)
	stores := make([]vstore, len(leaves))
	for i, l := range leaves {
		if firstLeaves != nil {
			l = firstLeaves[i]
		}
		stores[i] = vstore{dt: l.dt, buf: l.buf, reg: l.reg, stride: l.layout[0].Stride, acc: l.acc}
	}
	c.note("flat rnz [%d] of rows of %d, %d rows a chunk: %s, partial sums folded", hi-lo, C, flatLen/C, p.describe())
	if dt == graph.Float32 {
		return func(fr *frame) {
			runFlatReduce(p, fr, fr.v32, fr.f32, tiles, tileReg, accs, sums, stores, C, flatLen, lo*C, hi*C)
		}, true, nil
	}
	return func(fr *frame) {
		runFlatReduce(p, fr, fr.v64, fr.f64, tiles, tileReg, accs, sums, stores, C, flatLen, lo*C, hi*C)
	}, true, nil
}

// rowLambda returns fn, the element function of a reduction over k
// arrays, as a lambda of k parameters: fn itself, or for a map written
// without one, nzip g (a global pooling after an add and a ReLU, once
// the reductions over its two axes are one) or the identity (a plain
// global pooling), the lambda that applies it to its parameters. ok is
// false for any other function.
func rowLambda(fn graph.Node, k int) (*graph.Lambda, bool) {
	var body func(ps []graph.Node) (graph.Node, error)
	switch f := fn.(type) {
	case *graph.Lambda:
		return f, len(f.Params) == k
	case *graph.NZip:
		if !graph.IsFunc(f) || len(f.Args) != 0 {
			return nil, false
		}
		body = func(ps []graph.Node) (graph.Node, error) { return graph.NewNZip(f.Fn, ps...) }
	case *graph.Ident:
		if k != 1 {
			return nil, false
		}
		body = func(ps []graph.Node) (graph.Node, error) { return ps[0], nil }
	default:
		return nil, false
	}
	params, refs := make([]*graph.Var, k), make([]graph.Node, k)
	for i := range params {
		params[i] = graph.NewVar(fmt.Sprintf("row%d", i))
		refs[i] = params[i]
	}
	b, err := body(refs)
	if err != nil {
		return nil, false
	}
	l, err := graph.NewLambda(params, b)
	if err != nil {
		return nil, false
	}
	return l, true
}

// runFlatReduce runs a flat reduction (flatReduce) over the flat elements
// start..end-1 of its rows.
func runFlatReduce[T float32 | float64](p *vprog, fr *frame, regs [][]T, bufs [][]T, tiles []tileLoad, tileReg int,
	accs []int, sums int, stores []vstore, C, flatLen, start, end int) {
	p.prologue(fr)
	fill := min(flatLen, end-start)
	fillTiles(fr, tiles, C, fill)
	// -0 is (+)'s identity for every IEEE value, -0 itself included.
	negZero := T(math.Copysign(0, -1))
	for _, a := range accs {
		acc := bufs[a][:fill]
		for i := range acc {
			acc[i] = negZero
		}
	}
	for i0 := start; i0 < end; i0 += flatLen {
		m := min(flatLen, end-i0)
		fr.ints[tileReg] = -i0
		p.run(fr, i0, m)
		for k, a := range accs {
			acc := bufs[a][:m]
			kernels.Arith(kernels.Add, acc, acc, regs[p.outs[k]][:m])
		}
	}
	s := bufs[sums][:C]
	for k, a := range accs {
		acc := bufs[a][:fill]
		copy(s, acc[:C])
		for g := C; g < fill; g += C {
			kernels.Arith(kernels.Add, s, s, acc[g:g+C])
		}
		storeChunk(fr, &stores[k], s, 0)
	}
}

// newFlatRows starts the flat program of the rows of args, C elements
// each, flatLen elements (whole rows) a chunk: its registers are flatLen
// long, and nothing is hoisted (a hoisted value would be C elements long,
// not a chunk's).
func (c *compiler) newFlatRows(l1 *graph.Lambda, args []*cval, env *cenv, C, flatLen int) *flatRows {
	loop := &vloop{n: flatLen}
	b := newVBuilder(c, loop)
	b.hoist, b.regLen = false, flatLen
	return &flatRows{c: c, b: b, loop: loop, l1: l1, args: args, env: env, C: C,
		rows: map[int]*cval{}, cols: map[colKey]*cval{}}
}

// finish finishes the flat program with results outs of types dts and
// reads its columns from tiles (tile). ok is false for a program the flat
// form cannot run: one whose class is not the results' (float32 results
// from a float64 program), or that tile refuses.
func (f *flatRows) finish(outs []int, dts []graph.DType, flatLen int) (p *vprog, tiles []tileLoad, tileReg int, ok bool) {
	p = f.b.finish(outs, dts)
	if p.f32 != (dts[0] == graph.Float32) {
		return nil, nil, 0, false
	}
	tiles, tileReg, ok = f.tile(p, flatLen)
	return p, tiles, tileReg, ok
}

// tile turns the loads of the flat program p that are not rows (its
// column operands) into loads of tiles, flatLen elements that repeat the
// column once per row (fillTiles fills them), read through tileReg, which
// holds minus the chunk's first flat index, so each chunk reads them from
// their start. ok is false for a program the flat form cannot run: one
// with per-element closures, or a column of another type than float.
func (f *flatRows) tile(p *vprog, flatLen int) (tiles []tileLoad, tileReg int, ok bool) {
	rowLoads := map[int]bool{}
	for _, e := range f.flat {
		if r, ok := f.b.loads[e]; ok {
			rowLoads[p.base+r] = true
		}
	}
	tileReg = f.c.newInt()
	for i := range p.body {
		in := &p.body[i]
		switch {
		case in.kind == vkElem:
			return nil, 0, false
		case in.kind != vkLoad || rowLoads[in.dst]:
		case in.ldt != graph.Float32 && in.ldt != graph.Float64:
			return nil, 0, false
		default:
			t := tileLoad{ldt: in.ldt, buf: in.buf, base: in.base, stride: in.stride, tile: f.c.b.alloc(in.ldt, flatLen, true)}
			tiles = append(tiles, t)
			in.buf, in.base, in.stride = t.tile, tileReg, 1
		}
	}
	return tiles, tileReg, true
}

// fillTiles fills the first fill elements of each tile with its column,
// C elements, repeated.
func fillTiles(fr *frame, tiles []tileLoad, C, fill int) {
	for _, t := range tiles {
		if t.ldt == graph.Float32 {
			tileColumns(fr.f32[t.tile][:fill], fr.f32[t.buf], fr.ints[t.base], t.stride, C)
		} else {
			tileColumns(fr.f64[t.tile][:fill], fr.f64[t.buf], fr.ints[t.base], t.stride, C)
		}
	}
}

// flatRowArgs reports whether every argument is a row-major array of
// rows of C elements (rows contiguous, one after the other), as the flat
// forms read them.
func flatRowArgs(args []*cval, C int) bool {
	for _, a := range args {
		if a.kind != cvView || len(a.layout) != 2 || a.layout[1].Extent != C || a.layout[1].Stride != 1 ||
			(a.layout[0].Stride != C && a.layout[0].Extent > 1) {
			return false
		}
	}
	return true
}

// flatMapMaxRow is the longest row flatMap runs flat, and flatMapMinRows
// the fewest rows: below, filling the tiles costs what the dispatches it
// saves cost (a max-pooling window's two rows).
const (
	flatMapMaxRow  = 32
	flatMapMinRows = 8
)

// flatMap compiles a map over the rows of row-major arrays whose body is
// a map over each row's C elements, into a row-major destination:
//
//	nzip (\r1 .. rk -> nzip f a1 .. aj) X1 .. Xk into D
//
// with every Xi and D of shape [rows, C] row-major and every aj some ri
// or a vector of C elements that does not depend on the row: a
// BatchNorm's normalisation or its gradient over the pixels of a batch,
// eight channels a row. Run row by row, each row pays the vector
// program's dispatch for C elements; here rows lo..hi-1 run as one flat
// span, flatLen elements (whole rows) a chunk, the column operands read
// from tiles (flatRows.tile). Each element is computed as the row loop
// computes it, so the results are the same. It returns the loop's body
// and the rows of a chunk, and false, with nothing compiled, where the map
// does not have this form.
func (c *compiler) flatMap(fn *cval, args []*cval, dst *cval, n int) (rangeFn, int, bool, error) {
	if fn.kind != cvFunc || n < flatMapMinRows || dst.kind != cvView || dst.vary != nil || len(dst.layout) != 2 ||
		(dst.dt != graph.Float32 && dst.dt != graph.Float64) {
		return nil, 0, false, nil
	}
	l1, ok := fn.node.(*graph.Lambda)
	if !ok || len(l1.Params) != len(args) {
		return nil, 0, false, nil
	}
	// Rows of at most flatMapMaxRow elements, one to four vectors: there
	// the program's dispatch per row outweighs its arithmetic. Longer rows
	// keep the row loop, which computes what depends on the columns alone
	// once (hoisted), where the flat program computes it per element.
	C := dst.layout[1].Extent
	if C == 0 || C > flatMapMaxRow || !flatRowArgs(append([]*cval{dst}, args...), C) {
		return nil, 0, false, nil
	}
	flatLen := min(flatChunk/C, n) * C
	mark := c.vmark()
	fl := c.newFlatRows(l1, args, fn.env, C, flatLen)
	out, ok, err := fl.output(l1.Body)
	if err != nil && !errors.Is(err, errNotVectorisable) {
		return nil, 0, false, err
	}
	if err != nil || !ok {
		c.rollback(mark)
		return nil, 0, false, nil
	}
	p, tiles, tileReg, ok := fl.finish([]int{out}, []graph.DType{dst.dt}, flatLen)
	if !ok {
		c.rollback(mark)
		return nil, 0, false, nil
	}
	for _, t := range tiles {
		if t.ldt == dst.dt && t.buf == dst.buf {
			// A column read from the destination (a map in place whose
			// column is one of its rows): the tiles of a later range
			// would be filled after earlier rows were overwritten.
			c.rollback(mark)
			return nil, 0, false, nil
		}
	}
	st := vstore{dt: dst.dt, buf: dst.buf, reg: dst.reg, stride: 1, acc: dst.acc}
	c.note("flat map [%d] of rows of %d, %d rows a chunk: %s", n, C, flatLen/C, p.describe())
	return func(fr *frame, lo, hi int) {
		p.prologue(fr)
		start, end := lo*C, hi*C
		fillTiles(fr, tiles, C, min(flatLen, end-start))
		for i0 := start; i0 < end; i0 += flatLen {
			m := min(flatLen, end-i0)
			fr.ints[tileReg] = -i0
			p.run(fr, i0, m)
			if p.f32 {
				storeChunk(fr, &st, fr.v32[p.outs[0]][:m], i0)
			} else {
				storeChunk(fr, &st, fr.v64[p.outs[0]][:m], i0)
			}
		}
	}, flatLen / C, true, nil
}

// flatRows builds the vector program of a flat reduction's rows.
type flatRows struct {
	c    *compiler
	b    *vbuilder
	loop *vloop
	l1   *graph.Lambda
	args []*cval
	env  *cenv
	C    int
	rows map[int]*cval    // by parameter of l1: its row, read flat
	cols map[colKey]*cval // the column operands, by view
	flat []*cval
}

// column returns the element of a column operand a, a vector of C floats
// that does not depend on the row, or a tuple of such vectors (a
// gradient's pair of per-channel sums).
func (f *flatRows) column(a graph.Node) (*cval, bool, error) {
	if t, ok := a.(*graph.Tuple); ok {
		elems := make([]*cval, len(t.Elems))
		for i, x := range t.Elems {
			e, ok, err := f.column(x)
			if err != nil || !ok {
				return nil, false, err
			}
			elems[i] = e
		}
		return &cval{kind: cvTuple, elems: elems}, true, nil
	}
	v, ok := f.c.viewOf(a, f.env)
	if !ok || v.kind != cvView || len(v.layout) != 1 || v.layout[0].Extent != f.C ||
		(v.dt != graph.Float32 && v.dt != graph.Float64) {
		return nil, false, nil
	}
	// One element per view: two operands are the same column when they
	// are the same view, whatever their terms (two let-bound values of
	// one name are different columns).
	key := colKey{buf: v.buf, reg: v.reg, stride: v.layout[0].Stride, dt: v.dt}
	if e, ok := f.cols[key]; ok {
		return e, true, nil
	}
	e, _, err := f.c.elemOf(v, f.loop)
	if err != nil {
		return nil, false, err
	}
	f.cols[key] = e
	return e, true, nil
}

// tupleArity returns the number of elements of the tuple that nz's
// function builds (under its lets), or 1 when it builds none.
func tupleArity(nz *graph.NZip) int {
	l2, ok := nz.Fn.(*graph.Lambda)
	if !ok {
		return 1
	}
	body := l2.Body
	for {
		l, ok := body.(*graph.Let)
		if !ok {
			break
		}
		body = l.Body
	}
	if t, ok := body.(*graph.Tuple); ok {
		return len(t.Elems)
	}
	return 1
}

// A colKey identifies a column operand's view.
type colKey struct {
	buf, reg, stride int
	dt               graph.DType
}

// row returns the flat element of parameter k's rows.
func (f *flatRows) row(k int) *cval {
	if e, ok := f.rows[k]; ok {
		return e
	}
	x := f.args[k]
	e := &cval{kind: cvView, dt: x.dt, buf: x.buf, reg: f.c.newInt(), vary: &vsource{loop: f.loop, base: x.reg, stride: 1}}
	f.rows[k], f.flat = e, append(f.flat, e)
	return e
}

// param returns the index of n among l1's parameters, or -1.
func (f *flatRows) param(n graph.Node) int {
	for j, p := range f.l1.Params {
		if n == graph.Node(p) {
			return j
		}
	}
	return -1
}

// output returns the register of one accumulator's result: part is an
// nzip over the row with a scalar body, a projection of one whose body
// builds a tuple, or a parameter (the row itself).
func (f *flatRows) output(part graph.Node) (int, bool, error) {
	if k := f.param(part); k >= 0 {
		return f.b.load(f.row(k)), true, nil
	}
	idx := 0
	if pr, ok := part.(*graph.Proj); ok {
		idx, part = pr.Index, pr.X
	}
	nz, ok := part.(*graph.NZip)
	if !ok || graph.IsFunc(nz) {
		return 0, false, nil
	}
	n := tupleArity(nz)
	if idx >= n {
		return 0, false, nil
	}
	for _, p := range f.l1.Params {
		if conv.UsesVar(nz.Fn, p) {
			return 0, false, nil
		}
	}
	inner := make([]*cval, len(nz.Args))
	for i, a := range nz.Args {
		if k := f.param(a); k >= 0 {
			inner[i] = f.row(k)
			continue
		}
		for _, p := range f.l1.Params {
			if conv.UsesVar(a, p) {
				return 0, false, nil
			}
		}
		e, ok, err := f.column(a)
		if err != nil || !ok {
			return 0, false, err
		}
		inner[i] = e
	}
	outs, err := f.b.applyOutputs(&cval{kind: cvFunc, node: nz.Fn, env: f.env}, inner, n)
	if err != nil {
		return 0, false, err
	}
	return outs[idx], true, nil
}
