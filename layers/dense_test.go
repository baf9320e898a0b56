package layers_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// refDense is y = x W + b, row by row, in float64.
func refDense(x, w, b []float64, batch, in, out int) []float64 {
	y := make([]float64, batch*out)
	for i := range batch {
		for j := range out {
			s := b[j]
			for k := range in {
				s += x[i*in+k] * w[k*out+j]
			}
			y[i*out+j] = s
		}
	}
	return y
}

func TestDense(t *testing.T) {
	sizes := []struct{ batch, in, out int }{
		{3, 5, 7},
		{1, 1, 1},
		{4, 6, 3},
		{2, 13, 1},
	}
	for _, dt := range dtypes {
		for si, sz := range sizes {
			t.Run(fmt.Sprintf("%v/%dx%d->%d", dt, sz.batch, sz.in, sz.out), func(t *testing.T) {
				r := rng(uint64(si))
				x := input(t, dt, sz.batch, sz.in)
				y, p, err := layers.Dense("dense1", x, sz.in, sz.out, dt)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := check(t, y).String(), fmt.Sprintf("%v[%d,%d]", dt, sz.batch, sz.out); got != want {
					t.Errorf("type %s, want %s", got, want)
				}
				if p.W.Name != "dense1.W" || p.B.Name != "dense1.b" || !p.W.Param || !p.B.Param {
					t.Errorf("params %s (param %v), %s (param %v)", p.W.Name, p.W.Param, p.B.Name, p.B.Param)
				}
				xv := uniform(r, dt, sz.batch*sz.in, -1, 1)
				wv := uniform(r, dt, sz.in*sz.out, -1, 1)
				bv := uniform(r, dt, sz.out, -1, 1)
				got := eval(t, y, map[string]graph.Value{
					"x":        array(t, dt, xv, sz.batch, sz.in),
					"dense1.W": array(t, dt, wv, sz.in, sz.out),
					"dense1.b": array(t, dt, bv, sz.out),
				}, dt, sz.batch, sz.out)
				assertClose(t, dt, got, refDense(xv, wv, bv, sz.batch, sz.in, sz.out))
			})
		}
	}
}

func TestDenseTerm(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	y, _, err := layers.Dense("dense1", x, 5, 7, graph.Float32)
	if err != nil {
		t.Fatal(err)
	}
	want := `map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x`
	if got := graph.Print(y); got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	assertSources(t, y, "dense1")
}

func TestDenseErrors(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	x3 := input(t, graph.Float32, 3, 5, 2)
	s, err := graph.NewInput("s", graph.Scalar(graph.Float32), false)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := graph.NewNZip(graph.NewIdent(), x, x3) // id applied to two arguments: ill-typed
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		x       graph.Node
		in, out int
		dt      graph.DType
		want    string
	}{
		{"dense1", x, 4, 7, graph.Float32, "dense1 (Dense): x has type f32[3,5], want f32[batch,4]: axis 1 (in) has extent 5, not 4"},
		{"dense1", x, 5, 7, graph.Float64, "dense1 (Dense): x has type f32[3,5], want f64[batch,5]: element type f32 is not the layer's f64"},
		{"dense1", x3, 5, 7, graph.Float32, "dense1 (Dense): x has type f32[3,5,2] of rank 3, want rank 2: f32[batch,5]"},
		{"dense1", s, 5, 7, graph.Float32, "dense1 (Dense): x has type f32, want an array f32[batch,5]"},
		{"dense1", nil, 5, 7, graph.Float32, "dense1 (Dense): x is nil"},
		{"dense1", x, 0, 7, graph.Float32, "dense1 (Dense): in = 0, want at least 1"},
		{"dense1", x, 5, -2, graph.Float32, "dense1 (Dense): out = -2, want at least 1"},
		{"dense1", x, 9223372036854775807, 2, graph.Float32, "dense1 (Dense): in = 9223372036854775807, past the cap of 1099511627776 (graph.MaxExtent)"},
		{"dense1", x, 5, 1 << 40, graph.Float32, "dense1 (Dense): parameter W: input dense1.W: layout: more than 1099511627776 elements (graph.MaxElements) by axis 1 in layout <(5,1099511627776),(1099511627776,1)>"},
		{"dense1", x, 5, 7, graph.Int32, "dense1 (Dense): element type i32 is not f32 or f64"},
		{"dense1", x, 5, 7, graph.Invalid, "dense1 (Dense): element type invalid is not f32 or f64"},
		{"", x, 5, 7, graph.Float32, "Dense: empty layer name"},
		{"dense1", bad, 5, 7, graph.Float32, "dense1 (Dense): x is ill-typed: " + mustCheckErr(t, bad)},
	}
	for _, tc := range tests {
		y, p, err := layers.Dense(tc.name, tc.x, tc.in, tc.out, tc.dt)
		assertError(t, err, tc.want)
		if y != nil || p != nil {
			t.Errorf("%s: got a term or params along with the error", tc.want)
		}
		var le *layers.Error
		if !errors.As(err, &le) || le.Kind != "Dense" || le.Layer != tc.name {
			t.Errorf("%v: not a *layers.Error for Dense layer %q", err, tc.name)
		}
	}
	// The checker's error stays reachable.
	_, _, err = layers.Dense("dense1", bad, 5, 7, graph.Float32)
	var ge *graph.Error
	if !errors.As(err, &ge) {
		t.Errorf("%v does not wrap the *graph.Error", err)
	}
}

// mustCheckErr returns the message graph.Check gives for the ill-typed n.
func mustCheckErr(t *testing.T, n graph.Node) string {
	t.Helper()
	_, err := graph.Check(n)
	if err == nil {
		t.Fatalf("%s type-checks", graph.Print(n))
	}
	return err.Error()
}
