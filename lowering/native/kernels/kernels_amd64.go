//go:build amd64 && !purego

package kernels

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The assembly routines in kernels_amd64.s. Pointer arguments must address
// enough elements for the routine: the callers take them from slices whose
// lengths they have checked (asmKernel's wrapper with one index per
// operand), so a bug panics instead of reading past a slice.

//go:noescape
func gemmF32AVX2(kc int, a, b, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX2(kc int, a, b, c *float64, ldc int, add bool)

//go:noescape
func gemmF32AVX512(kc int, a, b, c *float32, ldc int, add bool, pf *float32)

//go:noescape
func gemmF64AVX512(kc int, a, b, c *float64, ldc int, add bool, pf *float64)

//go:noescape
func dotF32AVX2(n int, x, y *float32) float32

//go:noescape
func dotF64AVX2(n int, x, y *float64) float64

//go:noescape
func axpyF32AVX2(n int, alpha float32, x, y *float32)

//go:noescape
func axpyF64AVX2(n int, alpha float64, x, y *float64)

//go:noescape
func axpy4F32AVX2(n int, a, b *float32, ldb int, y *float32)

var (
	hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	// The AVX-512 loops use AVX512F's instructions, and the erf's
	// VREDUCEPS AVX512DQ's (every core with AVX512F has it since
	// Skylake-SP).
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && hasAVX2
	// recipDiv says whether the chain loops divide float32 by a scalar
	// through its reciprocal (chainRecipDiv) rather than with VDIVPS.
	// The reciprocal is faster on Intel's cores, the VDIVPS on AMD's
	// without AVX-512 (Zen 3: BenchmarkVmathF32's divscalar, 1024
	// elements, 269-374 ns by the reciprocal against 209-226 by
	// VDIVPS); the bits are the same.
	recipDiv = !(amdVendor() && !hasAVX512)
)

// cpuid executes CPUID with EAX = leaf and ECX = sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// amdVendor reports whether the processor is AMD's, or Hygon's (the same
// cores), by the vendor string of CPUID leaf 0.
func amdVendor() bool {
	_, b, c, d := cpuid(0, 0)
	var v [12]byte
	for i, r := range []uint32{b, d, c} {
		v[4*i], v[4*i+1], v[4*i+2], v[4*i+3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
	s := string(v[:])
	return s == "AuthenticAMD" || s == "HygonGenuine"
}

// asmKernel wraps an assembly micro-kernel with an mr×nr register tile.
func asmKernel[T float32 | float64](name string, mr, nr, kc, mc int, f func(kc int, a, b, c *T, ldc int, add bool)) *microKernel[T] {
	return &microKernel[T]{name: name, mr: mr, nr: nr, kc: kc, mc: mc,
		fn: func(kc int, a, b, c []T, ldc int, add bool) {
			_ = a[kc*mr-1]
			_ = b[kc*nr-1]
			_ = c[(mr-1)*ldc+nr-1]
			f(kc, &a[0], &b[0], &c[0], ldc, add)
		}}
}

// asmNextKernel wraps an assembly micro-kernel with an mr×nr register
// tile that also prefetches kc/4 lines from pf (microKernel.fnNext); its
// fn prefetches from its own B panel, lines it reads anyway.
func asmNextKernel[T float32 | float64](name string, mr, nr, kc, mc int, f func(kc int, a, b, c *T, ldc int, add bool, pf *T)) *microKernel[T] {
	fnNext := func(kc int, a, b, c []T, ldc int, add bool, next []T) {
		_ = a[kc*mr-1]
		_ = b[kc*nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		pf := &b[0]
		if len(next) >= prefetchShare[T](kc) && len(next) > 0 {
			pf = &next[0]
		}
		f(kc, &a[0], &b[0], &c[0], ldc, add, pf)
	}
	return &microKernel[T]{name: name, mr: mr, nr: nr, kc: kc, mc: mc, fnNext: fnNext,
		fn: func(kc int, a, b, c []T, ldc int, add bool) { fnNext(kc, a, b, c, ldc, add, nil) }}
}

func init() {
	// Best first: gemmKernelsF32[0] is what GemmF32 uses.
	if hasAVX512 {
		gemmKernelsF32 = append(gemmKernelsF32, asmNextKernel("avx512", 12, 32, 256, 96, gemmF32AVX512))
		gemmKernelsF64 = append(gemmKernelsF64, asmNextKernel("avx512", 12, 16, 256, 96, gemmF64AVX512))
		gemmKernelsF32[0].strided = stridedKernel(12, 32, gemmF32AVX512StridedB)
		gemmKernelsF64[0].strided = stridedKernel(12, 16, gemmF64AVX512StridedB)
		gemmKernelsF32[0].direct = directKernel(12, 32, gemmF32AVX512Direct)
		gemmKernelsF32[0].stridedTails = []stridedTail[float32]{
			tailKernel(4, 12, 32, gemmF32AVX512StridedBTail4), tailKernel(8, 12, 32, gemmF32AVX512StridedBTail8)}
		gemmKernelsF64[0].stridedTails = []stridedTail[float64]{
			tailKernel(4, 12, 16, gemmF64AVX512StridedBTail4), tailKernel(8, 12, 16, gemmF64AVX512StridedBTail8)}
		gemmKernelsF64[0].direct = directKernel(12, 16, gemmF64AVX512Direct)
	}
	if hasAVX2 {
		avx2F32 := asmKernel("avx2", 6, 16, 256, 96, gemmF32AVX2)
		avx2F64 := asmKernel("avx2", 6, 8, 256, 96, gemmF64AVX2)
		// B and A in place, in AVX2's tile. (With AVX-512 the AVX2 kernel
		// serves only until the narrow AVX-512 one replaces it below, and
		// in tests, which so check these on such machines too.)
		avx2F32.strided = stridedKernel(6, 16, gemmF32AVX2StridedB)
		avx2F64.strided = stridedKernel(6, 8, gemmF64AVX2StridedB)
		avx2F32.direct = directKernel(6, 16, gemmF32AVX2Direct)
		avx2F64.direct = directKernel(6, 8, gemmF64AVX2Direct)
		avx2F32.directOnly, avx2F64.directOnly = true, true
		avx2F32.fnPanels = panelsKernel(6, 16, gemmF32AVX2Panels)
		avx2F64.fnPanels = panelsKernel(6, 8, gemmF64AVX2Panels)
		avx2F32.directPanels = directPanelsKernel(6, 16, gemmF32AVX2DirectPanels)
		avx2F64.directPanels = directPanelsKernel(6, 8, gemmF64AVX2DirectPanels)
		if hasAVX512 {
			gemmKernelsF32[0].narrow = avx2F32
			gemmKernelsF64[0].narrow = avx2F64
		}
		gemmKernelsF32 = append(gemmKernelsF32, avx2F32)
		gemmKernelsF64 = append(gemmKernelsF64, avx2F64)
	}
	if hasAVX512 {
		// Narrow products take the one-vector AVX-512 tile, twice the AVX2
		// one's rows for the same FMAs.
		n32 := asmKernel("avx512-narrow", 12, 16, 256, 96, gemmF32AVX512Narrow)
		n64 := asmKernel("avx512-narrow", 12, 8, 256, 96, gemmF64AVX512Narrow)
		gemmKernelsF32[0].narrow, gemmKernelsF64[0].narrow = n32, n64
		gemmKernelsF32 = append(gemmKernelsF32, n32)
		gemmKernelsF64 = append(gemmKernelsF64, n64)
	}
	gemmKernelsF32 = append(gemmKernelsF32, goKernelF32)
	gemmKernelsF64 = append(gemmKernelsF64, goKernelF64)
}

//go:noescape
func transpose8F32AVX2(n int, rows *[8]*float32, dst *float32, ld int)

//go:noescape
func transpose4F32AVX2(n int, rows *[4]*float32, dst *float32, ld int)

//go:noescape
func copyRows32AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int)

//go:noescape
func copyRows64AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int)

//go:noescape
func copyRows128AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int)

//go:noescape
func copyRows256AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int)

// The loops of FoldRows (gen_asm.go's foldRows).

//go:noescape
func foldRowsAddF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

//go:noescape
func foldRowsMaxF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

//go:noescape
func foldRowsMinF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

//go:noescape
func foldRowsAddF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

//go:noescape
func foldRowsMaxF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

//go:noescape
func foldRowsMinF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int)

// The depthwise convolution kernels (Depthwise), AVX2 and AVX-512: P4
// computes four positions, P1 one; x1 blocks of one vector of channels,
// x2 of two.

//go:noescape
func depthwiseF32AVX2P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX2P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX2P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX2P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF64AVX2P4x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX2P4x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX2P1x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX2P1x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

// The grouped convolution kernels (Grouped), AVX2 and AVX-512: P4
// computes four positions, P1 one; x1 blocks of one vector of channels,
// x2 of two.

//go:noescape
func groupedF32AVX2P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX2P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX2P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX2P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX512P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX512P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX512P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func groupedF32AVX512P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

//go:noescape
func depthwiseF32AVX512P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX512P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX512P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF32AVX512P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int)

//go:noescape
func depthwiseF64AVX512P4x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX512P4x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX512P1x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)

//go:noescape
func depthwiseF64AVX512P1x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int)
