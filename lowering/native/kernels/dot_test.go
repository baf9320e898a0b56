package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// vecSizes cover every tail of the unrolled and vector loops (4, 16, 32).
var vecSizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 37, 63, 64, 65, 100, 1023, 1024, 1031}

var vecIncs = []int{1, 2, 3, -1, -3}

// vecIndex returns the index of element i of a vector of n elements with
// increment inc, by the BLAS rule.
func vecIndex(i, n, inc int) int {
	if inc < 0 {
		return (n - 1 - i) * -inc
	}
	return i * inc
}

// vecLen is the slice length a vector of n elements with increment inc needs.
func vecLen(n, inc int) int {
	if n == 0 {
		return 0
	}
	return 1 + (n-1)*max(inc, -inc)
}

func testDot[T float32 | float64](t *testing.T, dot func(int, []T, int, []T, int) T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tol := tolOf[T]()
	for _, n := range vecSizes {
		for _, incx := range vecIncs {
			for _, incy := range vecIncs {
				// One spare element: the routine must not read past the vector.
				x, y := randSlice[T](rng, vecLen(n, incx)+1), randSlice[T](rng, vecLen(n, incy)+1)
				got := float64(dot(n, x[:vecLen(n, incx)], incx, y[:vecLen(n, incy)], incy))
				want, abs := exactSum(func(yield func(float64)) {
					for i := range n {
						yield(float64(x[vecIndex(i, n, incx)]) * float64(y[vecIndex(i, n, incy)]))
					}
				})
				if !near(got, want, abs, tol) {
					t.Errorf("n=%d incx=%d incy=%d: got %v, want %v", n, incx, incy, got, want)
				}
			}
		}
	}
}

func TestDotF32(t *testing.T) { testDot(t, DotF32) }
func TestDotF64(t *testing.T) { testDot(t, DotF64) }

// TestDotUnitGo checks the portable loop that the assembly replaces.
func TestDotUnitGo(t *testing.T) {
	testDot(t, func(n int, x []float64, incx int, y []float64, incy int) float64 {
		if incx == 1 && incy == 1 {
			return dotUnitGo(x[:n], y[:n])
		}
		return DotF64(n, x, incx, y, incy)
	})
}

func TestVecPanics(t *testing.T) {
	x := make([]float64, 10)
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"negative n", func() { DotF64(-1, x, 1, x, 1) }, "kernels: DotF64: negative n"},
		{"zero inc", func() { DotF64(2, x, 0, x, 1) }, "kernels: DotF64: zero increment for x"},
		{"short x", func() { DotF64(4, x, 4, x, 1) }, "kernels: DotF64: x too short"},
		{"short y", func() { AxpyF64(6, 1, x, 1, x, -2) }, "kernels: AxpyF64: y too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Errorf("panic %v, want %q", r, tc.msg)
				}
			}()
			tc.f()
		})
	}
}

func TestDotAllocs(t *testing.T) {
	x := make([]float32, 1000)
	if a := testing.AllocsPerRun(100, func() { DotF32(1000, x, 1, x, 1); DotF32(500, x, 2, x, -2) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
}

func benchDot[T float32 | float64](b *testing.B, dot func(int, []T, int, []T, int) T, incs ...int) {
	for _, n := range []int{16, 1024, 65536} {
		for _, inc := range incs {
			name := fmt.Sprint(n)
			if inc != 1 {
				name += fmt.Sprintf("/inc=%d", inc)
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(2, 2))
				x, y := randSlice[T](rng, n*inc), randSlice[T](rng, n*inc)
				var z T
				b.SetBytes(int64(2 * n * int(unsafe.Sizeof(z))))
				b.ReportAllocs()
				for b.Loop() {
					dot(n, x, inc, y, inc)
				}
				reportGFLOPS(b, 2*float64(n))
			})
		}
	}
}

func BenchmarkDotF32(b *testing.B) { benchDot(b, DotF32, 1, 2) }
func BenchmarkDotF64(b *testing.B) { benchDot(b, DotF64, 1, 2) }

// BenchmarkDotGoF64 is the portable loop, for comparison with the assembly.
func BenchmarkDotGoF64(b *testing.B) {
	benchDot(b, func(n int, x []float64, _ int, y []float64, _ int) float64 { return dotUnitGo(x[:n], y[:n]) }, 1)
}
