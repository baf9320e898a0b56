package graph_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// slideView is a view this package does not know: it exists only in this
// test, to show that a new view is one new type. slide d w sees axis d
// (extent e, stride s) as e-w+1 overlapping windows of w elements: an outer
// axis (e-w+1, s) and an inner axis (w, s). It is the shape of the sliding
// window that convolutions need, without padding or a step.
type slideView struct{ Axis, Width int }

func (slideView) Name() string    { return "slide" }
func (v slideView) Params() []int { return []int{v.Axis, v.Width} }

func (v slideView) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) {
		return nil, &graph.LayoutError{Op: "slide", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("axis %d out of range for rank %d", v.Axis, len(l))}
	}
	a := l[v.Axis]
	if v.Width < 1 || v.Width > a.Extent {
		return nil, &graph.LayoutError{Op: "slide", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("width %d does not fit extent %d of axis %d", v.Width, a.Extent, v.Axis)}
	}
	out := append(graph.Layout(nil), l[:v.Axis]...)
	out = append(out, graph.Axis{Extent: a.Extent - v.Width + 1, Stride: a.Stride}, graph.Axis{Extent: v.Width, Stride: a.Stride})
	return append(out, l[v.Axis+1:]...), nil
}

// Inverse: windows overlap, so there is none.
func (slideView) Inverse(graph.Layout) (graph.View, bool) { return nil, false }
func (v slideView) Lift() graph.View                      { return slideView{v.Axis + 1, v.Width} }

func init() {
	if err := graph.RegisterView(graph.ViewSyntax{
		Name:   "slide",
		Params: []graph.ViewParam{{Name: "axis", Min: 0}, {Name: "width", Min: 1}},
		Make:   func(p []int) (graph.View, error) { return slideView{p[0], p[1]}, nil },
	}); err != nil {
		panic(err)
	}
}

func viewF64s(t *testing.T, data []float64, extents ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(data, extents...)
	require.NoError(t, err)
	return a
}

// TestNewViewTypeEndToEnd parses, checks, evaluates, prints and rewrites
// terms with slideView, which graph has never heard of: no switch in graph
// needed an edit for it.
func TestNewViewTypeEndToEnd(t *testing.T) {
	// Moving sums of width 3 over 1..5: 1+2+3, 2+3+4, 3+4+5.
	const src = `x : f64[5]; map (\w -> reduce (+) w) (slide 0 3 x)`
	prog, err := graph.Parse(src)
	require.NoError(t, err)

	// The parser built the test's view, in a *ViewOp.
	m := prog.Body.(*graph.NZip)
	vn, ok := m.Args[0].(*graph.ViewOp)
	require.True(t, ok, "slide parses to a *ViewOp, got %T", m.Args[0])
	assert.Equal(t, slideView{0, 3}, vn.View())
	assert.Same(t, prog.Inputs[0], vn.Operand())

	// Checker: the window view's layout, overlapping strides and all.
	info, err := graph.Check(prog.Body)
	require.NoError(t, err)
	assert.Equal(t, "f64<(3,1),(3,1)>", info.TypeOf(vn).String())
	assert.Equal(t, "f64[3]", info.TypeOf(prog.Body).String())

	// Interpreter.
	x := viewF64s(t, []float64{1, 2, 3, 4, 5}, 5)
	got, err := graph.Eval(prog.Body, map[string]graph.Value{"x": x})
	require.NoError(t, err)
	assert.Equal(t, []float64{6, 9, 12}, got.(*graph.Array).Values())

	// Printer and parser: the text round-trips.
	assert.Equal(t, `map (\w -> reduce (+) w) (slide 0 3 x)`, graph.Print(prog.Body))
	again, err := graph.Parse(prog.String())
	require.NoError(t, err)
	assert.Equal(t, prog.String(), again.String())

	// Rewrite: an unchanged term is the same pointer; replacing the input
	// under the view rebuilds the view through NewView.
	same, err := graph.Rewrite(prog.Body, func(n graph.Node) (graph.Node, error) { return n, nil })
	require.NoError(t, err)
	assert.Same(t, prog.Body, same)
	y, err := graph.NewInput("y", graph.ArrayOf(graph.Float64, 5), false)
	require.NoError(t, err)
	swapped, err := graph.Rewrite(prog.Body, func(n graph.Node) (graph.Node, error) {
		if n == prog.Inputs[0] {
			return y, nil
		}
		return n, nil
	})
	require.NoError(t, err)
	assert.Equal(t, `map (\w -> reduce (+) w) (slide 0 3 y)`, graph.Print(swapped))
	got, err = graph.Eval(swapped, map[string]graph.Value{"y": viewF64s(t, []float64{5, 4, 3, 2, 1}, 5)})
	require.NoError(t, err)
	assert.Equal(t, []float64{12, 9, 6}, got.(*graph.Array).Values())

	// Freshen and WithSource keep the view.
	fresh, err := graph.Freshen(prog.Body)
	require.NoError(t, err)
	assert.Equal(t, graph.Print(prog.Body), graph.Print(fresh))
	tagged := graph.WithSource(vn, "conv1")
	assert.Equal(t, "conv1", tagged.Source())
	tv, _, ok := graph.AsView(tagged)
	require.True(t, ok)
	assert.Equal(t, slideView{0, 3}, tv)
}

// TestNewViewTypeLift checks Lift through the interpreter: the view of every
// row equals the lifted view of the matrix.
func TestNewViewTypeLift(t *testing.T) {
	in := map[string]graph.Value{"A": viewF64s(t, []float64{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4)}
	decl := "A : f64[2,4]; "
	rows, err := graph.Parse(decl + `map (\r -> slide 0 2 r) A`)
	require.NoError(t, err)
	lifted, err := graph.Parse(decl + `slide 1 2 A`)
	require.NoError(t, err)
	assert.Equal(t, slideView{1, 2}, slideView{0, 2}.Lift())
	a, err := graph.Eval(rows.Body, in)
	require.NoError(t, err)
	b, err := graph.Eval(lifted.Body, in)
	require.NoError(t, err)
	// Row 0 (1 2 3 4) has windows (1 2) (2 3) (3 4); row 1 likewise from 5.
	want := []float64{1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 8}
	assert.Equal(t, want, a.(*graph.Array).Values())
	assert.Equal(t, want, b.(*graph.Array).Values())
	assert.Equal(t, []int{2, 3, 2}, b.(*graph.Array).Extents())
}

// TestNewViewTypeErrors checks that the view's own errors reach the user:
// the checker names the term and the view's message, the parser the
// parameter and its least value.
func TestNewViewTypeErrors(t *testing.T) {
	prog, err := graph.Parse(`x : f64[5]; slide 0 6 x`)
	require.NoError(t, err)
	_, err = graph.Check(prog.Body)
	assert.EqualError(t, err, "slide 0 6 x: slide: width 6 does not fit extent 5 of axis 0 in layout <(5,1)>")

	_, err = graph.Parse(`x : f64[5]; slide 0 0 x`)
	assert.EqualError(t, err, "1:21: width must be at least 1, found 0")
	_, err = graph.Parse(`x : f64[5]; slide 0 x`)
	assert.EqualError(t, err, `1:21: width must be a non-negative integer, found "x"`)
	_, err = graph.Parse(`slide : f64[5]; slide`)
	assert.EqualError(t, err, "1:1: cannot declare slide: it is a keyword")
}

// TestRegisterViewRejects checks RegisterView's errors.
func TestRegisterViewRejects(t *testing.T) {
	mk := func([]int) (graph.View, error) { return slideView{}, nil }
	for _, tc := range []struct {
		s    graph.ViewSyntax
		want string
	}{
		{graph.ViewSyntax{Name: "flip", Make: mk}, "register view flip: the name is already a keyword"},
		{graph.ViewSyntax{Name: "slide", Make: mk}, "register view slide: the name is already a keyword"},
		{graph.ViewSyntax{Name: "exp", Make: mk}, "register view exp: the name is a scalar op"},
		{graph.ViewSyntax{Name: "", Make: mk}, "register view: empty name"},
		{graph.ViewSyntax{Name: "wnd"}, "register view wnd: no Make function"},
		{graph.ViewSyntax{Name: "wnd", Make: mk, Optional: 1}, "register view wnd: 1 optional parameters of 0"},
		{graph.ViewSyntax{Name: "wnd", Make: mk, Params: []graph.ViewParam{{Name: "axis", Min: -1}}},
			"register view wnd: parameter 0 needs a name and a minimum of at least 0"},
	} {
		assert.EqualError(t, graph.RegisterView(tc.s), tc.want)
	}
	assert.False(t, graph.Keywords["wnd"], "a rejected view reserves no keyword")
}
