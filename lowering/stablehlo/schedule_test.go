package stablehlo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// A kernel the schedule pass reordered into a form this lowering cannot
// take is an error that names the kernel and its order: the map over the
// rows of A around a reduction by a general lambda becomes, exchanged, a
// reduction by that lambda lifted over rows, which StableHLO's reduce
// does not take.
func TestScheduledKernelErrorsNameOrder(t *testing.T) {
	prog, err := graph.Parse(`A : f32[6,4]; map (\a -> rnz (\x y -> x * 0.5 + y) id a) A`)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	err = fusion.ScheduleGraph(g, fusion.ScheduleOptions{MinCost: -1,
		Choose: func(_ *fusion.Kernel, orders []*fusion.ScheduleCandidate) int { return len(orders) - 1 }})
	if err != nil {
		t.Fatal(err)
	}
	s := g.Kernels[0].Schedule
	if !s.Changed {
		t.Fatalf("the pass kept the written order: %v", s)
	}
	_, err = stablehlo.Module(g)
	want := "stablehlo: kernel k1_kernel (scheduled rnz mapA, written mapA rnz): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, stablehlo.ErrUnsupported) {
		t.Fatalf("error\n got: %v\nwant: %s... wrapping ErrUnsupported", err, want)
	}
}
