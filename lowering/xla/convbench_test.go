package xla_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// BenchmarkConv runs the convolution block of the benchmark target
// (lowertest.ConvBlock: 3×3, 64→64 channels, 32×32 images, batch 32,
// stride 1, "same", f32, bias, BatchNorm, ReLU) on PJRT, fused and
// unfused; the convolution lowers to stablehlo.convolution.
func BenchmarkConv(b *testing.B) {
	c := pjrttest.Client(b)
	for _, mode := range []string{"fused", "unfused"} {
		b.Run("mode="+mode, func(b *testing.B) {
			g, in := lowertest.ConvBlock(b, 32, 32, 64, 3, graph.Float32, mode)
			exe, err := xla.New(c, xla.Options{}).Compile(g)
			if err != nil {
				b.Fatal(err)
			}
			defer exe.Close()
			if _, err := exe.Run(in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := exe.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
