//go:build !amd64 || purego

package kernels

// Stand-ins for the loops of vmath_amd64.s, never called: hasAVX2 is false.

func expF64AVX2(n int, x, z *float64) { panic(noAsm) }
func expF32AVX2(n int, x, z *float32) { panic(noAsm) }
