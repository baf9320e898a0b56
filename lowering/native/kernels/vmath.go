package kernels

import (
	"math"
	"slices"
	"unsafe"
)

//go:generate go run gen_vmath.go

// Constants of expPoly, mirrored in gen_vmath.go.
const (
	expShifter = 0x1.8p52                   // x + 1.5·2**52 rounds x to an integer in the low bits
	expLn2Hi   = 6.93147180369123816490e-01 // ln 2 rounded to 32 bits, so n·ln2Hi is exact
	expLn2Lo   = 1.90821492927058770002e-10 // ln 2 - expLn2Hi
)

// expCoef holds 1/k! for k = 0..13, the Taylor coefficients of e**r.
var expCoef = func() (c [14]float64) {
	f := 1.0
	for k := range c {
		if k > 1 {
			f *= float64(k)
		}
		c[k] = 1 / f
	}
	return c
}()

// expPoly is e**x in float64 by the algorithm of the vector loops: x is
// clamped to [lo, hi] (NaN passes), n = round(x/ln 2), r = x - n·ln 2 in
// two steps (|r| ≤ ln2/2), e**r by its Taylor polynomial of the given
// degree, and the result scaled by 2**n as 2**floor(n/2) · 2**(n -
// floor(n/2)), two normal powers of two, so that a subnormal result is
// rounded once. With degree 13 it is within 2 ulp of amd64's math.Exp
// (which is itself within 1 ulp of e**x; measured in vmath_test.go).
func expPoly(x, lo, hi float64, degree int) float64 {
	if x != x {
		return x
	}
	x = min(max(x, lo), hi)
	n := math.FMA(x, math.Log2E, expShifter) - expShifter
	r := math.FMA(-n, expLn2Hi, x)
	r = math.FMA(-n, expLn2Lo, r)
	q := expCoef[degree]
	for k := degree - 1; k >= 0; k-- {
		q = math.FMA(q, r, expCoef[k])
	}
	n1 := math.Floor(n * 0.5)
	n2 := n - n1
	return q * math.Float64frombits(uint64(int64(n1)+1023)<<52) * math.Float64frombits(uint64(int64(n2)+1023)<<52)
}

// Clamps of the argument: below lo the result is 0 and above hi +Inf,
// in float64 and float32 respectively.
const (
	expLo64, expHi64 = -746, 710
	expLo32, expHi32 = -104, 89
)

// ExpF64 sets z[i] = e**x[i] for i < len(z); x must be at least as long
// as z, and may be z itself. The result is within 2 ulp of math.Exp; ±Inf,
// NaN, ±0, overflow to +Inf and underflow through the subnormals to 0
// are as math.Exp defines them (but for x in (709.44, 709.78], where this
// is finite and amd64's math.Exp is +Inf).
func ExpF64(z, x []float64) {
	x = x[:len(z)]
	i := 0
	if hasAVX2 && len(z) >= 4 {
		i = len(z) &^ 3
		expF64AVX2(i, &x[0], &z[0])
	}
	if hasAVX2 && i < len(z) {
		// The last few elements run through the vector loop on a padded
		// copy: one call instead of up to three scalar ones, and the
		// same results as the elements before them.
		var buf [4]float64
		copy(buf[:], x[i:])
		expF64AVX2(4, &buf[0], &buf[0])
		copy(z[i:], buf[:])
		return
	}
	for ; i < len(z); i++ {
		z[i] = expPoly(x[i], expLo64, expHi64, 13)
	}
}

// Constants of expPoly32, mirrored in gen_vmath.go.
const (
	expShifter32 = 0x1.8p23       // x + 1.5·2**23 rounds x to an integer in the low bits
	expLn2Hi32   = 0.693359375    // ln 2 to 9 bits, so n·expLn2Hi32 is exact
	expLn2Lo32   = -2.12194440e-4 // ln 2 - expLn2Hi32
	exp32Degree  = 6              // of expCoef32's polynomial (vmath_coef.go)
)

// fma32 is a·b + c in float32 through float64: the product is exact, the
// sum is rounded twice (to float64, then float32), which can differ from
// the vector FMA's single rounding by an ulp in rare cases.
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// expPoly32 is e**x in float32 arithmetic by the algorithm of the vector
// loop: x clamped to [expLo32, expHi32] (NaN passes), n = round(x/ln 2),
// r = x - n·ln 2 in two steps, e**r by a polynomial of degree 6
// (expCoef32, gen_vmath.go's exp32Coefs),
// scaled by 2**floor(n/2) · 2**(n - floor(n/2)), two normal powers of two,
// so that a subnormal result is rounded once (the AVX-512 loop scales by
// 2**n in one VSCALEFPS, which rounds once too: the same bits).
func expPoly32(x float32) float32 {
	if x != x {
		return x
	}
	x = min(max(x, expLo32), expHi32)
	n := fma32(x, math.Log2E, expShifter32) - expShifter32
	r := fma32(-n, expLn2Hi32, x)
	r = fma32(-n, expLn2Lo32, r)
	q := expCoef32[exp32Degree]
	for k := exp32Degree - 1; k >= 0; k-- {
		q = fma32(q, r, expCoef32[k])
	}
	n1 := float32(math.Floor(float64(n) * 0.5))
	n2 := n - n1
	return q * math.Float32frombits(uint32(int32(n1)+127)<<23) * math.Float32frombits(uint32(int32(n2)+127)<<23)
}

// expZBlock is the elements of one iteration of the AVX-512 exp loops
// (gen_vmath.go's expZVectors zmm), a power of two: the loops take
// multiples of it.
const expZBlock = 128

// ExpF32 sets z[i] = e**x[i] for i < len(z), in float32 arithmetic
// (eight lanes per AVX2 vector, sixteen per AVX-512 one, bit-identical);
// x must be at least as long as z, and may be z itself. It is within 1
// ulp of e**x computed in float64 and rounded to float32 (the scalar
// semantics' exp; equal to it for 99.5% of the float32 arguments in
// [-104, 89], every 997th bit pattern); ±Inf, NaN, ±0, overflow to +Inf
// and underflow through the subnormals to 0 are as math.Exp defines them
// (vmath_test.go sweeps the arguments).
func ExpF32(z, x []float32) {
	x = x[:len(z)]
	i := 0
	if hasAVX512 && len(z) >= expZBlock {
		i = len(z) &^ (expZBlock - 1)
		expF32AVX512(i, &x[0], &z[0])
	}
	if hasAVX2 && len(z)-i >= 16 {
		n := (len(z) - i) &^ 15
		expF32AVX2(n, &x[i], &z[i])
		i += n
	}
	if hasAVX2 {
		// The last few elements run through the AVX2 loop (bit-identical
		// to the AVX-512 one) on a padded copy, sixteen at a time: a short
		// row, such as a softmax over ten classes, then costs one vector
		// call instead of a scalar exp per element (10× faster there).
		for ; i < len(z); i += 16 {
			var buf [16]float32
			copy(buf[:], x[i:])
			expF32AVX2(16, &buf[0], &buf[0])
			copy(z[i:], buf[:])
		}
		return
	}
	for ; i < len(z); i++ {
		z[i] = expPoly32(x[i])
	}
}

// erfLane32 is erf x in float32 arithmetic by the algorithm of the AVX2
// loops (erfLaneTables in gen_vmath.go, which writes the constants into
// vmath_coef.go): a = min(|x|, erfLaneClamp32), i = ⌊a⌋ the interval and
// u = a - i; erf a is erfLaneT32[0][i] + u·P_i(u) (a + u·P_0(u) on
// interval 0), P_i's coefficients erfLaneT32[1..][i], with x's sign. NaN
// stays NaN; ±Inf gives ±1.
func erfLane32(x float32) float32 {
	if x != x {
		return x
	}
	a := min(float32(math.Abs(float64(x))), erfLaneClamp32)
	i := int(a)
	u := a - float32(i)
	t := &erfLaneT32
	p := t[len(t)-1][i]
	for k := len(t) - 2; k >= 1; k-- {
		p = fma32(p, u, t[k][i])
	}
	c := t[0][i]
	if i == 0 {
		c = u
	}
	return float32(math.Copysign(float64(fma32(p, u, c)), float64(x)))
}

// erfTab32 is erf x in float32 arithmetic by the algorithm of the AVX-512
// loops (erfTabTables in gen_vmath.go, which writes the constants into
// vmath_coef.go): a = min(|x|, erfTabClamp32), s = a·erfTabScale32, i = ⌊s⌋
// the interval and u = s - i; erf a is erfTabT32[0][i] + u·P_i(u)
// (a + u·P_0(u) on interval 0), P_i's coefficients erfTabT32[1..][i], with
// x's sign. NaN stays NaN; ±Inf gives ±1.
func erfTab32(x float32) float32 {
	if x != x {
		return x
	}
	a := min(float32(math.Abs(float64(x))), erfTabClamp32)
	s := a * erfTabScale32
	i := int(s)
	u := s - float32(i)
	t := &erfTabT32
	p := t[len(t)-1][i]
	for k := len(t) - 2; k >= 1; k-- {
		p = fma32(p, u, t[k][i])
	}
	c := t[0][i]
	if a < erfTabWidth32 {
		c = a
	}
	return float32(math.Copysign(float64(fma32(p, u, c)), float64(x)))
}

// ErfF32 sets z[i] = erf x[i] for i < len(z), in float32 arithmetic; x
// must be at least as long as z, and may be z itself. It is within 1 ulp
// of math.Erf rounded to float32 (the scalar semantics' erf; equal to it
// for 99% of the arguments). NaN gives NaN, ±0 gives ±0 and ±Inf ±1
// (vmath_test.go sweeps the arguments). Every element of a call, tail
// included, runs the same loop, so the result of an element does not
// depend on where it falls:
//   - with AVX-512, sixteen lanes at a time by erfTab32's algorithm: one
//     polynomial of degree 6 on each of sixteen intervals of [0, 4), its
//     coefficients picked per lane by a VPERMPS (erfTabTables in
//     gen_vmath.go);
//   - with AVX2 only, eight lanes at a time by erfLane32's: one
//     polynomial of degree 10 on each of four intervals of [0, 4), its
//     coefficients picked per lane by a VPERMILPS (erfLaneTables);
//   - without AVX2, erfLane32 in scalar code.
//
// The two algorithms may differ by an ulp on the same argument.
func ErfF32(z, x []float32) {
	x = x[:len(z)]
	i := 0
	switch {
	case hasAVX512:
		i = len(z) &^ 15
		if i > 0 {
			erfF32AVX512(i, &x[0], &z[0])
		}
		// The last few elements run through the same loop on a padded
		// copy, so every element gets its bits. Each loop is called by
		// name, here and below: through a func value the buffer would
		// escape to the heap (TestSuiteAllocs).
		for ; i < len(z); i += 16 {
			var buf [16]float32
			copy(buf[:], x[i:])
			erfF32AVX512(16, &buf[0], &buf[0])
			copy(z[i:], buf[:])
		}
	case hasAVX2:
		i = len(z) &^ 7
		if i > 0 {
			erfF32AVX2(i, &x[0], &z[0])
		}
		for ; i < len(z); i += 8 {
			var buf [8]float32
			copy(buf[:], x[i:])
			erfF32AVX2(8, &buf[0], &buf[0])
			copy(z[i:], buf[:])
		}
	default:
		for ; i < len(z); i++ {
			z[i] = erfLane32(x[i])
		}
	}
}

// ErfAffineF32 sets z[i] = erf(x[i]·scale) + shift for i < len(z), each
// op rounded to float32 as its own pass would round it: the product,
// ErfF32 of it (the same bits), then the sum. It is GELU's
// 1 + erf(x/√2) in one pass over the elements instead of three. x must be
// at least as long as z, and may be z itself.
func ErfAffineF32(z, x []float32, scale, shift float32) {
	ErfAffineAheadF32(z, x, scale, shift, nil, nil)
}

// ErfAffineAheadF32 is ErfAffineF32 that also asks the cache, with AVX2
// and without AVX-512, for the elements of ahead to read and those of
// aheadW to write, a line of each per 64 bytes of z, while it computes:
// a row program's next row and the destination its next pass writes.
// Either may be nil, or shorter than z, to ask for nothing; neither is
// read or written, and the results are the same bits.
func ErfAffineAheadF32(z, x []float32, scale, shift float32, ahead, aheadW []float32) {
	x = x[:len(z)]
	switch {
	case hasAVX512:
		erfAffineAVX512(z, x, scale, shift, false)
	case hasAVX2:
		erfAffineAVX2(z, x, scale, shift, ahead, aheadW, false)
	default:
		for i := range z {
			z[i] = erfLane32(float32(x[i]*scale)) + shift
		}
	}
}

// erfAffineAVX512 runs the AVX-512 loop of ErfAffineAheadF32, or with div
// that of ErfDivAffineAheadF32, on the whole of z: the wide loop, then
// the last vector on a padded copy.
func erfAffineAVX512(z, x []float32, scale, shift float32, div bool) {
	loop := func(n int, x, z *float32) {
		if div {
			erfDivAffineF32AVX512(n, x, scale, shift, z)
		} else {
			erfAffineF32AVX512(n, x, scale, shift, z)
		}
	}
	i := len(z) &^ 15
	if i > 0 {
		loop(i, &x[0], &z[0])
	}
	for ; i < len(z); i += 16 {
		var buf [16]float32
		copy(buf[:], x[i:])
		loop(16, &buf[0], &buf[0])
		copy(z[i:], buf[:])
	}
}

// erfAffineAVX2 runs the AVX2 loop of ErfAffineAheadF32, or with div that
// of ErfDivAffineAheadF32, on the whole of z: the wide loop, then the
// last vector on a padded copy. The loops are called by name, not through
// a func value, so that the copy stays on the stack.
func erfAffineAVX2(z, x []float32, scale, shift float32, ahead, aheadW []float32, div bool) {
	if len(ahead) < len(z) {
		ahead = x
	}
	if len(aheadW) < len(z) {
		aheadW = z
	}
	loop := func(n int, x *float32, z, ahead, aheadW *float32) {
		if div {
			erfDivAffineF32AVX2(n, x, scale, shift, z, ahead, aheadW)
		} else {
			erfAffineF32AVX2(n, x, scale, shift, z, ahead, aheadW)
		}
	}
	i := len(z) &^ 7
	if i > 0 {
		loop(i, &x[0], &z[0], &ahead[0], &aheadW[0])
	}
	for ; i < len(z); i += 8 {
		var buf [8]float32
		copy(buf[:], x[i:])
		loop(8, &buf[0], &buf[0], &buf[0], &buf[0])
		copy(z[i:], buf[:])
	}
}

// TanhF32 sets z[i] = tanh x[i] for i < len(z), within 1 ulp of the
// float32 rounding of math.Tanh: (e - 1)/(e + 1) in float64, e = e**2x by
// ExpF64's algorithm (2 ulp), whose error leaves the quotient within
// 2**-32 of tanh even where e - 1 cancels (|x| down to 2**-20; below,
// tanh x rounds to x itself). 2x is clamped to ±20, where tanh already
// rounds to ±1. Four lanes at a time with AVX2 (tanh32 is the algorithm);
// math.Tanh takes some 20 ns an element. x must be at least as long as
// z, and may be z itself.
func TanhF32(z, x []float32) { transcend32(z, x, false) }

// LogisticF32 sets z[i] = 1/(1 + e**-x[i]) for i < len(z), within 1 ulp
// of the float32 rounding of that formula in float64: the same formula,
// e**-x by ExpF64's algorithm, -x clamped to ±200, beyond which the
// logistic rounds to 0 or 1 in float32 (logistic32 is the algorithm).
func LogisticF32(z, x []float32) { transcend32(z, x, true) }

// transcend32 runs TanhF32's loop (logistic false) or LogisticF32's, or
// their scalar algorithm without AVX2. The loops are called by name, not
// through a func value, so that the tail's buffer stays on the stack.
func transcend32(z, x []float32, logistic bool) {
	x = x[:len(z)]
	if !hasAVX2 {
		f := tanh32
		if logistic {
			f = logistic32
		}
		for i, v := range x {
			z[i] = f(v)
		}
		return
	}
	loop := func(n int, x, z *float32) {
		if logistic {
			logisticF32AVX2(n, x, z)
		} else {
			tanhF32AVX2(n, x, z)
		}
	}
	i := len(z) &^ 3
	if i > 0 {
		loop(i, &x[0], &z[0])
	}
	if i < len(z) {
		var buf [4]float32
		copy(buf[:], x[i:])
		loop(4, &buf[0], &buf[0])
		copy(z[i:], buf[:])
	}
}

// CubeF32 sets z[i] = x[i]³ for i < len(z), the float64 product
// x·(x·x) rounded to float32: the bits of math.Pow(x, 3) rounded to
// float32 (a float32's square is exact in float64, and its cube a normal
// float64), four lanes at a time with AVX2. GPT-2's GELU cubes. x must be
// at least as long as z, and may be z itself.
func CubeF32(z, x []float32) {
	x = x[:len(z)]
	i := 0
	if hasAVX2 {
		i = len(z) &^ 3
		if i > 0 {
			cubeF32AVX2(i, &x[0], &z[0])
		}
	}
	for ; i < len(z); i++ {
		f := float64(x[i])
		z[i] = float32(f * (f * f))
	}
}

// tanh32 is TanhF32's algorithm for one element, in the vector loop's
// operations and order.
func tanh32(v float32) float32 {
	x := float64(v)
	if math.Abs(x) < 0x1p-20 {
		return v
	}
	e := expPoly(min(max(2*x, -20), 20), expLo64, expHi64, 13)
	return float32((e - 1) / (e + 1))
}

// logistic32 is LogisticF32's algorithm for one element.
func logistic32(v float32) float32 {
	e := expPoly(min(max(-float64(v), -200), 200), expLo64, expHi64, 13)
	return float32(1 / (e + 1))
}

// ErfDivAffineAheadF32 is ErfAffineAheadF32 with the argument x[i]/div
// (the quotient rounded to float32) for x[i]·scale: the 1 + erf(x/√2) of
// the GELU exporters write, with the bits of the division, ErfF32 and the
// sum done one after the other.
func ErfDivAffineAheadF32(z, x []float32, div, shift float32, ahead, aheadW []float32) {
	x = x[:len(z)]
	switch {
	case hasAVX512:
		erfAffineAVX512(z, x, div, shift, true)
	case hasAVX2:
		erfAffineAVX2(z, x, div, shift, ahead, aheadW, true)
	default:
		for i := range z {
			z[i] = erfLane32(float32(x[i]/div)) + shift
		}
	}
}

// GELU is the arithmetic around a GELU's erf that ErfGELUAheadF32 does in
// the erf's pass: e = erf(x·Scale) + Shift (erf(x/Scale) + Shift with
// Div), then the products (x·K)·e with KFirst, (x·e)·K without. GELU's
// x·Φ(x) is 0.5·x·(1 + erf(x/√2)): Scale √2 with Div (or 1/√2 without),
// Shift 1 and K 0.5, with KFirst as layers.GELU and TensorFlow write it,
// without as PyTorch's exporter does.
type GELU struct {
	Scale, Shift, K float32
	Div, KFirst     bool
}

// The flags of the GELU loops (gen_vmath.go's erfLaneGELULoop).
const (
	geluKFirst   = 1
	geluResidual = 2
)

// ErfGELUAheadF32 sets z[i] = (x[i]·K)·e[i] (KFirst) or (x[i]·e[i])·K,
// plus w[i] after the products when w is not nil, e[i] = erf(x[i]·Scale) +
// Shift (x[i]/Scale with Div), each op rounded to float32 as its own pass
// would round it: the bits of ErfAffineAheadF32 (ErfDivAffineAheadF32),
// then each product, then the sum. With AVX2 (GELUOnePass) it is one pass
// over the elements, which asks the cache for the elements of ahead, and
// for the lines of z a kilobyte before it writes them; without, the erf's
// pass and then the products, a block at a time. x and w must be at least
// as long as z, and either may be z itself.
func ErfGELUAheadF32(z, x []float32, g GELU, w, ahead []float32) {
	x = x[:len(z)]
	if w != nil {
		w = w[:len(z)]
	}
	if GELUOnePass() {
		erfGELUAsm(z, x, g, w, ahead)
		return
	}
	var buf [256]float32
	for i := 0; i < len(z); i += len(buf) {
		n := min(len(buf), len(z)-i)
		e := buf[:n]
		if g.Div {
			ErfDivAffineAheadF32(e, x[i:], g.Scale, g.Shift, nil, nil)
		} else {
			ErfAffineAheadF32(e, x[i:], g.Scale, g.Shift, nil, nil)
		}
		var wi []float32
		if w != nil {
			wi = w[i : i+n]
		}
		geluProducts(z[i:i+n], x[i:i+n], e, g, wi)
	}
}

// GELUOnePass reports whether ErfGELUAheadF32 computes in one pass over
// the elements: with AVX2.
func GELUOnePass() bool { return hasAVX2 }

// geluProducts sets z[i] = (x[i]·K)·e[i] or (x[i]·e[i])·K, plus w[i] when
// w is not nil: ErfGELUAheadF32 after the erf.
func geluProducts(z, x, e []float32, g GELU, w []float32) {
	for i := range z {
		var p float32
		// The conversions keep each op rounded on its own (Go may fuse a
		// product into the sum after it otherwise).
		if g.KFirst {
			p = float32(float32(x[i]*g.K) * e[i])
		} else {
			p = float32(float32(x[i]*e[i]) * g.K)
		}
		if w != nil {
			p = w[i] + p
		}
		z[i] = p
	}
}

// erfGELUAsm runs ErfGELUAheadF32's loop, AVX-512's or AVX2's, on the
// whole of z: the wide loop, then the last vector on padded copies. The
// loops are called by name, not through a func value, so that the copies
// stay on the stack.
func erfGELUAsm(z, x []float32, g GELU, w, ahead []float32) {
	if len(ahead) < len(z) {
		ahead = x
	}
	flags := 0
	if g.KFirst {
		flags |= geluKFirst
	}
	if w != nil {
		flags |= geluResidual
	} else {
		w = x // advanced by the loop, never read
	}
	// The closure takes g's fields one by one: had it taken g, the struct
	// that arrived in registers would be stored field by field and then
	// copied into the closure 16 bytes at a time, a load that cannot be
	// forwarded from those stores, so it (and the loop) would wait for
	// every store before it, the previous pass's row among them, to
	// reach the cache.
	wide, div, scale, shift, k := hasAVX512, g.Div, g.Scale, g.Shift, g.K
	loop := func(n int, x, z, w, ahead *float32) {
		switch {
		case wide && div:
			erfDivGELUF32AVX512(n, x, scale, shift, k, z, w, ahead, flags)
		case wide:
			erfGELUF32AVX512(n, x, scale, shift, k, z, w, ahead, flags)
		case div:
			erfDivGELUF32AVX2(n, x, scale, shift, k, z, w, ahead, flags)
		default:
			erfGELUF32AVX2(n, x, scale, shift, k, z, w, ahead, flags)
		}
	}
	lanes := 8
	if wide {
		lanes = 16
	}
	i := len(z) &^ (lanes - 1)
	if i > 0 {
		loop(i, &x[0], &z[0], &w[0], &ahead[0])
	}
	if i < len(z) {
		var xb, wb [16]float32
		copy(xb[:], x[i:])
		copy(wb[:], w[i:])
		loop(lanes, &xb[0], &xb[0], &wb[0], &xb[0])
		copy(z[i:], xb[:])
	}
}

// SqrtF32 sets z[i] = √x[i] for i < len(z): the correctly rounded float32
// root, which is bit for bit float32(math.Sqrt(float64(x[i]))) (eight
// lanes at a time with AVX2); x must be at least as long as z, and may be
// z itself.
func SqrtF32(z, x []float32) {
	x = x[:len(z)]
	i := 0
	if hasAVX2 && len(z) >= 8 {
		i = len(z) &^ 7
		sqrtF32AVX2(i, &x[0], &z[0])
	}
	for ; i < len(z); i++ {
		z[i] = float32(math.Sqrt(float64(x[i])))
	}
}

// RsqrtF32 is SqrtF32 for 1/√x: float32(1/math.Sqrt(float64(x[i]))), bit
// for bit.
func RsqrtF32(z, x []float32) {
	x = x[:len(z)]
	i := 0
	if hasAVX2 && len(z) >= 8 {
		i = len(z) &^ 7
		rsqrtF32AVX2(i, &x[0], &z[0])
	}
	for ; i < len(z); i++ {
		z[i] = float32(1 / math.Sqrt(float64(x[i])))
	}
}

// MaxChain is the most steps a Chain takes.
const MaxChain = 8

// A ChainStep is one op of a Chain: acc = acc Op Y[i], or Y[i] Op acc
// when Swap is set, or acc Op acc when Self is (a square; Y unused). With
// Scalar, Y[0] stands for every Y[i] (a loop invariant: Y needs one
// element). Op is Add, Sub, Mul or Div, or Max or Min of a Scalar step (a
// ReLU's or a clip's bound: Go's max and min, bit for bit).
type ChainStep[T float32 | float64] struct {
	Op     ArithOp
	Swap   bool
	Self   bool
	Scalar bool
	Y      []T
	// Sqrt makes the step √acc, correctly rounded (math.Sqrt's root,
	// rounded to T); the other fields must be zero.
	Sqrt bool
}

// chainStep is a step as the assembly reads it: the op's code (ArithOp,
// plus 4 for a swapped - or /, plus 8 for acc op acc, plus 16 for a scalar
// step; or chainRecipDiv; gen_vmath.go's chainCodes), the address of Y's
// first element (of z's for acc op acc, never read), and for
// chainRecipDiv the float32 reciprocal of Y[0] in the low half of inv.
type chainStep struct {
	code int64
	y    unsafe.Pointer
	inv  uint64
}

// chainAVX2WideVecs is the block of the wide AVX2 chain loops, in vectors
// (gen_vmath.go's).
const chainAVX2WideVecs = 12

// chainRecipDiv is the step code of acc / y[0] for a float32 divisor in
// [recipDivisorMin, recipDivisorMax]: the assembly multiplies by y's
// reciprocal and corrects the product twice, which gives the quotient's
// bits in five FMA-unit ops a vector instead of one VDIVPS (a tenth of an
// FMA's throughput): BenchmarkVmathF32's divscalar, 1024 elements, took
// 130–138 ns against 226–236 ns with VDIVPS. gen_vmath.go's
// chainRecipDivStep says why the bits are the same, and which dividends
// it leaves to VDIVPS.
const chainRecipDiv = 27

// chainSqrt is the step code of √acc (ChainStep.Sqrt).
const chainSqrt = 28

// chainMax and chainMin are the step codes of max(acc, y[0]) and
// min(acc, y[0]), Go's builtins, for a scalar step. chainMaxY and
// chainMinY are the same for a y[0] that is NaN or the zero a tie must
// give (+0 for max, -0 for min), which takes two instructions more
// (gen_vmath.go's chainStepOps).
const (
	chainMax  = 29
	chainMin  = 30
	chainMaxY = 31
	chainMinY = 32
)

// The divisors of chainRecipDiv: positive and within 2**±32 (so that, with
// the dividends the assembly admits, no intermediate value underflows or
// overflows).
const (
	recipDivisorMin = 0x1p-32
	recipDivisorMax = 0x1p32
)

// Chain sets z[i] = (((x[i] op₀ y₀[i]) op₁ y₁[i]) …) for i < len(z), each
// op as steps says (at most MaxChain of them), and each rounded to T as
// Arith would round it, so the result is bit for bit that of one Arith
// pass per step, in one pass over the elements: the intermediate values
// stay in registers (sixteen AVX-512 vectors at a time, or four AVX2). x
// and every step's Y (but a scalar step's) must be at least as long as
// z; any of them may be z itself, since each element is read before it
// is written. A caller that runs the same steps over many chunks
// compiles them once with NewChainProg.
func Chain[T float32 | float64](z, x []T, steps []ChainStep[T]) {
	var c ChainProg[T]
	c.compile(steps)
	var ys [MaxChain][]T
	for k, s := range steps {
		ys[k] = s.Y
	}
	c.Run(z, x, &ys)
}

// A ChainProg is a Chain's steps compiled once, to run over many chunks
// with the operands of each: the codes the assembly reads are worked out
// once, not on every call.
type ChainProg[T float32 | float64] struct {
	n     int
	steps [MaxChain]ChainStep[T] // the ops and flags; Y unused
	codes [MaxChain]int64        // chainStep.code
}

// NewChainProg compiles steps (at most MaxChain, each one of + - × /, or
// max or min of a Scalar step, not both Scalar and Self; their Y are not
// kept).
func NewChainProg[T float32 | float64](steps []ChainStep[T]) *ChainProg[T] {
	c := new(ChainProg[T])
	c.compile(steps)
	return c
}

func (c *ChainProg[T]) compile(steps []ChainStep[T]) {
	if len(steps) > MaxChain {
		panic("kernels: Chain of more than MaxChain steps")
	}
	c.n = len(steps)
	for k, s := range steps {
		switch {
		case s.Op > Min || (s.Op > Div && (!s.Scalar || s.Sqrt)):
			panic("kernels: Chain step not one of + - × /, or max or min of a scalar")
		case s.Scalar && s.Self:
			panic("kernels: Chain step both Scalar and Self")
		case s.Sqrt && (s.Op != Add || s.Swap || s.Self || s.Scalar):
			panic("kernels: Chain step both Sqrt and an op")
		}
		s.Y = nil
		c.steps[k] = s
		if s.Sqrt {
			c.codes[k] = chainSqrt
			continue
		}
		if s.Op == Max || s.Op == Min {
			c.codes[k] = map[ArithOp]int64{Max: chainMax, Min: chainMin}[s.Op]
			continue
		}
		c.codes[k] = int64(s.Op)
		switch {
		case s.Self:
			c.codes[k] += 8
		case s.Scalar:
			c.codes[k] += 16
		}
		if s.Swap && !s.Self && (s.Op == Sub || s.Op == Div) {
			c.codes[k] += 4 // + and × commute
		}
	}
}

// Run is Chain(z, x, steps) with step k's Y ys[k] (unused for a Self
// step): at least as long as z, or one element for a Scalar step.
func (c *ChainProg[T]) Run(z, x []T, ys *[MaxChain][]T) { c.run(z, x, ys, false) }

// RunStream is Run that writes z as Stream does where it can (AVX2
// without AVX-512, z 32-byte aligned): the wide loop's blocks with
// non-temporal stores, the same bits. As with Stream, StreamFence must
// follow the last call before anything else may read z.
func (c *ChainProg[T]) RunStream(z, x []T, ys *[MaxChain][]T) { c.run(z, x, ys, true) }

func (c *ChainProg[T]) run(z, x []T, ys *[MaxChain][]T, stream bool) {
	if len(z) == 0 {
		return
	}
	x = x[:len(z)]
	for k := range c.n {
		switch s := &c.steps[k]; {
		case s.Scalar:
			_ = ys[k][0]
		case !s.Self && !s.Sqrt:
			_ = ys[k][:len(z)]
		}
	}
	i := 0
	if hasAVX2 && c.n > 0 {
		// Elements per block of the narrow loop (four AVX2 vectors), and
		// of the wide one: sixteen AVX-512 vectors (eight narrow blocks)
		// or, without AVX-512, twelve AVX2 vectors (three narrow blocks).
		// The narrow loop takes what is left of the wide blocks.
		var zero T
		narrow := 32
		if _, f64 := any(zero).(float64); f64 {
			narrow = 16
		}
		wide := narrow * chainAVX2WideVecs / 4
		if c.avx512() {
			wide = 8 * narrow
		}
		if n := len(z) / wide * wide; n > 0 {
			stream := stream && !c.avx512() && uintptr(unsafe.Pointer(&z[0]))%32 == 0
			c.asm(z, x, ys, 0, n, true, stream)
			i = n
		}
		if n := (len(z) - i) / narrow * narrow; n > 0 {
			c.asm(z, x, ys, i, n, false, false)
			i += n
		}
	}
	// The rest, element by element; the conversions round every op to T
	// (Go may fuse a product into a sum, but not across a conversion).
	for k := i; k < len(z); k++ {
		acc := x[k]
		for j := range c.n {
			s := &c.steps[j]
			if s.Sqrt {
				acc = T(math.Sqrt(float64(acc)))
				continue
			}
			a, b := acc, acc
			var y T
			switch {
			case s.Scalar:
				y = ys[j][0]
			case !s.Self:
				y = ys[j][k]
			}
			switch {
			case s.Self:
			case s.Swap:
				a = y
			default:
				b = y
			}
			switch s.Op {
			case Add:
				acc = T(a + b)
			case Sub:
				acc = T(a - b)
			case Mul:
				acc = T(a * b)
			case Div:
				acc = T(a / b)
			case Max:
				acc = max(a, b)
			case Min:
				acc = min(a, b)
			}
		}
		z[k] = acc
	}
}

// avx512 reports whether the program runs on the AVX-512 loops: where
// there are.
func (c *ChainProg[T]) avx512() bool { return hasAVX512 }

// asm runs the chain loop over the n elements of z from i, n a multiple
// of the loop's block: the wide loop's (AVX-512, or AVX2 W, or with stream
// AVX2 WNT, z[i] 32-byte aligned) or the narrow one's.
func (c *ChainProg[T]) asm(z, x []T, ys *[MaxChain][]T, i, n int, wide, stream bool) {
	var st [MaxChain]chainStep
	for k := range c.n {
		st[k].code = c.codes[k]
		switch s := &c.steps[k]; {
		case s.Scalar:
			st[k].y = unsafe.Pointer(&ys[k][0])
			if code := c.codes[k]; code == chainMax || code == chainMin {
				if y := float64(ys[k][0]); y != y || y == 0 && math.Signbit(y) == (code == chainMin) {
					st[k].code += chainMaxY - chainMax
				}
				break
			}
			if s.Op != Div || s.Swap {
				break
			}
			if y, f32 := any(ys[k][0]).(float32); f32 && recipDiv && y >= recipDivisorMin && y <= recipDivisorMax {
				st[k].code = chainRecipDiv
				st[k].inv = uint64(math.Float32bits(1 / y))
			}
		case s.Self || s.Sqrt:
			st[k].y = unsafe.Pointer(&z[i])
		default:
			st[k].y = unsafe.Pointer(&ys[k][i])
		}
	}
	switch z := any(z).(type) {
	case []float32:
		x := any(x).([]float32)
		switch {
		case wide && c.avx512():
			chainF32AVX512(n, &x[i], &z[i], &st[0], c.n)
		case wide && stream:
			chainF32AVX2WNT(n, &x[i], &z[i], &st[0], c.n)
		case wide:
			chainF32AVX2W(n, &x[i], &z[i], &st[0], c.n)
		default:
			chainF32AVX2(n, &x[i], &z[i], &st[0], c.n)
		}
	case []float64:
		x := any(x).([]float64)
		switch {
		case wide && c.avx512():
			chainF64AVX512(n, &x[i], &z[i], &st[0], c.n)
		case wide && stream:
			chainF64AVX2WNT(n, &x[i], &z[i], &st[0], c.n)
		case wide:
			chainF64AVX2W(n, &x[i], &z[i], &st[0], c.n)
		default:
			chainF64AVX2(n, &x[i], &z[i], &st[0], c.n)
		}
	}
}

// CmpOp is a comparison of Compare.
type CmpOp int

// The comparisons of Compare, Go's: false when either operand is NaN, but
// for Ne, which is true then.
const (
	Lt CmpOp = iota
	Le
	Gt
	Ge
	Eq
	Ne
)

var (
	cmpF32 = [...]func(n int, x, y, z *float32){cmpLtF32AVX2, cmpLeF32AVX2, cmpGtF32AVX2, cmpGeF32AVX2, cmpEqF32AVX2, cmpNeF32AVX2}
	cmpF64 = [...]func(n int, x, y, z *float64){cmpLtF64AVX2, cmpLeF64AVX2, cmpGtF64AVX2, cmpGeF64AVX2, cmpEqF64AVX2, cmpNeF64AVX2}
)

// Compare sets z[i] = 1 where x[i] op y[i] holds and 0 elsewhere, for
// i < len(z), as Go's comparisons decide (-0 == +0; NaN unordered). With
// AVX2 it compares a vector at a time without branches: a branch per
// element costs a misprediction on data such as a ReLU's mask. x and y
// must be at least as long as z; any of them may be the same slice.
func Compare[T float32 | float64](op CmpOp, z, x, y []T) {
	x, y = x[:len(z)], y[:len(z)]
	i := 0
	if hasAVX2 {
		switch z := any(z).(type) {
		case []float32:
			x, y := any(x).([]float32), any(y).([]float32)
			if i = len(z) &^ 7; i > 0 {
				cmpF32[op](i, &x[0], &y[0], &z[0])
			}
		case []float64:
			x, y := any(x).([]float64), any(y).([]float64)
			if i = len(z) &^ 3; i > 0 {
				cmpF64[op](i, &x[0], &y[0], &z[0])
			}
		}
	}
	for k := i; k < len(z); k++ {
		var b bool
		switch op {
		case Lt:
			b = x[k] < y[k]
		case Le:
			b = x[k] <= y[k]
		case Gt:
			b = x[k] > y[k]
		case Ge:
			b = x[k] >= y[k]
		case Eq:
			b = x[k] == y[k]
		case Ne:
			b = x[k] != y[k]
		}
		z[k] = 0
		if b {
			z[k] = 1
		}
	}
}

// Select sets z[i] = x[i] where c[i] != 0 (NaN included, ±0 not) and y[i]
// elsewhere, for i < len(z); with AVX2 by a blend a vector at a time, not
// a branch per element. c, x and y must be at least as long as z; any of
// them may be the same slice.
func Select[T float32 | float64](z, c, x, y []T) {
	c, x, y = c[:len(z)], x[:len(z)], y[:len(z)]
	i := 0
	if hasAVX2 {
		switch z := any(z).(type) {
		case []float32:
			c, x, y := any(c).([]float32), any(x).([]float32), any(y).([]float32)
			if i = len(z) &^ 7; i > 0 {
				selF32AVX2(i, &c[0], &x[0], &y[0], &z[0])
			}
		case []float64:
			c, x, y := any(c).([]float64), any(x).([]float64), any(y).([]float64)
			if i = len(z) &^ 3; i > 0 {
				selF64AVX2(i, &c[0], &x[0], &y[0], &z[0])
			}
		}
	}
	for k := i; k < len(z); k++ {
		if c[k] != 0 {
			z[k] = x[k]
		} else {
			z[k] = y[k]
		}
	}
}

// ArithOp is an elementwise arithmetic operation of Arith.
type ArithOp int

// The operations of Arith.
const (
	Add ArithOp = iota
	Sub
	Mul
	Div
	Max // Go's max: NaN if either is NaN, +0 over -0
	Min // Go's min: NaN if either is NaN, -0 under +0
)

// Arith sets z[i] = x[i] op y[i] for i < len(z), correctly rounded as Go's
// float32 and float64 arithmetic (the same IEEE 754 operations, two
// vectors at a time with AVX-512 or AVX2); Max and Min are
// Go's max and min, bit for bit. x and y must be at least as long as z;
// any of them may be the same slice.
func Arith[T float32 | float64](op ArithOp, z, x, y []T) {
	x, y = x[:len(z)], y[:len(z)]
	i := 0
	if hasAVX2 && len(z) > 0 {
		switch z := any(z).(type) {
		case []float32:
			x, y := any(x).([]float32), any(y).([]float32)
			if hasAVX512 && len(z) >= 32 {
				i = len(z) &^ 31
				arithF32Z[op](i, &x[0], &y[0], &z[0])
			}
			// + - × / two vectors a step; max and min also one.
			j := len(z) &^ 15
			if op >= Max {
				j = len(z) &^ 7
			}
			if j > i {
				arithF32[op](j-i, &x[i], &y[i], &z[i])
				i = j
			}
		case []float64:
			x, y := any(x).([]float64), any(y).([]float64)
			if hasAVX512 && len(z) >= 16 {
				i = len(z) &^ 15
				arithF64Z[op](i, &x[0], &y[0], &z[0])
			}
			j := len(z) &^ 7
			if op >= Max {
				j = len(z) &^ 3
			}
			if j > i {
				arithF64[op](j-i, &x[i], &y[i], &z[i])
				i = j
			}
		}
	}
	z, x, y = z[i:], x[i:], y[i:]
	switch op {
	case Add:
		for k := range z {
			z[k] = x[k] + y[k]
		}
	case Sub:
		for k := range z {
			z[k] = x[k] - y[k]
		}
	case Mul:
		for k := range z {
			z[k] = x[k] * y[k]
		}
	case Div:
		for k := range z {
			z[k] = x[k] / y[k]
		}
	case Max:
		for k := range z {
			z[k] = max(x[k], y[k])
		}
	case Min:
		for k := range z {
			z[k] = min(x[k], y[k])
		}
	}
}

var (
	arithF32 = [...]func(n int, x, y, z *float32){arithAddF32AVX2, arithSubF32AVX2, arithMulF32AVX2, arithDivF32AVX2,
		arithMaxF32AVX2, arithMinF32AVX2}
	arithF64 = [...]func(n int, x, y, z *float64){arithAddF64AVX2, arithSubF64AVX2, arithMulF64AVX2, arithDivF64AVX2,
		arithMaxF64AVX2, arithMinF64AVX2}
	// The AVX-512 loops, two 64-byte vectors at a time.
	arithF32Z = [...]func(n int, x, y, z *float32){arithAddF32AVX512, arithSubF32AVX512, arithMulF32AVX512, arithDivF32AVX512,
		arithMaxF32AVX512, arithMinF32AVX512}
	arithF64Z = [...]func(n int, x, y, z *float64){arithAddF64AVX512, arithSubF64AVX512, arithMulF64AVX512, arithDivF64AVX512,
		arithMaxF64AVX512, arithMinF64AVX512}
)

// MaxF32 is the maximum of x as graph defines max, -Inf when x is empty:
// NaN when any element is NaN, and +0 over -0 whatever their order.
func MaxF32(x []float32) float32 {
	// Each loop takes whole blocks, then the last block again: a maximum
	// may see an element twice, and a row of 127 is not 96 elements by
	// vector and 31 by Go's max.
	switch {
	case hasAVX512 && len(x) >= 64:
		return maxBlocks(x, 64, maxF32AVX512)
	case hasAVX2 && len(x) >= 32:
		return maxBlocks(x, 32, maxF32AVX2)
	}
	m := float32(math.Inf(-1))
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// maxBlocks is MaxF32 of x, at least one block of b elements long, by
// loop, which takes a multiple of b.
func maxBlocks(x []float32, b int, loop func(n int, x *float32) (float32, bool)) float32 {
	i := len(x) &^ (b - 1)
	v, special := loop(i, &x[0])
	m := settleMax(v, special, x[:i])
	if m != m || i == len(x) {
		return m
	}
	tail := x[len(x)-b:]
	v, special = loop(b, &tail[0])
	return max(m, settleMax(v, special, tail))
}

// settleMax returns graph's maximum of x from v, a max loop's VMAXPS
// maximum of x, and its special flag: NaN when special and an element is
// NaN (the loops drop NaN, and flag it with the rare false alarm), and +0
// for a -0 when an element is +0 (VMAXPS keeps either zero; Go's max
// takes +0).
func settleMax(v float32, special bool, x []float32) float32 {
	if special && slices.ContainsFunc(x, func(v float32) bool { return v != v }) {
		return float32(math.NaN())
	}
	if v == 0 && math.Signbit(float64(v)) && slices.ContainsFunc(x, func(v float32) bool { return math.Float32bits(v) == 0 }) {
		return 0
	}
	return v
}

// SumF32 is the sum of x in float32 (0 when empty): with AVX2, in 32
// interleaved partial sums added pairwise at the end, then the last
// elements left to right; the order, and so the rounding, differs from a
// left-to-right sum (by at most the usual bound of a pairwise-blocked
// sum), the additions of one step not waiting for each other.
func SumF32(x []float32) float32 {
	var s float32
	i := 0
	if hasAVX512 && len(x) >= 128 {
		i = len(x) &^ 127
		s = sumF32AVX512(i, &x[0])
	}
	if hasAVX2 && len(x)-i >= 32 {
		n := (len(x) - i) &^ 31
		s += sumF32AVX2(n, &x[i])
		i += n
	}
	for _, v := range x[i:] {
		s += v
	}
	return s
}

// SumSqDevF32 is the sum of the squares (x[i] - m)² in float32, each
// difference and each square rounded to float32 as their own ops would
// round them, summed as SumF32 sums (the same partial sums, so the bits
// of SumF32 of the squares): a variance's pass in one read of x.
func SumSqDevF32(x []float32, m float32) float32 {
	var s float32
	i := 0
	if hasAVX512 && len(x) >= 128 {
		i = len(x) &^ 127
		s = sumSqDevF32AVX512(i, &x[0], m)
	}
	if hasAVX2 && len(x)-i >= 32 {
		n := (len(x) - i) &^ 31
		s += sumSqDevF32AVX2(n, &x[i], m)
		i += n
	}
	for _, v := range x[i:] {
		d := v - m
		s += float32(d * d) // the conversion keeps the square from fusing into the sum
	}
	return s
}

// ExpSubF32 sets z[i] = e**(x[i] - b) for i < len(z), bit for bit as the
// float32 subtraction followed by ExpF32, in one pass; x must be at least
// as long as z, and may be z itself.
func ExpSubF32(z, x []float32, b float32) { ExpSubAheadF32(z, x, b, nil) }

// ExpSubAheadF32 is ExpSubF32 that also asks the cache for the elements
// of ahead, the data the caller reads next, while it computes: a row
// program whose first pass over a row waits for memory (a softmax's
// maximum) then finds the next row in cache, its loads having run
// beside this row's exponentials. ahead is a hint, never read as data;
// it is ignored when shorter than z, and without assembly.
func ExpSubAheadF32(z, x []float32, b float32, ahead []float32) {
	x = x[:len(z)]
	if len(ahead) < len(z) {
		ahead = x
	}
	i := 0
	if hasAVX512 && len(z) >= expZBlock {
		i = len(z) &^ (expZBlock - 1)
		expSubF32AVX512(i, &x[0], b, &z[0], &ahead[0])
	}
	if hasAVX2 && len(z)-i >= 16 {
		n := (len(z) - i) &^ 15
		expSubF32AVX2(n, &x[i], b, &z[i], &ahead[i])
		i += n
	}
	if i == len(z) {
		return
	}
	var buf [16]float32
	for ; i < len(z); i += 16 {
		k := copy(buf[:], x[i:])
		for j := range buf[:k] {
			buf[j] -= b
		}
		ExpF32(buf[:k], buf[:k])
		copy(z[i:], buf[:k])
	}
}

// HasStream reports whether Stream writes with non-temporal stores here
// (AVX2); elsewhere it is copy.
func HasStream() bool { return hasAVX2 }

// Stream copies x into z, as copy does, writing z with non-temporal
// stores where it can (HasStream): whole cache lines go to memory without
// being read into the cache first, nor evicting what is there. It is for
// a destination that nothing reads again soon, too large to stay in
// cache: a result written once. The 32-byte-aligned part of z that
// whole blocks of 128 bytes cover is streamed; the ends are copied. x
// must be at least as long as z and must not overlap it. The stores are
// not ordered with the ones after them until StreamFence: call it once
// after the last chunk, before anything else may read z.
func Stream[T float32 | float64](z, x []T) {
	x = x[:len(z)]
	const block = 128
	size := int(unsafe.Sizeof(z[0]))
	if !hasAVX2 || len(z)*size < 2*block {
		copy(z, x)
		return
	}
	// Elements before z's first 32-byte boundary, then whole blocks.
	head := int((32-uintptr(unsafe.Pointer(&z[0]))%32)%32) / size
	body := (len(z) - head) * size / block * block / size
	copy(z[:head], x)
	streamAVX2(body*size, (*byte)(unsafe.Pointer(&x[head])), (*byte)(unsafe.Pointer(&z[head])))
	copy(z[head+body:], x[head+body:])
}

// StreamFence orders the stores of the Stream calls before it before the
// stores after it (SFENCE), as the synchronisation that lets another
// goroutine read what they wrote needs.
func StreamFence() {
	if hasAVX2 {
		storeFence()
	}
}
