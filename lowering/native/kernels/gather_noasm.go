//go:build !amd64 || purego

package kernels

// Without assembly gatherAsm and gatherAsmAVX2 are never called:
// hasGatherAsm is false.

const hasGatherAsm = false

func gatherAsm[T float32 | float64](mr, nv, k int, x *T, roff, coff *int, b *T, ldb int, c *T, ldc int, mask uint16, add bool) {
	panic(noAsm)
}

func gatherAsmAVX2[T float32 | float64](mr, nv, k int, x *T, roff, coff *int, b *T, ldb int, c *T, ldc int, rem int, add bool) {
	panic(noAsm)
}

func gatherAVX2MR(nv int) int { panic(noAsm) }
