package layers_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/layers"
)

// TestReLUEdgeCases: ReLU's term gives graphtest's relu edge case exactly,
// the case every back end runs: relu(-0) = +0, relu(NaN) = NaN, relu(-Inf)
// = +0 (graph's max is IEEE 754-2019 maximum).
func TestReLUEdgeCases(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		var ec *graphtest.EdgeCase
		for _, c := range graphtest.EdgeCases() {
			if c.Name == dt.String()+"/relu" {
				ec = &c
			}
		}
		if ec == nil {
			t.Fatalf("graphtest.EdgeCases has no %v/relu", dt)
		}
		_, inputs, want, err := ec.Build()
		if err != nil {
			t.Fatal(err)
		}
		x := input(t, dt, len(ec.Inputs["x"]))
		y, err := layers.ReLU("relu1", x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graph.Eval(y, inputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := graph.Exact(want, got); err != nil {
			t.Errorf("%v: %v", dt, err)
		}
	}
}
