package lowertest

import (
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// windowCases returns convolutions and poolings written with graph's
// window view (names "window/...") and with padding and cropping as well
// (names "pad/..."): one- and two-dimensional, with strides, dilations,
// odd sizes and several channels.
//
// A back end that does not lower a family yet lists its instances in
// Options.Rejects with RejectPrefix and the error it gives; the suite then
// checks that it refuses them with that error, and fails once one
// compiles, so that the entry goes when the lowering arrives.
func windowCases() []Case {
	c := func(name, src string) Case { return Case{Name: name, Src: src, DTypes: both} }
	// conv2d over x : [H, W, C] with K : [O, kh, kw, C], windows taken on
	// W first, then H, and flipped to [Ph, Pw, kh, kw, C].
	conv2d := func(view string) string {
		return `map (\row -> map (\win -> map (\f -> rnz (+) (\a b -> rnz (+) (\c d -> rnz (+) (*) c d) a b) win f) K) row) (flip 1 2 ` + view + `)`
	}
	return []Case{
		c("window/moving-sum", `x : %[1]s[2,11];
			map (\r -> map (\w -> reduce (+) w) (window 0 3 r)) x`),
		c("window/strided-dilated-sum", `x : %[1]s[2,13];
			map (\r -> map (\w -> reduce (+) w) (window 0 3 2 2 r)) x`),
		c("window/max-pool-1d", `x : %[1]s[11,3];
			map (\w -> reduce (zip max) w) (window 0 2 2 x)`),
		c("window/conv1d", `x : %[1]s[11,3]; K : %[1]s[4,3,3];
			map (\w -> map (\f -> rnz (+) (\a b -> rnz (+) (*) a b) w f) K) (window 0 3 x)`),
		c("window/conv1d-stride-dilation", `x : %[1]s[13,2]; K : %[1]s[3,2,2];
			map (\w -> map (\f -> rnz (+) (\a b -> rnz (+) (*) a b) w f) K) (window 0 2 3 2 x)`),
		c("window/conv2d", `x : %[1]s[7,6,2]; K : %[1]s[3,3,2,2];
			`+conv2d(`(window 0 3 (window 1 2 x))`)),
		c("window/conv2d-bias-relu", `x : %[1]s[9,7,3]; K : %[1]s[4,3,3,3]; b : %[1]s[4];
			map (\row -> map (\o -> zip (\v c -> max (v + c) 0) o b) row) (`+conv2d(`(window 0 3 2 (window 1 3 2 x))`)+`)`),
		c("window/of-computed", `x : %[1]s[2,9];
			map (\r -> map (\w -> reduce max w) (window 0 3 2 (map (\v -> v * v) r))) x`),
		c("pad/conv1d-same", `x : %[1]s[9,2]; K : %[1]s[3,3,2];
			map (\w -> map (\f -> rnz (+) (\a b -> rnz (+) (*) a b) w f) K) (window 0 3 (pad 0 1 1 x))`),
		c("pad/conv2d-same-stride", `x : %[1]s[7,6,2]; K : %[1]s[2,3,3,2];
			`+conv2d(`(window 0 3 2 (window 1 3 2 (pad 0 1 1 (pad 1 1 1 x))))`)),
		c("pad/max-pool-same", `x : %[1]s[2,7];
			map (\r -> map (\w -> reduce max w) (window 0 3 2 (padninf 0 1 1 r))) x`),
		c("pad/interior", `x : %[1]s[3,4];
			map (\r -> map (\v -> v + 1) r) (pad 1 1 0 2 x)`),
		c("pad/crop", `x : %[1]s[5,6];
			map (\r -> map (\v -> v * 2) r) (crop 1 1 2 (crop 0 2 0 x))`),
		c("pad/crop-of-computed", `x : %[1]s[5,6];
			crop 0 1 1 (map (\r -> map (\v -> v * 2) r) x)`),
		layerCase("window/conv2d-layer-bn-relu", convBNReLU(layers.ConvOptions{Strides: []int{2, 1}, Dilations: []int{1, 2}})),
		layerCase("window/conv2d-layer-groups-nchw", convBNReLU(layers.ConvOptions{Format: layers.ChannelsFirst, Groups: 2})),
		layerCase("window/pools-layer", pools(layers.PadValid)),
		layerCase("pad/conv2d-layer-same-bn-relu", convBNReLU(layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}})),
		layerCase("pad/conv2d-layer-depthwise-same", convBNReLU(layers.ConvOptions{Padding: layers.PadSame, Groups: 4})),
		layerCase("pad/pools-layer-same", pools(layers.PadSame)),
	}
}

// layerCase is a templated case built by the layers package.
func layerCase(name string, build func(dt graph.DType) (graph.Node, error)) Case {
	return Case{Name: name, Build: build, DTypes: both}
}

// convBNReLU is a Conv2D of x [2, 7, 6, 4] (channels last, or [2, 4, 7, 6]
// channels first) to 4 channels, with opt, followed by an inference
// BatchNorm of its channels and a ReLU.
func convBNReLU(opt layers.ConvOptions) func(dt graph.DType) (graph.Node, error) {
	return func(dt graph.DType) (graph.Node, error) {
		ext := []int{2, 7, 6, 4}
		if opt.Format == layers.ChannelsFirst {
			ext = []int{2, 4, 7, 6}
		}
		x, err := graph.NewInput("x", graph.ArrayOf(dt, ext...), false)
		if err != nil {
			return nil, err
		}
		y, _, err := layers.Conv2D("conv1", x, 4, 4, [2]int{3, 2}, dt, opt)
		if err != nil {
			return nil, err
		}
		if opt.Format == layers.ChannelsFirst {
			// BatchNorm normalises the last axis: the channels last.
			return layers.ReLU("relu1", y)
		}
		if y, _, err = layers.BatchNorm("bn1", y, 4, dt, layers.BatchNormOptions{}); err != nil {
			return nil, err
		}
		return layers.ReLU("relu1", y)
	}
}

// pools is a MaxPool2D and an AvgPool2D of one input [2, 7, 5, 3], 3x2
// windows at stride 2, with the padding mode p, side by side.
func pools(p layers.PaddingMode) func(dt graph.DType) (graph.Node, error) {
	return func(dt graph.DType) (graph.Node, error) {
		x, err := graph.NewInput("x", graph.ArrayOf(dt, 2, 7, 5, 3), false)
		if err != nil {
			return nil, err
		}
		opt := layers.ConvOptions{Strides: []int{2, 2}, Padding: p}
		a, err := layers.MaxPool2D("maxpool", x, [2]int{3, 2}, opt)
		if err != nil {
			return nil, err
		}
		b, err := layers.AvgPool2D("avgpool", x, [2]int{3, 2}, opt)
		if err != nil {
			return nil, err
		}
		return graph.NewTuple(a, b)
	}
}

// RejectPrefix returns Options.Rejects entries for every instance of the
// suite whose name starts with prefix ("window/", "pad/"), each expecting
// an error that contains want. A back end that does not lower windows or
// padding yet adds them to its rejects; it deletes the line when it does.
func RejectPrefix(prefix, want string) map[string]string {
	out := map[string]string{}
	insts, err := Instances()
	if err != nil {
		return out
	}
	for _, inst := range insts {
		if strings.HasPrefix(inst.Name, prefix) {
			out[inst.Name] = want
		}
	}
	return out
}
