package main

import (
	bytespkg "bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// inferPeers are the peers of bench mlp, matmul and stack, in the order
// they run, with their scripts (relative to the repository's root).
var inferPeers = []struct{ name, script, needs string }{
	{"ort", "bench/peers/ort_infer.py", "onnxruntime and onnx"},
	{"jax", "bench/peers/jax_infer.py", "jax"},
	{"numpy", "bench/peers/numpy_infer.py", "numpy"},
	{"gomlx", gomlxPeerDir, "Go"},
}

// gomlxPeerDir is the GoMLX peer: a Go module of its own, which hofuse
// builds once per run with the go command --peers gomlx=GO names (or the
// go on $PATH).
const gomlxPeerDir = "bench/peers/gomlx"

// peersHelp is what --peers help prints.
const peersHelp = `Peers of 'hofuse bench mlp|matmul|stack' (--peers ort=PYTHON,jax=PYTHON,numpy=PYTHON,gomlx):

  ort    ONNX Runtime (CPU); bench/peers/ort_infer.py builds the ONNX model itself
         with onnx's helper API from the weights hofuse writes
  jax    JAX jit on XLA's CPU client; bench/peers/jax_infer.py
  numpy  numpy (its matrix products call the BLAS numpy was built with);
         bench/peers/numpy_infer.py
  gomlx  GoMLX on its pure-Go SimpleGo backend; bench/peers/gomlx, a Go module of
         its own that hofuse builds with the go command (gomlx=GO names one; the
         first build downloads GoMLX unless the module cache has it)

Each runs in the Python you name, from the repository's root, on the weights and
inputs hofuse writes to a temporary folder (.npy files), and its output is
compared with hofuse's. Install them in a virtual environment:

  python3 -m venv /tmp/venv-bench
  /tmp/venv-bench/bin/pip install numpy onnx onnxruntime jax
  hofuse bench mlp --peers ort=/tmp/venv-bench/bin/python,jax=/tmp/venv-bench/bin/python,numpy=/tmp/venv-bench/bin/python,gomlx

A peer whose Python or package is missing, whose Go module does not build, or
which fails, is skipped with a one-line reason.
'hofuse bench train --peers jax=PYTHON' runs bench/peers/jax_train_step.py
(--model cnn: bench/peers/jax_cnn_train_step.py).
`

// peerSpec is one peer of --peers: its name, the Python (for gomlx: the
// go command) that runs it, its script (for gomlx: its module's folder)
// and, for gomlx once built, its binary.
type peerSpec struct{ name, python, script, bin string }

// parsePeers reads --peers: NAME=PYTHON, comma-separated.
func parsePeers(list string) ([]peerSpec, error) {
	if list == "" {
		return nil, nil
	}
	var out []peerSpec
	names := make([]string, len(inferPeers))
	for i, p := range inferPeers {
		names[i] = p.name
	}
	for _, item := range strings.Split(list, ",") {
		name, python, ok := strings.Cut(strings.TrimSpace(item), "=")
		if name == "gomlx" && !ok {
			python, ok = "go", true
		}
		i := slices.IndexFunc(inferPeers, func(p struct{ name, script, needs string }) bool { return p.name == name })
		switch {
		case i < 0:
			return nil, usagef("--peers %s: %q is not a peer; the peers are %s (--peers help says how to install them)", list, name, strings.Join(names, ", "))
		case name == "gomlx" && python == "":
			return nil, usagef("--peers %s: want gomlx, or gomlx=GO naming the go command", list)
		case !ok || python == "":
			return nil, usagef("--peers %s: want %s=PYTHON, the Python of a virtual environment with %s", list, name, inferPeers[i].needs)
		case slices.ContainsFunc(out, func(p peerSpec) bool { return p.name == name }):
			return nil, usagef("--peers %s: %s is named twice", list, name)
		}
		out = append(out, peerSpec{name: name, python: python, script: inferPeers[i].script})
	}
	// Run in the fixed order, whatever the order given.
	slices.SortFunc(out, func(a, b peerSpec) int {
		return slices.IndexFunc(inferPeers, func(p struct{ name, script, needs string }) bool { return p.name == a.name }) -
			slices.IndexFunc(inferPeers, func(p struct{ name, script, needs string }) bool { return p.name == b.name })
	})
	return out, nil
}

// peerRunner runs the peers of one bench command: it writes each
// workload's inputs to a temporary folder once, runs every peer's script
// on them and reads back what the peer computed.
type peerRunner struct {
	peers   []peerSpec
	dir     string
	stderr  io.Writer
	skipped []string
	n       int
}

// peerSkipExit is the exit status with which a peer script says that its
// package is missing: its last stderr line is the reason.
const peerSkipExit = 3

// newPeerRunner checks the peers' Pythons and scripts: a missing one is
// skipped with a one-line reason, said on stderr at once.
func newPeerRunner(peers []peerSpec, stderr io.Writer) (*peerRunner, error) {
	pr := &peerRunner{stderr: stderr}
	for _, p := range peers {
		if _, err := os.Stat(p.script); err != nil {
			return nil, usagef("--peers: %s is not in the current folder (%v); run hofuse from the repository's root", p.script, err)
		}
		if _, err := exec.LookPath(p.python); err != nil {
			pr.skip(p, fmt.Sprintf("%s cannot be run (%v)", p.python, errors.Unwrap(err)))
			continue
		}
		pr.peers = append(pr.peers, p)
	}
	if len(pr.peers) > 0 {
		dir, err := os.MkdirTemp("", "hofuse-bench-peers-")
		if err != nil {
			return nil, err
		}
		pr.dir = dir
	}
	if i := slices.IndexFunc(pr.peers, func(p peerSpec) bool { return p.name == "gomlx" }); i >= 0 {
		// A build that fails skips the peer, which removes it.
		if bin := pr.buildGoMLX(pr.peers[i]); bin != "" {
			pr.peers[i].bin = bin
		}
	}
	return pr, nil
}

// buildGoMLX builds the GoMLX peer's module into the temporary folder and
// returns the binary, or "" when it does not build: then the peer is
// skipped, with the build's last line as the reason.
func (pr *peerRunner) buildGoMLX(p peerSpec) string {
	bin := filepath.Join(pr.dir, "gomlx-peer")
	fmt.Fprintf(pr.stderr, "hofuse bench: building the GoMLX peer (%s build in %s)\n", p.python, p.script)
	cmd := exec.Command(p.python, "build", "-o", bin, ".")
	cmd.Dir = p.script
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		why := lastLine(string(out))
		if why == "" {
			why = err.Error()
		}
		pr.skip(p, fmt.Sprintf("%s does not build: %s", p.script, why))
		return ""
	}
	return bin
}

func (pr *peerRunner) skip(p peerSpec, why string) {
	line := fmt.Sprintf("peer %s: %s", p.name, why)
	pr.skipped = append(pr.skipped, line)
	fmt.Fprintf(pr.stderr, "hofuse bench: skipping %s\n", line)
	pr.peers = slices.DeleteFunc(pr.peers, func(q peerSpec) bool { return q.name == p.name })
}

func (pr *peerRunner) close() {
	if pr.dir != "" {
		os.RemoveAll(pr.dir)
	}
}

// peerCase is the JSON a peer script reads: the workload, its inputs and
// where to write the output.
type peerCase struct {
	Workload map[string]any    `json:"workload"`
	DType    string            `json:"dtype"` // the output's: float32, float64 (a model file's may also be int32 or bool)
	Batch    int               `json:"batch"`
	Runs     int               `json:"runs"`     // 0: about BudgetS seconds, at least 20
	BudgetS  float64           `json:"budget_s"` // the seconds of runs when Runs is 0
	RowInput string            `json:"row_input"`
	Inputs   map[string]string `json:"inputs"` // input name: .npy file
	Output   string            `json:"output"` // the script writes its result here, as .npy
}

// A peerBatch times the peers on one workload and batch: their inputs
// are written once, and each turn runs every peer once with its share of
// the runs; rows merges the turns.
type peerBatch struct {
	pr      *peerRunner
	w       *benchWork
	dir     string
	c       peerCase
	want    []float64
	refName string
	got     []*peerTurns // in the order the peers first reported
}

// peerTurns is what one peer's turns reported: its first row (Peer its
// name), with the largest difference from hofuse's output of any turn,
// and every timed run.
type peerTurns struct {
	row   benchInferRow
	times []float64
}

// batch writes w's inputs for the peers, whose outputs are compared with
// ref, what refName computed; nil when there are no peers.
func (pr *peerRunner) batch(w *benchWork, ref graph.Value, refName string) (*peerBatch, error) {
	if len(pr.peers) == 0 {
		return nil, nil
	}
	pr.n++
	dir := filepath.Join(pr.dir, fmt.Sprintf("case%d", pr.n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	b := &peerBatch{pr: pr, w: w, dir: dir, refName: refName}
	b.c = peerCase{Workload: w.Peer, DType: map[graph.DType]string{graph.Float32: "float32", graph.Float64: "float64", graph.Int32: "int32", graph.Bool: "bool"}[w.DType],
		Batch: w.Batch, RowInput: w.RowInput, Inputs: map[string]string{}}
	// A model file's peer reads its parameters from the file: only its
	// data inputs are written.
	only, _ := w.Peer["inputs"].([]string)
	for name, v := range w.In {
		if only != nil && !slices.Contains(only, name) {
			continue
		}
		a, ok := v.(*graph.Array)
		if !ok {
			b.close()
			return nil, fmt.Errorf("peers: input %s is not an array", name)
		}
		file := filepath.Join(dir, name+".npy")
		if err := writeNpy(file, a); err != nil {
			b.close()
			return nil, err
		}
		b.c.Inputs[name] = file
	}
	refArr, ok := ref.(*graph.Array)
	if !ok {
		b.close()
		return nil, errors.New("peers: hofuse's result is not an array")
	}
	b.want = refArr.Values()
	return b, nil
}

func (b *peerBatch) close() { os.RemoveAll(b.dir) }

// turn runs every peer once: runs timed runs, or when 0 about budget
// seconds of them.
func (b *peerBatch) turn(runs int, budget float64) error {
	c, w := b.c, b.w
	c.Runs, c.BudgetS = runs, budget
	for _, p := range slices.Clone(b.pr.peers) {
		c.Output = filepath.Join(b.dir, "out-"+p.name+".npy")
		spec := filepath.Join(b.dir, "case-"+p.name+".json")
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := os.WriteFile(spec, data, 0o644); err != nil {
			return err
		}
		cmd := exec.Command(p.python, p.script, spec)
		if p.bin != "" {
			cmd = exec.Command(p.bin, spec)
		}
		var out, errb bytespkg.Buffer
		cmd.Stdout, cmd.Stderr = &out, io.MultiWriter(&errb, b.pr.stderr)
		err = cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == peerSkipExit {
			b.pr.skip(p, lastLine(errb.String()))
			b.drop(p.name)
			continue
		}
		if err != nil {
			// A peer that fails (an operator its version lacks, say) is
			// skipped like a missing one, rather than losing the run; its
			// stderr went by above.
			b.pr.skip(p, fmt.Sprintf("failed on %s batch %d (%v): %s", w.Name, w.Batch, err, lastLine(errb.String())))
			b.drop(p.name)
			continue
		}
		var doc struct {
			Rows []struct {
				benchInferRow
				TimesMs []float64 `json:"times_ms"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Rows) != 1 {
			return fmt.Errorf("--peers %s: %s printed no report of one row (%v): %q", p.name, p.script, err, out.String())
		}
		if len(doc.Rows[0].TimesMs) == 0 {
			return fmt.Errorf("--peers %s: %s reported no times_ms, the time of each run: %q", p.name, p.script, out.String())
		}
		row := doc.Rows[0].benchInferRow
		row.Workload, row.Batch, row.Peer = w.Name, w.Batch, p.name
		gv, err := readNpy(c.Output)
		if err != nil {
			return fmt.Errorf("--peers %s: its output: %w", p.name, err)
		}
		ga, ok := gv.(*graph.Array)
		if !ok {
			return fmt.Errorf("--peers %s: its output %s is %s, want an array", p.name, c.Output, graph.DescribeValue(gv))
		}
		got, shape := ga.Values(), ga.Extents()
		if len(got) != len(b.want) {
			return fmt.Errorf("--peers %s: its output %s has shape %v, %d elements; hofuse's has %d", p.name, c.Output, shape, len(got), len(b.want))
		}
		for i := range got {
			d := math.Abs(got[i] - b.want[i])
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
			row.MaxAbsDiff = max(row.MaxAbsDiff, d)
		}
		row.DiffAgainst = b.refName
		i := slices.IndexFunc(b.got, func(t *peerTurns) bool { return t.row.Peer == p.name })
		if i < 0 {
			i = len(b.got)
			b.got = append(b.got, &peerTurns{row: row})
		}
		t := b.got[i]
		t.row.MaxAbsDiff = max(t.row.MaxAbsDiff, row.MaxAbsDiff)
		t.times = append(t.times, doc.Rows[0].TimesMs...)
	}
	return nil
}

// drop forgets the turns of a peer skipped in a later one.
func (b *peerBatch) drop(name string) {
	b.got = slices.DeleteFunc(b.got, func(t *peerTurns) bool { return t.row.Peer == name })
}

// rows returns a row per peer, its p50 and p99 over every turn's runs.
func (b *peerBatch) rows() []benchInferRow {
	var rows []benchInferRow
	for _, t := range b.got {
		times := slices.Sorted(slices.Values(t.times))
		n := len(times)
		row := t.row
		row.Runs, row.P50ms, row.P99ms = n, times[n/2], times[min(n-1, n*99/100)]
		rows = append(rows, row)
	}
	return rows
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
