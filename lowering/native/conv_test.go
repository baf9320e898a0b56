package native_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// TestConvGemm checks convolutions built by layers (odd sizes, strides,
// dilations, every padding, one and two spatial axes, both layouts, with
// and without BatchNorm and ReLU after them) against the interpreter,
// fused and unfused, sequential and parallel, and that the ungrouped ones
// reach the GEMM kernel through the implicit im2col ("conv as gemm" in
// the plan, or, for a convolution with no epilogue, "contraction as
// gemm": one product over the whole batch) and the depthwise ones the
// depthwise loops, a fused ReLU their epilogue, and the other grouped
// ones a product per group. Channels first, the filters are gathered into
// scratch (their window axes, [Cout, kh, kw, Cin] seen through OIHW, are
// not one strided axis) and, for a result in that layout, the product is
// scattered from scratch.
func TestConvGemm(t *testing.T) {
	for _, cc := range lowertest.ConvCases() {
		t.Run(cc.Name, func(t *testing.T) {
			y, err := cc.Build()
			if err != nil {
				t.Fatal(err)
			}
			viaGemm := max(cc.Opt.Groups, 1) == 1
			in, err := lowertest.Inputs(y, 7, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			for gi, g := range lowertest.FusedAndUnfused(t, y) {
				for _, par := range []int{1, 0} {
					d := checkedDescribe(t, par, g, y, in)
					got := strings.Contains(d, "conv as gemm") || strings.Contains(d, "contraction as gemm")
					if got != viaGemm {
						t.Errorf("parallelism %d: conv as gemm in the plan: %v, want %v:\n%s", par, got, viaGemm, d)
					}
					// A depthwise convolution (a filter per input channel) over
					// an image whose channels are contiguous — channels last,
					// or padded into scratch — runs as vector loops over them.
					depthwise := cc.Opt.Groups > 1 && cc.Opt.Groups == cc.In && cc.In == cc.Out &&
						(cc.Opt.Format != layers.ChannelsFirst || cc.Opt.Padding == layers.PadSame)
					if got := strings.Contains(d, "depthwise conv"); got != depthwise {
						t.Errorf("parallelism %d: depthwise conv in the plan: %v, want %v:\n%s", par, got, depthwise, d)
					}
					// The other grouped ones run a product per group, or
					// with groups of 2, 4 or 8 channels and as many filters
					// (float32, channels contiguous as for depthwise), the
					// grouped loops.
					if got, want := strings.Contains(d, "grouped conv in"), !viaGemm && !depthwise; got != want {
						t.Errorf("parallelism %d: grouped conv in the plan: %v, want %v:\n%s", par, got, want, d)
					}
					width := cc.In / max(cc.Opt.Groups, 1)
					small := !viaGemm && width == cc.Out/cc.Opt.Groups && kernels.GroupedVectors(width) && cc.DType == graph.Float32 &&
						(cc.Opt.Format != layers.ChannelsFirst || cc.Opt.Padding == layers.PadSame)
					if got := strings.Contains(d, "(kernels.Grouped)"); got != small {
						t.Errorf("parallelism %d: kernels.Grouped in the plan: %v, want %v:\n%s", par, got, small, d)
					}
					// Fused, a ReLU straight after it is its epilogue
					// (channels first, the ReLU maps over the result's
					// channels-first view, the graph's output, and stays a
					// kernel of its own).
					if fused := gi == 0; depthwise && cc.Act && fused && cc.Opt.Format != layers.ChannelsFirst && !strings.Contains(d, "then epilogue") {
						t.Errorf("parallelism %d: the fused ReLU is not the depthwise loops' epilogue:\n%s", par, d)
					}
					// A convolution read through the windows' offsets
					// (kernels.GatherGemm) is split by rows over the
					// goroutines when there are several.
					for _, l := range strings.Split(d, "\n") {
						if gg := strings.Contains(l, "conv as gemm") && strings.Contains(l, "(kernels.GatherGemm)"); gg && strings.Contains(l, "split by rows over the goroutines") != (par == 0) {
							t.Errorf("parallelism %d: GatherGemm split over the goroutines: %v, want %v:\n%s", par, par != 0, par == 0, d)
						}
					}
					if gathered := strings.Contains(d, "filters gathered into scratch"); viaGemm && gathered != (cc.Opt.Format == layers.ChannelsFirst && cc.KH*cc.KW > 1) {
						t.Errorf("parallelism %d: filters gathered: %v, want them gathered only channels first with a window of more than one tap:\n%s", par, gathered, d)
					}
				}
			}
		})
	}
}

// TestConvGemmBits checks that a convolution whose windows the native
// back end packs straight from the image into the micro-kernel's panels,
// or reads through their offsets by kernels.GatherGemm (at most
// GatherMaxN channels out), gives the bits of kernels.Gemm on the im2col
// matrix written out here by plain loops (the windows of the zero-padded input as rows, the HWIO
// kernel as K×N) plus the bias: the same products summed in the same
// order, whatever the window, padding, stride, dilation, element type or
// number of threads. The sizes are odd so that panels straddle image rows
// and images, and K > 256 cuts window runs between k blocks. A 1×1
// convolution at stride 1 reads its windows as the rows of a matrix.
func TestConvGemmBits(t *testing.T) {
	type conv struct {
		name        string
		dt          graph.DType
		batch, h, w int
		in, out     int
		kh, kw      int
		stride, dil [2]int
		pads        [4]int // top, bottom, left, right
	}
	cases := []conv{
		{"3x3-pad1", graph.Float32, 2, 7, 9, 5, 7, 3, 3, [2]int{1, 1}, [2]int{1, 1}, [4]int{1, 1, 1, 1}},
		{"3x3-k-blocks", graph.Float32, 1, 6, 5, 37, 33, 3, 3, [2]int{1, 1}, [2]int{1, 1}, [4]int{1, 1, 1, 1}},
		{"stride-dilation", graph.Float32, 3, 11, 10, 3, 4, 2, 3, [2]int{2, 1}, [2]int{1, 2}, [4]int{0, 1, 2, 0}},
		{"no-pad-f64", graph.Float64, 2, 8, 7, 4, 5, 3, 2, [2]int{1, 2}, [2]int{2, 1}, [4]int{}},
		{"uneven-pads-f64", graph.Float64, 1, 9, 13, 30, 17, 5, 3, [2]int{1, 1}, [2]int{1, 1}, [4]int{2, 0, 1, 3}},
		{"1x1", graph.Float32, 2, 5, 3, 6, 5, 1, 1, [2]int{1, 1}, [2]int{1, 1}, [4]int{}},
		{"1x1-wide", graph.Float32, 2, 5, 7, 24, 40, 1, 1, [2]int{1, 1}, [2]int{1, 1}, [4]int{}},
		{"1x1-wide-f64", graph.Float64, 1, 6, 5, 9, 20, 1, 1, [2]int{1, 1}, [2]int{1, 1}, [4]int{}},
		{"1x1-stride", graph.Float32, 1, 6, 7, 8, 40, 1, 1, [2]int{2, 2}, [2]int{1, 1}, [4]int{}},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) {
			x, err := graph.NewInput("x", graph.ArrayOf(cc.dt, cc.batch, cc.h, cc.w, cc.in), false)
			if err != nil {
				t.Fatal(err)
			}
			y, cp, err := layers.Conv2D("conv", x, cc.in, cc.out, [2]int{cc.kh, cc.kw}, cc.dt, layers.ConvOptions{
				Strides: cc.stride[:], Dilations: cc.dil[:], Padding: layers.PadExplicit, Pads: cc.pads[:]})
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 11, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			xa, ka, ba := in[x.Name].(*graph.Array), in[cp.K.Name].(*graph.Array), in[cp.B.Name].(*graph.Array)
			// The im2col of the padded input, M×K, and the expected output.
			oh := (cc.h+cc.pads[0]+cc.pads[1]-(cc.kh-1)*cc.dil[0]-1)/cc.stride[0] + 1
			ow := (cc.w+cc.pads[2]+cc.pads[3]-(cc.kw-1)*cc.dil[1]-1)/cc.stride[1] + 1
			M, K, N := cc.batch*oh*ow, cc.kh*cc.kw*cc.in, cc.out
			a := make([]float64, 0, M*K)
			for b := range cc.batch {
				for i := range oh {
					for j := range ow {
						for di := range cc.kh {
							for dj := range cc.kw {
								r := i*cc.stride[0] + di*cc.dil[0] - cc.pads[0]
								c := j*cc.stride[1] + dj*cc.dil[1] - cc.pads[2]
								for ch := range cc.in {
									v := 0.0
									if r >= 0 && r < cc.h && c >= 0 && c < cc.w {
										v = xa.At(b, r, c, ch)
									}
									a = append(a, v)
								}
							}
						}
					}
				}
			}
			want := gemmBias(cc.dt, M, N, K, a, ka.Values(), ba.Values())
			res, err := fusion.Fuse(y, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			maxN := kernels.GatherMaxN[float32]()
			if cc.dt == graph.Float64 {
				maxN = kernels.GatherMaxN[float64]()
			}
			for _, mode := range []string{"packed", "gathered"} {
				t.Run(mode, func(t *testing.T) {
					switch {
					case mode == "packed":
						native.DisableGather(t)
					case !kernels.GatherAvailable():
						t.Skip("the gather kernels need AVX2")
					}
					for _, par := range []int{1, 0} {
						p, err := native.New(native.Options{Parallelism: par}).Plan(res.Graph)
						if err != nil {
							t.Fatal(err)
						}
						d := p.Describe()
						if !strings.Contains(d, "conv as gemm") {
							t.Fatalf("parallelism %d: no conv as gemm in the plan:\n%s", par, d)
						}
						if gathered := strings.Contains(d, "kernels.GatherGemm"); gathered != (mode == "gathered" && N <= maxN) {
							t.Fatalf("parallelism %d: kernels.GatherGemm in the plan: %v:\n%s", par, gathered, d)
						}
						// A 1×1 window at stride 1 is a row of the image:
						// a matrix the GEMM reads in place.
						inPlace := cc.kh*cc.kw == 1 && cc.stride == [2]int{1, 1}
						if got := strings.Contains(d, "the rows of a matrix read in place"); got != (inPlace && !strings.Contains(d, "kernels.GatherGemm")) {
							t.Fatalf("parallelism %d: windows read as a matrix in place: %v:\n%s", par, got, d)
						}
						out, err := p.Run(in)
						p.Close()
						if err != nil {
							t.Fatal(err)
						}
						got := out.(*graph.Array).Values()
						if len(got) != len(want) {
							t.Fatalf("parallelism %d: %d outputs, want %d", par, len(got), len(want))
						}
						for i := range want {
							if got[i] != want[i] {
								t.Fatalf("parallelism %d: output %d (row %d, channel %d) = %v, kernels.Gemm on the im2col gives %v",
									par, i, i/N, i%N, got[i], want[i])
							}
						}
					}
				})
			}
		})
	}
}

// gemmBias computes a·k + bias with kernels.Gemm in dt (a M×K, k K×N,
// both row-major) and returns the result as float64s.
func gemmBias(dt graph.DType, M, N, K int, a, k, bias []float64) []float64 {
	out := make([]float64, M*N)
	if dt == graph.Float32 {
		a32, k32, c := to32(a), to32(k), make([]float32, M*N)
		kernels.GemmF32(kernels.GemmParams[float32]{M: M, N: N, K: K, A: a32, LDA: K, B: k32, LDB: N, C: c, LDC: N})
		for i, v := range c {
			out[i] = float64(v + float32(bias[i%N]))
		}
		return out
	}
	kernels.GemmF64(kernels.GemmParams[float64]{M: M, N: N, K: K, A: a, LDA: K, B: k, LDB: N, C: out, LDC: N})
	for i := range out {
		out[i] += bias[i%N]
	}
	return out
}

func to32(v []float64) []float32 {
	r := make([]float32, len(v))
	for i, x := range v {
		r[i] = float32(x)
	}
	return r
}

// TestDepthwiseSplit: a depthwise convolution large enough to be split
// over the goroutines (its runs of positions along a row in grains)
// matches the interpreter, sequential and parallel, fused and unfused,
// with its bias and with a ReLU after it (fused, the runs' epilogue), at
// stride 1 and at stride 2 along the rows (runs of positions two pixels
// apart); the windows that see no padding read the image in place.
func TestDepthwiseSplit(t *testing.T) {
	for _, tc := range []struct {
		stride int
		relu   bool
		want   string
	}{
		{1, false, "1480 positions of 9 taps and 16 channels, in runs of 37 positions 16 apart"},
		{1, true, "1480 positions of 9 taps and 16 channels, in runs of 37 positions 16 apart"},
		{2, false, "760 positions of 9 taps and 16 channels, in runs of 19 positions 32 apart"},
		{2, true, "760 positions of 9 taps and 16 channels, in runs of 19 positions 32 apart"},
	} {
		relu := tc.relu
		x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 1, 40, 37, 16), false)
		if err != nil {
			t.Fatal(err)
		}
		y, _, err := layers.Conv2D("dw", x, 16, 16, [2]int{3, 3}, graph.Float32, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{1, tc.stride}, Groups: 16})
		if err != nil {
			t.Fatal(err)
		}
		if relu {
			if y, err = layers.ReLU("relu", y); err != nil {
				t.Fatal(err)
			}
		}
		in, err := lowertest.Inputs(y, 3, 0, lowertest.Dense)
		if err != nil {
			t.Fatal(err)
		}
		for gi, g := range lowertest.FusedAndUnfused(t, y) {
			for _, par := range []int{1, 0} {
				d := checkedDescribe(t, par, g, y, in)
				threads := 1
				if par == 0 {
					threads = runtime.GOMAXPROCS(0)
				}
				what := "bias added"
				if relu && gi == 0 {
					what = "then epilogue per row segment, blocks of rows as flat chunks"
				}
				want := "depthwise conv over " + tc.want + inPlace + " (kernels.Depthwise), " + what
				if !strings.Contains(d, want) || !strings.Contains(d, "threads="+strconv.Itoa(threads)) {
					t.Errorf("stride %d, relu %v, parallelism %d: no %q (threads=%d) in the plan:\n%s", tc.stride, relu, par, want, threads, d)
				}
				// The padded scratch's interior is copied in its bands
				// alone: two rows at the top and bottom, two columns at
				// the sides.
				if strings.Contains(d, "copy [40,592]") || !strings.Contains(d, "copy [2,592]") || !strings.Contains(d, "copy [40,32]") {
					t.Errorf("stride %d, relu %v, parallelism %d: the plan does not copy the bands alone:\n%s", tc.stride, relu, par, d)
				}
			}
		}
	}
}

// inPlace is what the plan says of a depthwise or grouped convolution
// that reads the windows that see no padding in place from the image.
const inPlace = ", the windows that see no border read in place from the padded operand"

// TestDepthwisePaddedInPlace: a depthwise or grouped convolution of a
// padded image reads the windows that see no padding in place from the
// image and has only the bands of the padded copy next to its border
// filled, and equals the interpreter, fused and unfused, sequential and
// parallel: "same" padding at stride 1 and 2 (uneven padding), explicit
// padding wider on one side than the other with a dilated 5×5 window,
// padding wider than the window reaches (positions whose windows see
// only padding), a 1×1 window over padding (no band to copy: a window
// sees the padding or the image), one spatial axis, groups of four
// float32 channels
// (kernels.Grouped), float64, and an image so small that the bands would
// cover it (copied whole as before).
func TestDepthwisePaddedInPlace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		dt         graph.DType
		h, w, c, g int // g: the channels of a group
		kernel     [2]int
		opt        layers.ConvOptions
		inPlace    bool
	}{
		{"same", graph.Float32, 9, 11, 8, 1, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadSame}, true},
		{"same-stride-2", graph.Float32, 10, 12, 8, 1, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}}, true},
		{"explicit-dilated-5x5", graph.Float32, 25, 13, 4, 1, [2]int{5, 5},
			layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{2, 5, 0, 3}, Dilations: []int{2, 1}}, true},
		{"pad-past-window", graph.Float32, 8, 9, 8, 1, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{3, 1, 4, 3}}, true},
		{"one-axis", graph.Float32, 1, 40, 8, 1, [2]int{1, 5}, layers.ConvOptions{Padding: layers.PadSame}, true},
		{"groups-of-4", graph.Float32, 9, 10, 16, 4, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadSame}, true},
		{"f64", graph.Float64, 7, 9, 6, 1, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{1, 2}}, true},
		{"1x1-padded", graph.Float32, 6, 7, 8, 1, [2]int{1, 1}, layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 2, 1, 1}}, true},
		{"bands-cover", graph.Float32, 4, 4, 8, 1, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadSame, Dilations: []int{2, 2}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := graph.NewInput("x", graph.ArrayOf(tc.dt, 2, tc.h, tc.w, tc.c), false)
			if err != nil {
				t.Fatal(err)
			}
			opt := tc.opt
			opt.Groups = tc.c / tc.g
			y, _, err := layers.Conv2D("conv", x, tc.c, tc.c, tc.kernel, tc.dt, opt)
			if err != nil {
				t.Fatal(err)
			}
			if y, err = layers.ReLU("relu", y); err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 5, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range lowertest.FusedAndUnfused(t, y) {
				for _, par := range []int{1, 0} {
					d := checkedDescribe(t, par, g, y, in)
					if !strings.Contains(d, "depthwise conv") && !strings.Contains(d, "grouped conv in") {
						t.Fatalf("parallelism %d: neither kernels.Depthwise nor kernels.Grouped in the plan:\n%s", par, d)
					}
					if got := strings.Contains(d, inPlace); got != tc.inPlace {
						t.Errorf("parallelism %d: read in place: %v, want %v:\n%s", par, got, tc.inPlace, d)
					}
					whole := fmt.Sprintf("copy [%d,%d]", tc.h, tc.w*tc.c)
					if got := strings.Contains(d, whole); got == tc.inPlace {
						t.Errorf("parallelism %d: %q in the plan: %v, want %v:\n%s", par, whole, got, !tc.inPlace, d)
					}
				}
			}
		})
	}
}
