//go:build !amd64 || purego

package kernels

import "unsafe"

func init() {
	gemmKernelsF32 = append(gemmKernelsF32, goKernelF32)
	gemmKernelsF64 = append(gemmKernelsF64, goKernelF64)
}

// Without assembly the vector loops are never called: hasAVX2 is false.
// These stand in for them so that one dispatch serves both builds.

const (
	hasAVX2   = false
	hasAVX512 = false
)

// recipDiv is kernels_amd64.go's; a variable, as there, for the tests.
var recipDiv = false

func dotF32AVX2(n int, x, y *float32) float32         { panic(noAsm) }
func dotF64AVX2(n int, x, y *float64) float64         { panic(noAsm) }
func axpyF32AVX2(n int, alpha float32, x, y *float32) { panic(noAsm) }
func axpyF64AVX2(n int, alpha float64, x, y *float64) { panic(noAsm) }

func axpy4F32AVX2(n int, a, b *float32, ldb int, y *float32) { panic(noAsm) }

const noAsm = "kernels: assembly routine called in a build without assembly"

func transpose8F32AVX2(n int, rows *[8]*float32, dst *float32, ld int) { panic(noAsm) }
func transpose4F32AVX2(n int, rows *[4]*float32, dst *float32, ld int) { panic(noAsm) }

func copyRows32AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int) { panic(noAsm) }
func copyRows64AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int) { panic(noAsm) }
func copyRows128AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int) {
	panic(noAsm)
}
func copyRows256AVX2(run int, dst unsafe.Pointer, ds int, src unsafe.Pointer, ss int) {
	panic(noAsm)
}
func foldRowsAddF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}
func foldRowsMaxF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}
func foldRowsMinF32AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}
func foldRowsAddF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}
func foldRowsMaxF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}
func foldRowsMinF64AVX512(rows, vecs int, tail uint64, dst unsafe.Pointer, ds int, taps *foldTap, ntaps int) {
	panic(noAsm)
}

func depthwiseF32AVX2P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX2P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX2P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX2P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX2P4x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX2P4x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX2P1x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX2P1x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}

func groupedF32AVX2P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX2P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX2P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX2P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX512P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX512P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX512P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func groupedF32AVX512P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int) {
	panic(noAsm)
}
func depthwiseF32AVX512P4x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX512P4x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX512P1x1(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF32AVX512P1x2(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX512P4x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX512P4x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX512P1x1(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
func depthwiseF64AVX512P1x2(n, taps int, out *float64, ldo int, img *float64, ps int, offs *int, filt *float64, ldf int) {
	panic(noAsm)
}
