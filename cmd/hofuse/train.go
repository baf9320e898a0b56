package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt"
)

func init() {
	register(&command{
		name:    "train",
		usage:   "[--model mlp|cnn] [--data digits|FILE.csv|FILE.npz|mnist:DIR] [--epochs N] [--batch N] [--optimizer sgd|momentum|adam|adamw] [--lr X] [--seed N] [--backend native|pjrt] [--save FILE.safetensors] [--resume FILE] [--plot FILE.png] [--json] [model flags]",
		summary: "train an MLP or CNN classifier on a data set, show its progress, and save it as safetensors",
		run:     runTrain,
	})
}

// splitSeed shuffles the rows before --split cuts them: fixed, so that
// every --seed trains and tests on the same rows.
const splitSeed = 1

// trainEpoch is one epoch of "train --json".
type trainEpoch struct {
	Epoch         int      `json:"epoch"` // from 1
	Steps         int      `json:"steps"` // done so far
	TrainLoss     float64  `json:"train_loss"`
	TrainAccuracy float64  `json:"train_accuracy"`
	ValLoss       *float64 `json:"val_loss"` // null without a validation set
	ValAccuracy   *float64 `json:"val_accuracy"`
	Seconds       float64  `json:"seconds"` // training time so far, evaluations included
}

// trainReport is the JSON document of "train --json".
type trainReport struct {
	Model          string       `json:"model"`
	Data           string       `json:"data"`
	TrainRows      int          `json:"train_rows"`
	ValRows        int          `json:"val_rows"`
	TestRows       int          `json:"test_rows"`
	Optimizer      string       `json:"optimizer"`
	Backend        string       `json:"backend"`
	Batch          int          `json:"batch"`
	Seed           uint64       `json:"seed"`
	History        []trainEpoch `json:"history"`
	TestLoss       float64      `json:"test_loss"`
	TestAccuracy   float64      `json:"test_accuracy"`
	Seconds        float64      `json:"seconds"` // Fit's time: compiling, steps and per-epoch evaluations
	Steps          int          `json:"steps"`   // steps taken by this run
	StepsPerSecond float64      `json:"steps_per_second"`
	Saved          string       `json:"saved,omitempty"`
	Stopped        bool         `json:"stopped,omitempty"` // interrupted before the last epoch
}

// dataFlags are the flags that say where the rows come from, shared by
// train and predict.
type dataFlags struct {
	spec     string
	labelCol int
	scale    float64
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.spec, "data", "digits", "where the rows come from, a `SOURCE`: digits (scikit-learn's 8×8 digits, built in), FILE.csv or FILE.csv.gz (features and an integer label column), FILE.npz (arrays x and y, or another conventional pair), or mnist:DIR (MNIST's IDX files)")
	fs.IntVar(&d.labelCol, "label-column", -1, "the label `column` of a CSV file, counted from 0; negative counts from the end (-1: the last)")
	fs.Float64Var(&d.scale, "scale", 1, "multiply the features of a CSV or .npz file by `factor` (1/255 for bytes)")
}

// dataSet is what --data names: one set of rows, or for mnist:DIR its
// training and test halves.
type dataSet struct {
	name        string
	rows, test  *data.Dataset // test is nil unless the source has its own test half
	description string
}

// load reads --data as features of type dt.
func (d *dataFlags) load(dt graph.DType) (*dataSet, error) {
	spec := d.spec
	var (
		set dataSet
		err error
	)
	switch {
	case spec == "digits":
		set.name, set.description = "digits", "scikit-learn's digits"
		set.rows, err = data.Digits()
	case strings.HasPrefix(spec, "mnist:"):
		dir := strings.TrimPrefix(spec, "mnist:")
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			return nil, usagef("--data %s: %s is not a folder; give the folder that holds MNIST's train-images-idx3-ubyte and its kin", spec, dir)
		}
		set.name, set.description = spec, "MNIST in "+dir
		opts := data.IDXOptions{DType: dt}
		if set.rows, err = data.ReadMNIST(dir, "train", opts); err == nil {
			set.test, err = data.ReadMNIST(dir, "t10k", opts)
		}
	default:
		lower := strings.ToLower(spec)
		isCSV := strings.HasSuffix(lower, ".csv") || strings.HasSuffix(lower, ".csv.gz")
		if !isCSV && !strings.HasSuffix(lower, ".npz") {
			return nil, usagef("--data %s: want digits, a FILE.csv, FILE.csv.gz or FILE.npz, or mnist:DIR", spec)
		}
		st, serr := os.Stat(spec)
		switch {
		case serr != nil && errors.Is(serr, os.ErrNotExist):
			return nil, usagef("--data %s: no such file; check the path, or pass --data digits for the built-in digits", spec)
		case serr != nil:
			return nil, fmt.Errorf("--data %s: %v", spec, serr)
		case st.IsDir():
			return nil, usagef("--data %s: is a folder; for MNIST's IDX files pass --data mnist:%s", spec, spec)
		case st.Size() == 0:
			return nil, fmt.Errorf("--data %s: the file is empty; want rows of features and a label", spec)
		}
		set.name, set.description = filepath.Base(spec), spec
		if isCSV {
			set.rows, err = data.ReadCSV(spec, data.CSVOptions{LabelColumn: d.labelCol, DType: dt, Scale: d.scale})
		} else {
			set.rows, err = data.ReadNPZ(spec, data.NPYOptions{DType: dt, Scale: d.scale})
		}
	}
	if err != nil {
		return nil, err
	}
	for _, p := range []**data.Dataset{&set.rows, &set.test} {
		ds := *p
		if ds == nil {
			continue
		}
		if ds.Classes() == 0 {
			return nil, fmt.Errorf("--data %s: %s holds float targets, not integer class labels; hofuse train trains classifiers", spec, ds.Name())
		}
		if ds.DType() != dt { // digits are f32 whatever --dtype says
			if *p, err = ds.AsType(dt); err != nil {
				return nil, err
			}
		}
	}
	return &set, nil
}

// checkFits says whether the rows of ds fit a model of sizes: the
// features its input takes and a label below its outputs. hint says
// what to change, given the size wanted and which ("first", "last").
func checkFits(ds *data.Dataset, spec string, sizes []int, hint func(size int, which string) string) error {
	name := ""
	if ds.Name() != spec && spec != "digits" {
		name = ds.Name() + ": "
	}
	if ds.Features() != sizes[0] {
		return fmt.Errorf("--data %s: %s%d features a row, the model's input takes %d; %s", spec, name, ds.Features(), sizes[0], hint(ds.Features(), "first"))
	}
	out := sizes[len(sizes)-1]
	for i, y := range ds.Labels() {
		if int(y) >= out {
			return fmt.Errorf("--data %s: %srow %d has label %d, out of range for the model's %d outputs; fix the labels, or %s", spec, name, i+1, y, out, hint(ds.Classes(), "last"))
		}
	}
	return nil
}

// parseSplit reads --split: two fractions (train, test) or three
// (train, validation, test).
func parseSplit(s string) ([]float64, error) {
	var fr []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x > 0 && x < 1) {
			return nil, usagef("--split %s: %q is not a fraction in (0, 1)", s, f)
		}
		fr = append(fr, x)
	}
	sum := 0.0
	for _, x := range fr {
		sum += x
	}
	if len(fr) < 2 || len(fr) > 3 || math.Abs(sum-1) > 1e-9 {
		return nil, usagef("--split %s: want 2 fractions (train, test) or 3 (train, validation, test) that sum to 1, as 0.8,0.2", s)
	}
	return fr, nil
}

// openBackend opens --backend: the native executor or a PJRT plugin (the
// fused step, the values kept on the device).
func openBackend(name, plugin string, rf *runFlags) (lowering.Backend, func(), error) {
	switch name {
	case "native":
		return native.New(rf.nativeOptions()), func() {}, nil
	case "pjrt":
		path, err := pjrt.Locate(plugin)
		if err != nil {
			return nil, nil, err
		}
		client, err := pjrt.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return xla.New(client, xla.Options{}), func() { client.Close() }, nil
	}
	return nil, nil, usagef("--backend: %q is not native or pjrt", name)
}

// optimizerFor makes --optimizer with --lr (0: the optimizer's default,
// for Adam and AdamW a larger one for a CNN).
func optimizerFor(name string, lr float64, cnn bool) (optim.Optimizer, error) {
	def := map[string]float64{"sgd": 0.1, "momentum": 0.01, "adam": 0.001, "adamw": 0.001}
	d, ok := def[name]
	if !ok {
		return nil, usagef("--optimizer: %q is not sgd, momentum, adam or adamw", name)
	}
	if cnn && (name == "adam" || name == "adamw") {
		d = cnnAdamLR
	}
	if lr == 0 {
		lr = d
	}
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, usagef("--lr %v: a learning rate must be positive", lr)
	}
	switch name {
	case "sgd":
		return optim.SGD{LR: lr}, nil
	case "momentum":
		return optim.SGD{LR: lr, Momentum: 0.9}, nil
	case "adam":
		return optim.NewAdam(lr), nil
	}
	return optim.NewAdamW(lr), nil
}

// describeOptimizer writes an optimizer for the report.
func describeOptimizer(o optim.Optimizer) string {
	switch o := o.(type) {
	case optim.SGD:
		if o.Momentum > 0 {
			return fmt.Sprintf("SGD with momentum %g (lr %g)", o.Momentum, o.LR)
		}
		return fmt.Sprintf("SGD (lr %g)", o.LR)
	case optim.Adam:
		if o.Decoupled {
			return fmt.Sprintf("AdamW (lr %g, weight decay %g)", o.LR, o.WeightDecay)
		}
		return fmt.Sprintf("Adam (lr %g)", o.LR)
	}
	return o.Name()
}

// The CNN's defaults in train: Adam's learning rate and the batch. With
// them (and 20 epochs) the CNN reaches 98.66% on the digits' test rows,
// the mean over seeds 1 to 5 (BenchmarkFitCNNDigits).
const (
	cnnAdamLR = 0.003
	cnnBatch  = 32
	mlpBatch  = 64
)

// checkBatchNorm refuses a --batch of one row with BatchNorm, whose batch
// statistics need two; other is the --norm to suggest instead.
func checkBatchNorm(batch int, norm models.Norm, other string) error {
	if batch < 2 && norm == models.NormBatch {
		return usagef("--batch %d: BatchNorm normalises with the batch's statistics, so a batch needs at least 2 rows; pass a larger --batch, or --norm %s", batch, other)
	}
	return nil
}

func runTrain(args []string, stdout, stderr io.Writer) (err error) {
	c := commands["train"]
	fs := newFlags(c, stderr)
	modelName := fs.String("model", "mlp", "the model to train: mlp or cnn, each with its model flags (with --resume: the checkpoint's)")
	var mf mlpFlags
	mf.register(fs, 0)
	mf.sizes = ""
	fs.Lookup("sizes").DefValue = ""
	fs.Lookup("sizes").Usage = "layer `sizes`, input first, comma-separated (default: the data's features, 128, 128, the data's classes)"
	fs.Lookup("batch").Usage = fmt.Sprintf("the `size` of a training step's batch, in rows (an epoch's last batch may be smaller); 0: %d for an MLP, %d for a CNN", mlpBatch, cnnBatch)
	fs.Lookup("mode").Usage = "not for train, which builds the network for training and for inference itself"
	fs.Lookup("classes").DefValue = "0"
	fs.Lookup("classes").Usage = "cnn: output `classes` (default: the data's classes)"
	var df dataFlags
	df.register(fs)
	epochs := fs.Int("epochs", 20, "`passes` over the training rows (with --resume: more passes)")
	optName := fs.String("optimizer", "adam", "sgd, momentum (SGD with momentum 0.9), adam or adamw")
	lr := fs.Float64("lr", 0, "learning `rate` (0: the optimizer's default: sgd 0.1, momentum 0.01, adam and adamw 0.001, PyTorch's default for Adam, or 0.003 for a CNN)")
	seed := fs.Uint64("seed", 1, "`seed` of the initial weights and of every epoch's order of rows")
	split := fs.String("split", "0.8,0.2", "`fractions` of the rows to train and test on (a third, in the middle, is a validation set); the rows are shuffled with a fixed seed first, so every --seed sees the same split. Not with mnist:DIR, which has its own test set")
	backend := fs.String("backend", "native", "where to train: native (in-process Go) or pjrt (a PJRT plugin)")
	plugin := fs.String("plugin", "", "PJRT plugin `path` (default: found by 'hofuse pjrt path')")
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	save := fs.String("save", "", "save the trained network, its optimizer state and where training stood to `FILE.safetensors` (also when interrupted)")
	resume := fs.String("resume", "", "continue the training a checkpoint `FILE` recorded, for --epochs more epochs (its model, optimizer, batch, seed and split)")
	plotPath := fs.String("plot", "", "draw the loss and accuracy curves, training and validation, to the PNG `file`")
	asJSON := fs.Bool("json", false, "print one JSON object: the per-epoch history and the test metrics")
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
	case set["mode"]:
		return usagef("--mode: train builds the network for training and for inference itself; leave --mode out")
	case *resume == "" && !isModelName(*modelName):
		return usagef("--model %s: want %s", *modelName, modelNames)
	case *epochs < 1:
		return usagef("--epochs %d: train at least 1 epoch", *epochs)
	case *backend == "native" && set["plugin"]:
		return usagef("--plugin: --backend native loads no plugin; pass --backend pjrt")
	case *backend == "pjrt" && set["threads"]:
		return usagef("--threads: sets the native executor's goroutines, which --backend pjrt does not use")
	case *backend != "native" && *backend != "pjrt":
		return usagef("--backend: %q is not native or pjrt", *backend)
	case strings.HasPrefix(df.spec, "mnist:") && set["split"]:
		return usagef("--split: mnist:DIR has its own test set (t10k); leave --split out")
	}
	if *resume == "" {
		if err := mf.checkKind(*modelName, set); err != nil {
			return err
		}
	}
	if err := rf.check(); err != nil {
		return err
	}
	fractions, err := parseSplit(*split)
	if err != nil {
		return err
	}
	// Outputs first: a path that cannot be written costs no training.
	if *save != "" {
		if err := checkOutput("save", *save, ".safetensors"); err != nil {
			return err
		}
	}
	if *plotPath != "" {
		if err := checkOutput("plot", *plotPath, ".png"); err != nil {
			return err
		}
	}

	// The model and optimizer, from the flags or the checkpoint.
	var (
		ck  *train.Checkpoint
		cfg train.FitConfig
	)
	if *resume != "" {
		if ck, err = train.LoadCheckpoint(*resume); err != nil {
			return fmt.Errorf("--resume %s: %w", *resume, err)
		}
		// The model is the checkpoint's: flags of the other kind, or
		// another --model, are refused by name, then every model flag.
		cnn := ck.Model.IsCNN()
		kind, other := "mlp", cnnOnlyFlags
		if cnn {
			kind, other = "cnn", mlpOnlyFlags
		}
		if set["model"] && *modelName != kind {
			return usagef("--model %s: %s holds %s; --resume takes the model from the checkpoint, leave --model out", *modelName, *resume, modelWords(cnn))
		}
		if err := rejectFlags(set, fmt.Sprintf("describes %s, and %s holds %s; --resume takes the model from the checkpoint, leave it out", modelWords(!cnn), *resume, modelWords(cnn)), other...); err != nil {
			return err
		}
		if err := rejectFlags(set, "comes from the checkpoint --resume reads; leave it out", append([]string{"sizes", "dtype", "norm", "activation", "batch", "optimizer", "lr", "seed"}, cnnOnlyFlags...)...); err != nil {
			return err
		}
		mf.kind = kind
		if cfg, err = ck.FitConfig(*epochs, nil); err != nil {
			return fmt.Errorf("--resume %s: %w", *resume, err)
		}
		// The split the run trained on, unless --split says otherwise:
		// the same rows in the same order continue the run exactly.
		if rec, ok := ck.Extra["hofuse.split"]; ok && !set["split"] {
			*split = rec
			if fractions, err = parseSplit(rec); err != nil {
				return fmt.Errorf("--resume %s: the split it records: %w", *resume, err)
			}
		}
	} else if mf.kind == "cnn" {
		if !set["batch"] {
			mf.batch = cnnBatch
		}
		cc, err := mf.cnnConfig()
		if err != nil {
			return err
		}
		if err := checkBatchNorm(mf.batch, cc.Norm, "none"); err != nil {
			return err
		}
		opt, err := optimizerFor(*optName, *lr, true)
		if err != nil {
			return err
		}
		cc.Batch, cc.Mode = 0, models.Inference
		// Model holds the CNN's input and output sizes for the checks
		// below (Fit sets it so too); Classes comes from the data
		// unless --classes says.
		cfg = train.FitConfig{CNN: &cc, Model: models.MLPConfig{Sizes: []int{cc.Height * cc.Width * cc.Channels, cc.Classes}, DType: cc.DType, Norm: cc.Norm},
			Optimizer: opt, Epochs: *epochs, Batch: mf.batch, Seed: *seed}
	} else {
		if !set["batch"] {
			mf.batch = mlpBatch
		}
		sizesGiven := mf.sizes != ""
		if !sizesGiven {
			mf.sizes = "1,1" // the data's, below; the other flags are checked now
		}
		mc, err := mf.config()
		if err != nil {
			return err
		}
		if !sizesGiven {
			mc.Sizes, mf.sizes = nil, ""
		}
		if err := checkBatchNorm(mf.batch, mc.Norm, "layernorm"); err != nil {
			return err
		}
		opt, err := optimizerFor(*optName, *lr, false)
		if err != nil {
			return err
		}
		mc.Batch, mc.Mode = 0, models.Inference
		cfg = train.FitConfig{Model: mc, Optimizer: opt, Epochs: *epochs, Batch: mf.batch, Seed: *seed}
	}

	// The data, checked against the model before any step.
	ds, err := df.load(cfg.Model.DType)
	if err != nil {
		return err
	}
	classes := ds.rows.Classes()
	if ds.test != nil {
		classes = max(classes, ds.test.Classes())
	}
	switch {
	case cfg.Model.Sizes == nil:
		cfg.Model.Sizes = []int{ds.rows.Features(), 128, 128, classes}
	case ck == nil && cfg.CNN != nil && !set["classes"]:
		cfg.CNN.Classes, mf.classes = classes, classes
		cfg.Model.Sizes[1] = classes
	}
	hint := func(size int, which string) string {
		switch {
		case ck != nil:
			return "the checkpoint's model (" + describeModel(cfg) + ") was trained on other data"
		case cfg.CNN != nil && which == "first":
			return imageHint(mf.image, size)
		case cfg.CNN != nil:
			return fmt.Sprintf("pass --classes %d", size)
		}
		return fmt.Sprintf("pass --sizes with %d as its %s size", size, which)
	}
	for _, s := range []*data.Dataset{ds.rows, ds.test} {
		if s == nil {
			continue
		}
		if err := checkFits(s, df.spec, cfg.Model.Sizes, hint); err != nil {
			return err
		}
	}
	trainSet, valSet, testSet := ds.rows, (*data.Dataset)(nil), ds.test
	if testSet == nil {
		parts, err := ds.rows.Split(splitSeed, fractions...)
		if err != nil {
			return fmt.Errorf("--split %s: %w", *split, err)
		}
		trainSet, testSet = parts[0], parts[len(parts)-1]
		if len(parts) == 3 {
			valSet = parts[1]
		}
	}
	if cfg.Batch > trainSet.Rows() {
		what := fmt.Sprintf("the training set has %d rows", trainSet.Rows())
		if ck != nil {
			return fmt.Errorf("--resume %s: the checkpoint's batch of %d rows is larger than %s", *resume, cfg.Batch, what)
		}
		return usagef("--batch %d: %s; pass --batch %d or less", cfg.Batch, what, trainSet.Rows())
	}
	if ck == nil {
		// The configuration as models.MLP or models.CNN sees it: sizes
		// past a cap or the memory limit are said now.
		if mf.kind != "cnn" {
			mf.sizes = joinInts(cfg.Model.Sizes, ",")
		}
		mf.batch = cfg.Batch
		mf.mode = "training"
		if _, err := mf.build(); err != nil {
			return err
		}
	}

	be, closeBackend, err := openBackend(*backend, *plugin, &rf)
	if err != nil {
		return err
	}
	defer closeBackend()
	cfg.Backend = be
	cfg.EvalTrain = true

	val := valSet
	if val == nil {
		val = testSet
	}
	rep := trainReport{
		Model: describeModel(cfg),
		Data:  ds.description, TrainRows: trainSet.Rows(), TestRows: testSet.Rows(),
		Optimizer: describeOptimizer(cfg.Optimizer), Backend: be.Name(), Batch: cfg.Batch, Seed: cfg.Seed,
		History: []trainEpoch{},
	}
	if valSet != nil {
		rep.ValRows = valSet.Rows()
	}
	text := !*asJSON
	if text {
		from := ""
		if ck != nil {
			from = fmt.Sprintf(", resuming %s at epoch %d (step %d)", *resume, ck.Epoch+1, ck.Steps)
		}
		valWhat := "the test rows"
		if valSet != nil {
			valWhat = fmt.Sprintf("%d rows", valSet.Rows())
		}
		fmt.Fprintf(stdout, "training %s on %s: %d training rows, validation on %s, %d test rows\n%s, batch %d, seed %d, %s%s\n",
			rep.Model, rep.Data, rep.TrainRows, valWhat, rep.TestRows, rep.Optimizer, rep.Batch, rep.Seed, rep.Backend, from)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog := newTrainProgress(stderr, text && isTerminal(stderr) && isTerminal(stdout), trainSet.NumBatches(cfg.Batch, cfg.DropLast), *epochs, ck)
	startSteps := 0
	if ck != nil {
		startSteps = ck.Steps
	}
	prevSteps, prevSeconds := startSteps, 0.0
	start := time.Now()
	net, err := train.Fit(ctx, cfg, trainSet, val, train.Callbacks{
		Step: prog.step,
		Epoch: func(m train.EpochMetrics) {
			prog.finish()
			e := trainEpoch{Epoch: m.Epoch + 1, Steps: m.Steps, TrainLoss: m.TrainLoss, TrainAccuracy: m.TrainAccuracy, Seconds: time.Since(start).Seconds()}
			if !math.IsNaN(m.ValLoss) {
				e.ValLoss, e.ValAccuracy = &m.ValLoss, &m.ValAccuracy
			}
			rep.History = append(rep.History, e)
			if text {
				// The epoch's own throughput: the first one's includes
				// compiling the step.
				fmt.Fprintf(stdout, "epoch %3d  loss %.4f  accuracy %6.2f%%  val loss %.4f  val accuracy %6.2f%%  %6.0f steps/s  %5.1f s\n",
					e.Epoch, e.TrainLoss, 100*e.TrainAccuracy, m.ValLoss, 100*m.ValAccuracy, float64(m.Steps-prevSteps)/(e.Seconds-prevSeconds), e.Seconds)
			}
			prevSteps, prevSeconds = m.Steps, e.Seconds
		},
	})
	prog.finish()
	seconds := time.Since(start).Seconds()
	if err != nil && (net == nil || !errors.Is(err, context.Canceled)) {
		return err
	}
	defer net.Close()
	rep.Stopped = err != nil
	rep.Seconds = seconds
	rep.Steps = net.Steps() - startSteps
	rep.StepsPerSecond = float64(rep.Steps) / seconds
	if rep.Stopped && text {
		fmt.Fprintf(stdout, "interrupted after %d steps\n", rep.Steps)
	}
	if *save != "" {
		extra := map[string]string{"hofuse.data": df.spec, "hofuse.split": *split}
		if err := net.Save(*save, extra); err != nil {
			return err
		}
		rep.Saved = *save
	}
	if rep.TestLoss, rep.TestAccuracy, err = net.Evaluate(testSet); err != nil {
		return err
	}
	if *plotPath != "" {
		if err := saveTrainPlot(*plotPath, rep); err != nil {
			return fmt.Errorf("--plot %s: %w", *plotPath, err)
		}
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "test accuracy %.2f%%, test loss %.4f (%d rows); %d steps in %.1f s, %.0f steps/s\n",
		100*rep.TestAccuracy, rep.TestLoss, rep.TestRows, rep.Steps, rep.Seconds, rep.StepsPerSecond)
	if rep.Saved != "" {
		fmt.Fprintf(stdout, "saved %s\n  predict:  hofuse predict --model %s --data %s\n  continue: hofuse train --resume %s --data %s\n",
			rep.Saved, rep.Saved, df.spec, rep.Saved, df.spec)
	}
	if *plotPath != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotPath)
	}
	return nil
}

// trainProgress draws a progress bar per epoch on a terminal: steps,
// loss, throughput and the time left.
type trainProgress struct {
	w      io.Writer
	on     bool
	steps  int // steps an epoch
	epochs int
	first  int // the first epoch's number, from 0
	bar    *progressbar.ProgressBar
	last   time.Time
}

func newTrainProgress(w io.Writer, on bool, steps, epochs int, ck *train.Checkpoint) *trainProgress {
	p := &trainProgress{w: w, on: on, steps: steps, epochs: epochs}
	if ck != nil {
		p.first = ck.Epoch
	}
	return p
}

func (p *trainProgress) step(m train.StepMetrics) {
	if !p.on {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(p.steps,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(fmt.Sprintf("epoch %d/%d", m.Epoch+1, p.first+p.epochs)),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("steps"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	if time.Since(p.last) > 100*time.Millisecond {
		p.bar.Describe(fmt.Sprintf("epoch %d/%d loss %.4f", m.Epoch+1, p.first+p.epochs, m.Loss))
		p.last = time.Now()
	}
	p.bar.Add(1)
}

func (p *trainProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
