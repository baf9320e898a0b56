//go:build !amd64 || purego

package kernels

// Stand-ins for the loops of vmath_amd64.s, never called: hasAVX2 is false.

func expF64AVX2(n int, x, z *float64) { panic(noAsm) }
func expF32AVX2(n int, x, z *float32) { panic(noAsm) }
func erfF32AVX2(n int, x, z *float32) { panic(noAsm) }

func arithAddF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithSubF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithMulF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithDivF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithAddF64AVX2(n int, x, y, z *float64) { panic(noAsm) }
func arithSubF64AVX2(n int, x, y, z *float64) { panic(noAsm) }
func arithMulF64AVX2(n int, x, y, z *float64) { panic(noAsm) }
func arithDivF64AVX2(n int, x, y, z *float64) { panic(noAsm) }
func arithMaxF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithMinF32AVX2(n int, x, y, z *float32) { panic(noAsm) }
func arithMaxF64AVX2(n int, x, y, z *float64) { panic(noAsm) }
func arithMinF64AVX2(n int, x, y, z *float64) { panic(noAsm) }

func maxF32AVX2(n int, x *float32) (m float32, special bool)          { panic(noAsm) }
func maxF32AVX512(n int, x *float32) (m float32, special bool)        { panic(noAsm) }
func sumSqDevF32AVX2(n int, x *float32, m float32) float32            { panic(noAsm) }
func sumSqDevF32AVX512(n int, x *float32, m float32) float32          { panic(noAsm) }
func sumF32AVX2(n int, x *float32) float32                            { panic(noAsm) }
func sumF32AVX512(n int, x *float32) float32                          { panic(noAsm) }
func expSubF32AVX2(n int, x *float32, b float32, z, ahead *float32)   { panic(noAsm) }
func expSubF32AVX512(n int, x *float32, b float32, z, ahead *float32) { panic(noAsm) }
func expF32AVX512(n int, x, z *float32)                               { panic(noAsm) }
func erfF32AVX512(n int, x, z *float32)                               { panic(noAsm) }

func sqrtF32AVX2(n int, x, z *float32)  { panic(noAsm) }
func rsqrtF32AVX2(n int, x, z *float32) { panic(noAsm) }
func streamAVX2(n int, x, z *byte)      { panic(noAsm) }
func storeFence()                       { panic(noAsm) }

func cmpLtF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpLtF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func cmpLeF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpLeF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func cmpGtF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpGtF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func cmpGeF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpGeF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func cmpEqF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpEqF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func cmpNeF32AVX2(n int, x, y, z *float32)  { panic(noAsm) }
func cmpNeF64AVX2(n int, x, y, z *float64)  { panic(noAsm) }
func selF32AVX2(n int, c, x, y, z *float32) { panic(noAsm) }
func selF64AVX2(n int, c, x, y, z *float64) { panic(noAsm) }

func arithAddF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithAddF64AVX512(n int, x, y, z *float64) { panic(noAsm) }
func arithSubF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithSubF64AVX512(n int, x, y, z *float64) { panic(noAsm) }
func arithMulF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithMulF64AVX512(n int, x, y, z *float64) { panic(noAsm) }
func arithDivF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithDivF64AVX512(n int, x, y, z *float64) { panic(noAsm) }
func arithMaxF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithMinF32AVX512(n int, x, y, z *float32) { panic(noAsm) }
func arithMaxF64AVX512(n int, x, y, z *float64) { panic(noAsm) }
func arithMinF64AVX512(n int, x, y, z *float64) { panic(noAsm) }

func chainF32AVX2(n int, x, z *float32, steps *chainStep, nsteps int)    { panic(noAsm) }
func chainF64AVX2(n int, x, z *float64, steps *chainStep, nsteps int)    { panic(noAsm) }
func chainF32AVX2W(n int, x, z *float32, steps *chainStep, nsteps int)   { panic(noAsm) }
func chainF64AVX2W(n int, x, z *float64, steps *chainStep, nsteps int)   { panic(noAsm) }
func chainF32AVX2WNT(n int, x, z *float32, steps *chainStep, nsteps int) { panic(noAsm) }
func chainF64AVX2WNT(n int, x, z *float64, steps *chainStep, nsteps int) { panic(noAsm) }
func chainF32AVX512(n int, x, z *float32, steps *chainStep, nsteps int)  { panic(noAsm) }
func chainF64AVX512(n int, x, z *float64, steps *chainStep, nsteps int)  { panic(noAsm) }

func erfAffineF32AVX2(n int, x *float32, scale, shift float32, z, ahead, aheadW *float32) {
	panic(noAsm)
}
func erfAffineF32AVX512(n int, x *float32, scale, shift float32, z *float32) { panic(noAsm) }
func erfDivAffineF32AVX512(n int, x *float32, scale, shift float32, z *float32) {
	panic(noAsm)
}
func erfDivAffineF32AVX2(n int, x *float32, scale, shift float32, z, ahead, aheadW *float32) {
	panic(noAsm)
}
func erfGELUF32AVX2(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int) {
	panic(noAsm)
}
func erfDivGELUF32AVX2(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int) {
	panic(noAsm)
}
func erfGELUF32AVX512(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int) {
	panic(noAsm)
}
func erfDivGELUF32AVX512(n int, x *float32, scale, shift, k float32, z, w, ahead *float32, flags int) {
	panic(noAsm)
}

func tanhF32AVX2(n int, x, z *float32)     { panic(noAsm) }
func logisticF32AVX2(n int, x, z *float32) { panic(noAsm) }
func cubeF32AVX2(n int, x, z *float32)     { panic(noAsm) }
