package main

import (
	bytespkg "bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
	"github.com/hofuse/hofuse/optim"
)

func init() {
	register(&command{
		name:    "bench",
		usage:   "mlp|matmul|stack|train [--backend native|pjrt|all] [--batches LIST] [--runs N | --steps N] [--json] [--plot FILE.png] [--peers LIST] [flags]",
		summary: "time an MLP, a matrix product, memory-bound layer stacks or a training step, fused and unfused, against peers",
		run:     runBench,
	})
}

// benchTrainRow is one configuration of "bench train": a back end, fused
// or unfused, one batch size.
type benchTrainRow struct {
	Backend string  `json:"backend"`
	Mode    string  `json:"mode"` // fused or unfused
	Batch   int     `json:"batch"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	Steps   int     `json:"steps"` // timed steps, after the warm-up
	// Kernels is the step's kernel count; ForwardKernels that of the
	// forward model alone cut the same way, and BackwardKernels the rest
	// (backward pass and update together: fusion mixes them, so the step's
	// own kernels cannot be told apart).
	Kernels         int     `json:"kernels"`
	ForwardKernels  int     `json:"forward_kernels"`
	BackwardKernels int     `json:"backward_update_kernels"`
	Temporaries     int     `json:"temporaries"`
	TemporaryBytes  int     `json:"temporary_bytes"`
	FuseMs          float64 `json:"fuse_ms"` // cutting the step into kernels
	// SearchMs is the schedule pass's part of FuseMs (its kernels' search
	// times), Reordered the kernels it put in another order; fused rows.
	SearchMs  float64 `json:"search_ms,omitempty"`
	Reordered int     `json:"reordered_kernels"`
	CompileMs float64 `json:"compile_ms"` // train.New: cutting again, lowering and compiling
	FirstLoss float64 `json:"first_loss"`
	LastLoss  float64 `json:"last_loss"`
	// A PJRT row's split of a step (parameters and optimizer state stay
	// on the device): the batch in, execute, the loss and flags out.
	*transferSplit
}

// benchTrainReport is the JSON document of "bench train --json".
type benchTrainReport struct {
	Model     string          `json:"model"`
	Optimizer string          `json:"optimizer"`
	Rows      []benchTrainRow `json:"rows"`
	// Peers are the rows of --peers, as the peer's script printed them.
	Peers []peerRow `json:"peers,omitempty"`
}

// peerRow is a row of a peer's script: bench/peers/jax_train_step.py or
// jax_cnn_train_step.py.
type peerRow struct {
	Peer      string  `json:"peer"` // the peer's name, as in bench mlp's rows: "jax"
	Backend   string  `json:"backend"`
	Mode      string  `json:"mode"`
	Batch     int     `json:"batch"`
	P50ms     float64 `json:"p50_ms"`
	P99ms     float64 `json:"p99_ms"`
	Steps     int     `json:"steps"`
	CompileMs float64 `json:"compile_ms"`
	FirstLoss float64 `json:"first_loss"`
	LastLoss  float64 `json:"last_loss"`
}

// jaxPeerScript and jaxCNNPeerScript are the JAX peers of "bench train"
// for --model mlp and cnn, relative to the repository's root.
const (
	jaxPeerScript    = "bench/peers/jax_train_step.py"
	jaxCNNPeerScript = "bench/peers/jax_cnn_train_step.py"
)

// checkPeers reads --peers and returns the Python that runs the JAX peer
// of model, or "" without one, and the peer's script. Each script times
// its model's default configuration only.
func checkPeers(peers string, mf mlpFlags, model string) (python, script string, err error) {
	if peers == "" {
		return "", "", nil
	}
	name, python, ok := strings.Cut(peers, "=")
	script = jaxPeerScript
	if model == "cnn" {
		script = jaxCNNPeerScript
	}
	switch {
	case !ok || python == "":
		return "", "", usagef("--peers %s: want jax=PYTHON, the Python of a virtual environment with jax", peers)
	case name != "jax":
		return "", "", usagef("--peers %s: %q is not a peer; the one there is: jax", peers, name)
	case model != "cnn" && (mf.sizes != "784,512,512,10" || mf.norm != "batchnorm" || mf.activation != "relu" || mf.dtype != "f32"):
		return "", "", usagef("--peers: %s times the MLP 784-512-512-10, batchnorm, relu, f32 only; leave out --sizes, --norm, --activation and --dtype, or --peers", script)
	case model == "cnn" && (mf.image != "8x8x1" || mf.conv != "8,16" || mf.kernel != 3 || mf.pool != 2 || mf.hidden != "" ||
		mf.classes != 10 || mf.valid || mf.norm != "batchnorm" || mf.activation != "relu" || mf.dtype != "f32"):
		return "", "", usagef("--peers: %s times the CNN 8x8x1, conv 8,16 (3x3 same), pool 2, 10 classes, batchnorm, relu, f32 only; leave out the model flags, or --peers", script)
	}
	if _, err := os.Stat(script); err != nil {
		return "", "", usagef("--peers: %s is not in the current folder (%v); run hofuse from the repository's root", script, err)
	}
	return python, script, nil
}

// runJAXPeer runs the JAX peer script with python; its progress lines go
// to stderr.
func runJAXPeer(python, script, batches string, steps, warmup int, lr float64, stderr io.Writer) ([]peerRow, error) {
	cmd := exec.Command(python, script, "--batches", batches, "--steps", strconv.Itoa(steps),
		"--warmup", strconv.Itoa(warmup), "--lr", strconv.FormatFloat(lr, 'g', -1, 64))
	var out bytespkg.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("--peers jax: %s %s: %w", python, script, err)
	}
	var doc struct {
		Rows []peerRow `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("--peers jax: %s printed no JSON report: %w", script, err)
	}
	for i := range doc.Rows {
		doc.Rows[i].Peer = "jax"
	}
	return doc.Rows, nil
}

// benchTrainCommand is "bench train", for its usage line and help.
var benchTrainCommand = &command{
	name:    "bench train",
	usage:   "[--model mlp|cnn] [--backend native|pjrt|all] [--batches 32,256] [--steps N] [--warmup N] [--json] [--plot FILE.png] [--peers jax=PYTHON] [model flags]",
	summary: "time one training step of an MLP or a CNN (Adam, softmax cross-entropy), fused and unfused",
}

func runBenchTrain(args []string, stdout, stderr io.Writer) (err error) {
	c := benchTrainCommand
	fs := newFlags(c, stderr)
	var mf mlpFlags
	mf.register(fs, 32)
	mf.batchFlag = "batches"
	mf.mode = "training" // a training step needs a model built for training
	fs.Lookup("mode").DefValue = mf.mode
	backend := fs.String("backend", "native", "where to run: native (in-process Go), pjrt (a PJRT plugin) or all (both)")
	batches := fs.String("batches", "32,256", "comma-separated batch `sizes` to time")
	steps := fs.Int("steps", 0, "timed training steps per back end, mode and batch (0: enough for about 3 s each after the warm-up, 5 to 200)")
	warmup := fs.Int("warmup", 2, "untimed training steps before the timed ones (at least 1 when --steps is 0: it sets the count)")
	seed := fs.Uint64("seed", 1, "seed for the weights, the batch and its labels")
	lr := fs.Float64("lr", 1e-3, "Adam's learning rate")
	modelName := fs.String("model", "mlp", "the model to train: mlp or cnn (each with its model flags)")
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	plugin := fs.String("plugin", "", "PJRT plugin `path` (default: found by 'hofuse pjrt path')")
	peers := fs.String("peers", "", "also time the step in peers: jax=`PYTHON` runs "+jaxPeerScript+" (--model cnn: "+jaxCNNPeerScript+"; from the repository's root) with that Python, which needs jax")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	plotPath := fs.String("plot", "", "draw p50 as bars with p99 whiskers, fused, unfused and peers, to the PNG `file`")
	verbose := verboseFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	set := flagsSet(fs)
	if *plotPath != "" {
		if err := checkOutput("plot", *plotPath, ".png"); err != nil {
			return err
		}
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case set["batch"]:
		return usagef("--batch: bench times each batch size of --batches; pass --batches %d", mf.batch)
	case set["mode"] && !strings.HasPrefix(mf.mode, "train"):
		return usagef("--mode %s: bench train times training steps; leave --mode out (training)", mf.mode)
	case *steps < 0:
		return usagef("--steps %d: must be at least 0 (0: about 3 s of steps)", *steps)
	case *warmup < 0:
		return usagef("--warmup %d: must be at least 0", *warmup)
	case *warmup == 0 && *steps == 0:
		return usagef("--warmup 0: with --steps 0 the warm-up's last step sets how many steps to time; pass --warmup 1 or more, or --steps N")
	case !(*lr > 0):
		return usagef("--lr %v: a learning rate must be positive", *lr)
	case *backend != "native" && *backend != "pjrt" && *backend != "all":
		return usagef("--backend: %q is not native, pjrt or all", *backend)
	case *backend == "native" && set["plugin"]:
		return usagef("--plugin: --backend native loads no plugin; pass --backend pjrt or all")
	case *backend == "pjrt" && set["threads"]:
		return usagef("--threads: sets the native executor's goroutines, which --backend pjrt does not use")
	}
	if err := rf.check(); err != nil {
		return err
	}
	if !isModelName(*modelName) {
		return usagef("--model %s: want %s", *modelName, modelNames)
	}
	if err := mf.checkKind(*modelName, set); err != nil {
		return err
	}
	jaxPython, jaxScript, err := checkPeers(*peers, mf, *modelName)
	if err != nil {
		return err
	}
	mf.maxMemory = int64(rf.maxMemory)
	sizes, err := parseBatches(*batches)
	if err != nil {
		return err
	}
	// Check the model flags for every batch before any work.
	opt := optim.NewAdam(*lr)
	for _, b := range sizes {
		mf.batch = b
		if _, err := mf.build(); err != nil {
			return err
		}
	}

	var names []string
	switch *backend {
	case "all":
		names = []string{"native", "pjrt"}
	default:
		names = []string{*backend}
	}
	rep := benchTrainReport{Optimizer: fmt.Sprintf("Adam (lr %g)", *lr), Rows: []benchTrainRow{}}
	total := len(names) * 2 * len(sizes)
	done := 0
	// Open every back end before any work: a missing plugin is said at
	// once, not after minutes of native timings.
	bes := make([]demoBackends, len(names))
	for i, name := range names {
		be, closeBackend, err := demoBackend(name, *plugin, &rf, stderr)
		if err != nil {
			return err
		}
		defer closeBackend()
		bes[i] = be
	}
	for i, name := range names {
		be := bes[i]
		for _, batch := range sizes {
			mf.batch = batch
			m, err := mf.build()
			if err != nil {
				return err
			}
			if rep.Model == "" {
				// One model per batch size: say them all.
				rep.Model = strings.Replace(mf.summary(m), fmt.Sprintf("batch %d,", batch), "batches "+benchBatches(sizes)+",", 1)
			}
			for _, unfused := range []bool{false, true} {
				b := be.fused
				if unfused {
					b = be.unfused
				}
				var bar *progressbar.ProgressBar
				if isTerminal(stderr) {
					bar = progressbar.NewOptions(-1,
						progressbar.OptionSetWriter(stderr),
						progressbar.OptionSetDescription(fmt.Sprintf("[%d/%d] %-6s %-7s batch %-4d steps", done+1, total, name, mode(unfused), batch)),
						progressbar.OptionSetWidth(30),
						progressbar.OptionShowCount(),
						progressbar.OptionSetElapsedTime(true),
						progressbar.OptionClearOnFinish(),
						progressbar.OptionThrottle(100*time.Millisecond),
					)
				}
				row, err := benchTrainStep(m, opt, b, name, unfused, batch, *warmup, *steps, *seed, bar)
				if bar != nil {
					bar.Finish()
				}
				if err != nil {
					return fmt.Errorf("%s %s batch %d: %w", name, row.Mode, batch, err)
				}
				done++
				fmt.Fprintf(stderr, "[%d/%d] %-6s %-7s batch %-4d p50 %8.3f ms  p99 %8.3f ms  %s (compiled in %.0f ms)\n",
					done, total, name, row.Mode, batch, row.P50ms, row.P99ms, count(row.Kernels, "kernel"), row.CompileMs)
				rep.Rows = append(rep.Rows, row)
			}
		}
	}
	if jaxPython != "" {
		rows, err := runJAXPeer(jaxPython, jaxScript, *batches, *steps, *warmup, *lr, stderr)
		if err != nil {
			return err
		}
		rep.Peers = rows
	}
	if *asJSON {
		err = printJSON(stdout, rep)
	} else {
		err = writeBenchTrainText(stdout, rep)
	}
	if err != nil || *plotPath == "" {
		return err
	}
	var rows []benchInferRow
	for _, r := range rep.Rows {
		rows = append(rows, benchInferRow{Workload: "training step", Backend: r.Backend, Mode: r.Mode, Batch: r.Batch, P50ms: r.P50ms, P99ms: r.P99ms})
	}
	for _, r := range rep.Peers {
		rows = append(rows, benchInferRow{Workload: "training step", Backend: r.Backend, Peer: r.Backend, Mode: r.Mode, Batch: r.Batch, P50ms: r.P50ms, P99ms: r.P99ms})
	}
	return saveBenchPlot(*plotPath, benchInferReport{Rows: rows})
}

// benchTrainStep builds the training step of m with opt, compiles it on be,
// fused or unfused, runs warmup steps and times steps more on one fixed
// batch.
func benchTrainStep(m *models.Model, opt optim.Optimizer, be lowering.Backend, name string, unfused bool, batch, warmup, steps int, seed uint64, bar *progressbar.ProgressBar) (benchTrainRow, error) {
	row := benchTrainRow{Backend: name, Mode: mode(unfused), Batch: batch}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: opt})
	if err != nil {
		return row, err
	}
	topt := train.Options{Unfused: unfused}
	start := time.Now()
	g, err := train.Kernels(s, topt)
	if err != nil {
		return row, err
	}
	row.FuseMs = ms(time.Since(start))
	for _, k := range g.Kernels {
		if k.Schedule != nil {
			row.SearchMs += ms(k.Schedule.Duration)
			if k.Schedule.Changed {
				row.Reordered++
			}
		}
	}
	var fwd *fusion.Graph
	if unfused {
		fwd, err = fusion.Unfused(m.Output)
	} else {
		var res *fusion.Result
		if res, err = fusion.Fuse(m.Output, fusion.Options{}); err == nil {
			fwd = res.Graph
		}
	}
	if err != nil {
		return row, fmt.Errorf("the forward model alone: %w", err)
	}
	row.Kernels = len(g.Kernels)
	row.ForwardKernels = len(fwd.Kernels)
	row.BackwardKernels = row.Kernels - row.ForwardKernels
	row.Temporaries = len(g.Temporaries())
	row.TemporaryBytes = g.TemporaryBytes()

	init, err := s.InitialValues(m.RandomParams(seed))
	if err != nil {
		return row, err
	}
	start = time.Now()
	tr, err := train.New(s, be, topt, init)
	if err != nil {
		return row, err
	}
	defer tr.Close()
	row.CompileMs = ms(time.Since(start))
	x := m.RandomInput(seed)
	labels, err := randomLabels(s, batch, seed)
	if err != nil {
		return row, err
	}
	var times []float64
	var split *splitter
	if l, ok := tr.Loop().(*xla.Loop); ok {
		split = &splitter{timing: l.Timing}
	}
	if bar != nil && steps > 0 {
		bar.ChangeMax(warmup + steps)
	}
	for i := 0; i < warmup+steps || (steps == 0 && i == warmup); i++ {
		t := time.Now()
		loss, err := tr.Step(x, labels)
		if err != nil {
			return row, err
		}
		took := time.Since(t)
		if i == 0 {
			row.FirstLoss = loss
		}
		row.LastLoss = loss
		if i >= warmup {
			times = append(times, ms(took))
			split.record()
		} else if steps == 0 && i == warmup-1 {
			// The last warm-up step sets the count: about 3 s of steps.
			steps = min(200, max(5, int(benchTrainBudget/max(took, time.Microsecond))))
			if bar != nil {
				bar.ChangeMax(warmup + steps)
			}
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	steps = len(times)
	row.Steps = steps
	slices.Sort(times)
	row.P50ms = times[steps/2]
	row.P99ms = times[min(steps-1, steps*99/100)]
	row.transferSplit = split.medians()
	return row, nil
}

// randomLabels returns batch class indices drawn from seed, in range for
// the step's output.
func randomLabels(s *models.Step, batch int, seed uint64) (*graph.Array, error) {
	t := s.Model.OutputType
	if t.Layout.Rank() != 2 {
		return nil, fmt.Errorf("the model's output is %v, want a matrix of class scores", s.Model.OutputType)
	}
	classes := t.Layout.Extents()[1]
	y, err := graph.Zeros(graph.Int32, batch)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x6c6162656c73)) // "labels"
	for i := range batch {
		y.Set(float64(r.IntN(classes)), i)
	}
	return y, nil
}

// benchTrainBudget is about how long "bench train --steps 0" times each
// configuration, after the warm-up.
const benchTrainBudget = 3 * time.Second

func mode(unfused bool) string {
	if unfused {
		return "unfused"
	}
	return "fused"
}

// benchBatches writes the batch sizes as a comma list.
func benchBatches(sizes []int) string {
	s := make([]string, len(sizes))
	for i, b := range sizes {
		s[i] = strconv.Itoa(b)
	}
	return strings.Join(s, ",")
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// writeBenchTrainText prints the report as a table.
func writeBenchTrainText(w io.Writer, rep benchTrainReport) error {
	fmt.Fprintf(w, "%s\noptimizer: %s, softmax cross-entropy\n\n", rep.Model, rep.Optimizer)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "backend\tmode\tbatch\tp50 ms\tp99 ms\tin ms\texec ms\tout ms\tsteps\tkernels\tforward\tbackward+update\ttemporaries\ttemp bytes\tfuse ms\tcompile ms\t")
	for _, r := range rep.Rows {
		in, exec, out := "-", "-", "-"
		if t := r.transferSplit; t != nil {
			in, exec, out = fmt.Sprintf("%.3f", t.TransferInMs), fmt.Sprintf("%.3f", t.ExecuteMs), fmt.Sprintf("%.3f", t.TransferOutMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%.0f\t%.0f\t\n",
			r.Backend, r.Mode, r.Batch, r.P50ms, r.P99ms, in, exec, out, r.Steps, r.Kernels, r.ForwardKernels, r.BackwardKernels,
			r.Temporaries, bytes(r.TemporaryBytes), r.FuseMs, r.CompileMs)
	}
	for _, r := range rep.Peers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t-\t-\t-\t%d\t-\t-\t-\t-\t-\t-\t%.0f\t\n",
			r.Backend, r.Mode, r.Batch, r.P50ms, r.P99ms, r.Steps, r.CompileMs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nforward: kernels of the forward model alone, cut the same way; backward+update: the rest of the step's kernels.\n"+
		"in, exec, out (PJRT rows): medians of copying the batch to the device, executing the step, and reading the loss and flags back; the parameters and optimizer state stay on the device.\n"+
		"compile ms: train.New (cutting the step into kernels again, lowering, compiling).")
	return err
}
