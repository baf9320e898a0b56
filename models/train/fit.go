package train

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// FitConfig says what Fit trains and how.
type FitConfig struct {
	// Model is the network: Sizes, DType, Norm, Activation and Eps are
	// used; Batch and Mode are set by Fit (the batch size of each compiled
	// step, Training for the step and Inference for Evaluate and Predict).
	// A zero DType means the training set's.
	Model models.MLPConfig
	// CNN, when set, is the network instead of Model: a models.CNN whose
	// input is the flattened image (Height*Width*Channels features) and
	// whose Classes are the outputs; Batch and Mode are set by Fit, and a
	// zero DType means the training set's, as for Model. Fit takes a copy
	// with its defaults resolved and sets Model to the CNN's input and
	// output sizes; a checkpoint records it with kind "cnn" (CNNSpecOf).
	CNN *models.CNNConfig
	// Optimizer updates the parameters, as optim.NewAdam(0.001). Required.
	Optimizer optim.Optimizer
	// Backend runs the steps and the inference plans; nil means the native
	// back end with its default options.
	Backend lowering.Backend
	// Epochs is the number of passes over the training set, at least 1.
	Epochs int
	// Batch is the number of rows per step, at least 1 (2 with BatchNorm)
	// and at most the training set's rows.
	Batch int
	// Seed draws the initial weights and, with the epoch number, the order
	// of the rows in each epoch (data.BatchOptions).
	Seed uint64
	// Unfused compiles the steps unfused, for comparison (Options.Unfused).
	Unfused bool
	// DropLast leaves out each epoch's last batch when it is smaller than
	// Batch. By default it is trained on: see Fit.
	DropLast bool
	// EvalTrain evaluates the training set too after each epoch, in
	// inference mode, for EpochMetrics.TrainAccuracy (NaN otherwise).
	EvalTrain bool
	// Resume, when not nil, continues the training a checkpoint recorded:
	// Fit starts from its carried values, its step count and its place
	// in the data (epoch and batch), instead of from weights drawn with
	// Seed, and runs Epochs more epochs. With the same Seed, Batch,
	// DropLast and optimizer as the run that saved it, the steps are the
	// ones that run would have taken next, bit for bit.
	Resume *Checkpoint
}

// StepMetrics are what the per-step callback sees.
type StepMetrics struct {
	Step  int     // steps done so far, this one included (1 for the first)
	Epoch int     // the epoch, from 0
	Rows  int     // rows in the step's batch
	Loss  float64 // the batch's mean loss
}

// EpochMetrics are what the per-epoch callback sees.
type EpochMetrics struct {
	Epoch     int     // the epoch, from 0
	Steps     int     // steps done so far
	TrainLoss float64 // the mean of the epoch's step losses, weighted by rows
	// TrainAccuracy is the training set's accuracy after the epoch, in
	// inference mode, with FitConfig.EvalTrain; NaN without.
	TrainAccuracy float64
	// ValLoss and ValAccuracy are Evaluate's on the validation set, NaN
	// when Fit was given none.
	ValLoss, ValAccuracy float64
}

// Callbacks are called by Fit; either may be nil.
type Callbacks struct {
	Step  func(StepMetrics)
	Epoch func(EpochMetrics)
}

// Fitted is a network trained by Fit: its carried values and the plans
// compiled for it, cached by batch size. Evaluate and Predict run the
// network rebuilt in inference mode on the learned values. A Fitted is
// not safe for concurrent use; Close releases its plans.
type Fitted struct {
	cfg      FitConfig
	be       lowering.Backend
	classes  int
	trainers map[int]*Trainer // the training step, by batch size
	current  *Trainer         // the trainer holding the latest values
	infer    map[int]*plan    // the inference model, by row count
	values   map[string]graph.Value
	gen      int // counts the times values was taken: plans bound to an older one bind again
	steps    int
	// loaded are the carried values of a checkpoint not yet moved into a
	// trainer: Fit's starting point on Resume, or the values an inference
	// network loaded with Checkpoint.Fitted runs on.
	loaded map[string]graph.Value
	// epoch is the epoch under way (or next) and done the batches of it
	// already trained on: where a checkpoint resumes.
	epoch, done int
}

// plan is the inference model compiled for one row count.
type plan struct {
	m   *models.Model
	exe lowering.Executable
	// On a back end that keeps parameters where its programs run
	// (lowering.Binder: PJRT), the parameters bound there, copied once per
	// gen of the values, so that Predict sends only its rows.
	bound lowering.Bound
	gen   int
}

// Fit trains cfg.Model on train for cfg.Epochs epochs and returns the
// trained network. Each epoch visits the training rows in the order
// data.BatchOptions{Seed: cfg.Seed, Epoch: e} gives, in batches of
// cfg.Batch rows, and after each epoch evaluates val (when not nil).
//
// The batch extent is part of the step's type, so the step is compiled
// once per batch size and the Trainers are cached: one for cfg.Batch and,
// unless cfg.DropLast, one for each epoch's last, smaller batch. The
// carried values (parameters, optimizer state, running statistics) and
// the step count move from one Trainer to the other when the batch size
// changes, twice per epoch: a copy of every carried value on the host
// (on PJRT, with a copy from and to the device), which costs about as much
// as reading the parameters three times with Adam, small beside an
// epoch's steps. With BatchNorm a last batch of a single row is left out,
// as its batch variance is undefined.
//
// With cfg.Resume, Fit starts where the checkpoint left off (see
// FitConfig.Resume): at its epoch, after the batches of it already
// trained on, with its carried values and step count; the epochs are
// numbered on from the checkpoint's. The checkpoint's tensors must be
// the ones the step carries, of the same types: a mismatch names the
// tensor and both shapes.
//
// ctx is checked before every step: when it is done, Fit returns the
// network as trained so far and an error wrapping ctx.Err() that says
// how many steps were done. The callbacks are called after every step and
// every epoch. On any other error Fit closes what it compiled and returns
// nil.
func Fit(ctx context.Context, cfg FitConfig, train, val *data.Dataset, cb Callbacks) (*Fitted, error) {
	f, err := newFitted(cfg, train, val)
	if err != nil {
		return nil, err
	}
	if err := f.fit(ctx, train, val, cb); err != nil {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return f, err
		}
		f.Close()
		return nil, err
	}
	return f, nil
}

func newFitted(cfg FitConfig, train, val *data.Dataset) (*Fitted, error) {
	if train == nil {
		return nil, errors.New("train: fit: no training set")
	}
	if cfg.Optimizer == nil {
		return nil, errors.New("train: fit: FitConfig.Optimizer is nil, want one such as optim.NewAdam(0.001)")
	}
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("train: fit: FitConfig.Epochs is %d, want at least 1", cfg.Epochs)
	}
	if cfg.Batch < 1 || cfg.Batch > train.Rows() {
		return nil, fmt.Errorf("train: fit: FitConfig.Batch is %d, want a batch in [1, %d], the rows of %s", cfg.Batch, train.Rows(), train.Name())
	}
	if train.Classes() == 0 {
		return nil, fmt.Errorf("train: fit: %s has no class labels; Fit trains classifiers", train.Name())
	}
	if err := cfg.resolve(train.DType()); err != nil {
		return nil, fmt.Errorf("train: fit: FitConfig.CNN: %w", err)
	}
	if cfg.Model.DType == graph.Invalid {
		cfg.Model.DType = train.DType()
	}
	sizes := cfg.Model.Sizes
	if len(sizes) < 2 {
		return nil, fmt.Errorf("train: fit: FitConfig.Model.Sizes is %v, want at least the input and output sizes", sizes)
	}
	for _, ds := range []*data.Dataset{train, val} {
		if ds == nil {
			continue
		}
		if err := checkSet(cfg, ds); err != nil {
			return nil, err
		}
	}
	cfg.Model.Sizes = slices.Clone(sizes)
	be := cfg.Backend
	if be == nil {
		be = native.New(native.Options{})
	}
	f := &Fitted{cfg: cfg, be: be, classes: sizes[len(sizes)-1], trainers: map[int]*Trainer{}, infer: map[int]*plan{}}
	if c := cfg.Resume; c != nil {
		if err := c.matchStep(cfg); err != nil {
			return nil, fmt.Errorf("train: fit: resume: %w", err)
		}
		if c.Epoch < 0 || c.Done < 0 || c.Steps < 0 {
			return nil, fmt.Errorf("train: fit: resume: %s records epoch %d, batch %d, step %d; want counts of at least 0", c.Path, c.Epoch, c.Done, c.Steps)
		}
		f.loaded, f.steps, f.epoch, f.done = copyValues(c.Values), c.Steps, c.Epoch, c.Done
		if n := train.NumBatches(cfg.Batch, cfg.DropLast); f.done >= n {
			// The checkpoint was saved with its last batch trained on
			// but not the epoch's end: start with the next epoch.
			f.epoch, f.done = f.epoch+1, 0
		}
	}
	return f, nil
}

// resolve readies a CNN configuration: with cfg.CNN set, it takes a copy
// with its defaults resolved and DType set (dt when zero), and sets
// cfg.Model to the input and output sizes of the CNN, its DType and Norm,
// which the checks on the data and on Predict's rows read.
func (cfg *FitConfig) resolve(dt graph.DType) error {
	if cfg.CNN == nil {
		return nil
	}
	c := cfg.CNN.WithDefaults()
	if c.DType == graph.Invalid {
		c.DType = dt
	}
	// The model's input and output sizes: build it once at batch 2.
	c.Batch, c.Mode = 2, models.Inference
	m, err := models.CNN(c)
	if err != nil {
		return err
	}
	cfg.CNN = &c
	cfg.Model = models.MLPConfig{Sizes: []int{m.Input.Type.(*graph.ArrayType).Layout[1].Extent, m.OutputType.Layout[1].Extent},
		DType: c.DType, Norm: c.Norm}
	return nil
}

// build builds the network of cfg for a batch of n rows in mode: the CNN
// when cfg.CNN is set, else the MLP.
func (cfg *FitConfig) build(n int, mode models.Mode) (*models.Model, error) {
	if cfg.CNN != nil {
		c := *cfg.CNN
		c.Batch, c.Mode = n, mode
		return models.CNN(c)
	}
	mc := cfg.Model
	mc.Batch, mc.Mode = n, mode
	return models.MLP(mc)
}

// build builds f's network for a batch of n rows in mode.
func (f *Fitted) build(n int, mode models.Mode) (*models.Model, error) { return f.cfg.build(n, mode) }

// checkSet says whether ds fits the model of cfg.
func checkSet(cfg FitConfig, ds *data.Dataset) error {
	sizes := cfg.Model.Sizes
	inField, outField := "Sizes[0]", "the last of Sizes"
	if cfg.CNN != nil {
		inField, outField = "CNN's Height*Width*Channels", "CNN's Classes"
	}
	if ds.Features() != sizes[0] {
		return fmt.Errorf("train: fit: %s has %d features, the model's input takes %d; set %s to %d", ds.Name(), ds.Features(), sizes[0], inField, ds.Features())
	}
	if ds.Classes() > sizes[len(sizes)-1] {
		return fmt.Errorf("train: fit: %s has %d classes, the model outputs %d; set %s to %d", ds.Name(), ds.Classes(), sizes[len(sizes)-1], outField, ds.Classes())
	}
	if ds.DType() != cfg.Model.DType {
		return fmt.Errorf("train: fit: %s holds %v features, the model is %v; convert it with AsType or set Model.DType", ds.Name(), ds.DType(), cfg.Model.DType)
	}
	return nil
}

func (f *Fitted) fit(ctx context.Context, train, val *data.Dataset, cb Callbacks) error {
	cfg := f.cfg
	bn := cfg.Model.Norm == models.NormBatch
	first := f.epoch
	for e := first; e < first+cfg.Epochs; e++ {
		batches, err := train.Batches(cfg.Batch, data.BatchOptions{Seed: cfg.Seed, Epoch: e, DropLast: cfg.DropLast, Reuse: true})
		if err != nil {
			return fmt.Errorf("train: fit: %w", err)
		}
		sum, rows, skip := 0.0, 0, f.done
		f.epoch = e
		for b := range batches {
			if skip > 0 { // trained on before the checkpoint
				skip--
				continue
			}
			if b.Size() == 1 && bn {
				f.done++
				continue
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("train: fit: stopped in epoch %d after %d steps: %w", e, f.steps, err)
			}
			tr, err := f.trainer(b.Size())
			if err != nil {
				return err
			}
			loss, err := tr.Step(b.X, b.Labels)
			if err != nil {
				return fmt.Errorf("train: fit: epoch %d: %w", e, err)
			}
			f.steps++
			f.done++
			f.values = nil // the inference bindings are taken again
			sum += loss * float64(b.Size())
			rows += b.Size()
			if cb.Step != nil {
				cb.Step(StepMetrics{Step: f.steps, Epoch: e, Rows: b.Size(), Loss: loss})
			}
		}
		f.epoch, f.done = e+1, 0
		em := EpochMetrics{Epoch: e, Steps: f.steps, TrainLoss: sum / float64(rows), TrainAccuracy: math.NaN(), ValLoss: math.NaN(), ValAccuracy: math.NaN()}
		if cfg.EvalTrain {
			if _, em.TrainAccuracy, err = f.Evaluate(train); err != nil {
				return err
			}
		}
		if val != nil {
			if em.ValLoss, em.ValAccuracy, err = f.Evaluate(val); err != nil {
				return err
			}
		}
		if cb.Epoch != nil {
			cb.Epoch(em)
		}
	}
	return nil
}

// trainer returns the Trainer for batches of n rows, compiled on first
// use, holding the latest carried values.
func (f *Fitted) trainer(n int) (*Trainer, error) {
	tr := f.trainers[n]
	if tr != nil && tr == f.current {
		return tr, nil
	}
	from := f.loaded
	if f.current != nil {
		v, err := f.current.HostValues()
		if err != nil {
			return nil, fmt.Errorf("train: fit: %w", err)
		}
		from = v
	}
	if tr == nil {
		m, err := f.build(n, models.Training)
		if err != nil {
			return nil, fmt.Errorf("train: fit: batch of %d rows: %w", n, err)
		}
		s, err := m.TrainStep(models.TrainConfig{Optimizer: f.cfg.Optimizer})
		if err != nil {
			return nil, fmt.Errorf("train: fit: %w", err)
		}
		init := from
		if init == nil {
			if init, err = s.InitialValues(m.RandomParams(f.cfg.Seed)); err != nil {
				return nil, fmt.Errorf("train: fit: %w", err)
			}
		}
		// New reads init and copies nothing on the native back end, so
		// the values of the other trainer, which its next step reuses,
		// are copied first.
		if tr, err = New(s, f.be, Options{Unfused: f.cfg.Unfused}, copyValues(init)); err != nil {
			return nil, fmt.Errorf("train: fit: batch of %d rows: %w", n, err)
		}
		tr.t = f.steps
		f.trainers[n] = tr
	} else if err := tr.load(from, f.steps); err != nil {
		return nil, fmt.Errorf("train: fit: batch of %d rows: %w", n, err)
	}
	f.current, f.loaded = tr, nil
	f.values = nil
	return tr, nil
}

// copyValues returns copies of the arrays of v.
func copyValues(v map[string]graph.Value) map[string]graph.Value {
	out := make(map[string]graph.Value, len(v))
	for k, x := range v {
		out[k] = graph.CopyValue(x)
	}
	return out
}

// load replaces the carried values of tr by copies of values (every one
// of them, of the types the step carries) and sets the count of steps
// done, which the optimizer's per-step scalars follow. On the native back
// end the values are copied into the set of the trainer's own arrays that
// the next step does not write; on a LoopBackend they are copied to the
// device.
func (tr *Trainer) load(values map[string]graph.Value, steps int) error {
	set := tr.bufs[steps%2]
	if tr.loop != nil {
		set = tr.bufs[0]
	}
	for _, in := range tr.step.Outputs {
		a, ok := values[in.Name].(*graph.Array)
		if !ok {
			return fmt.Errorf("no array for %s", in.Name)
		}
		if err := copyInto(set[in.Name], a); err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		tr.carried[in.Name] = set[in.Name]
	}
	if tr.loop != nil {
		if err := tr.loop.Bind(tr.carried); err != nil {
			return err
		}
		tr.fresh = true
	}
	tr.t = steps
	return nil
}

// Steps is the number of training steps done.
func (f *Fitted) Steps() int { return f.steps }

// inference returns the inference model compiled for n rows and the
// bindings of its parameters.
func (f *Fitted) inference(n int) (*plan, error) {
	if f.current == nil && f.loaded == nil {
		return nil, errors.New("train: the network has not been trained")
	}
	p := f.infer[n]
	if p == nil {
		m, err := f.build(n, models.Inference)
		if err != nil {
			return nil, fmt.Errorf("train: inference on %d rows: %w", n, err)
		}
		res, err := fusion.Fuse(m.Output, fusion.Options{})
		if err != nil {
			return nil, fmt.Errorf("train: inference on %d rows: %w", n, err)
		}
		exe, err := f.be.Compile(res.Graph)
		if err != nil {
			return nil, fmt.Errorf("train: inference on %d rows: compile on %s: %w", n, f.be.Name(), err)
		}
		p = &plan{m: m, exe: exe}
		f.infer[n] = p
	}
	if f.values == nil {
		carried := f.loaded
		if f.current != nil {
			v, err := f.current.HostValues()
			if err != nil {
				return nil, err
			}
			carried = v
		}
		v, err := inferenceBindings(carried, p.m)
		if err != nil {
			return nil, err
		}
		f.values = v
		f.gen++
	}
	if b, ok := p.exe.(lowering.Binder); ok && p.gen != f.gen {
		params := maps.Clone(f.values)
		delete(params, p.m.Input.Name)
		var err error
		if p.bound == nil {
			p.bound, err = b.Bind(params)
		} else {
			err = p.bound.SetParams(params)
		}
		if err != nil {
			return nil, fmt.Errorf("train: inference on %d rows: binding the parameters on %s: %w", n, f.be.Name(), err)
		}
		p.gen = f.gen
	}
	return p, nil
}

// Predict returns the logits of the rows of x, a dtype[rows, features]
// array of any number of rows: an array of rows×classes, the caller's.
// The inference model is compiled once per row count and cached.
func (f *Fitted) Predict(x *graph.Array) (*graph.Array, error) {
	sizes := f.cfg.Model.Sizes
	if x == nil || x.Rank() != 2 || x.Extents()[1] != sizes[0] || x.DType() != f.cfg.Model.DType || x.Extents()[0] < 1 {
		want := fmt.Sprintf("%v[rows, %d]", f.cfg.Model.DType, sizes[0])
		if x == nil {
			return nil, fmt.Errorf("train: predict: no rows, want an array of type %s", want)
		}
		return nil, fmt.Errorf("train: predict: rows of type %v, want %s", x.Type(), want)
	}
	p, err := f.inference(x.Extents()[0])
	if err != nil {
		return nil, err
	}
	var out graph.Value
	if p.bound != nil {
		out, err = p.bound.Run(map[string]graph.Value{p.m.Input.Name: x})
	} else {
		f.values[p.m.Input.Name] = x
		out, err = p.exe.Run(f.values)
		delete(f.values, p.m.Input.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("train: predict on %d rows: %w", x.Extents()[0], err)
	}
	a, ok := out.(*graph.Array)
	if !ok {
		return nil, fmt.Errorf("train: predict: internal error: the model returned %s, not an array", graph.DescribeValue(out))
	}
	return graph.CopyValue(a).(*graph.Array), nil
}

// Evaluate returns the mean cross-entropy loss and the accuracy of the
// trained network on ds, run in inference mode (BatchNorm with its
// running statistics) in batches of FitConfig.Batch rows, in order.
func (f *Fitted) Evaluate(ds *data.Dataset) (loss, accuracy float64, err error) {
	if err := checkSet(f.cfg, ds); err != nil {
		return 0, 0, err
	}
	if ds.Classes() == 0 {
		return 0, 0, fmt.Errorf("train: evaluate: %s has no class labels", ds.Name())
	}
	batches, err := ds.Batches(min(f.cfg.Batch, ds.Rows()), data.BatchOptions{Ordered: true, Reuse: true})
	if err != nil {
		return 0, 0, fmt.Errorf("train: evaluate: %w", err)
	}
	sum, right := 0.0, 0
	for b := range batches {
		logits, err := f.Predict(b.X)
		if err != nil {
			return 0, 0, err
		}
		l, r := score(logits, b.Labels)
		sum += l
		right += r
	}
	return sum / float64(ds.Rows()), float64(right) / float64(ds.Rows()), nil
}

// score returns the summed cross-entropy of the rows of logits against
// labels and the number of rows whose largest logit is the label's.
func score(logits, labels *graph.Array) (float64, int) {
	n, c := logits.Extents()[0], logits.Extents()[1]
	sum, right := 0.0, 0
	row := make([]float64, c)
	for i := range n {
		best := 0
		for j := range c {
			row[j] = logits.At(i, j)
			if row[j] > row[best] {
				best = j
			}
		}
		lse := 0.0
		for j := range c {
			lse += math.Exp(row[j] - row[best])
		}
		y := int(labels.At(i))
		sum += math.Log(lse) + row[best] - row[y]
		if best == y {
			right++
		}
	}
	return sum, right
}

// Close releases the compiled steps and inference plans.
func (f *Fitted) Close() error {
	var errs []error
	for _, tr := range f.trainers {
		errs = append(errs, tr.Close())
	}
	for _, p := range f.infer {
		if p.bound != nil {
			errs = append(errs, p.bound.Close())
		}
		errs = append(errs, p.exe.Close())
	}
	f.trainers, f.infer, f.current = nil, nil, nil
	return errors.Join(errs...)
}
