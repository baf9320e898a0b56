package native

import (
	"errors"
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// vectorMap compiles an nzip whose arguments and results have scalar
// elements into a vector loop. ok is false when the body does not fit (a
// tuple built in a way the vector program cannot follow: the builder's
// errNotVectorisable); the caller then makes a generic loop. Any other
// error is returned.
func (c *compiler) vectorMap(fn *cval, args []*cval, dst *cval) (rangeFn, bool, error) {
	mark := c.vmark()
	loop := &vloop{n: dst.leaves()[0].layout[0].Extent}
	elems, vars, err := c.elemsOf(args, loop)
	if err != nil {
		return nil, false, err
	}
	loop.vars = vars
	leaves := dst.leaves()
	b := newVBuilder(c, loop)
	outs, err := b.applyOutputs(fn, elems, len(leaves))
	if err != nil {
		return nil, false, c.refused(err, mark)
	}
	if f, ok := c.axpy(b, outs, leaves); ok {
		return f, true, nil
	}
	if f, ok := c.memcpy(b, outs, leaves); ok {
		return f, true, nil
	}
	dts := make([]graph.DType, len(leaves))
	stores := make([]vstore, len(leaves))
	for i, l := range leaves {
		dts[i] = l.dt
		stores[i] = storeOf(l)
	}
	p := b.finish(outs, dts)
	if f, ok := directStore(p, stores); ok {
		where := "result computed in place"
		if stores[0].stream {
			where = "result computed in place, streamed (non-temporal stores)"
		}
		if len(stores) > 1 {
			where = fmt.Sprintf("%d results computed in place", len(stores))
		}
		c.note("vector loop [%d]: %s, %s", leaves[0].layout[0].Extent, p.describe(), where)
		return f, true, nil
	}
	where, streams := "", false
	for _, st := range stores {
		if st.stream {
			where, streams = ", streamed to the destination (non-temporal stores)", true
		}
	}
	c.note("vector loop [%d]: %s%s", leaves[0].layout[0].Extent, p.describe(), where)
	if p.f32 {
		return func(fr *frame, lo, hi int) {
			p.prologue(fr)
			for i0 := lo; i0 < hi; i0 += chunk {
				m := min(chunk, hi-i0)
				p.run(fr, i0, m)
				for j := range stores {
					storeChunk(fr, &stores[j], fr.v32[p.outs[j]][:m], i0)
				}
			}
			if streams {
				kernels.StreamFence()
			}
		}, true, nil
	}
	return func(fr *frame, lo, hi int) {
		p.prologue(fr)
		for i0 := lo; i0 < hi; i0 += chunk {
			m := min(chunk, hi-i0)
			p.run(fr, i0, m)
			for j := range stores {
				storeChunk(fr, &stores[j], fr.v64[p.outs[j]][:m], i0)
			}
		}
		if streams {
			kernels.StreamFence()
		}
	}, true, nil
}

// directStore returns the loop of a program whose results are stored
// plainly into unit-stride rows of the program's own type, each computed
// by an elementwise instruction of its own: that instruction writes
// straight into the destination, its register aliasing the row's chunk,
// instead of into a register that is then copied. Each instruction reads
// element k before it writes it, and registers are written once. With one
// result, computed by the last instruction, no instruction follows it, so
// a destination that is also read (a map in place, sharedElemLet's) reads
// its old values. With several (an optimizer's parameter and states), no
// instruction may read a destination's buffer, and the results are
// distinct registers stored into distinct buffers.
func directStore(p *vprog, stores []vstore) (rangeFn, bool) {
	if !direct(p, stores) {
		return nil, false
	}
	if stores[0].stream {
		p.body[writers(p.body)[p.outs[0]]].stream = true
	}
	if p.f32 {
		return directLoop(p, stores, func(fr *frame) [][]float32 { return fr.f32 }, func(fr *frame) [][]float32 { return fr.v32 }), true
	}
	return directLoop(p, stores, func(fr *frame) [][]float64 { return fr.f64 }, func(fr *frame) [][]float64 { return fr.v64 }), true
}

// direct reports whether p's results may be computed straight into
// stores (directStore).
func direct(p *vprog, stores []vstore) bool {
	if len(stores) == 0 || len(stores) != len(p.outs) || len(p.body) == 0 {
		return false
	}
	class := graph.Float64
	if p.f32 {
		class = graph.Float32
	}
	writer := writers(p.body)
	bufs, regs := map[int]bool{}, map[int]bool{}
	for j, st := range stores {
		w, ok := writer[p.outs[j]]
		// A streamed destination is written by a chain straight from its
		// registers (ChainProg.RunStream), or else by streamed copies of
		// the chunks (storeChunk).
		if ok && st.stream && (len(stores) > 1 || p.body[w].kind != vkChain || p.body[w].rnd) {
			return false
		}
		if !ok || st.acc != graph.OpInvalid || st.stride != 1 || st.rows != nil || st.dt != class || bufs[st.buf] || regs[p.outs[j]] {
			return false
		}
		bufs[st.buf], regs[p.outs[j]] = true, true
		switch p.body[w].kind {
		case vkUn, vkBin, vkSel, vkExpSub, vkChain, vkErfAffine:
		default:
			return false
		}
	}
	if len(stores) == 1 {
		if writer[p.outs[0]] != len(p.body)-1 {
			return false
		}
	} else {
		for _, in := range p.body {
			if in.kind == vkElem || in.kind == vkLoad && in.ldt == class && bufs[in.buf] {
				return false
			}
		}
	}
	return true
}

// firstFold returns how foldChunk folds a reduction's first chunk res:
// from its first element over the others, or, for the ops that have one,
// from an identity over all of it — -0 for +, 1 for ×, and for max and
// min, which may see an element twice, the first element — so that a row
// of 128 is one vector loop and not one of 96 and a scalar tail of 31
// (the sums and maxima of an attention block's softmax, a third of its
// time).
func firstFold[T float32 | float64](res []T, op graph.Op, dt graph.DType) (T, []T, graph.Op, graph.DType) {
	switch {
	case dt == graph.Int32:
	case op == graph.Add:
		return T(math.Copysign(0, -1)), res, op, dt
	case op == graph.Mul:
		return 1, res, op, dt
	case op == graph.Max || op == graph.Min:
		return res[0], res, op, dt
	}
	return res[0], res[1:], op, dt
}

// directLoop is directStore's loop: before each chunk, every result's
// register is set to its destination's chunk.
func directLoop[T float32 | float64](p *vprog, stores []vstore, bufs, vregs func(*frame) [][]T) rangeFn {
	return func(fr *frame, lo, hi int) {
		p.prologue(fr)
		b, v := bufs(fr), vregs(fr)
		for i0 := lo; i0 < hi; i0 += chunk {
			m := min(chunk, hi-i0)
			for j, st := range stores {
				off := fr.ints[st.reg] + i0
				v[p.outs[j]] = b[st.buf][off : off+m : off+m]
			}
			p.run(fr, i0, m)
		}
		if stores[0].stream {
			kernels.StreamFence()
		}
	}
}

// A vmark is where the compiler stood before a vector program was built:
// what a refused program added is taken back.
type vmark struct {
	pre  int // len(c.pre)
	desc int // the description's length
}

func (c *compiler) vmark() vmark {
	m := vmark{pre: len(c.pre)}
	if c.desc != nil {
		m.desc = c.desc.Len()
	}
	return m
}

// refused sorts an error of the vector program builder: a refusal
// (errNotVectorisable) is dropped, the caller falling back to the general
// loop, and what the refused program added since m (hoisted vectors the
// general loop would not read, their lines in the description) is taken
// back and the refusal noted instead; any other error is returned.
func (c *compiler) refused(err error, m vmark) error {
	if !errors.Is(err, errNotVectorisable) {
		return err
	}
	c.rollback(m)
	c.note("%v; a general loop instead", err)
	return nil
}

// rollback takes back what a vector program built since m added: hoisted
// vectors and their lines in the description.
func (c *compiler) rollback(m vmark) {
	c.pre = c.pre[:m.pre]
	if c.desc != nil && c.desc.Len() > m.desc {
		kept := c.desc.String()[:m.desc]
		c.desc.Reset()
		c.desc.WriteString(kept)
	}
}

// axpy recognises dst += a * x, with a loop-invariant scalar a and x a
// loop element of dst's float type, and compiles it to kernels.Axpy.
func (c *compiler) axpy(b *vbuilder, outs []int, leaves []*cval) (rangeFn, bool) {
	if len(leaves) != 1 || leaves[0].acc != graph.Add || len(b.body) != 2 {
		return nil, false
	}
	ld, mul := b.body[0], b.body[1]
	if ld.kind != vkLoad || mul.kind != vkBin || mul.op != graph.Mul || mul.dst != outs[0] {
		return nil, false
	}
	var a int
	switch ld.dst {
	case mul.a:
		a = mul.b
	case mul.b:
		a = mul.a
	default:
		return nil, false
	}
	dst := leaves[0]
	dt := dst.dt
	if (dt != graph.Float32 && dt != graph.Float64) || ld.ldt != dt || mul.dt != dt ||
		ld.stride == 0 || dst.layout[0].Stride == 0 || a == ld.dst {
		return nil, false
	}
	var alpha sfn
	switch info := b.regs[a]; {
	case info.konst:
		k := info.k
		alpha = func(*frame) float64 { return k }
	case info.bcast:
		for _, in := range b.pro {
			if in.kind == vkBcast && in.dst == a {
				alpha = in.fn
			}
		}
	}
	if alpha == nil {
		return nil, false
	}
	// Everything else the prologue does (setups the invariant needs) runs
	// before the kernel.
	var pre []code
	for _, in := range b.pro {
		switch in.kind {
		case vkSetup:
			pre = append(pre, in.setup)
		case vkSetF:
			fn, r := in.fn, in.freg
			pre = append(pre, func(fr *frame) { fr.flts[r] = fn(fr) })
		}
	}
	prologue := seq(pre...)
	xb, xr, sx := ld.buf, ld.base, ld.stride
	yb, yr, sy := dst.buf, dst.reg, dst.layout[0].Stride
	c.note("axpy [%d] (kernels.Axpy)", dst.layout[0].Extent)
	if dt == graph.Float32 {
		return func(fr *frame, lo, hi int) {
			run(prologue, fr)
			al := float32(alpha(fr))
			kernels.AxpyF32(hi-lo, al, fr.f32[xb][fr.ints[xr]+lo*sx:], sx, fr.f32[yb][fr.ints[yr]+lo*sy:], sy)
		}, true
	}
	return func(fr *frame, lo, hi int) {
		run(prologue, fr)
		al := alpha(fr)
		kernels.AxpyF64(hi-lo, al, fr.f64[xb][fr.ints[xr]+lo*sx:], sx, fr.f64[yb][fr.ints[yr]+lo*sy:], sy)
	}, true
}

// memcpy recognises a plain copy between float rows of one type with unit
// strides.
func (c *compiler) memcpy(b *vbuilder, outs []int, leaves []*cval) (rangeFn, bool) {
	if len(leaves) != 1 || leaves[0].acc != graph.OpInvalid || len(b.body) != 1 || len(b.pro) != 0 {
		return nil, false
	}
	ld, dst := b.body[0], leaves[0]
	if ld.kind != vkLoad || ld.dst != outs[0] || ld.ldt != dst.dt || ld.stride != 1 || dst.layout[0].Stride != 1 {
		return nil, false
	}
	xb, xr, yb, yr := ld.buf, ld.base, dst.buf, dst.reg
	c.note("copy [%d]", dst.layout[0].Extent)
	switch dst.dt {
	case graph.Float32:
		return func(fr *frame, lo, hi int) {
			x, y := fr.ints[xr], fr.ints[yr]
			copy(fr.f32[yb][y+lo:y+hi], fr.f32[xb][x+lo:x+hi])
		}, true
	case graph.Float64:
		return func(fr *frame, lo, hi int) {
			x, y := fr.ints[xr], fr.ints[yr]
			copy(fr.f64[yb][y+lo:y+hi], fr.f64[xb][x+lo:x+hi])
		}, true
	case graph.Bool:
		return func(fr *frame, lo, hi int) {
			x, y := fr.ints[xr], fr.ints[yr]
			copy(fr.bl[yb][y+lo:y+hi], fr.bl[xb][x+lo:x+hi])
		}, true
	case graph.Int32:
		return func(fr *frame, lo, hi int) {
			x, y := fr.ints[xr], fr.ints[yr]
			copy(fr.i32[yb][y+lo:y+hi], fr.i32[xb][x+lo:x+hi])
		}, true
	}
	return nil, false
}

// vectorReduce compiles a reduction by an accumulating op over scalar
// elements: the body as a vector program, each chunk folded left to right
// into an accumulator held in a local variable (the interpreter's order).
// It returns the reduction of elements lo..hi-1, hi > lo. ok is false, and
// the error nil, when the body is not vectorisable (see vectorMap).
func (c *compiler) vectorReduce(op graph.Op, fn *cval, args []*cval, n int) (func(fr *frame, lo, hi int) float64, graph.DType, bool, error) {
	mark := c.vmark()
	loop := &vloop{n: n}
	elems, vars, err := c.elemsOf(args, loop)
	if err != nil {
		return nil, 0, false, err
	}
	loop.vars = vars
	b := newVBuilder(c, loop)
	outs, err := b.applyOutputs(fn, elems, 1)
	if err != nil {
		return nil, 0, false, c.refused(err, mark)
	}
	dt := concrete(b.regs[outs[0]].dt)
	p := b.finish(outs, []graph.DType{dt})
	if f, ok := sumSqDev(p, op, dt); ok {
		c.note("vector rnz [%d] (%v): %s, the sum of the squares of x - m in one pass (kernels.SumSqDevF32)", n, op, p.describe())
		return f, dt, true, nil
	}
	c.note("vector rnz [%d] (%v): %s", n, op, p.describe())
	out := p.outs[0]
	if p.f32 {
		return func(fr *frame, lo, hi int) float64 {
			p.prologue(fr)
			var acc float32
			for i0 := lo; i0 < hi; i0 += chunk {
				m := min(chunk, hi-i0)
				p.run(fr, i0, m)
				res := fr.v32[out][:m]
				if i0 == lo {
					acc = foldChunk(firstFold(res, op, dt))
				} else {
					acc = foldChunk(acc, res, op, dt)
				}
			}
			return float64(acc)
		}, dt, true, nil
	}
	return func(fr *frame, lo, hi int) float64 {
		p.prologue(fr)
		var acc float64
		for i0 := lo; i0 < hi; i0 += chunk {
			m := min(chunk, hi-i0)
			p.run(fr, i0, m)
			res := fr.v64[out][:m]
			if i0 == lo {
				acc = foldChunk(firstFold(res, op, dt))
			} else {
				acc = foldChunk(acc, res, op, dt)
			}
		}
		return acc
	}, dt, true, nil
}

// sumSqDev recognises a float32 sum whose program ends in the chain
// (x - m)·(x - m), m a loop invariant — a variance's pass, as LayerNorm
// and BatchNorm write it — and returns the reduction that runs the
// program's body before the chain and sums the squares with
// kernels.SumSqDevF32, in one pass over x: the chain wrote each chunk of
// squares and the sum read it back. Each difference and square is
// rounded as the chain rounds it; the sum's order is SumSqDevF32's.
// BenchmarkStack's LayerNorm + GELU + residual on 256×4096 took 0.86
// against 0.94 ms fused and 1.64 against 1.86 ms unfused (medians of 8
// alternating rounds).
func sumSqDev(p *vprog, op graph.Op, dt graph.DType) (func(fr *frame, lo, hi int) float64, bool) {
	if op != graph.Add || !p.f32 || dt != graph.Float32 || len(p.body) < 2 {
		return nil, false
	}
	last := &p.body[len(p.body)-1]
	if last.kind != vkChain || last.dst != p.outs[0] || last.rnd || last.stream || len(last.chain) != 2 {
		return nil, false
	}
	sub, sq := last.chain[0], last.chain[1]
	if sub.op != kernels.Sub || !sub.scalar || sub.swap || sub.sqrt || sq.op != kernels.Mul || !sq.self || sq.sqrt {
		return nil, false
	}
	pre := *p
	pre.body = p.body[:len(p.body)-1]
	x, m := last.a, sub.reg
	return func(fr *frame, lo, hi int) float64 {
		pre.prologue(fr)
		var acc float32
		for i0 := lo; i0 < hi; i0 += chunk {
			k := min(chunk, hi-i0)
			pre.run(fr, i0, k)
			s := kernels.SumSqDevF32(fr.v32[x][:k], fr.v32[m][0])
			if i0 == lo {
				acc = s
			} else {
				acc += s
			}
		}
		return float64(acc)
	}, true
}

// dotMap recognises nzip (\.. x .. -> rnz (+) (*) x y) over matrices whose
// rows are dotted with a fixed vector or with the rows of another matrix
// (a matrix-vector product, or the rows of a product), and compiles it to
// one loop calling kernels.Dot per element.
func (c *compiler) dotMap(fn *cval, args []*cval, dst *cval) (rangeFn, bool) {
	l, ok := fn.node.(*graph.Lambda)
	if !ok || fn.kind != cvFunc || len(l.Params) != len(args) || dst.kind != cvView || len(dst.layout) != 1 {
		return nil, false
	}
	r, ok := l.Body.(*graph.RNZ)
	if !ok || len(r.Args) != 2 {
		return nil, false
	}
	op, depth, lifted := c.liftedOp(c.fnOf(r.Red, fn.env))
	if !lifted || op != graph.Add || depth != 0 || !c.isMul(c.fnOf(r.Fn, fn.env)) {
		return nil, false
	}
	type vec struct {
		buf, reg, outer, inner int
	}
	var vs [2]vec
	var k int
	var dt graph.DType
	for i, a := range r.Args {
		var x *cval
		outer := 0
		if v, ok := a.(*graph.Var); ok {
			for j, p := range l.Params {
				if p == v {
					x = args[j]
					if x.kind != cvView || len(x.layout) != 2 {
						return nil, false
					}
					outer = x.layout[0].Stride
					x = &cval{kind: cvView, dt: x.dt, buf: x.buf, reg: x.reg, layout: x.layout[1:]}
				}
			}
		}
		if x == nil {
			// Not a parameter: a vector fixed for the whole loop.
			if usesAny(a, l.Params) {
				return nil, false
			}
			v, ok := c.viewOf(a, fn.env)
			if !ok || v.kind != cvView || len(v.layout) != 1 {
				return nil, false
			}
			x = v
		}
		if i == 0 {
			k, dt = x.layout[0].Extent, x.dt
		} else if x.layout[0].Extent != k || x.dt != dt {
			return nil, false
		}
		if x.layout[0].Stride == 0 {
			return nil, false
		}
		vs[i] = vec{x.buf, x.reg, outer, x.layout[0].Stride}
	}
	if dst.dt != dt || (dt != graph.Float32 && dt != graph.Float64) || (dst.acc != graph.OpInvalid && dst.acc != graph.Add) {
		return nil, false
	}
	x, y := vs[0], vs[1]
	db, dr, ds, acc := dst.buf, dst.reg, dst.layout[0].Stride, dst.acc == graph.Add
	c.note("loop nzip [%d] of dot [%d] (kernels.Dot)", dst.layout[0].Extent, k)
	if dt == graph.Float32 {
		return func(fr *frame, lo, hi int) {
			xb, yb, d := fr.f32[x.buf], fr.f32[y.buf], fr.f32[db]
			xo, yo, do := fr.ints[x.reg]+lo*x.outer, fr.ints[y.reg]+lo*y.outer, fr.ints[dr]+lo*ds
			for i := lo; i < hi; i++ {
				v := kernels.DotF32(k, xb[xo:], x.inner, yb[yo:], y.inner)
				if acc {
					d[do] += v
				} else {
					d[do] = v
				}
				xo, yo, do = xo+x.outer, yo+y.outer, do+ds
			}
		}, true
	}
	return func(fr *frame, lo, hi int) {
		xb, yb, d := fr.f64[x.buf], fr.f64[y.buf], fr.f64[db]
		xo, yo, do := fr.ints[x.reg]+lo*x.outer, fr.ints[y.reg]+lo*y.outer, fr.ints[dr]+lo*ds
		for i := lo; i < hi; i++ {
			v := kernels.DotF64(k, xb[xo:], x.inner, yb[yo:], y.inner)
			if acc {
				d[do] += v
			} else {
				d[do] = v
			}
			xo, yo, do = xo+x.outer, yo+y.outer, do+ds
		}
	}, true
}

// usesAny reports whether n uses one of the variables vs.
func usesAny(n graph.Node, vs []*graph.Var) bool {
	for _, f := range graph.FreeVars(n) {
		for _, v := range vs {
			if f == v {
				return true
			}
		}
	}
	return false
}
