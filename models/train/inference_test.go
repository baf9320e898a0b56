package train

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// After training, the same network built in inference mode runs, fused, on
// the learned weights and BatchNorm's running statistics, and computes what
// plain loops compute from those values.
func TestInferenceAfterTraining(t *testing.T) {
	s := tinyStep(t, models.NormBatch, optim.SGD{LR: 0.1, Momentum: 0.9})
	x, y := toyBatch(t, graph.Float64)
	init, err := s.InitialValues(s.Model.RandomParams(1))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(s, native.New(native.Options{}), Options{}, init)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for range 5 {
		if _, err := tr.Step(x, y); err != nil {
			t.Fatal(err)
		}
	}

	inf, err := models.MLP(models.MLPConfig{Sizes: []int{4, 3, 2}, Batch: 6, DType: graph.Float64, Norm: models.NormBatch, Mode: models.Inference})
	if err != nil {
		t.Fatal(err)
	}
	in, err := tr.InferenceBindings(inf)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != len(inf.Params) {
		t.Fatalf("%d bindings for %d parameters", len(in), len(inf.Params))
	}
	// Five steps moved the running statistics from their start (mean 0,
	// variance 1).
	if m := in["bn1.mean"].(*graph.Array); m.At(0) == 0 && m.At(1) == 0 && m.At(2) == 0 {
		t.Fatalf("bn1.mean is still 0 after 5 steps: %v", m)
	}
	in[inf.Input.Name] = x

	res, err := fusion.Fuse(inf.Output, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := native.New(native.Options{}).Compile(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	got, err := exe.Run(in)
	if err != nil {
		t.Fatal(err)
	}

	// The same forward pass, written out: dense1, inference BatchNorm with
	// the running statistics, ReLU, dense2.
	a := func(name string) *graph.Array { return in[name].(*graph.Array) }
	xa := x.(*graph.Array)
	want, err := graph.Zeros(graph.Float64, 6, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		h := make([]float64, 3)
		for j := range 3 {
			v := a("dense1.b").At(j)
			for k := range 4 {
				v += xa.At(i, k) * a("dense1.W").At(k, j)
			}
			v = (v-a("bn1.mean").At(j))/math.Sqrt(a("bn1.var").At(j)+layers.DefaultBatchNormEps)*a("bn1.scale").At(j) + a("bn1.shift").At(j)
			h[j] = max(v, 0)
		}
		for j := range 2 {
			v := a("dense2.b").At(j)
			for k := range 3 {
				v += h[k] * a("dense2.W").At(k, j)
			}
			want.Set(v, i, j)
		}
	}
	if err := graph.Diff(want, got, graph.Tolerance(graph.Float64)); err != nil {
		t.Fatalf("inference after training: %v", err)
	}
}

// A model that is not the trained network is refused by name.
func TestInferenceBindingsOtherModel(t *testing.T) {
	s := tinyStep(t, models.NormBatch, optim.SGD{LR: 0.1})
	init, err := s.InitialValues(s.Model.RandomParams(1))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(s, native.New(native.Options{}), Options{}, init)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	wider, err := models.MLP(models.MLPConfig{Sizes: []int{4, 5, 2}, Batch: 6, DType: graph.Float64, Norm: models.NormBatch, Mode: models.Inference})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.InferenceBindings(wider)
	want := "train: the inference model's dense1.W: needs f64[4,5], got f64[4,3]"
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v, want %q", err, want)
	}
	deeper, err := models.MLP(models.MLPConfig{Sizes: []int{4, 3, 2, 2}, Batch: 6, DType: graph.Float64, Norm: models.NormBatch, Mode: models.Inference})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.InferenceBindings(deeper)
	want = "train: the inference model reads bn2.mean, which the training step does not carry; build the same network in inference mode"
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v, want %q", err, want)
	}
}
