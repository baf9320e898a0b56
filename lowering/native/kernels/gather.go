package kernels

import "fmt"

// GatherParams describe a narrow product C = A·B (or C += A·B) whose left
// operand is read where it lies, through offsets, instead of from a
// matrix:
//
//	A[i][k] = X[RowOff[i] + ColOff[k]]   (i < M, k < K)
//
// The windows of an image are such an operand: a convolution's rows are
// the window positions and its columns the window's elements (an im2col
// never stored), and its weight gradient's are the same offsets the other
// way round. B is K×N, row-major with leading dimension LDB; C is M×N with
// LDC. N is at most GatherMaxN for T.
type GatherParams[T float32 | float64] struct {
	M, N, K int
	X       []T
	RowOff  []int // M offsets into X
	ColOff  []int // K offsets into X
	B       []T
	LDB     int
	C       []T
	LDC     int
	// Accumulate adds the product to C instead of overwriting it.
	Accumulate bool
}

// GatherMaxN returns the widest product GatherGemmF32/F64 take for T: two
// AVX-512 vectors, 32 float32 or 16 float64 columns (a small network's
// channels).
func GatherMaxN[T float32 | float64]() int { return 2 * avx512Lanes[T]() }

// GatherAvailable reports whether GatherGemmF32 and GatherGemmF64 compute
// products on this machine: they need AVX2 (or AVX-512).
func GatherAvailable() bool { return hasGatherAsm }

// GatherGemmF32 computes the float32 product p describes and reports true,
// or reports false and leaves C alone where the machine lacks AVX2 or N
// exceeds GatherMaxN. Each element of C is Σ_k A[i][k]·B[k][j] from 0 (or
// from C's element with Accumulate), one fused multiply-add per k in k
// order.
//
// Where the packed product pays more to pack than to multiply — few
// columns, short sums, an operand scattered over an image — this one
// packs nothing: each step broadcasts one element of up to 6 rows of A,
// read through its offsets, against a row of B held in registers. The
// per-image convolution of a one-channel 8×8 image (64×8×9) and its
// weight gradient over a batch of 128 (9×8×8192) are such products.
//
// It panics, as GemmF32 does, on invalid parameters: short slices, small
// leading dimensions, an offset outside X, C overlapping X or B.
func GatherGemmF32(p GatherParams[float32]) bool { return gatherGemm(&p) }

// GatherGemmF64 computes the float64 product p describes. See
// GatherGemmF32.
func GatherGemmF64(p GatherParams[float64]) bool { return gatherGemm(&p) }

func gatherGemm[T float32 | float64](p *GatherParams[T]) bool {
	if !hasGatherAsm || p.N > GatherMaxN[T]() {
		return false
	}
	p.check()
	if p.M == 0 || p.N == 0 {
		return true
	}
	var b *T
	var coff *int
	if p.K > 0 {
		b, coff = &p.B[0], &p.ColOff[0]
	}
	if !hasAVX512 {
		// AVX2: up to four vectors of columns, so fewer rows a call as
		// the vectors grow (gatherAVX2MR).
		lanes := avx512Lanes[T]() / 2
		nv := (p.N + lanes - 1) / lanes
		rem, step := p.N-(nv-1)*lanes, gatherAVX2MR(nv)
		for i := 0; i < p.M; i += step {
			mr := min(step, p.M-i)
			gatherAsmAVX2(mr, nv, p.K, &p.X[0], &p.RowOff[i], coff, b, p.LDB, &p.C[i*p.LDC], p.LDC, rem, p.Accumulate)
		}
		return true
	}
	lanes := avx512Lanes[T]()
	nv := (p.N + lanes - 1) / lanes
	mask := uint16(1<<(p.N-(nv-1)*lanes) - 1) // the last vector's columns
	for i := 0; i < p.M; i += gatherMR {
		mr := min(gatherMR, p.M-i)
		gatherAsm(mr, nv, p.K, &p.X[0], &p.RowOff[i], coff, b, p.LDB, &p.C[i*p.LDC], p.LDC, mask, p.Accumulate)
	}
	return true
}

// gatherMR is the rows of C one gather kernel computes (gen_asm.go's).
const gatherMR = 6

// check panics with a message naming the problem if p is invalid.
func (p *GatherParams[T]) check() {
	bad := func(format string, args ...any) { panic(fmt.Sprintf("kernels: GatherGemm: "+format, args...)) }
	switch {
	case p.M < 0 || p.N < 0 || p.K < 0:
		bad("negative size %dx%dx%d", p.M, p.N, p.K)
	case len(p.RowOff) < p.M:
		bad("%d row offsets for %d rows", len(p.RowOff), p.M)
	case len(p.ColOff) < p.K:
		bad("%d column offsets for depth %d", len(p.ColOff), p.K)
	case p.M == 0 || p.N == 0:
		return
	case p.LDC < p.N || len(p.C) < (p.M-1)*p.LDC+p.N:
		bad("C of %d elements, leading dimension %d, for %dx%d", len(p.C), p.LDC, p.M, p.N)
	case p.K == 0:
		return
	case p.LDB < p.N || len(p.B) < (p.K-1)*p.LDB+p.N:
		bad("B of %d elements, leading dimension %d, for %dx%d", len(p.B), p.LDB, p.K, p.N)
	}
	rlo, rhi := span(p.RowOff[:p.M])
	clo, chi := span(p.ColOff[:p.K])
	if rlo+clo < 0 || rhi+chi >= len(p.X) {
		bad("offsets reach X[%d] to X[%d] of %d elements", rlo+clo, rhi+chi, len(p.X))
	}
	c := p.C[:(p.M-1)*p.LDC+p.N]
	if overlap(c, p.X) || overlap(c, p.B[:(p.K-1)*p.LDB+p.N]) {
		bad("C overlaps X or B")
	}
}

// span returns the least and the greatest of offs, which is not empty.
func span(offs []int) (lo, hi int) {
	lo, hi = offs[0], offs[0]
	for _, o := range offs[1:] {
		lo, hi = min(lo, o), max(hi, o)
	}
	return lo, hi
}
