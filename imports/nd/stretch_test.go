package nd_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// TestStretch stretches x [2, 1, 3] to [4, 2, 2, 3] (a new leading axis
// and the axis of extent 1 stretched) and checks every element against
// numpy.broadcast_to's, written out; an axis that is not 1 refuses.
func TestStretch(t *testing.T) {
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 2, 1, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	y, err := nd.Stretch(x, []int{4, 2, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	xv, err := graph.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	a, bind := evalOn(t, y, xv)
	block := []float32{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}
	var want []float32
	for range 4 {
		want = append(want, block...)
	}
	if !slices.Equal(a.Extents(), []int{4, 2, 2, 3}) || !slices.Equal(a.Float32s(), want) {
		t.Errorf("got %v %v, want [4 2 2 3] %v", a.Extents(), a.Float32s(), want)
	}
	runNative(t, y, bind)
	if _, err := nd.Stretch(x, []int{3, 1, 3}); err == nil || !strings.Contains(err.Error(), "axis 0 of x [2,1,3] has extent 2, which does not stretch to 3") {
		t.Errorf("stretching axis 0 from 2 to 3: %v", err)
	}
}

// TestTileRepeat checks Tile and Repeat of x = [[1, 2], [3, 4]] by counts
// [2, 3] against numpy.tile's and numpy.repeat's results, written out.
func TestTileRepeat(t *testing.T) {
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 2, 2), false)
	if err != nil {
		t.Fatal(err)
	}
	xv, err := graph.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func(graph.Node, []int) (graph.Node, error)
		want []float32
	}{
		{"Tile", nd.Tile, []float32{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}},
		{"Repeat", nd.Repeat, []float32{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}},
	} {
		y, err := c.f(x, []int{2, 3})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := evalOn(t, y, xv)
		if !slices.Equal(a.Extents(), []int{4, 6}) || !slices.Equal(a.Float32s(), c.want) {
			t.Errorf("%s: got %v %v, want [4 6] %v", c.name, a.Extents(), a.Float32s(), c.want)
		}
	}
	if _, err := nd.Repeat(x, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "count 0 for axis 0 of extent 2") {
		t.Errorf("a count of 0: %v", err)
	}
}

// evalOn evaluates y with its input x bound to xv and its index inputs
// bound, and returns the array and the bindings.
func evalOn(t *testing.T, y graph.Node, xv *graph.Array) (*graph.Array, map[string]graph.Value) {
	t.Helper()
	bind := map[string]graph.Value{"x": xv}
	if err := nd.BindIndexes(y, bind); err != nil {
		t.Fatal(err)
	}
	got, err := graph.Eval(y, bind)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := got.(*graph.Array)
	if !ok {
		t.Fatalf("%s, want an array", graph.DescribeValue(got))
	}
	return a, bind
}
