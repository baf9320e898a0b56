package autodiff

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// PJRT runs the fused gradient of a dense layer's loss, as one executable
// and one per kernel, and agrees with the interpreter. Without a PJRT
// plugin the test is skipped (failed under HOFUSE_REQUIRE_PJRT=1).
func TestGradOnPJRT(t *testing.T) {
	client := pjrttest.Client(t)
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
		t.Fatal(err)
	}
	for _, perKernel := range []bool{false, true} {
		exe, err := xla.New(client, xla.Options{PerKernel: perKernel}).Compile(res.Graph)
		if err != nil {
			t.Fatalf("per-kernel %v: compile: %v", perKernel, err)
		}
		got, err := exe.Run(in)
		if err != nil {
			t.Fatalf("per-kernel %v: run: %v", perKernel, err)
		}
		if err := graph.Diff(want, got, 1e-12); err != nil {
			t.Errorf("per-kernel %v: %v", perKernel, err)
		}
		exe.Close()
	}
}
