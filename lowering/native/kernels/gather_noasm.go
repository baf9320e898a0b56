//go:build !amd64 || purego

package kernels

// Without assembly gatherAsm is never called: hasGatherAsm is false.

const hasGatherAsm = false

func gatherAsm[T float32 | float64](mr, nv, k int, x *T, roff, coff *int, b *T, ldb int, c *T, ldc int, mask uint16, add bool) {
	panic(noAsm)
}
