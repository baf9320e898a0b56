package graphtest

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
)

// An EdgeCase is a small program whose exact result package graph's scalar
// semantics (its doc's "Scalar semantics") define: max and min with NaN,
// infinities and signed zeros, reductions by them, relu(-0), i32 overflow
// and division, conversions of NaN and out-of-range values. The expected
// results are written by hand from the definitions. Every back end runs
// the table (EdgeCases) and compares with Exact.
type EdgeCase struct {
	Name string
	// Program is the source, declarations and term, in the notation.
	Program string
	// Inputs are the values of the declared inputs, in row-major order.
	Inputs map[string][]float64
	// Want is the exact result, an array of WantDType of the extents
	// WantExtents, or a scalar when WantExtents is nil.
	WantDType   graph.DType
	WantExtents []int
	Want        []float64
	// WantFlushed, when not nil, is the result with subnormal inputs and
	// results flushed to zero (sign kept): what XLA's CPU plugin computes,
	// as graph's doc records. Back ends that keep subnormals ignore it.
	WantFlushed []float64
}

var (
	nan    = math.NaN()
	inf    = math.Inf(1)
	negz   = math.Copysign(0, -1)
	maxI32 = float64(math.MaxInt32)
	minI32 = float64(math.MinInt32)
)

// EdgeCases returns the table, every floating-point case in f32 and in f64.
func EdgeCases() []EdgeCase {
	var cs []EdgeCase
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		d := dt.String()
		arr := func(n int) string { return fmt.Sprintf("%s[%d]", d, n) }
		x9 := []float64{nan, 1, nan, inf, -inf, negz, 0, negz, 1}
		y9 := []float64{1, nan, inf, nan, nan, 0, negz, negz, 2}
		relu := []float64{negz, 0, -1, 2, nan, -inf, inf, -2.5}
		reluWant := []float64{0, 0, 0, 2, nan, 0, inf, 0}
		long := make([]float64, 37) // long enough for vector loops
		for i := range long {
			long[i] = float64(i%7) - 3
		}
		longNaN := append([]float64(nil), long...)
		longNaN[20] = nan
		cs = append(cs,
			EdgeCase{Name: d + "/max-nan-zeros", Program: "x : " + arr(9) + "; y : " + arr(9) + "; zip max x y",
				Inputs: map[string][]float64{"x": x9, "y": y9}, WantDType: dt, WantExtents: []int{9},
				Want: []float64{nan, nan, nan, nan, nan, 0, 0, negz, 2}},
			EdgeCase{Name: d + "/min-nan-zeros", Program: "x : " + arr(9) + "; y : " + arr(9) + "; zip min x y",
				Inputs: map[string][]float64{"x": x9, "y": y9}, WantDType: dt, WantExtents: []int{9},
				Want: []float64{nan, nan, nan, nan, nan, negz, negz, negz, 1}},
			// layers.ReLU's term: max v 0. relu(-0) = max(-0, +0) = +0.
			EdgeCase{Name: d + "/relu", Program: "x : " + arr(8) + `; map (\v -> max v 0) x`,
				Inputs: map[string][]float64{"x": relu}, WantDType: dt, WantExtents: []int{8}, Want: reluWant},
			EdgeCase{Name: d + "/relu-literal-first", Program: "x : " + arr(8) + `; map (\v -> max 0 v) x`,
				Inputs: map[string][]float64{"x": relu}, WantDType: dt, WantExtents: []int{8}, Want: reluWant},
			EdgeCase{Name: d + "/relu-then-add", Program: "x : " + arr(8) + "; y : " + arr(8) + `; zip (\v w -> max v 0 + w) x y`,
				Inputs:    map[string][]float64{"x": relu, "y": {negz, negz, negz, negz, negz, negz, negz, negz}},
				WantDType: dt, WantExtents: []int{8}, Want: reluWant},
			// stopgrad is its operand, special values and signs included.
			EdgeCase{Name: d + "/stopgrad", Program: "x : " + arr(8) + `; map (\v -> stopgrad v) x`,
				Inputs: map[string][]float64{"x": relu}, WantDType: dt, WantExtents: []int{8}, Want: relu},
			EdgeCase{Name: d + "/min-literal", Program: "x : " + arr(5) + `; map (\v -> min v 0) x`,
				Inputs: map[string][]float64{"x": {0, negz, nan, 3, -inf}}, WantDType: dt, WantExtents: []int{5},
				Want: []float64{0, negz, nan, 0, -inf}},
			EdgeCase{Name: d + "/max-negative-zero-literal", Program: "x : " + arr(4) + `; map (\v -> max v (-0)) x`,
				Inputs: map[string][]float64{"x": {0, negz, nan, -1}}, WantDType: dt, WantExtents: []int{4},
				Want: []float64{0, negz, nan, negz}},
			EdgeCase{Name: d + "/min-negative-zero-literal", Program: "x : " + arr(4) + `; map (\v -> min (-0) v) x`,
				Inputs: map[string][]float64{"x": {0, negz, nan, 1}}, WantDType: dt, WantExtents: []int{4},
				Want: []float64{negz, negz, nan, negz}},
			EdgeCase{Name: d + "/max-literal", Program: "x : " + arr(5) + `; map (\v -> max 2.5 v) x`,
				Inputs: map[string][]float64{"x": {nan, 3, 2.5, -inf, inf}}, WantDType: dt, WantExtents: []int{5},
				Want: []float64{nan, 3, 2.5, 2.5, inf}},
			// exp(+Inf) = +Inf inside a fused elementwise loop too, so
			// +Inf - exp(+Inf) is NaN (XLA's CPU f32 exp clamps there).
			EdgeCase{Name: d + "/exp-inf-difference", Program: "u : " + arr(4) + "; v : " + arr(4) + `; zip (\x y -> y - exp x) u v`,
				Inputs: map[string][]float64{"u": {inf, -inf, 0, inf}, "v": {inf, inf, 1, -inf}}, WantDType: dt, WantExtents: []int{4},
				Want: []float64{nan, inf, 0, -inf}},
			EdgeCase{Name: d + "/reduce-max-nan", Program: "x : " + arr(3) + "; reduce max x",
				Inputs: map[string][]float64{"x": {1, nan, 3}}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-max-nan-last", Program: "x : " + arr(3) + "; reduce max x",
				Inputs: map[string][]float64{"x": {1, 3, nan}}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-max-nan-inf", Program: "x : " + arr(2) + "; reduce max x",
				Inputs: map[string][]float64{"x": {nan, inf}}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-max-zeros", Program: "x : " + arr(2) + "; reduce max x",
				Inputs: map[string][]float64{"x": {negz, 0}}, WantDType: dt, Want: []float64{0}},
			EdgeCase{Name: d + "/reduce-max-neg-inf", Program: "x : " + arr(2) + "; reduce max x",
				Inputs: map[string][]float64{"x": {-inf, -inf}}, WantDType: dt, Want: []float64{-inf}},
			EdgeCase{Name: d + "/reduce-min-nan", Program: "x : " + arr(3) + "; reduce min x",
				Inputs: map[string][]float64{"x": {-inf, nan, 1}}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-min-zeros", Program: "x : " + arr(2) + "; reduce min x",
				Inputs: map[string][]float64{"x": {0, negz}}, WantDType: dt, Want: []float64{negz}},
			EdgeCase{Name: d + "/reduce-max-long", Program: "x : " + arr(37) + "; reduce max x",
				Inputs: map[string][]float64{"x": long}, WantDType: dt, Want: []float64{3}},
			EdgeCase{Name: d + "/reduce-max-long-nan", Program: "x : " + arr(37) + "; reduce max x",
				Inputs: map[string][]float64{"x": longNaN}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-min-long-nan", Program: "x : " + arr(37) + "; reduce min x",
				Inputs: map[string][]float64{"x": longNaN}, WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/rnz-max-rows", Program: "A : " + d + "[3,4]; map (\\r -> reduce max r) A",
				Inputs:    map[string][]float64{"A": {1, nan, 3, 2, negz, 0, negz, negz, -inf, -inf, -1, nan}},
				WantDType: dt, WantExtents: []int{3}, Want: []float64{nan, 0, nan}},
			EdgeCase{Name: d + "/rnz-max-columns", Program: "A : " + d + "[3,4]; reduce (zip max) A",
				Inputs:    map[string][]float64{"A": {1, nan, 3, negz, negz, 2, 4, negz, -inf, -1, nan, negz}},
				WantDType: dt, WantExtents: []int{4}, Want: []float64{1, nan, nan, negz}},
			EdgeCase{Name: d + "/rnz-min-columns", Program: "A : " + d + "[3,4]; reduce (zip min) A",
				Inputs:    map[string][]float64{"A": {1, nan, 3, 0, 0, 2, 4, negz, inf, -1, nan, 0}},
				WantDType: dt, WantExtents: []int{4}, Want: []float64{0, nan, nan, negz}},
			EdgeCase{Name: d + "/zip-max-large", Program: "x : " + arr(9*large) + "; y : " + arr(9*large) + "; zip max x y",
				Inputs:    map[string][]float64{"x": repeat(x9, large), "y": repeat(y9, large)},
				WantDType: dt, WantExtents: []int{9 * large}, Want: repeat([]float64{nan, nan, nan, nan, nan, 0, 0, negz, 2}, large)},
			EdgeCase{Name: d + "/reduce-max-large-nan", Program: "x : " + arr(7*large) + "; reduce max x",
				Inputs:    map[string][]float64{"x": withNaN(repeat([]float64{-3, -2, -1, 0, 1, 2, 3}, large), 5*large+3)},
				WantDType: dt, Want: []float64{nan}},
			EdgeCase{Name: d + "/reduce-min-large-nan", Program: "x : " + arr(7*large) + "; reduce min x",
				Inputs:    map[string][]float64{"x": withNaN(repeat([]float64{-3, -2, -1, 0, 1, 2, 3}, large), large+1)},
				WantDType: dt, Want: []float64{nan}},
			// A dense layer's product with relu in its epilogue: a NaN in a
			// row of A makes that row NaN through relu; negative products
			// give +0.
			EdgeCase{Name: d + "/matmul-relu", Program: "A : " + d + "[2,3]; B : " + d + "[3,2]; " +
				`map (\r -> map (\c -> max (rnz (+) (*) r c) 0) (flip 0 B)) A`,
				Inputs:    map[string][]float64{"A": {nan, 1, 2, -1, -2, -3}, "B": {1, 1, 1, 1, 1, 1}},
				WantDType: dt, WantExtents: []int{2, 2}, Want: []float64{nan, nan, 0, 0}},
			// Subnormals are kept: no flush to zero of inputs or results.
			EdgeCase{Name: d + "/subnormal", Program: "x : " + arr(3) + `; map (\v -> v * 0.5 + v * 0) x`,
				Inputs: map[string][]float64{"x": {tiny(dt), 0.5 * tiny(dt), -tiny(dt)}}, WantDType: dt, WantExtents: []int{3},
				Want:        []float64{0.5 * tiny(dt), 0.25 * tiny(dt), -0.5 * tiny(dt)},
				WantFlushed: []float64{0, 0, negz}},
			EdgeCase{Name: d + "/to-i32", Program: "x : " + arr(10) + "; map i32 x",
				Inputs:    map[string][]float64{"x": {nan, inf, -inf, 3e9, -3e9, 2.9, -2.9, negz, 2147483520, -2147483648}},
				WantDType: graph.Int32, WantExtents: []int{10},
				Want: []float64{0, maxI32, minI32, maxI32, minI32, 2, -2, 0, 2147483520, minI32}},
			// An rnz's result is a new array, row-major as Check types
			// it, even when its function returns a view (a transpose),
			// so a flatten may merge its axes: over one element, where
			// the result is that element, and over two.
			EdgeCase{Name: d + "/rnz-of-views-flattened", Program: "x : " + d + `[1,2,3]; flatten 0 (rnz (zip (zip (+))) (\m -> flip 0 m) x)`,
				Inputs: map[string][]float64{"x": {1, 2, 3, 4, 5, 6}}, WantDType: dt, WantExtents: []int{6},
				Want: []float64{1, 4, 2, 5, 3, 6}},
			EdgeCase{Name: d + "/rnz-of-two-views-flattened", Program: "x : " + d + `[2,2,3]; flatten 0 (rnz (zip (zip (+))) (\m -> flip 0 m) x)`,
				Inputs: map[string][]float64{"x": {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}}, WantDType: dt, WantExtents: []int{6},
				Want: []float64{11, 44, 22, 55, 33, 66}},
		)
	}
	i32 := func(name, program string, inputs map[string][]float64, want ...float64) EdgeCase {
		return EdgeCase{Name: "i32/" + name, Program: program, Inputs: inputs, WantDType: graph.Int32,
			WantExtents: []int{len(want)}, Want: want}
	}
	cs = append(cs,
		i32("add-wraps", "a : i32[3]; b : i32[3]; zip (+) a b",
			map[string][]float64{"a": {maxI32, minI32, 100000}, "b": {1, -1, 7}},
			minI32, maxI32, 100007),
		i32("sub-wraps", "a : i32[3]; b : i32[3]; zip (-) a b",
			map[string][]float64{"a": {minI32, maxI32, 5}, "b": {1, -1, 9}},
			maxI32, minI32, -4),
		// 65536² = 2³² wraps to 0; 123456789000 mod 2³² = -1097262584;
		// 46341² = 2147488281 wraps to -2147479015.
		i32("mul-wraps", "a : i32[5]; b : i32[5]; zip (*) a b",
			map[string][]float64{"a": {65536, 123456789, minI32, 46341, -7}, "b": {65536, 1000, -1, 46341, 3}},
			0, -1097262584, minI32, -2147479015, -21),
		i32("neg-wraps", "a : i32[3]; map neg a", map[string][]float64{"a": {minI32, -5, maxI32}},
			minI32, 5, -maxI32),
		i32("abs-wraps", "a : i32[3]; map abs a", map[string][]float64{"a": {minI32, -5, maxI32}},
			minI32, 5, maxI32),
		i32("stopgrad", "a : i32[3]; map stopgrad a", map[string][]float64{"a": {minI32, -5, maxI32}},
			minI32, -5, maxI32),
		i32("div", "a : i32[9]; b : i32[9]; zip (/) a b",
			map[string][]float64{"a": {7, -7, 7, -7, 5, 0, minI32, minI32, maxI32}, "b": {2, 2, -2, -2, 0, 0, -1, 1, -1}},
			3, -3, -3, 3, -1, -1, minI32, minI32, -maxI32),
		i32("max-min", "a : i32[3]; b : i32[3]; zip (\\x y -> max x y - min x y) a b",
			map[string][]float64{"a": {maxI32, -1, 0}, "b": {maxI32 - 1, 0, 0}},
			1, 1, 0),
		i32("literal", "a : i32[2]; map (\\x -> x * 65536 + 1) a",
			map[string][]float64{"a": {65536, 32768}},
			1, minI32+1),
		EdgeCase{Name: "i32/compare-exact", Program: "a : i32[3]; b : i32[3]; zip (<) a b",
			Inputs:    map[string][]float64{"a": {maxI32 - 1, minI32, 16777217}, "b": {maxI32, minI32 + 1, 16777216}},
			WantDType: graph.Bool, WantExtents: []int{3}, Want: []float64{1, 1, 0}},
		i32("add-wraps-large", fmt.Sprintf("a : i32[%d]; b : i32[%d]; zip (+) a b", 3*large, 3*large),
			map[string][]float64{"a": repeat([]float64{maxI32, minI32, 100000}, large), "b": repeat([]float64{1, -1, 7}, large)},
			repeat([]float64{minI32, maxI32, 100007}, large)...),
		// large·(2³¹-1) = (large/2)·2³² - large ≡ -large (mod 2³²), large even.
		EdgeCase{Name: "i32/reduce-add-wraps-large", Program: fmt.Sprintf("a : i32[%d]; reduce (+) a", large),
			Inputs: map[string][]float64{"a": repeat([]float64{maxI32}, large)}, WantDType: graph.Int32, Want: []float64{-large}},
		EdgeCase{Name: "i32/reduce-add-wraps", Program: "a : i32[3]; reduce (+) a",
			Inputs: map[string][]float64{"a": {maxI32, 1, 1}}, WantDType: graph.Int32, Want: []float64{minI32 + 1}},
		EdgeCase{Name: "i32/reduce-mul-wraps", Program: "a : i32[3]; reduce (*) a",
			Inputs: map[string][]float64{"a": {65536, 65536, 3}}, WantDType: graph.Int32, Want: []float64{0}},
		EdgeCase{Name: "i32/reduce-max", Program: "a : i32[3]; reduce max a",
			Inputs: map[string][]float64{"a": {minI32, -1, minI32 + 1}}, WantDType: graph.Int32, Want: []float64{-1}},
		EdgeCase{Name: "i32/to-f32", Program: "a : i32[3]; map f32 a",
			Inputs:    map[string][]float64{"a": {16777217, maxI32, minI32}},
			WantDType: graph.Float32, WantExtents: []int{3}, Want: []float64{16777216, 2147483648, minI32}},
		EdgeCase{Name: "f64/to-f32-overflow", Program: "x : f64[4]; map f32 x",
			Inputs:    map[string][]float64{"x": {1e300, -1e300, 1e-300, nan}},
			WantDType: graph.Float32, WantExtents: []int{4}, Want: []float64{inf, -inf, 0, nan}},
	)
	return cs
}

// large is the extent of the cases meant to run in parallel on back ends
// that split loops of that many elements over goroutines (even, for
// i32/reduce-add-wraps-large).
const large = 1 << 15

// tiny is the smallest positive normal number of dt.
func tiny(dt graph.DType) float64 {
	if dt == graph.Float32 {
		return 0x1p-126
	}
	return 0x1p-1022
}

func repeat(xs []float64, n int) []float64 {
	out := make([]float64, 0, len(xs)*n)
	for range n {
		out = append(out, xs...)
	}
	return out
}

func withNaN(xs []float64, i int) []float64 {
	xs[i] = nan
	return xs
}

// Flushed returns the case with WantFlushed as its expected result, for a
// back end that flushes subnormals to zero; the case itself when it has
// none.
func (c EdgeCase) Flushed() EdgeCase {
	if c.WantFlushed != nil {
		c.Want, c.WantFlushed = c.WantFlushed, nil
	}
	return c
}

// Build parses the case's program and returns its term, its input values
// and the result it must have.
func (c EdgeCase) Build() (graph.Node, map[string]graph.Value, graph.Value, error) {
	prog, err := graph.Parse(c.Program)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", c.Name, err)
	}
	inputs := map[string]graph.Value{}
	for _, in := range prog.Inputs {
		vals, ok := c.Inputs[in.Name]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%s: no values for input %s", c.Name, in.Name)
		}
		switch t := in.Type.(type) {
		case *graph.ArrayType:
			a, err := arrayOf(t.DType, t.Layout.Extents(), vals)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: input %s: %v", c.Name, in.Name, err)
			}
			inputs[in.Name] = a
		case *graph.ScalarType:
			inputs[in.Name] = graph.ScalarValue{DType: t.DType, V: vals[0]}
		default:
			return nil, nil, nil, fmt.Errorf("%s: input %s has type %v", c.Name, in.Name, t)
		}
	}
	var want graph.Value
	if c.WantExtents == nil {
		if len(c.Want) != 1 {
			return nil, nil, nil, fmt.Errorf("%s: a scalar result needs one value, got %d", c.Name, len(c.Want))
		}
		want = graph.ScalarValue{DType: c.WantDType, V: c.Want[0]}
	} else {
		a, err := arrayOf(c.WantDType, c.WantExtents, c.Want)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: result: %v", c.Name, err)
		}
		want = a
	}
	return prog.Body, inputs, want, nil
}

func arrayOf(dt graph.DType, extents []int, vals []float64) (*graph.Array, error) {
	a, err := graph.Zeros(dt, extents...)
	if err != nil {
		return nil, err
	}
	if len(vals) != a.Size() {
		return nil, fmt.Errorf("%d values for extents %v", len(vals), extents)
	}
	idx := make([]int, len(extents))
	for _, v := range vals {
		a.Set(v, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < extents[d] {
				break
			}
			idx[d] = 0
		}
	}
	return a, nil
}
