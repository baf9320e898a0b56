package layers_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

func TestBuilderSource(t *testing.T) {
	b := layers.NewBuilder("blk")
	x := input(t, graph.Float64, 2, 3)
	y := b.Map(b.Lambda1("r", func(r graph.Node) graph.Node {
		return b.Let("t", b.Reduce(b.Op(graph.Add), r), func(s graph.Node) graph.Node {
			return b.Map(b.Section(graph.Mul, s, true), r)
		})
	}), x)
	y, err := b.Done(y)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graph.Print(y), `map (\r -> let t = reduce (+) r in map (t*) r) x`; got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	assertSources(t, y, "blk")
	if b.Source() != "blk" {
		t.Errorf("Source %q", b.Source())
	}
}

// TestBuilderStickyError checks that the first error is kept and that
// later calls do nothing.
func TestBuilderStickyError(t *testing.T) {
	b := layers.NewBuilder("blk")
	x := input(t, graph.Float64, 3)
	bad := b.Call(graph.Add, x) // add takes two operands
	if bad != nil {
		t.Errorf("a failed call returned %v", bad)
	}
	first := b.Err()
	if first == nil || first.Error() != "call: add takes 2 operands, got 1" {
		t.Fatalf("error %v", first)
	}
	called := false
	n := b.Map(b.Lambda1("v", func(v graph.Node) graph.Node { called = true; return v }), x)
	if n != nil || called || b.Err() != first {
		t.Errorf("after an error: node %v, body called %v, error %v", n, called, b.Err())
	}
	if _, err := b.Done(x); err != first {
		t.Errorf("Done: %v", err)
	}

	// A nil operand is an error, not a panic, typed nil pointers included.
	b = layers.NewBuilder("blk")
	var in *graph.Input
	if n := b.Flip(0, 1, in); n != nil || b.Err() == nil {
		t.Errorf("flip of a nil input: %v, %v", n, b.Err())
	}
}
