package lowertest

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// A ConvCase is a convolution built by layers, with BatchNorm and ReLU
// after it when Norm is set, or a ReLU alone when Act is: the programs
// each back end's convolution path is tested on.
type ConvCase struct {
	Name     string
	DType    graph.DType
	Batch, H int
	W        int // 0: Conv1D
	In, Out  int
	KH, KW   int // KW unused by Conv1D
	Opt      layers.ConvOptions
	Norm     bool
	Act      bool // a ReLU on the convolution's result, in its layout (not with Norm)
}

// ConvCases are odd sizes, strides, dilations, every padding, one and two
// spatial axes, both layouts, groups and depthwise, f32 and f64.
func ConvCases() []ConvCase {
	return []ConvCase{
		{"same-bn-relu", graph.Float32, 2, 7, 5, 3, 5, 3, 3, layers.ConvOptions{Padding: layers.PadSame}, true, false},
		{"valid-stride-dilation", graph.Float32, 3, 9, 8, 2, 4, 2, 3,
			layers.ConvOptions{Strides: []int{2, 1}, Dilations: []int{1, 2}, NoBias: true}, false, false},
		{"explicit-f64", graph.Float64, 1, 6, 7, 4, 3, 3, 2,
			layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 0, 2, 1}}, true, false},
		{"1x1", graph.Float32, 2, 4, 3, 5, 6, 1, 1, layers.ConvOptions{}, false, false},
		{"conv1d-same", graph.Float32, 2, 11, 0, 3, 4, 3, 0, layers.ConvOptions{Padding: layers.PadSame}, false, false},
		{"channels-first", graph.Float32, 2, 5, 6, 3, 4, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst}, false, false},
		{"channels-first-wide-f64", graph.Float64, 2, 9, 7, 5, 21, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst}, false, false},
		{"channels-first-1x1-stride", graph.Float32, 3, 8, 9, 16, 40, 1, 1, layers.ConvOptions{Strides: []int{2, 2}, Format: layers.ChannelsFirst}, false, false},
		{"channels-first-1x1-relu", graph.Float32, 2, 5, 7, 16, 40, 1, 1, layers.ConvOptions{Format: layers.ChannelsFirst}, false, true},
		{"groups", graph.Float32, 2, 5, 6, 4, 6, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, false, false},
		{"groups-bn-stride-f64", graph.Float64, 2, 7, 6, 6, 9, 3, 2,
			layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 1}, Groups: 3}, true, false},
		{"depthwise", graph.Float32, 2, 7, 5, 4, 4, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 4}, false, false},
		{"depthwise-channels-first-stride", graph.Float32, 2, 9, 8, 19, 19, 3, 3,
			layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}, Format: layers.ChannelsFirst, Groups: 19}, false, false},
		{"depthwise-bn-nobias-f64", graph.Float64, 1, 7, 6, 5, 5, 3, 2,
			layers.ConvOptions{Padding: layers.PadSame, Dilations: []int{1, 2}, Groups: 5, NoBias: true}, true, false},
		{"depthwise-multiplier-valid-f64", graph.Float64, 1, 6, 7, 3, 6, 2, 3,
			layers.ConvOptions{Strides: []int{2, 2}, Dilations: []int{2, 1}, Groups: 3, NoBias: true}, false, false},
		{"groups-channels-first", graph.Float32, 2, 5, 6, 4, 2, 3, 3,
			layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst, Groups: 2}, false, false},
		{"groups-conv1d", graph.Float32, 2, 11, 0, 6, 4, 3, 0, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, false, false},
		// 1×1 grouped convolutions (ShuffleNet's): windows read in place
		// as the rows of a matrix, and channels first as its columns.
		{"groups-1x1-f64", graph.Float64, 2, 5, 6, 12, 9, 1, 1, layers.ConvOptions{Groups: 3}, false, false},
		{"groups-1x1-channels-first", graph.Float32, 2, 4, 5, 8, 12, 1, 1, layers.ConvOptions{Format: layers.ChannelsFirst, Groups: 4}, false, false},
		// Wide enough groups that the native back end reads the windows in
		// place (kernels.GemmWindows), with BatchNorm and ReLU after them.
		{"groups-wide-bn", graph.Float32, 1, 6, 7, 64, 64, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, true, false},
		// Groups of four channels and four filters (kernels.Grouped in the
		// native back end), 40 channels: whole vectors and a remainder.
		{"groups-of-4-dilated-relu", graph.Float32, 2, 7, 6, 40, 40, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Dilations: []int{1, 2}, Groups: 10}, false, true},
		{"groups-of-2-channels-first-stride", graph.Float32, 2, 9, 8, 16, 16, 3, 3,
			layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}, Format: layers.ChannelsFirst, Groups: 8}, false, false},
		// Groups of 16: kernels.Grouped with AVX-512, a product per group
		// without.
		{"groups-of-16-relu", graph.Float32, 1, 5, 6, 32, 32, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 2}, false, true},
		{"channels-first-relu", graph.Float32, 2, 6, 5, 3, 7, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst}, false, true},
		{"depthwise-relu", graph.Float32, 2, 9, 7, 12, 12, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{1, 2}, Groups: 12}, false, true},
		// Rows of 70 positions of 64 channels: the native back end's
		// depthwise loops take them in runs of 35.
		{"depthwise-long-rows-relu", graph.Float32, 1, 3, 70, 64, 64, 3, 3, layers.ConvOptions{Padding: layers.PadSame, Groups: 64}, false, true},
		{"depthwise-channels-first-relu-f64", graph.Float64, 1, 8, 6, 5, 5, 3, 3,
			layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst, Groups: 5, NoBias: true}, false, true},
	}
}

// Build returns the case's program: the convolution of an input "x",
// then, with Norm, BatchNorm over batch and image and a ReLU.
func (c ConvCase) Build() (graph.Node, error) {
	var ext []int
	switch {
	case c.W == 0:
		ext = []int{c.Batch, c.H, c.In}
	case c.Opt.Format == layers.ChannelsFirst:
		ext = []int{c.Batch, c.In, c.H, c.W}
	default:
		ext = []int{c.Batch, c.H, c.W, c.In}
	}
	x, err := graph.NewInput("x", graph.ArrayOf(c.DType, ext...), false)
	if err != nil {
		return nil, err
	}
	var y graph.Node
	if c.W == 0 {
		y, _, err = layers.Conv1D("conv", x, c.In, c.Out, c.KH, c.DType, c.Opt)
	} else {
		y, _, err = layers.Conv2D("conv", x, c.In, c.Out, [2]int{c.KH, c.KW}, c.DType, c.Opt)
	}
	switch {
	case err != nil:
		return nil, err
	case c.Act && c.Norm:
		return nil, fmt.Errorf("conv case %s: Act and Norm both set; Norm has its ReLU", c.Name)
	case c.Act:
		return layers.ReLU("relu", y)
	case !c.Norm:
		return y, nil
	}
	if c.W == 0 || c.Opt.Format == layers.ChannelsFirst {
		return nil, fmt.Errorf("conv case %s: Norm takes a 2-D channels-last convolution", c.Name)
	}
	// BatchNorm over [batch·H·W, out], seen back as [batch, H, W, out].
	yt, err := graph.Check(y)
	if err != nil {
		return nil, err
	}
	e := yt.Types[y].(*graph.ArrayType).Layout.Extents()
	flat, err := graph.NewView(graph.FlattenView{Axis: 0}, y)
	if err == nil {
		flat, err = graph.NewView(graph.FlattenView{Axis: 0}, flat)
	}
	if err != nil {
		return nil, err
	}
	z, _, err := layers.BatchNorm("bn", flat, c.Out, c.DType, layers.BatchNormOptions{})
	if err != nil {
		return nil, err
	}
	if z, err = graph.NewView(graph.SubdivView{Axis: 0, Block: e[1] * e[2]}, z); err == nil {
		z, err = graph.NewView(graph.SubdivView{Axis: 1, Block: e[2]}, z)
	}
	if err != nil {
		return nil, err
	}
	return layers.ReLU("relu", z)
}
