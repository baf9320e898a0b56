package layers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// Tolerances. The reference loops in these tests compute in float64 from
// the very inputs the graph gets (for f32, values that float32 represents
// exactly), following the textbook formula, not the term's order of
// operations. A result r is accepted when
//
//	|got - want| <= tol * max(1, |want|)
//
// that is, tol is absolute for results below 1 and relative above.
//
//   - f64: 1e-12. Both sides compute in float64, in different orders;
//     a layer is at most a few dozen roundings of 1.1e-16 on values of
//     magnitude about 1, so they agree to ~1e-15.
//   - f32: 1e-5. The interpreter rounds every operation to float32 (unit
//     roundoff 6e-8). A dot product of 7 terms or a normalisation is ~20
//     roundings of values of magnitude ≤ ~2, an error of ~1e-6 at worst;
//     1e-5 leaves a margin of ten while still catching any wrong formula,
//     wrong parameter or swapped axis, which are off by far more.
var tolerance = map[graph.DType]float64{graph.Float32: 1e-5, graph.Float64: 1e-12}

var dtypes = []graph.DType{graph.Float32, graph.Float64}

// rng returns a reproducible generator for one test case.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6c61796572)) }

// uniform returns n values drawn from [lo, hi), rounded to dt so that the
// reference sees exactly what the graph sees.
func uniform(r *rand.Rand, dt graph.DType, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = dt.Round(lo + (hi-lo)*r.Float64())
	}
	return v
}

// array wraps vals, already rounded to dt, as an array of the given extents.
func array(t *testing.T, dt graph.DType, vals []float64, extents ...int) *graph.Array {
	t.Helper()
	a, err := graph.Zeros(dt, extents...)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(extents))
	for k, v := range vals {
		rem := k
		for d := len(extents) - 1; d >= 0; d-- {
			idx[d] = rem % extents[d]
			rem /= extents[d]
		}
		a.Set(v, idx...)
	}
	return a
}

// input returns a data input "x" of type dt[extents].
func input(t *testing.T, dt graph.DType, extents ...int) *graph.Input {
	t.Helper()
	x, err := graph.NewInput("x", graph.ArrayOf(dt, extents...), false)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// eval evaluates y with the interpreter and returns its elements in
// row-major order, checking the result's type.
func eval(t *testing.T, y graph.Node, bind map[string]graph.Value, dt graph.DType, extents ...int) []float64 {
	t.Helper()
	v, err := graph.Eval(y, bind)
	if err != nil {
		t.Fatalf("eval: %v\nterm: %s", err, graph.Print(y))
	}
	a, ok := v.(*graph.Array)
	if !ok {
		t.Fatalf("eval returned %T, want an array", v)
	}
	if a.DType() != dt || !equalInts(a.Extents(), extents) {
		t.Fatalf("result is %v%v, want %v%v", a.DType(), a.Extents(), dt, extents)
	}
	return a.Values()
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// assertClose compares got with want under the tolerance of dt.
func assertClose(t *testing.T, dt graph.DType, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	tol := tolerance[dt]
	worst, bad := 0.0, 0
	for i := range got {
		err := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
		if !(err <= tol) { // NaN fails too
			if bad++; bad <= 10 {
				t.Errorf("element %d: got %v, want %v (scaled error %.3g > %.0e)", i, got[i], want[i], err, tol)
			}
		}
		worst = math.Max(worst, err)
	}
	if bad > 10 {
		t.Errorf("… %d elements out of tolerance in all", bad)
	}
	t.Logf("%v: worst scaled error %.3g (tolerance %.0e)", dt, worst, tol)
}

// assertSources checks that every node of y but inputs and variables
// carries the source name.
func assertSources(t *testing.T, y graph.Node, name string) {
	t.Helper()
	n := 0
	for m := range graph.All(y) {
		switch m.(type) {
		case *graph.Input, *graph.Var:
			continue
		}
		n++
		if m.Source() != name {
			t.Errorf("node %s has source %q, want %q", graph.Abbrev(m, 60), m.Source(), name)
		}
	}
	if n == 0 {
		t.Errorf("layer %s built no nodes", name)
	}
}

// check type-checks y and returns its type.
func check(t *testing.T, y graph.Node) graph.Type {
	t.Helper()
	info, err := graph.Check(y)
	if err != nil {
		t.Fatalf("check: %v\nterm: %s", err, graph.Print(y))
	}
	return info.TypeOf(y)
}

// assertError checks that err is an error with exactly the message want.
func assertError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	if err.Error() != want {
		t.Errorf("error\n got: %s\nwant: %s", err, want)
	}
}
