package autodiff

import (
	"math"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// parse reads a program with its input declarations.
func parse(t *testing.T, src string) *graph.Program {
	t.Helper()
	p, err := graph.Parse(src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return p
}

// input returns the declared input of p named name.
func input(t *testing.T, p *graph.Program, name string) *graph.Input {
	t.Helper()
	for _, in := range p.Inputs {
		if in.Name == name {
			return in
		}
	}
	t.Fatalf("no input %s", name)
	return nil
}

// gradOf differentiates p's body with respect to the named inputs and
// evaluates the result on in: the loss and one flat gradient per name.
func gradOf(t *testing.T, p *graph.Program, in map[string]graph.Value, names ...string) (float64, [][]float64) {
	t.Helper()
	wrt := make([]*graph.Input, len(names))
	for i, n := range names {
		wrt[i] = input(t, p, n)
	}
	g, err := Grad(p.Body, wrt)
	if err != nil {
		t.Fatalf("Grad: %v", err)
	}
	v, err := graph.Eval(g, in)
	if err != nil {
		t.Fatalf("eval of the gradient term: %v\n%s", err, graph.Print(g))
	}
	tv := v.(graph.TupleValue)
	loss := tv[0].(graph.ScalarValue).V
	grads := make([][]float64, len(names))
	for i := range names {
		if a, ok := tv[i+1].(*graph.Array); ok {
			want := wrt[i].Type.(*graph.ArrayType).Layout.Extents()
			if !slices.Equal(a.Extents(), want) {
				t.Errorf("gradient of %s has extents %v, want %v", names[i], a.Extents(), want)
			}
		}
		grads[i] = flat(t, tv[i+1])
	}
	return loss, grads
}

// flat returns the elements of a scalar or array value in row-major order.
func flat(t *testing.T, v graph.Value) []float64 {
	t.Helper()
	switch v := v.(type) {
	case graph.ScalarValue:
		return []float64{v.V}
	case *graph.Array:
		c, err := v.CopyTo(graph.RowMajor(v.Extents()...))
		if err != nil {
			t.Fatal(err)
		}
		if c.DType() == graph.Float32 {
			out := make([]float64, c.Size())
			for i, x := range c.Float32s() {
				out[i] = float64(x)
			}
			return out
		}
		return append([]float64(nil), c.Float64s()...)
	}
	t.Fatalf("value %v is not a scalar or array", v)
	return nil
}

func arr(t *testing.T, data []float64, extents ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(append([]float64(nil), data...), extents...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// near reports whether got and want agree within rel relative (absolute
// near zero).
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

func checkVec(t *testing.T, what string, got, want []float64, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], rel) {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}
