package models_test

import (
	"fmt"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/optim"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
)

// The MNIST-sized MLP with BatchNorm: its layers, parameter tensors and
// scalar parameter count, and its output type.
func ExampleMLP() {
	m, err := models.MLP(models.MLPConfig{
		Sizes: []int{784, 512, 512, 10},
		Batch: 32,
		DType: graph.Float32,
		Norm:  models.NormBatch,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Layers)
	fmt.Println(len(m.Params), "parameter tensors,", m.NumParams(), "parameters")
	fmt.Println(m.Input.Type, "->", m.OutputType)
	// Output:
	// [dense1 bn1 relu1 dense2 bn2 relu2 dense3]
	// 14 parameter tensors, 673802 parameters
	// f32[32,784] -> f32[32,10]
}

// A tiny MLP evaluated with the reference interpreter.
func ExampleModel_Bindings() {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{3, 4, 2}, Batch: 2, DType: graph.Float64})
	if err != nil {
		panic(err)
	}
	y, err := graph.Eval(m.Output, m.Bindings(1))
	if err != nil {
		panic(err)
	}
	fmt.Println(graph.Print(m.Output))
	fmt.Println(y.(*graph.Array).Extents())
	// Output:
	// map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense2.W)) dense2.b) (map (\r -> map (\v -> max v 0) r) (map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x))
	// [2 2]
}

// Training a tiny MLP with BatchNorm and Adam on the native back end: the
// step is one term, compiled once and run ten times on one batch.
func ExampleModel_TrainStep() {
	m, err := models.MLP(models.MLPConfig{
		Sizes: []int{2, 4, 2}, Batch: 4, DType: graph.Float64,
		Norm: models.NormBatch, Mode: models.Training,
	})
	if err != nil {
		panic(err)
	}
	step, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.05)})
	if err != nil {
		panic(err)
	}
	init, err := step.InitialValues(m.RandomParams(1))
	if err != nil {
		panic(err)
	}
	tr, err := train.New(step, native.New(native.Options{}), train.Options{}, init)
	if err != nil {
		panic(err)
	}
	defer tr.Close()
	x, _ := graph.FromFloat64([]float64{1, 0, 0, 1, -1, 0, 0, -1}, 4, 2)
	labels, _ := graph.Zeros(graph.Int32, 4)
	labels.Set(1, 1) // rows 1 and 3 are class 1
	labels.Set(1, 3)
	var first, last float64
	for i := range 10 {
		loss, err := tr.Step(x, labels)
		if err != nil {
			panic(err)
		}
		if i == 0 {
			first = loss
		}
		last = loss
	}
	fmt.Println(step.Outputs[0].Name, step.Outputs[len(step.Outputs)-1].Name)
	fmt.Println("loss decreased:", last < first)
	// Output:
	// dense1.W bn1.var
	// loss decreased: true
}
