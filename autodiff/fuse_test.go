package autodiff

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/native"
)

// fusedDenseGrad returns the gradient term of a dense layer's squared
// error with respect to W, b and X, fused, with random inputs and the
// interpreter's value of the unfused term on them.
func fusedDenseGrad(t *testing.T) (map[string]graph.Value, graph.Value, *fusion.Result) {
	t.Helper()
	p := parse(t, `X : f64[8,6]; W : f64[6,4]; b : f64[4]; T : f64[8,4];
		rnz (+) (\y t -> rnz (+) (\a c -> (a - c) * (a - c)) y t)
		  (map (\x -> zip (\c bj -> max (rnz (+) (*) x c + bj) 0) (flip 0 W) b) X) T`)
	g, err := Grad(p.Body, []*graph.Input{input(t, p, "W"), input(t, p, "b"), input(t, p, "X")})
	if err != nil {
		t.Fatal(err)
	}
	in := graphtest.Inputs(graphtest.Rand(1), p.Inputs)
	want, err := graph.Eval(g, in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fusion.Fuse(g, fusion.Options{})
	if err != nil {
		t.Fatalf("Fuse of the gradient term: %v", err)
	}
	return in, want, res
}

// The gradient term is an ordinary term: the fusion pass fuses the
// gradient of a dense layer's loss (forward and backward together), and
// its kernels, evaluated and run by the native back end, compute what the
// interpreter computes on the unfused term.
func TestGradFuses(t *testing.T) {
	in, want, res := fusedDenseGrad(t)
	got, err := res.Graph.Eval(in)
	if err != nil {
		t.Fatalf("evaluating the fused kernels: %v", err)
	}
	// Fusion may regroup sums; the tolerance allows for rounding only.
	graphtest.Compare(t, want, got, 1e-12)
	// The native back end runs the fused gradient term.
	plan, err := native.New(native.Options{}).Plan(res.Graph)
	if err != nil {
		t.Fatalf("native plan of the fused gradient term: %v", err)
	}
	defer plan.Close()
	nat, err := plan.Run(in)
	if err != nil {
		t.Fatalf("native run of the fused gradient term: %v", err)
	}
	graphtest.Compare(t, want, nat, 1e-12)
	t.Logf("kernels: %d before fusion, %d after", res.Report.KernelsBefore, len(res.Graph.Kernels))
}

// The gradients of the paper's examples with random extents (graphtest's
// MatVec, MatMul and Dense, made scalar by a sum of squares) fuse, and the
// fused kernels, evaluated and run by the native back end, compute what the
// interpreter computes on the gradient term.
func TestGradFusesGenerated(t *testing.T) {
	n := 0
	for _, gen := range graphtest.Generators() {
		switch gen.Name {
		case "MatVec", "MatMul", "Dense":
		default:
			continue
		}
		for seed := range uint64(5) {
			r := graphtest.Rand(seed)
			prog, ins := gen.Gen(r, graphtest.Config{DType: graph.Float64})
			in := graphtest.Inputs(r, ins)
			g, err := Grad(sumOfSquares(t, prog), ins)
			if err != nil {
				t.Fatalf("%s seed %d: %v", gen.Name, seed, err)
			}
			want, err := graph.Eval(g, in)
			if err != nil {
				t.Fatalf("%s seed %d: %v", gen.Name, seed, err)
			}
			res, err := fusion.Fuse(g, fusion.Options{})
			if err != nil {
				t.Errorf("%s seed %d: Fuse of the gradient term: %v", gen.Name, seed, err)
				continue
			}
			got, err := res.Graph.Eval(in)
			if err != nil {
				t.Errorf("%s seed %d: evaluating the fused kernels: %v", gen.Name, seed, err)
				continue
			}
			if err := graph.Diff(want, got, 1e-12); err != nil {
				t.Errorf("%s seed %d: fused gradient differs: %v", gen.Name, seed, err)
			}
			plan, err := native.New(native.Options{}).Plan(res.Graph)
			if err != nil {
				t.Errorf("%s seed %d: native plan of the fused gradient term: %v", gen.Name, seed, err)
				continue
			}
			nat, err := plan.Run(in)
			plan.Close()
			if err != nil {
				t.Errorf("%s seed %d: native run of the fused gradient term: %v", gen.Name, seed, err)
				continue
			}
			if err := graph.Diff(want, nat, 1e-12); err != nil {
				t.Errorf("%s seed %d: native gradient differs: %v", gen.Name, seed, err)
			}
			n++
		}
	}
	if n != 15 {
		t.Errorf("checked %d gradient terms, want 15", n)
	}
}
