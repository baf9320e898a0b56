package kernels

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// gatherCase is one product of TestGatherGemm: A's rows at rowOff and
// columns at colOff in x, C with leading dimension ldc inside a guarded
// buffer.
type gatherCase struct {
	m, n, k    int
	accumulate bool
}

func testGatherCase[T float32 | float64](t *testing.T, c gatherCase, rng *rand.Rand) {
	t.Helper()
	// Offsets as a convolution's: rows the positions of a 2-D image of
	// width w (with a gap at each row's end), columns a window's elements,
	// shuffled so that nothing depends on their order.
	w := 3 + rng.IntN(7)
	rowOff := make([]int, c.m)
	for i := range rowOff {
		rowOff[i] = (i/w)*(w+2) + i%w
	}
	colOff := make([]int, c.k)
	for q := range colOff {
		colOff[q] = (q/3)*(w+2) + q%3 + rng.IntN(2)
	}
	rng.Shuffle(len(colOff), func(i, j int) { colOff[i], colOff[j] = colOff[j], colOff[i] })
	size := 1
	if c.m > 0 && c.k > 0 {
		_, rhi := span(rowOff)
		_, chi := span(colOff)
		size = rhi + chi + 1
	}
	x := make([]T, size)
	for i := range x {
		x[i] = T(rng.Float64()*2 - 1)
	}
	ldb := c.n + rng.IntN(3)
	b := make([]T, max(0, (c.k-1)*ldb+c.n))
	for i := range b {
		b[i] = T(rng.Float64()*2 - 1)
	}
	ldc := c.n + rng.IntN(3)
	back := make([]T, c.m*ldc+8)
	for i := range back {
		back[i] = guard
	}
	cv := back[3 : 3+max(0, (c.m-1)*ldc+c.n)]
	c0 := make([]T, len(cv))
	for i := 0; i < c.m; i++ {
		for j := range c.n {
			cv[i*ldc+j] = T(rng.Float64()*2 - 1)
			c0[i*ldc+j] = cv[i*ldc+j]
		}
	}
	p := GatherParams[T]{M: c.m, N: c.n, K: c.k, X: x, RowOff: rowOff, ColOff: colOff, B: b, LDB: ldb, C: cv, LDC: ldc, Accumulate: c.accumulate}
	if !gatherGemm(&p) {
		t.Fatalf("%+v: not taken", c)
	}
	tol := tolOf[T]()
	for i := range c.m {
		for j := range c.n {
			want, abs := exactSum(func(yield func(float64)) {
				if c.accumulate {
					yield(float64(c0[i*ldc+j]))
				}
				for q := range c.k {
					yield(float64(x[rowOff[i]+colOff[q]]) * float64(b[q*ldb+j]))
				}
			})
			if got := float64(cv[i*ldc+j]); !near(got, want, abs, tol) {
				t.Fatalf("%+v: C[%d][%d] = %v, want %v", c, i, j, got, want)
			}
		}
	}
	for idx, v := range back {
		if o := idx - 3; o >= 0 && o < len(cv) && o%ldc < c.n {
			continue
		}
		if v != guard {
			t.Fatalf("%+v: element %d outside C changed to %v", c, idx, v)
		}
	}
}

func testGatherGemm[T float32 | float64](t *testing.T) {
	if !GatherAvailable() {
		t.Skip("the gather kernels need AVX2")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	maxN := GatherMaxN[T]()
	i := 0
	for _, m := range []int{0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 64} {
		for n := 1; n <= maxN; n++ {
			for _, k := range []int{0, 1, 2, 9, 17, 72} {
				testGatherCase[T](t, gatherCase{m: m, n: n, k: k, accumulate: i%3 == 1}, rng)
				i++
			}
		}
	}
	// A weight gradient's shape: few rows, a long sum.
	testGatherCase[T](t, gatherCase{m: 9, n: 8, k: 8192}, rng)
	testGatherCase[T](t, gatherCase{m: 9, n: maxN, k: 2048, accumulate: true}, rng)
}

func TestGatherGemmF32(t *testing.T) { testGatherGemm[float32](t) }
func TestGatherGemmF64(t *testing.T) { testGatherGemm[float64](t) }

// TestGatherGemmDeclines checks the products it leaves to GemmF32: too
// many columns, or no AVX2.
func TestGatherGemmDeclines(t *testing.T) {
	c := make([]float32, 33)
	p := GatherParams[float32]{M: 1, N: 33, K: 1, X: []float32{1}, RowOff: []int{0}, ColOff: []int{0}, B: make([]float32, 33), LDB: 33, C: c, LDC: 33}
	if GatherGemmF32(p) {
		t.Error("took 33 float32 columns")
	}
	p.N, p.LDB, p.LDC = 8, 8, 8
	if got := GatherGemmF32(p); got != GatherAvailable() {
		t.Errorf("8 columns: took %v, want %v (gather kernels available)", got, GatherAvailable())
	}
}

// TestGatherGemmPanics checks that invalid parameters panic with a
// message naming the problem rather than reading past X.
func TestGatherGemmPanics(t *testing.T) {
	if !GatherAvailable() {
		t.Skip("the gather kernels need AVX2")
	}
	ok := func() GatherParams[float32] {
		return GatherParams[float32]{M: 2, N: 4, K: 3, X: make([]float32, 10), RowOff: []int{0, 5}, ColOff: []int{0, 1, 2},
			B: make([]float32, 12), LDB: 4, C: make([]float32, 8), LDC: 4}
	}
	for _, c := range []struct {
		name string
		edit func(p *GatherParams[float32])
		want string
	}{
		{"offset past X", func(p *GatherParams[float32]) { p.RowOff[1] = 8 }, "offsets reach X[0] to X[10] of 10"},
		{"negative offset", func(p *GatherParams[float32]) { p.ColOff[0] = -1 }, "offsets reach X[-1]"},
		{"short B", func(p *GatherParams[float32]) { p.B = p.B[:11] }, "B of 11 elements"},
		{"small ldc", func(p *GatherParams[float32]) { p.LDC = 3 }, "C of 8 elements, leading dimension 3"},
		{"few offsets", func(p *GatherParams[float32]) { p.ColOff = p.ColOff[:2] }, "2 column offsets for depth 3"},
		{"C over X", func(p *GatherParams[float32]) { p.X = make([]float32, 20); p.C = p.X[10:18] }, "C overlaps X or B"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ok()
			c.edit(&p)
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); r == nil || !strings.Contains(msg, c.want) {
					t.Errorf("panic %v, want one containing %q", r, c.want)
				}
			}()
			GatherGemmF32(p)
		})
	}
}

func BenchmarkGatherGemm(b *testing.B) {
	if !GatherAvailable() {
		b.Skip("the gather kernels need AVX2")
	}
	for _, s := range [][3]int{{64, 8, 9}, {9, 8, 8192}, {72, 16, 2048}} {
		m, n, k := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			rowOff, colOff := make([]int, m), make([]int, k)
			for i := range rowOff {
				rowOff[i] = i
			}
			for i := range colOff {
				colOff[i] = i
			}
			x, bb, c := make([]float32, m+k), make([]float32, k*n), make([]float32, m*n)
			p := GatherParams[float32]{M: m, N: n, K: k, X: x, RowOff: rowOff, ColOff: colOff, B: bb, LDB: n, C: c, LDC: n}
			for b.Loop() {
				GatherGemmF32(p)
			}
		})
	}
}
