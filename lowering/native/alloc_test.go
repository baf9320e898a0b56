package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestMLPAllocs checks that a steady-state Run of the benchmark network
// allocates nothing, fused and unfused, sequential and parallel.
func TestMLPAllocs(t *testing.T) {
	for _, batch := range []int{1, 16} {
		for _, mode := range []string{"fused", "unfused"} {
			for _, par := range []int{1, 0} {
				name := fmt.Sprintf("batch=%d/mode=%s/parallelism=%d", batch, mode, par)
				t.Run(name, func(t *testing.T) {
					g, in := mlpGraph(t, batch, graph.Float32, mode)
					p, err := native.New(native.Options{Parallelism: par}).Plan(g)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					if a := allocs(t, p, in); a != 0 {
						t.Errorf("Run allocates %v times", a)
					}
				})
			}
		}
	}
}

// TestSuiteAllocs checks every program of the suite, whole and unfused,
// for allocations in Run.
func TestSuiteAllocs(t *testing.T) {
	insts, err := lowertest.Instances()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range insts {
		for _, split := range []string{"whole", "unfused"} {
			t.Run(c.Name+"/"+split, func(t *testing.T) {
				cut := fusion.Whole
				if split == "unfused" {
					cut = fusion.Unfused
				}
				g, err := cut(c.Term)
				if err != nil {
					t.Fatal(err)
				}
				info, _ := graph.Check(c.Term)
				in := inputsFor(g, info)
				p, err := native.New(native.Options{}).Plan(g)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if a := allocs(t, p, in); a != 0 {
					t.Errorf("Run allocates %v times\n%s", a, p.Describe())
				}
			})
		}
	}
}

func allocs(t *testing.T, p *native.Plan, in map[string]graph.Value) float64 {
	t.Helper()
	if _, err := p.Run(in); err != nil {
		t.Fatal(err)
	}
	return testing.AllocsPerRun(20, func() {
		if _, err := p.Run(in); err != nil {
			t.Fatal(err)
		}
	})
}
