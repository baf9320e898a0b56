package native

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// Every identity foldNeg applies gives the same bits as the term it
// replaces, in f32 and f64, on every pair of special and ordinary values
// (signed zeros, infinities, NaN, subnormals, values whose product or
// quotient rounds), by the interpreter; and the fold happens: the
// normal form has fewer negations. In i32, division keeps its negation.
func TestFoldNeg(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 3, -2.5, 1e-40, -1e-300, 1e38, -3e38, 1e308,
		math.Inf(1), math.Inf(-1), math.NaN(), 0.1, 1.0 / 3}
	n := len(vals)
	xs, ys := make([]float64, n*n), make([]float64, n*n)
	for i, a := range vals {
		for j, b := range vals {
			xs[i*n+j], ys[i*n+j] = a, b
		}
	}
	cases := []struct{ term, folded string }{
		{`-(-x)`, `x`},
		{`x + -y`, `x - y`},
		{`-x + y`, `y - x`},
		{`x - -y`, `x + y`},
		{`-(x * 3)`, `x * -3`},
		{`-(3 * x)`, `-3 * x`},
		{`-(x / 3)`, `x / -3`},
		{`-x * 0.1`, `x * -0.1`},
		{`0.1 * -x`, `-0.1 * x`},
		{`-x / 0.1`, `x / -0.1`},
		{`-(x * 0)`, `x * -0`},
		{`-(x / 0)`, `x / -0`},
		{`-(-(x * y) * 0.5) / 8192 + -(y * 3)`, `x * y * 0.5 / 8192 + y * -3`},
		{`-(-(x * y) * 0.5) / 8192 + -(y * x)`, `x * y * 0.5 / 8192 - y * x`},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		x, _ := graph.FromFloat64(xs, n*n)
		y, _ := graph.FromFloat64(ys, n*n)
		in := map[string]graph.Value{"x": x, "y": y}
		if dt == graph.Float32 {
			in = map[string]graph.Value{"x": toF32(x), "y": toF32(y)}
		}
		for _, c := range cases {
			prog, folded := foldedProgram(t, fmt.Sprintf(`x : %v[%d]; y : %v[%d]; zip (\x y -> %s) x y`, dt, n*n, dt, n*n, c.term))
			if got, want := lambdaBody(folded), c.folded; got != want {
				t.Errorf("%v %s folded to %s, want %s", dt, c.term, got, want)
			}
			want, err := graph.Eval(prog.Body, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := graph.Eval(folded, in)
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Exact(want, got); err != nil {
				t.Errorf("%v %s -> %s: %v", dt, c.term, c.folded, err)
			}
		}
	}

	prog, folded := foldedProgram(t, `x : i32[4]; map (\v -> -(v / 0)) x`)
	if folded != prog.Body {
		t.Errorf("i32 -(v / 0) folded to %s: -(x/0) = 1 but x/-0 = -1", graph.Print(folded))
	}
}

// foldedProgram parses src and folds its term's negations.
func foldedProgram(t *testing.T, src string) (*graph.Program, graph.Node) {
	t.Helper()
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	info, err := graph.Check(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	folded, err := foldNegs(prog.Body, info, map[graph.Node]graph.Node{})
	if err != nil {
		t.Fatal(err)
	}
	return prog, folded
}

// lambdaBody prints the body of the function of zip f x y.
func lambdaBody(n graph.Node) string {
	s := graph.Print(n.(*graph.NZip).Fn.(*graph.Lambda).Body)
	return strings.TrimSpace(s)
}

func toF32(a *graph.Array) *graph.Array {
	out, _ := graph.Zeros(graph.Float32, a.Extents()...)
	for i, v := range a.Values() {
		out.Set(v, i)
	}
	return out
}
