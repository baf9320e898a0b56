package xla_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestGoldensRunOnPJRT compiles every golden file of package stablehlo as
// it is on disk, runs it on random inputs and compares the results with
// graph.Eval's, within graph.ToleranceOf the result.
func TestGoldensRunOnPJRT(t *testing.T) {
	c := pjrttest.Client(t)
	for i, g := range lowertest.Goldens() {
		t.Run(g.File, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("..", "stablehlo", "testdata", g.File))
			if err != nil {
				t.Fatal(err)
			}
			term, kg, err := g.Graph()
			if err != nil {
				t.Fatal(err)
			}
			low, err := stablehlo.LowerGraph(kg)
			if err != nil {
				t.Fatal(err)
			}
			if low.Text != string(text) {
				t.Fatalf("%s is stale: run go test ./lowering/stablehlo/ -update", g.File)
			}
			exe, err := c.Compile(string(text))
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := lowertest.Inputs(term, uint64(i), 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			want, err := graph.Eval(term, inputs)
			if err != nil {
				t.Fatal(err)
			}
			args := make([]graph.Value, len(low.Params))
			for j, p := range low.Params {
				if len(p.Path) != 0 {
					t.Fatalf("tuple input %s", p.Buffer.Name)
				}
				args[j] = inputs[p.Buffer.Name]
			}
			outs, err := exe.Run(args...)
			if err != nil {
				t.Fatal(err)
			}
			got := graph.Value(graph.TupleValue(outs))
			if len(outs) == 1 {
				got = outs[0]
			}
			report(t, want, got)
		})
	}
}

// report compares got with want within graph.ToleranceOf want and logs
// the largest difference.
func report(t *testing.T, want, got graph.Value) {
	t.Helper()
	tol := graph.ToleranceOf(want)
	if err := graph.Diff(want, got, tol); err != nil {
		t.Errorf("result differs from graph.Eval's (tolerance %g): %v", tol, err)
		return
	}
	if d, err := graph.MaxAbsDiff(want, got); err == nil {
		t.Logf("max |PJRT - Eval| = %.3g (tolerance %g)", d, tol)
	}
}

// modes are the ways TestStridedInputs runs its term: one executable for
// the fused graph; one executable for the unfused graph (XLA may fuse
// across its kernels); one executable per kernel of the unfused graph.
var modes = []struct {
	name      string
	partition func(graph.Node) (*fusion.Graph, error)
	opt       xla.Options
}{
	{"whole", fusion.Whole, xla.Options{}},
	{"unfused-module", fusion.Unfused, xla.Options{}},
	{"unfused-per-kernel", fusion.Unfused, xla.Options{PerKernel: true}},
}

// executables are the PJRT back end's two ways of compiling a kernel
// graph: one executable for the whole graph, and one per kernel.
// Each runs the suite's cuts that matter to it (compiling on PJRT is
// slow): one module of the fused graph and of the whole term; one
// executable per kernel of the fused and of the unfused graph.
var executables = []struct {
	name  string
	opt   xla.Options
	modes []string
}{
	{"module", xla.Options{}, []string{"fused", "scheduled", "whole"}},
	{"per-kernel", xla.Options{PerKernel: true}, []string{"fused", "unfused"}},
}

// suiteModes returns the suite's modes of those names.
func suiteModes(names []string) []lowertest.Mode {
	var out []lowertest.Mode
	for _, m := range lowertest.Modes() {
		if slices.Contains(names, m.Name) {
			out = append(out, m)
		}
	}
	return out
}

// rejects are the suite's instances the StableHLO lowering documents it
// cannot take, with the error it must give: reduce needs an associative
// operator it can apply as a tree; a non-associative fold has no lowering.
var rejects = map[string]string{
	"reduce/general":        "unsupported: reduction operator",
	"reduce/general-arrays": "unsupported: reduction operator",
}

// TestSuite runs the back-end suite on PJRT, as one executable and one
// per kernel (see executables).
func TestSuite(t *testing.T) {
	c := pjrttest.Client(t)
	for _, e := range executables {
		t.Run(e.name, func(t *testing.T) {
			lowertest.Run(t, xla.New(c, e.opt), lowertest.Options{Modes: suiteModes(e.modes), Short: testing.Short(), Rejects: rejects})
		})
	}
}

// TestStridedInputs binds inputs that are non-contiguous views (a flipped
// buffer, a subdivided and flipped one): they travel densely, in the
// logical order of their axes.
func TestStridedInputs(t *testing.T) {
	c := pjrttest.Client(t)
	A, _ := graph.NewInput("A", graph.ArrayOf(graph.Float64, 5, 6), false)
	u, _ := graph.NewInput("u", graph.ArrayOf(graph.Float64, 6), false)
	term := graph.MustParseTerm(`map (\r -> rnz (+) (*) r u) A`, A, u)
	r := graphtest.Rand(7)
	base, _ := graph.RandomArray(r, graph.Float64, 6, 5)
	av, err := base.Flip(0, 1) // a 5x6 view with strides (1, 5)
	if err != nil {
		t.Fatal(err)
	}
	ubase, _ := graph.RandomArray(r, graph.Float64, 3, 2)
	uv, err := ubase.Flip(0, 1) // [2,3], then flatten is not legal: copy through a 6-vector view instead
	if err != nil {
		t.Fatal(err)
	}
	uflat, _ := graph.FromFloat64(uv.Values(), 6)
	inputs := map[string]graph.Value{"A": av, "u": uflat}
	want, err := graph.Eval(term, inputs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		g, err := m.partition(term)
		if err != nil {
			t.Fatal(err)
		}
		x, err := xla.New(c, m.opt).Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Run(inputs)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		report(t, want, got)
	}
}

var randomPrograms = flag.Int("random", 20, "seeds of each generator TestPipeline runs (each fused and unfused, as one executable and per kernel)")

// TestPipeline is the pipeline law test on PJRT: random programs of every
// graphtest generator, fused by fusion.Fuse (and unfused), compiled as one
// executable and per kernel, must equal graph.Eval. Any error fails, and
// fewer programs than the floor compared equal fails.
func TestPipeline(t *testing.T) {
	c := pjrttest.Client(t)
	n := *randomPrograms
	if testing.Short() {
		n = min(n, 6)
	}
	modes := []lowertest.Mode{{Name: "fused", Cut: lowertest.Fused}, {Name: "scheduled", Cut: lowertest.Scheduled}, {Name: "unfused", Cut: fusion.Unfused}}
	for _, e := range executables {
		t.Run(e.name, func(t *testing.T) {
			lowertest.RunPipeline(t, xla.New(c, e.opt), lowertest.PipelineOptions{Seeds: n, Modes: modes})
		})
	}
}

// TestRunErrors: inputs that are missing, extra or of the wrong shape are
// errors that name them.
func TestRunErrors(t *testing.T) {
	c := pjrttest.Client(t)
	A, _ := graph.NewInput("A", graph.ArrayOf(graph.Float32, 2, 3), false)
	u, _ := graph.NewInput("u", graph.ArrayOf(graph.Float32, 3), false)
	term := graph.MustParseTerm(`map (\r -> rnz (+) (*) r u) A`, A, u)
	g, err := fusion.Whole(term)
	if err != nil {
		t.Fatal(err)
	}
	x, err := xla.New(c, xla.Options{}).Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := graph.Zeros(graph.Float32, 2, 3)
	v, _ := graph.Zeros(graph.Float32, 3)
	w, _ := graph.Zeros(graph.Float64, 3)
	for _, tc := range []struct {
		inputs map[string]graph.Value
		want   string
	}{
		{map[string]graph.Value{"A": a}, "input u (f32[3]) is not bound"},
		{map[string]graph.Value{"A": a, "u": v, "z": v}, "z bound, but the program has no such input"},
		{map[string]graph.Value{"A": a, "u": w}, "input u needs f32[3], got f64[3]"},
		{map[string]graph.Value{"A": v, "u": v}, "input A needs f32[2,3], got f32[3]"},
	} {
		_, err := x.Run(tc.inputs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got error %v, want one containing %q", err, tc.want)
		}
	}
	x.Close()
	if _, err := x.Run(map[string]graph.Value{"A": a, "u": v}); err == nil {
		t.Error("Run after Close succeeded")
	}
}

// TestName: the back end names its platform.
func TestName(t *testing.T) {
	c := pjrttest.Client(t)
	if got, want := xla.New(c, xla.Options{}).Name(), "pjrt-"+c.Platform(); got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	_ = pjrt.ErrClosed
}

// TestFallbackOnPJRT: a kernel the StableHLO lowering rejects (built
// directly: a reduction operator that computes both components of a tuple
// accumulator in one traversal) falls back to its unfused form, in both
// modes; the executable says which kernel and why, and computes the right
// value: the column sums of x and the column maxima of y.
func TestFallbackOnPJRT(t *testing.T) {
	c := pjrttest.Client(t)
	prog, err := graph.Parse(`x : f64[5,3]; y : f64[5,3];
		rnz (\p q -> nzip (\a b c d -> (a + b, max c d)) (fst p) (fst q) (snd p) (snd q)) (\a b -> (a, b)) x y`)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 5, 3)
	y, _ := graph.FromFloat64([]float64{3, -1, 0, 9, 2, 1, -5, 7, 4, 0, 0, 8, 1, 1, 1}, 5, 3)
	sums, _ := graph.FromFloat64([]float64{35, 40, 45}, 3)
	maxs, _ := graph.FromFloat64([]float64{9, 7, 8}, 3)
	for _, e := range executables {
		t.Run(e.name, func(t *testing.T) {
			exe, err := xla.New(c, e.opt).CompileGraph(g)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			fbs := exe.Stats().Fallbacks
			if len(fbs) != 1 || fbs[0].Kernel != "k1_kernel" || !strings.Contains(fbs[0].Reason, "unsupported: reduction operator") {
				t.Errorf("fallbacks %v, want one for k1_kernel naming the reduction operator", fbs)
			}
			if d := exe.Describe(); !strings.Contains(d, "fallback: kernel k1_kernel fell back to 1 unfused kernels") {
				t.Errorf("Describe does not report the fallback:\n%s", d)
			}
			got, err := exe.Run(map[string]graph.Value{"x": x, "y": y})
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Diff(graph.TupleValue{sums, maxs}, got, 0); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestProductRuleProgram: issue 8's item 3 program, fused by fusion.Fuse
// (whose product rule may pair the reduction operators), runs on PJRT and
// equals graph.Eval.
func TestProductRuleProgram(t *testing.T) {
	c := pjrttest.Client(t)
	prog, err := graph.Parse(`x : f64[5,3]; y : f64[5,3];
		rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fusion.Fuse(prog.Body, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := lowertest.Inputs(prog.Body, 3, 0, lowertest.Dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range executables {
		t.Run(e.name, func(t *testing.T) {
			lowertest.Check(t, xla.New(c, e.opt), res.Graph, prog.Body, in, 0)
		})
	}
}
