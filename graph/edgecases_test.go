package graph_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// TestEdgeCases runs graphtest's edge-case table on the interpreter: NaN
// through max and min and their reductions, signed zeros, relu(-0), i32
// wrapping and division, conversions of NaN and out-of-range values. The
// expected results are written by hand from the package doc's definitions.
func TestEdgeCases(t *testing.T) {
	for _, c := range graphtest.EdgeCases() {
		t.Run(c.Name, func(t *testing.T) {
			term, inputs, want, err := c.Build()
			if err != nil {
				t.Fatal(err)
			}
			got, err := graph.Eval(term, inputs)
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Exact(want, got); err != nil {
				t.Errorf("%s: %v", c.Program, err)
			}
		})
	}
}
