package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
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

// BenchmarkConvGrouped runs a grouped 3×3 convolution, 64→64 channels in
// 2 to 32 groups over 8 images of 32×32, stride 1, "same", f32, with
// bias, fused, on all cores: a product per group (groupedInto) for groups
// of 32 channels, kernels.Grouped for groups of 8, 4 and 2, and of 16
// with AVX-512; 64 groups of one channel, kernels.Depthwise.
func BenchmarkConvGrouped(b *testing.B) {
	for _, groups := range []int{2, 4, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 8, 32, 32, 64), false)
			if err != nil {
				b.Fatal(err)
			}
			y, _, err := layers.Conv2D("conv", x, 64, 64, [2]int{3, 3}, graph.Float32, layers.ConvOptions{Padding: layers.PadSame, Groups: groups})
			if err != nil {
				b.Fatal(err)
			}
			res, err := fusion.Fuse(y, fusion.Options{})
			if err != nil {
				b.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 1, 0, lowertest.Dense)
			if err != nil {
				b.Fatal(err)
			}
			p, err := native.New(native.Options{}).Plan(res.Graph)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			if _, err := p.Run(in); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(4 * 8 * 32 * 32 * 64))
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
