package models_test

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
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
