package xla_test

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestEdgeCases runs graphtest's edge-case table on PJRT, in every mode
// (the whole term in one executable, the unfused graph in one, one
// executable per unfused kernel) and on fusion.Fuse's kernels, in one
// executable and one per kernel, and compares bit for bit with the
// results the graph package's scalar semantics define: NaN through max,
// min and their reductions, signed zeros, relu(-0), i32 wrapping and
// division, conversions of NaN and out-of-range values; for subnormals,
// the flushed results graph's doc records for XLA's CPU plugin.
func TestEdgeCases(t *testing.T) {
	c := pjrttest.Client(t)
	fuse := func(n graph.Node) (*fusion.Graph, error) {
		r, err := fusion.Fuse(n, fusion.Options{})
		if err != nil {
			return nil, err
		}
		return r.Graph, nil
	}
	all := append(modes[:len(modes):len(modes)],
		struct {
			name      string
			partition func(graph.Node) (*fusion.Graph, error)
			opt       xla.Options
		}{"fused", fuse, xla.Options{}},
		struct {
			name      string
			partition func(graph.Node) (*fusion.Graph, error)
			opt       xla.Options
		}{"fused-per-kernel", fuse, xla.Options{PerKernel: true}})
	for _, ec := range graphtest.EdgeCases() {
		// XLA's CPU plugin flushes subnormals to zero (graph's doc says
		// so); the flushed result is pinned, so a change shows.
		if c.Platform() == "cpu" {
			ec = ec.Flushed()
		}
		term, inputs, want, err := ec.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range all {
			t.Run(ec.Name+"/"+m.name, func(t *testing.T) {
				g, err := m.partition(term)
				if err != nil {
					t.Fatal(err)
				}
				x, err := xla.New(c, m.opt).CompileGraph(g)
				if err != nil {
					t.Fatal(err)
				}
				defer x.Close()
				got, err := x.Run(inputs)
				if err != nil {
					t.Fatal(err)
				}
				if err := graph.Exact(want, got); err != nil {
					t.Errorf("%s: %v", ec.Program, err)
				}
			})
		}
	}
}
