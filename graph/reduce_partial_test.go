package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// reduce r given no array is a function, as zip f given none is: the parser
// reads it as \x -> reduce r x.
func TestReducePartialParse(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`A : f64[2,3]; map (reduce (+)) A`, `map (\x -> reduce (+) x) A`},
		{`A : f64[2,3]; map (reduce max) A`, `map (\x -> reduce max x) A`},
		{`A : f64[2,3,4]; map (reduce (zip (+))) A`, `map (\x -> reduce (zip (+)) x) A`},
		{`A : f64[2,3]; (reduce (+)) (flip 0 A)`, `(\x -> reduce (+) x) (flip 0 A)`},
		// With an array it is the reduction itself, as before.
		{`A : f64[2,3]; reduce (zip (+)) A`, `reduce (zip (+)) A`},
	} {
		prog, err := graph.Parse(tc.src)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, graph.Print(prog.Body), tc.src)
		// What Print writes parses back to the same term.
		again, err := graph.Parse(graph.Print(prog.Body), prog.Inputs...)
		require.NoError(t, err, tc.src)
		assert.Equal(t, graph.Print(prog.Body), graph.Print(again.Body), tc.src)
	}
	// The errors of a reduce that is not partial stay as they were.
	for _, tc := range []struct{ src, want string }{
		{`A : f64[2]; reduce`, `1:19: reduce needs a reduction function, found end of input`},
		{`A : f64[2]; reduce (+) map`, `1:24: an application of map here needs parentheses: (map ...)`},
	} {
		_, err := graph.Parse(tc.src)
		require.Error(t, err, tc.src)
		assert.Contains(t, err.Error(), tc.want, tc.src)
	}
}

func TestReducePartialCheck(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`A : f64[2,3]; map (reduce (+)) A`, `f64[2]`},
		{`A : f32[2,3,4]; map (reduce (zip (+))) A`, `f32[2,4]`},
		{`A : f64[2,3]; zip (+) (map (reduce max) A) (map (reduce min) A)`, `f64[2]`},
	} {
		prog, err := graph.Parse(tc.src)
		require.NoError(t, err, tc.src)
		info, err := graph.Check(prog.Body)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, info.Types[prog.Body].String(), tc.src)
	}
	// Unapplied, it is a function, not a value.
	prog, err := graph.Parse(`A : f64[2,3]; reduce (+)`)
	require.NoError(t, err)
	_, err = graph.Check(prog.Body)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a function is used as a value")
}

func TestReducePartialEval(t *testing.T) {
	A, err := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		src  string
		want []float64 // by hand from A = [[1 2 3] [4 5 6]]
	}{
		{`A : f64[2,3]; map (reduce (+)) A`, []float64{6, 15}},
		{`A : f64[2,3]; map (reduce max) A`, []float64{3, 6}},
		{`A : f64[2,3]; map (reduce (+)) (flip 0 A)`, []float64{5, 7, 9}},
		{`A : f64[2,3]; zip (-) (map (reduce max) A) (map (reduce min) A)`, []float64{2, 2}},
	} {
		prog, err := graph.Parse(tc.src)
		require.NoError(t, err, tc.src)
		out, err := graph.Eval(prog.Body, map[string]graph.Value{"A": A})
		require.NoError(t, err, tc.src)
		arr, ok := out.(*graph.Array)
		require.True(t, ok, "%s: %T", tc.src, out)
		got := make([]float64, arr.Size())
		for i := range got {
			got[i] = arr.At(i)
		}
		assert.Equal(t, tc.want, got, tc.src)
	}
}
