package imports

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

func TestOptionsDefaults(t *testing.T) {
	var o Options
	if got := o.BatchOrDefault(); got != 1 {
		t.Errorf("BatchOrDefault = %d, want 1", got)
	}
	if got := o.MaxFileBytesOrDefault(); got != 1<<30 {
		t.Errorf("MaxFileBytesOrDefault = %d, want %d", got, 1<<30)
	}
	o = Options{Batch: 32, MaxFileBytes: 10}
	if o.BatchOrDefault() != 32 || o.MaxFileBytesOrDefault() != 10 {
		t.Errorf("explicit options not kept: %d %d", o.BatchOrDefault(), o.MaxFileBytesOrDefault())
	}
}

func TestSelectOutputs(t *testing.T) {
	all := []string{"label", "probabilities"}
	got, err := Options{}.SelectOutputs(all)
	if err != nil || strings.Join(got, ",") != "label,probabilities" {
		t.Errorf("all outputs: got %v, %v", got, err)
	}
	got, err = Options{Outputs: []string{"probabilities"}}.SelectOutputs(all)
	if err != nil || strings.Join(got, ",") != "probabilities" {
		t.Errorf("one output: got %v, %v", got, err)
	}
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Outputs: []string{"probs"}}, `no output named "probs"; the model's outputs are label, probabilities`},
		{Options{Outputs: []string{"label", "label"}}, `output "label" asked for twice`},
		{Options{Batch: -1}, "batch -1: a batch size must be between 1 and 1099511627776"},
	} {
		_, err := tc.opt.SelectOutputs(all)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.opt, err, tc.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{File: "m.onnx", Msg: "truncated"}, "m.onnx: truncated"},
		{&Error{File: "m.onnx", Node: "gemm1", Op: "Gemm", Msg: "input B has rank 3"}, `m.onnx: node "gemm1" (Gemm): input B has rank 3`},
		{&Error{File: "m.pb", Node: "", Op: "Relu", Msg: "x", Err: errors.New("inner")}, `m.pb: node "" (Relu): x: inner`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	inner := errors.New("inner")
	if !errors.Is(&Error{Err: inner}, inner) {
		t.Error("Unwrap does not reach the underlying error")
	}
}

func sampleCoverage() *Coverage {
	c := NewCoverage("digits.onnx", "onnx")
	c.Opset = 13
	c.Count("", "Gemm")
	c.Count("", "Gemm")
	c.Count("", "Relu")
	c.Count("", "Conv")
	c.Refuse(Unsupported{Op: "Conv", Opset: 13, Node: "conv1", Reason: "no converter (sliding windows are not supported yet)"})
	c.Refuse(Unsupported{Domain: "com.example", Op: "Fancy", Opset: 1, Node: "f", Reason: "unknown domain"})
	c.Outputs = []string{"probabilities"}
	c.PrunedOutputs = []string{"label"}
	c.Pruned = []PrunedNode{{Node: "argmax", Op: "ai.onnx.ml:ArgMax"}}
	c.Warn("opset %d is newer than the tested opsets (7-22); tried anyway", 23)
	return c
}

func TestCoverageText(t *testing.T) {
	want := `digits.onnx: onnx, opset 13, 4 nodes, outputs: probabilities
  ops: Conv 1, Gemm 2, Relu 1
  unsupported (2):
    Conv (opset 13) at node "conv1": no converter (sliding windows are not supported yet)
    Fancy (opset 1, domain com.example) at node "f": unknown domain
  pruned outputs: label
  pruned nodes (1): ai.onnx.ml:ArgMax "argmax"
  warning: opset 23 is newer than the tested opsets (7-22); tried anyway
`
	if got := sampleCoverage().Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	ok := NewCoverage("m.onnx", "onnx")
	ok.Count("ai.onnx.ml", "Scaler")
	ok.Outputs = []string{"y"}
	want = "m.onnx: onnx, 1 node, outputs: y\n  ops: ai.onnx.ml:Scaler 1\n  unsupported: none\n"
	if got := ok.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCoverageErr(t *testing.T) {
	c := sampleCoverage()
	err := c.Err()
	var ce *CoverageError
	if !errors.As(err, &ce) || ce.Coverage != c {
		t.Fatalf("Err = %v, want a *CoverageError carrying the report", err)
	}
	want := `digits.onnx: 2 unsupported nodes: Conv (opset 13) at node "conv1": no converter (sliding windows are not supported yet); ` +
		`Fancy (opset 1, domain com.example) at node "f": unknown domain`
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err.Error(), want)
	}
	if NewCoverage("a", "onnx").Err() != nil {
		t.Error("an empty report is an error")
	}
}

func TestCoverageJSON(t *testing.T) {
	data, err := sampleCoverage().JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back["file"] != "digits.onnx" || back["opset"] != 13.0 || back["nodes"] != 4.0 {
		t.Errorf("header keys: %v", back)
	}
	uns := back["unsupported"].([]any)
	if len(uns) != 2 || uns[0].(map[string]any)["node"] != "conv1" || uns[1].(map[string]any)["domain"] != "com.example" {
		t.Errorf("unsupported: %v", uns)
	}
	if back["ops"].(map[string]any)["Gemm"] != 2.0 {
		t.Errorf("ops: %v", back["ops"])
	}
	// Empty lists are [] for readers that iterate without a nil check.
	empty, err := (&Coverage{File: "x", Format: "tf"}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"unsupported": []`, `"pruned": []`, `"warnings": []`, `"ops": {}`} {
		if !strings.Contains(string(empty), key) {
			t.Errorf("empty report JSON lacks %s:\n%s", key, empty)
		}
	}
}

func TestModelBindingsAndOutputs(t *testing.T) {
	x, _ := graph.NewInput("x", graph.ArrayOf(graph.Float32, 2), false)
	w, _ := graph.NewInput("w", graph.ArrayOf(graph.Float32, 2), true)
	wv, _ := graph.FromFloat32([]float32{1, 2}, 2)
	xv, _ := graph.FromFloat32([]float32{3, 4}, 2)
	m := &Model{Inputs: []*graph.Input{x}, Params: []*graph.Input{w}, Values: map[string]graph.Value{"w": wv},
		Outputs: []Output{{Name: "a"}, {Name: "b"}}}
	b, err := m.Bindings(map[string]graph.Value{"x": xv})
	if err != nil || b["w"] != wv || b["x"] != xv || len(b) != 2 {
		t.Errorf("Bindings = %v, %v", b, err)
	}
	if _, err := m.Bindings(nil); err == nil || err.Error() != "input x (f32[2]) is not bound" {
		t.Errorf("missing data: %v", err)
	}
	if _, err := m.Bindings(map[string]graph.Value{"x": xv, "w": wv}); err == nil || err.Error() != "w is a parameter of the model, not a data input" {
		t.Errorf("parameter as data: %v", err)
	}
	outs, err := m.OutputValues(graph.TupleValue{xv, wv})
	if err != nil || outs["a"] != xv || outs["b"] != wv {
		t.Errorf("OutputValues = %v, %v", outs, err)
	}
	if _, err := m.OutputValues(xv); err == nil || err.Error() != "the model has 2 outputs, the value is f32[2]" {
		t.Errorf("OutputValues of a non-tuple: %v", err)
	}
	if _, ok := m.Output("b"); !ok {
		t.Error("Output(b) not found")
	}
	if len(m.AllInputs()) != 2 || m.AllInputs()[1] != w {
		t.Error("AllInputs is not data then parameters")
	}
}
