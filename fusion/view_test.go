package fusion

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// The views below exist only in this test: hoist-view and sink-view must
// move them through graph.View alone.

// moveLast moves axis Axis to the end; its inverse is not needed here.
type moveLast struct{ Axis int }

func (moveLast) Name() string    { return "movelast" }
func (v moveLast) Params() []int { return []int{v.Axis} }
func (v moveLast) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) {
		return nil, &graph.LayoutError{Op: "movelast", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf("axis %d out of range for rank %d", v.Axis, len(l))}
	}
	out := append(graph.Layout(nil), l[:v.Axis]...)
	out = append(out, l[v.Axis+1:]...)
	return append(out, l[v.Axis]), nil
}
func (moveLast) Inverse(graph.Layout) (graph.View, bool) { return nil, false }
func (v moveLast) Lift() graph.View                      { return moveLast{v.Axis + 1} }

// window sees axis Axis (e, s) as e-Width+1 overlapping windows.
type window struct{ Axis, Width int }

func (window) Name() string    { return "window" }
func (v window) Params() []int { return []int{v.Axis, v.Width} }
func (v window) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) || v.Width < 1 || v.Width > l[v.Axis].Extent {
		return nil, &graph.LayoutError{Op: "window", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf("width %d does not fit axis %d", v.Width, v.Axis)}
	}
	a := l[v.Axis]
	out := append(graph.Layout(nil), l[:v.Axis]...)
	out = append(out, graph.Axis{Extent: a.Extent - v.Width + 1, Stride: a.Stride}, graph.Axis{Extent: v.Width, Stride: a.Stride})
	return append(out, l[v.Axis+1:]...), nil
}
func (window) Inverse(graph.Layout) (graph.View, bool) { return nil, false }
func (v window) Lift() graph.View                      { return window{v.Axis + 1, v.Width} }

// TestRulesMoveNewViews applies hoist-view and sink-view to views graph
// does not define, checks the rewritten term against the one written by
// hand, and both against graph.Eval on the same inputs.
func TestRulesMoveNewViews(t *testing.T) {
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float64, 2, 3, 4), false)
	if err != nil {
		t.Fatal(err)
	}
	view := func(v graph.View, x graph.Node) graph.Node {
		n, err := graph.NewView(v, x)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	lam := func(name string, body func(*graph.Var) graph.Node) graph.Node {
		p := graph.NewVar(name)
		l, err := graph.NewLambda([]*graph.Var{p}, body(p))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	mapOf := func(fn, x graph.Node) graph.Node {
		n, err := graph.NewNZip(fn, x)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	double := graph.MustParseTerm(`\c -> map (*2) c`)
	sums := graph.MustParseTerm(`\w -> reduce (zip (+)) w`)
	for _, tc := range []struct {
		rule Rule
		term graph.Node
		want string
	}{
		// The view of each element's result is the lifted view of the
		// whole result.
		{HoistView{}, mapOf(lam("r", func(r *graph.Var) graph.Node { return view(moveLast{0}, mapOf(double, r)) }), A),
			`movelast 1 (map (\r -> map (\c -> map (*2) c) r) A)`},
		// The view of each element is the lifted view of the array.
		{SinkView{}, mapOf(lam("r", func(r *graph.Var) graph.Node { return mapOf(sums, view(window{0, 2}, r)) }), A),
			`map (\r -> map (\w -> reduce (zip (+)) w) r) (window 1 2 A)`},
	} {
		t.Run(tc.rule.Name(), func(t *testing.T) {
			c, err := newContext(tc.term)
			if err != nil {
				t.Fatal(err)
			}
			out, err := tc.rule.Rewrite(c, tc.term)
			if err != nil {
				t.Fatalf("%s: %v", graph.Print(tc.term), err)
			}
			if got := graph.Print(out); got != tc.want {
				t.Errorf("%s:\n got: %s\nwant: %s", graph.Print(tc.term), got, tc.want)
			}
			in := graphtest.Inputs(graphtest.Rand(3), []*graph.Input{A})
			before, err := graph.Eval(tc.term, in)
			if err != nil {
				t.Fatal(err)
			}
			after, err := graph.Eval(out, in)
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Diff(before, after, 0); err != nil {
				t.Error(err)
			}
		})
	}
}
