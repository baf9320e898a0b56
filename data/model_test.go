package data_test

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// The batches of the digits bind as the input "x" and the labels of the
// MLP's training step at their batch size, the last, smaller batch
// included, and the step evaluates to a finite loss on them.
func TestBatchesFeedTheTrainingStep(t *testing.T) {
	d, err := data.Digits()
	if err != nil {
		t.Fatal(err)
	}
	seq, err := d.Batches(256, data.BatchOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	steps := map[int]*models.Step{}
	var sizes []int
	for b := range seq {
		n := b.Size()
		sizes = append(sizes, n)
		s := steps[n]
		if s == nil {
			m, err := models.MLP(models.MLPConfig{Sizes: []int{d.Features(), d.Classes()}, Batch: n, DType: d.DType()})
			if err != nil {
				t.Fatal(err)
			}
			if s, err = m.TrainStep(models.TrainConfig{Optimizer: optim.SGD{LR: 0.1}}); err != nil {
				t.Fatal(err)
			}
			steps[n] = s
		}
		if !graph.SameShape(b.X.Type(), s.Model.Input.Type) || b.X.DType() != s.Model.Input.Type.(*graph.ArrayType).DType {
			t.Fatalf("batch x is %v, the model's input %v", b.X.Type(), s.Model.Input.Type)
		}
		if err := s.CheckLabels(b.Labels); err != nil {
			t.Fatal(err)
		}
		if n != 256 { // the last, smaller batch is evaluated; the full ones differ only in their rows
			init, err := s.InitialValues(s.Model.RandomParams(3))
			if err != nil {
				t.Fatal(err)
			}
			bind, err := s.Bindings(init, b.X, b.Labels, 1)
			if err != nil {
				t.Fatal(err)
			}
			out, err := graph.Eval(s.Term, bind)
			if err != nil {
				t.Fatal(err)
			}
			loss := out.(graph.TupleValue)[0]
			if v := loss.(graph.ScalarValue).V; math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				t.Errorf("loss on the last batch of %d rows = %v", n, v)
			}
		}
	}
	if len(sizes) != 8 || sizes[7] != 1797-7*256 {
		t.Errorf("batch sizes %v, want seven of 256 and one of 5", sizes)
	}
}
