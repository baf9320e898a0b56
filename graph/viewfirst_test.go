package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// TestFirstView: first d drops axis d and keeps the offset, so it reads
// element 0 of that axis; it lifts one axis in, has no inverse, and
// parses, prints and evaluates as any view.
func TestFirstView(t *testing.T) {
	l := graph.RowMajor(3, 4, 5) // strides 20, 5, 1
	for _, tc := range []struct {
		axis int
		want graph.Layout
	}{
		{0, graph.Layout{{Extent: 4, Stride: 5}, {Extent: 5, Stride: 1}}},
		{1, graph.Layout{{Extent: 3, Stride: 20}, {Extent: 5, Stride: 1}}},
		{2, graph.Layout{{Extent: 3, Stride: 20}, {Extent: 4, Stride: 5}}},
	} {
		v := graph.FirstView{Axis: tc.axis}
		got, err := v.Apply(l)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "first %d", tc.axis)
		lifted, err := v.Lift().Apply(append(graph.Layout{{Extent: 2, Stride: 60}}, l...))
		require.NoError(t, err)
		assert.Equal(t, append(graph.Layout{{Extent: 2, Stride: 60}}, tc.want...), lifted, "first %d lifted", tc.axis)
		_, ok := v.Inverse(l)
		assert.False(t, ok, "first %d has no inverse", tc.axis)
	}

	// Errors name the axis and the layout.
	for _, tc := range []struct {
		v    graph.FirstView
		l    graph.Layout
		want string
	}{
		{graph.FirstView{Axis: 0}, graph.RowMajor(4), "first: needs an array of rank 2 or more, got rank 1 (first of a vector would be a scalar; reduce it instead) in layout <(4,1)>"},
		{graph.FirstView{Axis: 2}, graph.RowMajor(4, 3), "first: axis 2 out of range for rank 2 in layout <(4,3),(3,1)>"},
		{graph.FirstView{Axis: 0}, graph.RowMajor(0, 3), "first: axis 0 is empty: it has no first element in layout <(0,3),(3,1)>"},
	} {
		_, err := tc.v.Apply(tc.l)
		if assert.Error(t, err) {
			assert.Equal(t, tc.want, err.Error())
		}
	}

	// Parse, check, evaluate, print: the first row and the first column of
	// a 3x2 matrix, and stopgrad, which is its operand.
	const src = `x : f64[3,2]; zip (\a b -> a * 10 + stopgrad b) (first 0 x) (first 1 (flip 0 x))`
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	info, err := graph.Check(prog.Body)
	require.NoError(t, err)
	assert.Equal(t, "f64[2]", info.TypeOf(prog.Body).String())
	x, err := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	require.NoError(t, err)
	v, err := graph.Eval(prog.Body, map[string]graph.Value{"x": x})
	require.NoError(t, err)
	// first 0 x = [1 2]; flip 0 x is [[1 3 5] [2 4 6]], its first column [1 2].
	assert.Equal(t, []float64{11, 22}, v.(*graph.Array).Values())
	assert.Equal(t, `zip (\a b -> a * 10 + stopgrad b) (first 0 x) (first 1 (flip 0 x))`, graph.Print(prog.Body))

	// first is a keyword, stopgrad an op: neither names an input.
	for _, bad := range []string{"first : f64[2]; first", "stopgrad : f64[2]; stopgrad"} {
		_, err := graph.Parse(bad)
		assert.Error(t, err, bad)
	}
}
