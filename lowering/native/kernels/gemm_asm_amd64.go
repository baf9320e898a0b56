//go:build amd64 && !purego

package kernels

// The AVX-512 row-by-matrix kernels of kernels_amd64.s (gen_asm.go's gemv),
// one per tile width: gemvF32AVX512[v-1] covers v vectors of 16 columns.

//go:noescape
func gemvF32AVX512x1(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x2(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x3(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x4(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x5(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x6(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x7(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x8(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x9(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x10(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x11(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x12(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x13(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x14(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x15(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF32AVX512x16(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x1(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x2(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x3(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x4(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x5(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x6(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x7(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x8(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x9(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x10(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x11(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x12(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x13(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x14(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x15(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

//go:noescape
func gemvF64AVX512x16(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool)

var gemvF32AVX512 = [16]func(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask uint16, add bool){
	gemvF32AVX512x1,
	gemvF32AVX512x2,
	gemvF32AVX512x3,
	gemvF32AVX512x4,
	gemvF32AVX512x5,
	gemvF32AVX512x6,
	gemvF32AVX512x7,
	gemvF32AVX512x8,
	gemvF32AVX512x9,
	gemvF32AVX512x10,
	gemvF32AVX512x11,
	gemvF32AVX512x12,
	gemvF32AVX512x13,
	gemvF32AVX512x14,
	gemvF32AVX512x15,
	gemvF32AVX512x16,
}

var gemvF64AVX512 = [16]func(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask uint16, add bool){
	gemvF64AVX512x1,
	gemvF64AVX512x2,
	gemvF64AVX512x3,
	gemvF64AVX512x4,
	gemvF64AVX512x5,
	gemvF64AVX512x6,
	gemvF64AVX512x7,
	gemvF64AVX512x8,
	gemvF64AVX512x9,
	gemvF64AVX512x10,
	gemvF64AVX512x11,
	gemvF64AVX512x12,
	gemvF64AVX512x13,
	gemvF64AVX512x14,
	gemvF64AVX512x15,
	gemvF64AVX512x16,
}

// The AVX2 row-by-matrix kernels (gen_asm.go's gemvAVX2): gemvF32AVX2[v-1]
// covers v vectors of 8 columns, the last under a mask.

//go:noescape
func gemvF32AVX2x1(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x2(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x3(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x4(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x5(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x6(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x7(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x8(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x9(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x10(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x11(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF32AVX2x12(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x1(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x2(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x3(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x4(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x5(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x6(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x7(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x8(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x9(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x10(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x11(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

//go:noescape
func gemvF64AVX2x12(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool)

var gemvF32AVX2 = [gemvAVX2Vecs]func(k int, a *float32, ainc int, b *float32, ldb int, y *float32, mask *int32, add bool){
	gemvF32AVX2x1,
	gemvF32AVX2x2,
	gemvF32AVX2x3,
	gemvF32AVX2x4,
	gemvF32AVX2x5,
	gemvF32AVX2x6,
	gemvF32AVX2x7,
	gemvF32AVX2x8,
	gemvF32AVX2x9,
	gemvF32AVX2x10,
	gemvF32AVX2x11,
	gemvF32AVX2x12,
}

var gemvF64AVX2 = [gemvAVX2Vecs]func(k int, a *float64, ainc int, b *float64, ldb int, y *float64, mask *int32, add bool){
	gemvF64AVX2x1,
	gemvF64AVX2x2,
	gemvF64AVX2x3,
	gemvF64AVX2x4,
	gemvF64AVX2x5,
	gemvF64AVX2x6,
	gemvF64AVX2x7,
	gemvF64AVX2x8,
	gemvF64AVX2x9,
	gemvF64AVX2x10,
	gemvF64AVX2x11,
	gemvF64AVX2x12,
}

// gemvAVX2Mask holds the masks of the AVX2 kernels' last vector: the 8
// int32 lanes from &gemvAVX2Mask[8-r] are r ones, then zeros; a float64
// lane takes two of them.
var gemvAVX2Mask = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// hasGemvAsm says whether gemvRow can run: it needs AVX2 and FMA.
var hasGemvAsm = hasAVX2

// gemvAsm calls the kernel of nv vectors for T, rem of whose last
// vector's lanes are columns of y (1 ≤ rem ≤ the lanes of a vector).
func gemvAsm[T float32 | float64](nv, rem, k int, a *T, ainc int, b *T, ldb int, y *T, add bool) {
	switch ap := any(a).(type) {
	case *float32:
		bp, yp := any(b).(*float32), any(y).(*float32)
		if hasAVX512 {
			gemvF32AVX512[nv-1](k, ap, ainc, bp, ldb, yp, uint16(1)<<rem-1, add)
			return
		}
		gemvF32AVX2[nv-1](k, ap, ainc, bp, ldb, yp, &gemvAVX2Mask[8-rem], add)
	case *float64:
		bp, yp := any(b).(*float64), any(y).(*float64)
		if hasAVX512 {
			gemvF64AVX512[nv-1](k, ap, ainc, bp, ldb, yp, uint16(1)<<rem-1, add)
			return
		}
		gemvF64AVX2[nv-1](k, ap, ainc, bp, ldb, yp, &gemvAVX2Mask[8-2*rem], add)
	}
}

//go:noescape
func gemmF32AVX512StridedB(kc int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX512StridedB(kc int, a, b *float64, ldb int, c *float64, ldc int, add bool)

// stridedKernel wraps an assembly micro-kernel that reads B in place.
func stridedKernel[T float32 | float64](mr, nr int, f func(kc int, a, b *T, ldb int, c *T, ldc int, add bool)) func(kc int, a, b []T, ldb int, c []T, ldc int, add bool) {
	return func(kc int, a, b []T, ldb int, c []T, ldc int, add bool) {
		_ = a[kc*mr-1]
		_ = b[(kc-1)*ldb+nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		f(kc, &a[0], &b[0], ldb, &c[0], ldc, add)
	}
}

//go:noescape
func gemmF32AVX2StridedB(kc int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX2StridedB(kc int, a, b *float64, ldb int, c *float64, ldc int, add bool)

//go:noescape
func gemmF32AVX2Direct(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX2Direct(kc int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, add bool)

//go:noescape
func gemmF32AVX512Direct(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX512Direct(kc int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, add bool)

//go:noescape
func gemmF32AVX2Panels(kc int, a, b, c *float32, ldc int, add bool, np int)

//go:noescape
func gemmF64AVX2Panels(kc int, a, b, c *float64, ldc int, add bool, np int)

//go:noescape
func gemmF32AVX2DirectPanels(kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, np int)

//go:noescape
func gemmF64AVX2DirectPanels(kc int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, add bool, np int)

// panelsKernel wraps an assembly micro-kernel over np packed A panels.
func panelsKernel[T float32 | float64](mr, nr int, f func(kc int, a, b, c *T, ldc int, add bool, np int)) func(kc int, a, b, c []T, ldc int, add bool, np int) {
	return func(kc int, a, b, c []T, ldc int, add bool, np int) {
		_ = a[np*kc*mr-1]
		_ = b[kc*nr-1]
		_ = c[(np*mr-1)*ldc+nr-1]
		f(kc, &a[0], &b[0], &c[0], ldc, add, np)
	}
}

// directPanelsKernel wraps an assembly micro-kernel over np panels of an
// A read in place.
func directPanelsKernel[T float32 | float64](mr, nr int, f func(kc int, a *T, lda int, b *T, ldb int, c *T, ldc int, add bool, np int)) func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool, np int) {
	return func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool, np int) {
		_ = a[(np*mr-1)*lda+kc-1]
		_ = b[(kc-1)*ldb+nr-1]
		_ = c[(np*mr-1)*ldc+nr-1]
		f(kc, &a[0], lda, &b[0], ldb, &c[0], ldc, add, np)
	}
}

// directKernel wraps an assembly micro-kernel that reads A and B in place.
func directKernel[T float32 | float64](mr, nr int, f func(kc int, a *T, lda int, b *T, ldb int, c *T, ldc int, add bool)) func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool) {
	return func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool) {
		_ = a[(mr-1)*lda+kc-1]
		_ = b[(kc-1)*ldb+nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		f(kc, &a[0], lda, &b[0], ldb, &c[0], ldc, add)
	}
}

//go:noescape
func gemmF32AVX512Narrow(kc int, a, b, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX512Narrow(kc int, a, b, c *float64, ldc int, add bool)

//go:noescape
func gemmF32AVX512StridedBTail4(kc int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF32AVX512StridedBTail8(kc int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func gemmF64AVX512StridedBTail4(kc int, a, b *float64, ldb int, c *float64, ldc int, add bool)

//go:noescape
func gemmF64AVX512StridedBTail8(kc int, a, b *float64, ldb int, c *float64, ldc int, add bool)

// tailKernel wraps an assembly kernel that computes the first rows of a
// packed A panel of mr rows, B in place: rows×nr of C.
func tailKernel[T float32 | float64](rows, mr, nr int, f func(kc int, a, b *T, ldb int, c *T, ldc int, add bool)) stridedTail[T] {
	return stridedTail[T]{rows: rows, fn: func(kc int, a, b []T, ldb int, c []T, ldc int, add bool) {
		_ = a[(kc-1)*mr+rows-1]
		_ = b[(kc-1)*ldb+nr-1]
		_ = c[(rows-1)*ldc+nr-1]
		f(kc, &a[0], &b[0], ldb, &c[0], ldc, add)
	}}
}
