package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// envChild, set in a child process of the test binary, holds the command
// line (JSON) for TestMain to run instead of the tests: hofuseChild uses
// it to run a command that may hang or crash without taking the tests with
// it.
const envChild = "HOFUSE_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(envChild); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// hofuseChild runs the command line in a child process, killed after
// timeout; code is -1 when it was killed or crashed.
func hofuseChild(t *testing.T, timeout time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	a, err := json.Marshal(args)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), envChild+"="+string(a))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("%q did not finish in %v", args, timeout)
		return -1, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// usageErr asserts that a command is refused as bad usage (exit status 2)
// with exactly the message want, printed once, then one line of usage.
func usageErr(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errs := hofuse(args...)
	assert.Equal(t, 2, code, "%q: %s", args, errs)
	first, usage, _ := strings.Cut(errs, "\n")
	assert.Equal(t, "hofuse "+args[0]+": "+want, first, "%q", args)
	assert.Regexp(t, `^usage: \S.*; all flags: hofuse `+args[0]+` --help\n$`, usage, "%q", args)
	assert.Empty(t, out, "%q", args)
}

// A usage error is followed by the usage of the flag it names, or else of
// the command: one line.
func TestUsageLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--seed", "x", "1"}, "usage: --seed uint: seed for random inputs (uniform in [-1, 1)); all flags: hofuse eval --help\n"},
		{[]string{"demo", "--threads", "-2"}, "usage: --threads int: native executor goroutines (0: GOMAXPROCS); all flags: hofuse demo --help\n"},
		{[]string{"demo", "--frob"}, "usage: hofuse demo [--backend native|pjrt|auto] [--batches 1,256] [--runs N] [--threads N] [--max-memory BYTES] [--json] [[--model mlp|cnn] model flags | --model FILE.onnx|FILE.pb]; all flags: hofuse demo --help\n"},
		{[]string{"fuse", "mlp", "--disable-rule", "eta,nope"}, "usage: --disable-rule rules: switch off rules by name (repeatable, or a comma list: a,b); rules: " +
			strings.Join(fusion.RuleNames(), ", ") + "; all flags: hofuse fuse --help\n"},
	} {
		code, _, errs := hofuse(tc.args...)
		assert.Equal(t, 2, code, "%q", tc.args)
		lines := strings.SplitAfter(errs, "\n")
		require.Len(t, lines, 3, "%q: %s", tc.args, errs) // the error, the usage, ""
		assert.Equal(t, tc.want, lines[1], "%q", tc.args)
	}
}

// Repeatable flags take comma lists too.
func TestDisableRuleList(t *testing.T) {
	prog := `A : f64[5,7]; B : f64[5,7]; map (\r -> reduce (+) r) (zip (zip (+)) A B)`
	_, both, _ := hofuse("fuse", "--json", "--disable-rule", "nzip-nzip", "--disable-rule", "rnz-nzip", prog)
	code, list, errs := hofuse("fuse", "--json", "--disable-rule", "nzip-nzip,rnz-nzip", prog)
	require.Equal(t, 0, code, errs)
	var a, b struct {
		KernelsAfter int `json:"kernels_after"`
	}
	require.NoError(t, json.Unmarshal([]byte(both), &a))
	require.NoError(t, json.Unmarshal([]byte(list), &b))
	assert.Equal(t, 2, a.KernelsAfter, "nothing fuses with both rules off")
	assert.Equal(t, a, b)
	usageErr(t, `--disable-rule: unknown rule "nope"; the rules are `+strings.Join(fusion.RuleNames(), ", "), "fuse", "mlp", "--disable-rule", "eta,nope")
	usageErr(t, `invalid value "eta," for flag --disable-rule: "eta,": an empty name in the list`, "fuse", "mlp", "--disable-rule", "eta,")
}

func TestFlagErrorsPrintOnce(t *testing.T) {
	usageErr(t, `invalid value "x" for flag --seed: parse error`, "eval", "--seed", "x", "1")
	usageErr(t, "flag provided but not defined: --frob", "demo", "--frob")
	usageErr(t, `invalid value "big" for flag --batch: parse error`, "fuse", "mlp", "--batch", "big")
	// --help prints the usage once, to stderr, and succeeds.
	code, _, errs := hofuse("fuse", "--help")
	assert.Equal(t, 0, code)
	assert.Equal(t, 1, strings.Count(errs, "Usage: hofuse fuse"), errs)
}

func TestModelFlags(t *testing.T) {
	usageErr(t, "--batch 0: a batch size must be at least 1", "fuse", "mlp", "--batch", "0")
	usageErr(t, "--batch -1: a batch size must be at least 1", "fuse", "mlp", "--batch", "-1")
	usageErr(t, "--batch -1: a batch size must be at least 1", "show", "mlp", "--batch", "-1")
	usageErr(t, "--batch: model flags describe the MLP of 'mlp' and the CNN of 'cnn'; a program's types fix its sizes",
		"fuse", "--batch", "4", `x : f32[3]; map (\v -> v + 1) x`)
	usageErr(t, "--sizes: model flags describe the MLP of 'mlp' and the CNN of 'cnn'; a program's types fix its sizes",
		"fuse", "--sizes", "4,2", `x : f32[3]; map (\v -> v + 1) x`)
	usageErr(t, "--sizes 4,0,2: size 2 is 0; every layer needs at least 1 feature", "show", "mlp", "--sizes", "4,0,2")
	usageErr(t, "--sizes 4: 1 sizes [4], want at least 2 (input and output features)", "show", "mlp", "--sizes", "4")
	usageErr(t, "--batch 1: --mode training normalises with the batch's statistics (--norm batchnorm), so a batch needs at least 2 rows; pass a larger --batch, or --norm layernorm",
		"fuse", "mlp", "--mode", "training")
}

func TestDemoFlags(t *testing.T) {
	// Training on demo's defaults: the batches default to 2,256.
	code, out, errs := hofuse("demo", "--mode", "training", "--sizes", "9,7,5,3", "--runs", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "MLP 9-7-5-3, batch 2, f32, batchnorm, training, relu")
	assert.Contains(t, out, "batch 256: fused is")

	usageErr(t, "--batches 1: --mode training normalises with the batch's statistics (--norm batchnorm), so a batch needs at least 2 rows; pass a larger --batches, or --norm layernorm",
		"demo", "--mode", "training", "--batches", "1,4")
	usageErr(t, "--batch: demo times each batch size of --batches; pass --batches 4", "demo", "--batch", "4")
	usageErr(t, "--runs -1: must be at least 0 (0: about half a second of runs)", "demo", "--runs", "-1")
	usageErr(t, "--threads -2: must be at least 0 (0: GOMAXPROCS)", "demo", "--threads", "-2")
	usageErr(t, "--plugin: --backend native loads no plugin; pass --backend pjrt or auto", "demo", "--plugin", "/x.so")
	usageErr(t, "--threads: sets the native executor's goroutines, which --backend pjrt does not use", "demo", "--backend", "pjrt", "--threads", "2")
	usageErr(t, `invalid value "4 apples" for flag --max-memory: "4 apples" is not a size in bytes; write e.g. 4GiB, 512MiB or 1000000`,
		"demo", "--max-memory", "4 apples")
}

func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "that", "does", "not", "exist.png")
	start := time.Now()
	// At --size 512 the experiment would take many seconds: the path is
	// refused before it starts.
	usageErr(t, "--plot "+missing+": the folder "+filepath.Dir(missing)+" does not exist; create it or write elsewhere",
		"paper", "matmul", "--size", "512", "--plot", missing)
	assert.Less(t, time.Since(start), 2*time.Second)
	usageErr(t, "--plot "+filepath.Join(dir, "m.svg")+": want a file name ending in .png", "paper", "matmul", "--plot", filepath.Join(dir, "m.svg"))
	usageErr(t, "--plot "+dir+": want a file name ending in .png", "paper", "matmul", "--plot", dir)
	usageErr(t, "--size: --load prints a saved report and runs nothing; drop it or --load", "paper", "matmul", "--load", "r.json", "--size", "64")
	usageErr(t, "--dot "+filepath.Join(dir, "no", "k.dot")+": the folder "+filepath.Join(dir, "no")+" does not exist; create it or write elsewhere",
		"fuse", "mlp", "--dot", filepath.Join(dir, "no", "k.dot"))
	usageErr(t, "--dot "+filepath.Join(dir, "k.png")+": want a file name ending in .dot or .gv", "fuse", "mlp", "--dot", filepath.Join(dir, "k.png"))
}

func TestPJRTInstallFlags(t *testing.T) {
	usageErr(t, "--python: runs pip, which --wheel FILE replaces; drop one of them", "pjrt", "install", "--wheel", "w.whl", "--python", "python3.12")
	usageErr(t, "--unverified: a --wheel FILE is checked against the wheels recorded in plugins.json only; drop one of them", "pjrt", "install", "--wheel", "w.whl", "--unverified")
	usageErr(t, "--recheck: hashes an installed plugin to keep it, but --force reinstalls it anyway; drop one of them", "pjrt", "install", "--force", "--recheck")
}

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"4GiB", 4 << 30}, {"512mib", 512 << 20}, {"1.5GB", 1_500_000_000}, {"65536", 65536}, {"2 KiB", 2048}, {"100B", 100}} {
		var b byteSize
		if assert.NoError(t, b.Set(c.in), c.in) {
			assert.Equal(t, c.want, int64(b), c.in)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0", `"0": the limit must be at least 1 byte`},
		{"-1GiB", `"-1GiB": the limit must be at least 1 byte`},
		{"lots", `"lots" is not a size in bytes; write e.g. 4GiB, 512MiB or 1000000`},
		{"9e30", `"9e30" is more bytes than fit in an int64`},
	} {
		var b byteSize
		err := b.Set(c.in)
		if assert.Error(t, err, c.in) {
			assert.Equal(t, c.want, err.Error())
		}
	}
	assert.Equal(t, "4GiB", byteSize(4<<30).String())
	assert.Equal(t, "1000B", byteSize(1000).String())
}

func TestEvalFlags(t *testing.T) {
	p := `x : f64[3]; reduce (+) x`
	usageErr(t, `--backend: "tpu" is not interp, native or pjrt`, "eval", "--backend", "tpu", p)
	usageErr(t, "--unfused: needs --backend native or pjrt; the interpreter runs the program as written", "eval", "--unfused", p)
	usageErr(t, "--threads: needs --backend native or pjrt; the interpreter runs the program as written", "eval", "--threads", "2", p)
	usageErr(t, "--plugin: only --backend pjrt loads a plugin", "eval", "--backend", "native", "--plugin", "/x.so", p)
	usageErr(t, "--threads: sets the native executor's goroutines, which --backend pjrt does not use", "eval", "--backend", "pjrt", "--threads", "1", p)
	code, out, errs := hofuse("eval", "--backend", "native", "--max-memory", "1GiB", "--threads", "1", "--inputs", writeJSON(t, `{"x": [1, 2, 3.5]}`), p)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "f64 6.5\n", out)

	usageErr(t, "--seed: every input is given in --inputs, so nothing is random; drop --seed",
		"eval", "--seed", "2", "--inputs", writeJSON(t, `{"x": [1, 2, 3]}`), p)
	usageErr(t, "flag needs an argument: --inputs", "eval", p, "--inputs")

	code, _, errs = hofuse("eval", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, `  {"Z": [[1, 2, 3], [4, 5, "NaN"]], "s": "-Inf"}`)
	assert.Contains(t, errs, "-backend")
}

// writeJSON writes an --inputs file and returns its path.
func writeJSON(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

func TestEvalInputs(t *testing.T) {
	prog := `s : f64; k : i32; Z : f64[2,3]; b : bool; map (\r -> map (\v -> v / s) r) Z`
	in := writeJSON(t, `{"s": 0, "Z": [[1, -1, 0], ["NaN", "Inf", "-Inf"]]}`)
	code, out, errs := hofuse("eval", "--inputs", in, prog)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "f64[2 3][[+Inf -Inf NaN] [NaN +Inf -Inf]]\n", out)

	code, out, errs = hofuse("eval", "--json", "--inputs", in, prog)
	require.Equal(t, 0, code, errs)
	var v struct {
		DType string `json:"dtype"`
		Shape []int  `json:"shape"`
		Data  []any  `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, []any{"Inf", "-Inf", "NaN", "NaN", "Inf", "-Inf"}, v.Data)
	assert.Equal(t, []int{2, 3}, v.Shape)

	// What --json writes reads back as an input.
	back := writeJSON(t, `{"Z": `+out+`, "s": {"dtype": "f64", "data": [-1]}}`)
	code, out2, errs := hofuse("eval", "--inputs", back, prog)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "f64[2 3][[-Inf +Inf NaN] [NaN -Inf +Inf]]\n", out2)

	// i32 and bool values print as integers.
	code, out, errs = hofuse("eval", "--inputs", writeJSON(t, `{"k": [2147483647, -2147483648, 5]}`), `k : i32[3]; k`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "i32[3][2147483647 -2147483648 5]\n", out)
	code, out, errs = hofuse("eval", "--inputs", writeJSON(t, `{"k": -2147483648}`), `k : i32; k`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "i32 -2147483648\n", out)

	for _, c := range []struct{ json, want string }{
		{`{"Z": [[1, 2, 3]]}`, "input Z: axis 0 has 1 entry, want 2 (Z : f64[2,3])"},
		{`{"Z": [[1, 2, 3], [4, 5]]}`, "input Z[1]: axis 1 has 2 entries, want 3 (Z : f64[2,3])"},
		{`{"Z": [1, 2]}`, "input Z[0]: want an array of 3 entries along axis 1 (Z : f64[2,3]), got 1"},
		{`{"Z": [[1, 2, 3], [4, 5, "six"]]}`, `input Z[1][2]: the string "six" is not a number; write a number, "NaN", "Inf" or "-Inf"`},
		{`{"Z": [[1, 2, 3], [4, 5, null]]}`, `input Z[1][2]: null is not a number; write a number, "NaN", "Inf" or "-Inf"`},
		{`{"s": [1]}`, `input s: an array of 1 entry is not a number; write a number, "NaN", "Inf" or "-Inf"`},
		{`{"k": 1.5}`, "input k: 1.5 is not an i32 (an integer from -2147483648 to 2147483647)"},
		{`{"k": "NaN"}`, "input k: NaN is not a value of i32"},
		{`{"b": 2}`, "input b: 2 is not a bool (true, false, 1 or 0)"},
		{`{"W": 1}`, `input "W": the program has no input of that name (its inputs: s, k, Z, b)`},
		{`{"Z": {"dtype": "f32", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]}}`, `input Z: dtype "f32", but the program declares Z : f64[2,3]`},
		{`{"Z": {"dtype": "f64", "shape": [3, 2], "data": [1, 2, 3, 4, 5, 6]}}`, "input Z: shape [3 2], but the program declares Z : f64[2,3]"},
		{`[1, 2]`, `want a JSON object mapping input names to values, as {"x": [1, 2, 3]}; got an array of 2 entries`},
	} {
		path := writeJSON(t, c.json)
		code, out, errs := hofuse("eval", "--inputs", path, prog)
		assert.Equal(t, 1, code, c.json)
		assert.Equal(t, "hofuse eval: "+path+": "+c.want+"\n", errs, c.json)
		assert.Empty(t, out)
	}
}

// issueProgram is a program of issue 8 with inputs and the right answer,
// worked out by hand.
type issueProgram struct {
	name, prog, inputs, want string
}

var issuePrograms = []issueProgram{
	// An nzip argument that is a tuple of arrays of different ranks: row i
	// of the result sums row i of Z = 1..9.
	{"mixed-rank tuple", `a : f64[3]; Y : f64[3,1,1]; Z : f64[3,3]; zip (\x p -> reduce (+) (snd p)) a (Y, Z)`,
		`{"a": [1, 2, 3], "Y": [[[0]], [[0]], [[0]]], "Z": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}`, "f64[3][6 15 24]"},
	// A dead tuple component under a lambda: fusion must terminate, and
	// the result is x.
	{"dead tuple component", `b : f32[6]; c : f32[6]; x : f32[8]; let t = zip (+) (map (*2) b) (map (*2) c) in map (\v -> snd (t, v)) x`,
		`{"x": [1, 2, 3, 4, 5, 6, 7, 8]}`, "f32[8][1 2 3 4 5 6 7 8]"},
	// The product rule inside a reduction operator: column sums of x and y.
	{"product in reducer", `x : f64[5,3]; y : f64[5,3]; rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`,
		`{"x": [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13, 14, 15]], "y": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [2, 2, 2]]}`,
		"(f64[3][35 40 45], f64[3][4 4 4])"},
	// A literal in an f32 program stays f32: v < 1.5.
	{"f32 literal", `s : f32; x : f32[4]; map (\v -> v < (\y -> 1.5) s) x`,
		`{"s": 0, "x": [1, 2, -1, 1.5]}`, "bool[4][1 0 1 0]"},
	// NaN propagates through max and min (IEEE 754-2019 maximum), also
	// past an infinity.
	{"max NaN", `x : f64[3]; reduce max x`, `{"x": [1, "NaN", "Inf"]}`, "f64 NaN"},
	{"min NaN", `x : f64[3]; reduce min x`, `{"x": ["-Inf", "NaN", -1]}`, "f64 NaN"},
	{"zip max NaN", `x : f64[3]; y : f64[3]; zip max x y`, `{"x": ["NaN", "Inf", 2], "y": ["Inf", "NaN", 3]}`, "f64[3][NaN NaN 3]"},
	// i32 arithmetic wraps.
	{"i32 wraps", `x : i32[2]; map (\v -> v + 1) x`, `{"x": [2147483647, -1]}`, "i32[2][-2147483648 0]"},
}

// evalIssuePrograms runs each issue program through eval on a back end,
// fused and unfused, each in a child process so that a hang or a crash
// fails one case and not the test binary.
func evalIssuePrograms(t *testing.T, backend string, extra ...string) {
	for _, p := range issuePrograms {
		for _, mode := range []string{"fused", "unfused"} {
			t.Run(p.name+"/"+mode, func(t *testing.T) {
				args := append([]string{"eval", "--backend", backend, "--inputs", writeJSON(t, p.inputs)}, extra...)
				if mode == "unfused" {
					args = append(args, "--unfused")
				}
				code, out, errs := hofuseChild(t, 30*time.Second, append(args, p.prog)...)
				assert.Equal(t, 0, code, "%s", errs)
				assert.Equal(t, p.want+"\n", out)
			})
		}
	}
}

func TestEvalIssueProgramsInterp(t *testing.T) {
	for _, p := range issuePrograms {
		t.Run(p.name, func(t *testing.T) {
			code, out, errs := hofuseChild(t, 30*time.Second, "eval", "--inputs", writeJSON(t, p.inputs), p.prog)
			assert.Equal(t, 0, code, "%s", errs)
			assert.Equal(t, p.want+"\n", out)
		})
	}
}

func TestEvalIssueProgramsNative(t *testing.T) {
	evalIssuePrograms(t, "native")
}

func TestEvalIssueProgramsPJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	evalIssuePrograms(t, "pjrt", "--plugin", path)
}

// TestDamagedPlugin runs doctor, demo and eval in the test process on
// damaged plugins: each must be refused before dlopen, which would die of
// SIGBUS.
func TestDamagedPlugin(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	self, err := os.ReadFile(exe)
	require.NoError(t, err)
	dir := t.TempDir()
	plugin := filepath.Join(dir, pjrt.CPUPluginFile)
	t.Setenv(pjrt.EnvPluginPath, "")
	t.Setenv(pjrt.EnvDir, dir)
	// Cut short, the file loses its section header table or part of a
	// segment, depending on the linker's layout.
	truncated := fmt.Sprintf("past the end of the file (%d bytes): the file is truncated", len(self)/3)
	for _, c := range []struct {
		name, reason, end string // the reason's start and end
		data              []byte
	}{
		{"truncated", "has ", truncated, self[:len(self)/3]},
		{"random", "does not start with the ELF magic number (its first bytes are 0a 0b 0c 0d)", ": it is not a shared library", []byte("\x0a\x0b\x0c\x0d some bytes that are not a library")},
		{"empty", "is empty (0 bytes)", "", nil},
	} {
		require.NoError(t, os.WriteFile(plugin, c.data, 0o644))
		damaged := "pjrt: plugin " + plugin + " " + c.reason
		fix := c.end + "; it was not loaded. Fix: reinstall it with: " + pjrt.InstallCommand() + " --force (it installs into $" + pjrt.EnvDir + ")\n"
		for _, args := range [][]string{
			{"demo", "--backend", "pjrt", "--sizes", "4,3", "--runs", "1"},
			{"demo", "--backend", "auto", "--sizes", "4,3", "--runs", "1"},
			{"eval", "--backend", "pjrt", "x : f32[2]; x"},
		} {
			if !pjrt.CgoEnabled() {
				break // nothing is loaded: these stop at pjrt.ErrNoCgo
			}
			code, out, errs := hofuse(args...)
			assert.Equal(t, 1, code, "%s %q: %s", c.name, args, errs)
			assert.True(t, strings.HasPrefix(errs, "hofuse "+args[0]+": "+damaged), "%s %q: %s", c.name, args, errs)
			assert.True(t, strings.HasSuffix(errs, fix), "%s %q: %s", c.name, args, errs)
			assert.Empty(t, out)
		}
		code, out, errs := hofuse("doctor")
		assert.Equal(t, 1, code, errs)
		assert.Contains(t, errs, " problem found, 1 of them making PJRT fail: a damaged plugin or a $PJRT_PLUGIN_LIBRARY_PATH naming nothing\n")
		assert.Contains(t, out, "    file:      DAMAGED, not loaded\n  PROBLEM: "+plugin+" "+c.reason, c.name)
		assert.Contains(t, out, c.end+"\n  fix:     go run ./cmd/hofuse pjrt install --force\n", c.name)
		assert.Contains(t, out, "  fix:     go run ./cmd/hofuse pjrt install --force\n", c.name)
	}

	// $PJRT_PLUGIN_LIBRARY_PATH naming nothing is an error, not a fall back.
	missing := filepath.Join(dir, "nothere.so")
	t.Setenv(pjrt.EnvPluginPath, missing)
	want := "pjrt: $PJRT_PLUGIN_LIBRARY_PATH names " + missing + ", which does not exist; set it to a plugin file or a folder holding one, or unset it"
	for _, args := range [][]string{
		{"demo", "--backend", "auto", "--sizes", "4,3", "--runs", "1"},
		{"eval", "--backend", "pjrt", "x : f32[2]; x"},
	} {
		code, out, errs := hofuse(args...)
		assert.Equal(t, 1, code, "%q: %s", args, errs)
		assert.Equal(t, "hofuse "+args[0]+": "+want+"\n", errs)
		assert.Empty(t, out)
	}
	code, out, _ := hofuse("doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "  PROBLEM: "+want+"\n  fix:     unset PJRT_PLUGIN_LIBRARY_PATH, or set it to a plugin file or a folder holding one\n")
}

// TestDoctorSoundPlugin runs doctor on the installed plugin: its file is
// checked (and hashed, when it is a recorded one), loaded and run.
func TestDoctorSoundPlugin(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	code, out, errs := hofuse("doctor")
	require.Equal(t, 0, code, "%s\n%s", out, errs)
	assert.Contains(t, out, "  "+path+"  <- used\n    file:      ")
	assert.Contains(t, out, "    self-test: ok")
	assert.NotContains(t, out, "DAMAGED")
	// The XLA options the plugin compiles with, and the caches.
	flags, _ := pjrt.XLAFlags()
	assert.Contains(t, out, "    XLA flags: "+flags+"\n")
	for _, f := range pjrt.DefaultXLAFlags {
		assert.Contains(t, flags, f, "hofuse's defaults are in force (the test sets no $XLA_FLAGS)")
	}
	assert.Regexp(t, `(?m)^    threads:   XLA's CPU client runs its own pool, one thread per core the process may use \(\d+ here\)`, out)
	assert.Contains(t, out, "    executables: cached in memory per plugin by program text, so each batch size compiles once; no on-disk cache: go-xla ")
}

// --backend auto: a program the plugin rejects runs on the native
// executor, with a one-line notice.
func TestAutoBackendFallsBack(t *testing.T) {
	var errs strings.Builder
	a := &autoBackend{pjrt: rejectingBackend{}, native: native.New(native.Options{}), stderr: &errs}
	prog, err := graph.Parse("A : f32[3]; map (\\x -> x * 2) A")
	require.NoError(t, err)
	g, err := fusion.Whole(prog.Body)
	require.NoError(t, err)
	exe, err := a.Compile(g)
	require.NoError(t, err)
	defer exe.Close()
	in, _ := graph.FromFloat32([]float32{1, 2, 3}, 3)
	out, err := exe.Run(map[string]graph.Value{"A": in})
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 4, 6}, out.(*graph.Array).Values())
	assert.Equal(t, "hofuse: PJRT cannot run this program (xla: the plugin rejects it); using the native executor\n", errs.String())
}

// rejectingBackend plays a plugin that rejects every program.
type rejectingBackend struct{}

func (rejectingBackend) Name() string { return "pjrt-test" }
func (rejectingBackend) Compile(*fusion.Graph) (lowering.Executable, error) {
	return nil, errors.New("xla: the plugin rejects it\n(plugin /x.so, PJRT C API 0.81); the native back end runs this program without PJRT: --backend native")
}

// Programs and models past a size cap or the memory limit are refused with
// exit status 1 before anything is allocated, naming the flag that raises
// the limit; nothing crashes.
func TestMemoryLimits(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "A : f32[100000000000]; reduce (+) A"},
			"hofuse eval: evaluating the program needs 800000000004 bytes, past the memory limit of 4294967296 bytes; raise --max-memory\n"},
		{[]string{"eval", "--max-memory", "1KiB", "A : f32[1000]; reduce (+) A"},
			"hofuse eval: evaluating the program needs 8004 bytes, past the memory limit of 1024 bytes; raise --max-memory\n"},
		{[]string{"demo", "--sizes", "100000000,100000000"},
			"hofuse demo: --sizes 100000000,100000000: the weights of dense1, 100000000 by 100000000, have more than 1099511627776 elements (graph.MaxElements)\n"},
		{[]string{"demo", "--sizes", "784,512,10", "--max-memory", "1MiB"},
			"hofuse demo: --sizes 784,512,10: sizes [784 512 10] with batch 1: the parameters and input need 1639528 bytes, past the memory limit of 1048576 bytes (raise --max-memory)\n"},
		{[]string{"show", "mlp", "--sizes", "9223372036854775807,2"},
			"hofuse show: --sizes 9223372036854775807,2: 9223372036854775807 features, past the cap of 1099511627776 (graph.MaxExtent)\n"},
		// The native plan's refusal, wrapped by the layers above it (one
		// thread, so that the plan's buffers do not depend on the machine).
		{[]string{"demo", "--sizes", "64,32,10", "--batches", "4", "--runs", "2", "--max-memory", "12KiB", "--no-reference", "--threads", "1"},
			"hofuse demo: fused, batch 4: native: kernel k1_dense1_relu1 with the buffers before it needs 32552 bytes, past the memory limit of 12288 bytes; raise --max-memory\n"},
		{[]string{"bench", "train", "--sizes", "64,32,10", "--batches", "4", "--steps", "2", "--max-memory", "32KiB", "--threads", "1"},
			"hofuse bench: native fused batch 4: train: compile on native: native: kernel k1_dense1 with the buffers before it needs 35640 bytes, past the memory limit of 32768 bytes; raise --max-memory\n"},
	} {
		code, _, errs := hofuse(c.args...)
		assert.Equal(t, 1, code, "%q", c.args)
		assert.Equal(t, c.want, errs, "%q", c.args)
	}
	// Under the limit the same flag lets the work run.
	code, out, errs := hofuse("eval", "--backend", "native", "--max-memory", "1MiB", `A : f32[3]; map (\x -> x + 1) A`)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "f32[3]")
}

// A shared library that is not a plugin: the error names it once, on one
// line, and go-xla's own log line (klog) shows only with --verbose. Run in
// a child process, whose real stderr klog writes to.
func TestNotAPluginSaidOnce(t *testing.T) {
	if !pjrt.CgoEnabled() || runtime.GOOS != "linux" {
		t.Skip("needs cgo on Linux, to load a shared library")
	}
	maps, err := os.ReadFile("/proc/self/maps")
	require.NoError(t, err)
	var lib string
	for _, line := range strings.Split(string(maps), "\n") {
		if f := strings.Fields(line); len(f) == 6 && strings.Contains(filepath.Base(f[5]), "libc.so") {
			lib = f[5]
			break
		}
	}
	require.NotEmpty(t, lib, "a cgo test binary on Linux maps libc")
	b, err := os.ReadFile(lib)
	require.NoError(t, err)
	plugin := filepath.Join(t.TempDir(), pjrt.CPUPluginFile)
	require.NoError(t, os.WriteFile(plugin, b, 0o755))
	t.Setenv(pjrt.EnvDir, "")
	t.Setenv(pjrt.EnvPluginPath, plugin)
	want := "hofuse eval: pjrt: open plugin " + plugin + ": not a PJRT plugin: it has no GetPjrtApi function; " +
		"unset $PJRT_PLUGIN_LIBRARY_PATH or point it at a PJRT plugin file; or reinstall with: " + pjrt.InstallCommand() + " --force\n"
	code, out, errs := hofuseChild(t, time.Minute, "eval", "--backend", "pjrt", "x : f32[2]; x")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, want, errs)
	code, _, errs = hofuseChild(t, time.Minute, "eval", "--verbose", "--backend", "pjrt", "x : f32[2]; x")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasSuffix(errs, want), errs)
	assert.Contains(t, errs, `failed to find symbol "GetPjrtApi"`, "--verbose lets go-xla's log line through")
}
