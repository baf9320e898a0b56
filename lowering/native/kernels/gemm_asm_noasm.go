//go:build !amd64 || purego

package kernels

// Without assembly gemvRow is never called: hasGemvAsm is false.

const hasGemvAsm = false

func gemvAsm[T float32 | float64](nv, rem, k int, a *T, ainc int, b *T, ldb int, y *T, add bool) {
	panic(noAsm)
}
