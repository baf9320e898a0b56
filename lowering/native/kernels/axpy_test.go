package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

func testAxpy[T float32 | float64](t *testing.T, axpy func(int, T, []T, int, []T, int)) {
	rng := rand.New(rand.NewPCG(3, 3))
	tol := tolOf[T]()
	for _, n := range vecSizes {
		for _, incx := range vecIncs {
			for _, incy := range vecIncs {
				for _, alpha := range []T{0, 1, -0.75} {
					x := randSlice[T](rng, vecLen(n, incx))
					y := randSlice[T](rng, vecLen(n, incy)+1) // one spare: must stay
					y0 := append([]T(nil), y...)
					axpy(n, alpha, x, incx, y[:vecLen(n, incy)], incy)
					// y[i] is alpha·x + y rounded once (FMA) or twice: within
					// tol·(|alpha·x| + |y|) of the exact value.
					want, abs := make([]float64, len(y)), make([]float64, len(y))
					for i, v := range y0 {
						want[i], abs[i] = float64(v), math.Abs(float64(v))
					}
					for i := range n {
						iy := vecIndex(i, n, incy)
						ax := float64(alpha) * float64(x[vecIndex(i, n, incx)])
						want[iy] += ax
						abs[iy] += math.Abs(ax)
					}
					for i := range y {
						if !near(float64(y[i]), want[i], abs[i], tol) {
							t.Fatalf("n=%d incx=%d incy=%d alpha=%v: y[%d] = %v, want %v", n, incx, incy, alpha, i, y[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestAxpyZeroAlpha: a zero alpha still multiplies, so Inf and NaN in x
// make NaN in y, in the vector loop and its tail, any increments.
func TestAxpyZeroAlpha(t *testing.T) {
	for _, n := range []int{1, 7, 32, 40} {
		for _, inc := range []int{1, 2} {
			x32, y32 := make([]float32, n*inc), make([]float32, n*inc)
			x64, y64 := make([]float64, n*inc), make([]float64, n*inc)
			x32[(n-1)*inc], x64[(n-1)*inc] = float32(math.Inf(1)), math.Inf(-1)
			x32[0], x64[0] = float32(math.NaN()), math.NaN()
			AxpyF32(n, 0, x32, inc, y32, inc)
			AxpyF64(n, 0, x64, inc, y64, inc)
			for _, i := range []int{0, (n - 1) * inc} {
				if !math.IsNaN(float64(y32[i])) || !math.IsNaN(y64[i]) {
					t.Errorf("n=%d inc=%d: y[%d] = %v, %v, want NaN (0·Inf, 0·NaN)", n, inc, i, y32[i], y64[i])
				}
			}
		}
	}
}

func TestAxpyF32(t *testing.T) { testAxpy(t, AxpyF32) }
func TestAxpyF64(t *testing.T) { testAxpy(t, AxpyF64) }

// TestAxpyUnitGo checks the portable loop that the assembly replaces.
func TestAxpyUnitGo(t *testing.T) {
	testAxpy(t, func(n int, alpha float32, x []float32, incx int, y []float32, incy int) {
		if incx == 1 && incy == 1 {
			axpyUnitGo(alpha, x[:n], y[:n])
			return
		}
		AxpyF32(n, alpha, x, incx, y, incy)
	})
}

func TestAxpyAllocs(t *testing.T) {
	x := make([]float64, 1000)
	y := make([]float64, 1000)
	if a := testing.AllocsPerRun(100, func() { AxpyF64(1000, 2, x, 1, y, 1); AxpyF64(500, 2, x, 2, y, -2) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
}

func benchAxpy[T float32 | float64](b *testing.B, axpy func(int, T, []T, int, []T, int), incs ...int) {
	for _, n := range []int{16, 1024, 65536} {
		for _, inc := range incs {
			name := fmt.Sprint(n)
			if inc != 1 {
				name += fmt.Sprintf("/inc=%d", inc)
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(4, 4))
				x, y := randSlice[T](rng, n*inc), randSlice[T](rng, n*inc)
				var z T
				b.SetBytes(int64(3 * n * int(unsafe.Sizeof(z)))) // read x, y; write y
				b.ReportAllocs()
				for b.Loop() {
					axpy(n, 1e-9, x, inc, y, inc)
				}
				reportGFLOPS(b, 2*float64(n))
			})
		}
	}
}

func BenchmarkAxpyF32(b *testing.B) { benchAxpy(b, AxpyF32, 1, 2) }
func BenchmarkAxpyF64(b *testing.B) { benchAxpy(b, AxpyF64, 1, 2) }

// BenchmarkAxpyGoF64 is the portable loop, for comparison with the assembly.
func BenchmarkAxpyGoF64(b *testing.B) {
	benchAxpy(b, func(n int, alpha float64, x []float64, _ int, y []float64, _ int) { axpyUnitGo(alpha, x[:n], y[:n]) }, 1)
}

// TestAxpy4 checks that axpy4UnitF32 gives the bits of four axpyUnitF32
// calls, row 0 first, for lengths around its 64-element vector block and
// a leading dimension wider than the rows, with NaN, infinities and zeros
// among the values; the elements past the row must stay.
func TestAxpy4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40}
	for _, n := range []int{0, 1, 31, 63, 64, 65, 127, 128, 200, 512} {
		ldb := n + 3
		a := randSlice[float32](rng, 4)
		b := randSlice[float32](rng, 3*ldb+n)
		y := randSlice[float32](rng, n+1)
		for i := 0; i < len(b); i += 37 {
			b[i] = special[i%len(special)]
		}
		if n > 5 {
			y[5] = float32(math.Inf(1))
		}
		want := append([]float32(nil), y...)
		for r := range 4 {
			axpyUnitF32(a[r], b[r*ldb:][:n], want[:n])
		}
		axpy4UnitF32(a, b, ldb, y[:n])
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: y[%d] = %v, want %v (four row-by-row axpys)", n, i, y[i], want[i])
			}
		}
	}
}
