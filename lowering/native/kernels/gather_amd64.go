//go:build amd64 && !purego

package kernels

// The gather kernels of kernels_amd64.s (gatherGemm in gen_asm.go): rows
// r of mr rows and v of nv vectors.

//go:noescape
func gatherGemmF32AVX512r1v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r2v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r3v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r4v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r5v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r6v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r1v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r2v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r3v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r4v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r5v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF32AVX512r6v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r1v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r2v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r3v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r4v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r5v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r6v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r1v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r2v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r3v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r4v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r5v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

//go:noescape
func gatherGemmF64AVX512r6v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool)

var gatherF32AVX512 = [2][gatherMR]func(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask uint16, add bool){
	{gatherGemmF32AVX512r1v1, gatherGemmF32AVX512r2v1, gatherGemmF32AVX512r3v1, gatherGemmF32AVX512r4v1, gatherGemmF32AVX512r5v1, gatherGemmF32AVX512r6v1},
	{gatherGemmF32AVX512r1v2, gatherGemmF32AVX512r2v2, gatherGemmF32AVX512r3v2, gatherGemmF32AVX512r4v2, gatherGemmF32AVX512r5v2, gatherGemmF32AVX512r6v2},
}

var gatherF64AVX512 = [2][gatherMR]func(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask uint16, add bool){
	{gatherGemmF64AVX512r1v1, gatherGemmF64AVX512r2v1, gatherGemmF64AVX512r3v1, gatherGemmF64AVX512r4v1, gatherGemmF64AVX512r5v1, gatherGemmF64AVX512r6v1},
	{gatherGemmF64AVX512r1v2, gatherGemmF64AVX512r2v2, gatherGemmF64AVX512r3v2, gatherGemmF64AVX512r4v2, gatherGemmF64AVX512r5v2, gatherGemmF64AVX512r6v2},
}

// The AVX2 gather kernels (gatherGemmAVX2 in gen_asm.go): rows r of mr
// rows and v of nv AVX2 vectors, up to gatherAVX2MR(nv) rows.

//go:noescape
func gatherGemmF32AVX2r1v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r2v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r3v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r4v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r5v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r6v1(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r1v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r2v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r3v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r4v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r5v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r6v2(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r1v3(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r2v3(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r3v3(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r1v4(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF32AVX2r2v4(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r1v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r2v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r3v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r4v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r5v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r6v1(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r1v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r2v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r3v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r4v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r5v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r6v2(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r1v3(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r2v3(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r3v3(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r1v4(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

//go:noescape
func gatherGemmF64AVX2r2v4(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool)

var gatherF32AVX2 = [gatherAVX2Vecs][]func(k int, x *float32, roff, coff *int, b *float32, ldb int, c *float32, ldc int, mask *int32, add bool){
	{gatherGemmF32AVX2r1v1, gatherGemmF32AVX2r2v1, gatherGemmF32AVX2r3v1, gatherGemmF32AVX2r4v1, gatherGemmF32AVX2r5v1, gatherGemmF32AVX2r6v1},
	{gatherGemmF32AVX2r1v2, gatherGemmF32AVX2r2v2, gatherGemmF32AVX2r3v2, gatherGemmF32AVX2r4v2, gatherGemmF32AVX2r5v2, gatherGemmF32AVX2r6v2},
	{gatherGemmF32AVX2r1v3, gatherGemmF32AVX2r2v3, gatherGemmF32AVX2r3v3},
	{gatherGemmF32AVX2r1v4, gatherGemmF32AVX2r2v4},
}

var gatherF64AVX2 = [gatherAVX2Vecs][]func(k int, x *float64, roff, coff *int, b *float64, ldb int, c *float64, ldc int, mask *int32, add bool){
	{gatherGemmF64AVX2r1v1, gatherGemmF64AVX2r2v1, gatherGemmF64AVX2r3v1, gatherGemmF64AVX2r4v1, gatherGemmF64AVX2r5v1, gatherGemmF64AVX2r6v1},
	{gatherGemmF64AVX2r1v2, gatherGemmF64AVX2r2v2, gatherGemmF64AVX2r3v2, gatherGemmF64AVX2r4v2, gatherGemmF64AVX2r5v2, gatherGemmF64AVX2r6v2},
	{gatherGemmF64AVX2r1v3, gatherGemmF64AVX2r2v3, gatherGemmF64AVX2r3v3},
	{gatherGemmF64AVX2r1v4, gatherGemmF64AVX2r2v4},
}

// gatherAVX2Vecs is the most AVX2 vectors of columns of the AVX2 gather
// kernels: GatherMaxN.
const gatherAVX2Vecs = 4

// hasGatherAsm says whether the gather kernels can run: they need AVX2.
var hasGatherAsm = hasAVX2

// gatherAsm calls the AVX-512 kernel of mr rows and nv vectors for T.
func gatherAsm[T float32 | float64](mr, nv, k int, x *T, roff, coff *int, b *T, ldb int, c *T, ldc int, mask uint16, add bool) {
	switch xp := any(x).(type) {
	case *float32:
		gatherF32AVX512[nv-1][mr-1](k, xp, roff, coff, any(b).(*float32), ldb, any(c).(*float32), ldc, mask, add)
	case *float64:
		gatherF64AVX512[nv-1][mr-1](k, xp, roff, coff, any(b).(*float64), ldb, any(c).(*float64), ldc, mask, add)
	}
}

// gatherAVX2MR is the most rows the AVX2 gather kernels of nv vectors
// compute at once.
func gatherAVX2MR(nv int) int { return len(gatherF32AVX2[nv-1]) }

// gatherAsmAVX2 calls the AVX2 kernel of mr rows and nv vectors for T,
// whose last vector has rem columns (1 to a vector's lanes).
func gatherAsmAVX2[T float32 | float64](mr, nv, k int, x *T, roff, coff *int, b *T, ldb int, c *T, ldc int, rem int, add bool) {
	switch xp := any(x).(type) {
	case *float32:
		gatherF32AVX2[nv-1][mr-1](k, xp, roff, coff, any(b).(*float32), ldb, any(c).(*float32), ldc, &gemvAVX2Mask[8-rem], add)
	case *float64:
		gatherF64AVX2[nv-1][mr-1](k, xp, roff, coff, any(b).(*float64), ldb, any(c).(*float64), ldc, &gemvAVX2Mask[8-2*rem], add)
	}
}
