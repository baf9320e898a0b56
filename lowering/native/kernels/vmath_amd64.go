//go:build amd64 && !purego

package kernels

// The exp loops in vmath_amd64.s, for n a multiple of 4.

//go:noescape
func expF64AVX2(n int, x, z *float64)

//go:noescape
func expF32AVX2(n int, x, z *float32)

//go:noescape
func erfF32AVX2(n int, x, z *float32)

// The arithmetic loops, for n a multiple of two vectors.

//go:noescape
func arithAddF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithSubF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithMulF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithDivF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithAddF64AVX2(n int, x, y, z *float64)

//go:noescape
func arithSubF64AVX2(n int, x, y, z *float64)

//go:noescape
func arithMulF64AVX2(n int, x, y, z *float64)

//go:noescape
func arithDivF64AVX2(n int, x, y, z *float64)

//go:noescape
func arithMaxF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithMinF32AVX2(n int, x, y, z *float32)

//go:noescape
func arithMaxF64AVX2(n int, x, y, z *float64)

//go:noescape
func arithMinF64AVX2(n int, x, y, z *float64)

// expSubF32AVX2 and expSubF32AVX512 set z[i] = e**(x[i] - b) for i < n,
// n a multiple of 16 and 128: the rounded difference, then the loops of
// expF32AVX2 and expF32AVX512. They prefetch the n elements at ahead (one
// cache line per 64 bytes of z), or x's own when ahead is x.
//
//go:noescape
func expSubF32AVX2(n int, x *float32, b float32, z, ahead *float32)

//go:noescape
func expSubF32AVX512(n int, x *float32, b float32, z, ahead *float32)

// sumSqDevF32AVX2 is the sum of (x[i] - m)² for i < n, each difference
// and square rounded to float32, in 32 partial float32 sums, n a multiple
// of 32 and at least 32.
//
//go:noescape
func sumSqDevF32AVX2(n int, x *float32, m float32) float32

// sumSqDevF32AVX512 is sumSqDevF32AVX2 in sumF32AVX512's 128 partial
// sums, n a multiple of 128 and at least 128.
//
//go:noescape
func sumSqDevF32AVX512(n int, x *float32, m float32) float32

// sumF32AVX2 is the sum of x[:n] in 32 partial float32 sums, n a
// multiple of 32 and at least 32.
//
//go:noescape
func sumF32AVX2(n int, x *float32) float32

// sumF32AVX512 is the sum of x[:n] in 128 partial float32 sums, n a
// multiple of 128 and at least 128.
//
//go:noescape
func sumF32AVX512(n int, x *float32) float32

// maxF32AVX2 is the maximum of x[:n] by VMAXPS, n a multiple of 32 and
// at least 32, and whether a lane's sum of the elements was NaN (special:
// any NaN element, or rarely infinities of both signs); with ±0 the
// maximum's sign is VMAXPS's, not Go's.
//
//go:noescape
func maxF32AVX2(n int, x *float32) (m float32, special bool)

// maxF32AVX512 is the maximum of x[:n] by VMAXPS, n a multiple of 64 and
// at least 64, and whether any element was NaN or infinite (special);
// with ±0 the maximum's sign is VMAXPS's, not Go's.
//
//go:noescape
func maxF32AVX512(n int, x *float32) (m float32, special bool)

//go:noescape
func expF32AVX512(n int, x, z *float32)

//go:noescape
func erfF32AVX512(n int, x, z *float32)

// The square root loops, for n a multiple of 8.

//go:noescape
func sqrtF32AVX2(n int, x, z *float32)

//go:noescape
func rsqrtF32AVX2(n int, x, z *float32)

// streamAVX2 copies n bytes, a multiple of 128, from x to z, 32-byte
// aligned, with non-temporal stores; storeFence orders them (SFENCE).
//
//go:noescape
func streamAVX2(n int, x, z *byte)

func storeFence()

// The comparison and select loops, for n a multiple of one vector.

//go:noescape
func cmpLtF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpLtF64AVX2(n int, x, y, z *float64)

//go:noescape
func cmpLeF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpLeF64AVX2(n int, x, y, z *float64)

//go:noescape
func cmpGtF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpGtF64AVX2(n int, x, y, z *float64)

//go:noescape
func cmpGeF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpGeF64AVX2(n int, x, y, z *float64)

//go:noescape
func cmpEqF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpEqF64AVX2(n int, x, y, z *float64)

//go:noescape
func cmpNeF32AVX2(n int, x, y, z *float32)

//go:noescape
func cmpNeF64AVX2(n int, x, y, z *float64)

//go:noescape
func selF32AVX2(n int, c, x, y, z *float32)

//go:noescape
func selF64AVX2(n int, c, x, y, z *float64)

// The AVX-512 arithmetic loops, for n a multiple of two vectors.

//go:noescape
func arithAddF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithAddF64AVX512(n int, x, y, z *float64)

//go:noescape
func arithSubF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithSubF64AVX512(n int, x, y, z *float64)

//go:noescape
func arithMulF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithMulF64AVX512(n int, x, y, z *float64)

//go:noescape
func arithDivF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithDivF64AVX512(n int, x, y, z *float64)

//go:noescape
func arithMaxF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithMinF32AVX512(n int, x, y, z *float32)

//go:noescape
func arithMaxF64AVX512(n int, x, y, z *float64)

//go:noescape
func arithMinF64AVX512(n int, x, y, z *float64)

// The chain loops, for n a multiple of sixteen vectors (AVX-512), twelve
// (AVX2, wide: the W loops) or four (AVX2).

//go:noescape
func chainF32AVX2(n int, x, z *float32, steps *chainStep, nsteps int)

//go:noescape
func chainF64AVX2(n int, x, z *float64, steps *chainStep, nsteps int)

//go:noescape
func chainF32AVX2W(n int, x, z *float32, steps *chainStep, nsteps int)

//go:noescape
func chainF64AVX2W(n int, x, z *float64, steps *chainStep, nsteps int)

// The wide AVX2 chain loops with non-temporal stores, z 32-byte aligned
// (ChainProg.RunStream).
//
//go:noescape
func chainF32AVX2WNT(n int, x, z *float32, steps *chainStep, nsteps int)

//go:noescape
func chainF64AVX2WNT(n int, x, z *float64, steps *chainStep, nsteps int)

//go:noescape
func chainF32AVX512(n int, x, z *float32, steps *chainStep, nsteps int)

//go:noescape
func chainF64AVX512(n int, x, z *float64, steps *chainStep, nsteps int)

// The erf loops with a scale before and a shift after.

//go:noescape
func erfAffineF32AVX2(n int, x *float32, scale, shift float32, z, ahead, aheadW *float32)

//go:noescape
func erfAffineF32AVX512(n int, x *float32, scale, shift float32, z *float32)

// erfDivAffineF32AVX512 is erfAffineF32AVX512 with x[i]/scale for
// x[i]·scale.
//
//go:noescape
func erfDivAffineF32AVX512(n int, x *float32, scale, shift float32, z *float32)

// The tanh and logistic loops (transcend32Loop).

//go:noescape
func tanhF32AVX2(n int, x, z *float32)

//go:noescape
func logisticF32AVX2(n int, x, z *float32)

//go:noescape
func cubeF32AVX2(n int, x, z *float32)

// erfDivAffineF32AVX2 is erfAffineF32AVX2 with x[i]/scale for x[i]·scale.
//
//go:noescape
func erfDivAffineF32AVX2(n int, x *float32, scale, shift float32, z, ahead, aheadW *float32)

// The GELU loops: the erf's pass with the products after it
// (ErfGELUAheadF32).

//go:noescape
func erfGELUF32AVX2(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int)

//go:noescape
func erfDivGELUF32AVX2(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int)

//go:noescape
func erfGELUF32AVX512(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int)

//go:noescape
func erfDivGELUF32AVX512(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int)
