package graph_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

func iotaF64(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

func evalSrc(t *testing.T, src string, in map[string]graph.Value) *graph.Array {
	t.Helper()
	prog, err := graph.Parse(src)
	require.NoError(t, err, src)
	v, err := graph.Eval(prog.Body, in)
	require.NoError(t, err, src)
	return v.(*graph.Array)
}

// TestWindowLayout pins the layout of window d w st dil: positions
// ((e-span)/st+1, st*s), elements (w, dil*s).
func TestWindowLayout(t *testing.T) {
	l := graph.RowMajor(3, 10, 2) // strides 20, 2, 1
	for _, tc := range []struct {
		v    graph.WindowView
		want graph.Layout
	}{
		{graph.WindowView{Axis: 1, Width: 3, Stride: 1, Dilation: 1},
			graph.Layout{{3, 20}, {8, 2}, {3, 2}, {2, 1}}},
		{graph.WindowView{Axis: 1, Width: 3, Stride: 2, Dilation: 1},
			graph.Layout{{3, 20}, {4, 4}, {3, 2}, {2, 1}}}, // (10-3)/2+1 = 4
		{graph.WindowView{Axis: 1, Width: 3, Stride: 1, Dilation: 2},
			graph.Layout{{3, 20}, {6, 2}, {3, 4}, {2, 1}}}, // span 5
		{graph.WindowView{Axis: 1, Width: 2, Stride: 3, Dilation: 4},
			graph.Layout{{3, 20}, {2, 6}, {2, 8}, {2, 1}}}, // span 5, (10-5)/3+1 = 2
		{graph.WindowView{Axis: 0, Width: 3, Stride: 1, Dilation: 1},
			graph.Layout{{1, 20}, {3, 20}, {10, 2}, {2, 1}}},
		{graph.WindowView{Axis: 2, Width: 1, Stride: 1, Dilation: 1},
			graph.Layout{{3, 20}, {10, 2}, {2, 1}, {1, 1}}},
	} {
		got, err := tc.v.Apply(l)
		require.NoError(t, err, "%+v", tc.v)
		assert.Equal(t, tc.want, got, "%+v", tc.v)
		// Lift: one axis deeper, under a new outer axis.
		outer := graph.Axis{Extent: 2, Stride: 60}
		lifted, err := tc.v.Lift().Apply(append(graph.Layout{outer}, l...))
		require.NoError(t, err)
		assert.Equal(t, append(graph.Layout{outer}, tc.want...), lifted, "%+v lifted", tc.v)
		_, ok := tc.v.Inverse(l)
		tiles := tc.v.Width == 1 && tc.v.Stride == 1 // subdiv d 1
		assert.Equal(t, tiles, ok, "%+v: an inverse only where the windows tile the axis", tc.v)
	}

	// Windows that tile the axis are subdiv, and flatten undoes them.
	v := graph.WindowView{Axis: 1, Width: 5, Stride: 5, Dilation: 1}
	w, err := v.Apply(l)
	require.NoError(t, err)
	s, err := l.Subdiv(1, 5)
	require.NoError(t, err)
	assert.Equal(t, s, w)
	inv, ok := v.Inverse(l)
	require.True(t, ok)
	back, err := inv.Apply(w)
	require.NoError(t, err)
	assert.Equal(t, l, back)
	_, ok = graph.WindowView{Axis: 1, Width: 3, Stride: 3, Dilation: 1}.Inverse(l)
	assert.False(t, ok, "3 does not divide 10: the last element is dropped")
}

// TestWindowErrors: the checker and the parser name the numbers.
func TestWindowErrors(t *testing.T) {
	l := graph.RowMajor(4, 5)
	for _, tc := range []struct {
		v    graph.WindowView
		want string
	}{
		{graph.WindowView{Axis: 1, Width: 6, Stride: 1, Dilation: 1},
			"window: window of width 6 is larger than extent 5 of axis 1 (pad the axis, or take a smaller window) in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 1, Width: 3, Stride: 1, Dilation: 3},
			"window: window of width 3 at dilation 3 spans 7, more than extent 5 of axis 1 (pad the axis, or take a smaller window) in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 2, Width: 1, Stride: 1, Dilation: 1},
			"window: axis 2 out of range for rank 2 in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 0, Width: 0, Stride: 1, Dilation: 1},
			"window: width 0 is less than 1 in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 0, Width: 2, Stride: 0, Dilation: 1},
			"window: stride 0 is less than 1 in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 0, Width: 2, Stride: 1, Dilation: -2},
			"window: dilation -2 is less than 1 in layout <(4,5),(5,1)>"},
	} {
		_, err := tc.v.Apply(l)
		assert.EqualError(t, err, tc.want)
	}

	prog, err := graph.Parse(`x : f32[4,5]; window 1 3 1 3 x`)
	require.NoError(t, err)
	_, err = graph.Check(prog.Body)
	assert.EqualError(t, err, "window 1 3 1 3 x: window: window of width 3 at dilation 3 spans 7, more than extent 5 of axis 1 (pad the axis, or take a smaller window) in layout <(4,5),(5,1)>")

	for src, want := range map[string]string{
		`x : f32[4,5]; window 0 2 0 x`:   "1:26: stride must be at least 1, found 0",
		`x : f32[4,5]; window 0 2 1 0 x`: "1:28: dilation must be at least 1, found 0",
		`x : f32[4,5]; window 0 0 x`:     "1:24: width must be at least 1, found 0",
		`x : f32[4,5]; pad 0 1 x`:        `1:23: padding after must be a non-negative integer, found "x"`,
		`x : f32[4,5]; crop 0 2 x`:       `1:24: crop after must be a non-negative integer, found "x"`,
		`x : f32[4,5]; window 0 -1 x`:    "1:24: width must be a non-negative integer, found \"-1\"",
	} {
		_, err := graph.Parse(src)
		assert.EqualError(t, err, want, src)
	}
}

// TestWindowEval: element (p, k) of window d w st dil x is x[p*st + k*dil],
// computed here by index arithmetic, for every stride and dilation up to
// 3 on odd extents.
func TestWindowEval(t *testing.T) {
	const e = 11
	x := viewF64s(t, iotaF64(2*e), 2, e)
	for w := 1; w <= 4; w++ {
		for st := 1; st <= 3; st++ {
			for dil := 1; dil <= 3; dil++ {
				span := (w-1)*dil + 1
				if span > e {
					continue
				}
				src := fmt.Sprintf("x : f64[2,%d]; window 1 %d %d %d x", e, w, st, dil)
				got := evalSrc(t, src, map[string]graph.Value{"x": x})
				npos := (e-span)/st + 1
				require.Equal(t, []int{2, npos, w}, got.Extents(), src)
				for r := range 2 {
					for p := range npos {
						for k := range w {
							want := x.At(r, p*st+k*dil)
							require.Equal(t, want, got.At(r, p, k), "%s at %d,%d,%d", src, r, p, k)
						}
					}
				}
			}
		}
	}
}

// TestWindowPrintParse: the notation prints the shortest form and reads
// it back.
func TestWindowPrintParse(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`x : f64[9]; window 0 3 1 1 x`, `window 0 3 x`},
		{`x : f64[9]; window 0 3 2 1 x`, `window 0 3 2 x`},
		{`x : f64[9]; window 0 3 1 2 x`, `window 0 3 1 2 x`},
		{`x : f64[9]; map (\w -> reduce (+) w) (window 0 2 3 (pad 0 1 2 x))`, `map (\w -> reduce (+) w) (window 0 2 3 (pad 0 1 2 x))`},
		{`x : f64[9]; padninf 0 1 0 x`, `padninf 0 1 0 x`},
		{`x : f64[9]; padpinf 0 0 1 2 x`, `padpinf 0 0 1 2 x`},
		{`x : f64[9]; pad 0 0 0 0 x`, `pad 0 0 0 x`},
		{`x : f64[9]; crop 0 1 2 x`, `crop 0 1 2 x`},
	} {
		prog, err := graph.Parse(tc.src)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, graph.Print(prog.Body), tc.src)
		again, err := graph.Parse(prog.String())
		require.NoError(t, err)
		assert.Equal(t, prog.String(), again.String())
		_, err = graph.Check(prog.Body)
		assert.NoError(t, err, tc.src)
	}
}

// TestPadEval: pad writes the operand at lo + i*(in+1) and the fill
// elsewhere, in a fresh row-major array; crop keeps a range and shares the
// buffer.
func TestPadEval(t *testing.T) {
	x := viewF64s(t, iotaF64(6), 2, 3)
	in := map[string]graph.Value{"x": x}
	ninf := math.Inf(-1)
	for _, tc := range []struct {
		src     string
		extents []int
		want    []float64
	}{
		{`pad 1 1 2 x`, []int{2, 6}, []float64{0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0}},
		{`pad 0 1 0 x`, []int{3, 3}, []float64{0, 0, 0, 1, 2, 3, 4, 5, 6}},
		{`padninf 1 0 1 1 x`, []int{2, 6}, []float64{1, ninf, 2, ninf, 3, ninf, 4, ninf, 5, ninf, 6, ninf}},
		{`padpinf 0 0 0 2 x`, []int{4, 3}, []float64{1, 2, 3, math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), 4, 5, 6}},
		{`crop 1 1 0 x`, []int{2, 2}, []float64{2, 3, 5, 6}},
		{`crop 1 1 1 (pad 1 1 1 x)`, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		{`crop 0 1 0 (flip 0 x)`, []int{2, 2}, []float64{2, 5, 3, 6}},
		// A pad of a flipped (strided) operand is laid out row-major.
		{`pad 0 1 0 (flip 0 x)`, []int{4, 2}, []float64{0, 0, 1, 4, 2, 5, 3, 6}},
		// Max pooling of width 2, stride 2 over the padded row: the -Inf
		// fill never wins.
		{`map (\r -> map (\w -> reduce max w) (window 0 2 2 (padninf 0 0 1 r))) (map (\r -> map (\v -> neg v) r) x)`,
			[]int{2, 2}, []float64{-1, -3, -4, -6}},
	} {
		got := evalSrc(t, "x : f64[2,3]; "+tc.src, in)
		assert.Equal(t, tc.extents, got.Extents(), tc.src)
		assert.Equal(t, tc.want, got.Values(), tc.src)
	}
	// i32 saturates the infinite fills.
	xi, err := graph.Zeros(graph.Int32, 2)
	require.NoError(t, err)
	got := evalSrc(t, "x : i32[2]; padninf 0 1 1 x", map[string]graph.Value{"x": xi})
	assert.Equal(t, []float64{math.MinInt32, 0, 0, math.MinInt32}, got.Values())

	// Types: pad is row-major, crop keeps strides.
	prog, err := graph.Parse("x : f64[2,3]; crop 1 1 1 (pad 1 1 1 (flip 0 x))")
	require.NoError(t, err)
	info, err := graph.Check(prog.Body)
	require.NoError(t, err)
	assert.Equal(t, "f64<(3,4),(2,1)>", info.TypeOf(prog.Body).String())

	// Errors.
	for src, want := range map[string]string{
		"crop 1 2 1 x": "crop 1 2 1 (flip 0 x): crop: crop of 2 before and 1 after leaves nothing of extent 2 of axis 1 in layout <(3,1),(2,3)>",
		"pad 2 1 1 x":  "pad 2 1 1 (flip 0 x): pad: axis 2 out of range for rank 2 in layout <(3,1),(2,3)>",
	} {
		prog, err := graph.Parse("x : f64[2,3]; " + src)
		require.NoError(t, err)
		// Flipped, so that the layout in the message is not row-major.
		fl, err := graph.NewView(graph.FlipView{A: 0, B: 1}, prog.Inputs[0])
		require.NoError(t, err)
		v, _, _ := graph.AsView(prog.Body)
		n, err := graph.NewView(v, fl)
		require.NoError(t, err)
		_, err = graph.Check(n)
		assert.EqualError(t, err, want, src)
	}
	assert.True(t, graph.IsStrided(graph.WindowView{Axis: 0, Width: 2, Stride: 1, Dilation: 1}))
	assert.False(t, graph.IsStrided(graph.PadView{}))
	assert.False(t, graph.IsStrided(graph.CropView{}))
}

// TestPadLift: the pad of every row is the lifted pad of the matrix, for
// both fresh and shifted views.
func TestPadLift(t *testing.T) {
	in := map[string]graph.Value{"A": viewF64s(t, iotaF64(8), 2, 4)}
	for _, v := range []string{"pad 0 2 1 1", "padninf 0 0 3", "crop 0 1 2", "window 0 2 2"} {
		rows := evalSrc(t, `A : f64[2,4]; map (\r -> `+v+` r) A`, in)
		var lifted graph.View
		prog, err := graph.Parse("A : f64[2,4]; " + v + " A")
		require.NoError(t, err)
		vv, _, _ := graph.AsView(prog.Body)
		lifted = vv.Lift()
		n, err := graph.NewView(lifted, prog.Inputs[0])
		require.NoError(t, err)
		got, err := graph.Eval(n, in)
		require.NoError(t, err)
		assert.Equal(t, rows.Extents(), got.(*graph.Array).Extents(), v)
		assert.Equal(t, rows.Values(), got.(*graph.Array).Values(), v)
	}
}

// TestWindowPadCaps: sizes past the caps are errors, not overflows.
func TestWindowPadCaps(t *testing.T) {
	l := graph.RowMajor(4, 5)
	big := graph.MaxExtent
	for _, tc := range []struct {
		v    graph.View
		want string
	}{
		{graph.WindowView{Axis: 1, Width: 3, Stride: 1, Dilation: big / 2},
			"window: window of width 3 at dilation 549755813888 spans more than 1099511627776 elements (graph.MaxExtent) in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 1, Width: 1, Stride: big + 1, Dilation: 1},
			"window: width 1, stride 1099511627777 or dilation 1 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(4,5),(5,1)>"},
		{graph.WindowView{Axis: 0, Width: 1, Stride: big / 4, Dilation: 1},
			"window: stride 274877906944 or dilation 1 times stride 5 of axis 0 is past the cap of 1099511627776 (graph.MaxElements) in layout <(4,5),(5,1)>"},
		{graph.PadView{Axis: 1, Interior: big / 2},
			"pad: interior padding 549755813888 between the 5 elements of axis 1 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(4,5),(5,1)>"},
		{graph.PadView{Axis: 1, Lo: big},
			"pad: padded extent 1099511627781 of axis 1 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(4,5),(5,1)>"},
	} {
		_, err := tc.v.Apply(l)
		assert.EqualError(t, err, tc.want)
	}
}
