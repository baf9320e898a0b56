package nd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// TestSlice checks Slice on a vector 0..6 and a 2×7 matrix, by hand: plain
// crops, steps whose last block runs past the axis (padded, never read),
// one element by a negative step, and the refusals.
func TestSlice(t *testing.T) {
	v, err := graph.NewInput("v", graph.ArrayOf(graph.Float64, 7), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := graph.NewInput("m", graph.ArrayOf(graph.Float64, 2, 7), false)
	if err != nil {
		t.Fatal(err)
	}
	vv, _ := graph.Zeros(graph.Float64, 7)
	mv, _ := graph.Zeros(graph.Float64, 2, 7)
	for i := range 7 {
		vv.Set(float64(i), i)
		mv.Set(float64(i), 0, i)
		mv.Set(float64(10+i), 1, i)
	}
	vals := map[graph.Node]map[string]graph.Value{v: {"v": vv}, m: {"m": mv}}
	for _, c := range []struct {
		x                        graph.Node
		axis, start, step, count int
		want                     string
	}{
		{v, 0, 0, 1, 7, "[0 1 2 3 4 5 6]"},
		{v, 0, 2, 1, 3, "[2 3 4]"},
		{v, 0, 1, 3, 2, "[1 4]"},
		{v, 0, 2, 4, 2, "[2 6]"},
		{v, 0, 0, 3, 3, "[0 3 6]"},
		{v, -1, 5, -2, 1, "[5]"},
		{m, 1, 1, 2, 3, "[1 3 5 11 13 15]"},
		{m, 0, 1, 1, 1, "[10 11 12 13 14 15 16]"},
		{v, 0, 0, -1, 2, "nd.Slice: step -1 on axis 0 is not supported: the IR has no view that reverses an axis"},
		{v, 0, 7, 1, 1, "nd.Slice: start 7 is outside axis 0 (extent 7)"},
		{v, 0, 2, 3, 3, "nd.Slice: 3 elements from 2 by steps of 3 run past axis 0 (extent 7)"},
		{v, 0, 0, 1, 0, "nd.Slice: the slice of axis 0 (extent 7) is empty"},
		{v, 1, 0, 1, 1, "nd.Slice: axis 1 is out of range for rank 1"},
	} {
		name := fmt.Sprintf("axis %d start %d step %d count %d", c.axis, c.start, c.step, c.count)
		y, err := nd.Slice(c.x, c.axis, c.start, c.step, c.count)
		if err != nil {
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s: error %q, want %q", name, err, c.want)
			}
			continue
		}
		got, err := graph.Eval(y, vals[c.x])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := fmt.Sprint(got.(*graph.Array).Values()); s != c.want {
			t.Errorf("%s: %s, want %s", name, s, c.want)
		}
	}
}
