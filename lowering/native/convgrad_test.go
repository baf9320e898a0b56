package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// convGradTerm returns the gradient of sum(y · c) with respect to every
// input of the convolution case (x, the kernel, the bias, BatchNorm's
// parameters), c a fixed input of y's shape: the backward convolutions
// (the weight gradient, a contraction over the batch and the window
// positions; the input gradient, a sum of crops and pads) under test.
func convGradTerm(t *testing.T, cc lowertest.ConvCase) graph.Node {
	t.Helper()
	y, err := cc.Build()
	if err != nil {
		t.Fatal(err)
	}
	info, err := graph.Check(y)
	if err != nil {
		t.Fatal(err)
	}
	yt := info.Types[y].(*graph.ArrayType)
	c, err := graph.NewInput("c", yt, false)
	if err != nil {
		t.Fatal(err)
	}
	rank := len(yt.Layout)
	body := "rnz (+) (*) a b"
	for range rank - 1 {
		body = `rnz (+) (\a b -> ` + body + `) a b`
	}
	fn, err := graph.ParseTerm(`\a b -> ` + body)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := graph.NewApp(fn, y, c)
	if err != nil {
		t.Fatal(err)
	}
	g, err := autodiff.Grad(loss, info.Inputs)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestConvGradGemm checks the gradients of every convolution case
// (odd sizes, strides, dilations, paddings, groups, both layouts, f32 and
// f64) on the native back end against the interpreter, fused and unfused,
// sequential and parallel, and that the weight gradient of each
// ungrouped channels-last convolution, a contraction over the batch and
// the window positions, runs as one GEMM ("contraction as gemm").
func TestConvGradGemm(t *testing.T) {
	for _, cc := range lowertest.ConvCases() {
		t.Run(cc.Name, func(t *testing.T) {
			g := convGradTerm(t, cc)
			in, err := lowertest.Inputs(g, 5, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			want := cc.Opt.Format != layers.ChannelsFirst && max(cc.Opt.Groups, 1) == 1
			for i, kg := range lowertest.FusedAndUnfused(t, g) {
				for _, par := range []int{1, 0} {
					b := native.New(native.Options{Parallelism: par})
					lowertest.Check(t, b, kg, g, in, 0)
					p, err := b.Plan(kg)
					if err != nil {
						t.Fatal(err)
					}
					d := p.Describe()
					p.Close()
					if got := strings.Contains(d, "contraction as gemm"); want && !got {
						t.Errorf("fused=%v parallelism %d: no contraction as gemm in the plan:\n%s", i == 0, par, d)
					}
				}
			}
		})
	}
}

// TestGatherContractionThreads checks a convolution's weight gradient
// large enough (27x8x1600, past gatherForkMin) that kernels.GatherGemm computes it in blocks
// of rows over the pool's goroutines, fused, against the interpreter, f32
// and f64.
func TestGatherContractionThreads(t *testing.T) {
	if !kernels.GatherAvailable() {
		t.Skip("the gather kernels need AVX2")
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		cc := lowertest.ConvCase{Name: "wide-batch", DType: dt, Batch: 16, H: 10, W: 10, In: 3, Out: 8, KH: 3, KW: 3,
			Opt: layers.ConvOptions{Padding: layers.PadSame}}
		g := convGradTerm(t, cc)
		in, err := lowertest.Inputs(g, 13, 0, lowertest.Dense)
		if err != nil {
			t.Fatal(err)
		}
		fused := lowertest.FusedAndUnfused(t, g)[0]
		d := checkedDescribe(t, 2, fused, g, in)
		if !strings.Contains(d, "contraction as gemm 27x8x1600: left operand read through its offsets") || !strings.Contains(d, "threads=2 (kernels.GatherGemm)") {
			t.Errorf("%v: the weight gradient is not gathered on two threads:\n%s", dt, d)
		}
	}
}

// TestStridedContraction runs contractions written as nested maps over
// windows whose operands are no matrices (their free axes do not merge),
// so that the left operand is read through its offset tables by
// kernels.GatherGemm (where the machine has it) or packed through them
// (the contracted axes contiguous: PackRows), the right one is packed
// into scratch, and the product is written in place or scattered, f32
// and f64, sequential and parallel, against the interpreter.
func TestStridedContraction(t *testing.T) {
	t.Run("packed", func(t *testing.T) {
		native.DisableGather(t)
		testStridedContraction(t, "left operand packed from its strides")
	})
	if kernels.GatherAvailable() {
		t.Run("gathered", func(t *testing.T) { testStridedContraction(t, "left operand read through its offsets") })
	}
}

func testStridedContraction(t *testing.T, left string) {
	const body = `rnz (+) (\p q -> rnz (+) (*) p q) a1 b1`
	cases := []struct {
		name, term string
		notes      []string
	}{
		{"in-place", `map (\a -> map (\a1 -> map (\b -> map (\b1 -> ` + body + `) b) (window 0 2 3 Y)) a) (window 1 3 2 X)`,
			[]string{"contraction as gemm 8x4x30: " + left, "right operand packed into scratch", "product in place"}},
		{"scattered", `map (\a -> map (\b -> map (\a1 -> map (\b1 -> ` + body + `) b) a) (window 0 2 3 Y)) (window 1 3 2 X)`,
			[]string{"contraction as gemm 8x4x30: " + left, "right operand packed into scratch", "product scattered from scratch"}},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) {
				prog, err := graph.Parse("X : " + dt.String() + "[4,5,10]; Y : " + dt.String() + "[5,3,10]; " + tc.term)
				if err != nil {
					t.Fatal(err)
				}
				in, err := lowertest.Inputs(prog.Body, 3, 0, lowertest.Dense)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range lowertest.FusedAndUnfused(t, prog.Body) {
					for _, par := range []int{1, 0} {
						d := checkedDescribe(t, par, g, prog.Body, in)
						for _, w := range tc.notes {
							if !strings.Contains(d, w) {
								t.Errorf("parallelism %d: plan lacks %q:\n%s", par, w, d)
							}
						}
					}
				}
			})
		}
	}
}
