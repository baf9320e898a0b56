package kernels

import (
	"runtime"
	"unsafe"
)

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

// MaxFold is the most operands FoldRows folds.
const MaxFold = 32

// A FoldSrc is an operand of FoldRows: its row i starts at
// Src[Off+i·Stride].
type FoldSrc[T float32 | float64] struct {
	Src         []T
	Off, Stride int
}

// foldTap is an operand row of the FoldRows loops: its address and the
// stride to the next row, in bytes. The address is a uintptr, not a
// pointer: the loops move it on past the last row, and the collector
// must not see that; FoldRows keeps the operands alive.
type foldTap struct {
	p      uintptr
	stride int
}

// FoldRows sets run rows of n elements, row i of dst at do+i·ds, to the
// fold of the operands' rows in order, ((s₀ op s₁) op s₂) …, element by
// element, as that many Arith passes would (each op rounded to T; Max and
// Min are Go's), and reports true, where op is Add, Max or Min, there are
// 2 to MaxFold operands, the machine has AVX-512, and dst shares memory
// with none of them. It reports false and writes nothing otherwise, for
// the caller to compute. The strides may be negative. It panics if a row
// lies outside its slice.
//
// A max pooling's window is such a fold: its rows of channels read at a
// stride from the image. Gathered into chunks and folded by Arith there,
// the two poolings of a small CNN took a sixth of its inference at batch
// 16; one pass instead reads each window row once and writes the result
// once.
func FoldRows[T float32 | float64](op ArithOp, dst []T, do, ds int, srcs []FoldSrc[T], n, run int) bool {
	if !hasAVX512 || len(srcs) < 2 || len(srcs) > MaxFold || n <= 0 || (op != Add && op != Max && op != Min) {
		return false
	}
	for _, s := range srcs {
		if overlap(dst, s.Src) {
			return false
		}
	}
	if run <= 0 {
		return true
	}
	size := int(unsafe.Sizeof(T(0)))
	// Both ends of the first and the last row: every row lies between.
	last := do + (run-1)*ds
	_, _, _, _ = dst[do], dst[do+n-1], dst[last], dst[last+n-1]
	var taps [MaxFold]foldTap
	for k, s := range srcs {
		last := s.Off + (run-1)*s.Stride
		_, _, _, _ = s.Src[s.Off], s.Src[s.Off+n-1], s.Src[last], s.Src[last+n-1]
		taps[k] = foldTap{uintptr(unsafe.Pointer(&s.Src[s.Off])), s.Stride * size}
	}
	lanes := 64 / size
	vecs, tail := n/lanes, uint64(1)<<(n%lanes)-1
	d := unsafe.Pointer(&dst[do])
	// Direct calls, not a table of loops as Arith has: through a func
	// value, taps would escape to the heap (the loops' go:noescape is not
	// seen), an allocation per call.
	switch any(dst).(type) {
	case []float32:
		switch op {
		case Add:
			foldRowsAddF32AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		case Max:
			foldRowsMaxF32AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		default:
			foldRowsMinF32AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		}
	default:
		switch op {
		case Add:
			foldRowsAddF64AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		case Max:
			foldRowsMaxF64AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		default:
			foldRowsMinF64AVX512(run, vecs, tail, d, ds*size, &taps[0], len(srcs))
		}
	}
	runtime.KeepAlive(srcs)
	return true
}
