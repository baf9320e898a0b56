package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPowBits: pow equals math.Pow bit for bit: whole exponents 2 to 64
// (its shortcut) and others, on bases of every magnitude, negative ones,
// the float32 values, ±0, ±Inf, NaN and powers at the edges of overflow
// and underflow.
func TestPowBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bases := []float64{0, math.Copysign(0, -1), 1, -1, 2, -2, 0.5, math.Inf(1), math.Inf(-1), math.NaN(),
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1000, 0x1p1000, 0x1.fffffp-1001, 0x1p-1022, 1e300, 1e-300,
		math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126}
	for range 20000 {
		e := r.IntN(2100) - 1050
		bases = append(bases, math.Ldexp(1+r.Float64(), e), -math.Ldexp(1+r.Float64(), e))
		f := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))
		bases = append(bases, float64(f), float64(math.Float32frombits(r.Uint32())))
	}
	exps := []float64{-3, -2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 8, 15, 16, 31, 63, 64, 65, 1e9, math.Inf(1), math.NaN()}
	fast := 0
	for _, y := range exps {
		for _, x := range bases {
			got, want := pow(x, y), math.Pow(x, y)
			if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
				t.Fatalf("pow(%v, %v) = %v (%#x), math.Pow gives %v (%#x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
			}
			if y >= 2 && y <= 64 && y == math.Trunc(y) {
				if z, ok := powWhole(x, int(y)); ok {
					fast++
					if math.Float64bits(z) != math.Float64bits(want) {
						t.Fatalf("powWhole(%v, %v) = %v, math.Pow gives %v", x, y, z, want)
					}
				}
			}
		}
	}
	if fast < 100000 {
		t.Fatalf("only %d cases took the shortcut", fast)
	}
	// powChunk, with each exponent across a whole chunk (looked at once)
	// and with the exponents varying along it, in float64 and float32.
	for i, y := range exps {
		uniform := make([]float64, len(bases))
		varying := make([]float64, len(bases))
		for k := range bases {
			uniform[k], varying[k] = y, exps[(k+i)%len(exps)]
		}
		for _, ys := range [][]float64{uniform, varying} {
			z := make([]float64, len(bases))
			inv := &ys[0] == &uniform[0]
			powChunk(z, bases, ys, inv)
			x32, y32, z32 := make([]float32, len(bases)), make([]float32, len(bases)), make([]float32, len(bases))
			for k := range bases {
				x32[k], y32[k] = float32(bases[k]), float32(ys[k])
			}
			powChunk(z32, x32, y32, inv)
			for k, x := range bases {
				want := math.Pow(x, ys[k])
				if math.Float64bits(z[k]) != math.Float64bits(want) && !(z[k] != z[k] && want != want) {
					t.Fatalf("powChunk: pow(%v, %v) = %v, math.Pow gives %v", x, ys[k], z[k], want)
				}
				want32 := float32(math.Pow(float64(x32[k]), float64(y32[k])))
				if math.Float32bits(z32[k]) != math.Float32bits(want32) && !(z32[k] != z32[k] && want32 != want32) {
					t.Fatalf("powChunk (float32): pow(%v, %v) = %v, want %v", x32[k], y32[k], z32[k], want32)
				}
			}
		}
	}
}
