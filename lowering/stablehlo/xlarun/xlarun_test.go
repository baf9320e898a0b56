package xlarun_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/stablehlo/stablehlotest"
	"github.com/hofuse/hofuse/lowering/stablehlo/xlarun"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestGoldensRunOnPJRT compiles every golden file of package stablehlo as
// it is on disk, runs it on random inputs and compares the results with
// graph.Eval's, within stablehlotest.Tol.
func TestGoldensRunOnPJRT(t *testing.T) {
	c := pjrttest.Client(t)
	for i, g := range stablehlotest.Goldens() {
		t.Run(g.File, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("..", "testdata", g.File))
			if err != nil {
				t.Fatal(err)
			}
			term, low, err := g.Lower()
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
			inputs, err := stablehlotest.Inputs(graphtest.Rand(uint64(i)), term)
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
			report(t, g.DType, want, got)
		})
	}
}

// report compares got with want within the tolerance of dt and logs the
// largest difference.
func report(t *testing.T, dt graph.DType, want, got graph.Value) {
	t.Helper()
	tol := stablehlotest.Tol(dt)
	if err := graph.Diff(want, got, tol); err != nil {
		t.Errorf("result differs from graph.Eval's (tolerance %g): %v", tol, err)
		return
	}
	if d, err := graph.MaxAbsDiff(want, got); err == nil {
		t.Logf("max |PJRT - Eval| = %.3g (tolerance %g)", d, tol)
	}
}

// modes are the ways the suite runs each term: one executable for the
// fused graph; one executable for the unfused graph (XLA may fuse across
// its kernels); one executable per kernel of the unfused graph.
var modes = []struct {
	name      string
	partition func(graph.Node) (*fusion.Graph, error)
	opt       xlarun.Options
}{
	{"whole", fusion.Whole, xlarun.Options{}},
	{"unfused-module", fusion.Unfused, xlarun.Options{}},
	{"unfused-per-kernel", fusion.Unfused, xlarun.Options{PerKernel: true}},
}

// TestSuite runs every case of stablehlotest, in f32 and f64, in every
// mode, and compares with graph.Eval.
func TestSuite(t *testing.T) {
	c := pjrttest.Client(t)
	for ci, tc := range stablehlotest.Cases() {
		for _, dt := range stablehlotest.DTypes {
			term, err := tc.Term(dt)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.Name, dt, err)
			}
			inputs, err := stablehlotest.Inputs(graphtest.Rand(uint64(ci)), term)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.Name, dt, err)
			}
			want, err := graph.Eval(term, inputs)
			if err != nil {
				t.Fatalf("%s %v: eval: %v", tc.Name, dt, err)
			}
			for _, m := range modes {
				t.Run(fmt.Sprintf("%s/%v/%s", tc.Name, dt, m.name), func(t *testing.T) {
					g, err := m.partition(term)
					if err != nil {
						t.Fatalf("partition: %v", err)
					}
					x, err := xlarun.New(c, m.opt).CompileGraph(g)
					if err != nil {
						t.Fatal(err)
					}
					defer x.Close()
					got, err := x.Run(inputs)
					if err != nil {
						t.Fatal(err)
					}
					report(t, dt, want, got)
					if s := x.Stats(); m.opt.PerKernel && s.Executables != len(g.Kernels) {
						t.Errorf("%d executables for %d kernels", s.Executables, len(g.Kernels))
					}
				})
			}
		}
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
		x, err := xlarun.New(c, m.opt).Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Run(inputs)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		report(t, graph.Float64, want, got)
	}
}

var randomPrograms = flag.Int("random", 30, "number of random programs TestRandomPrograms runs (each in f32 and f64, in every mode)")

// TestRandomPrograms lowers random well-typed programs of graphtest and
// compares PJRT with graph.Eval. Programs with a construct the lowering
// does not support (stablehlo.ErrUnsupported) are counted, not failed.
func TestRandomPrograms(t *testing.T) {
	c := pjrttest.Client(t)
	n := *randomPrograms
	if testing.Short() {
		n = min(n, 10)
	}
	unsupported := map[string]int{}
	ran := 0
	for _, gen := range graphtest.Generators() {
		for seed := range n / len(graphtest.Generators()) {
			for _, dt := range stablehlotest.DTypes {
				r := graphtest.Rand(uint64(seed))
				term, ins := gen.Gen(r, graphtest.Config{DType: dt})
				inputs := graphtest.Inputs(r, ins)
				want, err := graph.Eval(term, inputs)
				if err != nil {
					t.Fatalf("%s seed %d: eval: %v", gen.Name, seed, err)
				}
				for _, m := range modes {
					g, err := m.partition(term)
					if err != nil {
						// Not the lowering's business: fusion.Unfused cuts
						// literal-only arithmetic (1 + 0.25 * 0.25) into a
						// kernel of type f64 that an f32 context then reads.
						unsupported["partition: "+err.Error()]++
						continue
					}
					x, err := xlarun.New(c, m.opt).Compile(g)
					if errors.Is(err, stablehlo.ErrUnsupported) {
						msg := err.Error()
						if i := strings.Index(msg, "unsupported: "); i >= 0 {
							msg = msg[i:]
						}
						unsupported[msg]++
						continue
					}
					if err != nil {
						t.Fatalf("%s seed %d %v %s: %v\nterm: %s", gen.Name, seed, dt, m.name, err, graph.Print(term))
					}
					// The partition may drop inputs that only dead code reads.
					used := map[string]graph.Value{}
					for _, in := range g.Inputs {
						used[in.Name] = inputs[in.Name]
					}
					got, err := x.Run(used)
					if err != nil {
						t.Fatalf("%s seed %d %v %s: run: %v\nterm: %s", gen.Name, seed, dt, m.name, err, graph.Print(term))
					}
					ran++
					if err := graph.Diff(want, got, stablehlotest.Tol(dt)); err != nil {
						t.Errorf("%s seed %d %v %s: %v\nterm: %s", gen.Name, seed, dt, m.name, err, graph.Print(term))
					}
				}
			}
		}
	}
	t.Logf("%d runs matched graph.Eval", ran)
	for msg, k := range unsupported {
		t.Logf("skipped %d: %s", k, msg)
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
	x, err := xlarun.New(c, xlarun.Options{}).Compile(g)
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
	if got, want := xlarun.New(c, xlarun.Options{}).Name(), "pjrt-"+c.Platform(); got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	_ = pjrt.ErrClosed
}
