package kernels

import (
	"math"
	"math/rand/v2"
)

// Tolerances of the correctness tests. A computed sum s of terms t_i is
// accepted when |s − exact| ≤ tol·Σ|t_i| (+ the smallest normal, for sums
// of zeros), with the exact value computed in float64 (float32 inputs) or
// compensated float64 (float64 inputs). float32 products accumulate k ≤ 600
// terms in float32: the worst-case bound is k·2⁻²⁴ ≈ 4e-5, random data stays
// near √k·2⁻²⁴ ≈ 1.5e-6.
const (
	tolF32 = 1e-5
	tolF64 = 1e-12
)

func tolOf[T float32 | float64]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return tolF32
	}
	return tolF64
}

// randSlice returns n values in [-1, 1) with a few exact zeros and
// integers mixed in, so that cancellation happens.
func randSlice[T float32 | float64](rng *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		switch rng.IntN(16) {
		case 0:
			s[i] = 0
		case 1:
			s[i] = T(rng.IntN(5) - 2)
		default:
			s[i] = T(2*rng.Float64() - 1)
		}
	}
	return s
}

// exactSum returns Σ terms and Σ|terms|, with Neumaier compensation so
// that it serves as the exact value for float64 inputs too.
func exactSum(terms func(yield func(float64))) (sum, abs float64) {
	var comp float64
	terms(func(t float64) {
		u := sum + t
		if math.Abs(sum) >= math.Abs(t) {
			comp += (sum - u) + t
		} else {
			comp += (t - u) + sum
		}
		sum = u
		abs += math.Abs(t)
	})
	return sum + comp, abs
}

// near reports whether got is within tol·abs of want.
func near(got, want, abs, tol float64) bool {
	return math.Abs(got-want) <= tol*abs+0x1p-1022
}
