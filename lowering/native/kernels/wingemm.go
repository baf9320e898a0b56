package kernels

import (
	"sync"
	"sync/atomic"
)

// WindowsParams describes the product C = A·B of a convolution whose left
// operand A (M×K) is the im2col of an image X never stored: row i of A is
// the window of output position i, K = len(Taps)·Run elements read as
// len(Taps) runs of Run elements contiguous in X,
//
//	A[i][t·Run + e] = X[RowOffset(i) + Taps[t] + e]
//
// where RowOffset(i) = Base + Σ_d ((i / Π_{d'>d} RowExtents[d']) mod
// RowExtents[d])·RowStrides[d], the positions' axes outermost first.
type WindowsParams[T float32 | float64] struct {
	M, N int

	X          []T   // the image
	Base       int   // the offset in X of row 0's window
	RowExtents []int // the positions' axes, outermost first; their product is M
	RowStrides []int // their strides in X
	Taps       []int // the offset of each run of a window from its row's offset
	Run        int   // the elements of one run, contiguous in X

	B   []T // K×N, row k at B[k·LDB:]
	LDB int // ≥ N
	C   []T // M×N, row i at C[i·LDC:]; must not overlap X or B
	LDC int // ≥ N

	// Threads, Epilogue, EpilogueRows and EpiloguePart are as
	// GemmParams's.
	Threads      int
	Epilogue     func(row, col0 int, c []T)
	EpilogueRows func(row0, row1, col0, col1 int)
	EpiloguePart func(part int) (epi func(row, col0 int, c []T), rows func(row0, row1, col0, col1 int))
}

// MinWindowRun is the shortest run GemmWindows reads in place: each run
// is one call of the micro-kernel over Run steps of k, whose tile of C is
// loaded and stored around it. (A kernel that keeps the tile in registers
// over all the runs of a window, tried on the conv block's 9 runs of 64
// channels, measured no faster: 504 µs against 494 µs per image, medians
// of 5, BenchmarkConvPasses; it was not kept.)
const MinWindowRun = 16

// GemmWindowsF32 computes the float32 product p describes, reading the
// windows in place (see gemmWindows), and reports whether it did: false,
// with C untouched, when this machine has no micro-kernel reading A in
// place (AVX2 or AVX-512), N is not a multiple of its tile's columns (32
// float32 with AVX-512, 16 with AVX2), a run is shorter
// than MinWindowRun, M is not the positions' count, a position axis has
// a stride below 1, a tap is negative, or a leading dimension is below N;
// GemmF32 with PackA then computes it. It panics if a slice is short or C
// overlaps X or B, as GemmF32 does: the caller computes them, so that is
// a bug.
func GemmWindowsF32(p WindowsParams[float32]) bool {
	return gemmWindows(p, gemmKernelsF32[0], &winJobsF32)
}

// GemmWindowsF64 is GemmWindowsF32 for float64, whose tile has half the
// columns.
func GemmWindowsF64(p WindowsParams[float64]) bool {
	return gemmWindows(p, gemmKernelsF64[0], &winJobsF64)
}

var winJobsF32, winJobsF64 sync.Pool

// A winJob is one GemmWindows call: its parameters and the scratch of
// each part, reused through a pool so that a call allocates nothing.
type winJob[T float32 | float64] struct {
	p     WindowsParams[T]
	kern  *microKernel[T]
	fork  fork
	next  atomic.Int64
	tiles int // row tiles of mr rows
	per   int // row tiles per chunk
	parts [][]T
}

// gemmWindows runs p in tiles of mr rows by nr columns of C. A tile whose
// rows lie along the innermost position axis (uniform stride) is computed
// straight from X, one micro-kernel call per run: the first overwrites the
// tile, the others add to it, so the im2col is neither written nor
// packed. A tile across the end of that axis, or the last short one,
// copies its rows' windows into a scratch mr×K matrix first. Tiles are
// shared among threads in chunks of up to 8 (96 rows); the epilogue takes
// a chunk's rows once all their N columns are final.
func gemmWindows[T float32 | float64](p WindowsParams[T], kern *microKernel[T], pool *sync.Pool) bool {
	if kern.direct == nil || p.N <= 0 || p.N%kern.nr != 0 || p.Run < MinWindowRun || p.M <= 0 ||
		len(p.RowExtents) == 0 || len(p.RowExtents) != len(p.RowStrides) || len(p.Taps) == 0 {
		return false
	}
	M := 1
	for d, e := range p.RowExtents {
		if e <= 0 || p.RowStrides[d] <= 0 {
			return false
		}
		M *= e
	}
	for _, t := range p.Taps {
		if t < 0 {
			return false
		}
	}
	if M != p.M || p.LDB < p.N || p.LDC < p.N || p.Base < 0 {
		return false
	}
	K := len(p.Taps) * p.Run
	_ = p.B[(K-1)*p.LDB+p.N-1]
	_ = p.C[(p.M-1)*p.LDC+p.N-1]
	if overlap(p.C, p.X) || overlap(p.C, p.B) {
		panic("kernels: GemmWindows: C overlaps X or B")
	}
	j, _ := pool.Get().(*winJob[T])
	if j == nil {
		j = &winJob[T]{}
	}
	// The parameters are copied into the pooled job, so that they do not
	// escape to the heap on each call.
	j.p, j.kern = p, kern
	j.run()
	j.p = WindowsParams[T]{}
	pool.Put(j)
	return true
}

// run computes the product in j.p.
func (j *winJob[T]) run() {
	p, kern := &j.p, j.kern
	K := len(p.Taps) * p.Run
	mr := kern.mr
	j.tiles = ceilDiv(p.M, mr)
	threads := max(1, min(p.Threads, p.M*p.N*K/minWorkPerThread))
	j.per = max(1, min(8, ceilDiv(j.tiles, chunksPerThread*threads)))
	chunks := ceilDiv(j.tiles, j.per)
	threads = min(threads, chunks)
	for len(j.parts) < threads {
		j.parts = append(j.parts, nil)
	}
	for i := range threads {
		j.parts[i] = grow(j.parts[i], mr*K+mr*kern.nr)
	}
	j.fork.job = j
	j.next.Store(0)
	j.fork.run(threads, threads-1)
}

func (j *winJob[T]) runPart(part int) {
	chunks := ceilDiv(j.tiles, j.per)
	epi, rows := j.p.Epilogue, j.p.EpilogueRows
	if j.p.EpiloguePart != nil {
		epi, rows = j.p.EpiloguePart(part)
	}
	for {
		c := int(j.next.Add(1)) - 1
		if c >= chunks {
			return
		}
		t0, t1 := c*j.per, min(j.tiles, (c+1)*j.per)
		for t := t0; t < t1; t++ {
			j.tile(t, j.parts[part])
		}
		// The epilogue takes the chunk's rows at once, while they are in
		// cache: an epilogue run as flat chunks of rows (the native back
		// end's) prepares its per-column operands once per call.
		p, mr := &j.p, j.kern.mr
		i0, i1 := t0*mr, min(p.M, t1*mr)
		switch {
		case rows != nil:
			rows(i0, i1, 0, p.N)
		case epi != nil:
			for i := i0; i < i1; i++ {
				epi(i, 0, p.C[i*p.LDC:][:p.N])
			}
		}
	}
}

// rowOffset is the offset in X of row i's window.
func (p *WindowsParams[T]) rowOffset(i int) int {
	off := p.Base
	for d := len(p.RowExtents) - 1; d >= 0; d-- {
		off += (i % p.RowExtents[d]) * p.RowStrides[d]
		i /= p.RowExtents[d]
	}
	return off
}

// tile computes rows [t·mr, t·mr+h) of C; buf is
// the part's scratch: mr×K for gathered windows, then an mr×nr tile.
func (j *winJob[T]) tile(t int, buf []T) {
	p, kern := &j.p, j.kern
	mr, nr := kern.mr, kern.nr
	i0 := t * mr
	h := min(mr, p.M-i0)
	K := len(p.Taps) * p.Run
	inner := p.RowExtents[len(p.RowExtents)-1]
	if h == mr && i0%inner+mr <= inner {
		lda, off := p.RowStrides[len(p.RowStrides)-1], p.rowOffset(i0)
		for col0 := 0; col0 < p.N; col0 += nr {
			c := p.C[i0*p.LDC+col0:]
			for r, tap := range p.Taps {
				kern.direct(p.Run, p.X[off+tap:], lda, p.B[r*p.Run*p.LDB+col0:], p.LDB, c, p.LDC, r > 0)
			}
		}
	} else {
		a, tl := buf[:mr*K], buf[mr*K:mr*K+mr*nr]
		for ii := range h {
			off, dst := p.rowOffset(i0+ii), a[ii*K:]
			for r, tap := range p.Taps {
				copy(dst[r*p.Run:(r+1)*p.Run], p.X[off+tap:off+tap+p.Run])
			}
		}
		clear(a[h*K:])
		for col0 := 0; col0 < p.N; col0 += nr {
			if h == mr {
				kern.direct(K, a, K, p.B[col0:], p.LDB, p.C[i0*p.LDC+col0:], p.LDC, false)
				continue
			}
			kern.direct(K, a, K, p.B[col0:], p.LDB, tl, nr, false)
			for ii := range h {
				copy(p.C[(i0+ii)*p.LDC+col0:][:nr], tl[ii*nr:(ii+1)*nr])
			}
		}
	}
}
