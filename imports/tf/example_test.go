package tf_test

import (
	"errors"
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf"
)

// Import a frozen Keras classifier, read its coverage report, and run it
// with the reference interpreter on one row of zeros.
func ExampleImport() {
	m, err := tf.Import("testdata/keras_digits.pb", imports.Options{Batch: 1})
	var ce *imports.CoverageError
	if errors.As(err, &ce) {
		fmt.Print(ce.Coverage.Text()) // every node hofuse cannot convert
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(m.Coverage.Text())
	fmt.Println("input:", m.Inputs[0].Name, m.Inputs[0].Type, "parameters:", len(m.Params))

	x, _ := graph.Zeros(graph.Float32, 1, 64)
	bind, err := m.Bindings(map[string]graph.Value{"input": x})
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := graph.Eval(m.Term, bind)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum := 0.0
	for _, p := range y.(*graph.Array).Values() {
		sum += p
	}
	fmt.Printf("%s %v, probabilities summing to %.4f\n", m.Outputs[0].Name, m.Outputs[0].Type, sum)
	// Output:
	// testdata/keras_digits.pb: tf, 32 nodes, outputs: Identity
	//   ops: AddV2 2, BiasAdd 2, Const 9, Identity 9, MatMul 2, Mul 3, Placeholder 1, Relu 1, Rsqrt 1, Softmax 1, Sub 1
	//   unsupported: none
	// input: input f32[1,64] parameters: 8
	// Identity f32[1,10], probabilities summing to 1.0000
}
