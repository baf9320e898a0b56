package graphtest

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64s(extents []int, vs ...float64) *graph.Array {
	return must(graph.FromFloat64(vs, extents...))
}

func TestDiff(t *testing.T) {
	a := f64s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	s := graph.ScalarValue{DType: graph.Float64, V: 2}
	tests := []struct {
		name      string
		want, got graph.Value
		tol       float64
		err       string // "" for a match
		structure bool
	}{
		{"same array", a, f64s([]int{2, 3}, 1, 2, 3, 4, 5, 6), 0, "", false},
		{"within tolerance", a, f64s([]int{2, 3}, 1, 2, 3, 4, 5, 6.0000001), 1e-6, "", false},
		{"relative for large values", f64s([]int{1}, 1e6), f64s([]int{1}, 1e6+0.5), 1e-6, "", false},
		{"first mismatch by index", a, f64s([]int{2, 3}, 1, 2, 3, 4, 5.5, 7), 1e-6,
			"array element [1 1] of [2 3]: want 5, got 5.5 (difference 0.5)", false},
		{"extents", a, f64s([]int{3, 2}, 1, 2, 3, 4, 5, 6), 0,
			"value: want extents [2 3], got [3 2]: values differ in structure", true},
		{"element type", f64s([]int{1}, 1), must(graph.Zeros(graph.Float32, 1)), 0,
			"value: want element type f64, got f32: values differ in structure", true},
		{"array against scalar", a, s, 0,
			"value: want an array f64[2 3], got a scalar f64(2): values differ in structure", true},
		{"scalars", s, graph.ScalarValue{DType: graph.Float64, V: 3}, 0.1,
			"scalar: want 2, got 3 (difference 1)", false},
		{"path into tuples", graph.TupleValue{s, graph.TupleValue{s, a}}, graph.TupleValue{s, graph.TupleValue{s, f64s([]int{2, 3}, 0, 2, 3, 4, 5, 6)}}, 0,
			"tuple element 1: tuple element 1: array element [0 0] of [2 3]: want 1, got 0 (difference 1)", false},
		{"tuple length", graph.TupleValue{s, s}, graph.TupleValue{s, s, s}, 0,
			"value: want a 2-tuple, got a 3-tuple: values differ in structure", true},
		{"NaN matches NaN", f64s([]int{1}, math.NaN()), f64s([]int{1}, math.NaN()), 0, "", false},
		{"NaN against a number", f64s([]int{1}, 1), f64s([]int{1}, math.NaN()), 1,
			"array element [0] of [1]: want 1, got NaN (difference NaN)", false},
		{"infinities of one sign", f64s([]int{1}, math.Inf(1)), f64s([]int{1}, math.Inf(1)), 0, "", false},
		{"infinities of two signs", f64s([]int{1}, math.Inf(1)), f64s([]int{1}, math.Inf(-1)), 1,
			"array element [0] of [1]: want +Inf, got -Inf (difference +Inf)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Diff(tt.want, tt.got, tt.tol)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
			assert.Equal(t, tt.structure, errors.Is(err, ErrStructure))
		})
	}
}

func TestDiffComparesViewsByElement(t *testing.T) {
	// A flipped view and its row-major copy are the same value.
	a := f64s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	flipped := must(a.Flip(0, 1))
	assert.NoError(t, Diff(flipped, flipped.Copy(), 0))
	assert.Error(t, Diff(a, flipped, 0))
}

// recorder is a testing.TB that records what Compare reports.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestCompare(t *testing.T) {
	rec := &recorder{TB: t}
	a := f64s([]int{2}, 1, 2)
	assert.True(t, Compare(rec, a, f64s([]int{2}, 1, 2), 0))
	assert.Empty(t, rec.msgs)
	assert.False(t, Compare(rec, a, f64s([]int{2}, 1, 3), 0.1))
	assert.Equal(t, []string{"array element [1] of [2]: want 2, got 3 (difference 1)"}, rec.msgs)
}

func TestMaxAbsDiff(t *testing.T) {
	a := graph.TupleValue{f64s([]int{3}, 1, 2, 3), graph.ScalarValue{DType: graph.Float64, V: 1}}
	b := graph.TupleValue{f64s([]int{3}, 1, 2.5, 3), graph.ScalarValue{DType: graph.Float64, V: 0.75}}
	d, err := MaxAbsDiff(a, b)
	require.NoError(t, err)
	assert.Equal(t, 0.5, d)
	d, err = MaxAbsDiff(a, a)
	require.NoError(t, err)
	assert.Equal(t, 0.0, d)
	d, err = MaxAbsDiff(f64s([]int{1}, 1), f64s([]int{1}, math.NaN()))
	require.NoError(t, err)
	assert.Equal(t, math.Inf(1), d)
	_, err = MaxAbsDiff(a, b[0])
	assert.EqualError(t, err, "value: want a 2-tuple, got an array f64[3]: values differ in structure")
}

func TestFinite(t *testing.T) {
	assert.NoError(t, Finite(graph.TupleValue{f64s([]int{2}, 1, 2), graph.ScalarValue{DType: graph.Float32, V: 3}}))
	assert.EqualError(t, Finite(graph.TupleValue{f64s([]int{2}, 1, 2), f64s([]int{2, 2}, 0, 0, math.Inf(-1), 0)}),
		"tuple element 1: array element [1 0] of [2 2] is -Inf")
}

// TestToleranceCoversRounding measures how far evaluating a program in f32
// moves it from f64 (a seed makes the same program and inputs in both
// element types), which bounds what regrouping a reduction can do, and
// checks that Tolerance(Float32) leaves a margin of ten.
func TestToleranceCoversRounding(t *testing.T) {
	for _, gen := range []Generator{Program, RNZOfRNZ} {
		for seed := range uint64(100) {
			n64, ins64 := gen(Rand(seed), Config{DType: graph.Float64})
			n32, ins32 := gen(Rand(seed), Config{DType: graph.Float32})
			v64 := must(graph.Eval(n64, Inputs(Rand(seed), ins64)))
			v32 := must(graph.Eval(n32, Inputs(Rand(seed), ins32)))
			w, g := flat(v64), flat(v32)
			require.Len(t, g, len(w))
			for k := range w {
				require.True(t, within(w[k], g[k], Tolerance(graph.Float32)/10),
					"seed %d: element %d: f64 %v, f32 %v\n%s", seed, k, w[k], g[k], graph.Print(n32))
			}
		}
	}
}

// flat lists the elements of v, tuples flattened in order.
func flat(v graph.Value) []float64 {
	switch v := v.(type) {
	case graph.TupleValue:
		var out []float64
		for _, e := range v {
			out = append(out, flat(e)...)
		}
		return out
	case graph.ScalarValue:
		return []float64{v.V}
	case *graph.Array:
		return v.Values()
	}
	return nil
}
