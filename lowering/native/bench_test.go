package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// mlpGraph builds the benchmark network, 784-512-512-10 with batch norm
// (inference) and ReLU, and cuts it fused (the fusion pass) or unfused
// (one kernel per layer operation).
func mlpGraph(tb testing.TB, batch int, dt graph.DType, mode string) (*fusion.Graph, map[string]graph.Value) {
	tb.Helper()
	m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: batch, DType: dt, Norm: models.NormBatch})
	if err != nil {
		tb.Fatal(err)
	}
	var g *fusion.Graph
	switch mode {
	case "fused":
		res, err := fusion.Fuse(m.Output, fusion.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		g = res.Graph
	case "unfused":
		if g, err = fusion.Unfused(m.Output); err != nil {
			tb.Fatal(err)
		}
	default:
		tb.Fatalf("unknown mode %q", mode)
	}
	return g, m.Bindings(1)
}

// BenchmarkMLP runs one inference of the MLP, fused and unfused, at batch
// 1 and 256, float32, on all cores.
func BenchmarkMLP(b *testing.B) {
	for _, batch := range []int{1, 256} {
		for _, mode := range []string{"fused", "unfused"} {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				g, in := mlpGraph(b, batch, graph.Float32, mode)
				p, err := native.New(native.Options{}).Plan(g)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * 784))
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
