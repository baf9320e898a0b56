package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

func TestBenchTrainFlags(t *testing.T) {
	usageErr(t, "name what to time: mlp, matmul, stack or train ('hofuse bench mlp')", "bench")
	usageErr(t, `"infer" is not a benchmark; name one of mlp, matmul, stack or train`, "bench", "infer")
	usageErr(t, "model.txt: want a model file ending in .onnx (ONNX) or .pb (a frozen TensorFlow GraphDef), or name a benchmark: mlp, matmul, stack or train", "bench", "model.txt")
	usageErr(t, `unexpected arguments ["extra"]`, "bench", "train", "extra")
	usageErr(t, "--steps -1: must be at least 0 (0: about 3 s of steps)", "bench", "train", "--steps", "-1")
	usageErr(t, "--warmup 0: with --steps 0 the warm-up's last step sets how many steps to time; pass --warmup 1 or more, or --steps N",
		"bench", "train", "--warmup", "0")
	usageErr(t, "--warmup -1: must be at least 0", "bench", "train", "--warmup", "-1")
	usageErr(t, "--lr 0: a learning rate must be positive", "bench", "train", "--lr", "0")
	usageErr(t, `--backend: "tpu" is not native, pjrt or all`, "bench", "train", "--backend", "tpu")
	usageErr(t, `--batches: "x" is not a batch size`, "bench", "train", "--batches", "4,x")
	usageErr(t, `--batches: "0" is not a batch size`, "bench", "train", "--batches", "0")
	usageErr(t, "--batch: bench times each batch size of --batches; pass --batches 8", "bench", "train", "--batch", "8")
	usageErr(t, "--mode inference: bench train times training steps; leave --mode out (training)", "bench", "train", "--mode", "inference")
	usageErr(t, "--plugin: --backend native loads no plugin; pass --backend pjrt or all", "bench", "train", "--plugin", "/x.so")
	usageErr(t, "--threads: sets the native executor's goroutines, which --backend pjrt does not use",
		"bench", "train", "--backend", "pjrt", "--threads", "2")
	usageErr(t, "--batches 1: --mode training normalises with the batch's statistics (--norm batchnorm), so a batch needs at least 2 rows; pass a larger --batches, or --norm layernorm",
		"bench", "train", "--sizes", "8,4,3", "--batches", "1")
	usageErr(t, `--dtype: "i32" is not f32 or f64`, "bench", "train", "--dtype", "i32")
	usageErr(t, `--activation: unknown activation "frob" (want one of none, relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh, silu, softmax)`,
		"bench", "train", "--activation", "frob")
}

// benchRow is the part of a row of "bench train --json" the tests read.
type benchRow struct {
	Backend         string   `json:"backend"`
	Mode            string   `json:"mode"`
	Batch           int      `json:"batch"`
	P50ms           *float64 `json:"p50_ms"`
	P99ms           *float64 `json:"p99_ms"`
	Steps           int      `json:"steps"`
	Kernels         int      `json:"kernels"`
	ForwardKernels  int      `json:"forward_kernels"`
	BackwardKernels int      `json:"backward_update_kernels"`
	Temporaries     *int     `json:"temporaries"`
	CompileMs       *float64 `json:"compile_ms"`
	FuseMs          float64  `json:"fuse_ms"`
	SearchMs        float64  `json:"search_ms"`
	FirstLoss       float64  `json:"first_loss"`
	LastLoss        float64  `json:"last_loss"`
	ExecuteMs       *float64 `json:"execute_ms,omitempty"`
	TransferInMs    *float64 `json:"transfer_in_ms,omitempty"`
}

// checkBenchRows checks the rows of a tiny run: one fused and one unfused
// row per batch, in that order, with plausible figures, and Adam lowering
// the loss on the fixed batch.
func checkBenchRows(t *testing.T, out, backend string, batches ...int) {
	t.Helper()
	var rep struct {
		Model string     `json:"model"`
		Rows  []benchRow `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Contains(t, rep.Model, "MLP 8-4-3, batches "+strings.Trim(strings.Join(strings.Fields(fmt.Sprint(batches)), ","), "[]")+", f32, batchnorm, training, relu")
	require.Len(t, rep.Rows, 2*len(batches))
	for i, r := range rep.Rows {
		assert.Equal(t, backend, r.Backend)
		assert.Equal(t, []string{"fused", "unfused"}[i%2], r.Mode)
		assert.Equal(t, batches[i/2], r.Batch)
		assert.Equal(t, 3, r.Steps)
		require.NotNil(t, r.P50ms, "p50_ms")
		require.NotNil(t, r.P99ms, "p99_ms")
		require.NotNil(t, r.CompileMs, "compile_ms")
		require.NotNil(t, r.Temporaries, "temporaries")
		assert.Greater(t, *r.P50ms, 0.0)
		assert.GreaterOrEqual(t, *r.P99ms, *r.P50ms)
		assert.Greater(t, *r.CompileMs, 0.0)
		assert.Greater(t, r.Kernels, 0)
		assert.Greater(t, r.ForwardKernels, 0)
		assert.Equal(t, r.Kernels, r.ForwardKernels+r.BackwardKernels)
		assert.Greater(t, r.BackwardKernels, 0, "the step has a backward pass and an update")
		assert.Greater(t, *r.Temporaries, 0)
		if r.Mode == "fused" {
			// The schedule pass's time is part of fusing.
			assert.Greater(t, r.SearchMs, 0.0)
			assert.LessOrEqual(t, r.SearchMs, r.FuseMs)
		} else {
			assert.Zero(t, r.SearchMs, "an unfused step is not scheduled")
		}
		assert.Less(t, r.LastLoss, r.FirstLoss, "6 Adam steps on one batch lower the loss")
	}
}

func TestBenchTrainNative(t *testing.T) {
	args := []string{"bench", "train", "--sizes", "8,4,3", "--batches", "4", "--steps", "3", "--lr", "0.01"}
	code, out, errs := hofuse(args...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "MLP 8-4-3, batches 4, f32, batchnorm, training, relu; 59 parameters\n")
	assert.Regexp(t, `(?m)^ *backend +mode +batch +p50 ms +p99 ms +in ms +exec ms +out ms +steps +kernels +forward +backward\+update +temporaries +temp bytes +fuse ms +compile ms$`, out)
	assert.Regexp(t, `(?m)^ *native +fused +4 +\d+\.\d{3} +\d+\.\d{3} +- +- +- +3 +[1-9]\d* `, out)
	assert.Regexp(t, `(?m)^ *native +unfused +4 +\d+\.\d{3} +\d+\.\d{3} +- +- +- +3 +[1-9]\d* `, out)
	// A line per configuration on stderr.
	assert.Equal(t, 2, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, "[1/2] native fused   batch 4 ")
	assert.Contains(t, errs, "[2/2] native unfused batch 4 ")

	code, out, errs = hofuse(append(args, "--json", "--batches", "4,6")...)
	require.Equal(t, 0, code, errs)
	checkBenchRows(t, out, "native", 4, 6)

	// Without --steps, the last warm-up step sets the count: about 3 s of
	// steps, at most 200 (a step of this model takes well under 15 ms).
	code, out, errs = hofuse("bench", "train", "--sizes", "8,4,3", "--batches", "4", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct{ Rows []benchRow }
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Rows, 2)
	for _, r := range rep.Rows {
		assert.Equal(t, 200, r.Steps, r.Mode)
	}
}

func TestBenchTrainPJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	code, out, errs := hofuse("bench", "train", "--backend", "all", "--plugin", path,
		"--sizes", "8,4,3", "--batches", "4", "--steps", "3", "--lr", "0.01", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Rows []benchRow `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Rows, 4)
	checkBenchRows(t, `{"model": "MLP 8-4-3, batches 4, f32, batchnorm, training, relu", "rows": [`+rowsJSON(t, rep.Rows[2:])+`]}`, "pjrt", 4)
	// Both back ends start from the same weights and run the same steps.
	for i := range 2 {
		assert.InDelta(t, rep.Rows[i].FirstLoss, rep.Rows[i+2].FirstLoss, 1e-5)
		assert.InDelta(t, rep.Rows[i].LastLoss, rep.Rows[i+2].LastLoss, 1e-4)
	}
	// PJRT rows split a step's time; native rows have no split.
	for i, r := range rep.Rows {
		if r.Backend == "native" {
			assert.Nil(t, r.ExecuteMs, "row %d", i)
			continue
		}
		require.NotNil(t, r.ExecuteMs, "row %d", i)
		require.NotNil(t, r.TransferInMs, "row %d", i)
		assert.Greater(t, *r.ExecuteMs, 0.0, "row %d", i)
		assert.LessOrEqual(t, *r.ExecuteMs, *r.P99ms, "row %d", i)
	}
}

func rowsJSON(t *testing.T, rows []benchRow) string {
	t.Helper()
	var parts []string
	for _, r := range rows {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ",")
}

// With --backend all, a plugin that is not there is an error before any
// native timing.
func TestBenchTrainMissingPluginFirst(t *testing.T) {
	code, out, errs := hofuse("bench", "train", "--backend", "all", "--plugin", filepath.Join(t.TempDir(), "none.so"),
		"--sizes", "8,4,3", "--batches", "4", "--steps", "3")
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errs, "hofuse bench: "), errs)
	assert.Contains(t, errs, "none.so")
	assert.NotContains(t, errs, "native fused", "no native timing before the error")
}

func TestBenchTrainPeersFlags(t *testing.T) {
	usageErr(t, "--peers jax: want jax=PYTHON, the Python of a virtual environment with jax", "bench", "train", "--peers", "jax")
	usageErr(t, `--peers torch=/usr/bin/python3: "torch" is not a peer; the one there is: jax`, "bench", "train", "--peers", "torch=/usr/bin/python3")
	usageErr(t, "--peers: bench/peers/jax_train_step.py times the MLP 784-512-512-10, batchnorm, relu, f32 only; leave out --sizes, --norm, --activation and --dtype, or --peers",
		"bench", "train", "--peers", "jax=python3", "--sizes", "8,4,3")
	// The tests run in cmd/hofuse, where the script is not.
	usageErr(t, "--peers: bench/peers/jax_train_step.py is not in the current folder (stat bench/peers/jax_train_step.py: no such file or directory); run hofuse from the repository's root",
		"bench", "train", "--peers", "jax=python3")
}

// --peers jax=PYTHON runs the script with PYTHON and bench train's own
// --batches, --steps, --warmup and --lr, and reports its rows: here a
// stand-in for Python writes down the arguments it got and prints two
// fixed rows.
func TestBenchTrainPeers(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python")
	require.NoError(t, os.WriteFile(fake, []byte(`#!/bin/sh
echo "$*" > "$0.args"
echo "jax jit: 2 rows" >&2
cat <<END
{"model": "fake", "rows": [
 {"backend": "jax", "mode": "jit", "batch": 32, "p50_ms": 2.5, "p99_ms": 4.25, "steps": 20, "compile_ms": 600, "first_loss": 2.4, "last_loss": 0.1},
 {"backend": "jax", "mode": "jit", "batch": 256, "p50_ms": 8.5, "p99_ms": 9.75, "steps": 9, "compile_ms": 900, "first_loss": 2.3, "last_loss": 0.2}]}
END
`), 0o755))
	t.Chdir(filepath.Join("..", ".."))
	// The hofuse side is kept tiny with the model flags' defaults: one
	// batch of 2 and one timed step.
	args := []string{"bench", "train", "--batches", "2", "--steps", "1", "--warmup", "1", "--lr", "0.005", "--peers", "jax=" + fake}
	code, out, errs := hofuse(append(args, "--json")...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "jax jit: 2 rows\n")
	var rep struct {
		Rows  []benchRow       `json:"rows"`
		Peers []map[string]any `json:"peers"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Rows, 2)
	require.Len(t, rep.Peers, 2)
	assert.Equal(t, map[string]any{"peer": "jax", "backend": "jax", "mode": "jit", "batch": 256.0, "p50_ms": 8.5, "p99_ms": 9.75, "steps": 9.0,
		"compile_ms": 900.0, "first_loss": 2.3, "last_loss": 0.2}, rep.Peers[1])
	got, err := os.ReadFile(fake + ".args")
	require.NoError(t, err)
	assert.Equal(t, "bench/peers/jax_train_step.py --batches 2 --steps 1 --warmup 1 --lr 0.005\n", string(got))

	code, out, errs = hofuse(args...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^ +jax +jit +32 +2\.500 +4\.250 +- +- +- +20 +- +- +- +- +- +- +600$`, out)
	assert.Regexp(t, `(?m)^ +jax +jit +256 +8\.500 +9\.750 +- +- +- +9 +- +- +- +- +- +- +900$`, out)
}
