package native_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/kernels"
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
// 1 and 256, float32, on all cores; mode=gemms is the floor the fused
// program is measured against: its three matrix products alone, bare (no
// bias, normalisation or activation), on as many goroutines. With
// weights=fixed the plans have their parameters fixed (Plan.FixInputs,
// as bench and demo run them) and the bare products take their weights
// packed once (kernels.GemmParams.PackedB); with weights=free the weights
// are read in place or packed on every run.
func BenchmarkMLP(b *testing.B) {
	for _, batch := range []int{1, 256} {
		for _, weights := range []string{"fixed", "free"} {
			fixed := weights == "fixed"
			b.Run(fmt.Sprintf("batch=%d/weights=%s/mode=gemms", batch, weights), func(b *testing.B) { benchBareGemms(b, batch, fixed) })
			for _, mode := range []string{"fused", "unfused"} {
				b.Run(fmt.Sprintf("batch=%d/weights=%s/mode=%s", batch, weights, mode), func(b *testing.B) {
					g, in := mlpGraph(b, batch, graph.Float32, mode)
					p, err := native.New(native.Options{}).Plan(g)
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if fixed {
						var params []string
						for _, in := range g.Inputs {
							if in.Param {
								params = append(params, in.Name)
							}
						}
						if err := p.FixInputs(params...); err != nil {
							b.Fatal(err)
						}
					}
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
}

// benchBareGemms times the three products of the MLP 784-512-512-10 at
// batch, float32, without epilogues; with fixed, each takes its weights
// packed once.
func benchBareGemms(b *testing.B, batch int, fixed bool) {
	dims := []int{784, 512, 512, 10}
	var ps []kernels.GemmParams[float32]
	w := new(kernels.Workspace)
	in := make([]float32, batch*dims[0])
	for i := range in {
		in[i] = float32(i%7) - 3
	}
	for l := 0; l+1 < len(dims); l++ {
		k, n := dims[l], dims[l+1]
		wt := make([]float32, k*n)
		for i := range wt {
			wt[i] = float32(i%5) * 0.01
		}
		out := make([]float32, batch*n)
		p := kernels.GemmParams[float32]{M: batch, N: n, K: k, A: in, LDA: k, B: wt, LDB: n,
			C: out, LDC: n, Threads: runtime.GOMAXPROCS(0), Work: w}
		if fixed && kernels.UsesPackedB(batch, false, false) {
			p.PackedB = new(kernels.PackedB[float32])
			kernels.PackB(p.PackedB, p)
		}
		ps = append(ps, p)
		in = out
	}
	for _, p := range ps {
		kernels.GemmF32(p)
	}
	b.ReportAllocs()
	b.SetBytes(int64(4 * batch * 784))
	for b.Loop() {
		for _, p := range ps {
			kernels.GemmF32(p)
		}
	}
}
