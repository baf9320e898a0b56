package nd_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// BenchmarkChain builds a chain of dense layers (MatMul, bias Binary,
// tanh) op by op, as an importer does, with one shared Types and with
// none (every operand typed afresh, which is quadratic: 1.4 s for 100
// layers and 28 s for 400 when measured, against 10 ms for 400 shared).
func BenchmarkChain(b *testing.B) {
	for _, layers := range []int{100, 400} {
		for _, shared := range []bool{true, false} {
			if !shared && layers > 100 {
				continue
			}
			b.Run(fmt.Sprintf("layers=%d/types=%v", layers, shared), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					o := nd.Ops{}
					if shared {
						o.Types = nd.NewTypes()
					}
					if _, err := chain(o, layers); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func chain(o nd.Ops, layers int) (graph.Node, error) {
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 64, 64), false)
	if err != nil {
		return nil, err
	}
	w, err := graph.NewInput("w", graph.ArrayOf(graph.Float32, 64, 64), true)
	if err != nil {
		return nil, err
	}
	bias, err := graph.NewInput("b", graph.ArrayOf(graph.Float32, 64), true)
	if err != nil {
		return nil, err
	}
	y := graph.Node(x)
	for range layers {
		if y, err = o.MatMul(y, w); err != nil {
			return nil, err
		}
		if y, err = o.Binary(graph.Add, y, bias); err != nil {
			return nil, err
		}
		if y, err = o.Unary(graph.Tanh, y); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// TestSharedTypes checks that a chain built with a shared Types is the
// chain built without: the cache changes the cost, not the term.
func TestSharedTypes(t *testing.T) {
	a, err := chain(nd.Ops{Types: nd.NewTypes()}, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := chain(nd.Ops{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if graph.Print(a) != graph.Print(b) {
		t.Errorf("with Types:\n%s\nwithout:\n%s", graph.Print(a), graph.Print(b))
	}
}
