package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// specials returns random values with NaN, ±0 and ±Inf mixed in.
func specials[T float32 | float64](rng *rand.Rand, n int) []T {
	s := randSlice[T](rng, n)
	for i := range s {
		switch rng.IntN(20) {
		case 0:
			s[i] = T(math.NaN())
		case 1:
			s[i] = T(math.Copysign(0, -1))
		case 2:
			s[i] = T(math.Inf(1 - 2*rng.IntN(2)))
		}
	}
	return s
}

// same reports whether got is want, NaN for NaN and with the sign of zero;
// with tol > 0 finite values may differ by tol relative to abs.
func same(got, want, abs, tol float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) || tol == 0 {
		return got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)
	}
	return near(got, want, abs, tol)
}

func testElementwise[T float32 | float64](t *testing.T, add, addReLU func(dst, x []T), reLU func(dst []T), mulAdd func(dst, s, u []T)) {
	rng := rand.New(rand.NewPCG(5, 5))
	relu := func(v float64) float64 {
		if v < 0 {
			return 0
		}
		return v
	}
	for _, n := range vecSizes {
		d0, x, u := specials[T](rng, n+1), specials[T](rng, n+1), specials[T](rng, n+1)
		for _, op := range []struct {
			name string
			run  func(dst []T)
			want func(i int) (v, abs float64)
			tol  float64
		}{
			{"Add", func(dst []T) { add(dst[:n], x) }, func(i int) (float64, float64) {
				return float64(T(float64(d0[i]) + float64(x[i]))), 0
			}, 0},
			{"AddReLU", func(dst []T) { addReLU(dst[:n], x) }, func(i int) (float64, float64) {
				return relu(float64(T(float64(d0[i]) + float64(x[i])))), 0
			}, 0},
			{"ReLU", func(dst []T) { reLU(dst[:n]) }, func(i int) (float64, float64) {
				return relu(float64(d0[i])), 0
			}, 0},
			// FMA or not: one or two roundings.
			{"MulAdd", func(dst []T) { mulAdd(dst[:n], x, u) }, func(i int) (float64, float64) {
				p := float64(d0[i]) * float64(x[i])
				return p + float64(u[i]), math.Abs(p) + math.Abs(float64(u[i]))
			}, tolOf[T]()},
		} {
			dst := append([]T(nil), d0...)
			op.run(dst)
			for i := range n {
				want, abs := op.want(i)
				if !same(float64(dst[i]), want, abs, op.tol) {
					t.Fatalf("%s n=%d: dst[%d] = %v, want %v (inputs %v, %v, %v)", op.name, n, i, dst[i], want, d0[i], x[i], u[i])
				}
			}
			if !same(float64(dst[n]), float64(d0[n]), 0, 0) {
				t.Fatalf("%s n=%d: wrote past dst", op.name, n)
			}
		}
	}
}

func TestElementwiseF32(t *testing.T) {
	testElementwise(t, AddF32, AddReLUF32, ReLUF32, MulAddF32)
}

func TestElementwiseF64(t *testing.T) {
	testElementwise(t, AddF64, AddReLUF64, ReLUF64, MulAddF64)
}

// TestElementwiseGo checks the portable loops that the assembly replaces.
func TestElementwiseGo(t *testing.T) {
	testElementwise(t, addGo[float32], addReLUGo[float32], reLUGo[float32], mulAddGo[float32])
}

func TestElementwiseAllocs(t *testing.T) {
	x := make([]float32, 1000)
	if a := testing.AllocsPerRun(100, func() { AddReLUF32(x, x); MulAddF32(x, x, x) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
}

// BenchmarkAddReLUF32 is the bias-and-ReLU epilogue of an MLP layer, 512
// columns, against the Go closure an executor would otherwise run.
func BenchmarkAddReLUF32(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n = 512
	c0, bias := randSlice[float32](rng, n), randSlice[float32](rng, n)
	c := make([]float32, n)
	for _, v := range []struct {
		name string
		f    func(dst, x []float32)
	}{{"asm", AddReLUF32}, {"go", addReLUGo[float32]}} {
		b.Run(v.name+"/512", func(b *testing.B) {
			b.SetBytes(3 * n * int64(unsafe.Sizeof(c[0])))
			b.ReportAllocs()
			for b.Loop() {
				copy(c, c0) // keep the signs random
				v.f(c, bias)
			}
		})
	}
}
