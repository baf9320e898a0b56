package models

import (
	"testing"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/optim"
)

// toyBatch returns a fixed batch of 6 rows of 4 features and its labels in
// two classes: the class is whether the first two features outweigh the
// last two.
func toyBatch(t *testing.T, dt graph.DType) (graph.Value, graph.Value) {
	t.Helper()
	rows := [][]float64{
		{0.9, 0.8, -0.1, 0.2},
		{-0.5, -0.7, 0.6, 0.9},
		{0.3, 0.6, 0.1, -0.4},
		{-0.2, 0.1, 0.8, 0.5},
		{0.7, -0.1, -0.6, 0.3},
		{-0.8, -0.3, 0.2, 0.4},
	}
	x, err := graph.Zeros(dt, len(rows), 4)
	if err != nil {
		t.Fatal(err)
	}
	y, err := graph.Zeros(graph.Int32, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		for j, v := range r {
			x.Set(v, i, j)
		}
		if r[0]+r[1] > r[2]+r[3] {
			y.Set(1, i)
		}
	}
	return x, y
}

func tinyStep(t *testing.T, norm Norm, opt optim.Optimizer) *Step {
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

// A training step of an MLP 4-3-2 with ReLU and each norm decreases the
// loss over 20 steps of SGD with momentum and of Adam on a fixed batch, on
// the native back end fused and unfused, and each step's result agrees with
// graph.Eval of the step term within graph.Tolerance.
func TestTrainStepNative(t *testing.T) {
	for _, norm := range []Norm{NormNone, NormBatch, NormLayer} {
		for _, opt := range []optim.Optimizer{optim.SGD{LR: 0.1, Momentum: 0.9}, optim.NewAdam(0.01)} {
			t.Run(norm.String()+"/"+opt.Name(), func(t *testing.T) {
				s := tinyStep(t, norm, opt)
				x, y := toyBatch(t, graph.Float64)
				init, err := s.InitialValues(s.Model.RandomParams(1))
				if err != nil {
					t.Fatal(err)
				}
				for _, fused := range []bool{true, false} {
					start := time.Now()
					tr, err := s.NewTrainer(native.New(native.Options{}), fused, init)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("fused %v: compiled in %v", fused, time.Since(start))
					var first, last float64
					for i := range 20 {
						b, err := s.Bindings(tr.Values(), x, y, i+1)
						if err != nil {
							t.Fatal(err)
						}
						want, err := graph.Eval(s.Term, b)
						if err != nil {
							t.Fatal(err)
						}
						loss, err := tr.Step(x, y)
						if err != nil {
							t.Fatal(err)
						}
						got := graph.TupleValue{graph.ScalarValue{DType: graph.Float64, V: loss}}
						for _, in := range s.Outputs {
							got = append(got, tr.Values()[in.Name])
						}
						if err := graph.Diff(want, got, graph.Tolerance(graph.Float64)); err != nil {
							t.Fatalf("fused %v, step %d: %v", fused, i+1, err)
						}
						if i == 0 {
							first = loss
						}
						last = loss
					}
					if !(last < first) {
						t.Errorf("fused %v: loss went from %v to %v in 20 steps, want a decrease", fused, first, last)
					}
					t.Logf("fused %v: loss %v -> %v", fused, first, last)
					tr.Close()
				}
			})
		}
	}
}
