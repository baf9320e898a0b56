package native_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// The training step of an MLP 20-12-6 with BatchNorm runs every dense
// layer's matrix products on kernels.Gemm, fused and unfused: the forward
// products (2), the weight gradients Xᵀ·dY (2, the left operand a
// transposed view that the GEMM packs in place) and the input gradient
// dY·Wᵀ of the second layer (1); none runs as a loop of dot products. The step's results equal graph.Eval's (with
// SGD: Adam's first step divides the bias gradient, which BatchNorm makes
// zero up to rounding, by its own magnitude).
func TestTrainStepGradientsRunOnGEMM(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		m, err := models.MLP(models.MLPConfig{Sizes: []int{20, 12, 6}, Batch: 9, DType: dt, Norm: models.NormBatch, Mode: models.Training})
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.SGD{LR: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		carried, err := s.InitialValues(m.RandomParams(3))
		if err != nil {
			t.Fatal(err)
		}
		x, err := graph.Zeros(dt, 9, 20)
		if err != nil {
			t.Fatal(err)
		}
		y, err := graph.Zeros(graph.Int32, 9)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 9 {
			for j := range 20 {
				x.Set(math.Sin(float64(3*i+j)), i, j)
			}
			y.Set(float64(i%6), i)
		}
		b, err := s.Bindings(carried, x, y, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, err := graph.Eval(s.Term, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"fused", "unfused"} {
			var g *fusion.Graph
			if mode == "fused" {
				res, err := fusion.Fuse(s.Term, fusion.Options{})
				if err != nil {
					t.Fatal(err)
				}
				g = res.Graph
			} else if g, err = fusion.Unfused(s.Term); err != nil {
				t.Fatal(err)
			}
			p, err := native.New(native.Options{Parallelism: 2}).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			d := p.Describe()
			// Fused, the backward pass also recomputes the first layer's
			// output for its batch statistics: that is a GEMM too, never a
			// loop of dot products.
			if got := strings.Count(d, "(kernels.Gemm)"); got < 5 {
				t.Errorf("%v %s: %d GEMMs, want at least 5:\n%s", dt, mode, got, d)
			}
			if strings.Contains(d, "(kernels.Dot)") {
				t.Errorf("%v %s: a matrix product runs as a loop of dot products:\n%s", dt, mode, d)
			}
			for _, w := range []string{"gemm 20x12x9 Aᵀ·B " + dt.String(), "gemm 12x6x9 Aᵀ·B " + dt.String(), "gemm 9x12x6 A·Bᵀ " + dt.String()} {
				if !strings.Contains(d, w) {
					t.Errorf("%v %s: plan lacks %q:\n%s", dt, mode, w, d)
				}
			}
			if strings.Contains(d, "pack ") {
				t.Errorf("%v %s: an operand is copied before its product:\n%s", dt, mode, d)
			}
			got, err := p.Run(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := graph.Diff(want, got, graph.Tolerance(dt)); diff != nil {
				t.Errorf("%v %s: the step differs from graph.Eval: %v", dt, mode, diff)
			}
			p.Close()
		}
	}
}
