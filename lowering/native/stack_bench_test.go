package native_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// stackTerm builds a memory-bound layer stack on rows×cols float32, with
// random inputs: "softmax", the softmax over each row as an exporter
// writes it (ONNX Softmax-13's body: ReduceMax, Sub, Exp, ReduceSum and
// Div, each an operator of its own, so five kernels unfused);
// "softmax_layer", layers.Softmax (one layer, one kernel unfused); or
// "lngelu", x + GELU(LayerNorm(x)) (three layers).
func stackTerm(tb testing.TB, kind string, rows, cols int) (graph.Node, map[string]graph.Value) {
	tb.Helper()
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, rows, cols), false)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	in := map[string]graph.Value{}
	var out graph.Node
	switch kind {
	case "softmax":
		if out, err = models.SoftmaxOperators(x); err != nil {
			tb.Fatal(err)
		}
	case "softmax_layer":
		if out, err = layers.Softmax("softmax", x); err != nil {
			tb.Fatal(err)
		}
	case "lngelu":
		var p *layers.LayerNormParams
		if out, p, err = models.LNGELUResidual(x, cols, graph.Float32); err != nil {
			tb.Fatal(err)
		}
		for _, i := range []*graph.Input{p.Scale, p.Shift} {
			if in[i.Name], err = graph.RandomArray(r, graph.Float32, cols); err != nil {
				tb.Fatal(err)
			}
		}
	default:
		tb.Fatalf("unknown stack %q", kind)
	}
	if in["x"], err = graph.RandomArray(r, graph.Float32, rows, cols); err != nil {
		tb.Fatal(err)
	}
	return out, in
}

// BenchmarkStack runs the memory-bound stacks of hofuse bench stack, fused
// and unfused: softmax over 256×32768 (the exporter's five operators, and
// layers.Softmax) and LayerNorm + GELU + residual add on 256×4096, float32.
func BenchmarkStack(b *testing.B) {
	for _, c := range []struct {
		kind       string
		rows, cols int
	}{{"softmax", 256, 32768}, {"softmax_layer", 256, 32768}, {"lngelu", 256, 4096}} {
		for _, mode := range []string{"fused", "unfused"} {
			b.Run(fmt.Sprintf("%s/mode=%s", c.kind, mode), func(b *testing.B) {
				term, in := stackTerm(b, c.kind, c.rows, c.cols)
				var g *fusion.Graph
				if mode == "fused" {
					res, err := fusion.Fuse(term, fusion.Options{})
					if err != nil {
						b.Fatal(err)
					}
					g = res.Graph
				} else {
					var err error
					if g, err = fusion.Unfused(term); err != nil {
						b.Fatal(err)
					}
				}
				p, err := native.New(native.Options{}).Plan(g)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(4 * 2 * c.rows * c.cols))
				b.ResetTimer()
				for b.Loop() {
					if _, err := p.Run(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
