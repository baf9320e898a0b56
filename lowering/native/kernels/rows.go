package kernels

import "unsafe"

// CopyRows copies run rows of n elements, row i from src[so+i·ss:] to
// dst[do+i·ds:], and reports true, where a row is 32, 64, 128 or 256
// bytes (8 to 64 float32 channels, 4 to 32 float64), the machine has AVX2
// and dst and src do not share memory: each row moves as one to eight
// vector loads and stores. It reports false and copies nothing
// otherwise, for the caller to copy. The strides may be negative. It
// panics if a row lies outside its slice.
//
// Gathering a window's rows of channels is most of what a small CNN's
// pooling gradient does per image; a Go loop of word moves took about 20
// instructions a row of 8 float32. Rows of 32 and 64 float32 channels (a
// pooling's loads after convolutions of that width) each took a call to
// memmove, a tenth of a small CNN's inference at batch 16 (two poolings
// over 32 and 64 channels). One load and store per vector instead:
// BenchmarkPool over 16×28×28×32 float32 took 95 against 149 µs (the
// forward pass, output stationary) and 1.57 against 2.29 ms (with the
// gradient), medians of 6 alternating rounds.
func CopyRows[T float32 | float64](dst []T, do, ds int, src []T, so, ss, n, run int) bool {
	size := int(unsafe.Sizeof(T(0)))
	bytes := n * size
	if !hasAVX2 || (bytes != 32 && bytes != 64 && bytes != 128 && bytes != 256) || overlap(dst, src) {
		return false
	}
	if run <= 0 {
		return true
	}
	// Both ends of the first and the last row: every row lies between.
	lastD, lastS := do+(run-1)*ds, so+(run-1)*ss
	_, _, _, _ = dst[do], dst[do+n-1], dst[lastD], dst[lastD+n-1]
	_, _, _, _ = src[so], src[so+n-1], src[lastS], src[lastS+n-1]
	d, s := unsafe.Pointer(&dst[do]), unsafe.Pointer(&src[so])
	switch bytes {
	case 32:
		copyRows32AVX2(run, d, ds*size, s, ss*size)
	case 64:
		copyRows64AVX2(run, d, ds*size, s, ss*size)
	case 128:
		copyRows128AVX2(run, d, ds*size, s, ss*size)
	default:
		copyRows256AVX2(run, d, ds*size, s, ss*size)
	}
	return true
}
