package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// BenchmarkConv runs the convolution block of the benchmark target — 3×3,
// 64→64 channels, 32×32 images, batch 32, stride 1, "same", f32, with
// bias, BatchNorm and ReLU — fused and unfused, on all cores. The peers'
// figures for the same block come from bench/peers/conv_block.py.
func BenchmarkConv(b *testing.B) {
	for _, mode := range []string{"fused", "unfused"} {
		b.Run("mode="+mode, func(b *testing.B) {
			g, in := lowertest.ConvBlock(b, 32, 32, 64, 3, graph.Float32, mode)
			p, err := native.New(native.Options{}).Plan(g)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			if _, err := p.Run(in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(4 * 32 * 32 * 32 * 64))
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
