package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

const (
	benchSklearn = "../../imports/onnx/testdata/models/sklearn_mlp_digits_nozipmap.onnx"
	benchKeras   = "../../imports/tf/testdata/keras_digits.pb"
)

func TestBenchFileFlags(t *testing.T) {
	usageErr(t, "--sizes: model flags describe the MLP of 'bench mlp'; a model file fixes its own sizes", "bench", "model.onnx", "--sizes", "3,4")
	usageErr(t, "--activation: model flags describe the MLP of 'bench mlp'; a model file fixes its own sizes", "bench", "--activation", "gelu", "model.pb")
	usageErr(t, "--batch: bench times each batch size of --batches; pass --batches N", "bench", "model.onnx", "--batch=8")
	usageErr(t, `unexpected arguments ["extra"]`, "bench", "model.onnx", "extra")
	usageErr(t, `--batches: "0" is not a batch size`, "bench", "model.onnx", "--batches", "0")
	usageErr(t, `--backend: "tpu" is not native, pjrt or all`, "bench", "model.onnx", "--backend", "tpu")
	usageErr(t, "flag provided but not defined: --n", "bench", "model.onnx", "--n", "4")

	// An output the file does not have names the ones it has; a node
	// hofuse cannot import is said before any timing.
	code, out, errs := hofuse("bench", benchSklearn, "--output", "nope")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "hofuse bench: "+benchSklearn+`: choosing outputs: no output named "nope"; the model's outputs are label, probabilities`+"\n", errs)
	zipmap := "../../imports/onnx/testdata/models/sklearn_mlp_digits.onnx"
	code, _, errs = hofuse("bench", zipmap, "--output", "output_probability")
	assert.Equal(t, 1, code)
	assert.Equal(t, "hofuse bench: "+zipmap+`: 1 unsupported node: ZipMap (opset 1, domain ai.onnx.ml) at node "ZipMap": no converter: its output is a sequence of maps, which the IR has no type for; export without it (skl2onnx: options={id(model): {'zipmap': False}}) or name the tensor it reads as the output (--output)`+"\n", errs)
	// A model of two outputs needs one named.
	code, _, errs = hofuse("bench", benchSklearn)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "the model has 2 outputs (label, probabilities); bench times one: pass --output NAME")
}

// bench FILE.onnx times the imported model fused and unfused at each
// batch, checked against the interpreter: batch 1 whole, batch 20 on its
// sample of rows (the one data input's rows are the output's).
func TestBenchFileONNX(t *testing.T) {
	doc := benchJSON(t, "bench", benchSklearn, "--output", "probabilities", "--batches", "1,20", "--runs", "2")
	assert.Equal(t, "file", doc.Benchmark)
	// 64·32 + 32 + 32·10 + 10 parameters: the two dense layers.
	assert.Equal(t, benchSklearn+" (onnx, opset 21): 6 operators, 2410 parameter values; output probabilities; batches 1,20", doc.Model)
	checkInferRows(t, doc, []string{"sklearn_mlp_digits_nozipmap"}, []int{1, 20}, 1e-5)
	assert.Equal(t, []referenceCheck{{Batch: 1, Rows: []int{0}, All: true}, {Batch: 20, Rows: []int{0, 6, 12, 19}}}, doc.ReferenceChecks)
	assert.Nil(t, doc.PeakGFlops, "no FLOPs are counted, so no peak is measured")
	assert.Less(t, doc.Rows[0]["kernels"], doc.Rows[1]["kernels"])
}

// bench FILE on an integer output, a scikit-learn pipeline's label
// (Scaler, an MLP, ArgMax and ArrayFeatureExtractor): timed and checked
// against the interpreter like a float one, on every row of batch 20.
func TestBenchFileLabel(t *testing.T) {
	doc := benchJSON(t, "bench", "../../imports/onnx/testdata/ml/sk_standard_mlp.onnx", "--output", "label", "--batches", "20", "--runs", "2")
	checkInferRows(t, doc, []string{"sk_standard_mlp"}, []int{20}, 1e-9)
	for _, r := range doc.Rows {
		assert.Equal(t, 0.0, r["max_abs_diff"], "labels agree exactly")
	}
}

// bench FILE.pb: a frozen TensorFlow graph; the peers, which cannot time
// it, are skipped with their reasons before any runs.
func TestBenchFileTF(t *testing.T) {
	doc := benchJSON(t, "bench", benchKeras, "--batches", "3", "--runs", "2", "--peers", "ort=python3,numpy=python3")
	assert.Equal(t, benchKeras+" (tf): 11 operators, 2538 parameter values; output Identity; batches 3", doc.Model)
	checkInferRows(t, doc, []string{"keras_digits"}, []int{3}, 1e-5)
	assert.Equal(t, []string{
		"peer ort: runs .onnx files; a TensorFlow .pb has no ONNX Runtime peer",
		"peer numpy: builds the MLP, matmul and stack benchmarks from their description, not a model file; --peers ort runs an .onnx file",
	}, doc.Skipped)
}

// The ONNX Runtime peer of a model file is handed the file and the data
// inputs alone, by the model's names: a stand-in for Python keeps the case
// file and writes back the interpreter's result on the same seed's inputs,
// so the row's difference is within rounding.
func TestBenchFilePeerCase(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "case.json")
	path, err := filepath.Abs(benchSklearn)
	require.NoError(t, err)
	imp, err := importModel(path, imports.Options{Batch: 2, Outputs: []string{"probabilities"}})
	require.NoError(t, err)
	data, err := modelData(imp, 1, 0)
	require.NoError(t, err)
	bind, err := imp.Bindings(data)
	require.NoError(t, err)
	ref, err := graph.Eval(imp.Term, bind)
	require.NoError(t, err)
	refFile := filepath.Join(t.TempDir(), "ref.npy")
	require.NoError(t, writeNpy(refFile, ref.(*graph.Array)))
	fake := fakePython(t, `cp "$2" `+kept+`
out=$(sed 's/.*"output":"\([^"]*\)".*/\1/' "$2")
cp `+refFile+` "$out"
echo '{"rows": [{"backend": "onnxruntime", "mode": "session", "p50_ms": 1, "p99_ms": 2, "runs": 3, "compile_ms": 4, "version": "1.0", "times_ms": [1, 1, 2]}]}'
`)
	t.Chdir(filepath.Join("..", ".."))
	doc := benchJSON(t, "bench", path, "--output", "probabilities", "--batches", "2", "--runs", "2", "--peers", "ort="+fake)
	require.Len(t, doc.Rows, 3)
	r := doc.Rows[2]
	assert.Equal(t, "ort", r["peer"])
	assert.Equal(t, "native fused", r["diff_against"])
	assert.Less(t, r["max_abs_diff"], 1e-6)
	b, err := os.ReadFile(kept)
	require.NoError(t, err)
	var c peerCase
	require.NoError(t, json.Unmarshal(b, &c))
	assert.Equal(t, map[string]any{"kind": "onnx_file", "path": path, "inputs": []any{"input"}, "output_name": "probabilities"}, c.Workload)
	assert.Equal(t, "input", c.RowInput)
	assert.Equal(t, 2, c.Batch)
	assert.Len(t, c.Inputs, 1, "the parameters are the file's: only the data input is written")
	assert.Contains(t, c.Inputs, "input")
}

// The ONNX Runtime peer on the model file itself: HOFUSE_BENCH_PYTHON
// names a Python with onnxruntime (bench --peers help says how to make
// one).
func TestBenchFilePeerReal(t *testing.T) {
	py := os.Getenv("HOFUSE_BENCH_PYTHON")
	if py == "" {
		t.Skip("needs a Python with onnx and onnxruntime: set HOFUSE_BENCH_PYTHON")
	}
	path, err := filepath.Abs(benchSklearn)
	require.NoError(t, err)
	t.Chdir(filepath.Join("..", ".."))
	doc := benchJSON(t, "bench", path, "--output", "probabilities", "--batches", "1,5", "--runs", "2", "--peers", "ort="+py)
	assert.Empty(t, doc.Skipped)
	require.Len(t, doc.Rows, 6)
	for _, i := range []int{2, 5} {
		r := doc.Rows[i]
		assert.Equal(t, "ort", r["peer"])
		assert.Less(t, r["max_abs_diff"], 1e-5, "%v", r)
	}
}

// --backend all times a model file on native and PJRT, every row checked
// against the interpreter.
func TestBenchFilePJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	doc := benchJSON(t, "bench", benchKeras, "--backend", "all", "--plugin", path, "--batches", "2", "--runs", "2")
	require.Len(t, doc.Rows, 4)
	for i, r := range doc.Rows {
		assert.Equal(t, []string{"native", "pjrt"}[i/2], r["backend"], "row %d", i)
		assert.Equal(t, []string{"fused", "unfused"}[i%2], r["mode"], "row %d", i)
		assert.Equal(t, "interpreter", r["diff_against"])
		assert.Less(t, r["max_abs_diff"], 1e-5)
	}
}

// A workload without a row input (a model with several data inputs) is
// checked against the interpreter on its whole batch: here a product whose
// second output has 0.25 added to its last element.
func TestBenchReferenceWholeBatch(t *testing.T) {
	wl := matmulWorkload(5, graph.Float64)
	w, err := wl.build(30, 1)
	require.NoError(t, err)
	w.RowInput = ""
	ref, err := graph.Eval(w.Term, w.In)
	require.NoError(t, err)
	off := ref.(*graph.Array).Copy()
	off.Set(off.At(29, 4)+0.25, 29, 4)
	var rf runFlags
	chk, diffs, err := checkBenchReference(&rf, wl, w, 1, []graph.Value{ref, off})
	require.NoError(t, err)
	assert.Equal(t, referenceCheck{Batch: 30, Rows: allRows(30), All: true}, chk)
	assert.Equal(t, []float64{0, 0.25}, diffs)
}
