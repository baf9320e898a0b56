package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemmCase is one product to test: sizes, the views' padding and the
// options.
type gemmCase struct {
	m, n, k    int
	padA, padB int // LDA − (K or M), LDB − (N or K)
	padC       int // LDC − N
	offset     int // elements before each view in its backing slice
	transA     bool
	transB     bool
	accumulate bool
	threads    int
	epilogue   bool
	packA      bool // supply the left operand through PackA, A nil
}

func (c gemmCase) String() string {
	return fmt.Sprintf("%dx%dx%d/pad%d,%d,%d/off%d/tA=%v/tB=%v/acc=%v/t%d/epi=%v,rows=%v,part=%v/packA=%v",
		c.m, c.n, c.k, c.padA, c.padB, c.padC, c.offset, c.transA, c.transB, c.accumulate, c.threads, c.epilogue, c.epiRows(), c.epiPart(), c.packA)
}

// epiPart reports whether a case with an epilogue passes it through
// EpiloguePart: a third of them, by their sizes.
func (c gemmCase) epiPart() bool { return c.epilogue && (c.m+c.k)%3 == 0 }

// epiRows reports whether a case with an epilogue also sets EpilogueRows:
// half of them, by their sizes.
func (c gemmCase) epiRows() bool { return c.epilogue && (c.m+c.n)%2 == 0 }

// guard is the value of the elements of C's backing slice outside the view;
// they must come back unchanged.
const guard = -12345

// checkGemm runs c with kern and compares with a triple loop.
func testGemmCase[T float32 | float64](t *testing.T, kern *microKernel[T], c gemmCase, rng *rand.Rand) {
	t.Helper()
	aRows, aCols := c.m, c.k
	if c.transA {
		aRows, aCols = c.k, c.m
	}
	lda := aCols + c.padA
	bRows, bCols := c.k, c.n
	if c.transB {
		bRows, bCols = c.n, c.k
	}
	ldb := bCols + c.padB
	ldc := c.n + c.padC
	span := func(rows, cols, ld int) int {
		if rows == 0 || cols == 0 {
			return 0
		}
		return (rows-1)*ld + cols
	}
	aBack := randSlice[T](rng, c.offset+span(aRows, aCols, lda)+c.padA)
	bBack := randSlice[T](rng, c.offset+span(bRows, bCols, ldb)+c.padB)
	cBack := make([]T, c.offset+span(c.m, c.n, ldc)+c.padC)
	for i := range cBack {
		cBack[i] = guard
	}
	a, b, cv := aBack[c.offset:], bBack[c.offset:], cBack[c.offset:]
	c0 := randSlice[T](rng, c.m*c.n) // C's initial value when accumulating
	for i := range c.m {
		for j := range c.n {
			if c.accumulate {
				cv[i*ldc+j] = c0[i*c.n+j]
			} else {
				cv[i*ldc+j] = 7 // must be overwritten
			}
		}
	}
	aAt := func(i, p int) float64 {
		if c.transA {
			return float64(a[p*lda+i])
		}
		return float64(a[i*lda+p])
	}
	bAt := func(p, j int) float64 {
		if c.transB {
			return float64(b[j*ldb+p])
		}
		return float64(b[p*ldb+j])
	}
	seen := make([]int, c.m*c.n)
	var partErrs atomic.Int32 // EpiloguePart's misuses
	p := GemmParams[T]{M: c.m, N: c.n, K: c.k, A: a, LDA: lda, B: b, LDB: ldb, C: cv, LDC: ldc,
		TransA: c.transA, TransB: c.transB, Accumulate: c.accumulate, Threads: c.threads}
	if c.epilogue {
		// Segments are disjoint, so concurrent calls touch disjoint
		// elements of seen.
		epi := func(row, col0 int, seg []T) {
			for jj := range seg {
				seen[row*c.n+col0+jj]++
				seg[jj] = 2*seg[jj] + 1
			}
		}
		p.Epilogue = epi
		if c.epiRows() {
			// Blocks of rows where the product finishes them together;
			// the per-row epilogue elsewhere.
			p.EpilogueRows = func(row0, row1, col0, col1 int) {
				for i := row0; i < row1; i++ {
					epi(i, col0, cv[i*ldc+col0:i*ldc+col1])
				}
			}
		}
		if c.epiPart() {
			// Each part's functions, which must be called for parts
			// below the threads and never concurrently with themselves.
			epiRows := p.EpilogueRows
			p.Epilogue, p.EpilogueRows = nil, nil
			busy := make([]atomic.Bool, max(1, c.threads))
			p.EpiloguePart = func(part int) (func(row, col0 int, seg []T), func(row0, row1, col0, col1 int)) {
				if part < 0 || part >= len(busy) {
					partErrs.Add(1)
					return epi, epiRows
				}
				b := &busy[part]
				enter := func() {
					if !b.CompareAndSwap(false, true) {
						partErrs.Add(1)
					}
				}
				pe := func(row, col0 int, seg []T) { enter(); epi(row, col0, seg); b.Store(false) }
				if epiRows == nil {
					return pe, nil
				}
				return pe, func(row0, row1, col0, col1 int) {
					enter()
					for i := row0; i < row1; i++ {
						epi(i, col0, cv[i*ldc+col0:i*ldc+col1])
					}
					b.Store(false)
				}
			}
		}
	}
	if c.packA {
		p.A, p.LDA = nil, 0
		p.PackA = packAFrom(t, a, lda, c.m, c.k, c.transA)
	}
	gemm(&p, kern)
	if n := partErrs.Load(); n > 0 {
		t.Fatalf("%s %v: %d calls of EpiloguePart or its functions out of bounds or concurrent with themselves", kern.name, c, n)
	}

	tol := tolOf[T]()
	bad := 0
	for i := range c.m {
		for j := range c.n {
			want, abs := exactSum(func(yield func(float64)) {
				if c.accumulate {
					yield(float64(c0[i*c.n+j]))
				}
				for q := range c.k {
					yield(aAt(i, q) * bAt(q, j))
				}
			})
			if c.epilogue {
				want, abs = 2*want+1, 2*abs+1
				if seen[i*c.n+j] != 1 {
					t.Fatalf("%v: epilogue saw C[%d][%d] %d times", c, i, j, seen[i*c.n+j])
				}
			}
			got := float64(cv[i*ldc+j])
			if !near(got, want, abs, tol) {
				if bad++; bad <= 3 {
					t.Errorf("%s %v: C[%d][%d] = %v, want %v", kern.name, c, i, j, got, want)
				}
			}
		}
	}
	// Everything outside the view is untouched.
	for idx, v := range cBack {
		if o := idx - c.offset; o >= 0 && o < len(cv) && o%ldc < c.n && o/ldc < c.m {
			continue
		}
		if v != guard {
			t.Fatalf("%s %v: element %d outside C's view changed to %v", kern.name, c, idx, v)
		}
	}
}

// gemmSizes are the dimensions the exhaustive tests combine: 1…37 around
// every register tile edge (4, 6, 8, 12, 16, 32) and k around the k block.
var (
	gemmMN = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 37}
	gemmK  = []int{1, 2, 3, 5, 8, 17, 37, 255, 256, 257, 300}
)

func testGemm[T float32 | float64](t *testing.T) {
	for _, kern := range kernelsOf[T]() {
		t.Run(kern.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			i := 0
			for _, m := range gemmMN {
				for _, n := range gemmMN {
					for _, k := range gemmK {
						// Cycle through the options so that every size meets
						// several of them without a full product of all.
						c := gemmCase{m: m, n: n, k: k,
							padA: i % 3, padB: (i / 3) % 2 * 5, padC: (i / 2) % 3, offset: i % 4,
							transA: (i/7)%2 == 1, transB: i%2 == 1, accumulate: (i/2)%2 == 1, threads: 1 + i%3, epilogue: i%5 == 0,
							packA: (i/11)%2 == 1}
						testGemmCase(t, kern, c, rng)
						i++
						if t.Failed() {
							return
						}
					}
				}
			}
		})
	}
}

func TestGemmF32(t *testing.T) { testGemm[float32](t) }
func TestGemmF64(t *testing.T) { testGemm[float64](t) }

// testGemmLarge covers the blocking: several k blocks, row and column
// chunks, many threads, tall and wide shapes.
func testGemmLarge[T float32 | float64](t *testing.T) {
	sizes := [][3]int{{100, 300, 257}, {257, 129, 513}, {1, 777, 300}, {300, 1, 300}, {3, 1000, 40}, {1000, 3, 40}, {67, 45, 1}, {70, 96, 513}}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, kern := range kernelsOf[T]() {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, s := range sizes {
			for threads := 1; threads <= 4; threads++ {
				c := gemmCase{m: s[0], n: s[1], k: s[2], padA: 1, padB: 3, padC: 2, offset: 1,
					transA: threads >= 3, transB: threads%2 == 0, accumulate: threads == 3, threads: threads, epilogue: threads >= 3}
				testGemmCase(t, kern, c, rng)
				c.packA = true
				testGemmCase(t, kern, c, rng)
			}
		}
	}
}

func TestGemmLargeF32(t *testing.T) { testGemmLarge[float32](t) }
func TestGemmLargeF64(t *testing.T) { testGemmLarge[float64](t) }

// packAFrom returns a PackA that packs the m×k left operand stored in a
// (k×m with transA), checking the panels it is asked for.
func packAFrom[T float32 | float64](t *testing.T, a []T, lda, m, k int, transA bool) func(dst []T, mr, i0, h, k0, kc int) {
	return func(dst []T, mr, i0, h, k0, kc int) {
		if h < 1 || h > mr || i0 < 0 || i0+h > m || k0 < 0 || kc < 1 || k0+kc > k || len(dst) < kc*mr {
			panic(fmt.Sprintf("PackA(len %d, mr %d, i0 %d, h %d, k0 %d, kc %d) for %dx%d", len(dst), mr, i0, h, k0, kc, m, k))
		}
		for kk := range kc {
			for ii := range mr {
				var v T
				switch {
				case ii >= h:
				case transA:
					v = a[(k0+kk)*lda+i0+ii]
				default:
					v = a[(i0+ii)*lda+k0+kk]
				}
				dst[kk*mr+ii] = v
			}
		}
	}
}

// TestGemmPackABits checks that a left operand supplied through PackA
// gives the bits of the same operand passed as A, for every kernel,
// thread count and shape that takes the packed path (M > smallM).
func TestGemmPackABits(t *testing.T) {
	testPackABits[float32](t)
	testPackABits[float64](t)
}

func testPackABits[T float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kern := range kernelsOf[T]() {
		for _, s := range [][3]int{{5, 7, 3}, {13, 33, 257}, {100, 64, 576}, {37, 17, 600}} {
			m, n, k := s[0], s[1], s[2]
			a, b := randSlice[T](rng, m*k), randSlice[T](rng, n*k)
			for _, threads := range []int{1, 3} {
				want, got := make([]T, m*n), make([]T, m*n)
				p := GemmParams[T]{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: k, TransB: true, C: want, LDC: n, Threads: threads}
				gemm(&p, kern.forN(n))
				p.A, p.C, p.PackA = nil, got, packAFrom(t, a, k, m, k, false)
				gemm(&p, kern.forN(n))
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s %dx%dx%d threads=%d: C[%d] = %v with PackA, %v with A", kern.name, m, n, k, threads, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestGemmDefault checks that the exported entry points run the first
// (best) kernel and that K == 0, M == 0 and N == 0 behave.
func TestGemmDefault(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6} // 2×3
	b := []float64{1, 0, 0, 1, 1, 1} // 3×2
	c32 := make([]float32, 4)
	GemmF32(GemmParams[float32]{M: 2, N: 2, K: 3, A: a, LDA: 3, B: []float32{1, 0, 0, 1, 1, 1}, LDB: 2, C: c32, LDC: 2})
	if want := []float32{4, 5, 10, 11}; fmt.Sprint(c32) != fmt.Sprint(want) {
		t.Errorf("GemmF32 = %v, want %v", c32, want)
	}
	c64 := []float64{1, 2, 3, 4}
	GemmF64(GemmParams[float64]{M: 2, N: 2, K: 3, A: []float64{1, 2, 3, 4, 5, 6}, LDA: 3, B: b, LDB: 2, C: c64, LDC: 2, Accumulate: true})
	if want := []float64{5, 7, 13, 15}; fmt.Sprint(c64) != fmt.Sprint(want) {
		t.Errorf("GemmF64 accumulate = %v, want %v", c64, want)
	}

	// K == 0: the product is zero; the epilogue still runs.
	c64 = []float64{1, 2, 3, 4}
	rows := 0
	GemmF64(GemmParams[float64]{M: 2, N: 2, K: 0, LDA: 1, LDB: 2, C: c64, LDC: 2,
		Epilogue: func(row, col0 int, c []float64) { rows++; c[0]++ }})
	if want := []float64{1, 0, 1, 0}; fmt.Sprint(c64) != fmt.Sprint(want) || rows != 2 {
		t.Errorf("K=0: C = %v after %d epilogue rows, want %v after 2", c64, rows, want)
	}
	c64 = []float64{1, 2, 3, 4}
	GemmF64(GemmParams[float64]{M: 2, N: 2, K: 0, LDA: 1, LDB: 2, C: c64, LDC: 2, Accumulate: true})
	if want := []float64{1, 2, 3, 4}; fmt.Sprint(c64) != fmt.Sprint(want) {
		t.Errorf("K=0 accumulate: C = %v, want %v", c64, want)
	}
	// M == 0 or N == 0: nothing happens, even with nil slices.
	GemmF64(GemmParams[float64]{M: 0, N: 5, K: 3, LDA: 3, LDB: 5, LDC: 5})
	GemmF64(GemmParams[float64]{M: 5, N: 0, K: 3, LDA: 3, LDB: 1, LDC: 1})
}

// TestGemmDeterministic checks that the result does not depend on the
// number of threads: every element is summed in the same order.
func TestGemmDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const m, n, k = 150, 200, 600
	a, b := randSlice[float32](rng, m*k), randSlice[float32](rng, k*n)
	var want []float32
	for _, threads := range []int{1, 2, 3, 7} {
		c := make([]float32, m*n)
		GemmF32(GemmParams[float32]{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: n, C: c, LDC: n, Threads: threads})
		if want == nil {
			want = c
			continue
		}
		for i := range c {
			if c[i] != want[i] {
				t.Fatalf("threads=%d: C[%d] = %v, threads=1 gave %v", threads, i, c[i], want[i])
			}
		}
	}
}

func TestGemmPanics(t *testing.T) {
	buf := make([]float64, 100)
	ok := GemmParams[float64]{M: 3, N: 4, K: 5, A: make([]float64, 15), LDA: 5, B: make([]float64, 20), LDB: 4, C: make([]float64, 12), LDC: 4}
	for _, tc := range []struct {
		name   string
		mutate func(p *GemmParams[float64])
		msg    string
	}{
		{"negative M", func(p *GemmParams[float64]) { p.M = -1 }, "negative dimension"},
		{"LDA", func(p *GemmParams[float64]) { p.LDA = 4 }, "LDA < K"},
		{"LDB", func(p *GemmParams[float64]) { p.LDB = 3 }, "LDB < N"},
		{"LDB transposed", func(p *GemmParams[float64]) { p.TransB = true; p.LDB = 4 }, "LDB < K (TransB)"},
		{"LDA transposed", func(p *GemmParams[float64]) { p.TransA = true; p.LDA = 2 }, "LDA < M (TransA)"},
		{"LDC", func(p *GemmParams[float64]) { p.LDC = 3 }, "LDC < N"},
		{"short A", func(p *GemmParams[float64]) { p.A = p.A[:14] }, "A too short"},
		{"short B", func(p *GemmParams[float64]) { p.B = p.B[:19] }, "B too short"},
		{"short C", func(p *GemmParams[float64]) { p.C = p.C[:11] }, "C too short"},
		{"C overlaps A", func(p *GemmParams[float64]) { p.A, p.C = buf[:15], buf[14:26] }, "C overlaps A or B"},
		{"C overlaps B", func(p *GemmParams[float64]) { p.B, p.C = buf[30:50], buf[20:32] }, "C overlaps A or B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.msg) {
					t.Errorf("panic %v, want one containing %q", r, tc.msg)
				}
			}()
			p := ok
			tc.mutate(&p)
			GemmF64(p)
		})
	}
}

func testGemmAllocs[T float32 | float64](t *testing.T, gemm func(GemmParams[T])) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 64, 70, 300 // several k blocks, edge tiles
	a, b, c := randSlice[T](rng, m*k), randSlice[T](rng, k*n), make([]T, m*n)
	epi := func(row, col0 int, c []T) { c[0] = 0 }
	for _, threads := range []int{1, 2} {
		for _, work := range []*Workspace{new(Workspace), nil} {
			if work == nil && raceEnabled {
				continue
			}
			p := GemmParams[T]{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: n, C: c, LDC: n, Threads: threads, Epilogue: epi, Work: work}
			gemm(p) // warm up: grow the workspace, start the workers
			if allocs := testing.AllocsPerRun(50, func() { gemm(p) }); allocs != 0 {
				t.Errorf("threads=%d, workspace=%v: %v allocations per product, want 0", threads, work != nil, allocs)
			}
		}
	}
}

func TestGemmAllocsF32(t *testing.T) { testGemmAllocs(t, GemmF32) }
func TestGemmAllocsF64(t *testing.T) { testGemmAllocs(t, GemmF64) }

// Benchmarks. Each size runs with threads=1 and threads=2 in its name;
// GOMAXPROCS is set to the thread count for the run, since gonum's Dgemm
// uses GOMAXPROCS goroutines. (The -cpu flag is no substitute: a b.Loop
// benchmark runs its first -cpu setting before the flag applies.) GFLOP/s
// counts a multiply-add as two operations.

var benchThreads = []int{1, 2}

// runThreads runs f as sub-benchmarks threads=1, threads=2.
func runThreads(b *testing.B, f func(b *testing.B, threads int)) {
	for _, t := range benchThreads {
		b.Run(fmt.Sprintf("threads=%d", t), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(t))
			f(b, t)
		})
	}
}

func reportGFLOPS(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
}

var gemmBenchSizes = []struct {
	name    string
	m, n, k int
}{
	{"64", 64, 64, 64},
	{"256", 256, 256, 256},
	{"1024", 1024, 1024, 1024},
	// The layers of an MLP 784-512-512-10 at batch 256.
	{"mlp_256x784x512", 256, 512, 784},
	{"mlp_256x512x512", 256, 512, 512},
	{"mlp_256x512x10", 256, 10, 512},
	// The forward products of the same MLP's training step at batch 32.
	{"mlp_32x784x512", 32, 512, 784},
	{"mlp_32x512x512", 32, 512, 512},
}

func benchGemm[T float32 | float64](b *testing.B, kern *microKernel[T], m, n, k int) {
	runThreads(b, func(b *testing.B, threads int) {
		rng := rand.New(rand.NewPCG(7, 8))
		p := GemmParams[T]{M: m, N: n, K: k, A: randSlice[T](rng, m*k), LDA: k, B: randSlice[T](rng, k*n), LDB: n,
			C: make([]T, m*n), LDC: n, Threads: threads, Work: new(Workspace)}
		var z T
		b.SetBytes(int64((m*k + k*n + m*n) * int(unsafe.Sizeof(z))))
		b.ReportAllocs()
		gemm(&p, kern)
		for b.Loop() {
			gemm(&p, kern)
		}
		reportGFLOPS(b, 2*float64(m)*float64(n)*float64(k))
	})
}

// BenchmarkGemmF32 and BenchmarkGemmF64 time the default kernel.
func BenchmarkGemmF32(b *testing.B) {
	for _, s := range gemmBenchSizes {
		b.Run(s.name, func(b *testing.B) { benchGemm(b, gemmKernelsF32[0], s.m, s.n, s.k) })
	}
}

func BenchmarkGemmF64(b *testing.B) {
	for _, s := range gemmBenchSizes {
		b.Run(s.name, func(b *testing.B) { benchGemm(b, gemmKernelsF64[0], s.m, s.n, s.k) })
	}
}

// BenchmarkGemmPackedBF32 times products whose B is packed once
// (PackedB), as a deployed network's weights are: a transformer MLP
// block's two products at batch 16 (768→3072→768, 9 MiB of weights each)
// the MLP 784-512-512-10's first at batch 32 and 1, and a CNN's dense
// layer (3136→128) at batch 16.
func BenchmarkGemmPackedBF32(b *testing.B) {
	for _, s := range []struct {
		name    string
		m, n, k int
	}{{"block_16x3072x768", 16, 3072, 768}, {"block_16x768x3072", 16, 768, 3072}, {"mlp_32x512x784", 32, 512, 784}, {"mlp_1x512x784", 1, 512, 784},
		// A CNN's dense layer after its flatten, at batch 16.
		{"cnn_16x128x3136", 16, 128, 3136}, {"cnn_1x128x3136", 1, 128, 3136}} {
		b.Run(s.name, func(b *testing.B) {
			runThreads(b, func(b *testing.B, threads int) {
				rng := rand.New(rand.NewPCG(7, 8))
				p := GemmParams[float32]{M: s.m, N: s.n, K: s.k, A: randSlice[float32](rng, s.m*s.k), LDA: s.k,
					B: randSlice[float32](rng, s.k*s.n), LDB: s.n, C: make([]float32, s.m*s.n), LDC: s.n, Threads: threads, Work: new(Workspace)}
				p.PackedB = new(PackedB[float32])
				PackB(p.PackedB, p)
				b.SetBytes(int64(4 * s.k * s.n))
				b.ReportAllocs()
				for b.Loop() {
					GemmF32(p)
				}
				reportGFLOPS(b, 2*float64(s.m)*float64(s.n)*float64(s.k))
			})
		})
	}
}

// BenchmarkPackB times packing a row-major B into the default kernel's
// panels, one goroutine: 1024×1024 (a large product's B, which the
// product packs on every call) and the MLP's first weights, 784×512.
func BenchmarkPackB(b *testing.B) {
	b.Run("f32/1024x1024", func(b *testing.B) { benchPackB(b, gemmKernelsF32[0], 1024, 1024) })
	b.Run("f64/1024x1024", func(b *testing.B) { benchPackB(b, gemmKernelsF64[0], 1024, 1024) })
	b.Run("f32/784x512", func(b *testing.B) { benchPackB(b, gemmKernelsF32[0], 512, 784) })
}

func benchPackB[T float32 | float64](b *testing.B, kern *microKernel[T], n, k int) {
	src := randSlice[T](rand.New(rand.NewPCG(15, 16)), k*n)
	l := newBLayout(n, k, kern)
	dst := make([]T, l.size())
	var z T
	b.SetBytes(int64(k * n * int(unsafe.Sizeof(z))))
	for b.Loop() {
		for u := range packBUnits(l, false) {
			packBUnit(dst, l, src, n, false, u)
		}
	}
}

// BenchmarkGemmTransAF32 times the weight gradients of the MLP
// 784-512-512-10's training step, Aᵀ·B with K the batch: at batch 32 a
// tile makes only 32 steps, so what surrounds each kernel call counts.
func BenchmarkGemmTransAF32(b *testing.B) {
	for _, s := range [][3]int{{784, 512, 32}, {512, 512, 32}, {784, 512, 256}} {
		m, n, k := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			runThreads(b, func(b *testing.B, threads int) {
				rng := rand.New(rand.NewPCG(7, 8))
				p := GemmParams[float32]{M: m, N: n, K: k, A: randSlice[float32](rng, m*k), LDA: m, TransA: true,
					B: randSlice[float32](rng, k*n), LDB: n, C: make([]float32, m*n), LDC: n, Threads: threads, Work: new(Workspace)}
				b.ReportAllocs()
				GemmF32(p)
				for b.Loop() {
					GemmF32(p)
				}
				reportGFLOPS(b, 2*float64(m)*float64(n)*float64(k))
			})
		})
	}
}

// BenchmarkGemmKernelF32 and BenchmarkGemmKernelF64 time every kernel this
// machine can run, by name.
func BenchmarkGemmKernelF32(b *testing.B) {
	for _, kern := range gemmKernelsF32 {
		for _, s := range gemmBenchSizes[1:4] {
			b.Run(kern.name+"/"+s.name, func(b *testing.B) { benchGemm(b, kern, s.m, s.n, s.k) })
		}
	}
}

func BenchmarkGemmKernelF64(b *testing.B) {
	for _, kern := range gemmKernelsF64 {
		for _, s := range gemmBenchSizes[1:4] {
			b.Run(kern.name+"/"+s.name, func(b *testing.B) { benchGemm(b, kern, s.m, s.n, s.k) })
		}
	}
}

// BenchmarkGonumDgemm is gonum's native Dgemm on the same data as
// BenchmarkGemmF64.
func BenchmarkGonumDgemm(b *testing.B) {
	for _, s := range gemmBenchSizes {
		b.Run(s.name, func(b *testing.B) {
			runThreads(b, func(b *testing.B, _ int) {
				rng := rand.New(rand.NewPCG(7, 8))
				m, n, k := s.m, s.n, s.k
				a := blas64.General{Rows: m, Cols: k, Stride: k, Data: randSlice[float64](rng, m*k)}
				bm := blas64.General{Rows: k, Cols: n, Stride: n, Data: randSlice[float64](rng, k*n)}
				c := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
				b.SetBytes(int64((m*k + k*n + m*n) * 8))
				b.ReportAllocs()
				for b.Loop() {
					blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, bm, 0, c)
				}
				reportGFLOPS(b, 2*float64(m)*float64(n)*float64(k))
			})
		})
	}
}

// BenchmarkNaiveF64 is the textbook i-j-p triple loop, the baseline of the
// project's "best loop order ≥ 25× naive" target.
func BenchmarkNaiveF64(b *testing.B) {
	for _, s := range gemmBenchSizes[:3] {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 8))
			m, n, k := s.m, s.n, s.k
			a, bm, c := randSlice[float64](rng, m*k), randSlice[float64](rng, k*n), make([]float64, m*n)
			b.SetBytes(int64((m*k + k*n + m*n) * 8))
			b.ReportAllocs()
			for b.Loop() {
				for i := range m {
					for j := range n {
						var s float64
						for q := range k {
							s += a[i*k+q] * bm[q*n+j]
						}
						c[i*n+j] = s
					}
				}
			}
			reportGFLOPS(b, 2*float64(m)*float64(n)*float64(k))
		})
	}
}

// BenchmarkMLPF32 is the forward pass of an MLP 784-512-512-10 at batch
// 256: three products whose epilogues add the bias and apply ReLU (not on
// the last layer); every product packs its weights.
func BenchmarkMLPF32(b *testing.B) {
	runThreads(b, func(b *testing.B, threads int) {
		layers, flops := mlpLayers(threads)
		for _, p := range layers { // warm up: grow the workspace
			GemmF32(p)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range layers {
				GemmF32(p)
			}
		}
		reportGFLOPS(b, flops)
	})
}

// mlpLayers returns the products of an MLP 784-512-512-10 at batch 256 on
// random data, and their total floating-point operations.
func mlpLayers(threads int) ([]GemmParams[float32], float64) {
	rng := rand.New(rand.NewPCG(9, 10))
	const batch = 256
	dims := []int{784, 512, 512, 10}
	in := randSlice[float32](rng, batch*dims[0])
	var layers []GemmParams[float32]
	flops := 0.0
	w := new(Workspace)
	for l := 0; l+1 < len(dims); l++ {
		k, n := dims[l], dims[l+1]
		bias := randSlice[float32](rng, n)
		out := make([]float32, batch*n)
		relu := l+2 < len(dims)
		p := GemmParams[float32]{M: batch, N: n, K: k, A: in, LDA: k,
			B: randSlice[float32](rng, k*n), LDB: n, C: out, LDC: n, Threads: threads, Work: w,
			Epilogue: func(row, col0 int, c []float32) {
				for i, v := range c {
					v += bias[col0+i]
					if relu {
						v = max(v, 0)
					}
					c[i] = v
				}
			}}
		layers = append(layers, p)
		in = out
		flops += 2 * batch * float64(n) * float64(k)
	}
	return layers, flops
}

// BenchmarkMicroKernel times each micro-kernel alone on L1-resident panels
// (kc = 256): the ceiling that the blocking tries to reach.
func BenchmarkMicroKernel(b *testing.B) {
	for _, kern := range gemmKernelsF32 {
		b.Run("f32/"+kern.name, func(b *testing.B) { benchMicro(b, kern) })
	}
	for _, kern := range gemmKernelsF64 {
		b.Run("f64/"+kern.name, func(b *testing.B) { benchMicro(b, kern) })
	}
}

func benchMicro[T float32 | float64](b *testing.B, kern *microKernel[T]) {
	const kc = 256
	rng := rand.New(rand.NewPCG(11, 12))
	a, bp, c := randSlice[T](rng, kc*kern.mr), randSlice[T](rng, kc*kern.nr), make([]T, kern.mr*kern.nr)
	for b.Loop() {
		kern.fn(kc, a, bp, c, kern.nr, true)
	}
	reportGFLOPS(b, 2*float64(kc*kern.mr*kern.nr))
}

// TestGemmSmallMBits checks the row-by-row path of products of at most
// smallM rows against its definition, bit for bit, overwriting and
// accumulating, with the left operand stored and transposed, on one and
// two threads: with gemvRow (AVX2 or AVX-512), one exactly rounded fused
// multiply-add per row of B in order for every column; otherwise one axpy
// per row of B in order (four rows of B at a time, then single rows).
func TestGemmSmallMBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, m := range []int{1, 2, 4} {
		for _, n := range []int{1, 63, 64, 65, 130, 512} {
			for _, k := range []int{1, 3, 4, 5, 300} {
				for _, acc := range []bool{false, true} {
					ldb, ldc := n+2, n+1
					a, b := randSlice[float32](rng, m*k), randSlice[float32](rng, k*ldb)
					c := randSlice[float32](rng, m*ldc)
					want := append([]float32(nil), c...)
					for i := range m {
						row := want[i*ldc:][:n]
						if !acc {
							clear(row)
						}
						if hasGemvAsm {
							fmaRows(row, a[i*k:][:k], 1, b, ldb)
							continue
						}
						for kk := range k {
							axpyUnitF32(a[i*k+kk], b[kk*ldb:][:n], row)
						}
					}
					// The same left operand stored transposed, k×m.
					at := make([]float32, k*m)
					for i := range m {
						for kk := range k {
							at[kk*m+i] = a[i*k+kk]
						}
					}
					for _, threads := range []int{1, 2} {
						for _, trans := range []bool{false, true} {
							if trans && !hasGemvAsm {
								continue // a scalar loop there, not an axpy
							}
							p := GemmParams[float32]{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: ldb, LDC: ldc,
								Accumulate: acc, Threads: threads}
							if trans {
								p.A, p.LDA, p.TransA = at, m, true
							}
							got := append([]float32(nil), c...)
							p.C = got
							GemmF32(p)
							for i := range got {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("m=%d n=%d k=%d accumulate=%v transA=%v threads=%d: C[%d] = %v, want %v",
										m, n, k, acc, trans, threads, i, got[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	}
}

// fmaRows sets row[j] = fma(a[kk·ainc], b[kk·ldb+j], row[j]) for kk = 0,
// 1, ... in order, each fused multiply-add rounded once, exactly (through
// math/big, so that no double rounding hides in the reference).
func fmaRows[T float32 | float64](row, a []T, ainc int, b []T, ldb int) {
	k := (len(a)-1)/ainc + 1
	x, y, z := new(big.Float).SetPrec(512), new(big.Float).SetPrec(512), new(big.Float).SetPrec(512)
	for j := range row {
		for kk := range k {
			x.SetFloat64(float64(a[kk*ainc]))
			y.SetFloat64(float64(b[kk*ldb+j]))
			z.SetFloat64(float64(row[j]))
			x.Mul(x, y)
			x.Add(x, z)
			var r T
			switch p := any(&r).(type) {
			case *float32:
				*p, _ = x.Float32()
			case *float64:
				*p, _ = x.Float64()
			}
			if r == 0 {
				// An exact zero is +0 in round to nearest, unless the
				// product and row[j] are both -0.
				av, bv := a[kk*ainc], b[kk*ldb+j]
				if (av == 0 || bv == 0) && math.Signbit(float64(row[j])) && math.Signbit(float64(av)) != math.Signbit(float64(bv)) {
					r = T(math.Copysign(0, -1))
				} else {
					r = 0
				}
			}
			row[j] = r
		}
	}
}

// TestGemvRow checks the row-by-matrix kernels (AVX-512 or AVX2, as the
// machine has) against exactly rounded fused multiply-adds in order, bit
// for bit, on every tile width and tail (n around multiples of the vector
// and of the widest tile), with a strided row of A, overwriting and
// accumulating, and checks that nothing past the row is written.
func TestGemvRow(t *testing.T) {
	if !hasGemvAsm {
		t.Skip("no AVX2 here: gemvRow is not used")
	}
	if hasAVX512 {
		// Both kernels: AVX-512 here, AVX2 with it turned off.
		t.Run("AVX2", func(t *testing.T) {
			withoutAVX512(func() {
				testGemvRow[float32](t)
				testGemvRow[float64](t)
			})
		})
	}
	testGemvRow[float32](t)
	testGemvRow[float64](t)
}

func testGemvRow[T float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 95, 96, 97, 100, 127, 128, 129, 191, 255, 256, 257, 383, 513} {
		for _, k := range []int{1, 2, 7, 61} {
			for _, ainc := range []int{1, 3} {
				for _, add := range []bool{false, true} {
					ldb := n + 5
					a, b := randSlice[T](rng, (k-1)*ainc+1), randSlice[T](rng, (k-1)*ldb+n)
					c := randSlice[T](rng, n+3)
					want := append([]T(nil), c...)
					if !add {
						clear(want[:n])
					}
					fmaRows(want[:n], a, ainc, b, ldb)
					got := append([]T(nil), c...)
					gemvRow(k, a, ainc, b, ldb, got[:n], add)
					for i := range got {
						if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
							t.Fatalf("%T n=%d k=%d ainc=%d add=%v: c[%d] = %v, want %v", got[0], n, k, ainc, add, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkMLPGemvF32 is the forward pass of an MLP 784-512-512-10 at batch
// 1: three products of one row by a weight matrix, bound by reading the
// 2.6 MiB of weights (from the last-level cache when the loop repeats).
func BenchmarkMLPGemvF32(b *testing.B) {
	runThreads(b, func(b *testing.B, threads int) {
		rng := rand.New(rand.NewPCG(9, 11))
		dims := []int{784, 512, 512, 10}
		in := randSlice[float32](rng, dims[0])
		var layers []GemmParams[float32]
		bytes := 0
		for l := 0; l+1 < len(dims); l++ {
			k, n := dims[l], dims[l+1]
			out := make([]float32, n)
			layers = append(layers, GemmParams[float32]{M: 1, N: n, K: k, A: in, LDA: k,
				B: randSlice[float32](rng, k*n), LDB: n, C: out, LDC: n, Threads: threads})
			in = out
			bytes += 4 * k * n
		}
		b.SetBytes(int64(bytes))
		for b.Loop() {
			for _, p := range layers {
				GemmF32(p)
			}
		}
	})
}

// TestGemmStridedBBits checks that the kernels that read B in place, and
// those that read A in place too, give the bits of the same kernels on
// packed operands (the summation order is the same), on whole panels of B
// with padding between the rows of A and B, whole and partial panels of
// A, several k blocks, row chunks and threads, accumulating or not, with
// an epilogue.
func TestGemmStridedBBits(t *testing.T) {
	testGemmStridedBBits[float32](t)
	testGemmStridedBBits[float64](t)
}

func testGemmStridedBBits[T float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	tested := 0
	for _, kern := range kernelsOf[T]() {
		if kern.strided == nil {
			continue
		}
		packed, stridedOnly, noTails := *kern, *kern, *kern
		packed.strided, packed.direct, packed.stridedTails, stridedOnly.direct = nil, nil, nil, nil
		noTails.stridedTails = nil
		var shapes [][3]int
		for _, s := range [][3]int{{5, 1, 1}, {12, 1, 3}, {13, 2, 300}, {100, 4, 513}, {256, 16, 784}, {37, 3, 17}, {48, 2, 256}, {20, 2, 300}, {22, 1, 5}, {28, 3, 257}, {31, 1, 40}} {
			shapes = append(shapes, [3]int{s[0], s[1] * kern.nr, s[2]})
		}
		// Narrower than a panel: B packed, A in place where direct is set
		// (the MLP's last layer, 256×10×512 in float32).
		shapes = append(shapes, [3]int{256, 10, 512}, [3]int{13, 3, 300}, [3]int{37, 1, 17}, [3]int{100, kern.nr - 1, 513})
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, threads := range []int{1, 2, 3} {
				for _, acc := range []bool{false, true} {
					lda, ldb, ldc := k+1, n+3, n+2
					a, b := randSlice[T](rng, m*lda), randSlice[T](rng, k*ldb)
					c := randSlice[T](rng, m*ldc)
					var rows atomic.Int64
					p := GemmParams[T]{M: m, N: n, K: k, A: a, LDA: lda, B: b, LDB: ldb, LDC: ldc,
						Accumulate: acc, Threads: threads,
						Epilogue: func(row, col0 int, c []T) {
							rows.Add(int64(len(c)))
							for i := range c {
								c[i] = c[i]*2 + 1
							}
						}}
					want := append([]T(nil), c...)
					p.C = want
					gemm(&p, &packed)
					for _, kv := range []*microKernel[T]{&stridedOnly, &noTails, kern} {
						got := append([]T(nil), c...)
						p.C = got
						rows.Store(0)
						gemm(&p, kv)
						if rows.Load() != int64(m*n) {
							t.Fatalf("%s m=%d n=%d k=%d: the epilogue saw %d elements, want %d", kern.name, m, n, k, rows.Load(), m*n)
						}
						for i := range got {
							if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
								t.Fatalf("%s m=%d n=%d k=%d threads=%d accumulate=%v A in place=%v: C[%d] = %v in place, %v packed",
									kern.name, m, n, k, threads, acc, kv.direct != nil, i, got[i], want[i])
							}
						}
					}
					tested++
				}
			}
		}
	}
	if tested == 0 && hasAVX512 {
		t.Fatal("no kernel reads B in place on this AVX-512 machine")
	}
}

// TestSmallMSplit checks how row-by-row products are cut: the float32
// layers of the MLP 784-512-512-10 at batch 1 run on two threads, in whole
// gemvRow tiles of about equal width in blocks of 32 columns (two of 16
// vectors with AVX-512; with AVX2, five of 12 vectors and one of 4); the
// last, 512×10, on one. Columns that fit in fewer tiles than threads are
// cut into one tile a thread, of at least 4 vectors: a CNN's 3136×128
// dense layer into two tiles of 64 columns, 1024 columns on eight threads
// into eight of 128.
func TestSmallMSplit(t *testing.T) {
	for _, c := range []struct {
		m, n, k, threads int
		wantThreads      int
		cols512, cols2   int // the columns of a chunk with AVX-512 and with AVX2 gemvRow; 0: all of N
	}{
		{1, 512, 784, 2, 2, 256, 96},
		{1, 512, 512, 2, 2, 256, 96},
		{1, 10, 512, 2, 1, 0, 0},
		{1, 512, 784, 1, 1, 0, 0},
		{4, 300, 300, 8, 5, 96, 64},
		{1, 1024, 1024, 8, 8, 128, 96},
		{1, 100, 3000, 2, 2, 100, 64},
		{1, 128, 3136, 2, 2, 64, 64},
	} {
		j := &gemmJob[float32]{p: GemmParams[float32]{M: c.m, N: c.n, K: c.k, Threads: c.threads}}
		threads, cols := j.smallMSplit()
		want := c.cols2
		if hasAVX512 {
			want = c.cols512
		}
		if want == 0 || !hasGemvAsm {
			want = c.n
			if c.wantThreads > 1 {
				want = min(c.n, smallMBlock*ceilDiv(c.n, smallMBlock*chunksPerThread*c.wantThreads))
			}
		}
		if threads != c.wantThreads || cols != want {
			t.Errorf("M=%d N=%d K=%d Threads=%d: %d threads, %d columns per chunk; want %d, %d",
				c.m, c.n, c.k, c.threads, threads, cols, c.wantThreads, want)
		}
	}
}

// TestGemmThreads checks the bound that callers use to skip preparing for
// concurrent epilogues, and that Gemm keeps to it: no epilogue runs on
// more goroutines than it says.
func TestGemmThreads(t *testing.T) {
	for _, c := range []struct {
		m, n, k, threads int
		packA            bool
		want             int
	}{
		{1, 512, 784, 2, false, 2},
		{1, 10, 512, 2, false, 1},
		{256, 32, 64, 2, false, 1},
		{256, 10, 32, 2, false, 1},
		{256, 512, 784, 2, false, 2},
		{256, 512, 784, 1, false, 1},
		{4, 512, 512, 8, true, 2},
		{0, 5, 5, 2, false, 1},
	} {
		if got := GemmThreads(c.m, c.n, c.k, c.threads, c.packA); got != c.want {
			t.Errorf("GemmThreads(%d, %d, %d, %d, %v) = %d, want %d", c.m, c.n, c.k, c.threads, c.packA, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(19, 20))
	for _, s := range [][3]int{{1, 512, 784}, {3, 700, 300}, {256, 32, 64}, {64, 256, 300}, {300, 300, 300}} {
		m, n, k := s[0], s[1], s[2]
		bound := GemmThreads(m, n, k, 4, false)
		var mu sync.Mutex
		ids := map[uint64]bool{}
		p := GemmParams[float32]{M: m, N: n, K: k, A: randSlice[float32](rng, m*k), LDA: k,
			B: randSlice[float32](rng, k*n), LDB: n, C: make([]float32, m*n), LDC: n, Threads: 4,
			Epilogue: func(row, col0 int, c []float32) {
				mu.Lock()
				ids[goid()] = true
				mu.Unlock()
			}}
		for range 20 {
			clear(ids)
			GemmF32(p)
			if len(ids) > bound {
				t.Errorf("%dx%dx%d: epilogues on %d goroutines, GemmThreads says at most %d", m, n, k, len(ids), bound)
				break
			}
		}
	}
}

// goid returns the current goroutine's id, from the first line of its
// stack trace ("goroutine N [running]:").
func goid() uint64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	var id uint64
	fmt.Sscanf(s, "goroutine %d ", &id)
	return id
}

// TestGuidedClaims checks that the claims of a guided split, by several
// goroutines at once, cover every row panel exactly once, in chunks of at
// least one panel and at most maxPan; and that one claimant's chunks never
// grow.
func TestGuidedClaims(t *testing.T) {
	for _, c := range []struct{ mpan, threads, maxPan int }{
		{1, 2, 8}, {2, 2, 8}, {22, 2, 8}, {22, 3, 8}, {100, 2, 8}, {100, 4, 1}, {7, 16, 3}, {1000, 8, 8},
	} {
		var j gemmJob[float32]
		j.mpan, j.threads, j.maxPan = c.mpan, c.threads, c.maxPan
		claimed := make([]atomic.Int32, c.mpan)
		var wg sync.WaitGroup
		errs := make(chan string, c.threads)
		for range c.threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					p0, p1, ok := j.claimRows()
					if !ok {
						return
					}
					if p1-p0 < 1 || p1-p0 > c.maxPan || p0 < 0 || p1 > c.mpan {
						errs <- fmt.Sprintf("chunk [%d, %d)", p0, p1)
						return
					}
					for i := p0; i < p1; i++ {
						claimed[i].Add(1)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("mpan %d threads %d maxPan %d: %s", c.mpan, c.threads, c.maxPan, e)
		}
		for i := range claimed {
			if n := claimed[i].Load(); n != 1 {
				t.Errorf("mpan %d threads %d maxPan %d: panel %d claimed %d times", c.mpan, c.threads, c.maxPan, i, n)
			}
		}
		j.next.Store(0)
		prev := c.maxPan
		for {
			p0, p1, ok := j.claimRows()
			if !ok {
				break
			}
			if p1-p0 > prev {
				t.Errorf("mpan %d threads %d maxPan %d: chunk [%d, %d) longer than the one before (%d)", c.mpan, c.threads, c.maxPan, p0, p1, prev)
			}
			prev = p1 - p0
		}
	}
}

// TestGemmPackedBBits checks that a right operand packed once by PackB
// and passed as PackedB gives the bits of the same operand passed as B —
// in place (direct) or packed by the product, and for the products of at
// most four rows in gemvRow's tiles (cut for one thread or for two) —
// through GemmF32 and GemmF64, overwriting and accumulating, transposed
// or not, with PackA and with TransA, on one to three threads, with an
// epilogue; that the products
// that ignore it (UsesPackedB) still read B; and that a PackedB of
// another shape or layout panics. On AVX-512 it runs again with the AVX2
// row kernels, whose tiles are narrower.
func TestGemmPackedBBits(t *testing.T) {
	if hasAVX512 {
		t.Run("AVX2", func(t *testing.T) {
			withoutAVX512(func() {
				testPackedBBits(t, GemmF32)
				testPackedBBits(t, GemmF64)
			})
		})
	}
	testPackedBBits(t, GemmF32)
	testPackedBBits(t, GemmF64)
}

func testPackedBBits[T float32 | float64](t *testing.T, gemmT func(GemmParams[T])) {
	rng := rand.New(rand.NewPCG(15, 16))
	shapes := [][3]int{{256, 512, 784}, {37, 64, 300}, {13, 33, 257}, {5, 7, 3}, {4, 64, 20}, {1, 16, 5}, {70, 96, 513}, {9, 10, 600},
		// Rows of B in several tiles of gemvRow, the last narrower.
		{1, 512, 784}, {1, 600, 37}, {3, 513, 50}, {2, 1000, 9}, {1, 10, 512}, {4, 257, 1},
		// One tile of gemvRow, cut in two for two threads when packed for
		// them (the first of each shape's layouts below).
		{1, 128, 3136},
		// No columns, or nothing to sum: packing them used to divide by
		// zero.
		{1, 0, 5}, {2, 6, 0}, {16, 0, 7}, {16, 9, 0}}
	gemvTested := false
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for i, transB := range []bool{false, true, false, false} {
			packA, transA := i == 2, i == 3
			ldb := max(n, 1)
			if transB {
				ldb = k + 1
			}
			lda := max(k, 1)
			if transA {
				lda = m + 2
			}
			a, b := randSlice[T](rng, max(m, k)*lda), randSlice[T](rng, max(n, k)*ldb)
			var pb PackedB[T]
			pp := GemmParams[T]{M: m, N: n, K: k, B: b, LDB: ldb, TransB: transB}
			if packA {
				pp.PackA = packAFrom(t, a, k, m, k, false)
			}
			if i == 0 {
				pp.Threads = 2 // the other layouts are packed for one thread
			}
			PackB(&pb, pp)
			gemvTested = gemvTested || pb.gemv
			if pb.gemv && m == 1 && n == 128 && k == 3136 && hasAVX512 {
				wantTile := 128
				if i == 0 {
					wantTile = 64
				}
				if pb.tile != wantTile {
					t.Errorf("%dx%dx%d packed for %d threads: tiles of %d columns, want %d", m, n, k, max(pp.Threads, 1), pb.tile, wantTile)
				}
			}
			for _, threads := range []int{1, 2, 3} {
				for _, acc := range []bool{false, true} {
					c0 := randSlice[T](rng, m*n)
					want, got := slices.Clone(c0), slices.Clone(c0)
					p := GemmParams[T]{M: m, N: n, K: k, A: a, LDA: lda, TransA: transA, B: b, LDB: ldb, TransB: transB,
						C: want, LDC: max(n, 1), Accumulate: acc, Threads: threads,
						Epilogue: func(row, col0 int, c []T) {
							for j := range c {
								c[j] = c[j]*T(0.5) + T(row) - T(col0+j)
							}
						}}
					if packA {
						p.A, p.LDA, p.PackA = nil, 0, packAFrom(t, a, k, m, k, false)
					}
					gemmT(p)
					p.C, p.PackedB = got, &pb
					if UsesPackedB(m, packA, transB) {
						p.B, p.LDB = nil, 0 // read from the packed panels only
					}
					gemmT(p)
					for j := range want {
						if want[j] != got[j] {
							t.Fatalf("%dx%dx%d transA=%v transB=%v packA=%v threads=%d acc=%v: C[%d] = %v with PackedB, %v without",
								m, n, k, transA, transB, packA, threads, acc, j, got[j], want[j])
						}
					}
				}
			}
		}
	}
	if hasGemvAsm && !gemvTested {
		t.Fatal("no product packed B in gemvRow's tiles")
	}
	mismatch := func(what string, packM, packK, m, n, k int) {
		t.Helper()
		var pb PackedB[T]
		PackB(&pb, GemmParams[T]{M: packM, N: n, K: packK, B: make([]T, packK*n), LDB: n})
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		gemmT(GemmParams[T]{M: m, N: n, K: k, A: make([]T, m*k), LDA: k, C: make([]T, m*n), LDC: n, PackedB: &pb})
	}
	mismatch("a PackedB of 8×16 passed for a 9×16 right operand", 8, 8, 8, 16, 9)
	mismatch("a PackedB of 8×16 passed for a 9×16 right operand of one row", 1, 8, 1, 16, 9)
	if hasGemvAsm {
		mismatch("a PackedB in panels passed for a product of one row", 8, 9, 1, 16, 9)
		mismatch("a PackedB in gemvRow's tiles passed for a product of 8 rows", 1, 9, 8, 16, 9)
	}
}

// TestNextPanel checks that nextPanel returns the packed B panel that
// computeChunk uses next, in its order: the chunk's panels of a k block,
// then the next block's.
func TestNextPanel(t *testing.T) {
	kern := &microKernel[float64]{nr: 4, kc: 8}
	for _, s := range []struct{ n, k int }{{20, 20}, {20, 8}, {3, 17}, {16, 1}} {
		j := &gemmJob[float64]{p: GemmParams[float64]{N: s.n, K: s.k}, kern: kern, bl: newBLayout(s.n, s.k, kern)}
		bl := j.bl
		j.bp = make([]float64, bl.size())
		for i := range j.bp {
			j.bp[i] = float64(i)
		}
		for jp0 := range bl.npan {
			for jp1 := jp0 + 1; jp1 <= bl.npan; jp1++ {
				type use struct{ k0, jp, off, n int }
				var uses []use
				for k0 := 0; k0 < s.k; k0 += bl.kcs {
					kc := min(bl.kcs, s.k-k0)
					for jp := jp0; jp < jp1; jp++ {
						uses = append(uses, use{k0, jp, k0*bl.npan*bl.nr + jp*kc*bl.nr, kc * bl.nr})
					}
				}
				for i, u := range uses {
					got := j.nextPanel(u.k0, u.jp, jp0, jp1)
					if i == len(uses)-1 {
						if got != nil {
							t.Errorf("n=%d k=%d panels [%d,%d): after the last panel got %d elements at %v, want nil", s.n, s.k, jp0, jp1, len(got), got[0])
						}
						continue
					}
					want := uses[i+1]
					if len(got) != want.n || got[0] != float64(want.off) {
						t.Errorf("n=%d k=%d panels [%d,%d), after k0=%d jp=%d: got %d elements at %v, want %d at %d", s.n, s.k, jp0, jp1, u.k0, u.jp, len(got), got[0], want.n, want.off)
					}
				}
			}
		}
	}
}
