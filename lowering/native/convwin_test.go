package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// TestConvWindows checks convolutions whose windows the native back end
// reads in place (kernels.GemmWindows: channels of at least 16, filters
// a multiple of the AVX-512 tile's 32 float32 or 16 float64 columns and
// wider than kernels.GatherGemm takes)
// against the interpreter, fused and unfused, sequential and parallel:
// odd images whose rows straddle the tiles, strides, dilations, every
// padding, one and two spatial axes, with BatchNorm and ReLU after
// them. With AVX-512 the plan of each convolution with an epilogue must
// say its windows are read in place.
func TestConvWindows(t *testing.T) {
	cases := []lowertest.ConvCase{
		{Name: "same-bn-relu", DType: graph.Float32, Batch: 2, H: 7, W: 13, In: 16, Out: 64, KH: 3, KW: 3,
			Opt: layers.ConvOptions{Padding: layers.PadSame}, Norm: true},
		{Name: "valid-stride-dilation", DType: graph.Float32, Batch: 2, H: 11, W: 17, In: 19, Out: 64, KH: 2, KW: 3,
			Opt: layers.ConvOptions{Strides: []int{2, 1}, Dilations: []int{1, 2}, NoBias: true}},
		{Name: "explicit-f64-bn", DType: graph.Float64, Batch: 1, H: 6, W: 15, In: 17, Out: 32, KH: 3, KW: 2,
			Opt: layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 0, 2, 1}}, Norm: true},
		{Name: "stride2-f64", DType: graph.Float64, Batch: 3, H: 9, W: 10, In: 24, Out: 48, KH: 3, KW: 3,
			Opt: layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}}},
		{Name: "conv1d", DType: graph.Float32, Batch: 2, H: 29, In: 20, Out: 64, KH: 3,
			Opt: layers.ConvOptions{Padding: layers.PadSame, Dilations: []int{2}}},
		{Name: "1x1", DType: graph.Float32, Batch: 2, H: 5, W: 7, In: 16, Out: 96, KH: 1, KW: 1},
	}
	for _, cc := range cases {
		t.Run(cc.Name, func(t *testing.T) {
			y, err := cc.Build()
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 11, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			inPlace := 0
			for _, g := range lowertest.FusedAndUnfused(t, y) {
				for _, par := range []int{1, 0} {
					d := checkedDescribe(t, par, g, y, in)
					if strings.Contains(d, "read in place") {
						inPlace++
					}
					if kernels.Path() == "avx512" && strings.Contains(d, "conv as gemm") && !strings.Contains(d, "read in place") {
						t.Errorf("parallelism %d: the conv's windows are not read in place:\n%s", par, d)
					}
				}
			}
			// Without a bias or a BatchNorm the whole batch is one
			// product over the im2col ("contraction as gemm").
			if kernels.Path() == "avx512" && !cc.Opt.NoBias && inPlace == 0 {
				t.Errorf("no plan reads the windows in place")
			}
		})
	}
}
