package kernels

// DotF32 returns Σ x[i·incx]·y[i·incy] over i < n, accumulated in float32.
// A negative increment walks its vector backwards from its last element, as
// in BLAS: element i is x[(n-1-i)·|incx|]. n == 0 returns 0.
func DotF32(n int, x []float32, incx int, y []float32, incy int) float32 {
	ox, oy := checkVec("DotF32", n, len(x), incx, "x"), checkVec("DotF32", n, len(y), incy, "y")
	if n == 0 {
		return 0
	}
	if incx == 1 && incy == 1 {
		return dotUnitF32(x[:n], y[:n])
	}
	return dotStrided(n, x, ox, incx, y, oy, incy)
}

// DotF64 is DotF32 for float64.
func DotF64(n int, x []float64, incx int, y []float64, incy int) float64 {
	ox, oy := checkVec("DotF64", n, len(x), incx, "x"), checkVec("DotF64", n, len(y), incy, "y")
	if n == 0 {
		return 0
	}
	if incx == 1 && incy == 1 {
		return dotUnitF64(x[:n], y[:n])
	}
	return dotStrided(n, x, ox, incx, y, oy, incy)
}

// dotUnit is dotUnitF32 or dotUnitF64.
func dotUnit[T float32 | float64](x, y []T) T {
	switch xs := any(&x).(type) {
	case *[]float32:
		return T(dotUnitF32(*xs, *any(&y).(*[]float32)))
	case *[]float64:
		return T(dotUnitF64(*xs, *any(&y).(*[]float64)))
	}
	panic("unreachable")
}

// dotUnitF32 returns Σ x[i]·y[i], i < len(x); len(y) ≥ len(x).
func dotUnitF32(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	if b := len(x) &^ 31; hasAVX2 && b > 0 {
		s = dotF32AVX2(b, &x[0], &y[0])
		x, y = x[b:], y[b:]
	}
	return s + dotUnitGo(x, y)
}

// dotUnitF64 is dotUnitF32 for float64.
func dotUnitF64(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	if b := len(x) &^ 15; hasAVX2 && b > 0 {
		s = dotF64AVX2(b, &x[0], &y[0])
		x, y = x[b:], y[b:]
	}
	return s + dotUnitGo(x, y)
}

// dotUnitGo is the portable unit-stride dot product. Four accumulators
// break the add dependency chain: 2.3× faster than one at n = 1024.
func dotUnitGo[T float32 | float64](x, y []T) T {
	y = y[:len(x)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		xs, ys := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += xs[0] * ys[0]
		s1 += xs[1] * ys[1]
		s2 += xs[2] * ys[2]
		s3 += xs[3] * ys[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotStrided is the general case; ox and oy index element 0 of each
// vector. Two accumulators: the index arithmetic, not the add chain, limits
// it, and four were 1.15× slower (n = 1024, increments 2).
func dotStrided[T float32 | float64](n int, x []T, ox, incx int, y []T, oy, incy int) T {
	var s0, s1 T
	i := 0
	for ; i+2 <= n; i += 2 {
		s0 += x[ox] * y[oy]
		s1 += x[ox+incx] * y[oy+incy]
		ox += 2 * incx
		oy += 2 * incy
	}
	if i < n {
		s0 += x[ox] * y[oy]
	}
	return s0 + s1
}

// checkVec panics unless a vector of n elements with increment inc fits in
// a slice of length l, and returns the index of its element 0.
func checkVec(fn string, n, l, inc int, name string) int {
	if n < 0 {
		panic("kernels: " + fn + ": negative n")
	}
	if inc == 0 {
		panic("kernels: " + fn + ": zero increment for " + name)
	}
	if n == 0 {
		return 0
	}
	abs := inc
	if abs < 0 {
		abs = -abs
	}
	if l < 1+(n-1)*abs {
		panic("kernels: " + fn + ": " + name + " too short")
	}
	if inc < 0 {
		return (n - 1) * abs
	}
	return 0
}
