package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

func TestBenchInferFlags(t *testing.T) {
	usageErr(t, `unexpected arguments ["extra"]`, "bench", "mlp", "extra")
	usageErr(t, "--runs -1: must be at least 0 (0: about half a second of runs)", "bench", "mlp", "--runs", "-1")
	usageErr(t, "--rounds 0: must be at least 1", "bench", "stack", "--rounds", "0")
	usageErr(t, `--backend: "tpu" is not native, pjrt or all`, "bench", "matmul", "--backend", "tpu")
	usageErr(t, "--plugin: --backend native loads no plugin; pass --backend pjrt or all", "bench", "stack", "--plugin", "/x.so")
	usageErr(t, "--threads: sets the native executor's goroutines, which --backend pjrt does not use",
		"bench", "mlp", "--backend", "pjrt", "--threads", "2")
	usageErr(t, "--batch: bench times each batch size of --batches; pass --batches 8", "bench", "mlp", "--batch", "8")
	usageErr(t, "--mode training: bench mlp times inference; time training steps with 'hofuse bench train'", "bench", "mlp", "--mode", "training")
	usageErr(t, `--batches: "x" is not a batch size`, "bench", "mlp", "--batches", "1,x")
	usageErr(t, `--batches: "0" is not a batch size`, "bench", "stack", "--batches", "0")
	usageErr(t, `--dtype: "i32" is not f32 or f64`, "bench", "mlp", "--dtype", "i32")
	usageErr(t, `--dtype: "bf16" is not f32 or f64`, "bench", "matmul", "--dtype", "bf16")
	usageErr(t, "--n 0: must be at least 1", "bench", "matmul", "--n", "0")
	usageErr(t, "--features 0: must be at least 1", "bench", "stack", "--features", "0")
	usageErr(t, "--classes -2: must be at least 1", "bench", "stack", "--classes", "-2")
	usageErr(t, "flag provided but not defined: --batches", "bench", "matmul", "--batches", "4")
	usageErr(t, "--plot out.svg: want a file name ending in .png", "bench", "mlp", "--plot", "out.svg")
	usageErr(t, `--peers torch=python3: "torch" is not a peer; the peers are ort, jax, numpy, gomlx (--peers help says how to install them)`,
		"bench", "mlp", "--peers", "torch=python3")
	usageErr(t, "--peers ort: want ort=PYTHON, the Python of a virtual environment with onnxruntime and onnx", "bench", "mlp", "--peers", "ort")
	usageErr(t, "--peers numpy=a,numpy=b: numpy is named twice", "bench", "mlp", "--peers", "numpy=a,numpy=b")
	usageErr(t, "--peers gomlx=: want gomlx, or gomlx=GO naming the go command", "bench", "mlp", "--peers", "gomlx=")
	// The tests run in cmd/hofuse, where the scripts are not.
	usageErr(t, "--peers: bench/peers/numpy_infer.py is not in the current folder (stat bench/peers/numpy_infer.py: no such file or directory); run hofuse from the repository's root",
		"bench", "mlp", "--peers", "numpy=python3")
}

// --peers help, with or without a benchmark, says how to install the peers.
func TestBenchPeersHelp(t *testing.T) {
	for _, args := range [][]string{{"bench", "--peers", "help"}, {"bench", "mlp", "--peers", "help"}} {
		code, out, errs := hofuse(args...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, peersHelp, out)
		assert.Contains(t, out, "pip install numpy onnx onnxruntime jax")
	}
}

// benchInferDoc is the part of "bench mlp|matmul|stack --json" the tests
// read; pointers tell a key that is missing from a zero.
type benchInferDoc struct {
	Benchmark       string           `json:"benchmark"`
	Model           string           `json:"model"`
	PeakGFlops      *float64         `json:"peak_gflops"`
	BandwidthGBps   *float64         `json:"bandwidth_gb_per_s"`
	MaxAbsDiffUnf   *float64         `json:"max_abs_diff_fused_unfused"`
	MaxAbsDiffRef   *float64         `json:"max_abs_diff_reference"`
	ReferenceChecks []referenceCheck `json:"reference_checks"`
	Rows            []map[string]any `json:"rows"`
	Skipped         []string         `json:"skipped"`
	Legend          []string         `json:"legend"`
	Rounds          int              `json:"rounds"`
}

// rowKeys are the keys every hofuse row has.
var rowKeys = []string{"workload", "backend", "mode", "batch", "p50_ms", "p99_ms", "runs", "kernels", "temporaries",
	"temporary_bytes", "bytes_moved", "fuse_ms", "compile_ms", "gb_per_s", "fraction_of_bandwidth", "max_abs_diff", "diff_against"}

func benchJSON(t *testing.T, args ...string) benchInferDoc {
	t.Helper()
	code, out, errs := hofuse(append(args, "--json")...)
	require.Equal(t, 0, code, errs)
	var doc benchInferDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.NotNil(t, doc.BandwidthGBps)
	assert.Greater(t, *doc.BandwidthGBps, 0.0)
	require.NotNil(t, doc.MaxAbsDiffUnf)
	require.NotNil(t, doc.MaxAbsDiffRef)
	return doc
}

// checkInferRows checks one fused and one unfused native row per workload
// and batch, in that order, with every key and plausible figures.
func checkInferRows(t *testing.T, doc benchInferDoc, workloads []string, batches []int, tol float64) {
	t.Helper()
	require.Len(t, doc.Rows, 2*len(workloads)*len(batches))
	i := 0
	for _, w := range workloads {
		for _, b := range batches {
			for _, mode := range []string{"fused", "unfused"} {
				r := doc.Rows[i]
				i++
				for _, k := range rowKeys {
					assert.Contains(t, r, k, "row %d", i)
				}
				assert.NotContains(t, r, "peer")
				assert.Equal(t, w, r["workload"])
				assert.Equal(t, "native", r["backend"])
				assert.Equal(t, mode, r["mode"])
				assert.Equal(t, float64(b), r["batch"])
				assert.Equal(t, 2.0, r["runs"])
				assert.Greater(t, r["p50_ms"], 0.0)
				assert.GreaterOrEqual(t, r["p99_ms"], r["p50_ms"])
				assert.Greater(t, r["kernels"], 0.0)
				assert.Greater(t, r["bytes_moved"], 0.0)
				assert.Equal(t, "interpreter", r["diff_against"])
				assert.Less(t, r["max_abs_diff"], tol)
			}
		}
	}
	assert.Less(t, *doc.MaxAbsDiffUnf, tol)
	assert.Less(t, *doc.MaxAbsDiffRef, tol)
}

func TestBenchMLPTiny(t *testing.T) {
	doc := benchJSON(t, "bench", "mlp", "--sizes", "8,6,3", "--batches", "2,20", "--runs", "2")
	assert.Equal(t, "mlp", doc.Benchmark)
	assert.Equal(t, "MLP 8-6-3, batches 2,20, f32, batchnorm, inference, relu; 99 parameters", doc.Model)
	checkInferRows(t, doc, []string{"mlp"}, []int{2, 20}, 1e-5)
	require.NotNil(t, doc.PeakGFlops)
	assert.Greater(t, *doc.PeakGFlops, 0.0)
	for _, r := range doc.Rows {
		assert.Greater(t, r["gflops"], 0.0)
		assert.Greater(t, r["fraction_of_peak"], 0.0)
	}
	// Batch 2 is checked whole; batch 20 on a sample of 4 rows.
	assert.Equal(t, []referenceCheck{{Batch: 2, Rows: []int{0, 1}, All: true}, {Batch: 20, Rows: []int{0, 6, 12, 19}}}, doc.ReferenceChecks)
	// Fusion cuts the MLP into fewer kernels than one per layer.
	assert.Less(t, doc.Rows[0]["kernels"], doc.Rows[1]["kernels"])
	// A fused row says what the schedule pass did, and how long it took.
	assert.Contains(t, doc.Rows[0]["schedule"], " kernels, 0 reordered; ")
	assert.Greater(t, doc.Rows[0]["search_ms"], 0.0)
	assert.LessOrEqual(t, doc.Rows[0]["search_ms"], doc.Rows[0]["fuse_ms"])
	assert.NotContains(t, doc.Rows[1], "schedule", "an unfused row is not scheduled")

	code, out, errs := hofuse("bench", "mlp", "--sizes", "8,6,3", "--batches", "2", "--runs", "2", "--no-reference")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^ +workload +backend +mode +batch +p50 ms +p99 ms +in ms +exec ms +out ms +runs +kernels +temporaries +temp bytes +moved +fuse ms +search ms +compile ms +GFLOP/s +of peak +GB/s +of bw +max diff$`, out)
	assert.Regexp(t, `(?m)^schedule, mlp batch 2: 2 kernels, 0 reordered; \d+ orders costed, \d+ pruned$`, out)
	assert.Regexp(t, `(?m)^ +mlp +native +fused +2 +\d+\.\d{3} +\d+\.\d{3} +- +- +- +2 +[1-9]\d* `, out)
	assert.Regexp(t, `(?m)^ +mlp +native +unfused +2 +\d+\.\d{3} +\d+\.\d{3} +- +- +- +2 +[1-9]\d* `, out)
	assert.Contains(t, out, "machine peak: ")
	assert.Contains(t, out, "copy bandwidth: ")
	assert.Equal(t, 2, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, "[1/2] mlp native      fused    batch 2 ")
}

func TestBenchMatmulTiny(t *testing.T) {
	doc := benchJSON(t, "bench", "matmul", "--n", "24", "--dtype", "f64", "--runs", "2")
	assert.Equal(t, "C = A·B, A and B 24×24 f64", doc.Model)
	checkInferRows(t, doc, []string{"matmul"}, []int{24}, 1e-12)
	assert.Equal(t, []referenceCheck{{Batch: 24, Rows: []int{0, 7, 15, 23}}}, doc.ReferenceChecks)
	for _, r := range doc.Rows {
		assert.Greater(t, r["gflops"], 0.0)
	}
	assert.Equal(t, 5, doc.Rounds, "the default")
}

// --rounds times a batch's rows in turns, each taking its share of its
// runs: 7 runs in 3 turns are 7 runs, and fewer runs than turns are
// still the runs asked for.
func TestBenchRounds(t *testing.T) {
	for _, c := range []struct{ runs, rounds string }{{"7", "3"}, {"2", "5"}, {"3", "1"}} {
		doc := benchJSON(t, "bench", "matmul", "--n", "16", "--runs", c.runs, "--rounds", c.rounds, "--no-reference")
		rounds, _ := strconv.Atoi(c.rounds)
		assert.Equal(t, rounds, doc.Rounds)
		require.Len(t, doc.Rows, 2)
		for _, r := range doc.Rows {
			assert.Equal(t, c.runs, fmt.Sprint(r["runs"]), "--runs %s --rounds %s, %s", c.runs, c.rounds, r["mode"])
		}
	}
	code, out, errs := hofuse("bench", "matmul", "--n", "16", "--runs", "4", "--rounds", "2", "--no-reference")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "runs: a batch's rows were timed in 2 turns, each row, a peer's too, taking its share of its runs in every turn.")
	code, out, errs = hofuse("bench", "matmul", "--n", "16", "--runs", "4", "--rounds", "1", "--no-reference")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "turns")
}

// --tune times the cost model's best orders of each kernel on native,
// keeps them in --tune-dir and says so in the schedule summary; the next
// run reads them back.
func TestBenchTune(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		doc := benchJSON(t, "bench", "matmul", "--n", "128", "--runs", "2", "--tune", "--tune-dir", dir)
		checkInferRows(t, doc, []string{"matmul"}, []int{128}, 1e-4)
		assert.Contains(t, doc.Rows[0]["schedule"], "; 1 chosen by measurement")
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		assert.Len(t, files, 1)
	}
	usageErr(t, "--tune-dir: the folder is used by --tune; pass --tune too", "bench", "matmul", "--tune-dir", dir)
}

func TestBenchStackTiny(t *testing.T) {
	doc := benchJSON(t, "bench", "stack", "--batches", "3", "--features", "8", "--classes", "16", "--runs", "2")
	assert.Equal(t, "x + GELU(LayerNorm(x)) on batch×8 f32; softmax over rows of batch×16 f32; batches 3", doc.Model)
	checkInferRows(t, doc, []string{"layernorm_gelu_residual", "softmax", "softmax_layer"}, []int{3}, 1e-5)
	require.Len(t, doc.Legend, 3)
	assert.Contains(t, doc.Legend[1], "ReduceMax, Sub, Exp, ReduceSum, Div")
	// One check per batch: the stacks are checked on the same rows.
	assert.Equal(t, []referenceCheck{{Batch: 3, Rows: []int{0, 1, 2}, All: true}}, doc.ReferenceChecks)
	// Memory-bound stacks have no products to count.
	assert.Nil(t, doc.PeakGFlops)
	assert.NotContains(t, doc.Rows[0], "gflops")
	// LayerNorm, GELU and the residual add are three kernels unfused.
	assert.Equal(t, 3.0, doc.Rows[1]["kernels"])
	assert.Less(t, doc.Rows[0]["kernels"], 3.0)
	// The exporter's softmax is five kernels unfused, fewer fused; the
	// softmax layer is one kernel either way.
	assert.Equal(t, 5.0, doc.Rows[3]["kernels"])
	assert.Less(t, doc.Rows[2]["kernels"], 5.0)
	assert.Equal(t, 1.0, doc.Rows[4]["kernels"])
	assert.Equal(t, 1.0, doc.Rows[5]["kernels"])
}

// --plot writes a PNG.
func TestBenchPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.png")
	code, _, errs := hofuse("bench", "mlp", "--sizes", "8,6,3", "--batches", "2,4", "--runs", "2", "--no-reference", "--plot", path)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 9*96, img.Bounds().Dx())
	assert.Equal(t, 2*3*96, img.Bounds().Dy(), "a panel per batch")
}

// bench train draws its rows too.
func TestBenchTrainPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.png")
	code, _, errs := hofuse("bench", "train", "--sizes", "8,4,3", "--batches", "4", "--steps", "2", "--plot", path)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 3*96, img.Bounds().Dy(), "one panel: one batch")
	usageErr(t, "--plot x.jpg: want a file name ending in .png", "bench", "train", "--plot", "x.jpg")
}

// fakePython writes a stand-in for a peer's Python: a shell script that
// runs body with the case file as $2.
func fakePython(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "python")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

// A peer whose Python is not there, whose script says its package is
// missing (exit status 3) or fails, or whose module does not build, is
// skipped with a one-line reason; the rest of the run goes on.
func TestBenchPeerSkipped(t *testing.T) {
	missing := fakePython(t, `echo "jax is not installed in /x/python (No module named 'jax'); pip install it" >&2; exit 3`+"\n")
	failing := fakePython(t, "echo 'Traceback (most recent call last):' >&2\necho 'onnxruntime.NotImplemented: Erf(13)' >&2\nexit 1\n")
	none := filepath.Join(t.TempDir(), "no-python")
	brokenGo := fakePython(t, "echo 'go: downloading github.com/gomlx/gomlx v0.26.0' >&2\necho 'main.go:3:2: no required module provides package x' >&2\nexit 1\n")
	t.Chdir(filepath.Join("..", ".."))
	code, out, errs := hofuse("bench", "matmul", "--n", "4", "--runs", "2", "--json", "--peers", "numpy="+none+",jax="+missing+",gomlx="+brokenGo+",ort="+failing)
	require.Equal(t, 0, code, errs)
	var doc benchInferDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Len(t, doc.Rows, 2)
	assert.Equal(t, []string{
		"peer numpy: " + none + " cannot be run (stat " + none + ": no such file or directory)",
		"peer gomlx: bench/peers/gomlx does not build: main.go:3:2: no required module provides package x",
		"peer ort: failed on matmul batch 4 (exit status 1): onnxruntime.NotImplemented: Erf(13)",
		"peer jax: jax is not installed in /x/python (No module named 'jax'); pip install it",
	}, doc.Skipped)
	assert.Contains(t, errs, "hofuse bench: skipping peer numpy: "+none+" cannot be run")
	assert.Contains(t, errs, "hofuse bench: skipping peer jax: jax is not installed")
}

// A peer's row carries the script's figures, and its output is compared
// with hofuse's on every element: here a stand-in for Python copies a
// prepared .npy to the output the case file names and prints a fixed row.
// The prepared product is the interpreter's, with 0.5 added to one
// element, so the row's max_abs_diff is 0.5 (within the float32 rounding
// of the rest).
func TestBenchPeerRow(t *testing.T) {
	w, err := matmulWorkload(4, graph.Float32).build(4, 1)
	require.NoError(t, err)
	ref, err := graph.Eval(w.Term, w.In)
	require.NoError(t, err)
	a := ref.(*graph.Array).Copy()
	a.Set(a.At(2, 1)+0.5, 2, 1)
	prepared := filepath.Join(t.TempDir(), "out.npy")
	require.NoError(t, writeNpy(prepared, a))
	turns := filepath.Join(t.TempDir(), "turns")
	fake := fakePython(t, `out=$(sed 's/.*"output":"\([^"]*\)".*/\1/' "$2")
cp `+prepared+` "$out"
{ sed 's/.*\("runs":[0-9]*,"budget_s":[0-9.e-]*\).*/\1/' "$2"; echo; } >> `+turns+`
echo '{"rows": [{"backend": "numpy", "mode": "eager", "p50_ms": 9, "p99_ms": 9, "runs": 3, "compile_ms": 0, "version": "9.9", "times_ms": [1.5, 2.25, 1.0]}]}'
`)
	t.Chdir(filepath.Join("..", ".."))
	doc := benchJSON(t, "bench", "matmul", "--n", "4", "--runs", "2", "--rounds", "3", "--peers", "numpy="+fake)
	require.Len(t, doc.Rows, 3)
	r := doc.Rows[2]
	assert.Equal(t, "numpy", r["peer"])
	assert.Equal(t, "numpy", r["backend"])
	assert.Equal(t, "eager", r["mode"])
	assert.Equal(t, "matmul", r["workload"])
	assert.Equal(t, 4.0, r["batch"])
	// Two runs in three turns: the peer ran in the first two, one run
	// each, and its row is over both turns' times.
	b, err := os.ReadFile(turns)
	require.NoError(t, err)
	assert.Equal(t, "\"runs\":1,\"budget_s\":0.16666666666666666\n\"runs\":1,\"budget_s\":0.16666666666666666\n", string(b))
	assert.Equal(t, 1.5, r["p50_ms"])
	assert.Equal(t, 2.25, r["p99_ms"])
	assert.Equal(t, 6.0, r["runs"])
	assert.Equal(t, "9.9", r["version"])
	assert.Equal(t, "native fused", r["diff_against"])
	assert.InDelta(t, 0.5, r["max_abs_diff"], 1e-5)
	for _, k := range []string{"kernels", "temporaries", "temporary_bytes", "bytes_moved", "fuse_ms"} {
		assert.NotContains(t, r, k, "a peer's row has no kernels of hofuse's")
	}
	assert.Empty(t, doc.Skipped)

	// A report without each run's time cannot be merged over the turns.
	old := fakePython(t, `out=$(sed 's/.*"output":"\([^"]*\)".*/\1/' "$2")
cp `+prepared+` "$out"
echo '{"rows": [{"backend": "numpy", "mode": "eager", "p50_ms": 1.5, "p99_ms": 2.25, "runs": 7}]}'
`)
	code, _, errs := hofuse("bench", "matmul", "--n", "4", "--runs", "2", "--peers", "numpy="+old)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "--peers numpy: bench/peers/numpy_infer.py reported no times_ms, the time of each run")
}

// writeNpy writes the dictionary NumPy writes for the same array (numpy
// 2.4: np.save of a (2, 3) float32 array), in a version 2.0 header (npyio's,
// which numpy reads), followed by the data, little-endian; readNpy reads it
// back.
func TestNpy(t *testing.T) {
	a, err := graph.FromFloat32([]float32{1, 2, 3, 4, 5, -6.5}, 2, 3)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "a.npy")
	require.NoError(t, writeNpy(path, a))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(b), 12)
	assert.Equal(t, "\x93NUMPY\x02\x00", string(b[:8]))
	hlen := int(binary.LittleEndian.Uint32(b[8:12]))
	require.Equal(t, 12+hlen+24, len(b))
	header := string(b[12 : 12+hlen])
	assert.Equal(t, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", strings.TrimRight(header, " \n"))
	assert.Equal(t, float32(-6.5), math.Float32frombits(binary.LittleEndian.Uint32(b[12+hlen+20:])))
	got, err := readNpy(path)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3}, got.(*graph.Array).Extents())
	assert.Equal(t, []float64{1, 2, 3, 4, 5, -6.5}, got.(*graph.Array).Values())
}

// The peer scripts themselves, and the GoMLX peer built with the go on
// $PATH, against hofuse, on tiny MLPs and the stacks: HOFUSE_BENCH_PYTHON
// names a Python with numpy, jax, onnx and onnxruntime (bench --peers help
// says how to make one).
func TestBenchPeersReal(t *testing.T) {
	py := os.Getenv("HOFUSE_BENCH_PYTHON")
	if py == "" {
		t.Skip("needs a Python with numpy, jax, onnx and onnxruntime: set HOFUSE_BENCH_PYTHON")
	}
	t.Chdir(filepath.Join("..", ".."))
	peers := "ort=" + py + ",jax=" + py + ",numpy=" + py + ",gomlx"
	for _, args := range [][]string{
		{"bench", "mlp", "--sizes", "8,6,5,3", "--batches", "3", "--activation", "gelu", "--norm", "layernorm"},
		{"bench", "mlp", "--sizes", "8,6,3", "--batches", "3", "--dtype", "f64", "--activation", "silu"},
		{"bench", "stack", "--batches", "3", "--features", "8", "--classes", "16"},
	} {
		doc := benchJSON(t, append(args, "--runs", "2", "--no-reference", "--peers", peers)...)
		assert.Empty(t, doc.Skipped)
		n := 0
		for _, r := range doc.Rows {
			if r["peer"] == nil {
				continue
			}
			n++
			assert.Less(t, r["max_abs_diff"], 1e-5, "%v", r)
		}
		assert.Equal(t, 4*len(doc.Rows)/6, n, "%q: four peers beside fused and unfused", args)
	}
}

// --backend all times native and PJRT rows, each checked against the
// interpreter.
func TestBenchInferPJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	doc := benchJSON(t, "bench", "stack", "--backend", "all", "--plugin", path, "--batches", "3", "--features", "8", "--classes", "16", "--runs", "2")
	require.Len(t, doc.Rows, 12) // three workloads, two back ends, fused and unfused
	for i, r := range doc.Rows {
		assert.Equal(t, []string{"native", "pjrt"}[i/2%2], r["backend"], "row %d", i)
		assert.Equal(t, []string{"fused", "unfused"}[i%2], r["mode"], "row %d", i)
		assert.Less(t, r["max_abs_diff"], 1e-5)
		// A PJRT row splits its time: data in, execute, result out; the
		// parts are medians of their own, each at most the run's p99.
		for _, k := range []string{"transfer_in_ms", "execute_ms", "transfer_out_ms"} {
			if r["backend"] == "pjrt" {
				assert.GreaterOrEqual(t, r[k], 0.0, "row %d %s", i, k)
				assert.LessOrEqual(t, r[k], r["p99_ms"], "row %d %s", i, k)
			} else {
				assert.NotContains(t, r, k, "row %d", i)
			}
		}
		if r["backend"] == "pjrt" {
			assert.Greater(t, r["execute_ms"], 0.0, "row %d", i)
		}
	}
}
