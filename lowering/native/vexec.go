package native

import (
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// run computes the program for the elements i0..i0+m-1 of its loop.
func (p *vprog) run(fr *frame, i0, m int) {
	if p.f32 {
		execBody(p, fr.v32, fr, i0, m)
	} else {
		execBody(p, fr.v64, fr, i0, m)
	}
}

func execBody[T float32 | float64](p *vprog, regs [][]T, fr *frame, i0, m int) {
	for i := range p.body {
		in := &p.body[i]
		if in.kind == vkLoad && in.stride == 1 && in.rows == nil {
			// A unit-stride row of the program's own type is used in
			// place: the register aliases the buffer for this chunk. Only
			// the load writes a load's register, so nothing writes
			// through the alias.
			if src, ok := sameTypeBuf[T](fr, in.ldt, in.buf); ok {
				off := fr.ints[in.base] + i0
				regs[in.dst] = src[off : off+m : off+m]
				continue
			}
		}
		z := regs[in.dst][:m]
		switch in.kind {
		case vkLoad:
			loadChunk(z, fr, in, i0)
		case vkUn:
			if in.f1 != nil {
				unChunkFn(in.f1, z, regs[in.a][:m])
			} else {
				unChunk(in.op, z, regs[in.a][:m])
			}
		case vkBin:
			if in.f2 != nil {
				binChunkFn(in.f2, z, regs[in.a][:m], regs[in.b][:m])
			} else {
				if in.op == graph.Pow {
					powChunk(z, regs[in.a][:m], regs[in.b][:m], in.invB)
				} else {
					binChunk(in.op, z, regs[in.a][:m], regs[in.b][:m])
				}
			}
		case vkSel:
			kernels.Select(z, regs[in.c][:m], regs[in.a][:m], regs[in.b][:m])
		case vkElem:
			elemChunk(z, regs, fr, in, i0)
		case vkExpSub:
			expSubChunk(z, regs[in.a][:m], regs[in.b][0], p.ahead(in, fr, i0, m))
		case vkErfAffine:
			var aheadW []float32
			if in.aheadW {
				aheadW = any(regs[p.outs[0]]).([]float32)
			}
			if g := in.gelu; g != nil {
				var w []float32
				if g.w >= 0 {
					w = any(regs[g.w][:m]).([]float32)
				}
				kernels.ErfGELUAheadF32(any(z).([]float32), any(regs[in.a][:m]).([]float32), kernels.GELU{
					Scale: float32(regs[in.b][0]), Shift: float32(regs[in.c][0]), K: float32(regs[g.k][0]),
					Div: in.divide, KFirst: g.kFirst,
				}, w, p.ahead(in, fr, i0, m))
				break
			}
			erf := kernels.ErfAffineAheadF32
			if in.divide {
				erf = kernels.ErfDivAffineAheadF32
			}
			erf(any(z).([]float32), any(regs[in.a][:m]).([]float32), float32(regs[in.b][0]), float32(regs[in.c][0]),
				p.ahead(in, fr, i0, m), aheadW)
		case vkChain:
			// A scalar step reads its register's first element; a Self
			// step reads none.
			var ys [kernels.MaxChain][]T
			for k, s := range in.chain {
				ys[k] = regs[s.reg]
			}
			if in.stream {
				in.cprog.(*kernels.ChainProg[T]).RunStream(z, regs[in.a][:m], &ys)
			} else {
				in.cprog.(*kernels.ChainProg[T]).Run(z, regs[in.a][:m], &ys)
			}
		}
		if in.rnd {
			roundChunk(z, in.dt)
		}
	}
}

// ahead returns the elements that in (marked by markAhead) asks the cache
// for while it computes the chunk of m elements at i0: the next row of its
// load, or nil when there is none or it lies past the buffer's end.
func (p *vprog) ahead(in *vinstr, fr *frame, i0, m int) []float32 {
	if in.ahead == 0 {
		return nil
	}
	ld := &p.body[in.ahead-1]
	src := fr.f32[ld.buf]
	if off := fr.ints[ld.base] + i0 + in.aheadDist; off+m <= len(src) {
		return src[off : off+m]
	}
	return nil
}

// sameTypeBuf returns float buffer buf of type dt when dt is T's type.
func sameTypeBuf[T float32 | float64](fr *frame, dt graph.DType, buf int) ([]T, bool) {
	var z T
	switch any(z).(type) {
	case float32:
		if dt == graph.Float32 {
			return any(fr.f32[buf]).([]T), true
		}
	case float64:
		if dt == graph.Float64 {
			return any(fr.f64[buf]).([]T), true
		}
	}
	return nil, false
}

func loadChunk[T float32 | float64](z []T, fr *frame, in *vinstr, i0 int) {
	if g := in.rows; g != nil {
		gatherRows(z, fr, g, in.ldt, in.buf, fr.ints[in.base], in.stride, i0/g.n)
		return
	}
	loadRow(z, fr, in.ldt, in.buf, fr.ints[in.base]+i0*in.stride, in.stride)
}

// loadRow converts the len(z) elements of buffer buf of type ldt at off,
// off+s, ... into z.
func loadRow[T float32 | float64](z []T, fr *frame, ldt graph.DType, buf, off, s int) {
	switch ldt {
	case graph.Float32:
		src := fr.f32[buf]
		if s == 1 {
			src = src[off : off+len(z)]
			for k, v := range src {
				z[k] = T(v)
			}
			return
		}
		for k := range z {
			z[k] = T(src[off])
			off += s
		}
	case graph.Float64:
		src := fr.f64[buf]
		if s == 1 {
			src = src[off : off+len(z)]
			for k, v := range src {
				z[k] = T(v)
			}
			return
		}
		for k := range z {
			z[k] = T(src[off])
			off += s
		}
	case graph.Bool:
		src := fr.bl[buf]
		for k := range z {
			if src[off] {
				z[k] = 1
			} else {
				z[k] = 0
			}
			off += s
		}
	case graph.Int32:
		src := fr.i32[buf]
		for k := range z {
			z[k] = T(src[off])
			off += s
		}
	}
}

// unChunkFn applies graph's function of an op to every element: the i32
// ops, whose wrapping and division graph defines (float64 programs hold
// int32 values exactly).
func unChunkFn[T float32 | float64](f func(float64) float64, z, x []T) {
	x = x[:len(z)]
	for k, v := range x {
		z[k] = T(f(float64(v)))
	}
}

// binChunkFn is unChunkFn for binary ops.
func binChunkFn[T float32 | float64](f func(x, y float64) float64, z, x, y []T) {
	x, y = x[:len(z)], y[:len(z)]
	for k := range z {
		z[k] = T(f(float64(x[k]), float64(y[k])))
	}
}

// expChunk sets z[k] = e**x[k] with the vector exp of package kernels:
// within 2 ulp of graph.ExpFloat64 in float64, and within 1 ulp of its
// float32 rounding in float32 (equal for 99.5% of the arguments, as
// kernels.ExpF32 says).
func expChunk[T float32 | float64](z, x []T) {
	switch z := any(z).(type) {
	case []float32:
		kernels.ExpF32(z, any(x).([]float32))
	case []float64:
		kernels.ExpF64(z, any(x).([]float64))
	}
}

// expSubChunk sets z[k] = e**(x[k] - b): float32 programs only (fuseExpSub).
func expSubChunk[T float32 | float64](z, x []T, b T, ahead []float32) {
	kernels.ExpSubAheadF32(any(z).([]float32), any(x).([]float32), float32(b), ahead)
}

// powChunk sets z[k] = pow(x[k], y[k]), rounded to T. An exponent that
// is the same for the whole chunk (inv: a loop invariant, every element
// y[0]) and whole, from 2 to 64, is looked at once, not per element.
func powChunk[T float32 | float64](z, x, y []T, inv bool) {
	if len(z) == 0 {
		return
	}
	if n := float64(y[0]); inv && n >= 2 && n <= 64 && n == math.Trunc(n) {
		if z32, ok := any(z).([]float32); ok && (n == 2 || n == 3) {
			// A float32's square is exact in float64, so the float32
			// product rounds it as math.Pow does; its cube is CubeF32's
			// float64 product, rounded once more.
			x32 := any(x).([]float32)
			if n == 2 {
				kernels.Arith(kernels.Mul, z32, x32, x32)
			} else {
				kernels.CubeF32(z32, x32)
			}
			return
		}
		for k, v := range x {
			p, ok := powWhole(float64(v), int(n))
			if !ok {
				p = math.Pow(float64(v), n)
			}
			z[k] = T(p)
		}
		return
	}
	for k := range z {
		z[k] = T(pow(float64(x[k]), float64(y[k])))
	}
}

// pow is math.Pow(x, y), bit for bit, with a shortcut for the whole
// exponents from 2 to 64 that models write (a cube in GPT-2's GELU, a
// square in a variance), which math.Pow takes some 20 ns for: x**n by
// squaring and multiplying, in the order math.Pow multiplies its
// mantissas. Scaling by powers of 2 being exact, the products round alike
// while every power used is a normal float64: so x must be between 2**-1000
// and 2**1000 in magnitude and the result between 2**-1020 and 2**1020;
// otherwise (0, ±Inf, NaN, an overflow or underflow on the way) math.Pow
// decides.
func pow(x, y float64) float64 {
	if y >= 2 && y <= 64 && y == math.Trunc(y) {
		if z, ok := powWhole(x, int(y)); ok {
			return z
		}
	}
	return math.Pow(x, y)
}

// powWhole is pow's shortcut, x**n for n ≥ 1; ok is false where
// math.Pow must decide.
func powWhole(x float64, n int) (z float64, ok bool) {
	if ax := math.Abs(x); !(ax >= 0x1p-1000 && ax <= 0x1p1000) {
		return 0, false
	}
	a, p := 1.0, x
	for ; ; n >>= 1 {
		if n&1 == 1 {
			a *= p
		}
		if n == 1 {
			break
		}
		p *= p
	}
	if aa := math.Abs(a); !(aa >= 0x1p-1020 && aa <= 0x1p1020) {
		return 0, false
	}
	return a, true
}

func unChunk[T float32 | float64](op graph.Op, z, x []T) {
	x = x[:len(z)]
	switch op {
	case graph.Neg:
		for k, v := range x {
			z[k] = -v
		}
	case graph.Abs:
		for k, v := range x {
			z[k] = T(math.Abs(float64(v)))
		}
	case graph.Exp:
		expChunk(z, x)
	case graph.Log:
		for k, v := range x {
			z[k] = T(math.Log(float64(v)))
		}
	case graph.Sqrt:
		if z, ok := any(z).([]float32); ok {
			kernels.SqrtF32(z, any(x).([]float32)) // the same rounding, in SIMD
			return
		}
		for k, v := range x {
			z[k] = T(math.Sqrt(float64(v)))
		}
	case graph.Rsqrt:
		if z, ok := any(z).([]float32); ok {
			kernels.RsqrtF32(z, any(x).([]float32))
			return
		}
		for k, v := range x {
			z[k] = T(1 / math.Sqrt(float64(v)))
		}
	case graph.Tanh:
		if z32, ok := any(z).([]float32); ok {
			kernels.TanhF32(z32, any(x).([]float32))
			return
		}
		for k, v := range x {
			z[k] = T(math.Tanh(float64(v)))
		}
	case graph.Logistic:
		if z32, ok := any(z).([]float32); ok {
			kernels.LogisticF32(z32, any(x).([]float32))
			return
		}
		// Not through expChunk: e**-x overflows where the logistic is
		// still a subnormal, 1/(1+e**-x) needs a wider range.
		for k, v := range x {
			z[k] = T(1 / (1 + graph.ExpFloat64(-float64(v))))
		}
	case graph.Erf:
		if z32, ok := any(z).([]float32); ok {
			// Within 1 ulp of the float32 rounding of math.Erf, the
			// semantics' "a few ulps" (kernels.ErfF32).
			kernels.ErfF32(z32, any(x).([]float32))
			return
		}
		for k, v := range x {
			z[k] = T(math.Erf(float64(v)))
		}
	case graph.Not:
		for k, v := range x {
			if v == 0 {
				z[k] = 1
			} else {
				z[k] = 0
			}
		}
	case graph.ToF32:
		for k, v := range x {
			z[k] = T(float32(v))
		}
	case graph.ToF64:
		copy(z, x)
	}
}

func binChunk[T float32 | float64](op graph.Op, z, x, y []T) {
	x, y = x[:len(z)], y[:len(z)]
	switch op {
	case graph.Add:
		kernels.Arith(kernels.Add, z, x, y)
	case graph.Sub:
		kernels.Arith(kernels.Sub, z, x, y)
	case graph.Mul:
		kernels.Arith(kernels.Mul, z, x, y)
	case graph.Div:
		kernels.Arith(kernels.Div, z, x, y)
	case graph.Max:
		kernels.Arith(kernels.Max, z, x, y)
	case graph.Min:
		kernels.Arith(kernels.Min, z, x, y)
	case graph.Pow:
		powChunk(z, x, y, false)
	case graph.Lt:
		kernels.Compare(kernels.Lt, z, x, y)
	case graph.Le:
		kernels.Compare(kernels.Le, z, x, y)
	case graph.Gt:
		kernels.Compare(kernels.Gt, z, x, y)
	case graph.Ge:
		kernels.Compare(kernels.Ge, z, x, y)
	case graph.Eq:
		kernels.Compare(kernels.Eq, z, x, y)
	case graph.Ne:
		kernels.Compare(kernels.Ne, z, x, y)
	case graph.And:
		for k := range z {
			z[k] = b2t[T](x[k] != 0 && y[k] != 0)
		}
	case graph.Or:
		for k := range z {
			z[k] = b2t[T](x[k] != 0 || y[k] != 0)
		}
	}
}

func b2t[T float32 | float64](b bool) T {
	if b {
		return 1
	}
	return 0
}

func elemChunk[T float32 | float64](z []T, regs [][]T, fr *frame, in *vinstr, i0 int) {
	ints := fr.ints
	for k := range z {
		i := i0 + k
		for _, v := range in.vars {
			ints[v.elem] = ints[v.base] + i*v.stride
		}
		for _, cp := range in.copies {
			fr.flts[cp.freg] = float64(regs[cp.vreg][k])
		}
		z[k] = T(in.fn(fr))
	}
}

// roundChunk rounds a float64-class chunk to dt.
func roundChunk[T float32 | float64](z []T, dt graph.DType) {
	switch dt {
	case graph.Float32:
		for k, v := range z {
			z[k] = T(float32(v))
		}
	case graph.Int32:
		for k, v := range z {
			z[k] = T(int32(v))
		}
	}
}

// A vstore writes a program's result chunk into a destination row.
type vstore struct {
	dt     graph.DType
	buf    int
	reg    int
	stride int
	acc    graph.Op
	rows   *rowGeom // rows of a nest (see rowsMap); nil in a one-axis loop
	stream bool     // unit stride, no acc: chunks streamed by kernels.Stream, fenced after the loop
}

func storeOf(dst *cval) vstore {
	st := vstore{dt: dst.dt, buf: dst.buf, reg: dst.reg, stride: dst.layout[0].Stride, acc: dst.acc}
	st.stream = dst.stream && st.stride == 1 && st.acc == graph.OpInvalid
	return st
}

// storeChunk stores (or accumulates) res as elements i0.. of s.
func storeChunk[T float32 | float64](fr *frame, s *vstore, res []T, i0 int) {
	if g := s.rows; g != nil {
		scatterRows(fr, s, res, i0/g.n)
		return
	}
	if d, ok := sameTypeBuf[T](fr, s.dt, s.buf); ok && s.stream {
		off := fr.ints[s.reg] + i0
		kernels.Stream(d[off:off+len(res)], res)
		return
	}
	storeRow(fr, s, res, fr.ints[s.reg]+i0*s.stride)
}

// storeRow stores (or accumulates) res at off, off+stride, ... of s's
// buffer.
func storeRow[T float32 | float64](fr *frame, s *vstore, res []T, off int) {
	st := s.stride
	switch s.dt {
	case graph.Float32:
		storeF(fr.f32[s.buf], off, st, res, s.acc)
	case graph.Float64:
		storeF(fr.f64[s.buf], off, st, res, s.acc)
	case graph.Bool:
		d := fr.bl[s.buf]
		for _, v := range res {
			x := v != 0
			switch s.acc {
			case graph.And, graph.Mul, graph.Min:
				x = x && d[off]
			case graph.Or, graph.Add, graph.Max:
				x = x || d[off]
			}
			d[off] = x
			off += st
		}
	case graph.Int32:
		d := fr.i32[s.buf]
		f := s.acc.Binary(graph.Int32)
		for _, v := range res {
			if f != nil {
				d[off] = int32(f(float64(d[off]), float64(v)))
			} else {
				d[off] = int32(v)
			}
			off += st
		}
	}
}

// minArithRow is the shortest row an accumulating store hands to
// kernels.Arith (BenchmarkPool's output-stationary form accumulates rows
// of 8 channels).
const minArithRow = 32

// arithOp is the Arith operation of an accumulating store's op.
func arithOp(acc graph.Op) (kernels.ArithOp, bool) {
	switch acc {
	case graph.Add:
		return kernels.Add, true
	case graph.Mul:
		return kernels.Mul, true
	case graph.Max:
		return kernels.Max, true
	case graph.Min:
		return kernels.Min, true
	}
	return 0, false
}

// storeF stores into a float buffer; the arithmetic happens in T, the
// program's class, and is rounded by the conversion to D (exact for
// float32 programs into float32; correctly rounded for float64 programs).
func storeF[D float32 | float64, T float32 | float64](d []D, off, st int, res []T, acc graph.Op) {
	if st == 1 {
		d = d[off : off+len(res)]
		if dd, ok := any(d).([]T); ok {
			// Same type: a memmove, or, over a long enough row, one
			// vector pass of the accumulation (a short row is quicker
			// in the loops below than through a kernel call).
			if acc == graph.OpInvalid {
				copy(dd, res)
				return
			}
			if op, ok := arithOp(acc); ok && len(res) >= minArithRow {
				kernels.Arith(op, dd, dd, res)
				return
			}
		}
		switch acc {
		case graph.OpInvalid:
			for k, v := range res {
				d[k] = D(v)
			}
		case graph.Add:
			for k, v := range res {
				d[k] = D(T(d[k]) + v)
			}
		case graph.Mul:
			for k, v := range res {
				d[k] = D(T(d[k]) * v)
			}
		case graph.Max:
			for k, v := range res {
				d[k] = D(max(T(d[k]), v))
			}
		case graph.Min:
			for k, v := range res {
				d[k] = D(min(T(d[k]), v))
			}
		}
		return
	}
	switch acc {
	case graph.OpInvalid:
		for _, v := range res {
			d[off] = D(v)
			off += st
		}
	case graph.Add:
		for _, v := range res {
			d[off] = D(T(d[off]) + v)
			off += st
		}
	case graph.Mul:
		for _, v := range res {
			d[off] = D(T(d[off]) * v)
			off += st
		}
	case graph.Max:
		for _, v := range res {
			d[off] = D(max(T(d[off]), v))
			off += st
		}
	case graph.Min:
		for _, v := range res {
			d[off] = D(min(T(d[off]), v))
			off += st
		}
	}
}

// sum8 is the sum of x in eight interleaved partial sums, added pairwise
// at the end: the additions of one step do not wait for each other, and
// the rounding error grows more slowly than left to right. The order
// differs from the interpreter's, within graph.Tolerance.
func sum8[T float32 | float64](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// max8 is the maximum of x (-Inf when empty) in eight interleaved partial
// maxima; max is exact and, as graph defines it, NaN wins and +0 beats
// -0 whatever the order, so the result equals the left-to-right one.
func max8[T float32 | float64](x []T) T {
	m := T(math.Inf(-1))
	m0, m1, m2, m3, m4, m5, m6, m7 := m, m, m, m, m, m, m, m
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		m0 = max(m0, v[0])
		m1 = max(m1, v[1])
		m2 = max(m2, v[2])
		m3 = max(m3, v[3])
		m4 = max(m4, v[4])
		m5 = max(m5, v[5])
		m6 = max(m6, v[6])
		m7 = max(m7, v[7])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
}

// foldChunk reduces res into acc (left to right but for the sums and
// maxima of float32 programs (kernels.SumF32, kernels.MaxF32) and of
// float64 ones that are not rounding to float32 (sum8, max8)), rounding every step to dt as the interpreter does (a no-op for float32 programs, which compute in
// float32).
func foldChunk[T float32 | float64](acc T, res []T, op graph.Op, dt graph.DType) T {
	if dt == graph.Int32 {
		// i32 wraps (graph's definition): through graph's function.
		f := op.Binary(dt)
		for _, v := range res {
			acc = T(f(float64(acc), float64(v)))
		}
		return acc
	}
	rnd := dt == graph.Float32
	var zero T
	if _, f32 := any(zero).(float32); f32 {
		rnd = false
	}
	switch op {
	case graph.Add:
		if r32, ok := any(res).([]float32); ok {
			return acc + T(kernels.SumF32(r32))
		}
		if !rnd {
			return acc + sum8(res)
		}
		for _, v := range res {
			acc = T(float32(acc + v))
		}
	case graph.Mul:
		for _, v := range res {
			acc *= v
			if rnd {
				acc = T(float32(acc))
			}
		}
	case graph.Max:
		if r32, ok := any(res).([]float32); ok {
			return max(acc, T(kernels.MaxF32(r32)))
		}
		return max(acc, max8(res))
	case graph.Min:
		for _, v := range res {
			acc = min(acc, v)
		}
	case graph.And:
		for _, v := range res {
			acc = b2t[T](acc != 0 && v != 0)
		}
	case graph.Or:
		for _, v := range res {
			acc = b2t[T](acc != 0 || v != 0)
		}
	}
	return acc
}
