package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestEdgeCases runs graphtest's edge-case table on the native back end,
// sequential and parallel, fused (fusion.Fuse) and unfused, and compares
// bit for bit with the results graph's scalar semantics define: NaN
// through max, min and their reductions, signed zeros, relu(-0), i32
// wrapping and division, conversions of NaN and out-of-range values. The
// table's large reductions must run split over goroutines in the parallel
// mode (the plan's description says so; it does not mark parallel maps).
func TestEdgeCases(t *testing.T) {
	modes := []struct {
		name string
		opts native.Options
	}{
		{"sequential", native.Options{Parallelism: 1}},
		{"parallel", native.Options{Parallelism: 4}},
	}
	cuts := []struct {
		name string
		cut  func(graph.Node) (*fusion.Graph, error)
	}{
		{"fused", func(n graph.Node) (*fusion.Graph, error) {
			r, err := fusion.Fuse(n, fusion.Options{})
			if err != nil {
				return nil, err
			}
			return r.Graph, nil
		}},
		{"unfused", fusion.Unfused},
	}
	for _, ec := range graphtest.EdgeCases() {
		term, inputs, want, err := ec.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes {
			for _, cut := range cuts {
				t.Run(ec.Name+"/"+m.name+"/"+cut.name, func(t *testing.T) {
					g, err := cut.cut(term)
					if err != nil {
						t.Fatal(err)
					}
					p, err := native.New(m.opts).Plan(g)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					got, err := p.Run(inputs)
					if err != nil {
						t.Fatal(err)
					}
					if err := graph.Exact(want, got); err != nil {
						t.Errorf("%s: %v", ec.Program, err)
					}
					if strings.Contains(ec.Name, "reduce") && strings.Contains(ec.Name, "large") && m.opts.Parallelism > 1 && !strings.Contains(p.Describe(), "goroutines") {
						t.Errorf("%s ran without goroutines:\n%s", ec.Name, p.Describe())
					}
				})
			}
		}
	}
}
