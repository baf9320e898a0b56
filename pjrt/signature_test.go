package pjrt

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseSignature(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // params -> results, or the error
	}{
		{"builder", `module @dense_relu {
  func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %bias: tensor<4xf32>) -> tensor<2x4xf32> {
    "stablehlo.return"(%5) : (tensor<2x4xf32>) -> ()
  }
}`, "[%x %w %bias] [tensor<2x3xf32> tensor<3x4xf32> tensor<4xf32>] -> [tensor<2x4xf32>]"},
		{"jax", `module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf64> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<i1> loc(unknown))
      -> (tensor<8xf64> {jax.result_info = "[0]", mhlo.layout_mode = "default"}, tensor<i32>) {
    return %0, %1 : tensor<8xf64>, tensor<i32>
  }
}`, "[%arg0 %arg1] [tensor<8xf64> tensor<i1>] -> [tensor<8xf64> tensor<i32>]"},
		{"no params", `func.func @main() -> tensor<f32> {`, "[] [] -> [tensor<f32>]"},
		{"no results", `func.func @main(%a: tensor<1xf32>) {`, "[%a] [tensor<1xf32>] -> []"},
		{"other functions first", `func.func private @helper(%a: tensor<9xi64>) -> tensor<9xi64> { }
func.func @main(%a: tensor<1x1x1xi32>) -> tensor<1xf32> {`, "[%a] [tensor<1x1x1xi32>] -> [tensor<1xf32>]"},
		{"encoding", `func.func @main(%a: tensor<4xf32, #enc<"x, y">>) -> tensor<4xf32> {`, "[%a] [tensor<4xf32>] -> [tensor<4xf32>]"},
		{"no main", `func.func @other() {`, "error: no 'func.func @main(' in the program"},
		{"i64", `func.func @main(%a: tensor<2xi64>) -> tensor<2xf32> {`, "error: @main parameter 0 %a: element type i64 in tensor<2xi64> is not supported (want f32, f64, i32 or i1)"},
		{"bf16 result", `func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<bf16>) {`, "error: @main result 1: element type bf16 in tensor<bf16> is not supported (want f32, f64, i32 or i1)"},
		{"dynamic", `func.func @main(%a: tensor<?x3xf32>) {`, `error: @main parameter 0 %a: extent "?" in tensor<?x3xf32> is not a static size`},
		{"token", `func.func @main(%a: !stablehlo.token) {`, "error: @main parameter 0 %a: type !stablehlo.token is not a tensor"},
		{"unclosed", `func.func @main(%a: tensor<2xf32>`, "error: @main parameters: no closing ')'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig, err := parseSignature(tc.text)
			got := ""
			if err != nil {
				got = "error: " + err.Error()
			} else {
				got = fmt.Sprintf("%v %v -> %v", sig.paramNames, sig.params, sig.results)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestTensorTypeString(t *testing.T) {
	sig, err := parseSignature(`func.func @main(%a: tensor<f64>, %b: tensor<0x5xi1>) {`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sig.params); got != "[tensor<f64> tensor<0x5xi1>]" {
		t.Errorf("got %s", got)
	}
	if sig.params[1].Size() != 0 || sig.params[0].Size() != 1 {
		t.Errorf("sizes %d %d", sig.params[0].Size(), sig.params[1].Size())
	}
	if !strings.Contains(TensorType{DType: 0}.String(), "tensor<") {
		t.Error("invalid dtype does not print")
	}
}
