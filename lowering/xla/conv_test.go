package xla_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestConvolution checks convolutions built by layers (odd sizes,
// strides, dilations, every padding, one and two spatial axes, with and
// without BatchNorm and ReLU after them) on PJRT against the interpreter,
// fused and unfused, and that they lower to stablehlo.convolution,
// grouped and depthwise ones with a feature_group_count.
func TestConvolution(t *testing.T) {
	client := pjrttest.Client(t)
	type conv struct {
		name          string
		dt            graph.DType
		batch, h, w   int // w = 0: Conv1D
		in, out       int
		kh, kw        int
		opt           layers.ConvOptions
		norm, viaConv bool
	}
	cases := []conv{
		{"same-bn-relu", graph.Float32, 2, 7, 5, 3, 5, 3, 3, layers.ConvOptions{Padding: layers.PadSame}, true, true},
		{"valid-stride-dilation", graph.Float32, 3, 9, 8, 2, 4, 2, 3,
			layers.ConvOptions{Strides: []int{2, 1}, Dilations: []int{1, 2}, NoBias: true}, false, true},
		{"explicit-f64", graph.Float64, 1, 6, 7, 4, 3, 3, 2,
			layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 0, 2, 1}}, true, true},
		{"1x1", graph.Float32, 2, 4, 3, 5, 6, 1, 1, layers.ConvOptions{}, false, true},
		{"conv1d-same", graph.Float32, 2, 11, 0, 3, 4, 3, 0, layers.ConvOptions{Padding: layers.PadSame}, false, true},
		{"channels-first", graph.Float32, 2, 5, 6, 3, 4, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst}, false, true},
		{"groups", graph.Float32, 2, 5, 6, 4, 6, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, false, true},
		{"groups-bn-stride-f64", graph.Float64, 2, 7, 6, 6, 9, 3, 2,
			layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 1}, Groups: 3}, true, true},
		{"depthwise", graph.Float32, 2, 7, 5, 4, 4, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 4}, false, true},
		{"depthwise-multiplier-valid-f64", graph.Float64, 1, 6, 7, 3, 6, 2, 3,
			layers.ConvOptions{Strides: []int{2, 2}, Dilations: []int{2, 1}, Groups: 3, NoBias: true}, false, true},
		{"groups-channels-first", graph.Float32, 2, 5, 6, 4, 2, 3, 3,
			layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst, Groups: 2}, false, true},
		{"groups-conv1d", graph.Float32, 2, 11, 0, 6, 4, 3, 0, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, false, true},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) {
			var ext []int
			switch {
			case cc.w == 0:
				ext = []int{cc.batch, cc.h, cc.in}
			case cc.opt.Format == layers.ChannelsFirst:
				ext = []int{cc.batch, cc.in, cc.h, cc.w}
			default:
				ext = []int{cc.batch, cc.h, cc.w, cc.in}
			}
			x, err := graph.NewInput("x", graph.ArrayOf(cc.dt, ext...), false)
			if err != nil {
				t.Fatal(err)
			}
			var y graph.Node
			if cc.w == 0 {
				y, _, err = layers.Conv1D("conv", x, cc.in, cc.out, cc.kh, cc.dt, cc.opt)
			} else {
				y, _, err = layers.Conv2D("conv", x, cc.in, cc.out, [2]int{cc.kh, cc.kw}, cc.dt, cc.opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			if cc.norm {
				yt, err := graph.Check(y)
				if err != nil {
					t.Fatal(err)
				}
				e := yt.Types[y].(*graph.ArrayType).Layout.Extents()
				flat, err := graph.NewView(graph.FlattenView{Axis: 0}, y)
				if err == nil {
					flat, err = graph.NewView(graph.FlattenView{Axis: 0}, flat)
				}
				if err != nil {
					t.Fatal(err)
				}
				z, _, err := layers.BatchNorm("bn", flat, cc.out, cc.dt, layers.BatchNormOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if z, err = graph.NewView(graph.SubdivView{Axis: 0, Block: e[1] * e[2]}, z); err == nil {
					z, err = graph.NewView(graph.SubdivView{Axis: 1, Block: e[2]}, z)
				}
				if err != nil {
					t.Fatal(err)
				}
				if y, err = layers.ReLU("relu", z); err != nil {
					t.Fatal(err)
				}
			}
			in, err := lowertest.Inputs(y, 7, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			res, err := fusion.Fuse(y, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			unf, err := fusion.Unfused(y)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []*fusion.Graph{res.Graph, unf} {
				lowertest.Check(t, xla.New(client, xla.Options{}), g, y, in, 0)
				m, err := stablehlo.Module(g)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(m, "stablehlo.convolution"); got != cc.viaConv {
					t.Errorf("stablehlo.convolution in the module: %v, want %v:\n%s", got, cc.viaConv, m)
				}
				if g := max(cc.opt.Groups, 1); g > 1 && !strings.Contains(m, fmt.Sprintf("feature_group_count = %d", g)) {
					t.Errorf("no feature_group_count = %d in the module:\n%s", g, m)
				}
			}
		})
	}
}
