package kernels

// AxpyF32 computes y[i·incy] += alpha·x[i·incx] for i < n. Negative
// increments follow DotF32. x and y must not overlap unless they are the
// same vector with the same increment. A zero alpha is applied like any
// other (BLAS skips it): 0·Inf and 0·NaN are NaN, as graph's semantics
// computes them.
func AxpyF32(n int, alpha float32, x []float32, incx int, y []float32, incy int) {
	ox, oy := checkVec("AxpyF32", n, len(x), incx, "x"), checkVec("AxpyF32", n, len(y), incy, "y")
	if n == 0 {
		return
	}
	if incx == 1 && incy == 1 {
		axpyUnitF32(alpha, x[:n], y[:n])
		return
	}
	axpyStrided(n, alpha, x, ox, incx, y, oy, incy)
}

// AxpyF64 is AxpyF32 for float64.
func AxpyF64(n int, alpha float64, x []float64, incx int, y []float64, incy int) {
	ox, oy := checkVec("AxpyF64", n, len(x), incx, "x"), checkVec("AxpyF64", n, len(y), incy, "y")
	if n == 0 {
		return
	}
	if incx == 1 && incy == 1 {
		axpyUnitF64(alpha, x[:n], y[:n])
		return
	}
	axpyStrided(n, alpha, x, ox, incx, y, oy, incy)
}

// axpyUnit is axpyUnitF32 or axpyUnitF64.
func axpyUnit[T float32 | float64](alpha T, x, y []T) {
	switch xs := any(&x).(type) {
	case *[]float32:
		axpyUnitF32(float32(alpha), *xs, *any(&y).(*[]float32))
	case *[]float64:
		axpyUnitF64(float64(alpha), *xs, *any(&y).(*[]float64))
	}
}

// axpyUnitF32 computes y[i] += alpha·x[i], i < len(x); len(y) ≥ len(x).
func axpyUnitF32(alpha float32, x, y []float32) {
	y = y[:len(x)]
	if b := len(x) &^ 31; hasAVX2 && b > 0 {
		axpyF32AVX2(b, alpha, &x[0], &y[0])
		x, y = x[b:], y[b:]
	}
	axpyUnitGo(alpha, x, y)
}

// axpy4UnitF32 computes y[i] += a[r]·b[r·ldb+i] for r = 0, 1, 2, 3 in
// that order, i < len(y): the same bits as four axpyUnitF32 calls, one
// per row of b, with y loaded and stored once for the four (the product
// of one row by a matrix, at batch 1, 1.5× faster than row by row).
func axpy4UnitF32(a, b []float32, ldb int, y []float32) {
	n := len(y)
	_, _ = a[3], b[3*ldb+n-1]
	blk := n &^ 63
	if !hasAVX2 || blk == 0 {
		for r := range 4 {
			axpyUnitF32(a[r], b[r*ldb:][:n], y)
		}
		return
	}
	axpy4F32AVX2(blk, &a[0], &b[0], ldb, &y[0])
	for r := range 4 {
		axpyUnitF32(a[r], b[r*ldb+blk:][:n-blk], y[blk:])
	}
}

// axpyUnitF64 is axpyUnitF32 for float64.
func axpyUnitF64(alpha float64, x, y []float64) {
	y = y[:len(x)]
	if b := len(x) &^ 15; hasAVX2 && b > 0 {
		axpyF64AVX2(b, alpha, &x[0], &y[0])
		x, y = x[b:], y[b:]
	}
	axpyUnitGo(alpha, x, y)
}

// axpyUnitGo is the portable unit-stride loop, unrolled by four (1.25×
// faster than the plain loop at n = 1024: fewer bounds checks and branches).
func axpyUnitGo[T float32 | float64](alpha T, x, y []T) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xs, ys := x[i:i+4:i+4], y[i:i+4:i+4]
		ys[0] += alpha * xs[0]
		ys[1] += alpha * xs[1]
		ys[2] += alpha * xs[2]
		ys[3] += alpha * xs[3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

func axpyStrided[T float32 | float64](n int, alpha T, x []T, ox, incx int, y []T, oy, incy int) {
	for range n {
		y[oy] += alpha * x[ox]
		ox += incx
		oy += incy
	}
}
