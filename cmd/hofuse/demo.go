package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/pjrt"
)

func init() {
	register(&command{
		name:    "demo",
		usage:   "[--backend native|pjrt|auto] [--batches 1,256] [--runs N] [--threads N] [--max-memory BYTES] [--json] [[--model mlp|cnn] model flags | --model FILE.onnx|FILE.pb]",
		summary: "fuse an MLP or an imported model, run it fused and unfused, check they agree, and time them",
		run:     runDemo,
	})
}

// demoRow is one line of the latency table.
type demoRow struct {
	Batch          int     `json:"batch"`
	Mode           string  `json:"mode"` // fused or unfused
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	Kernels        int     `json:"kernels"`
	TemporaryBytes int     `json:"temporary_bytes"`
	CompileMs      float64 `json:"compile_ms"`
	Runs           int     `json:"runs"`
	// PJRT rows: the parameters stay on the device (bound once) and each
	// run's time splits into copying the data in, executing and copying
	// the result out, medians over the runs.
	*transferSplit
}

// demoReport is what demo prints with --json.
type demoReport struct {
	Backend    string  `json:"backend"`
	Model      string  `json:"model"`
	MaxAbsDiff float64 `json:"max_abs_diff"` // fused vs unfused, over every batch
	// MaxAbsDiffRef is fused vs the reference interpreter, over the rows
	// ReferenceChecks lists.
	MaxAbsDiffRef   float64          `json:"max_abs_diff_reference"`
	ReferenceChecks []referenceCheck `json:"reference_checks"` // empty with --no-reference
	Rows            []demoRow        `json:"rows"`
	Fusion          *fusion.Report   `json:"fusion"`
	Speedups        []demoSpeedup    `json:"speedups"`
}

// demoSpeedup is the fused graph's speed over the unfused one's at a batch
// size, by p50.
type demoSpeedup struct {
	Batch          int     `json:"batch"`
	FusedVsUnfused float64 `json:"fused_vs_unfused"`
}

// referenceCheck says which rows of a batch were checked against the
// reference interpreter.
type referenceCheck struct {
	Batch int   `json:"batch"`
	Rows  []int `json:"rows"` // the rows checked, in order; every row when All
	All   bool  `json:"all"`
}

// Batches of up to refWholeBatch rows are checked whole against the
// reference interpreter; larger ones by refSampleRows rows spread evenly
// over the batch, first and last included: the interpreter took 110 s for
// the default model at batch 256 on a loaded two-core machine, where the
// whole demo with the sample takes about 5 s. Rows of an inference-mode MLP are
// independent, so checking a row alone checks it within the batch.
const (
	refWholeBatch = 16
	refSampleRows = 4
)

func runDemo(args []string, stdout, stderr io.Writer) (err error) {
	c := commands["demo"]
	fs := newFlags(c, stderr)
	var mf mlpFlags
	mf.register(fs, 1)
	mf.batchFlag = "batches"
	backend := fs.String("backend", "native", "where to run: native (in-process Go), pjrt (a PJRT plugin), or auto (pjrt if a plugin is installed, else native)")
	batches := fs.String("batches", "1,256", "comma-separated batch `sizes` to time (default 2,256 with --mode training and --norm batchnorm)")
	runs := fs.Int("runs", 0, "timed runs per batch and mode (0: enough for about half a second each, at least 20)")
	seed := fs.Uint64("seed", 1, "seed for the weights and the inputs")
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	plugin := fs.String("plugin", "", "PJRT plugin `path` (default: found by 'hofuse pjrt path')")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	noRef := fs.Bool("no-reference", false, "skip the check against the reference interpreter (slow for big models)")
	modelFile := fs.String("model", "", "the model: mlp (the default) or cnn, each with its model flags, or the model in `FILE` (.onnx, or a frozen TensorFlow .pb; its symbolic batch set by each of --batches; random data inputs from --seed)")
	var outputs listFlag
	fs.Var(&outputs, "output", "with --model: keep only the output `NAME` (repeatable); nodes only other outputs need are pruned")
	verbose := verboseFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	set := flagsSet(fs)
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case set["batch"]:
		return usagef("--batch: demo times each batch size of --batches; pass --batches %d", mf.batch)
	case *runs < 0:
		return usagef("--runs %d: must be at least 0 (0: about half a second of runs)", *runs)
	case *backend == "native" && set["plugin"]:
		return usagef("--plugin: --backend native loads no plugin; pass --backend pjrt or auto")
	case *backend == "pjrt" && set["threads"]:
		return usagef("--threads: sets the native executor's goroutines, which --backend pjrt does not use")
	}
	if err := rf.check(); err != nil {
		return err
	}
	if isModelName(*modelFile) {
		if err := mf.checkKind(*modelFile, set); err != nil {
			return err
		}
		*modelFile = ""
	} else if *modelFile == "" {
		if err := mf.checkKind("mlp", set); err != nil {
			return err
		}
	}
	if *modelFile != "" {
		if err := rejectFlags(set, "model flags describe the MLP and the CNN; --model FILE.onnx fixes its own sizes", without(modelFlagNames, "batch")...); err != nil {
			return err
		}
		if !isModelFile(*modelFile) {
			return notModelFile("--model " + *modelFile)
		}
		sizes, err := parseBatches(*batches)
		if err != nil {
			return err
		}
		return demoModel(*modelFile, sizes, demoModelOptions{backend: *backend, plugin: *plugin, seed: *seed, runs: *runs, noRef: *noRef, asJSON: *asJSON, outputs: outputs}, &rf, stdout, stderr)
	}
	if set["output"] {
		return usagef("--output: chooses outputs of a --model FILE.onnx; an MLP has one")
	}
	mf.maxMemory = int64(rf.maxMemory)
	if !set["batches"] && strings.HasPrefix(mf.mode, "train") && mf.norm == "batchnorm" {
		// BatchNorm in training mode needs two rows to have statistics.
		*batches = "2,256"
	}
	sizes, err := parseBatches(*batches)
	if err != nil {
		return err
	}
	// Check the model flags for every batch before any work.
	for _, b := range sizes {
		mf.batch = b
		if _, err := mf.build(); err != nil {
			return err
		}
	}

	be, closeBackend, err := demoBackend(*backend, *plugin, &rf, stderr)
	if err != nil {
		return err
	}
	defer closeBackend()

	rep := &demoReport{Backend: be.fused.Name(), ReferenceChecks: []referenceCheck{}}
	var text strings.Builder
	for i, batch := range sizes {
		mf.batch = batch
		m, err := mf.build()
		if err != nil {
			return err
		}
		res, err := fusion.Fuse(m.Output, fusion.Options{})
		if err != nil {
			return err
		}
		unfused, err := fusion.Unfused(m.Output)
		if err != nil {
			return err
		}
		if i == 0 {
			rep.Model = mf.summary(m)
			rep.Fusion = res.Report
			fmt.Fprintf(&text, "%s\nbackend: %s\n\n", rep.Model, rep.Backend)
			fmt.Fprintf(&text, "fusion: %s before, %d after; temporaries %s before, %s after\n",
				count(res.Report.KernelsBefore, "kernel"), res.Report.KernelsAfter, bytes(res.Report.TemporaryBytesBefore), bytes(res.Report.TemporaryBytes))
			for _, k := range res.Report.Kernels {
				fmt.Fprintf(&text, "  %-18s %-14v holds %-22s nest: %s\n", k.Name, k.Type, strings.Join(k.Sources, ","), k.Order)
			}
			text.WriteByte('\n')
		}
		in := m.Bindings(*seed)
		outs, rows, err := timeInTurns([]timeSpec{
			{be.fused, res.Graph, in, "fused", fmt.Sprintf("fused, batch %d", batch)},
			{be.unfused, unfused, in, "unfused", fmt.Sprintf("unfused, batch %d", batch)},
		}, batch, *runs, timeRounds, nil)
		if err != nil {
			return err
		}
		fusedOut, fusedRow, unfusedOut, unfusedRow := outs[0], rows[0], outs[1], rows[1]
		d, err := graph.MaxAbsDiff(fusedOut, unfusedOut)
		if err != nil {
			return err
		}
		rep.MaxAbsDiff = max(rep.MaxAbsDiff, d)
		if err := graph.Diff(unfusedOut, fusedOut, graph.Tolerance(m.OutputType.DType)); err != nil {
			return fmt.Errorf("batch %d: fused and unfused results differ: %w", batch, err)
		}
		if !*noRef {
			chk, d, err := checkReference(&rf, mf, m, in, fusedOut)
			if err != nil {
				return fmt.Errorf("batch %d: %w", batch, err)
			}
			rep.MaxAbsDiffRef = max(rep.MaxAbsDiffRef, d)
			rep.ReferenceChecks = append(rep.ReferenceChecks, chk)
		}
		rep.Rows = append(rep.Rows, fusedRow, unfusedRow)
		rep.Speedups = append(rep.Speedups, demoSpeedup{batch, unfusedRow.P50ms / fusedRow.P50ms})
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	writeDemoTable(&text, rep, *noRef)
	text.WriteString(demoTrainHint)
	_, err = io.WriteString(stdout, text.String())
	return err
}

// demoTrainHint ends the demo's text: the next thing to try.
const demoTrainHint = "\nnext, train a network on real data (scikit-learn's digits, built in; a few seconds):\n" +
	"  hofuse train --save digits.safetensors --plot digits.png\n" +
	"  hofuse predict --model digits.safetensors\n"

// writeDemoTable writes the latency table, the speed-ups and the
// differences of a demo report.
func writeDemoTable(text *strings.Builder, rep *demoReport, noRef bool) {
	fmt.Fprintf(text, "%6s  %-8s %10s %10s %8s %12s %11s %6s\n", "batch", "mode", "p50 ms", "p99 ms", "kernels", "temporaries", "compile ms", "runs")
	for _, r := range rep.Rows {
		fmt.Fprintf(text, "%6d  %-8s %10.3f %10.3f %8d %12s %11.1f %6d\n", r.Batch, r.Mode, r.P50ms, r.P99ms, r.Kernels, bytes(r.TemporaryBytes), r.CompileMs, r.Runs)
	}
	for _, sp := range rep.Speedups {
		fmt.Fprintf(text, "batch %d: fused is %.2fx the speed of unfused (p50)\n", sp.Batch, sp.FusedVsUnfused)
	}
	fmt.Fprintf(text, "max abs difference: fused vs unfused %.3g (every batch, every row)", rep.MaxAbsDiff)
	if !noRef {
		fmt.Fprintf(text, ", fused vs reference interpreter %.3g\n", rep.MaxAbsDiffRef)
		fmt.Fprintf(text, "checked against the reference interpreter: %s", describeChecks(rep.ReferenceChecks))
	} else {
		fmt.Fprintf(text, "\nnot checked against the reference interpreter (--no-reference)")
	}
	text.WriteByte('\n')
}

// checkReference checks the fused result of one batch against the
// reference interpreter: the whole batch when it is small or its rows
// depend on each other (BatchNorm in training mode uses the batch's
// statistics), else a sample of rows, run as a batch of their own.
func checkReference(rf *runFlags, mf mlpFlags, m *models.Model, in map[string]graph.Value, fusedOut graph.Value) (referenceCheck, float64, error) {
	batch := mf.batch
	dt := m.OutputType.DType
	out, isArray := fusedOut.(*graph.Array)
	x, xIsArray := in[m.Input.Name].(*graph.Array)
	dependent := mf.dependentRows()
	if batch <= refWholeBatch || dependent || !isArray || !xIsArray {
		ref, err := rf.evalInterp(m.Output, in)
		if err != nil {
			return referenceCheck{}, 0, err
		}
		d, err := compareReference(ref, fusedOut, dt)
		rows := make([]int, batch)
		for i := range rows {
			rows[i] = i
		}
		return referenceCheck{Batch: batch, Rows: rows, All: true}, d, err
	}
	rows := sampleRows(batch, refSampleRows)
	mf.batch = len(rows)
	small, err := mf.build()
	if err != nil {
		return referenceCheck{}, 0, err
	}
	sin := maps.Clone(in)
	if sin[m.Input.Name], err = takeRows(x, rows); err != nil {
		return referenceCheck{}, 0, err
	}
	ref, err := rf.evalInterp(small.Output, sin)
	if err != nil {
		return referenceCheck{}, 0, err
	}
	got, err := takeRows(out, rows)
	if err != nil {
		return referenceCheck{}, 0, err
	}
	d, err := compareReference(ref, got, dt)
	return referenceCheck{Batch: batch, Rows: rows}, d, err
}

func compareReference(ref, got graph.Value, dt graph.DType) (float64, error) {
	d, err := graph.MaxAbsDiff(ref, got)
	if err != nil {
		return 0, err
	}
	if err := graph.Diff(ref, got, graph.Tolerance(dt)); err != nil {
		return d, fmt.Errorf("fused result differs from the reference interpreter: %w", err)
	}
	return d, nil
}

// sampleRows returns k rows of a batch of n, spread evenly, the first and
// the last included.
func sampleRows(n, k int) []int {
	rows := make([]int, k)
	for i := range rows {
		rows[i] = i * (n - 1) / (k - 1)
	}
	return rows
}

// takeRows copies the given rows (along axis 0) of a into a new
// row-major array of a's element type.
func takeRows(a *graph.Array, rows []int) (*graph.Array, error) {
	ext := append([]int{len(rows)}, a.Extents()[1:]...)
	out, err := graph.Zeros(a.DType(), ext...)
	if err != nil {
		return nil, fmt.Errorf("take rows: %w", err)
	}
	flat := out // a rank-1 view of out's storage
	for flat.Rank() > 1 {
		if flat, err = flat.Flatten(0); err != nil {
			return nil, fmt.Errorf("take rows: %w", err)
		}
	}
	k := 0
	for _, r := range rows {
		row, err := a.Index(r)
		if err != nil {
			return nil, err
		}
		for _, v := range row.Copy().Values() {
			flat.Set(v, k)
			k++
		}
	}
	return out, nil
}

// describeChecks says which rows were checked: "batch 1 whole; batch 256
// rows 0, 85, 170, 255 (a sample: ...)".
func describeChecks(cs []referenceCheck) string {
	var parts []string
	sampled := false
	for _, c := range cs {
		if c.All {
			parts = append(parts, fmt.Sprintf("batch %d whole", c.Batch))
			continue
		}
		sampled = true
		rs := make([]string, len(c.Rows))
		for i, r := range c.Rows {
			rs[i] = strconv.Itoa(r)
		}
		parts = append(parts, fmt.Sprintf("batch %d rows %s", c.Batch, strings.Join(rs, ", ")))
	}
	s := strings.Join(parts, "; ")
	if sampled {
		s += fmt.Sprintf(" (a batch over %d rows is checked on a fixed sample of %d rows, first and last included, to keep the slow interpreter to seconds)", refWholeBatch, refSampleRows)
	}
	return s
}

// demoBackends are the back ends for the fused and the unfused graph: the
// same, except that PJRT runs the unfused graph one executable per kernel.
type demoBackends struct {
	fused, unfused lowering.Backend
}

func demoBackend(name, plugin string, rf *runFlags, stderr io.Writer) (demoBackends, func(), error) {
	nativeBE := native.New(rf.nativeOptions())
	switch name {
	case "native":
		return demoBackends{nativeBE, nativeBE}, func() {}, nil
	case "pjrt", "auto":
		path, err := pjrt.Locate(plugin)
		if err != nil {
			// Only a plugin that is nowhere falls back; a damaged one, or
			// a $PJRT_PLUGIN_LIBRARY_PATH naming nothing, is an error.
			var nf *pjrt.NotFoundError
			if name == "auto" && errors.As(err, &nf) {
				fmt.Fprintf(stderr, "hofuse demo: no PJRT plugin (%v); using the native executor\n", err)
				return demoBackends{nativeBE, nativeBE}, func() {}, nil
			}
			return demoBackends{}, nil, err
		}
		client, err := pjrt.Open(path)
		if err != nil {
			// With auto, a plugin that does not load (no cgo, another PJRT
			// C API version, a library it needs missing) falls back too; a
			// damaged file is an error, to be fixed, as above.
			var damaged *pjrt.DamagedError
			if name == "auto" && !errors.As(err, &damaged) {
				fmt.Fprintf(stderr, "hofuse: PJRT unavailable (%s); using the native executor\n", firstLine(err))
				return demoBackends{nativeBE, nativeBE}, func() {}, nil
			}
			return demoBackends{}, nil, err
		}
		be := demoBackends{xla.New(client, xla.Options{}), xla.New(client, xla.Options{PerKernel: true})}
		if name == "auto" {
			be = demoBackends{&autoBackend{pjrt: be.fused, native: nativeBE, stderr: stderr}, &autoBackend{pjrt: be.unfused, native: nativeBE, stderr: stderr}}
		}
		return be, func() { client.Close() }, nil
	}
	return demoBackends{}, nil, usagef("--backend: %q is not native, pjrt or auto", name)
}

// A timeSpec is a graph to time on a back end, with its inputs; what
// names it in an error ("fused, batch 256").
type timeSpec struct {
	be   lowering.Backend
	g    *fusion.Graph
	in   map[string]graph.Value
	mode string
	what string
}

// timeRounds is the turns in which the demo times its rows, and bench's
// default.
const timeRounds = 5

// timeInTurns compiles each spec and runs it once for its output, then
// times them in rounds turns, each taking its share of its runs (runs, or
// when 0 about half a second's worth, at least 20), so that a slow minute
// of a shared machine weighs on each alike. After each turn it calls
// after, when not nil, with the specs' outputs (bench runs its peers
// there). It returns each spec's first output and its row.
func timeInTurns(specs []timeSpec, batch, runs, rounds int, after func(turn int, outs []graph.Value) error) ([]graph.Value, []demoRow, error) {
	ts := make([]*timedGraph, 0, len(specs))
	counts := make([]int, 0, len(specs))
	defer func() {
		for _, t := range ts {
			t.close()
		}
	}()
	for _, s := range specs {
		t, err := prepareGraph(s.be, s.g, s.in, batch, s.mode)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.what, err)
		}
		ts = append(ts, t)
		n := runs
		if n <= 0 {
			if n, err = t.autoRuns(); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.what, err)
			}
		}
		counts = append(counts, n)
	}
	outs := make([]graph.Value, len(ts))
	for i, t := range ts {
		outs[i] = t.out
	}
	for r := range rounds {
		for i, t := range ts {
			if err := t.time(turnShare(counts[i], rounds, r)); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", specs[i].what, err)
			}
		}
		if after != nil {
			if err := after(r, outs); err != nil {
				return nil, nil, err
			}
		}
	}
	rows := make([]demoRow, len(ts))
	for i, t := range ts {
		rows[i] = t.finish()
	}
	return outs, rows, nil
}

// turnShare is turn r's share of runs spread over turns: runs/turns,
// one more in the first runs%turns turns.
func turnShare(runs, turns, r int) int {
	n := runs / turns
	if r < runs%turns {
		n++
	}
	return n
}

// A timedGraph is a graph compiled, bound to its inputs and run once,
// ready to be timed in as many turns as timeInTurns takes.
type timedGraph struct {
	row   demoRow
	out   graph.Value // the first run's
	run   func() (graph.Value, error)
	split *splitter
	times []float64
	close func()
}

// prepareGraph compiles g on be, binds in and runs it once. The timed
// graph must be closed.
func prepareGraph(be lowering.Backend, g *fusion.Graph, in map[string]graph.Value, batch int, mode string) (*timedGraph, error) {
	t := &timedGraph{row: demoRow{Batch: batch, Mode: mode, Kernels: len(g.Kernels), TemporaryBytes: g.TemporaryBytes()}}
	start := time.Now()
	exe, err := be.Compile(g)
	if err != nil {
		return nil, err
	}
	if s, ok := exe.(interface{ Stats() xla.Stats }); ok {
		t.row.CompileMs = float64(s.Stats().Lower+s.Stats().Compile) / 1e6
	} else {
		t.row.CompileMs = float64(time.Since(start)) / 1e6
	}
	run, split, done, err := bindParams(exe, g, in)
	if err != nil {
		exe.Close()
		return nil, err
	}
	t.run, t.split, t.close = run, split, func() { done(); exe.Close() }
	out, err := run()
	if err != nil {
		t.close()
		return nil, err
	}
	t.out = graph.CopyValue(out)
	return t, nil
}

// autoRuns times one run and returns the runs that take about half a
// second, at least 20 and at most 2000.
func (t *timedGraph) autoRuns() (int, error) {
	start := time.Now()
	if _, err := t.run(); err != nil {
		return 0, err
	}
	return max(20, min(2000, int(500*time.Millisecond/max(time.Since(start), time.Microsecond)))), nil
}

// time times n more runs.
func (t *timedGraph) time(n int) error {
	for range n {
		start := time.Now()
		if _, err := t.run(); err != nil {
			return err
		}
		t.times = append(t.times, float64(time.Since(start))/1e6)
		t.split.record()
	}
	return nil
}

// finish returns the row: p50 and p99 over every timed run.
func (t *timedGraph) finish() demoRow {
	row := t.row
	times := slices.Sorted(slices.Values(t.times))
	row.Runs = len(times)
	if n := len(times); n > 0 {
		row.P50ms = times[n/2]
		row.P99ms = times[min(n-1, n*99/100)]
	}
	row.transferSplit = t.split.medians()
	return row
}

func bytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
