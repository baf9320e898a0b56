package models

import (
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/optim"
)

// stepOf builds the training step of an MLP 4-3-2 (batch 6, f64, ReLU)
// with the norm and optimizer given.
func stepOf(t *testing.T, norm Norm, opt optim.Optimizer) *Step {
	t.Helper()
	m, err := MLP(MLPConfig{Sizes: []int{4, 3, 2}, Batch: 6, DType: graph.Float64, Norm: norm, Mode: Training})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.TrainStep(TrainConfig{Optimizer: opt})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// batchOf returns a fixed batch of 6 rows of 4 features and labels in
// two classes.
func batchOf(t *testing.T) (graph.Value, graph.Value) {
	t.Helper()
	x, err := graph.FromFloat64([]float64{
		0.9, 0.8, -0.1, 0.2, -0.5, -0.7, 0.6, 0.9, 0.3, 0.6, 0.1, -0.4,
		-0.2, 0.1, 0.8, 0.5, 0.7, -0.1, -0.6, 0.3, -0.8, -0.3, 0.2, 0.4}, 6, 4)
	if err != nil {
		t.Fatal(err)
	}
	y, err := graph.Zeros(graph.Int32, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2, 4} {
		y.Set(1, i)
	}
	return x, y
}

// TrainStep refuses a batch of 1 with BatchNorm training (MLP already
// does), a model built for inference with BatchNorm, and a missing
// optimizer, each with a message naming the layer or the field.
func TestTrainStepErrors(t *testing.T) {
	_, err := MLP(MLPConfig{Sizes: []int{4, 3, 2}, Batch: 1, DType: graph.Float64, Norm: NormBatch, Mode: Training})
	want := "MLPConfig.Batch: 1: BatchNorm in training mode needs a batch of at least 2"
	if err == nil || err.Error() != want {
		t.Errorf("batch 1: got %v, want %s", err, want)
	}
	m, err := MLP(MLPConfig{Sizes: []int{4, 3, 2}, Batch: 4, DType: graph.Float64, Norm: NormBatch})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.TrainStep(TrainConfig{Optimizer: optim.NewAdam(0.01)})
	want = "models: mlp: training step: bn1: BatchNorm built in inference mode: build the model with Mode: Training"
	if err == nil || err.Error() != want {
		t.Errorf("inference mode: got %v, want %s", err, want)
	}
	_, err = m.TrainStep(TrainConfig{})
	want = "models: mlp: training step: TrainConfig.Optimizer is nil, want optim.SGD or optim.Adam"
	if err == nil || err.Error() != want {
		t.Errorf("no optimizer: got %v, want %s", err, want)
	}
}

// Each parameter gets its own gradient: with plain SGD (LR 0.5) the step's
// new parameters are p - 0.5·dL/dp, with the gradients from autodiff.Grad
// of the loss evaluated apart from the step, and the step's loss is the
// loss. dense1.b, bn1.scale and bn1.shift have one type, so a mix-up would
// type-check.
func TestTrainStepWiring(t *testing.T) {
	s := stepOf(t, NormBatch, optim.SGD{LR: 0.5})
	init, err := s.InitialValues(s.Model.RandomParams(5))
	if err != nil {
		t.Fatal(err)
	}
	x, y := batchOf(t)
	b, err := s.Bindings(init, x, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graph.Eval(s.Term, b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := autodiff.Grad(s.Loss, s.Model.Params)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Stats { // the loss does not read the running statistics
		delete(b, st.Name)
	}
	grads, err := graph.Eval(g, b)
	if err != nil {
		t.Fatal(err)
	}
	gt, tt := grads.(graph.TupleValue), got.(graph.TupleValue)
	if err := graph.Diff(gt[0], tt[0], 0); err != nil {
		t.Errorf("loss: %v", err)
	}
	for i, p := range s.Model.Params {
		pv, gv := init[p.Name].(*graph.Array), gt[i+1].(*graph.Array)
		want := pv.Copy()
		for k := range want.Size() {
			idx := unflat(k, pv.Extents())
			want.Set(pv.At(idx...)-0.5*gv.At(idx...), idx...)
		}
		if err := graph.Diff(want, tt[i+1], 1e-15); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

// unflat returns the row-major index of element k of an array of the
// given extents.
func unflat(k int, extents []int) []int {
	idx := make([]int, len(extents))
	for d := len(extents) - 1; d >= 0; d-- {
		idx[d] = k % extents[d]
		k /= extents[d]
	}
	return idx
}
