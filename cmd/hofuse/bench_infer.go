package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// benchSubcommands are the benchmarks of "hofuse bench".
var benchSubcommands = map[string]*command{
	"mlp": {
		name:    "bench mlp",
		usage:   "[--backend native|pjrt|all] [--batches 1,256] [--runs N] [--json] [--plot FILE.png] [--peers LIST] [model flags]",
		summary: "time the inference of an MLP (models.MLP), fused and unfused, against peers on the same weights",
	},
	"matmul": {
		name:    "bench matmul",
		usage:   "[--backend native|pjrt|all] [--n 1024] [--dtype f32|f64] [--runs N] [--json] [--plot FILE.png] [--peers LIST]",
		summary: "time an n×n matrix product, fused and unfused, against peers on the same matrices",
	},
	"stack": {
		name:    "bench stack",
		usage:   "[--backend native|pjrt|all] [--batches 256] [--features 4096] [--classes 32768] [--runs N] [--json] [--plot FILE.png] [--peers LIST]",
		summary: "time memory-bound layer stacks (LayerNorm + GELU + residual add; softmax), fused and unfused, against peers",
	},
}

func init() {
	for name, c := range benchSubcommands {
		c.run = func(args []string, stdout, stderr io.Writer) error {
			return runBenchInfer(name, c, args, stdout, stderr, "")
		}
	}
	benchSubcommands["train"] = benchTrainCommand
	benchTrainCommand.run = runBenchTrain
}

// benchNames lists the benchmarks for messages.
const benchNames = "mlp, matmul, stack or train"

// benchFileCommand is "hofuse bench FILE": the inference of an imported
// model, timed like bench mlp's.
var benchFileCommand = &command{
	name:    "bench",
	usage:   "FILE.onnx|FILE.pb [--output NAME] [--backend native|pjrt|all] [--batches 1,256] [--runs N] [--json] [--plot FILE.png] [--peers ort=PYTHON]",
	summary: "time the inference of an imported model (its symbolic batch set by each of --batches; random data inputs from --seed; the file's parameters), fused and unfused, against ONNX Runtime on the .onnx file itself",
}

// rejectMLPFlags refuses, by name, the model flags of bench mlp among the
// arguments of bench FILE, which are not its flags.
func rejectMLPFlags(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "batch":
			return usagef("--batch: bench times each batch size of --batches; pass --batches N")
		case "sizes", "dtype", "norm", "mode", "activation":
			return usagef("--%s: model flags describe the MLP of 'bench mlp'; a model file fixes its own sizes", name)
		}
	}
	return nil
}

// modelArg is the index of the model file among bench's arguments: the
// first one that is not a flag and ends in .onnx or .pb; -1 when none
// does. No flag of bench takes a model file as its value.
func modelArg(args []string) int {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && isModelFile(a) {
			return i
		}
	}
	return -1
}

func runBench(args []string, stdout, stderr io.Writer) error {
	c := commands["bench"]
	if i := modelArg(args); i >= 0 {
		rest := slices.Delete(slices.Clone(args), i, i+1)
		err := runBenchInfer("file", benchFileCommand, rest, stdout, stderr, args[i])
		c.flags = benchFileCommand.flags
		return err
	}
	if len(args) > 0 {
		if sub, ok := benchSubcommands[args[0]]; ok {
			err := sub.run(args[1:], stdout, stderr)
			// Usage errors print the usage of the flag they name, which
			// the subcommand's flag set knows.
			c.flags = sub.flags
			return err
		}
	}
	// No benchmark named: parse anyway, so that --help prints the usage
	// and --peers help says how to install the peers.
	fs := newFlags(c, stderr)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintln(stderr, "\nBenchmarks ('hofuse bench NAME --help' for each one's flags):")
		for _, name := range []string{"mlp", "matmul", "stack", "train"} {
			fmt.Fprintf(stderr, "  %-7s %s\n", name, benchSubcommands[name].summary)
		}
		fmt.Fprintf(stderr, "  %-7s %s\n", "FILE", "(a model file, .onnx or .pb) "+benchFileCommand.summary)
	}
	peers := fs.String("peers", "", "with help: say how to install the peers that --peers runs")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *peers == "help" && len(pos) == 0:
		_, err := io.WriteString(stdout, peersHelp)
		return err
	case len(pos) == 0:
		return usagef("name what to time: %s ('hofuse bench mlp')", benchNames)
	case strings.ContainsAny(pos[0], "./"):
		return usagef("%s: want a model file ending in %s, or name a benchmark: %s", pos[0], modelFiles, benchNames)
	}
	return usagef("%q is not a benchmark; name one of %s", pos[0], benchNames)
}

// benchWork is one workload of bench mlp, matmul or stack at one size: a
// term and its inputs (weights included).
type benchWork struct {
	Name  string // "mlp", "matmul", "layernorm_gelu_residual", "softmax"
	Batch int    // rows of RowInput
	Term  graph.Node
	In    map[string]graph.Value
	// RowInput is the input whose rows the output's rows depend on alone:
	// a sample of them is checked against the interpreter.
	RowInput string
	DType    graph.DType
	// Flops counts the multiply-adds' floating-point operations (two per
	// multiply-add) of the products; 0 where the work has none.
	Flops float64
	// Peer describes the work to the peer scripts (see writePeerCase).
	Peer map[string]any
}

// benchWorkload builds a workload at a batch size (rows) with a seed; the
// same seed gives the same parameters at every batch size.
type benchWorkload struct {
	name  string
	build func(batch int, seed uint64) (*benchWork, error)
}

// benchInferRow is one row of bench mlp, matmul or stack: one back end,
// fused or unfused, one batch; or a peer's row.
type benchInferRow struct {
	Workload string  `json:"workload"`
	Backend  string  `json:"backend"`
	Peer     string  `json:"peer,omitempty"`
	Mode     string  `json:"mode"` // fused, unfused; a peer's own word (jit, session, eager)
	Batch    int     `json:"batch"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	Runs     int     `json:"runs"`
	// The kernels' figures: a hofuse row's only.
	*benchGraphStats
	CompileMs      float64 `json:"compile_ms"`
	GFlops         float64 `json:"gflops,omitempty"`
	FractionOfPeak float64 `json:"fraction_of_peak,omitempty"`
	// GBps is the bytes that must move (the program's inputs and output)
	// per second; FractionOfBandwidth divides it by the measured copy
	// bandwidth.
	GBps                float64 `json:"gb_per_s"`
	FractionOfBandwidth float64 `json:"fraction_of_bandwidth"`
	// MaxAbsDiff is the largest difference of this row's output from
	// DiffAgainst's.
	MaxAbsDiff  float64 `json:"max_abs_diff"`
	DiffAgainst string  `json:"diff_against"`
	// Version is a peer's package version.
	Version string `json:"version,omitempty"`
	// A PJRT row's split of its run time (parameters bound on the device).
	*transferSplit
}

// benchGraphStats are the figures of a hofuse row's graph of kernels.
type benchGraphStats struct {
	Kernels int `json:"kernels"`
	// Temporaries and TemporaryBytes are the buffers between kernels;
	// BytesMoved is what the kernels read and write, every kernel's
	// inputs and output once.
	Temporaries    int     `json:"temporaries"`
	TemporaryBytes int     `json:"temporary_bytes"`
	BytesMoved     int64   `json:"bytes_moved"`
	FuseMs         float64 `json:"fuse_ms"` // fusion.Fuse; 0 on an unfused row
	// SearchMs is the schedule pass's part of FuseMs, and Schedule what
	// it chose; a fused row's only.
	SearchMs float64 `json:"search_ms,omitempty"`
	Schedule string  `json:"schedule,omitempty"`
}

// scheduleSummary sums up what the schedule pass did to a fused graph:
// "3 kernels, 0 reordered; 18 orders costed, 12 pruned", and with --tune
// "; 2 chosen by measurement".
func scheduleSummary(rep *fusion.Report) (searchMs float64, summary string) {
	s := rep.Schedule
	if s == nil {
		return 0, ""
	}
	summary = fmt.Sprintf("%d kernels, %d reordered; %d orders costed, %d pruned", len(rep.Kernels), s.Changed, s.Orders, s.Pruned)
	measured := 0
	for _, k := range rep.Kernels {
		if k.Schedule != nil && k.Schedule.Measured > 0 {
			measured++
		}
	}
	if measured > 0 {
		summary += fmt.Sprintf("; %d chosen by measurement", measured)
	}
	for _, k := range rep.Kernels {
		if k.Schedule != nil && k.Schedule.Changed {
			summary += fmt.Sprintf("; %s: %s", k.Name, k.Schedule.Order)
		}
	}
	return ms(s.Search), summary
}

// benchInferReport is the JSON document of bench mlp, matmul and stack.
type benchInferReport struct {
	Benchmark string `json:"benchmark"`
	Model     string `json:"model"`
	// PeakGFlops is the machine's peak measured with the native GEMM (see
	// PeakHow); BandwidthGBps the copy bandwidth.
	PeakGFlops    float64 `json:"peak_gflops,omitempty"`
	PeakHow       string  `json:"peak_how,omitempty"`
	BandwidthGBps float64 `json:"bandwidth_gb_per_s"`
	BandwidthHow  string  `json:"bandwidth_how"`
	// MaxAbsDiffUnfused is fused against unfused over every back end and
	// batch; MaxAbsDiffReference any hofuse row against the interpreter on
	// the rows ReferenceChecks name.
	MaxAbsDiffUnfused   float64          `json:"max_abs_diff_fused_unfused"`
	MaxAbsDiffReference float64          `json:"max_abs_diff_reference"`
	ReferenceChecks     []referenceCheck `json:"reference_checks"`
	Rows                []benchInferRow  `json:"rows"`
	// Rounds is the turns in which each batch's rows, the peers' too,
	// were timed.
	Rounds int `json:"rounds"`
	// Legend says, one line per workload, what its fused and unfused rows
	// run (bench stack's).
	Legend []string `json:"legend,omitempty"`
	// Skipped says, one line each, which peers did not run and why.
	Skipped []string `json:"skipped,omitempty"`
}

// peerBudget is the seconds of runs a peer takes over all its turns when
// --runs is 0, as hofuse's rows do.
const peerBudget = 0.5

// runBenchInfer runs bench mlp, matmul or stack, or with name "file" the
// bench of the model file path.
func runBenchInfer(name string, c *command, args []string, stdout, stderr io.Writer, path string) (err error) {
	fs := newFlags(c, stderr)
	var mf mlpFlags
	var n *int
	var dtype *string
	var features, classes *int
	defBatches := "256"
	var outputs listFlag
	switch name {
	case "file":
		if err := rejectMLPFlags(args); err != nil {
			return err
		}
		defBatches = "1,256"
		fs.Var(&outputs, "output", "time the output `NAME` alone (a model with several outputs needs one); nodes only other outputs need are pruned")
	case "mlp":
		mf.register(fs, 1)
		mf.batchFlag = "batches"
		defBatches = "1,256"
	case "matmul":
		n = fs.Int("n", 1024, "the matrices are `N`×N")
		dtype = fs.String("dtype", "f32", "element type: f32 or f64")
	case "stack":
		features = fs.Int("features", 4096, "features of the LayerNorm + GELU + residual stack: x is batch×`F`")
		classes = fs.Int("classes", 32768, "length of the softmax's rows: x is batch×`C`")
	}
	backend := fs.String("backend", "native", "where to run: native (in-process Go), pjrt (a PJRT plugin) or all (both)")
	var batches *string
	if name != "matmul" {
		batches = fs.String("batches", defBatches, "comma-separated batch `sizes` (rows) to time")
	}
	runs := fs.Int("runs", 0, "timed runs per back end, mode and batch (0: enough for about half a second each, at least 20)")
	rounds := fs.Int("rounds", timeRounds, "time a batch's rows in `N` turns (fused, unfused, the peers, fused, …), each taking its share of the runs, so that a slow minute of a shared machine weighs on each alike")
	seedUsage := "seed for the weights and the inputs"
	if name == "file" {
		seedUsage = "seed for the data inputs (the parameters are the file's)"
	}
	seed := fs.Uint64("seed", 1, seedUsage)
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	plugin := fs.String("plugin", "", "PJRT plugin `path` (default: found by 'hofuse pjrt path')")
	peers := fs.String("peers", "", "also time peers on the same inputs: a comma-separated `list` of ort=PYTHON, jax=PYTHON, numpy=PYTHON "+
		"(the Python of a virtual environment that has the package) and gomlx (or gomlx=GO: the go command that builds it); run from the repository's root; 'help' says how to install them")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	plotPath := fs.String("plot", "", "draw p50 as bars with p99 whiskers, fused, unfused and peers, to the PNG `file`")
	noRef := fs.Bool("no-reference", false, "skip the check against the reference interpreter")
	var tf tuneFlags
	tf.register(fs)
	verbose := verboseFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	set := flagsSet(fs)
	if *peers == "help" {
		_, err := io.WriteString(stdout, peersHelp)
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case set["batch"]:
		return usagef("--batch: bench times each batch size of --batches; pass --batches %d", mf.batch)
	case set["mode"] && !strings.HasPrefix(mf.mode, "infer"):
		return usagef("--mode %s: bench mlp times inference; time training steps with 'hofuse bench train'", mf.mode)
	case *runs < 0:
		return usagef("--runs %d: must be at least 0 (0: about half a second of runs)", *runs)
	case *rounds < 1:
		return usagef("--rounds %d: must be at least 1", *rounds)
	case *backend != "native" && *backend != "pjrt" && *backend != "all":
		return usagef("--backend: %q is not native, pjrt or all", *backend)
	case *backend == "native" && set["plugin"]:
		return usagef("--plugin: --backend native loads no plugin; pass --backend pjrt or all")
	case *backend == "pjrt" && set["threads"]:
		return usagef("--threads: sets the native executor's goroutines, which --backend pjrt does not use")
	case n != nil && *n < 1:
		return usagef("--n %d: must be at least 1", *n)
	case dtype != nil && *dtype != "f32" && *dtype != "f64":
		return usagef("--dtype: %q is not f32 or f64", *dtype)
	case features != nil && *features < 1:
		return usagef("--features %d: must be at least 1", *features)
	case classes != nil && *classes < 1:
		return usagef("--classes %d: must be at least 1", *classes)
	}
	if err := rf.check(); err != nil {
		return err
	}
	if err := tf.check(set); err != nil {
		return err
	}
	if *plotPath != "" {
		if err := checkOutput("plot", *plotPath, ".png"); err != nil {
			return err
		}
	}
	peerList, err := parsePeers(*peers)
	if err != nil {
		return err
	}
	mf.maxMemory = int64(rf.maxMemory)

	var sizes []int
	var works []benchWorkload
	rep := benchInferReport{Benchmark: name, Rows: []benchInferRow{}, ReferenceChecks: []referenceCheck{}, Rounds: *rounds}
	var dropped []droppedPeer // peers that do not time this benchmark
	switch name {
	case "file":
		if sizes, err = parseBatches(*batches); err != nil {
			return err
		}
		// Import every batch before opening a back end, so a model hofuse
		// cannot import is said at once.
		imported := map[int]*imports.Model{}
		wl := modelWorkload(path, outputs, int64(rf.maxMemory), imported)
		for _, b := range sizes {
			if _, err := wl.build(b, *seed); err != nil {
				return err
			}
		}
		works = []benchWorkload{wl}
		m := imported[sizes[0]]
		rep.Model = fmt.Sprintf("%s (%s", path, m.Format)
		if m.Opset > 0 {
			rep.Model += fmt.Sprintf(", opset %d", m.Opset)
		}
		rep.Model += fmt.Sprintf("): %s, %s; output %s; batches %s", count(len(m.Coverage.Ops), "operator"),
			count(paramElements(m), "parameter value"), m.Outputs[0].Name, benchBatches(sizes))
		peerList, dropped = splitFilePeers(path, peerList)
	case "mlp":
		if err := mf.checkKind("mlp", set); err != nil {
			return err
		}
		if sizes, err = parseBatches(*batches); err != nil {
			return err
		}
		for _, b := range sizes {
			mf.batch = b
			if _, err := mf.build(); err != nil {
				return err
			}
		}
		works = []benchWorkload{mlpWorkload(mf)}
		mf.batch = sizes[0]
		cfg, _ := mf.config()
		m, _ := mf.build()
		rep.Model = strings.Replace(describe(m, cfg), fmt.Sprintf("batch %d,", sizes[0]), "batches "+benchBatches(sizes)+",", 1)
	case "matmul":
		dt, _ := graph.ParseDType(*dtype)
		sizes = []int{*n}
		works = []benchWorkload{matmulWorkload(*n, dt)}
		rep.Model = fmt.Sprintf("C = A·B, A and B %d×%d %v", *n, *n, dt)
	case "stack":
		if sizes, err = parseBatches(*batches); err != nil {
			return err
		}
		works = []benchWorkload{lnGELUResidualWorkload(*features), softmaxWorkload(*classes), softmaxLayerWorkload(*classes)}
		rep.Model = fmt.Sprintf("x + GELU(LayerNorm(x)) on batch×%d f32; softmax over rows of batch×%d f32; batches %s",
			*features, *classes, benchBatches(sizes))
		rep.Legend = stackLegend
	}

	var names []string
	if *backend == "all" {
		names = []string{"native", "pjrt"}
	} else {
		names = []string{*backend}
	}
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
	peerRunner, err := newPeerRunner(peerList, stderr)
	if err != nil {
		return err
	}
	defer peerRunner.close()
	for _, d := range dropped {
		peerRunner.skip(d.peer, d.why)
	}

	machine := benchMachine{}
	total := len(works) * len(sizes) * (2*len(names) + len(peerRunner.peers))
	done := 0
	progress := func(r benchInferRow) {
		done++
		who := r.Backend
		if r.Peer != "" {
			who = "peer " + r.Peer
		}
		fmt.Fprintf(stderr, "[%d/%d] %s %-11s %-8s batch %-5d p50 %9.3f ms  p99 %9.3f ms\n",
			done, total, r.Workload, who, r.Mode, r.Batch, r.P50ms, r.P99ms)
	}
	for _, wl := range works {
		for _, batch := range sizes {
			w, err := wl.build(batch, *seed)
			if err != nil {
				return err
			}
			if err := machine.measure(w, &rf, &rep); err != nil {
				return err
			}
			start := time.Now()
			res, err := fusion.Fuse(w.Term, fusion.Options{Schedule: fusion.ScheduleOptions{Tune: tf.tuner(rf.nativeOptions(), stderr)}})
			if err != nil {
				return fmt.Errorf("%s batch %d: %w", w.Name, batch, err)
			}
			fuseMs := ms(time.Since(start))
			unfused, err := fusion.Unfused(w.Term)
			if err != nil {
				return fmt.Errorf("%s batch %d: %w", w.Name, batch, err)
			}
			var rows []benchInferRow
			var specs []timeSpec
			for i, bname := range names {
				for _, unf := range []bool{false, true} {
					g, b := res.Graph, bes[i].fused
					if unf {
						g, b = unfused, bes[i].unfused
					}
					specs = append(specs, timeSpec{b, g, boundFor(g, w.In), mode(unf), fmt.Sprintf("%s %s %s batch %d", w.Name, bname, mode(unf), batch)})
				}
			}
			// The peers take their turns between hofuse's, compared with
			// the first back end's fused output.
			var peers *peerBatch
			between := func(turn int, outs []graph.Value) error {
				if turn == 0 {
					var err error
					if peers, err = peerRunner.batch(w, outs[0], names[0]+" fused"); err != nil {
						return err
					}
				}
				n := turnShare(*runs, *rounds, turn)
				if peers == nil || *runs > 0 && n == 0 {
					return nil
				}
				return peers.turn(n, peerBudget/float64(*rounds))
			}
			outs, drs, err := timeInTurns(specs, batch, *runs, *rounds, between)
			var prows []benchInferRow
			if peers != nil {
				prows = peers.rows()
				peers.close()
			}
			if err != nil {
				return err
			}
			for k, dr := range drs {
				g, bname, unf, out := specs[k].g, names[k/2], k%2 == 1, outs[k]
				row := benchInferRow{Workload: w.Name, Backend: bname, Mode: dr.Mode, Batch: batch, P50ms: dr.P50ms, P99ms: dr.P99ms,
					Runs: dr.Runs, CompileMs: dr.CompileMs, benchGraphStats: &benchGraphStats{Kernels: dr.Kernels,
						Temporaries: len(g.Temporaries()), TemporaryBytes: dr.TemporaryBytes, BytesMoved: bytesMoved(g)},
					transferSplit: dr.transferSplit}
				if !unf {
					row.FuseMs = fuseMs
					row.SearchMs, row.Schedule = scheduleSummary(res.Report)
				}
				if unf {
					d, err := graph.MaxAbsDiff(outs[k-1], out)
					if err != nil {
						return err
					}
					rep.MaxAbsDiffUnfused = max(rep.MaxAbsDiffUnfused, d)
				}
				machine.rate(w, &row)
				progress(row)
				rows = append(rows, row)
			}
			if !*noRef {
				chk, diffs, err := checkBenchReference(&rf, wl, w, *seed, outs)
				if err != nil {
					return fmt.Errorf("%s batch %d: %w", w.Name, batch, err)
				}
				// One entry per batch: the stacks check the same rows of each.
				if !slices.ContainsFunc(rep.ReferenceChecks, func(c referenceCheck) bool { return c.Batch == chk.Batch }) {
					rep.ReferenceChecks = append(rep.ReferenceChecks, chk)
				}
				for i := range rows {
					rows[i].MaxAbsDiff = diffs[i]
					rows[i].DiffAgainst = "interpreter"
					rep.MaxAbsDiffReference = max(rep.MaxAbsDiffReference, diffs[i])
				}
			}
			rep.Rows = append(rep.Rows, rows...)
			for _, r := range prows {
				machine.rate(w, &r)
				progress(r)
				rep.Rows = append(rep.Rows, r)
			}
		}
	}
	rep.Skipped = peerRunner.skipped
	if *asJSON {
		err = printJSON(stdout, rep)
	} else {
		err = writeBenchInferText(stdout, rep)
	}
	if err != nil {
		return err
	}
	if *plotPath != "" {
		return saveBenchPlot(*plotPath, rep)
	}
	return nil
}

// checkBenchReference runs the interpreter on a sample of w's rows (all of
// them in a small batch) and returns the largest difference of each of
// outs from it on those rows.
func checkBenchReference(rf *runFlags, wl benchWorkload, w *benchWork, seed uint64, outs []graph.Value) (referenceCheck, []float64, error) {
	rows := sampleRows(w.Batch, refSampleRows)
	chk := referenceCheck{Batch: w.Batch, Rows: rows}
	if w.Batch <= refWholeBatch {
		rows = allRows(w.Batch)
		chk = referenceCheck{Batch: w.Batch, Rows: rows, All: true}
	}
	small, err := wl.build(len(rows), seed)
	if err != nil {
		return chk, nil, err
	}
	if w.RowInput == "" {
		// No input whose rows alone the output's rows depend on: the
		// whole batch is checked.
		ref, err := rf.evalInterp(w.Term, w.In)
		if err != nil {
			return chk, nil, err
		}
		chk = referenceCheck{Batch: w.Batch, Rows: allRows(w.Batch), All: true}
		diffs := make([]float64, len(outs))
		for i, out := range outs {
			if diffs[i], err = graph.MaxAbsDiff(ref, out); err != nil {
				return chk, nil, err
			}
		}
		return chk, diffs, nil
	}
	in := maps.Clone(w.In)
	x, ok := w.In[w.RowInput].(*graph.Array)
	if !ok {
		return chk, nil, fmt.Errorf("input %s is not an array", w.RowInput)
	}
	if in[w.RowInput], err = takeRows(x, rows); err != nil {
		return chk, nil, err
	}
	ref, err := rf.evalInterp(small.Term, in)
	if err != nil {
		return chk, nil, err
	}
	diffs := make([]float64, len(outs))
	for i, out := range outs {
		a, ok := out.(*graph.Array)
		if !ok {
			return chk, nil, errors.New("the result is not an array")
		}
		got, err := takeRows(a, rows)
		if err != nil {
			return chk, nil, err
		}
		if diffs[i], err = graph.MaxAbsDiff(ref, got); err != nil {
			return chk, nil, err
		}
	}
	return chk, diffs, nil
}

// allRows is 0, 1, ..., n-1.
func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// bytesMoved is what g's kernels read and write: every kernel's inputs and
// its output, once each.
func bytesMoved(g *fusion.Graph) int64 {
	var n int64
	for _, k := range g.Kernels {
		for _, in := range k.Inputs {
			n += graph.TypeBytes(in.Type)
		}
		n += graph.TypeBytes(k.Output.Type)
	}
	return n
}

// mustMove is the bytes a program must move at the least: its inputs read
// once and its output written once.
func mustMove(w *benchWork, out graph.Type) int64 {
	var n int64
	for _, v := range w.In {
		if a, ok := v.(*graph.Array); ok {
			n += graph.TypeBytes(a.Type())
		}
	}
	return n + graph.TypeBytes(out)
}

// benchMachine holds the machine's measured peak FLOP/s (per element
// type) and copy bandwidth, each measured once, the first time a workload
// needs it.
type benchMachine struct {
	peak      map[graph.DType]float64 // GFLOP/s
	bandwidth float64                 // GB/s
	outType   map[string]graph.Type
}

// peakN is the side of the square product the peak is measured on.
const peakN = 512

func (m *benchMachine) measure(w *benchWork, rf *runFlags, rep *benchInferReport) error {
	if m.outType == nil {
		m.peak, m.outType = map[graph.DType]float64{}, map[string]graph.Type{}
	}
	info, err := graph.Check(w.Term)
	if err != nil {
		return err
	}
	m.outType[w.Name] = info.TypeOf(w.Term)
	if m.bandwidth == 0 {
		m.bandwidth = copyBandwidth()
		rep.BandwidthGBps = m.bandwidth
		rep.BandwidthHow = "Go copy of a 64 MiB buffer into another, best of 10, counting its reads and writes; data that stays in cache between runs moves faster"
	}
	if w.Flops == 0 || m.peak[w.DType] != 0 {
		return nil
	}
	p, err := gemmPeak(w.DType, rf)
	if err != nil {
		return fmt.Errorf("measuring the peak: %w", err)
	}
	m.peak[w.DType] = p
	rep.PeakGFlops = p
	rep.PeakHow = fmt.Sprintf("native GEMM on a %d×%d %v product, best of about a second of runs (5 to 50)", peakN, peakN, w.DType)
	return nil
}

// rate fills a row's GFLOP/s and bandwidth and their fractions of the
// machine's.
func (m *benchMachine) rate(w *benchWork, r *benchInferRow) {
	if r.P50ms <= 0 {
		return
	}
	s := r.P50ms / 1e3
	if w.Flops > 0 {
		r.GFlops = w.Flops / s / 1e9
		if p := m.peak[w.DType]; p > 0 {
			r.FractionOfPeak = r.GFlops / p
		}
	}
	r.GBps = float64(mustMove(w, m.outType[w.Name])) / s / 1e9
	if m.bandwidth > 0 {
		r.FractionOfBandwidth = r.GBps / m.bandwidth
	}
}

// gemmPeak times the native GEMM on a square product and returns its best
// GFLOP/s.
func gemmPeak(dt graph.DType, rf *runFlags) (float64, error) {
	w, err := matmulWorkload(peakN, dt).build(peakN, 7)
	if err != nil {
		return 0, err
	}
	g, err := fusion.Whole(w.Term)
	if err != nil {
		return 0, err
	}
	exe, err := native.New(rf.nativeOptions()).Compile(g)
	if err != nil {
		return 0, err
	}
	defer exe.Close()
	// The best run of at least 5 and about a second's worth (at most 50):
	// on a shared machine the best is the one least disturbed.
	best := time.Duration(1 << 62)
	start := time.Now()
	for i := 0; i < 50 && (i < 5 || time.Since(start) < time.Second); i++ {
		t := time.Now()
		if _, err := exe.Run(w.In); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t))
	}
	return w.Flops / best.Seconds() / 1e9, nil
}

// copyBandwidth measures the copy bandwidth in GB/s: bytes read plus
// bytes written per second, best of 10 copies of 64 MiB: memory, not
// cache, bandwidth, which a workload whose data stays in cache between runs
// exceeds.
func copyBandwidth() float64 {
	const size = 64 << 20
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // touch dst's pages
	best := time.Duration(1 << 62)
	for range 10 {
		t := time.Now()
		copy(dst, src)
		best = min(best, time.Since(t))
	}
	return 2 * size / best.Seconds() / 1e9
}

// mlpWorkload is models.MLP from the model flags.
func mlpWorkload(mf mlpFlags) benchWorkload {
	return benchWorkload{name: "mlp", build: func(batch int, seed uint64) (*benchWork, error) {
		mf.batch = batch
		cfg, err := mf.config()
		if err != nil {
			return nil, err
		}
		m, err := mf.build()
		if err != nil {
			return nil, err
		}
		var flops float64
		for i := 1; i < len(cfg.Sizes); i++ {
			flops += 2 * float64(batch) * float64(cfg.Sizes[i-1]) * float64(cfg.Sizes[i])
		}
		act := cfg.Activation.OrDefault().String()
		eps := cfg.Eps
		switch {
		case eps != 0:
		case cfg.Norm == models.NormLayer:
			eps = layers.DefaultLayerNormEps
		default:
			eps = layers.DefaultBatchNormEps
		}
		return &benchWork{Name: "mlp", Batch: batch, Term: m.Output, In: m.Bindings(seed), RowInput: m.Input.Name,
			DType: cfg.DType, Flops: flops,
			Peer: map[string]any{"kind": "mlp", "sizes": cfg.Sizes, "norm": cfg.Norm.String(), "activation": act,
				"eps": eps, "leaky_relu_alpha": layers.DefaultLeakyReLUAlpha}}, nil
	}}
}

// modelWorkload is the inference of the model file path, keeping outputs
// (all when empty; bench times one): imported at each batch size (its
// symbolic dimensions) once, into imported, with random data inputs from
// the seed (at most limit bytes each; 0: no limit) and the file's
// parameters. Its row input is the one data input when the batch is its
// first axis and the output's, so a sample of rows is checked against the
// interpreter; otherwise whole batches are.
func modelWorkload(path string, outputs []string, limit int64, imported map[int]*imports.Model) benchWorkload {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return benchWorkload{name: name, build: func(batch int, seed uint64) (*benchWork, error) {
		m := imported[batch]
		if m == nil {
			var err error
			if m, err = importModel(path, imports.Options{Batch: batch, Outputs: outputs}); err != nil {
				return nil, err
			}
			imported[batch] = m
		}
		if len(m.Outputs) != 1 {
			names := make([]string, len(m.Outputs))
			for i, o := range m.Outputs {
				names[i] = o.Name
			}
			return nil, usagef("%s: the model has %d outputs (%s); bench times one: pass --output NAME", path, len(names), strings.Join(names, ", "))
		}
		out := m.Outputs[0]
		at, ok := out.Type.(*graph.ArrayType)
		if !ok {
			return nil, fmt.Errorf("%s: output %s is %v, not an array; bench compares arrays", path, out.Name, out.Type)
		}
		data, err := modelData(m, seed, limit)
		if err != nil {
			return nil, err
		}
		in, err := m.Bindings(data)
		if err != nil {
			return nil, err
		}
		w := &benchWork{Name: name, Batch: batch, Term: m.Term, In: in, DType: at.DType}
		if len(m.Inputs) == 1 {
			x := m.Inputs[0].Name
			ext := at.Layout.Extents()
			if slices.ContainsFunc(m.Symbolic, func(s imports.SymbolicDim) bool { return s.Input == x && s.Axis == 0 }) &&
				len(ext) > 0 && ext[0] == batch {
				w.RowInput = x
			}
		}
		inputs := make([]string, len(m.Inputs))
		for i, x := range m.Inputs {
			inputs[i] = x.Name
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		w.Peer = map[string]any{"kind": "onnx_file", "path": abs, "inputs": inputs, "output_name": out.Name}
		return w, nil
	}}
}

// droppedPeer is a peer of --peers that does not time a benchmark, and
// why.
type droppedPeer struct {
	peer peerSpec
	why  string
}

// splitFilePeers keeps the peers that time the model file path: ONNX
// Runtime, on an .onnx file, which it runs itself. The others build their
// programs from a workload's description, which a model file does not
// have.
func splitFilePeers(path string, peers []peerSpec) (keep []peerSpec, dropped []droppedPeer) {
	onnxFile := strings.EqualFold(filepath.Ext(path), ".onnx")
	for _, p := range peers {
		switch {
		case p.name == "ort" && onnxFile:
			keep = append(keep, p)
		case p.name == "ort":
			dropped = append(dropped, droppedPeer{p, "runs .onnx files; a TensorFlow .pb has no ONNX Runtime peer"})
		default:
			dropped = append(dropped, droppedPeer{p, "builds the MLP, matmul and stack benchmarks from their description, not a model file; --peers ort runs an .onnx file"})
		}
	}
	return keep, dropped
}

// matmulWorkload is A·B with A batch×n and B n×n.
func matmulWorkload(n int, dt graph.DType) benchWorkload {
	return benchWorkload{name: "matmul", build: func(batch int, seed uint64) (*benchWork, error) {
		prog, err := graph.Parse(fmt.Sprintf(`A : %v[%d,%d]; B : %v[%d,%d];
map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`, dt, batch, n, dt, n, n))
		if err != nil {
			return nil, err
		}
		r := rand.New(rand.NewPCG(seed, 0x6d61746d756c)) // "matmul"
		// B first: a sample of A's rows (batch < n) shares B.
		b, err := graph.RandomArray(r, dt, n, n)
		if err != nil {
			return nil, err
		}
		a, err := graph.RandomArray(r, dt, batch, n)
		if err != nil {
			return nil, err
		}
		return &benchWork{Name: "matmul", Batch: batch, Term: prog.Body, In: map[string]graph.Value{"A": a, "B": b},
			RowInput: "A", DType: dt, Flops: 2 * float64(batch) * float64(n) * float64(n),
			Peer: map[string]any{"kind": "matmul"}}, nil
	}}
}

// lnGELUResidualWorkload is x + GELU(LayerNorm(x)) on batch×features f32.
func lnGELUResidualWorkload(features int) benchWorkload {
	return benchWorkload{name: "layernorm_gelu_residual", build: func(batch int, seed uint64) (*benchWork, error) {
		x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, batch, features), false)
		if err != nil {
			return nil, err
		}
		out, p, err := models.LNGELUResidual(x, features, graph.Float32)
		if err != nil {
			return nil, err
		}
		r := rand.New(rand.NewPCG(seed, 0x737461636b)) // "stack"
		in := map[string]graph.Value{}
		for _, i := range []*graph.Input{p.Scale, p.Shift} {
			if in[i.Name], err = graph.RandomArray(r, graph.Float32, features); err != nil {
				return nil, err
			}
		}
		if in["x"], err = graph.RandomArray(r, graph.Float32, batch, features); err != nil {
			return nil, err
		}
		return &benchWork{Name: "layernorm_gelu_residual", Batch: batch, Term: out, In: in, RowInput: "x", DType: graph.Float32,
			Peer: map[string]any{"kind": "layernorm_gelu_residual", "eps": layers.DefaultLayerNormEps}}, nil
	}}
}

// stackLegend is what each workload of bench stack runs fused and unfused.
var stackLegend = []string{
	"layernorm_gelu_residual: three layers (LayerNorm, GELU, the residual add), three kernels unfused; fused: what Fuse makes of them",
	"softmax: the five operators an exporter writes (ONNX Softmax-13's body: ReduceMax, Sub, Exp, ReduceSum, Div), five kernels unfused; fused: what Fuse makes of them",
	"softmax_layer: layers.Softmax, one layer, so one kernel fused and unfused alike",
}

// softmaxWorkload is the softmax over the rows of batch×classes f32 as an
// exporter writes it: ONNX Softmax-13's function body, ReduceMax, Sub,
// Exp, ReduceSum and Div, each an operator of its own (imports/nd's, as
// the ONNX importer builds them), so that unfused runs one kernel per
// operator with a temporary between each.
func softmaxWorkload(classes int) benchWorkload {
	return benchWorkload{name: "softmax", build: func(batch int, seed uint64) (*benchWork, error) {
		x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, batch, classes), false)
		if err != nil {
			return nil, err
		}
		out, err := models.SoftmaxOperators(x)
		if err != nil {
			return nil, err
		}
		return softmaxWork("softmax", x, out, batch, classes, seed)
	}}
}

// softmaxLayerWorkload is the softmax over the rows of batch×classes f32
// as layers.Softmax builds it: one layer.
func softmaxLayerWorkload(classes int) benchWorkload {
	return benchWorkload{name: "softmax_layer", build: func(batch int, seed uint64) (*benchWork, error) {
		x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, batch, classes), false)
		if err != nil {
			return nil, err
		}
		out, err := layers.Softmax("softmax", x)
		if err != nil {
			return nil, err
		}
		return softmaxWork("softmax_layer", x, out, batch, classes, seed)
	}}
}

// softmaxWork is a softmax workload over x with random rows.
func softmaxWork(name string, x *graph.Input, out graph.Node, batch, classes int, seed uint64) (*benchWork, error) {
	r := rand.New(rand.NewPCG(seed, 0x736f66746d6178)) // "softmax"
	a, err := graph.RandomArray(r, graph.Float32, batch, classes)
	if err != nil {
		return nil, err
	}
	return &benchWork{Name: name, Batch: batch, Term: out, In: map[string]graph.Value{x.Name: a}, RowInput: x.Name,
		DType: graph.Float32, Peer: map[string]any{"kind": "softmax"}}, nil
}

// writeBenchInferText prints the report as a table.
func writeBenchInferText(w io.Writer, rep benchInferReport) error {
	fmt.Fprintf(w, "%s\n", rep.Model)
	for _, l := range rep.Legend {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if rep.PeakGFlops > 0 {
		fmt.Fprintf(w, "machine peak: %.1f GFLOP/s (%s)\n", rep.PeakGFlops, rep.PeakHow)
	}
	fmt.Fprintf(w, "copy bandwidth: %.1f GB/s (%s)\n\n", rep.BandwidthGBps, rep.BandwidthHow)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tbackend\tmode\tbatch\tp50 ms\tp99 ms\tin ms\texec ms\tout ms\truns\tkernels\ttemporaries\ttemp bytes\tmoved\tfuse ms\tsearch ms\tcompile ms\tGFLOP/s\tof peak\tGB/s\tof bw\tmax diff\t")
	var schedules []string
	for _, r := range rep.Rows {
		be := r.Backend
		if r.Peer != "" {
			be = "peer " + r.Peer
		}
		kern, temps, tb, moved, fuse, search := "-", "-", "-", "-", "-", "-"
		if r.benchGraphStats != nil {
			kern, temps, tb, moved = fmt.Sprint(r.Kernels), fmt.Sprint(r.Temporaries), bytes(r.TemporaryBytes), bytes(int(r.BytesMoved))
			if r.Mode == "fused" {
				fuse = fmt.Sprintf("%.1f", r.FuseMs)
				if r.Schedule != "" {
					search = fmt.Sprintf("%.1f", r.SearchMs)
					line := fmt.Sprintf("schedule, %s batch %d: %s", r.Workload, r.Batch, r.Schedule)
					if !slices.Contains(schedules, line) {
						schedules = append(schedules, line)
					}
				}
			}
		}
		gf, frac := "-", "-"
		if r.GFlops > 0 {
			gf = fmt.Sprintf("%.1f", r.GFlops)
			if r.FractionOfPeak > 0 {
				frac = fmt.Sprintf("%.0f%%", 100*r.FractionOfPeak)
			}
		}
		diff := "-" // not checked (--no-reference)
		if r.DiffAgainst != "" {
			diff = fmt.Sprintf("%.2g", r.MaxAbsDiff)
		}
		in, exec, out := "-", "-", "-"
		if t := r.transferSplit; t != nil {
			in, exec, out = fmt.Sprintf("%.3f", t.TransferInMs), fmt.Sprintf("%.3f", t.ExecuteMs), fmt.Sprintf("%.3f", t.TransferOutMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%.1f\t%.0f%%\t%s\t\n",
			r.Workload, be, r.Mode, r.Batch, r.P50ms, r.P99ms, in, exec, out, r.Runs, kern, temps, tb, moved, fuse, search, r.CompileMs,
			gf, frac, r.GBps, 100*r.FractionOfBandwidth, diff)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nmax abs difference: fused vs unfused %.3g", rep.MaxAbsDiffUnfused)
	if len(rep.ReferenceChecks) > 0 {
		fmt.Fprintf(w, "; any hofuse row vs the reference interpreter %.3g\nchecked against the interpreter: %s",
			rep.MaxAbsDiffReference, describeChecks(rep.ReferenceChecks))
	}
	fmt.Fprintln(w, "\nmax diff: a hofuse row against the interpreter on the rows checked; a peer's row against the first back end's fused output, every row.")
	fmt.Fprintln(w, "in, exec, out (PJRT rows): medians of copying the data input to the device, executing, and copying the result back; the parameters stay on the device, copied once before the runs.")
	fmt.Fprintln(w, "native rows: the parameters are fixed (native.Plan.FixInputs), so a product whose right operand is a weight packs it on the first run and keeps it, as a deployed model's would be.")
	fmt.Fprintln(w, "moved: every kernel's inputs and output once; GB/s: the program's inputs and output per second at p50; of bw: of the copy bandwidth.")
	if rep.Rounds > 1 {
		fmt.Fprintf(w, "runs: a batch's rows were timed in %d turns, each row, a peer's too, taking its share of its runs in every turn.\n", rep.Rounds)
	}
	for _, s := range schedules {
		fmt.Fprintln(w, s)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	return nil
}
