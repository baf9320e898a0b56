package native_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// The views below exist only in this test: the native back end must run
// them through graph.View alone.

// slideView sees axis Axis (e, s) as e-Width+1 overlapping windows:
// (e-Width+1, s), (Width, s). It has no inverse.
type slideView struct{ Axis, Width int }

func (slideView) Name() string    { return "slide" }
func (v slideView) Params() []int { return []int{v.Axis, v.Width} }
func (v slideView) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) || v.Width < 1 || v.Width > l[v.Axis].Extent {
		return nil, &graph.LayoutError{Op: "slide", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf("width %d does not fit axis %d", v.Width, v.Axis)}
	}
	a := l[v.Axis]
	out := append(graph.Layout(nil), l[:v.Axis]...)
	out = append(out, graph.Axis{Extent: a.Extent - v.Width + 1, Stride: a.Stride}, graph.Axis{Extent: v.Width, Stride: a.Stride})
	return append(out, l[v.Axis+1:]...), nil
}
func (slideView) Inverse(graph.Layout) (graph.View, bool) { return nil, false }
func (v slideView) Lift() graph.View                      { return slideView{v.Axis + 1, v.Width} }

// moveLastView moves axis Axis to the end (Back: the last axis to Axis), a
// permutation that no flip writes in one step. Each direction inverts the
// other.
type moveLastView struct {
	Axis int
	Back bool
}

func (moveLastView) Name() string { return "movelast" }
func (v moveLastView) Params() []int {
	if v.Back {
		return []int{v.Axis, 1}
	}
	return []int{v.Axis, 0}
}
func (v moveLastView) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) {
		return nil, &graph.LayoutError{Op: "movelast", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf("axis %d out of range for rank %d", v.Axis, len(l))}
	}
	out := append(graph.Layout(nil), l...)
	if v.Back {
		last := out[len(out)-1]
		copy(out[v.Axis+1:], out[v.Axis:len(out)-1])
		out[v.Axis] = last
	} else {
		a := out[v.Axis]
		copy(out[v.Axis:], out[v.Axis+1:])
		out[len(out)-1] = a
	}
	return out, nil
}
func (v moveLastView) Inverse(graph.Layout) (graph.View, bool) {
	return moveLastView{v.Axis, !v.Back}, true
}
func (v moveLastView) Lift() graph.View { return moveLastView{v.Axis + 1, v.Back} }

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
		{"window of an input", mapOf(`\w -> reduce (+) w`, view(t, slideView{0, 3}, x)), map[string]graph.Value{"x": xs}, []float64{6, 9, 12}},
		// The windows of 2, 4, 6, 8, 10.
		{"window of a computed array", view(t, slideView{0, 2}, mapOf(`\v -> v * 2`, x)), map[string]graph.Value{"x": xs}, []float64{2, 4, 4, 6, 6, 8, 8, 10}},
		{"permutation written through its inverse", view(t, moveLastView{0, false}, double(A)), map[string]graph.Value{"A": as}, nil},
		{"view inside a map", mapOf(`\r -> map (\w -> reduce (zip max) w) r`, view(t, slideView{1, 2}, view(t, moveLastView{0, true}, A))), map[string]graph.Value{"A": as}, nil},
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
	got, err := graph.Eval(view(t, moveLastView{0, false}, double(A)), map[string]graph.Value{"A": as})
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
