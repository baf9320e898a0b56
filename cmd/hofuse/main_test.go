package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// hofuse runs the command line in-process and returns its exit code and
// output.
func hofuse(args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelp(t *testing.T) {
	code, out, _ := hofuse("help")
	assert.Equal(t, 0, code)
	for _, c := range []string{"eval", "show", "fuse"} {
		assert.Contains(t, out, "\n  "+c)
	}
	code, _, errs := hofuse("eval", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, "Usage: hofuse eval")
	assert.Contains(t, errs, "-seed")
	code, out, errs = hofuse()
	assert.Equal(t, 0, code, "no command prints the help")
	assert.Contains(t, out, "Usage: hofuse COMMAND")
	assert.Empty(t, errs)
	code, _, errs = hofuse("frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "frobnicate"`)
}

func TestEval(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"A": {"dtype": "f64", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]},
		"u": {"dtype": "f64", "shape": [3], "data": [1, 0, -1]}}`), 0o644))
	code, out, errs := hofuse("eval", "--inputs", in, `A : f64[2,3]; u : f64[3]; map (\r -> rnz (+) (*) r u) A`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "f64[2][-2 -2]\n", out)

	code, out, errs = hofuse("eval", "--json", "--inputs", in, `A : f64[2,3]; u : f64[3]; rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u`)
	require.Equal(t, 0, code, errs)
	var v struct {
		DType string    `json:"dtype"`
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, []float64{-2, -2}, v.Data)

	// Random inputs are reproducible by seed.
	_, a, _ := hofuse("eval", "--seed", "3", `x : f32[4]; reduce (+) x`)
	_, b, _ := hofuse("eval", `x : f32[4]; reduce (+) x`, "--seed", "3")
	assert.Equal(t, a, b)
	assert.True(t, strings.HasPrefix(a, "f32 "), a)
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, 2, "hofuse eval: want one program, as an argument or with -f FILE"},
		{[]string{"eval", "map (\\r -> r"}, 1, `hofuse eval: program:1:13: expected ")" to match the "(" at 1:5, found end of input`},
		{[]string{"eval", "x : f64[3]; y : f64[4]; zip (+) x y"}, 1,
			"hofuse eval: program:1:25: zip (+) x y: nzip arguments have different outer extents: argument 0 has 3, argument 1 has 4"},
		{[]string{"eval", "--seed", "x", "1"}, 2, `hofuse eval: invalid value "x" for flag --seed`},
		{[]string{"eval", "-f", "/nonexistent/p.hof"}, 1, "hofuse eval: open /nonexistent/p.hof: no such file or directory"},
	}
	for _, tc := range tests {
		code, _, errs := hofuse(tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
	}
}

func TestShowMLP(t *testing.T) {
	code, out, errs := hofuse("show", "mlp", "--sizes", "4,3,2", "--batch", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "-- MLP 4-3-2, batch 2, f32, batchnorm, inference, relu; 35 parameters\n")
	assert.Contains(t, out, "input x : f32[2,4];\nparam dense1.W : f32[4,3];\n")
	assert.Contains(t, out, `map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x`)

	code, _, errs = hofuse("show", "mlp", "--sizes", "4,0,2")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "hofuse show: --sizes 4,0,2: size 2 is 0; every layer needs at least 1 feature\n")
	code, _, errs = hofuse("show", "resnet")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `want one model name, mlp or cnn; got ["resnet"]`)
}

// TestShowCNN: show cnn prints the CNN of the model flags; the flags of
// the other model, and CNN sizes that do not fit, are usage errors naming
// the flag.
func TestShowCNN(t *testing.T) {
	code, out, errs := hofuse("show", "cnn", "--image", "6x6x2", "--conv", "3", "--batch", "2", "--classes", "4")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "-- CNN 6x6x2, conv 3 (3x3 same), pool 2, 4 classes, batch 2, f32, batchnorm, inference, relu; 178 parameters\n")
	assert.Contains(t, out, "input x : f32[2,72];\nparam conv1.K : f32[3,3,2,3];\n")
	assert.Contains(t, out, "window 0 3 (window 1 3 (pad 1 1 1 (pad 0 1 1 img)))")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "cnn", "--sizes", "4,2"}, "hofuse show: --sizes: describes the MLP; the CNN's sizes are --image, --conv, --kernel, --pool, --hidden and --classes\n"},
		{[]string{"show", "mlp", "--conv", "4"}, "hofuse show: --conv: describes the CNN (cnn); the MLP's sizes are --sizes\n"},
		{[]string{"show", "cnn", "--image", "8x8"}, "hofuse show: --image 8x8: want HxWxC, as 8x8x1\n"},
		{[]string{"show", "cnn", "--conv", "4,4,4,4"}, "hofuse show: --pool: block 4 pools a 1x1 image with a 2x2 window: the image is too small for 4 blocks\n"},
		{[]string{"show", "cnn", "--norm", "layernorm"}, "hofuse show: --norm: layernorm, want batchnorm or none\n"},
	} {
		code, _, errs := hofuse(tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
	}
}

func TestFuseCommand(t *testing.T) {
	dot := filepath.Join(t.TempDir(), "k.dot")
	code, out, errs := hofuse("fuse", "mlp", "--sizes", "784,512,512,10", "--json", "--dot", dot)
	require.Equal(t, 0, code, errs)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	// The keys are snake_case, each count has its _before and _after, and
	// terms are not HTML-escaped.
	keys := slices.Sorted(maps.Keys(rep))
	assert.Equal(t, []string{"kernels", "kernels_after", "kernels_before", "passes", "rules_applied", "rules_refused",
		"schedule", "temporaries_after", "temporaries_before", "temporary_bytes_after", "temporary_bytes_before"}, keys)
	assert.Contains(t, out, `"term": "map (\\r -> nzip`)
	assert.NotContains(t, out, `\u003e`)
	assert.EqualValues(t, 3, rep["kernels_after"])
	b, err := os.ReadFile(dot)
	require.NoError(t, err)
	assert.Contains(t, string(b), "subgraph cluster_k1_dense1_relu1")

	code, out, errs = hofuse("fuse", `A : f64[5,7]; B : f64[5,7]; v : f64[7]; u : f64[7]; map (\r -> rnz (+) (*) r (zip (+) v u)) (zip (zip (+)) A B)`)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "kernels: 3 before fusion, 1 after\n")

	code, out, errs = hofuse("fuse", "mlp", "--mode", "training", "--sizes", "8,6,4", "--batch", "4")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "kernels: 5 before fusion, 4 after\n")

	code, _, errs = hofuse("fuse", "mlp", "--disable-rule", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown rule "nope"`)
}

// fuse reports each kernel's loop order; --no-schedule keeps the written
// ones; --tune measures, keeps the choice, reads it back the next time,
// and ignores a corrupt cache file with a warning.
func TestFuseSchedule(t *testing.T) {
	// A weight gradient written as a sum of outer products: the pass
	// reorders it into the GEMM form (contract is off, so that only the
	// schedule pass can).
	prog := `X : f32[64,32]; G : f32[64,48]; rnz (zip (zip (+))) (\x g -> map (\xi -> map (\gj -> xi * gj) g) x) X G`
	code, out, errs := hofuse("fuse", prog, "--disable-rule", "contract")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `  order:  map[XG] map[XG] rnz \(cost model; predicted .*, written rnz mapX mapG: `, out)
	assert.Regexp(t, `schedule: \d+ orders costed, \d+ pruned, 1 kernels reordered, in `, out)

	code, out, errs = hofuse("fuse", prog, "--disable-rule", "contract", "--no-schedule")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "order:")
	assert.Contains(t, out, "nest:   rnz X G > ")

	dir := t.TempDir()
	code, out, errs = hofuse("fuse", prog, "--disable-rule", "contract", "--tune", "--tune-dir", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "(measurement (4 orders timed); ")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	code, out, errs = hofuse("fuse", prog, "--disable-rule", "contract", "--tune", "--tune-dir", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "(measurement (cached in "+files[0]+"); ")
	assert.Empty(t, errs)

	require.NoError(t, os.WriteFile(files[0], []byte("garbage"), 0o644))
	code, out, errs = hofuse("fuse", prog, "--disable-rule", "contract", "--tune", "--tune-dir", dir)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "hofuse: warning: tuning cache: ignoring "+files[0]+", which is not a cache file")
	assert.Contains(t, out, "(measurement (4 orders timed); ")
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"version": 1`, "rewritten")

	usageErr(t, "--tune chooses the order the schedule pass sets, and --no-schedule skips that pass; pass one of them", "fuse", "mlp", "--tune", "--no-schedule")
	usageErr(t, "--tune-dir: the folder is used by --tune; pass --tune too", "fuse", "mlp", "--tune-dir", dir)
}

func TestDemo(t *testing.T) {
	code, out, errs := hofuse("demo", "--sizes", "9,7,5,3", "--batches", "1,4", "--runs", "3", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Backend    string  `json:"backend"`
		MaxAbsDiff float64 `json:"max_abs_diff"`
		Rows       []struct {
			Batch          int     `json:"batch"`
			Mode           string  `json:"mode"`
			P50ms          float64 `json:"p50_ms"`
			P99ms          float64 `json:"p99_ms"`
			Kernels        int     `json:"kernels"`
			TemporaryBytes int     `json:"temporary_bytes"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "native", rep.Backend)
	require.Len(t, rep.Rows, 4)
	assert.Equal(t, 1, rep.Rows[0].Batch)
	assert.Equal(t, "fused", rep.Rows[0].Mode)
	assert.Equal(t, "unfused", rep.Rows[1].Mode)
	assert.Equal(t, 3, rep.Rows[0].Kernels)
	assert.Equal(t, 7, rep.Rows[1].Kernels)
	assert.Equal(t, 4*(7+5)*4, rep.Rows[2].TemporaryBytes)
	assert.LessOrEqual(t, rep.MaxAbsDiff, 1e-4)
	for _, r := range rep.Rows {
		assert.Greater(t, r.P50ms, 0.0)
		assert.GreaterOrEqual(t, r.P99ms, r.P50ms)
	}

	code, out, errs = hofuse("demo", "--sizes", "9,7,5,3", "--batches", "2", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "fusion: 7 kernels before, 3 after")
	assert.Contains(t, out, "max abs difference: fused vs unfused")

	code, _, errs = hofuse("demo", "--backend", "tpu")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--backend: "tpu" is not native, pjrt or auto`)
	code, _, errs = hofuse("demo", "--batches", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--batches: "0" is not a batch size`)
}

// TestDemoCNN: demo --model cnn runs the CNN of the model flags, fused
// and unfused, checked against the interpreter; valid convolutions are
// strided windows the native back end lowers. The CNN's flags with the
// MLP, and the other way round, are usage errors.
func TestDemoCNN(t *testing.T) {
	code, out, errs := hofuse("demo", "--model", "cnn", "--valid", "--conv", "3,4", "--image", "12x12x2", "--batches", "3", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "CNN 12x12x2, conv 3,4 (3x3 valid), pool 2, 10 classes, batch 3, f32, batchnorm, inference, relu;")
	assert.Contains(t, out, "fused vs reference interpreter")
	assert.Contains(t, out, "checked against the reference interpreter: batch 3 whole")

	code, _, errs = hofuse("demo", "--model", "cnn", "--sizes", "3,4")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--sizes: describes the MLP; the CNN's sizes are --image, --conv, --kernel, --pool, --hidden and --classes")
	code, _, errs = hofuse("demo", "--conv", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--conv: describes the CNN (cnn); the MLP's sizes are --sizes")
	code, _, errs = hofuse("bench", "train", "--model", "cnn", "--conv", "4", "--peers", "jax=python3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--peers: bench/peers/jax_cnn_train_step.py times the CNN 8x8x1, conv 8,16 (3x3 same), pool 2, 10 classes, batchnorm, relu, f32 only")
}

func TestDemoPJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	code, out, errs := hofuse("demo", "--backend", "pjrt", "--plugin", path, "--sizes", "9,7,5,3", "--batches", "1,4", "--runs", "2", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Backend string `json:"backend"`
		Rows    []struct {
			CompileMs float64 `json:"compile_ms"`
		} `json:"rows"`
		MaxAbsDiff float64 `json:"max_abs_diff"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "pjrt-cpu", rep.Backend)
	require.Len(t, rep.Rows, 4)
	assert.Greater(t, rep.Rows[0].CompileMs, 0.0)
	assert.LessOrEqual(t, rep.MaxAbsDiff, 1e-4)
}

// Every batch is checked against the reference interpreter: a small one
// whole, a large one on a fixed sample of rows, and the output says which.
func TestDemoChecksEveryBatch(t *testing.T) {
	code, out, errs := hofuse("demo", "--sizes", "9,7,5,3", "--batches", "2,20", "--runs", "2", "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		MaxAbsDiffRef   float64 `json:"max_abs_diff_reference"`
		ReferenceChecks []struct {
			Batch int   `json:"batch"`
			Rows  []int `json:"rows"`
			All   bool  `json:"all"`
		} `json:"reference_checks"`
		Speedups []struct {
			Batch          int     `json:"batch"`
			FusedVsUnfused float64 `json:"fused_vs_unfused"`
		} `json:"speedups"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.ReferenceChecks, 2)
	assert.Equal(t, 2, rep.ReferenceChecks[0].Batch)
	assert.Equal(t, []int{0, 1}, rep.ReferenceChecks[0].Rows)
	assert.True(t, rep.ReferenceChecks[0].All)
	assert.Equal(t, 20, rep.ReferenceChecks[1].Batch)
	assert.Equal(t, []int{0, 6, 12, 19}, rep.ReferenceChecks[1].Rows) // i·19/3 for i = 0..3
	assert.False(t, rep.ReferenceChecks[1].All)
	assert.LessOrEqual(t, rep.MaxAbsDiffRef, 1e-5)
	require.Len(t, rep.Speedups, 2)
	assert.Equal(t, 20, rep.Speedups[1].Batch)

	code, out, errs = hofuse("demo", "--sizes", "9,7,5,3", "--batches", "1,20", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "checked against the reference interpreter: batch 1 whole; batch 20 rows 0, 6, 12, 19 "+
		"(a batch over 16 rows is checked on a fixed sample of 4 rows, first and last included, to keep the slow interpreter to seconds)\n")
	code, out, errs = hofuse("demo", "--sizes", "9,7,5,3", "--batches", "1", "--runs", "2", "--no-reference")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "not checked against the reference interpreter (--no-reference)\n")
}

func TestTakeRows(t *testing.T) {
	a, err := graph.FromFloat64([]float64{0, 1, 10, 11, 20, 21, 30, 31}, 4, 2)
	require.NoError(t, err)
	got, err := takeRows(a, []int{0, 3})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 2}, got.Extents())
	assert.Equal(t, []float64{0, 1, 30, 31}, got.Float64s())
	assert.Equal(t, []int{0, 85, 170, 255}, sampleRows(256, 4))
}

func TestEstimateOps(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want float64 // by hand
	}{
		// 10·10 dot products of 10 products and 10 sums.
		{`A : f64[10,10]; B : f64[10,10]; map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A`, 2000},
		// 4 rows of 3 sums each.
		{`A : f64[4,3]; map (reduce (+)) A`, 12},
		// 5 additions, then 5 multiplications.
		{`x : f64[5]; map (*2) (zip (+) x x)`, 10},
	} {
		prog, err := parseProgram(tc.src, "program")
		require.NoError(t, err)
		info, err := graph.Check(prog.Body)
		require.NoError(t, err)
		assert.Equal(t, tc.want, estimateOps(prog.Body, info.Types), tc.src)
	}
}

// A large program on the interpreter gets a one-line note on stderr; a
// small one, or a fast back end, none.
func TestEvalSlowInterpNote(t *testing.T) {
	big := `A : f64[2000,1000]; map (reduce (+)) A`
	code, out, errs := hofuse("eval", big)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "f64[2000]["), out[:20])
	assert.Equal(t, "note: about 2e+06 scalar operations on the reference interpreter, the slow oracle; "+
		"add --backend native to run the same program fused on the native back end, fast\n", errs)
	code, _, errs = hofuse("eval", "--backend", "native", big)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
	code, _, errs = hofuse("eval", `A : f64[20,10]; map (reduce (+)) A`)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
}

// --json writes bools as JSON booleans, and --inputs reads them back.
func TestEvalJSONBools(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"x": [-1, 2, 0]}`), 0o644))
	code, out, errs := hofuse("eval", "--json", "--inputs", in, `x : f64[3]; map (\v -> v > 0) x`)
	require.Equal(t, 0, code, errs)
	assert.JSONEq(t, `{"dtype": "bool", "shape": [3], "data": [false, true, false]}`, out)
	back := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, os.WriteFile(back, []byte(`{"b": `+out+`}`), 0o644))
	code, out, errs = hofuse("eval", "--inputs", back, `b : bool[3]; map (\v -> select v 1 0) b`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "f64[3][0 1 0]\n", out)
}

func TestCount(t *testing.T) {
	assert.Equal(t, "1 kernel", count(1, "kernel"))
	assert.Equal(t, "2 kernels", count(2, "kernel"))
	assert.Equal(t, "0 problems", count(0, "problem"))
	assert.Equal(t, "1 entry", count(1, "entry"))
	assert.Equal(t, "3 entries", count(3, "entry"))
	// The texts that count: "1 parameter", "1 problem found".
	code, out, errs := hofuse("show", "mlp", "--sizes", "1,1", "--norm", "none")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "; 2 parameters\n")
	code, _, errs = hofuse("eval", "--inputs", `{"x": [1]}`, "x : f64[2]; x")
	assert.Equal(t, 1, code)
	assert.Equal(t, "hofuse eval: --inputs: input x: axis 0 has 1 entry, want 2 (x : f64[2])\n", errs)
}

// map (reduce (+)) A, reduce partially applied, on every back end, fused
// and unfused: the row sums, by hand.
func TestEvalPartialReduce(t *testing.T) {
	in := `{"A": [[1, 2, 3], [4, 5, 6]]}`
	for _, args := range [][]string{
		{"--backend", "interp"},
		{"--backend", "native"},
		{"--backend", "native", "--unfused"},
	} {
		code, out, errs := hofuse(append(append([]string{"eval"}, args...), "--inputs", in, "A : f64[2,3]; map (reduce (+)) A")...)
		require.Equal(t, 0, code, "%q: %s", args, errs)
		assert.Equal(t, "f64[2][6 15]\n", out, "%q", args)
		code, out, errs = hofuse(append(append([]string{"eval"}, args...), "--inputs", in, "A : f64[2,3]; map (reduce max) (flip 0 A)")...)
		require.Equal(t, 0, code, "%q: %s", args, errs)
		assert.Equal(t, "f64[3][4 5 6]\n", out, "%q", args)
	}
}

func TestEvalPartialReducePJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	for _, unfused := range []bool{false, true} {
		args := []string{"eval", "--backend", "pjrt", "--plugin", path, "--inputs", `{"A": [[1, 2, 3], [4, 5, 6]]}`}
		if unfused {
			args = append(args, "--unfused")
		}
		code, out, errs := hofuse(append(args, "A : f64[2,3]; map (reduce (+)) A")...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, "f64[2][6 15]\n", out)
	}
}
