package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// linearModel is the PyTorch Linear case of ONNX's test data: y = x Wᵀ + b
// with x f32[4,10]; its input and ONNX's expected output are in
// testdata/run (written by testdata/run/make.py).
var linearModel = filepath.Join("..", "..", "imports", "onnx", "testdata", "pytorch", "test_Linear", "model.onnx")

func TestImportCommand(t *testing.T) {
	code, out, errs := hofuse("import", linearModel)
	require.Equal(t, 0, code, errs)
	want := linearModel + `: onnx, opset 6, 1 node, outputs: 3
  ops: Gemm 1
  unsupported: none

1 data input, 2 parameters (88 values)
output "3" : f32[4,8]

"0" : f32[4,10];
param "1" : f32[8,10];
param "2" : f32[8];
map (\r -> zip (\c p -> rnz (+) (*) r c + p) "1" "2") "0"
`
	assert.Equal(t, want, out)
	// The program part reads back with the parser.
	prog := out[strings.LastIndex(out, "\n\n")+2:]
	p, err := graph.Parse(prog)
	require.NoError(t, err)
	assert.Len(t, p.Inputs, 3)

	code, out, errs = hofuse("import", "--json", linearModel)
	require.Equal(t, 0, code, errs)
	var j struct {
		Coverage struct {
			Ops         map[string]int `json:"ops"`
			Unsupported []any          `json:"unsupported"`
		} `json:"coverage"`
		Model struct {
			Opset   int `json:"opset"`
			Outputs []struct{ Name, Type string }
			Term    string `json:"term"`
		} `json:"model"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	assert.Equal(t, map[string]int{"Gemm": 1}, j.Coverage.Ops)
	assert.Empty(t, j.Coverage.Unsupported)
	assert.Equal(t, 6, j.Model.Opset)
	assert.Equal(t, "f32[4,8]", j.Model.Outputs[0].Type)
}

// writeModel writes a model of two outputs for x f32[N,2]: y = Relu(x W)
// and z = LSTM(x), which hofuse does not import.
func writeModel(t *testing.T) string {
	t.Helper()
	tensorType := func(dims ...*onnxpb.TensorShapeProto_Dimension) *onnxpb.TypeProto {
		return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: int32(onnxpb.TensorProto_FLOAT), Shape: &onnxpb.TensorShapeProto{Dim: dims}}}}
	}
	m := &onnxpb.ModelProto{
		IrVersion:   8,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Version: 13}},
		Graph: &onnxpb.GraphProto{
			Input: []*onnxpb.ValueInfoProto{{Name: "x", Type: tensorType(
				&onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "N"}},
				&onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 2}})}},
			Initializer: []*onnxpb.TensorProto{{Name: "W", Dims: []int64{2, 2}, DataType: int32(onnxpb.TensorProto_FLOAT), FloatData: []float32{1, -1, 2, 1}}},
			Node: []*onnxpb.NodeProto{
				{Name: "mm", OpType: "MatMul", Input: []string{"x", "W"}, Output: []string{"h"}},
				{Name: "act", OpType: "Relu", Input: []string{"h"}, Output: []string{"y"}},
				{Name: "lstm", OpType: "LSTM", Input: []string{"x", "W"}, Output: []string{"z"}},
			},
			Output: []*onnxpb.ValueInfoProto{{Name: "z"}, {Name: "y"}},
		},
	}
	data, err := proto.Marshal(m)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "two.onnx")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestImportUnsupported(t *testing.T) {
	path := writeModel(t)
	code, out, errs := hofuse("import", path)
	assert.Equal(t, 1, code)
	assert.Equal(t, path+": onnx, opset 13, 3 nodes, outputs: z, y\n  ops: LSTM 1, MatMul 1, Relu 1\n  unsupported (1):\n"+
		"    LSTM (opset 13) at node \"lstm\": no converter: recurrent layers are not supported\n", out)
	assert.Equal(t, "hofuse import: "+path+": 1 unsupported node: LSTM (opset 13) at node \"lstm\": no converter: recurrent layers are not supported\n", errs)
	// --json prints the report (no model) and fails the same way.
	code, out, _ = hofuse("import", "--json", path)
	assert.Equal(t, 1, code)
	var j struct {
		Coverage struct {
			Unsupported []struct{ Op, Node, Reason string } `json:"unsupported"`
		} `json:"coverage"`
		Model *struct{} `json:"model"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	require.Len(t, j.Coverage.Unsupported, 1)
	assert.Equal(t, "lstm", j.Coverage.Unsupported[0].Node)
	assert.Nil(t, j.Model)
	// Asking for y alone prunes the LSTM.
	code, out, errs = hofuse("import", path, "--output", "y", "--batch", "3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "  pruned outputs: z\n  pruned nodes (1): LSTM \"lstm\"\n")
	assert.Contains(t, out, "axis 0 of input x is symbolic (N): fixed to 3 (--batch)\n")
	assert.Contains(t, out, "output y : f32[3,2]\n")
}

func readNpyT(t *testing.T, path string) *graph.Array {
	t.Helper()
	v, err := readNpy(path)
	require.NoError(t, err)
	a, ok := v.(*graph.Array)
	require.True(t, ok, "%s holds %s", path, graph.DescribeValue(v))
	return a
}

func TestRunCommand(t *testing.T) {
	want := readNpyT(t, filepath.Join("testdata", "run", "linear_want.npy"))
	x := filepath.Join("testdata", "run", "linear_x.npy")
	for _, args := range [][]string{
		{"--backend", "interp"},
		{"--backend", "native"},
		{"--backend", "native", "--unfused"},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "y.npy")
		full := append([]string{"run", linearModel, "--input", "0=" + x, "--out", out}, args...)
		code, _, errs := hofuse(full...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
		assert.Equal(t, "wrote 3 (f32[4,8]) to "+out+"\n", errs)
		got := readNpyT(t, out)
		require.Equal(t, want.Extents(), got.Extents())
		g, w := got.Values(), want.Values()
		for i := range w {
			if math.Abs(g[i]-w[i]) > 1e-5*math.Max(1, math.Abs(w[i])) {
				t.Fatalf("%v: element %d: got %v, want %v (ONNX's expected output)", args, i, g[i], w[i])
			}
		}
		// The same output asked for by name.
		named := filepath.Join(dir, "named.npy")
		code, _, errs = hofuse(append([]string{"run", linearModel, "--input", "0=" + x, "--out", "3=" + named}, args...)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, got.Values(), readNpyT(t, named).Values())
	}
}

func TestRunBatchFromInput(t *testing.T) {
	path := writeModel(t)
	dir := t.TempDir()
	x, err := graph.FromFloat32([]float32{1, 2, -1, 0, 3, -3}, 3, 2)
	require.NoError(t, err)
	xp := filepath.Join(dir, "x.npy")
	require.NoError(t, writeNpy(xp, x))
	// Without --out every kept output is printed; y alone is kept, so the
	// Conv does not stop the run; the batch comes from x.npy.
	code, out, errs := hofuse("run", path, "--input", "x="+xp, "--out", "y="+filepath.Join(dir, "y.npy"))
	require.Equal(t, 0, code, errs)
	y := readNpyT(t, filepath.Join(dir, "y.npy"))
	// x W = [[1+4, -1+2], [-1, 1], [3-6, -3-3]]; relu.
	assert.Equal(t, []int{3, 2}, y.Extents())
	assert.Equal(t, []float64{5, 1, 0, 1, 0, 0}, y.Values())
	assert.Empty(t, out)
}

func TestRunErrors(t *testing.T) {
	x := filepath.Join("testdata", "run", "linear_x.npy")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", linearModel}, 1, "hofuse run: " + linearModel + ": input 0 (f32[4,10]) is not bound (give each data input with --input NAME=FILE.npy)\n"},
		{[]string{"run", linearModel, "--input", "0"}, 2, "hofuse run: invalid value \"0\" for flag --input: \"0\": want NAME=FILE.npy\n"},
		{[]string{"run", linearModel, "--input", "0=" + x, "--input", "0=" + x}, 2, "hofuse run: invalid value \"0=" + x + "\" for flag --input: \"0=" + x + "\": 0 is given twice\n"},
		{[]string{"run", linearModel, "--input", "0=" + x, "--out", "y.txt"}, 2, "hofuse run: --out y.txt: want a file name ending in .npy\n"},
		{[]string{"run", linearModel, "--input", "0=" + x, "--out", "nope=y.npy"}, 1, "hofuse run: " + linearModel + ": choosing outputs: no output named \"nope\"; the model's outputs are 3\n"},
		{[]string{"run", "model.txt"}, 2, "hofuse run: model.txt: want a model file ending in .onnx (ONNX) or .pb (a frozen TensorFlow GraphDef)\n"},
		{[]string{"run", linearModel, "--input", "0=" + x, "--backend", "interp", "--unfused"}, 2, "hofuse run: --unfused: needs --backend native or pjrt; the interpreter runs the model as imported\n"},
		{[]string{"run", linearModel, "--input", "0=" + linearModel}, 1, "hofuse run: --input 0: data: " + linearModel + ": byte offset 0: not a NumPy .npy array (no \\x93NUMPY magic)\n"},
	} {
		code, _, errs := hofuse(tc.args...)
		assert.Equal(t, tc.code, code, "%q", tc.args)
		first, _, _ := strings.Cut(errs, "\n")
		assert.Equal(t, tc.want, first+"\n", "%q", tc.args)
	}
}

// An .npy file whose header dict has its keys in another order than
// numpy.save writes them (numpy itself reads it) is refused with an error
// naming the file and the offset; npyio, reading it unchecked, panicked.
func TestRunOddNpyHeader(t *testing.T) {
	dict := "{'shape': (4, 10), 'fortran_order': False, 'descr': '<f4', }"
	header := dict + strings.Repeat(" ", 64-(10+len(dict)+1)%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), 0)
	b = append(append(b, header...), make([]byte, 4*40)...)
	x := filepath.Join(t.TempDir(), "x.npy")
	require.NoError(t, os.WriteFile(x, b, 0o644))
	code, _, errs := hofuse("run", linearModel, "--input", "0="+x)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(errs, "hofuse run: --input 0: data: "+x+": byte offset 10: malformed header"), errs)
}

func TestFuseModelFile(t *testing.T) {
	code, out, errs := hofuse("fuse", linearModel)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "kernel")
	code, _, errs = hofuse("fuse", linearModel, "--sizes", "3,4")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--sizes: model flags describe the MLP of 'mlp' and the CNN of 'cnn'; a model file fixes its own sizes")

	// --output keeps one output of a model of several: the classifier's
	// label alone holds the ArgMax and the table lookup; its
	// probabilities alone, neither.
	skl := "../../imports/onnx/testdata/ml/sk_standard_mlp.onnx"
	code, out, errs = hofuse("fuse", skl, "--output", "label", "--batch", "4")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ArrayFeatureExtractor")
	code, out, errs = hofuse("fuse", skl, "--output", "probabilities", "--batch", "4")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "ArrayFeatureExtractor")
	code, _, errs = hofuse("fuse", skl, "--output", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `no output named "nope"; the model's outputs are label, probabilities`)
	code, _, errs = hofuse("fuse", "mlp", "--output", "y")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--output: chooses outputs of a model file")
}

func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []graph.Value{
		must(graph.FromFloat64([]float64{1.5, -2, 3, 4, 5, 6}, 1, 2, 3)),
		graph.ScalarValue{DType: graph.Float32, V: 2.5},
	} {
		p := filepath.Join(dir, "v.npy")
		require.NoError(t, writeNpy(p, v))
		back, err := readNpy(p)
		require.NoError(t, err)
		assert.Equal(t, graph.DescribeValue(v), graph.DescribeValue(back))
		if a, ok := v.(*graph.Array); ok {
			assert.Equal(t, a.Values(), back.(*graph.Array).Values())
		} else {
			assert.Equal(t, v, back)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRunDigits runs the README's example: scikit-learn's digits
// classifier on sixteen held-out digits, against onnxruntime's
// probabilities within 1e-5 relative.
func TestRunDigits(t *testing.T) {
	dir := filepath.Join("..", "..", "imports", "onnx", "testdata", "models")
	out := filepath.Join(t.TempDir(), "probs.npy")
	code, _, errs := hofuse("run", filepath.Join(dir, "sklearn_mlp_digits_nozipmap.onnx"),
		"--input", "input="+filepath.Join(dir, "digits_input.npy"), "--out", "probabilities="+out)
	require.Equal(t, 0, code, errs)
	got := readNpyT(t, out)
	want := readNpyT(t, filepath.Join(dir, "sklearn_mlp_digits_ort_probabilities.npy"))
	require.Equal(t, want.Extents(), got.Extents())
	g, w := got.Values(), want.Values()
	for i := range w {
		if math.Abs(g[i]-w[i]) > 1e-5*math.Abs(w[i])+1e-7 {
			t.Fatalf("element %d: got %v, onnxruntime %v", i, g[i], w[i])
		}
	}
}

// TestRunTensorFlow runs the frozen Keras digits model (a GraphDef .pb)
// on sixteen held-out digits, on the native back end fused, against
// TensorFlow's own output within 1e-5 relative; the file's one output is
// what an unnamed --out writes.
func TestRunTensorFlow(t *testing.T) {
	dir := filepath.Join("..", "..", "imports", "tf", "testdata")
	out := filepath.Join(t.TempDir(), "probs.npy")
	code, _, errs := hofuse("run", filepath.Join(dir, "keras_digits.pb"),
		"--input", "input="+filepath.Join(dir, "digits_input.npy"), "--out", out, "--backend", "native")
	require.Equal(t, 0, code, errs)
	got := readNpyT(t, out)
	want := readNpyT(t, filepath.Join(dir, "keras_digits_tf_output.npy"))
	require.Equal(t, []int{16, 10}, got.Extents())
	g, w := got.Values(), want.Values()
	require.Len(t, g, len(w))
	for i := range w {
		if math.Abs(g[i]-w[i]) > 1e-5*math.Abs(w[i])+1e-7 {
			t.Fatalf("element %d: got %v, TensorFlow %v", i, g[i], w[i])
		}
	}
	code, out2, errs := hofuse("import", filepath.Join(dir, "keras_digits.pb"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out2, "keras_digits.pb: tf, 32 nodes, outputs: Identity")
}

func TestDemoModel(t *testing.T) {
	model := filepath.Join("..", "..", "imports", "onnx", "testdata", "models", "keras_digits_tf2onnx.onnx")
	code, out, errs := hofuse("demo", "--model", model, "--batches", "1,5", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, model+" (onnx, opset 17): 5 operators, 2474 parameter values\nbackend: native\n")
	assert.Contains(t, out, "holds sequential_1/dense_1/MatMul,")
	assert.Contains(t, out, "checked against the reference interpreter: batch 1 whole; batch 5 whole\n")
	code, out, errs = hofuse("demo", "--model", model, "--batches", "3", "--runs", "2", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Rows []struct {
			Batch int    `json:"batch"`
			Mode  string `json:"mode"`
		} `json:"rows"`
		MaxAbsDiff float64 `json:"max_abs_diff"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Rows, 2)
	assert.Equal(t, 3, rep.Rows[0].Batch)
	// scikit-learn's label branch is pruned by asking for the probabilities.
	skl := filepath.Join("..", "..", "imports", "onnx", "testdata", "models", "sklearn_mlp_digits_nozipmap.onnx")
	code, out, errs = hofuse("demo", "--model", skl, "--output", "probabilities", "--batches", "2", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "checked against the reference interpreter: batch 2 whole\n")
	code, _, errs = hofuse("demo", "--output", "probabilities")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "hofuse demo: --output: chooses outputs of a --model FILE.onnx; an MLP has one\n")
	code, _, errs = hofuse("demo", "--model", model, "--sizes", "3,4")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "hofuse demo: --sizes: model flags describe the MLP and the CNN; --model FILE.onnx fixes its own sizes\n")
}
