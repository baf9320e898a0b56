package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// ulps64 is the distance between a and b in units in the last place: the
// number of float64 values between them (0 when equal, NaN and NaN
// included).
func ulps64(a, b float64) float64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(float64(ordered64(a) - ordered64(b)))
}

func ordered64(a float64) int64 {
	b := int64(math.Float64bits(a))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

func ulps32(a, b float32) float64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.Inf(1)
	}
	o := func(a float32) int64 {
		b := int64(int32(math.Float32bits(a)))
		if b < 0 {
			b = math.MinInt32 - b
		}
		return b
	}
	return math.Abs(float64(o(a) - o(b)))
}

// expRef is e**x in float64 as the scalar semantics define it
// (graph.ExpFloat64): math.Exp, with e**(x/2) squared near overflow where
// amd64's math.Exp gives up early.
func expRef(x float64) float64 {
	if x > 709 {
		e := math.Exp(x / 2)
		return e * e
	}
	return math.Exp(x)
}

func expEdges64() []float64 {
	return []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		709.78, 709.782712893384, 709.7827128933841, 709.79, 710, 711, 1e300,
		-708.39, -708.4, -720, -745.1332191019411, -745.1332191019412, -745.2, -746, -1e300,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, -0x1p-1022,
		1e-300, -1e-300, 0x1p-30, math.Ln2 / 2, -math.Ln2 / 2, math.Ln2, 88.72283935546875}
}

func expEdges32() []float32 {
	return []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		88.72283, 88.72284, 88.7229, 89, 100, math.MaxFloat32, -87.33654, -87.34, -100, -103.27893, -103.97207, -103.972084, -104, -150, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-126, -0x1p-126, 1e-30, 0.34657359, -0.34657359}
}

// TestExpF64Accuracy sweeps float64 arguments densely over the range where
// e**x is neither 0 nor +Inf, plus the edge cases, and checks ExpF64
// against the scalar semantics' exp: at most 2 ulp apart (the two
// results are computed differently; each is within about 1 ulp of the
// true value), and the portable loop bit-identical to the vector loop.
func TestExpF64Accuracy(t *testing.T) {
	xs := expEdges64()
	const n = 1 << 20
	for i := range n {
		xs = append(xs, -746+float64(i)*(746+710)/n+float64(i%7)*1e-9)
	}
	for i := range n / 4 { // small magnitudes, where r = x
		xs = append(xs, (float64(i)-n/8)*1e-6)
	}
	z := make([]float64, len(xs))
	ExpF64(z, xs)
	worst, at := 0.0, 0.0
	for i, x := range xs {
		want := expRef(x)
		u := ulps64(z[i], want)
		if x > 709 {
			// The reference squares e**(x/2) here, which doubles its
			// own error: allow for it.
			u = max(u-2, 0)
		}
		if u > worst {
			worst, at = u, x
		}
		if p := expPoly(x, expLo64, expHi64, 13); math.Float64bits(p) != math.Float64bits(z[i]) && !(p != p && z[i] != z[i]) {
			t.Fatalf("exp(%v): vector loop %v, portable %v", x, z[i], p)
		}
	}
	t.Logf("max error %v ulp (at x = %v) over %d arguments", worst, at, len(xs))
	if worst > 2 {
		t.Errorf("ExpF64: %v ulp from the scalar exp at x = %v, want at most 2", worst, at)
	}
	for _, c := range []struct{ x, want float64 }{
		{math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0}, {0, 1}, {math.Copysign(0, -1), 1},
		{710, math.Inf(1)}, {-746, 0}, {709.78, 1.7928227943945155e308}, {-745, 5e-324},
	} {
		got := []float64{0, 0, 0, 0, 0}
		ExpF64(got, []float64{c.x, c.x, c.x, c.x, c.x}) // vector loop and tail
		for _, g := range got {
			if ulps64(g, c.want) > 1 || math.Signbit(g) {
				t.Errorf("ExpF64(%v) = %v, want %v", c.x, g, c.want)
			}
		}
	}
	got := make([]float64, 5)
	ExpF64(got, []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()})
	for _, g := range got {
		if g == g {
			t.Errorf("ExpF64(NaN) = %v, want NaN", g)
		}
	}
}

// TestExpF32Accuracy sweeps float32 arguments (every 211th bit pattern
// over the whole line, both signs, and the edge cases) and checks the
// vector loops (AVX-512 and AVX2 bit-identical) and the portable one (expPoly32, which runs the tail and
// machines without AVX2) against the scalar semantics (e**x in float64,
// rounded to float32): at most 1 ulp apart, exact where the answer is
// 0, 1 or +Inf, NaN for NaN.
func TestExpF32Accuracy(t *testing.T) {
	xs := expEdges32()
	for b := uint32(0); b < 0x7f800000; b += 211 {
		xs = append(xs, math.Float32frombits(b), -math.Float32frombits(b))
	}
	if testing.Short() {
		xs = xs[:len(xs)/8]
	}
	z := make([]float32, len(xs))
	ExpF32(z, xs)
	if n := len(xs) &^ 31; hasAVX512 && n > 0 {
		// ExpF32 ran the AVX-512 loop: the AVX2 one must agree bit for bit.
		z2 := make([]float32, n)
		expF32AVX2(n, &xs[0], &z2[0])
		for i := range z2 {
			if math.Float32bits(z2[i]) != math.Float32bits(z[i]) {
				t.Fatalf("exp(%v): AVX-512 loop %v, AVX2 loop %v", xs[i], z[i], z2[i])
			}
		}
	}
	for _, impl := range []string{"vector", "portable"} {
		worst, at, off := 0.0, float32(0), 0
		for i, x := range xs {
			got := z[i]
			if impl == "portable" {
				got = expPoly32(x)
			}
			want := float32(expRef(float64(x)))
			u := ulps32(got, want)
			if u > worst {
				worst, at = u, x
			}
			if u > 0 {
				off++
			}
			if (want == 0 || want == 1 || math.IsInf(float64(want), 1)) && got != want {
				t.Errorf("%s exp(%v) = %v, want %v", impl, x, got, want)
			}
		}
		t.Logf("%s: max error %v ulp (at x = %v), %d of %d arguments not equal to the rounded float64 exp", impl, worst, at, off, len(xs))
		if worst > 1 {
			t.Errorf("%s exp: %v ulp from the scalar exp at x = %v, want at most 1", impl, worst, at)
		}
	}
}

// TestErfF32Accuracy sweeps float32 arguments (every 211th bit pattern
// over the whole line, both signs, and the edge cases) and checks ErfF32
// (AVX-512 loops where the machine has them), its AVX2 loops, and the
// scalar algorithms (erfLane32, the AVX2 loops' and the one for machines
// without AVX2; erfTab32, the AVX-512 loops') against the scalar
// semantics (math.Erf rounded to float32): at most 1 ulp apart, and exact
// for ±0, for |x| ≥ 4 (±1, ±Inf included) and NaN. Each vector loop must
// also follow its scalar algorithm, which rounds an FMA twice through
// float64: bit for bit but on the rare arguments where that differs.
func TestErfF32Accuracy(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1, -1, 1.2, -1.2, 1.1999999, 0.25, 0.24999999, 3.75, 3.9, 3.92, 3.9999998, 4, -4, 4.01, 100, -100,
		math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-126}
	for b := uint32(0); b < 0x7f800000; b += 211 {
		xs = append(xs, math.Float32frombits(b), -math.Float32frombits(b))
	}
	if testing.Short() {
		xs = xs[:len(xs)/8]
	}
	scalar := func(f func(float32) float32) []float32 {
		z := make([]float32, len(xs))
		for i, x := range xs {
			z[i] = f(x)
		}
		return z
	}
	lane, tab := scalar(erfLane32), scalar(erfTab32)
	vector, avx2 := make([]float32, len(xs)), make([]float32, len(xs))
	ErfF32(vector, xs)
	withoutAVX512(func() { ErfF32(avx2, xs) })
	follows := map[string][]float32{"ErfF32": lane, "the AVX2 loops": lane}
	if hasAVX512 {
		follows["ErfF32"] = tab
	}
	for _, impl := range []struct {
		name string
		z    []float32
	}{{"ErfF32", vector}, {"the AVX2 loops", avx2}, {"erfLane32", lane}, {"erfTab32", tab}} {
		worst, at, off, unlike := 0.0, float32(0), 0, 0
		for i, x := range xs {
			got := impl.z[i]
			want := float32(math.Erf(float64(x)))
			u := ulps32(got, want)
			if u > worst {
				worst, at = u, x
			}
			if u > 0 {
				off++
			}
			if (x == 0 || math.Abs(float64(x)) >= 4) && math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("%s: erf(%v) = %v, want %v", impl.name, x, got, want)
			}
			if x != x && got == got {
				t.Errorf("%s: erf(NaN) = %v", impl.name, got)
			}
			if s, ok := follows[impl.name]; ok && math.Float32bits(got) != math.Float32bits(s[i]) && got == got {
				unlike++
			}
		}
		t.Logf("%s: max error %v ulp (at x = %v), %d of %d arguments not equal to the rounded float64 erf, %d unlike its scalar algorithm",
			impl.name, worst, at, off, len(xs), unlike)
		if worst > 1 {
			t.Errorf("%s: %v ulp from math.Erf at x = %v, want at most 1", impl.name, worst, at)
		}
		if unlike > len(xs)/1000000 {
			t.Errorf("%s: %d of %d arguments unlike its scalar algorithm", impl.name, unlike, len(xs))
		}
	}
	// Every count of elements, so that the wide loop, the one-vector loop
	// and the padded tail all run, each giving the bits of the others.
	for n := range 100 {
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i)*0.137 - 5
		}
		got := make([]float32, n)
		ErfF32(got, in)
		for i, x := range in {
			if want := z1(x); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Errorf("n=%d: erf(%v) = %v, one element alone %v", n, x, got[i], want)
			}
			if want := float32(math.Erf(float64(x))); ulps32(got[i], want) > 1 {
				t.Errorf("n=%d: erf(%v) = %v, want %v", n, x, got[i], want)
			}
		}
	}
}

// z1 is ErfF32 of one element.
func z1(x float32) float32 {
	z := []float32{0}
	ErfF32(z, []float32{x})
	return z[0]
}

// TestArith checks Arith against Go's operators and builtins bit for
// bit (NaN for NaN), float64 and float32 (in place), on lengths up to 40
// and on every pair of the values (NaN, ±Inf, both zeros, subnormals)
// side by side, on the widest loops and on AVX2.
func TestArith(t *testing.T) {
	if hasAVX512 {
		t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testArith(t) }) })
	}
	testArith(t)
}

func testArith(t *testing.T) {
	vals := []float64{1.5, -2.25, math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 5e-324, 1e-40, 3, 1e308, 7.1, -0.3}
	check := func(n int, x64, y64 []float64) {
		t.Helper()
		x32, y32 := make([]float32, n), make([]float32, n)
		for i := range n {
			x32[i], y32[i] = float32(x64[i]), float32(y64[i])
		}
		for op, f := range []func(a, b float64) float64{
			func(a, b float64) float64 { return a + b }, func(a, b float64) float64 { return a - b },
			func(a, b float64) float64 { return a * b }, func(a, b float64) float64 { return a / b },
			func(a, b float64) float64 { return max(a, b) }, func(a, b float64) float64 { return min(a, b) },
		} {
			z64 := make([]float64, n)
			Arith(ArithOp(op), z64, x64, y64)
			z32 := append([]float32(nil), x32...)
			Arith(ArithOp(op), z32, z32, y32)
			for i := range n {
				if w := f(x64[i], y64[i]); math.Float64bits(w) != math.Float64bits(z64[i]) && !(w != w && z64[i] != z64[i]) {
					t.Fatalf("n=%d op %d: %v, %v: got %v, want %v", n, op, x64[i], y64[i], z64[i], w)
				}
				w32 := float32(f(float64(x32[i]), float64(y32[i])))
				if math.Float32bits(w32) != math.Float32bits(z32[i]) && !(w32 != w32 && z32[i] != z32[i]) {
					t.Fatalf("n=%d op %d: float32 %v, %v: got %v, want %v", n, op, x32[i], y32[i], z32[i], w32)
				}
			}
		}
	}
	for n := range 41 {
		x64, y64 := make([]float64, n), make([]float64, n)
		for i := range n {
			x64[i], y64[i] = vals[i%len(vals)], vals[(i*5+3)%len(vals)]
		}
		check(n, x64, y64)
	}
	var x64, y64 []float64
	for _, x := range vals {
		for _, y := range vals {
			x64, y64 = append(x64, x), append(y64, y)
		}
	}
	check(len(x64), x64, y64)
}

// TestMaxF32 checks MaxF32 against the left-to-right maximum by Go's max
// (graph's max: NaN wins, +0 beats -0), bit for bit, for every length up
// to 100 and some longer, with NaN, ±0, ±Inf (one sign and both) and
// overflowing sums placed in each loop's part,
// on the AVX-512 loop and (AVX-512 off) the AVX2 one.
func TestMaxF32(t *testing.T) {
	if hasAVX512 {
		t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testMaxF32(t) }) })
	}
	testMaxF32(t)
}

func testMaxF32(t *testing.T) {
	negz := float32(math.Copysign(0, -1))
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	sizes := []int{127, 128, 129, 191, 200, 256 + 32 + 7, 1000}
	for n := range 101 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for _, c := range []struct {
			name string
			set  func(x []float32, i int)
		}{
			{"plain", func(x []float32, i int) {}},
			{"nan", func(x []float32, i int) { x[i] = nan }},
			{"zeros", func(x []float32, i int) {
				for k := range x {
					x[k] = negz
				}
				x[i] = 0
			}},
			{"negzeros", func(x []float32, i int) {
				for k := range x {
					x[k] = -float32(k)
				}
				x[0], x[i] = negz, negz
			}},
			{"inf", func(x []float32, i int) { x[i] = inf }},
			// Infinities of both signs in one lane of the AVX2 loop (32
			// elements apart), whose sum is NaN with no NaN element, and
			// sums that overflow before meeting -Inf.
			{"bothinf", func(x []float32, i int) { x[i], x[(i+32)%len(x)] = inf, -inf }},
			{"overflow", func(x []float32, i int) {
				for k := range x {
					x[k] = math.MaxFloat32
				}
				x[i] = -inf
			}},
			{"neginf", func(x []float32, i int) {
				for k := range x {
					x[k] = -inf
				}
			}},
		} {
			// The first and last element, and elements in each part:
			// the whole blocks, and the last block, which the loop
			// reads again.
			for _, i := range []int{0, n / 2, n - 1, max(0, n-40)} {
				if n == 0 && c.name != "plain" {
					continue
				}
				x := make([]float32, n)
				for k := range x {
					x[k] = float32(math.Sin(float64(k*7+3))) * 100
				}
				c.set(x, i)
				want := float32(math.Inf(-1))
				for _, v := range x {
					want = max(want, v)
				}
				got := MaxF32(x)
				if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
					t.Errorf("n=%d %s at %d: MaxF32 = %v, want %v", n, c.name, i, got, want)
				}
			}
		}
	}
}

// SqrtF32 and RsqrtF32 are float32(math.Sqrt(float64(x))) and
// float32(1/math.Sqrt(float64(x))) bit for bit, over a sweep of float32
// bit patterns (every sign and exponent, subnormals, ±0, ±Inf and NaN
// among them), at a length that leaves a tail for the scalar loop.
func TestSqrtRsqrtF32(t *testing.T) {
	var x []float32
	for e := uint32(0); e < 256; e++ {
		for _, m := range []uint32{0, 1, 0x400000, 0x7fffff, 0x123457, 0x654321} {
			for _, s := range []uint32{0, 1 << 31} {
				x = append(x, math.Float32frombits(s|e<<23|m))
			}
		}
	}
	x = append(x, 2, 4, 0.25, 3)
	// And random bit patterns: every sign, exponent and mantissa.
	r := rand.New(rand.NewPCG(51, 52))
	for range 1 << 18 {
		x = append(x, math.Float32frombits(r.Uint32()))
	}
	if len(x)%8 == 0 {
		x = append(x, 5)
	}
	z := make([]float32, len(x))
	for _, tc := range []struct {
		name string
		fn   func(z, x []float32)
		want func(float64) float64
	}{
		{"SqrtF32", SqrtF32, math.Sqrt},
		{"RsqrtF32", RsqrtF32, func(v float64) float64 { return 1 / math.Sqrt(v) }},
	} {
		tc.fn(z, x)
		for i, v := range x {
			w := float32(tc.want(float64(v)))
			if math.Float32bits(z[i]) != math.Float32bits(w) && !(z[i] != z[i] && w != w) {
				t.Errorf("%s(%v) = %v, want %v", tc.name, v, z[i], w)
			}
		}
	}
	y := append([]float32(nil), x[:16]...) // in place
	RsqrtF32(y, y)
	if y[8] != float32(1/math.Sqrt(float64(x[8]))) {
		t.Errorf("RsqrtF32 in place: %v, want %v", y[8], float32(1/math.Sqrt(float64(x[8]))))
	}
}

// TestExpTails checks that an element's exponential does not depend on
// where it lies in the slice: ExpF32 and ExpF64 of every prefix and
// suffix of a slice (lengths around the vector widths, so that the last
// elements take the padded tail) give the bits of the whole slice's call.
func TestExpTails(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 150
	x32, x64 := make([]float32, n), make([]float64, n)
	for i := range n {
		x64[i] = rng.NormFloat64() * 30
		x32[i] = float32(x64[i])
	}
	x32[3], x64[4] = float32(math.NaN()), math.Inf(-1)
	w32, w64 := make([]float32, n), make([]float64, n)
	ExpF32(w32, x32)
	ExpF64(w64, x64)
	for k := range n + 1 {
		for _, part := range [][2]int{{0, k}, {k, n}} {
			lo, hi := part[0], part[1]
			z32, z64 := make([]float32, hi-lo), make([]float64, hi-lo)
			ExpF32(z32, x32[lo:hi])
			ExpF64(z64, x64[lo:hi])
			for i := range z32 {
				if math.Float32bits(z32[i]) != math.Float32bits(w32[lo+i]) {
					t.Fatalf("ExpF32 of x[%d:%d]: element %d = %v, the whole slice's %v", lo, hi, i, z32[i], w32[lo+i])
				}
				if math.Float64bits(z64[i]) != math.Float64bits(w64[lo+i]) {
					t.Fatalf("ExpF64 of x[%d:%d]: element %d = %v, the whole slice's %v", lo, hi, i, z64[i], w64[lo+i])
				}
			}
		}
	}
}

// SumF32 against the float64 sum of the same elements: within n·2⁻²⁴ of
// the sum of magnitudes (the bound of any order of float32 additions);
// NaN and ±Inf propagate as in any order.
func TestSumF32(t *testing.T) {
	if hasAVX512 {
		t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testSumF32(t) }) })
	}
	testSumF32(t)
}

func testSumF32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 95, 127, 128, 129, 160, 255, 256, 1000, 4096, 32768} {
		x := make([]float32, n)
		var want, mag float64
		for k := range x {
			x[k] = float32(r.NormFloat64() * 10)
			want += float64(x[k])
			mag += math.Abs(float64(x[k]))
		}
		got := float64(SumF32(x))
		if d := math.Abs(got - want); d > float64(n)*mag*0x1p-24 {
			t.Errorf("n=%d: SumF32 = %v, float64 sum %v (difference %g)", n, got, want, d)
		}
		if n == 0 {
			continue
		}
		for _, c := range []struct {
			v, want float32
		}{{float32(math.NaN()), float32(math.NaN())}, {float32(math.Inf(1)), float32(math.Inf(1))}, {float32(math.Inf(-1)), float32(math.Inf(-1))}} {
			y := append([]float32(nil), x...)
			y[n-1-n/3] = c.v
			if got := SumF32(y); !(got == c.want || (got != got && c.want != c.want)) {
				t.Errorf("n=%d with %v: SumF32 = %v", n, c.v, got)
			}
		}
	}
	// Left to right, 2²⁴ + 1 + 1 ... loses every 1; partial sums keep all
	// but those that share 2²⁴'s: the asm loops really run. With 64
	// elements the AVX2 loop's 32 partial sums lose one 1 (x[32]); with
	// 256 they lose seven, and the AVX-512 loop's 128 lose one (x[128]).
	if !hasAVX2 {
		return
	}
	for _, c := range []struct {
		n    int
		want float32
	}{{64, 1<<24 + 62}, {256, 1<<24 + 248}} {
		if c.n == 256 && hasAVX512 {
			c.want = 1<<24 + 254
		}
		x := make([]float32, c.n)
		for k := range x {
			x[k] = 1
		}
		x[0] = 1 << 24
		if got := SumF32(x); got != c.want {
			t.Errorf("SumF32 of 2²⁴ and %d ones = %v, want %v (partial sums)", c.n-1, got, c.want)
		}
	}
}

// ExpSubF32 gives the bits of the float32 subtraction followed by ExpF32,
// for every length up to 100 and a long one (the AVX-512 loop, the AVX2
// one and the padded tail), with ±Inf and NaN in x and in b.
func TestExpSubF32(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, b := range []float32{0, 3.5, -80, 1e30, inf, -inf, nan} {
		for _, n := range append(func() (ns []int) {
			for n := range 101 {
				ns = append(ns, n)
			}
			return
		}(), 1000, 4099) {
			x := make([]float32, n)
			for k := range x {
				x[k] = float32(r.NormFloat64() * 30)
			}
			if n > 3 {
				x[1], x[2], x[3] = inf, -inf, nan
			}
			want := make([]float32, n)
			for k := range x {
				want[k] = x[k] - b
			}
			ExpF32(want, want)
			// ExpSubAheadF32's prefetch changes nothing: a longer ahead
			// (prefetched), a shorter one (ignored), or none; nor is
			// ahead written.
			ahead := make([]float32, n+5)
			for _, a := range [][]float32{nil, ahead, ahead[:n/2]} {
				got := make([]float32, n)
				if a == nil {
					ExpSubF32(got, x, b)
				} else {
					ExpSubAheadF32(got, x, b, a)
				}
				for k := range got {
					if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
						t.Fatalf("b=%v n=%d ahead %d: e**(%v - b) = %v, want %v", b, n, len(a), x[k], got[k], want[k])
					}
				}
			}
			if slices.ContainsFunc(ahead, func(v float32) bool { return v != 0 }) {
				t.Fatalf("b=%v n=%d: ahead written", b, n)
			}
		}
	}
}

// TestCompareSelect checks Compare and Select against Go's comparisons
// and a plain branch, for every length up to 40 (vector loop and tail),
// on values with NaN, ±Inf, ±0 and subnormals, in float32 and float64.
func TestCompareSelect(t *testing.T) {
	vals := []float64{1.5, -2.25, math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 5e-324, 1e-40, 3, 1.5, -0.3}
	ops := []func(a, b float64) bool{
		func(a, b float64) bool { return a < b }, func(a, b float64) bool { return a <= b },
		func(a, b float64) bool { return a > b }, func(a, b float64) bool { return a >= b },
		func(a, b float64) bool { return a == b }, func(a, b float64) bool { return a != b },
	}
	for n := range 41 {
		x64, y64, c64 := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			x64[i], y64[i], c64[i] = vals[i%len(vals)], vals[(i*5+3)%len(vals)], vals[(i*7+1)%len(vals)]
		}
		x32, y32, c32 := to32(x64), to32(y64), to32(c64)
		for op, f := range ops {
			z64, z32 := make([]float64, n), make([]float32, n)
			Compare(CmpOp(op), z64, x64, y64)
			Compare(CmpOp(op), z32, x32, y32)
			for i := range n {
				want := 0.0
				if f(x64[i], y64[i]) {
					want = 1
				}
				want32 := 0.0
				if f(float64(x32[i]), float64(y32[i])) {
					want32 = 1
				}
				if z64[i] != want || float64(z32[i]) != want32 {
					t.Errorf("n=%d op %d: %v vs %v gives %v (float64), %v (float32), want %v, %v", n, op, x64[i], y64[i], z64[i], z32[i], want, want32)
				}
			}
		}
		z64, z32 := make([]float64, n), make([]float32, n)
		Select(z64, c64, x64, y64)
		Select(z32, c32, x32, y32)
		for i := range n {
			want, want32 := y64[i], y32[i]
			if c64[i] != 0 {
				want = x64[i]
			}
			if c32[i] != 0 {
				want32 = x32[i]
			}
			if math.Float64bits(z64[i]) != math.Float64bits(want) || math.Float32bits(z32[i]) != math.Float32bits(want32) {
				t.Errorf("n=%d: select(%v, %v, %v) = %v, %v, want %v, %v", n, c64[i], x64[i], y64[i], z64[i], z32[i], want, want32)
			}
		}
		// In place: z the same slice as c.
		Select(c64, c64, x64, y64)
		for i := range n {
			if math.Float64bits(c64[i]) != math.Float64bits(z64[i]) {
				t.Errorf("n=%d in place: select gives %v, want %v", n, c64[i], z64[i])
			}
		}
	}
}

func to32(x []float64) []float32 {
	z := make([]float32, len(x))
	for i, v := range x {
		z[i] = float32(v)
	}
	return z
}

// TestChain checks Chain against one Arith pass per step, bit for bit, for
// chains of 1 to MaxChain steps of every op, swapped, not, of the running
// value with itself, or with a scalar operand (swapped or not), lengths
// that exercise the wide blocks, the narrow ones after them and the tail,
// float32 and float64, in place (z the same slice as x or as a step's
// operand), and streamed (ChainProg.RunStream, aligned or not).
func TestChain(t *testing.T) {
	if hasAVX512 {
		// Both loops: AVX-512 here, AVX2 with it turned off.
		t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testChain(t) }) })
	}
	testChain(t)
	// The one-shot form compiles its steps on the stack.
	x, y := make([]float32, 300), make([]float32, 300)
	steps := []ChainStep[float32]{{Op: Sub, Scalar: true, Y: y[:1]}, {Op: Mul, Y: y}, {Op: Mul, Self: true}}
	if n := testing.AllocsPerRun(20, func() { Chain(x, x, steps) }); n != 0 && !raceEnabled {
		t.Errorf("Chain allocates %v times a call, want 0", n)
	}
}

func testChain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, 5e-324}
	for _, n := range []int{0, 1, 7, 31, 32, 33, 64, 100, 128, 161, 257, 1024, 1024 + 96 + 5} {
		for nsteps := 1; nsteps <= MaxChain; nsteps++ {
			vals := func() []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = r.NormFloat64() * 3
					if r.IntN(10) == 0 {
						v[i] = special[r.IntN(len(special))]
					}
				}
				return v
			}
			x := vals()
			ys := make([][]float64, nsteps)
			ops := make([]ArithOp, nsteps)
			// 0: acc op y, 1: y op acc, 2: acc op acc, 3: acc op y[0],
			// 4: y[0] op acc, 5: √acc. Max and Min take a scalar y.
			kinds := make([]int, nsteps)
			for k := range ys {
				ys[k], ops[k], kinds[k] = vals(), ArithOp(r.IntN(6)), r.IntN(6)
				if ops[k] >= Max && kinds[k] != 5 {
					kinds[k] = 3 + r.IntN(2)
				}
				if kinds[k] == 5 {
					ys[k], ops[k] = nil, Add
					continue
				}
				if kinds[k] == 3 || kinds[k] == 4 {
					ys[k] = ys[k][:min(n, 1)]
					if n > 0 && r.IntN(4) == 0 {
						ys[k][0] = special[r.IntN(len(special))]
					}
				}
			}
			checkChain(t, n, x, ys, ops, kinds)
			checkChain(t, n, to32(x), to32s(ys), ops, kinds)
		}
	}
}

func to32s(x [][]float64) [][]float32 {
	z := make([][]float32, len(x))
	for i, v := range x {
		z[i] = to32(v)
	}
	return z
}

func checkChain[T float32 | float64](t *testing.T, n int, x []T, ys [][]T, ops []ArithOp, kinds []int) {
	t.Helper()
	want := slices.Clone(x)
	steps := make([]ChainStep[T], len(ys))
	for k, y := range ys {
		full := y
		if (kinds[k] == 3 || kinds[k] == 4) && n > 0 {
			full = make([]T, n)
			for i := range full {
				full[i] = y[0]
			}
		}
		switch kinds[k] {
		case 0, 3:
			Arith(ops[k], want, want, full)
		case 1, 4:
			Arith(ops[k], want, full, want)
		case 2:
			Arith(ops[k], want, want, want)
			y = nil
		case 5:
			for i, v := range want {
				want[i] = T(math.Sqrt(float64(v)))
			}
			steps[k] = ChainStep[T]{Sqrt: true}
			continue
		}
		steps[k] = ChainStep[T]{Op: ops[k], Swap: kinds[k] == 1 || kinds[k] == 4, Self: kinds[k] == 2, Scalar: kinds[k] == 3 || kinds[k] == 4, Y: y}
	}
	same := func(what string, got []T) {
		t.Helper()
		for i := range got {
			if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("n=%d, %d steps %v (kinds %v), %s: element %d is %v, want %v", n, len(ys), ops, kinds, what, i, got[i], want[i])
			}
		}
	}
	z := make([]T, n)
	Chain(z, x, steps)
	same("into a new slice", z)
	// In place of x.
	x2 := slices.Clone(x)
	Chain(x2, x2, steps)
	same("in place of x", x2)
	// In place of the last step's operand.
	if kinds[len(kinds)-1] < 2 {
		last := slices.Clone(ys[len(ys)-1])
		steps2 := slices.Clone(steps)
		steps2[len(steps2)-1].Y = last
		Chain(last, x, steps2)
		same("in place of a step's operand", last)
	}
	// Compiled once, run over two chunks, as the native executor does.
	c := NewChainProg(steps)
	z3, cut := make([]T, n), n/3
	for _, part := range [][2]int{{0, cut}, {cut, n}} {
		var ys3 [MaxChain][]T
		for k, s := range steps {
			switch {
			case s.Scalar:
				ys3[k] = s.Y
			case !s.Self && !s.Sqrt:
				ys3[k] = s.Y[part[0]:part[1]]
			}
		}
		c.Run(z3[part[0]:part[1]], x[part[0]:part[1]], &ys3)
	}
	same("compiled once, in two chunks", z3)
	// Streamed (RunStream), into z at a 32-byte boundary and one element
	// past it.
	for off := range 2 {
		buf := make([]T, n+64)
		a := int((32-uintptr(unsafe.Pointer(&buf[0]))%32)%32) / int(unsafe.Sizeof(buf[0]))
		z4 := buf[a+off : a+off+n]
		var ys4 [MaxChain][]T
		for k, s := range steps {
			ys4[k] = s.Y
		}
		c.RunStream(z4, x, &ys4)
		StreamFence()
		same(fmt.Sprintf("streamed, %d elements past a 32-byte boundary", off), z4)
	}
}

// TestErfAffineF32 checks ErfAffineF32 against its three passes (Arith's
// product, ErfF32, Arith's sum) bit for bit, on arguments over the whole
// line with NaN, ±Inf and ±0, for every length up to 100 (wide loop,
// one-vector loop, padded tail), in place too, and with the prefetches of
// ErfAffineAheadF32, with both loops where the machine has AVX-512, and
// the portable code.
func TestErfAffineF32(t *testing.T) {
	check := func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40}
		for n := range 100 {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 3)
				if r.IntN(8) == 0 {
					x[i] = special[r.IntN(len(special))]
				}
			}
			for _, c := range [][2]float32{{0.70710677, 1}, {1, 0}, {-2.5, -1}} {
				scale, shift := c[0], c[1]
				want := make([]float32, n)
				Arith(Mul, want, x, fill32(n, scale))
				ErfF32(want, want)
				Arith(Add, want, want, fill32(n, shift))
				got := make([]float32, n)
				ErfAffineF32(got, x, scale, shift)
				in := slices.Clone(x)
				ErfAffineF32(in, in, scale, shift)
				// With prefetches of two other arrays, which it must
				// neither read into the result nor write.
				ahead, aheadW := slices.Clone(x), make([]float32, n)
				for i := range aheadW {
					aheadW[i] = float32(i)
				}
				pre := make([]float32, n)
				ErfAffineAheadF32(pre, x, scale, shift, ahead, aheadW)
				for i := range n {
					if math.Float32bits(ahead[i]) != math.Float32bits(x[i]) || aheadW[i] != float32(i) {
						t.Fatalf("n=%d: ErfAffineAheadF32 wrote the arrays it prefetches, at %d", n, i)
					}
				}
				for i := range want {
					for _, g := range []float32{got[i], in[i], pre[i]} {
						if math.Float32bits(g) != math.Float32bits(want[i]) && !(g != g && want[i] != want[i]) {
							t.Fatalf("n=%d, erf(%v·%v) + %v = %v, want %v", n, x[i], scale, shift, g, want[i])
						}
					}
				}
			}
		}
	}
	t.Run("widest", check)
	t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { check(t) }) })
}

// TestErfGELU checks ErfGELUAheadF32 against its ops one after the other:
// ErfAffineF32 or ErfDivAffineAheadF32 (each checked against its own ops
// above), then each product and the sum by Arith, bit for bit, for both
// orders of the products, with and without the sum, on lengths around
// the loops' vectors and the portable path's blocks, in place over x and
// over w, and with a prefetched array it must not write; on the widest
// loops, on AVX2 and without AVX2 (the erf's pass, then the products).
func TestErfGELU(t *testing.T) {
	check := func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40, -1e-39, 3e38}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 40, 255, 256, 257, 600} {
			x, w := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], w[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64())
				if r.IntN(8) == 0 {
					x[i] = special[r.IntN(len(special))]
				}
				if r.IntN(8) == 0 {
					w[i] = special[r.IntN(len(special))]
				}
			}
			for _, g := range []GELU{
				{Scale: 0.70710677, Shift: 1, K: 0.5, KFirst: true},
				{Scale: 0.70710677, Shift: 1, K: 0.5},
				{Scale: 1.4142135, Shift: 1, K: 0.5, Div: true},
				{Scale: 1.4142135, Shift: 1, K: 0.5, Div: true, KFirst: true},
				{Scale: -2.5, Shift: -1, K: 3.7, KFirst: true},
				{Scale: 0.3, Shift: 0.25, K: -1e-38},
			} {
				for _, residual := range []bool{false, true} {
					e := make([]float32, n)
					if g.Div {
						ErfDivAffineAheadF32(e, x, g.Scale, g.Shift, nil, nil)
					} else {
						ErfAffineF32(e, x, g.Scale, g.Shift)
					}
					want := make([]float32, n)
					if g.KFirst {
						Arith(Mul, want, x, fill32(n, g.K))
						Arith(Mul, want, want, e)
					} else {
						Arith(Mul, want, x, e)
						Arith(Mul, want, want, fill32(n, g.K))
					}
					var wr []float32
					if residual {
						Arith(Add, want, w, want)
						wr = w
					}
					got := make([]float32, n)
					ahead := slices.Clone(x)
					ErfGELUAheadF32(got, x, g, wr, ahead)
					inX := slices.Clone(x)
					ErfGELUAheadF32(inX, inX, g, wr, nil)
					results := [][]float32{got, inX}
					if residual {
						inW := slices.Clone(w)
						ErfGELUAheadF32(inW, x, g, inW, nil)
						results = append(results, inW)
					}
					for i := range n {
						if math.Float32bits(ahead[i]) != math.Float32bits(x[i]) {
							t.Fatalf("n=%d: ErfGELUAheadF32 wrote the array it prefetches, at %d", n, i)
						}
						for k, z := range results {
							if math.Float32bits(z[i]) != math.Float32bits(want[i]) && !(z[i] != z[i] && want[i] != want[i]) {
								t.Fatalf("n=%d %+v residual %v (result %d): element %d, x=%v w=%v: %v, want %v", n, g, residual, k, i, x[i], w[i], z[i], want[i])
							}
						}
					}
				}
			}
		}
	}
	t.Run("widest", check)
	t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { check(t) }) })
	t.Run("portable", func(t *testing.T) { withoutAVX2(func() { check(t) }) })
}

// TestErfDivAffineF32 checks ErfDivAffineAheadF32 against the division,
// ErfF32 and the sum one after the other, and against erfLane32 of the
// quotient where that is ErfF32's algorithm (without AVX-512): bit for
// bit, on every length up to 100 (the wide loop, the one-vector loop, the
// padded tail), in place, with and without prefetches, on the AVX-512
// loop, the AVX2 loop and the scalar one.
func TestErfDivAffineF32(t *testing.T) {
	check := func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40, 3e38}
		for n := range 100 {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 4)
				if r.IntN(8) == 0 {
					x[i] = special[r.IntN(len(special))]
				}
			}
			for _, c := range [][2]float32{{1.4142135, 1}, {1, 0}, {-0.3, -1}, {0, 0}} {
				div, shift := c[0], c[1]
				want, lane := make([]float32, n), make([]float32, n)
				Arith(Div, want, x, fill32(n, div))
				ErfF32(want, want)
				Arith(Add, want, want, fill32(n, shift))
				for i, v := range x {
					lane[i] = erfLane32(v/div) + shift
				}
				got := make([]float32, n)
				ErfDivAffineAheadF32(got, x, div, shift, nil, nil)
				in := slices.Clone(x)
				ErfDivAffineAheadF32(in, in, div, shift, nil, nil)
				ahead, aheadW := slices.Clone(x), make([]float32, n)
				pre := make([]float32, n)
				ErfDivAffineAheadF32(pre, x, div, shift, ahead, aheadW)
				for i := range want {
					gs := []float32{got[i], in[i], pre[i]}
					if !hasAVX512 {
						gs = append(gs, lane[i])
					}
					for _, g := range gs {
						if math.Float32bits(g) != math.Float32bits(want[i]) && !(g != g && want[i] != want[i]) {
							t.Fatalf("n=%d, erf(%v/%v) + %v = %v, want %v", n, x[i], div, shift, g, want[i])
						}
					}
					if aheadW[i] != 0 || math.Float32bits(ahead[i]) != math.Float32bits(x[i]) {
						t.Fatalf("n=%d: ErfDivAffineAheadF32 wrote the arrays it prefetches, at %d", n, i)
					}
				}
			}
		}
	}
	t.Run("widest", check)
	t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { check(t) }) })
	t.Run("scalar", func(t *testing.T) { withoutAVX2(func() { check(t) }) })
}

func fill32(n int, v float32) []float32 {
	z := make([]float32, n)
	for i := range z {
		z[i] = v
	}
	return z
}

// BenchmarkVmathF32 times the float32 loops of row programs (LayerNorm,
// GELU, softmax, Adam) on one chunk of 1024 elements that stays in L1,
// one goroutine: the compute floor of a row program, without memory
// traffic. erfaffine is GELU's erf (x·c) + 1; erfgelu GELU and a
// residual add, w + 0.5·x·(erf (x·c) + 1), in one pass, and erfgelu-chain
// the same in two (the erf's, then a chain's);
// chain4 a LayerNorm's (x - m)·k·g + b with m and k scalars, compiled
// once; sum a row's sum; expsub a softmax row's e**(x - max); sqrt the
// square root of Adam's update.
func BenchmarkVmathF32(b *testing.B) {
	const n = 1024
	r := rand.New(rand.NewPCG(7, 8))
	x, z, g, sh := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], g[i], sh[i] = float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	m, k := []float32{0.1}, []float32{1.3}
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				f()
			}
		})
	}
	run("erfaffine", func() { ErfAffineF32(z, x, 1/math.Sqrt2, 1) })
	// GELU with a residual add in the erf's pass, and the same as the erf
	// pass and a chain after it.
	gelu := GELU{Scale: 1 / math.Sqrt2, Shift: 1, K: 0.5, KFirst: true}
	run("erfgelu", func() { ErfGELUAheadF32(z, x, gelu, g, nil) })
	tail := NewChainProg([]ChainStep[float32]{{Op: Mul, Scalar: true}, {Op: Mul}, {Op: Add}})
	half, e := []float32{0.5}, make([]float32, n)
	tys := [MaxChain][]float32{half, e, g}
	run("erfgelu-chain", func() {
		ErfAffineF32(e, x, 1/math.Sqrt2, 1)
		tail.Run(z, x, &tys)
	})
	// Compiled once, as the native executor runs a chain.
	c := NewChainProg([]ChainStep[float32]{{Op: Sub, Scalar: true}, {Op: Mul, Scalar: true}, {Op: Mul}, {Op: Add}})
	ys := [MaxChain][]float32{m, k, g, sh}
	run("chain4", func() { c.Run(z, x, &ys) })
	// A BatchNorm's chain ending in a ReLU, as a convolution's epilogue
	// runs it (a max step; AVX-512 loops since they take max and min).
	relu := NewChainProg([]ChainStep[float32]{{Op: Sub, Scalar: true}, {Op: Mul, Scalar: true}, {Op: Mul}, {Op: Add}, {Op: Max, Scalar: true}})
	rys := [MaxChain][]float32{m, k, g, sh, {0}}
	run("chain4-relu", func() { relu.Run(z, x, &rys) })
	// Softmax's last step: a division by the row's sum, by its reciprocal
	// (k in range), and by VDIVPS (the divisor out of range).
	d := NewChainProg([]ChainStep[float32]{{Op: Div, Scalar: true}})
	dys := [MaxChain][]float32{k}
	run("divscalar", func() { d.Run(z, x, &dys) })
	dys[0] = []float32{0x1p40}
	run("divscalar-vdivps", func() { d.Run(z, x, &dys) })
	run("sum", func() { z[0] = SumF32(x) })
	run("sum-avx2", func() { withoutAVX512(func() { z[0] = SumF32(x) }) })
	run("max", func() { z[0] = MaxF32(x) })
	run("expsub", func() { ExpSubF32(z, x, 0.5) })
	for i := range g {
		g[i] = g[i] * g[i]
	}
	run("sqrt", func() { SqrtF32(z, g) })
}

// TestChainRecipDiv checks a chain's division by a scalar, which the
// assembly does by the divisor's reciprocal when the divisor and the
// block's dividends allow it (chainRecipDiv), against Go's float32
// division bit for bit: every dividend significand against divisors of
// every kind of significand, and blocks that mix in the values the
// reciprocal path leaves to VDIVPS.
func TestChainRecipDiv(t *testing.T) {
	// Both divisions, whichever this machine's chains use (recipDiv).
	for _, recip := range []bool{true, false} {
		t.Run(fmt.Sprintf("recip=%v", recip), func(t *testing.T) {
			defer func(v bool) { recipDiv = v }(recipDiv)
			recipDiv = recip
			if hasAVX512 {
				t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testChainRecipDiv(t) }) })
			}
			testChainRecipDiv(t)
		})
	}
}

func testChainRecipDiv(t *testing.T) {
	check := func(what string, b float32, z, x []float32) {
		t.Helper()
		bad := 0
		for i, a := range x {
			want := a / b
			if math.Float32bits(z[i]) != math.Float32bits(want) && !(z[i] != z[i] && want != want) {
				if bad++; bad <= 5 {
					t.Errorf("%s: %g / %g (%#x / %#x) = %g (%#x), want %g (%#x)", what, a, b,
						math.Float32bits(a), math.Float32bits(b), z[i], math.Float32bits(z[i]), want, math.Float32bits(want))
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d quotients wrong in all", what, bad)
		}
	}
	div := func(z, x []float32, b float32) {
		Chain(z, x, []ChainStep[float32]{{Op: Div, Scalar: true, Y: []float32{b}}})
	}
	// Every significand of the dividend in [1, 2), and the same shifted
	// to the ends of the admitted range, by divisors with significands
	// at the ends and in between, at the ends of the divisor range.
	n := 1 << 23
	if testing.Short() || raceEnabled {
		n = 1 << 16
	}
	x, z := make([]float32, n), make([]float32, n)
	step := (1 << 23) / n
	for _, scale := range []float32{1, 0x1p-89, 0x1p89, -1} {
		for i := range x {
			x[i] = math.Float32frombits(0x3f800000|uint32(i*step)) * scale
		}
		for _, b := range []float32{1, 3, 0.1, 1.0 / 3, math.Float32frombits(0x3fffffff), math.Float32frombits(0x3f800001),
			math.Float32frombits(0x3fc00001), 1.2345678e7, 0x1p-32, 0x1p32, math.Float32frombits(0x4f7fffff),
			math.Float32frombits(0x4f800001), math.Float32frombits(0x2f7fffff)} { // just past the range's ends: VDIVPS
			div(z, x, b)
			check(fmt.Sprintf("dividends %g·[1, 2)", scale), b, z, x)
		}
	}
	// Random dividends of every magnitude, zeros among them and, in a
	// quarter of the trials, specials one in a thousand, by random
	// divisors in and out of the range, in lengths that end in each
	// loop's tail.
	r := rand.New(rand.NewPCG(5, 6))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		1e-40, 0x1p-91, 0x1p-90, 0x1p90, 0x1p91, math.MaxFloat32, math.SmallestNonzeroFloat32}
	for _, m := range []int{1, 31, 32, 33, 255, 256, 257, 1024 + 96 + 5, 4096} {
		for trial := range 40 {
			x, z := make([]float32, m), make([]float32, m)
			for i := range x {
				switch {
				case trial%4 == 0 && r.IntN(1000) == 0:
					x[i] = special[r.IntN(len(special))]
				case r.IntN(50) == 0:
					x[i] = float32(math.Copysign(0, float64(r.IntN(2)-1)))
				default:
					x[i] = float32(math.Ldexp(r.Float64()+0.5, r.IntN(181)-90)) * float32(1-2*r.IntN(2))
				}
			}
			b := float32(math.Ldexp(r.Float64()+0.5, r.IntN(80)-40))
			switch trial % 10 {
			case 1:
				b = -b
			case 2:
				b = special[r.IntN(len(special))]
			}
			div(z, x, b)
			check(fmt.Sprintf("%d random dividends", m), b, z, x)
		}
	}
}

// TestStream checks Stream, float32 and float64, against copy, bit for bit
// (NaN payloads included), for every length up to 300 and some longer,
// at every element offset of a 32-byte block, and that they write
// nothing outside z.
func TestStream(t *testing.T) {
	testStream(t, Stream[float32], func(i int) float32 { return math.Float32frombits(uint32(i*2654435761 + 7)) })
	testStream(t, Stream[float64], func(i int) float64 { return math.Float64frombits(uint64(i)*0x9e3779b97f4a7c15 + 7) })
}

func testStream[T float32 | float64](t *testing.T, stream func(z, x []T), val func(int) T) {
	lengths := []int{1000, 4096, 4099, 40000}
	for n := range 301 {
		lengths = append(lengths, n)
	}
	const guard = 9
	for _, n := range lengths {
		for off := range 8 {
			x := make([]T, n)
			for i := range x {
				x[i] = val(i)
			}
			buf := make([]T, off+n+guard)
			for i := range buf {
				buf[i] = val(-1 - i)
			}
			want := slices.Clone(buf)
			copy(want[off:], x)
			stream(buf[off:off+n], x)
			StreamFence()
			for i := range buf {
				if !sameBits(buf[i], want[i]) {
					t.Fatalf("n=%d, offset %d: element %d is %v, want %v", n, off, i-off, buf[i], want[i])
				}
			}
		}
	}
}

func sameBits[T float32 | float64](a, b T) bool {
	switch a := any(a).(type) {
	case float32:
		return math.Float32bits(a) == math.Float32bits(any(b).(float32))
	default:
		return math.Float64bits(a.(float64)) == math.Float64bits(any(b).(float64))
	}
}

// TestTanhLogisticF32 checks TanhF32 and LogisticF32 against the scalar
// semantics (math.Tanh, and graph's logistic 1/(1 + e**-x), in float64
// rounded to float32) over float32 values spread along the whole line,
// both signs, and the edges: within 1 ulp, exact for ±0 (tanh keeps the
// sign), ±Inf, NaN and the saturated ends, and off the rounded value on
// few arguments; and the vector loops against their scalar algorithms
// (tanh32, logistic32) bit for bit, on every length up to 40 and in place.
func TestTanhLogisticF32(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1, -1, 0x1p-20, -0x1p-20, 0x1.fffffep-21, 9, 10, 11, 100, -100, 200, -200, 1e30, -1e30, -87, -88, -100, -103, -104,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32}
	for b := uint32(0); b < 0x7f800000; b += 211 {
		xs = append(xs, math.Float32frombits(b), -math.Float32frombits(b))
	}
	if testing.Short() {
		xs = xs[:len(xs)/8]
	}
	for _, f := range []struct {
		name   string
		vec    func(z, x []float32)
		scalar func(float32) float32
		ref    func(float64) float64
	}{
		{"tanh", TanhF32, tanh32, math.Tanh},
		{"logistic", LogisticF32, logistic32, func(x float64) float64 {
			if x < -709 {
				return 0 // graph.ExpFloat64(-x) is +Inf there
			}
			return 1 / (1 + math.Exp(-x))
		}},
	} {
		z := make([]float32, len(xs))
		f.vec(z, xs)
		off := 0
		for i, x := range xs {
			want := float32(f.ref(float64(x)))
			if u := ulps32(z[i], want); u > 1 {
				t.Fatalf("%s(%v) = %v, want %v (%v ulp)", f.name, x, z[i], want, u)
			} else if u == 1 {
				off++
				if x == 0 || want == 1 || want == -1 || want == 0 {
					t.Errorf("%s(%v) = %v, want exactly %v", f.name, x, z[i], want)
				}
			}
			if s := f.scalar(x); math.Float32bits(s) != math.Float32bits(z[i]) && !(s != s && z[i] != z[i]) {
				t.Fatalf("%s(%v): the vector loop gives %v, its scalar algorithm %v", f.name, x, z[i], s)
			}
		}
		if got := f.scalar(float32(math.Copysign(0, -1))); f.name == "tanh" && !math.Signbit(float64(got)) {
			t.Errorf("tanh(-0) = %v, want -0", got)
		}
		t.Logf("%s: %d of %d arguments 1 ulp off the rounded float64 value", f.name, off, len(xs))
		if off > len(xs)/10000 {
			t.Errorf("%s: %d of %d arguments off the rounded value", f.name, off, len(xs))
		}
		// Every length, so that the padded tail runs, and in place.
		for n := range 40 {
			in := slices.Clone(xs[1000 : 1000+n])
			got := make([]float32, n)
			f.vec(got, in)
			f.vec(in, in)
			for i := range n {
				w := f.scalar(xs[1000+i])
				for _, g := range []float32{got[i], in[i]} {
					if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
						t.Fatalf("%s, n=%d: element %d is %v, want %v", f.name, n, i, g, w)
					}
				}
			}
		}
	}
}

// TestCubeF32 checks CubeF32 against math.Pow(x, 3) rounded to float32,
// bit for bit, over float32 values along the whole line, both signs, ±0,
// ±Inf, NaN and cubes that overflow float32, on every length up to 20
// (the vector loop and the scalar tail) and in place.
func TestCubeF32(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e13, -1e13, 7e12}
	for b := uint32(0); b < 0x7f800000; b += 2111 {
		xs = append(xs, math.Float32frombits(b), -math.Float32frombits(b))
	}
	check := func(got []float32, x []float32) {
		t.Helper()
		for i, v := range x {
			want := float32(math.Pow(float64(v), 3))
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("cube(%v) = %v, want %v", v, got[i], want)
			}
		}
	}
	z := make([]float32, len(xs))
	CubeF32(z, xs)
	check(z, xs)
	for n := range 20 {
		in := slices.Clone(xs[:n])
		got := make([]float32, n)
		CubeF32(got, in)
		CubeF32(in, in)
		check(got, xs[:n])
		check(in, xs[:n])
	}
}

// TestChainBounds checks a chain's max and min steps against Go's
// builtins bit for bit, for every kind of bound (one the acc-first
// instruction gives, and NaN and the zero a tie must give, which take the
// bound-first sequence) over values with NaN, ±Inf and both zeros, in
// blocks of the AVX-512 and AVX2 loops and the elements after them,
// float32 and float64.
func TestChainBounds(t *testing.T) {
	if hasAVX512 {
		t.Run("AVX2", func(t *testing.T) { withoutAVX512(func() { testChainBounds(t) }) })
	}
	testChainBounds(t)
}

func testChainBounds(t *testing.T) {
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 6, -6, 1e-40, -2.5, 7}
	for len(xs) < 600 {
		xs = append(xs, xs[len(xs)%10]*float64(len(xs)%7-3), float64(len(xs))/17-8)
	}
	for _, op := range []ArithOp{Max, Min} {
		name := map[ArithOp]string{Max: "max", Min: "min"}[op]
		for _, y := range []float64{0, math.Copysign(0, -1), math.NaN(), 6, -6, math.Inf(1)} {
			want := func(x float64) float64 {
				if op == Max {
					return max(x, y)
				}
				return min(x, y)
			}
			check64 := func(got []float64) {
				t.Helper()
				for i, x := range xs {
					if w := want(x); math.Float64bits(got[i]) != math.Float64bits(w) && !(got[i] != got[i] && w != w) {
						t.Fatalf("%s with %v, f64: element %d: %v gives %v, want %v", name, y, i, x, got[i], w)
					}
				}
			}
			z := make([]float64, len(xs))
			Chain(z, xs, []ChainStep[float64]{{Op: op, Scalar: true, Y: []float64{y}}})
			check64(z)
			x32 := to32(xs)
			z32 := make([]float32, len(xs))
			Chain(z32, x32, []ChainStep[float32]{{Op: op, Scalar: true, Y: []float32{float32(y)}}})
			for i, x := range x32 {
				w := float32(want(float64(x)))
				if math.Float32bits(z32[i]) != math.Float32bits(w) && !(z32[i] != z32[i] && w != w) {
					t.Fatalf("%s with %v, f32: element %d: %v gives %v, want %v", name, y, i, x, z32[i], w)
				}
			}
		}
	}
}

// TestSumSqDevF32 checks SumSqDevF32 bit for bit against SumF32 of the
// squares, each difference and square rounded to float32, on the widest
// loops, on AVX2 and without assembly; and, on AVX2, against the AVX2
// loop's order written out: the squares of its blocks summed into 32
// partial sums (element j of a block into sum j), the partial sums added
// as the loop adds its four vectors and then their lanes pairwise, and
// the rest left to right. With NaN, ±Inf and a mean that cancels x
// exactly.
func TestSumSqDevF32(t *testing.T) {
	viaSum := func(t *testing.T) {
		r := rand.New(rand.NewPCG(33, 34))
		for _, n := range []int{0, 1, 31, 32, 100, 127, 128, 129, 160, 255, 256, 1000, 4096, 4096 + 32 + 5} {
			for _, special := range []float32{0, float32(math.NaN()), float32(math.Inf(1))} {
				x, sq := make([]float32, n), make([]float32, n)
				m := float32(-0.75)
				for i := range x {
					x[i] = float32(r.NormFloat64()*2 - 0.5)
				}
				if n > 0 {
					x[n/3] = m
					if special != 0 {
						x[n-1] = special
					}
				}
				for i, v := range x {
					d := v - m
					sq[i] = float32(d * d)
				}
				got, want := SumSqDevF32(x, m), SumF32(sq)
				if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
					t.Errorf("n=%d special %v: SumSqDevF32 = %v, SumF32 of the squares %v", n, special, got, want)
				}
			}
		}
	}
	t.Run("widest", viaSum)
	t.Run("AVX2", func(t *testing.T) {
		withoutAVX512(func() {
			viaSum(t)
			sumSqDevAVX2Order(t)
		})
	})
	t.Run("portable", func(t *testing.T) { withoutAVX2(func() { viaSum(t) }) })
}

func sumSqDevAVX2Order(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 100, 1000, 4096} {
		for _, special := range []float32{0, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64()*3 + 1)
			}
			m := float32(1.25)
			if n > 0 {
				x[n/2] = m // a difference of exactly 0
				if special != 0 {
					x[n-1] = special
				}
			}
			sq := func(v float32) float32 {
				d := v - m
				return float32(d * d)
			}
			var want float32
			i := 0
			if hasAVX2 && n >= 32 {
				i = n &^ 31
				var part [32]float32
				for j := range i {
					part[j%32] += sq(x[j])
				}
				var y [8]float32 // Y0 = (Y0 + Y1) + (Y2 + Y3), lane by lane
				for l := range 8 {
					y[l] = (part[l] + part[8+l]) + (part[16+l] + part[24+l])
				}
				var h [4]float32 // the high half onto the low
				for l := range 4 {
					h[l] = y[l] + y[4+l]
				}
				a, b := h[0]+h[2], h[1]+h[3] // VPERMILPS 0x4e
				want = a + b                 // VPERMILPS 0xb1
			}
			for _, v := range x[i:] {
				want += sq(v)
			}
			got := SumSqDevF32(x, m)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Errorf("n=%d special %v: SumSqDevF32 = %v, want %v", n, special, got, want)
			}
		}
	}
}
