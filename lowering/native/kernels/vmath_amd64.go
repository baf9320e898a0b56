//go:build amd64 && !purego

package kernels

// The exp loops in vmath_amd64.s, for n a multiple of 4.

//go:noescape
func expF64AVX2(n int, x, z *float64)

//go:noescape
func expF32AVX2(n int, x, z *float32)
