package native_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
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
		if out, err = softmaxOperators(x); err != nil {
			tb.Fatal(err)
		}
	case "softmax_layer":
		if out, err = layers.Softmax("softmax", x); err != nil {
			tb.Fatal(err)
		}
	case "lngelu":
		h, p, err := layers.LayerNorm("ln", x, cols, graph.Float32, layers.LayerNormOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		if h, err = layers.GELU("gelu", h); err != nil {
			tb.Fatal(err)
		}
		b := layers.NewBuilder("residual")
		add := b.Lambda([]string{"r", "s"}, func(vs []graph.Node) graph.Node { return b.Zip(b.Op(graph.Add), vs[0], vs[1]) })
		if out, err = b.Done(b.Zip(add, x, h)); err != nil {
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

// softmaxOperators is the softmax over the last axis of x as ONNX
// Softmax-13's function body: m = ReduceMax(x, keepdims), e = Exp(Sub(x,
// m)), Div(e, ReduceSum(e, keepdims)), each built by imports/nd as the ONNX
// importer builds the operator.
func softmaxOperators(x graph.Node) (graph.Node, error) {
	m, err := nd.Ops{Source: "reducemax"}.Reduce(nd.Max, x, []int{1}, true)
	if err != nil {
		return nil, err
	}
	d, err := nd.Ops{Source: "sub"}.Binary(graph.Sub, x, m)
	if err != nil {
		return nil, err
	}
	e, err := nd.Ops{Source: "exp"}.Unary(graph.Exp, d)
	if err != nil {
		return nil, err
	}
	s, err := nd.Ops{Source: "reducesum"}.Reduce(nd.Sum, e, []int{1}, true)
	if err != nil {
		return nil, err
	}
	return nd.Ops{Source: "div"}.Binary(graph.Div, e, s)
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
