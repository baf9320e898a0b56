package layers_test

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// A dense layer from 3 to 4 features on a batch of 2, printed in the
// notation, with its parameters and its output type.
func ExampleDense() {
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 2, 3), false)
	if err != nil {
		panic(err)
	}
	y, p, err := layers.Dense("dense1", x, 3, 4, graph.Float32)
	if err != nil {
		panic(err)
	}
	info, err := graph.Check(y)
	if err != nil {
		panic(err)
	}
	fmt.Println(graph.Print(y))
	fmt.Println(p.W.Name, p.W.Type, p.B.Name, p.B.Type)
	fmt.Println(info.TypeOf(y))
	// Output:
	// map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x
	// dense1.W f32[3,4] dense1.b f32[4]
	// f32[2,4]
}

// Wrong input shapes are errors that name the layer.
func ExampleDense_error() {
	x, _ := graph.NewInput("x", graph.ArrayOf(graph.Float32, 2, 3), false)
	_, _, err := layers.Dense("dense1", x, 5, 4, graph.Float32)
	fmt.Println(err)
	// Output:
	// dense1 (Dense): x has type f32[2,3], want f32[batch,5]: axis 1 (in) has extent 3, not 5
}

// MapScalar builds a custom elementwise layer from a scalar function.
func ExampleMapScalar() {
	x, _ := graph.NewInput("x", graph.ArrayOf(graph.Float64, 2, 3), false)
	y, err := layers.MapScalar("Square", "square1", x, func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Mul(v, v)
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(graph.PrintWith(y, graph.PrintOptions{Sources: true}))
	// Output:
	// @square1 (map (\r -> map (\v -> v * v) r) x)
}
