package autodiff

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// PJRT runs the fused gradient of a dense layer's loss, as one executable
// and one per kernel, and agrees with the interpreter. Without a PJRT
// plugin the test is skipped (failed under HOFUSE_REQUIRE_PJRT=1).
func TestGradOnPJRT(t *testing.T) {
	client := pjrttest.Client(t)
	in, want, res := fusedDenseGrad(t)
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
