package graph_test

import (
	"errors"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64s(extents []int, vs ...float64) *graph.Array {
	a, err := graph.FromFloat64(vs, extents...)
	if err != nil {
		panic(err)
	}
	return a
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
		{"element type", f64s([]int{1}, 1), zeros32(1), 0,
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
		{"NaN against an infinity", f64s([]int{1}, math.NaN()), f64s([]int{1}, math.Inf(1)), 1,
			"array element [0] of [1]: want NaN, got +Inf (difference NaN)", false},
		{"an infinity against a large number, whatever the tolerance", f64s([]int{1}, math.Inf(1)), f64s([]int{1}, math.MaxFloat64), 1e300,
			"array element [0] of [1]: want +Inf, got 1.7976931348623157e+308 (difference +Inf)", false},
		{"minus zero matches zero", f64s([]int{1}, math.Copysign(0, -1)), f64s([]int{1}, 0), 0, "", false},
		{"infinities of two signs", f64s([]int{1}, math.Inf(1)), f64s([]int{1}, math.Inf(-1)), 1,
			"array element [0] of [1]: want +Inf, got -Inf (difference +Inf)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := graph.Diff(tt.want, tt.got, tt.tol)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
			assert.Equal(t, tt.structure, errors.Is(err, graph.ErrStructure))
		})
	}
}

func TestDiffComparesViewsByElement(t *testing.T) {
	// A flipped view and its row-major copy are the same value.
	a := f64s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	flipped := flip01(a)
	assert.NoError(t, graph.Diff(flipped, flipped.Copy(), 0))
	assert.Error(t, graph.Diff(a, flipped, 0))
}

func TestMaxAbsDiff(t *testing.T) {
	a := graph.TupleValue{f64s([]int{3}, 1, 2, 3), graph.ScalarValue{DType: graph.Float64, V: 1}}
	b := graph.TupleValue{f64s([]int{3}, 1, 2.5, 3), graph.ScalarValue{DType: graph.Float64, V: 0.75}}
	d, err := graph.MaxAbsDiff(a, b)
	require.NoError(t, err)
	assert.Equal(t, 0.5, d)
	d, err = graph.MaxAbsDiff(a, a)
	require.NoError(t, err)
	assert.Equal(t, 0.0, d)
	d, err = graph.MaxAbsDiff(f64s([]int{1}, 1), f64s([]int{1}, math.NaN()))
	require.NoError(t, err)
	assert.Equal(t, math.Inf(1), d)
	_, err = graph.MaxAbsDiff(a, b[0])
	assert.EqualError(t, err, "value: want a 2-tuple, got an array f64[3]: values differ in structure")
}

func TestFinite(t *testing.T) {
	assert.NoError(t, graph.Finite(graph.TupleValue{f64s([]int{2}, 1, 2), graph.ScalarValue{DType: graph.Float32, V: 3}}))
	assert.EqualError(t, graph.Finite(graph.TupleValue{f64s([]int{2}, 1, 2), f64s([]int{2, 2}, 0, 0, math.Inf(-1), 0)}),
		"tuple element 1: array element [1 0] of [2 2] is -Inf")
}

func zeros32(n int) *graph.Array {
	a, err := graph.Zeros(graph.Float32, n)
	if err != nil {
		panic(err)
	}
	return a
}

func flip01(a *graph.Array) *graph.Array {
	f, err := a.Flip(0, 1)
	if err != nil {
		panic(err)
	}
	return f
}

func TestToleranceOf(t *testing.T) {
	s32 := graph.ScalarValue{DType: graph.Float32, V: 1}
	assert.Equal(t, 1e-10, graph.ToleranceOf(f64s([]int{1}, 1)))
	assert.Equal(t, 1e-4, graph.ToleranceOf(graph.TupleValue{f64s([]int{1}, 1), s32}))
	assert.Equal(t, 1e-4, graph.Tolerance(graph.Float32))
	assert.Equal(t, 1e-10, graph.Tolerance(graph.Int32))
}
