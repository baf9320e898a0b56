package pjrt_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// addAndSum returns a + b and the sum of a's elements: a row-major result
// and a rank-0 one.
const addAndSum = `func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = "stablehlo.constant"() { value = dense<0.0> : tensor<f32> } : () -> tensor<f32>
  %1 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) { dimensions = array<i64: 0, 1> } : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  "func.return"(%0, %1) : (tensor<2x3xf32>, tensor<f32>) -> ()
}`

// An input slot reused by two runs gives each run its own value (on a CPU
// plugin, the second value overwrites the first in the slot's memory), a
// Call reads the array result into the caller's array in place and the
// scalar into a new value, and a transposed view is copied in row-major
// order.
func TestInputSlotAndCall(t *testing.T) {
	c := pjrttest.Client(t)
	e, err := c.Compile(addAndSum)
	if err != nil {
		t.Fatal(err)
	}
	typ := pjrt.TensorType{DType: graph.Float32, Dims: []int{2, 3}}
	slot, err := c.NewInputSlot(typ)
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Close()
	if c.Platform() == "cpu" && !slot.Shared() {
		t.Errorf("on a CPU plugin the slot should be a view of host memory")
	}
	b, err := c.ToDevice(array(t, graph.Float32, []float64{10, 20, 30, 40, 50, 60}, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destroy()
	call := e.NewCall()
	sum, err := graph.Zeros(graph.Float32, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	// The second value is a transposed view: its elements in row-major
	// order are 1 3 5 2 4 6.
	tr, err := array(t, graph.Float32, []float64{1, 2, 3, 4, 5, 6}, 3, 2).Flip(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in      graph.Value
		want    []float64
		wantSum float64
	}{
		{array(t, graph.Float32, []float64{1, 2, 3, 4, 5, 6}, 2, 3), []float64{11, 22, 33, 44, 55, 66}, 21},
		{array(t, graph.Float32, []float64{-1, 0, 1, 2, 3, 4}, 2, 3), []float64{9, 20, 31, 42, 53, 64}, 9},
		{tr, []float64{11, 23, 35, 42, 54, 66}, 21},
	} {
		a, err := slot.Set(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		out := []graph.Value{sum, nil}
		if err := call.Run([]*pjrt.Buffer{a, b}, out); err != nil {
			t.Fatal(err)
		}
		if out[0] != graph.Value(sum) {
			t.Errorf("the array result was not read into the caller's array")
		}
		if got := sum.Values(); !equal(got, tc.want) {
			t.Errorf("a + b = %v, want %v", got, tc.want)
		}
		if s, ok := out[1].(graph.ScalarValue); !ok || s.V != tc.wantSum {
			t.Errorf("sum = %v, want %v", out[1], tc.wantSum)
		}
	}

	if _, err := slot.Set(array(t, graph.Float32, []float64{1, 2}, 2)); err == nil || !strings.Contains(err.Error(), "pjrt: input slot: got f32[2], want tensor<2x3xf32>") {
		t.Errorf("wrong shape: %v", err)
	}
	if err := call.Run([]*pjrt.Buffer{b}, nil); err == nil || !strings.Contains(err.Error(), "got 1 inputs, the program takes 2") {
		t.Errorf("too few inputs: %v", err)
	}
	f64, _ := graph.Zeros(graph.Float64, 2, 3)
	out, err := e.RunBuffers([]*pjrt.Buffer{b, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out[0].Destroy()
	defer out[1].Destroy()
	if err := out[0].CopyTo(f64); err == nil || !strings.Contains(err.Error(), "pjrt: copy to host: destination: got f64[2 3], want tensor<2x3xf32>") {
		t.Errorf("CopyTo a wrong type: %v", err)
	}
	if err := out[0].CopyTo(sum); err != nil {
		t.Fatal(err)
	}
	if got := sum.Values(); !equal(got, []float64{20, 40, 60, 80, 100, 120}) {
		t.Errorf("CopyTo: %v", got)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
