package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/lowering/native"
)

// A kernel the schedule pass reordered is named with its order in the
// plan's errors, so that a schedule this back end cannot run is reported
// as that schedule, never run in another order.
func TestScheduledKernelErrorsNameOrder(t *testing.T) {
	_, g := parseWhole(t, `A : f64[64,64]; B : f64[64,64]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
	if err := fusion.ScheduleGraph(g, fusion.ScheduleOptions{NoGEMM: true, Blocks: []int{16}, MinCost: -1}); err != nil {
		t.Fatal(err)
	}
	s := g.Kernels[0].Schedule
	if !s.Changed {
		t.Fatalf("the pass kept the written order: %v", s)
	}
	// The two inputs' private copies fit; the kernel's result does not.
	_, err := native.New(native.Options{Parallelism: 1, NoGEMM: true, MaxMemory: 2*64*64*8 + 100}).Plan(g)
	want := "native: kernel k1_kernel (scheduled " + s.Order + ", written mapA mapB rnz) with the buffers before it needs"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error\n got: %v\nwant: %s...", err, want)
	}
}
