package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// winCase is a convolution read as GemmWindows reads it: an image of
// h×w pixels of cin channels (row stride w·cin + padRow), kh×kw windows at
// strides sh, sw and dilations dh, dw, n filters.
type winCase struct {
	h, w, cin, padRow int
	kh, kw, sh, sw    int
	dh, dw            int
	n, padB, padC     int
	threads           int
	rows              bool // EpilogueRows rather than Epilogue
	parts             bool // the epilogues given through EpiloguePart
}

func (c winCase) String() string {
	return fmt.Sprintf("%dx%dx%d+%d/k%dx%d/s%d,%d/d%d,%d/n%d+%d,%d/t%d/rows=%v/parts=%v",
		c.h, c.w, c.cin, c.padRow, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.n, c.padB, c.padC, c.threads, c.rows, c.parts)
}

func testWindows[T float32 | float64](t *testing.T, c winCase, rng *rand.Rand, run func(WindowsParams[T]) bool, nr int) {
	ph := (c.h-(c.kh-1)*c.dh-1)/c.sh + 1
	pw := (c.w-(c.kw-1)*c.dw-1)/c.sw + 1
	ld := c.w*c.cin + c.padRow
	x := make([]T, c.h*ld+3)
	for i := range x {
		x[i] = T(rng.Float64()*2 - 1)
	}
	base := 3
	var taps []int
	for a := range c.kh {
		for b := range c.kw {
			taps = append(taps, a*c.dh*ld+b*c.dw*c.cin)
		}
	}
	M, K, ldb, ldc := ph*pw, len(taps)*c.cin, c.n+c.padB, c.n+c.padC
	b := make([]T, K*ldb)
	for i := range b {
		b[i] = T(rng.Float64()*2 - 1)
	}
	cm := make([]T, M*ldc)
	for i := range cm {
		cm[i] = -7 // padding past N must stay
	}
	seen := make([]atomic.Int32, M)
	p := WindowsParams[T]{M: M, N: c.n, X: x, Base: base,
		RowExtents: []int{ph, pw}, RowStrides: []int{c.sh * ld, c.sw * c.cin},
		Taps: taps, Run: c.cin, B: b, LDB: ldb, C: cm, LDC: ldc, Threads: c.threads}
	// The epilogue adds 1 to each element and counts each row.
	p.Epilogue = func(row, col0 int, seg []T) {
		if col0 != 0 || len(seg) != c.n {
			t.Errorf("%v: epilogue on row %d columns %d+%d", c, row, col0, len(seg))
		}
		for i := range seg {
			seg[i]++
		}
		seen[row].Add(1)
	}
	if c.rows {
		epi := p.Epilogue
		p.EpilogueRows = func(row0, row1, col0, col1 int) {
			for r := row0; r < row1; r++ {
				epi(r, col0, cm[r*ldc+col0:r*ldc+col1])
			}
		}
	}
	if c.parts {
		// Each part gets the same functions, wrapped to check that the
		// part is in range and never runs two epilogues at once.
		epi, rows := p.Epilogue, p.EpilogueRows
		busy := make([]atomic.Bool, max(1, c.threads))
		enter := func(part int) func() {
			if !busy[part].CompareAndSwap(false, true) {
				t.Errorf("%v: part %d runs two epilogues at once", c, part)
			}
			return func() { busy[part].Store(false) }
		}
		p.Epilogue, p.EpilogueRows = nil, nil
		p.EpiloguePart = func(part int) (func(int, int, []T), func(int, int, int, int)) {
			if part < 0 || part >= len(busy) {
				t.Fatalf("%v: EpiloguePart(%d) with %d threads", c, part, c.threads)
			}
			e := func(row, col0 int, seg []T) { defer enter(part)(); epi(row, col0, seg) }
			if rows == nil {
				return e, nil
			}
			return e, func(row0, row1, col0, col1 int) { defer enter(part)(); rows(row0, row1, col0, col1) }
		}
	}
	if !run(p) {
		if windowsKernel[T]() && c.n%nr == 0 {
			t.Fatalf("%v: refused", c)
		}
		return
	}
	tol := 1e-4
	if _, ok := any(T(0)).(float64); ok {
		tol = 1e-12
	}
	for i := range M {
		if n := seen[i].Load(); n != 1 {
			t.Errorf("%v: epilogue ran %d times on row %d", c, n, i)
		}
		pi, pj := i/pw, i%pw
		off := base + pi*c.sh*ld + pj*c.sw*c.cin
		for j := range c.n {
			var want float64
			k := 0
			for a := range c.kh {
				for bb := range c.kw {
					for ch := range c.cin {
						want += float64(x[off+a*c.dh*ld+bb*c.dw*c.cin+ch]) * float64(b[k*ldb+j])
						k++
					}
				}
			}
			want++
			if got := float64(cm[i*ldc+j]); math.Abs(got-want) > tol*(1+math.Abs(want)) {
				t.Fatalf("%v: C[%d][%d] = %v, want %v", c, i, j, got, want)
			}
		}
		for j := c.n; j < ldc; j++ {
			if cm[i*ldc+j] != -7 {
				t.Fatalf("%v: C[%d][%d] past N written", c, i, j)
			}
		}
	}
}

// windowsKernel reports whether GemmWindows has a kernel for T here: one
// that reads A in place.
func windowsKernel[T float32 | float64]() bool { return kernelsOf[T]()[0].direct != nil }

// TestGemmWindows checks GemmWindows against a plain loop over the
// windows: odd images, rows along the innermost axis shorter and longer
// than the tile (tiles across its end, a short last tile), strides,
// dilations, padded rows and leading dimensions, threads, both
// epilogues, float32 and float64.
func TestGemmWindows(t *testing.T) {
	if !windowsKernel[float32]() {
		t.Log("no kernel reads A in place here: GemmWindows must refuse every case")
	}
	cases := []winCase{
		{h: 7, w: 9, cin: 16, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, n: 32, threads: 1},
		{h: 18, w: 30, cin: 17, padRow: 5, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, n: 64, padB: 3, padC: 2, threads: 2, rows: true},
		{h: 11, w: 29, cin: 20, kh: 2, kw: 3, sh: 2, sw: 1, dh: 1, dw: 2, n: 96, threads: 3, parts: true},
		{h: 9, w: 40, cin: 24, padRow: 1, kh: 3, kw: 2, sh: 1, sw: 3, dh: 2, dw: 1, n: 32, padC: 5, threads: 2, rows: true},
		{h: 5, w: 5, cin: 16, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, n: 48, threads: 1},
		{h: 3, w: 3, cin: 33, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, n: 64, threads: 2},
		{h: 34, w: 34, cin: 64, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, n: 64, threads: 4, rows: true, parts: true},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range cases {
		t.Run("f32/"+c.String(), func(t *testing.T) { testWindows(t, c, rng, GemmWindowsF32, gemmKernelsF32[0].nr) })
		t.Run("f64/"+c.String(), func(t *testing.T) { testWindows(t, c, rng, GemmWindowsF64, gemmKernelsF64[0].nr) })
	}
}

// TestGemmWindowsRefuses checks the products GemmWindows leaves to Gemm,
// with C untouched.
func TestGemmWindowsRefuses(t *testing.T) {
	x, b, c := make([]float32, 4096), make([]float32, 4096), make([]float32, 4096)
	ok := WindowsParams[float32]{M: 4, N: 32, X: x, RowExtents: []int{2, 2}, RowStrides: []int{64, 32},
		Taps: []int{0, 16}, Run: 16, B: b, LDB: 32, C: c, LDC: 32}
	bad := map[string]func(p *WindowsParams[float32]){
		"N not a multiple of 32": func(p *WindowsParams[float32]) { p.N = 20 },
		"short runs":             func(p *WindowsParams[float32]) { p.Run = 8 },
		"M not the rows":         func(p *WindowsParams[float32]) { p.M = 5 },
		"no rows":                func(p *WindowsParams[float32]) { p.RowExtents, p.RowStrides = nil, nil },
		"descending rows":        func(p *WindowsParams[float32]) { p.RowStrides = []int{64, -32} },
		"negative tap":           func(p *WindowsParams[float32]) { p.Taps = []int{0, -16} },
	}
	for name, f := range bad {
		p := ok
		f(&p)
		for i := range c {
			c[i] = 5
		}
		if GemmWindowsF32(p) {
			t.Errorf("%s: GemmWindowsF32 ran", name)
		}
		for i := range c {
			if c[i] != 5 {
				t.Fatalf("%s: C written", name)
			}
		}
	}
	if got, want := GemmWindowsF32(ok), windowsKernel[float32](); got != want {
		t.Errorf("GemmWindowsF32 of a valid product = %v, want %v (a kernel reading A in place: AVX2 or AVX-512)", got, want)
	}
}

// BenchmarkConvPasses times the product of one image of the conv block of
// lowering/native's BenchmarkConv (32×32 pixels, 3×3 windows of 64
// channels, zero-padded to 34×34, 64 filters, float32, one thread) two
// ways: path=windows reads the windows in place (GemmWindowsF32);
// path=packed packs them into the micro-kernel's panels (GemmF32 with
// PackA, a packer that copies each window's runs), as the native back end
// does where GemmWindows refuses.
func BenchmarkConvPasses(b *testing.B) {
	const hw, c, n = 32, 64, 64
	ld := (hw + 2) * c
	x := make([]float32, (hw+2)*ld)
	w := make([]float32, 9*c*n)
	out := make([]float32, hw*hw*n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	for i := range w {
		w[i] = float32(rng.Float64())
	}
	var taps []int
	for a := range 3 {
		for bb := range 3 {
			taps = append(taps, a*ld+bb*c)
		}
	}
	rowOff := func(i int) int { return (i/hw)*ld + (i%hw)*c }
	// The packer of the native back end's convolutions: each run of a
	// window, for all the panel's rows, through PackRows.
	pack := func(dst []float32, mr, i0, h, k0, kc int) {
		var offs [16]int
		for k, o := k0, 0; k < k0+kc; {
			e := k % c
			l := min(c-e, k0+kc-k)
			for ii := range h {
				offs[ii] = rowOff(i0+ii) + taps[k/c] + e
			}
			PackRows(dst[o*mr:], mr, x, offs[:h], l)
			k += l
			o += l
		}
		for kk := range kc {
			clear(dst[kk*mr+h : kk*mr+mr])
		}
	}
	b.Run("path=windows", func(b *testing.B) {
		p := WindowsParams[float32]{M: hw * hw, N: n, X: x, RowExtents: []int{hw, hw}, RowStrides: []int{ld, c},
			Taps: taps, Run: c, B: w, LDB: n, C: out, LDC: n, Threads: 1}
		if !GemmWindowsF32(p) {
			b.Skip("GemmWindowsF32 refuses on this machine")
		}
		b.ReportAllocs()
		b.SetBytes(4 * hw * hw * n)
		for b.Loop() {
			GemmWindowsF32(p)
		}
	})
	b.Run("path=packed", func(b *testing.B) {
		p := GemmParams[float32]{M: hw * hw, N: n, K: 9 * c, PackA: pack, B: w, LDB: n, C: out, LDC: n, Threads: 1}
		b.ReportAllocs()
		b.SetBytes(4 * hw * hw * n)
		for b.Loop() {
			GemmF32(p)
		}
	})
}
