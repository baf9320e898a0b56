package native_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// The views used here (lowertest.WindowView, lowertest.MoveLastView) are
// not graph's: the native back end must run them through graph.View alone.

func view(t *testing.T, v graph.View, x graph.Node) graph.Node {
	t.Helper()
	n, err := graph.NewView(v, x)
	require.NoError(t, err)
	return n
}

func arr(t *testing.T, data []float64, extents ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(data, extents...)
	require.NoError(t, err)
	return a
}

// TestNewViewType compiles terms with views that graph does not define: a
// view of an input (read in place), a view of a computed array (no
// inverse: computed, then viewed), and a view written through its inverse.
func TestNewViewType(t *testing.T) {
	seq := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i + 1)
		}
		return out
	}
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float64, 5), false)
	require.NoError(t, err)
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float64, 2, 3, 4), false)
	require.NoError(t, err)
	xs, as := arr(t, seq(5), 5), arr(t, seq(24), 2, 3, 4)
	mapOf := func(src string, args ...graph.Node) graph.Node {
		fn, err := graph.ParseTerm(src)
		require.NoError(t, err)
		n, err := graph.NewNZip(fn, args...)
		require.NoError(t, err)
		return n
	}
	double := func(x graph.Node) graph.Node { return mapOf(`\r -> map (\c -> map (*2) c) r`, x) }

	for _, tc := range []struct {
		name string
		term graph.Node
		in   map[string]graph.Value
		want []float64 // by hand; nil where the oracle alone decides
	}{
		// Moving sums of width 3 over 1..5.
		{"window of an input", mapOf(`\w -> reduce (+) w`, view(t, lowertest.WindowView{Axis: 0, Width: 3}, x)), map[string]graph.Value{"x": xs}, []float64{6, 9, 12}},
		// The windows of 2, 4, 6, 8, 10.
		{"window of a computed array", view(t, lowertest.WindowView{Axis: 0, Width: 2}, mapOf(`\v -> v * 2`, x)), map[string]graph.Value{"x": xs}, []float64{2, 4, 4, 6, 6, 8, 8, 10}},
		{"permutation written through its inverse", view(t, lowertest.MoveLastView{Axis: 0, Back: false}, double(A)), map[string]graph.Value{"A": as}, nil},
		{"view inside a map", mapOf(`\r -> map (\w -> reduce (zip max) w) r`, view(t, lowertest.WindowView{Axis: 1, Width: 2}, view(t, lowertest.MoveLastView{Axis: 0, Back: true}, A))), map[string]graph.Value{"A": as}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != nil {
				got, err := graph.Eval(tc.term, tc.in)
				require.NoError(t, err)
				assert.Equal(t, tc.want, got.(*graph.Array).Values(), "the oracle")
			}
			whole, err := fusion.Whole(tc.term)
			require.NoError(t, err)
			lowertest.Check(t, native.New(native.Options{}), whole, tc.term, tc.in, 0)
			fused, err := fusion.Fuse(tc.term, fusion.Options{})
			require.NoError(t, err)
			lowertest.Check(t, native.New(native.Options{Parallelism: 1}), fused.Graph, tc.term, tc.in, 0)
		})
	}

	// The permutation's value, by hand: element (j, k, i) is 2*A[i,j,k].
	got, err := graph.Eval(view(t, lowertest.MoveLastView{Axis: 0, Back: false}, double(A)), map[string]graph.Value{"A": as})
	require.NoError(t, err)
	a := got.(*graph.Array)
	require.Equal(t, []int{3, 4, 2}, a.Extents())
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				assert.Equal(t, 2*float64(i*12+j*4+k+1), a.At(j, k, i))
			}
		}
	}
}
