package native

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// A rowGeom places the rows of a nest of zips in one operand: the nest's
// elements, read in row-major order, are rows of n elements (the inner
// axis), and row r lies at offset(r) from the operand's base, r read as a
// multi-index over the outer axes.
type rowGeom struct {
	n     int          // the inner axis's extent
	outer graph.Layout // the outer axes, outermost first, with this operand's strides
}

// newRowGeom returns the geometry of rows of n elements over the outer
// axes, with the axes that lie one after the other in this operand (a
// stride the next axis's extent times its own) merged, and axes of one
// element dropped: row r's offset is the same, and the runs along the
// last axis (rowCursor.run), which copy rows without index arithmetic,
// are longer.
func newRowGeom(n int, outer graph.Layout) *rowGeom {
	var l graph.Layout
	for _, a := range outer {
		if a.Extent == 1 {
			continue
		}
		if k := len(l) - 1; k >= 0 && l[k].Stride == a.Extent*a.Stride {
			l[k] = graph.Axis{Extent: l[k].Extent * a.Extent, Stride: a.Stride}
			continue
		}
		l = append(l, a)
	}
	if len(l) == 0 {
		l = graph.Layout{{Extent: 1, Stride: 0}}
	}
	return &rowGeom{n: n, outer: l}
}

// maxRowAxes is the most outer axes a rowGeom has: a rowCursor keeps its
// multi-index in an array of this size.
const maxRowAxes = 6

// A rowCursor walks the rows of a rowGeom in order: off is where row r
// starts, relative to the operand's base, and idx is r as a multi-index.
type rowCursor struct {
	g   *rowGeom
	off int
	idx [maxRowAxes]int
}

// at returns the cursor at row r.
func (g *rowGeom) at(r int) rowCursor {
	c := rowCursor{g: g}
	for l := len(g.outer) - 1; l >= 0; l-- {
		a := g.outer[l]
		c.idx[l] = r % a.Extent
		c.off += c.idx[l] * a.Stride
		r /= a.Extent
	}
	return c
}

// run returns how many rows from the cursor on lie along the last outer
// axis (at most k), and that axis's stride: rows off, off+stride, ...
func (c *rowCursor) run(k int) (int, int) {
	last := len(c.g.outer) - 1
	a := c.g.outer[last]
	return min(k, a.Extent-c.idx[last]), a.Stride
}

// skip moves the cursor j rows on, j no more than run gave.
func (c *rowCursor) skip(j int) {
	outer := c.g.outer
	l := len(outer) - 1
	c.idx[l] += j
	c.off += j * outer[l].Stride
	for l > 0 && c.idx[l] == outer[l].Extent {
		c.off -= outer[l].Extent * outer[l].Stride
		c.idx[l] = 0
		l--
		c.idx[l]++
		c.off += outer[l].Stride
	}
}

// gatherRows copies the rows of z (len(z)/g.n of them, from row r on) out
// of buffer buf of type ldt, each at base + its offset, elements stride
// apart, converting to T.
func gatherRows[T float32 | float64](z []T, fr *frame, g *rowGeom, ldt graph.DType, buf, base, stride, r int) {
	cur, n := g.at(r), g.n
	src, same := sameTypeBuf[T](fr, ldt, buf)
	same = same && stride == 1
	for k := 0; k < len(z); {
		run, st := cur.run((len(z) - k) / n)
		off := base + cur.off
		if same {
			copyRun(z, k, n, src, off, st, n, run)
			k += run * n
		} else {
			for range run {
				loadRow(z[k:k+n], fr, ldt, buf, off, stride)
				k, off = k+n, off+st
			}
		}
		cur.skip(run)
	}
}

// scatterRows is gatherRows's inverse for a plain store (a store that
// does not accumulate): the rows of res into s's places.
func scatterRows[T float32 | float64](fr *frame, s *vstore, res []T, r int) {
	g := s.rows
	cur, n := g.at(r), g.n
	d, same := sameTypeBuf[T](fr, s.dt, s.buf)
	same = same && s.stride == 1 && s.acc == graph.OpInvalid
	for k := 0; k < len(res); {
		run, st := cur.run((len(res) - k) / n)
		off := fr.ints[s.reg] + cur.off
		if same {
			copyRun(d, off, st, res, k, n, n, run)
			k += run * n
		} else {
			for range run {
				storeRow(fr, s, res[k:k+n], off)
				k, off = k+n, off+st
			}
		}
		cur.skip(run)
	}
}

// copyRun copies run rows of n elements, row i from src[so+i*ss:] to
// dst[do+i*ds:]: rows of 32 or 64 bytes (a CNN's 8 or 16 channels) by
// kernels.CopyRows, a vector load and store each, the others by copy.
func copyRun[T float32 | float64](dst []T, do, ds int, src []T, so, ss, n, run int) {
	if kernels.CopyRows(dst, do, ds, src, so, ss, n, run) {
		return
	}
	for range run {
		copy(dst[do:do+n], src[so:so+n])
		do, so = do+ds, so+ss
	}
}

// maxRowLen is the longest inner axis rowsMap takes. Past it a row fills
// a quarter of the flatChunk elements its register holds, and the nest's
// own loops pay their vector loops' dispatch on enough elements; they also
// read unit-stride rows in place, which the rows' gathering copies.
const maxRowLen = flatChunk / 4

// minRowLen is the shortest inner axis rowsMap takes: a row of one to
// three elements is copied element by element, and the nest's own loops
// do no worse.
const minRowLen = 4

// rowsMap compiles a nest of zips over scalars that collapseNest could not
// merge, nzip (nzip .. (nzip g)) xs into d, every argument and the
// destination of rank d (each with strides of its own: a window's
// positions, a flipped operand, a strided scratch), into one vector loop
// over all the nest's elements, read as rows of the inner axis: each chunk
// holds whole rows, gathered from (and scattered to) their places, so the
// vector program's dispatch is paid once per chunk instead of once per
// row. A max pooling written weight stationary (a reduction over the
// window's elements of a map over the [positions, positions, channels]
// they see) is such a nest, and its gradient a sequence of them: rows of
// 8 or 16 channels, which the nest's loops ran one short vector loop at a
// time. The elements are visited in the nest's order, and each is
// computed by the same scalar function: the results are the nest's, bit
// for bit. ok is false, with nothing compiled, where the nest does not
// have this form or its inner axis is shorter than minRowLen or longer
// than maxRowLen.
func (c *compiler) rowsMap(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	leaves := dst.leaves()
	d := leafRank(dst)
	if d < 2 || d-1 > maxRowAxes || fn.kind != cvFunc {
		return nil, false, nil
	}
	// The scalar function at the bottom of the nest: under d-1 zips, or
	// the identity of a copy.
	g := fn
	for range d - 1 {
		if _, ok := g.node.(*graph.Ident); ok {
			break
		}
		n, ok := g.node.(*graph.NZip)
		if !ok || !graph.IsFunc(n) || len(n.Args) != 0 {
			return nil, false, nil
		}
		g = &cval{kind: cvFunc, node: n.Fn, env: g.env}
	}
	shape := leaves[0].layout
	same := func(v *cval) bool {
		for _, l := range v.leaves() {
			if l.kind != cvView || l.vary != nil || !l.layout.SameExtents(shape) {
				return false
			}
		}
		return true
	}
	if !same(dst) {
		return nil, false, nil
	}
	for _, a := range args {
		if !same(a) {
			return nil, false, nil
		}
	}
	if code, ok, err := c.rowsStaged(fn, args, dst, shape); ok || err != nil {
		return code, ok, err
	}
	// A row is the inner axis and the axes above it that every operand
	// sees as one with it (the positions and channels of a window at
	// stride 1): the rows are m outer axes of n elements.
	// A plain copy's rows are copied whole (rowsCopy), however long: the
	// rows of a padded scratch's interior are image rows, one copy each.
	all := append(slices.Clone(leaves), leafViews(args)...)
	_, copying := g.node.(*graph.Ident)
	copying = copying && len(leaves) == 1 && len(args) == 1 && args[0].kind == cvView &&
		leaves[0].acc == graph.OpInvalid && args[0].dt == leaves[0].dt
	m, n := d-1, shape[d-1].Extent
	for m > 1 && (copying || n*shape[m-1].Extent <= maxRowLen) && !slices.ContainsFunc(all, func(l *cval) bool {
		return l.layout[m-1].Stride != n*l.layout[d-1].Stride
	}) {
		n *= shape[m-1].Extent
		m--
	}
	if n < minRowLen || (n > maxRowLen && !copying) {
		return nil, false, nil
	}
	rows := shape[:m].Size()
	if rows < 2 {
		return nil, false, nil
	}
	mark := c.vmark()
	loop := &vloop{n: rows * n}
	elems := make([]*cval, len(args))
	for i, a := range args {
		elems[i] = c.rowElem(a, loop, m, n)
	}
	b := newVBuilder(c, loop)
	// No per-element vectors hoisted out of the loop: they are computed
	// in chunks of the flat element order, which need not hold whole
	// rows.
	b.hoist = false
	outs, err := b.applyOutputs(g, elems, len(leaves))
	if err != nil {
		return nil, false, c.refused(err, mark)
	}
	dts := make([]graph.DType, len(leaves))
	stores := make([]vstore, len(leaves))
	for i, l := range leaves {
		dts[i] = l.dt
		stores[i] = vstore{dt: l.dt, buf: l.buf, reg: l.reg, stride: l.layout[d-1].Stride, acc: l.acc,
			rows: newRowGeom(n, l.layout[:m])}
	}
	p := b.finish(outs, dts)
	for _, in := range p.body {
		if in.kind == vkElem {
			// A per-element closure sets its elements' registers from
			// the loop's one stride; the rows have several.
			c.rollback(mark)
			return nil, false, nil
		}
	}
	par := c.wantParallel(rows, float64(n)*c.perElement(g, elemArgs(args, d-1)))
	if f, ok := rowsCopy(p, stores); ok {
		c.note("copy [%s,%d] in rows of %d", extents(shape[:m]), n, n)
		if par {
			c.note("  split over goroutines in grains of %d rows", c.grain(rows, 1))
		}
		return c.loop(rows, f, par), true, nil
	}
	if n > maxRowLen {
		// Not a copy rowsCopy takes (an element type it does not):
		// rows too long for the chunks below; the nest's loops take it.
		c.rollback(mark)
		return nil, false, nil
	}
	per := max(1, flatChunk/n) // whole rows a chunk
	// An accumulating store of the program's own type gathers the rows
	// it adds to into a register and accumulates the chunk in one pass
	// (short rows would each pay a call), then stores it plainly.
	accs := make([]rowsAcc, len(stores))
	for j, st := range stores {
		accs[j].tmp = -1
		if op, ok := arithOp(st.acc); ok && st.dt == progType(p) {
			accs[j] = rowsAcc{tmp: c.b.allocV(p.f32, 1, min(per, rows)*n), op: op}
		}
	}
	fold, folds := matchRowsFold(p, stores, n)
	if folds {
		c.note("vector loop [%s,%d] in rows of %d: %s, folded in one pass over the rows (kernels.FoldRows; else %d rows a chunk)",
			extents(shape[:m]), n, n, p.describe(), min(per, rows))
	} else {
		c.note("vector loop [%s,%d] in rows of %d, %d rows a chunk: %s", extents(shape[:m]), n, n, min(per, rows), p.describe())
	}
	chunks := func(fr *frame, lo, hi int) {
		p.prologue(fr)
		for r0 := lo; r0 < hi; r0 += per {
			m := min(per, hi-r0) * n
			p.run(fr, r0*n, m)
			for j := range stores {
				if p.f32 {
					storeRows(fr, &stores[j], accs[j], fr.v32, p.outs[j], r0*n, m)
				} else {
					storeRows(fr, &stores[j], accs[j], fr.v64, p.outs[j], r0*n, m)
				}
			}
		}
	}
	body := chunks
	if folds {
		body = func(fr *frame, lo, hi int) {
			if !fold.run(fr, lo, hi, p.f32) {
				chunks(fr, lo, hi)
			}
		}
	}
	grain := c.grain(rows, per)
	if par {
		c.note("  split over goroutines in grains of %d rows", grain)
	}
	return c.loopGrains(rows, grain, body, par), true, nil
}

// stagedMax is the most elements of the slice of an operand rowsStaged
// transposes into scratch: a megabyte of float32, which stays in the
// second-level cache between the transposition and the rows that read it.
const stagedMax = 1 << 18

// rowsStaged compiles rowsMap's nest when operands are read across their
// contiguous axis — along the rows at a stride, and at stride one along
// an outer axis, as an imported NCHW model's residual add reads the NHWC
// product of a convolution — and the destination is not: those operands
// are transposed into scratch in the destination's order (transposeInto:
// kernels.PackRows), and the nest runs over the scratch. Gathered element
// by element, the 32 channels of 3136 positions read that way took 7% of
// an imported MobileNetV2 block. The nest is staged whole when it has at
// most stagedMax elements, else, at each index of its first axis, the
// slices below it, when they have at most stagedMax elements: what is
// transposed stays in the second-level cache until the nest reads it. ok
// is false, with nothing compiled, for any other nest.
func (c *compiler) rowsStaged(fn *cval, args []*cval, dst *cval, shape graph.Layout) (code, bool, error) {
	d := len(shape)
	if d < 2 || dst.kind != cvView || dst.layout[d-1].Stride != 1 {
		return nil, false, nil
	}
	// from is the first axis staged: 0, the whole nest, or 1, slices.
	from := 0
	switch {
	case shape.Size() <= stagedMax:
	case d >= 3 && shape[1:].Size() <= stagedMax:
		from = 1
	default:
		return nil, false, nil
	}
	var staged []int
	for k, a := range args {
		if a.kind != cvView {
			return nil, false, nil
		}
		if (a.dt == graph.Float32 || a.dt == graph.Float64) && a.layout[d-1].Stride != 1 &&
			slices.ContainsFunc(a.layout[from:d-1], func(x graph.Axis) bool { return x.Stride == 1 && x.Extent > 1 }) {
			staged = append(staged, k)
		}
	}
	if len(staged) == 0 {
		return nil, false, nil
	}
	body := fn
	if from == 1 {
		z, ok := fn.node.(*graph.NZip)
		if !ok || !graph.IsFunc(z) || len(z.Args) != 0 {
			return nil, false, nil
		}
		body = &cval{kind: cvFunc, node: z.Fn, env: fn.env}
	}
	mark := c.vmark()
	n0 := 1
	par := false
	if from == 1 {
		n0 = shape[0].Extent
		par = c.wantParallel(n0, float64(shape[1:].Size())*c.perElement(fn, elemArgs(args, 1)))
	}
	saved, depth := c.par, c.depth
	defer func() { c.par, c.depth = saved, depth }()
	c.par = c.par || par
	// The slices at index i of the first axis (or the whole operands):
	// views of the axes from from on, their offsets set at each index
	// from the operands'.
	type shift struct{ to, from, stride int }
	var shifts []shift
	sub := func(v *cval) *cval {
		if from == 0 {
			return v
		}
		w := *v
		w.layout, w.reg, w.vary, w.pad = v.layout[1:], c.newInt(), nil, nil
		shifts = append(shifts, shift{w.reg, v.reg, v.layout[0].Stride})
		return &w
	}
	names := make([]string, len(staged))
	for i, k := range staged {
		names[i] = strconv.Itoa(k + 1)
	}
	what := "operand " + names[0]
	if len(names) > 1 {
		what = "operands " + strings.Join(names, " and ")
	}
	if from == 1 {
		c.note("loop nzip [%d]%s, %s's slices transposed into scratch:", n0, parNote(par), what)
	} else {
		c.note("%s transposed into scratch:", what)
	}
	c.depth++
	subArgs := make([]*cval, len(args))
	var stage []code
	for k, a := range args {
		subArgs[k] = sub(a)
		if !slices.Contains(staged, k) {
			continue
		}
		scratch, err := c.scratch(graph.ArrayOf(a.dt, shape[from:].Extents()...))
		if err != nil {
			return nil, false, err
		}
		transpose, ok, err := c.transposeInto(&cval{kind: cvFunc, node: graph.NewIdent()}, []*cval{subArgs[k]}, scratch)
		if err != nil || !ok {
			c.rollback(mark)
			return nil, false, err
		}
		subArgs[k] = scratch
		stage = append(stage, transpose)
	}
	nest, err := c.nzipInto(body, subArgs, sub(dst))
	if err != nil {
		return nil, false, err
	}
	run := seq(append(stage, nest)...)
	if from == 0 {
		return run, true, nil
	}
	return c.loopGrains(n0, 1, func(fr *frame, lo, hi int) {
		for i := lo; i < hi; i++ {
			for _, s := range shifts {
				fr.ints[s.to] = fr.ints[s.from] + i*s.stride
			}
			run(fr)
		}
	}, par), true, nil
}

// rowsCopy returns the loop of a program that only copies one operand's
// rows, unit stride, into a plain store of the same type: each row goes
// straight from its place to its destination, without the register a
// gathered chunk passes through.
func rowsCopy(p *vprog, stores []vstore) (rangeFn, bool) {
	if len(stores) != 1 || len(p.body) != 1 {
		return nil, false
	}
	ld, st := p.body[0], stores[0]
	if ld.kind != vkLoad || ld.dst != p.outs[0] || ld.rows == nil || ld.stride != 1 || st.stride != 1 ||
		st.acc != graph.OpInvalid || ld.ldt != st.dt || (st.dt != graph.Float32 && st.dt != graph.Float64) {
		return nil, false
	}
	if st.dt == graph.Float32 {
		return func(fr *frame, lo, hi int) {
			copyRows(fr.f32[ld.buf], fr.f32[st.buf], fr.ints[ld.base], fr.ints[st.reg], ld.rows, st.rows, lo, hi)
		}, true
	}
	return func(fr *frame, lo, hi int) {
		copyRows(fr.f64[ld.buf], fr.f64[st.buf], fr.ints[ld.base], fr.ints[st.reg], ld.rows, st.rows, lo, hi)
	}, true
}

// copyRows copies rows lo..hi-1 of src (rows placed by sg from sbase) to
// dst (by dg from dbase).
func copyRows[T float32 | float64](src, dst []T, sbase, dbase int, sg, dg *rowGeom, lo, hi int) {
	n := sg.n
	s, d := sg.at(lo), dg.at(lo)
	for r := lo; r < hi; {
		k, ss := s.run(hi - r)
		k, ds := d.run(k)
		copyRun(dst, dbase+d.off, ds, src, sbase+s.off, ss, n, k)
		s.skip(k)
		d.skip(k)
		r += k
	}
}

// progType is the element type of p's class.
func progType(p *vprog) graph.DType {
	if p.f32 {
		return graph.Float32
	}
	return graph.Float64
}

// A rowsAcc accumulates a rows store through register tmp by op; tmp is
// -1 for a store that does not (a plain store, or one in another type).
type rowsAcc struct {
	tmp int
	op  kernels.ArithOp
}

// storeRows stores the m elements of register out from element i0 on
// into s, a rows store. With a.tmp set (s accumulates, in the program's
// type) it gathers the rows s adds to into register a.tmp, combines them
// with the results in one pass, and stores them plainly: the same
// operation on the same operands as storeF's, one call a chunk instead of
// one a row.
func storeRows[T float32 | float64](fr *frame, s *vstore, a rowsAcc, regs [][]T, out, i0, m int) {
	res := regs[out][:m]
	if a.tmp < 0 {
		scatterRows(fr, s, res, i0/s.rows.n)
		return
	}
	g, acc := s.rows, regs[a.tmp][:m]
	gatherRows(acc, fr, g, s.dt, s.buf, fr.ints[s.reg], s.stride, i0/g.n)
	kernels.Arith(a.op, acc, acc, res)
	plain := *s
	plain.acc = graph.OpInvalid
	scatterRows(fr, &plain, acc, i0/g.n)
}

// rowElem returns the element of a rowsMap loop that reads the nest's
// argument a (a view, or a tuple of views): a scalar varying with the
// loop, placed by its own rows, m outer axes of n elements.
func (c *compiler) rowElem(a *cval, loop *vloop, m, n int) *cval {
	if a.kind == cvTuple {
		out := &cval{kind: cvTuple}
		for _, e := range a.elems {
			out.elems = append(out.elems, c.rowElem(e, loop, m, n))
		}
		return out
	}
	inner := a.layout[len(a.layout)-1]
	return &cval{kind: cvView, dt: a.dt, buf: a.buf, reg: c.newInt(), acc: a.acc,
		vary: &vsource{loop: loop, base: a.reg, stride: inner.Stride, rows: newRowGeom(n, a.layout[:m])}}
}

// leafViews returns the leaves of args.
func leafViews(args []*cval) []*cval {
	var out []*cval
	for _, a := range args {
		out = append(out, a.leaves()...)
	}
	return out
}

// elemArgs returns args with their k outer axes dropped: the views of
// their elements k levels down, for estimating the work on one.
func elemArgs(args []*cval, k int) []*cval {
	out := make([]*cval, len(args))
	for i, a := range args {
		out[i] = dropOuter(a, k)
	}
	return out
}

func dropOuter(a *cval, k int) *cval {
	if a.kind == cvTuple {
		out := &cval{kind: cvTuple}
		for _, e := range a.elems {
			out.elems = append(out.elems, dropOuter(e, k))
		}
		return out
	}
	w := *a
	w.layout = a.layout[k:]
	return &w
}

// extents writes a layout's extents as 4,4,8.
func extents(l graph.Layout) string {
	s := make([]string, len(l))
	for i, a := range l {
		s[i] = fmt.Sprint(a.Extent)
	}
	return strings.Join(s, ",")
}
