package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/checkpoint"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// The metadata keys of a training checkpoint. Each value is a JSON
// object (see ModelSpec, OptimizerSpec and Progress).
const (
	MetaModel     = "hofuse.model"
	MetaOptimizer = "hofuse.optimizer"
	MetaProgress  = "hofuse.progress"
)

// The model kinds a ModelSpec records.
const (
	KindMLP = "mlp" // models.MLP; a file written before CNNs records no kind
	KindCNN = "cnn" // models.CNN
)

// ModelSpec is the network a checkpoint records, in the words the CLI's
// flags use: an MLP (Kind "mlp", or "" in files written before CNNs) by
// its Sizes, or a CNN (Kind "cnn") by its image, blocks and dense layers.
// DType, Norm, Activation and Eps are both kinds'; the fields of the
// other kind are left out.
type ModelSpec struct {
	Kind       string  `json:"kind,omitempty"`
	Sizes      []int   `json:"sizes,omitempty"`      // MLP: input first
	DType      string  `json:"dtype"`                // "f32" or "f64"
	Norm       string  `json:"norm"`                 // "none", "batchnorm" or "layernorm" (a CNN: none or batchnorm)
	Activation string  `json:"activation,omitempty"` // "" means ReLU
	Eps        float64 `json:"eps,omitempty"`        // 0: the layer's default

	// The CNN's fields (models.CNNConfig), every one recorded as built.
	Height   int   `json:"height,omitempty"`
	Width    int   `json:"width,omitempty"`
	Channels int   `json:"channels,omitempty"`
	Conv     []int `json:"conv,omitempty"`   // each block's output channels
	Kernel   int   `json:"kernel,omitempty"` // Kernel × Kernel windows
	Valid    bool  `json:"valid,omitempty"`  // "valid" convolutions, not "same"
	Pool     int   `json:"pool,omitempty"`   // Pool × Pool max pooling at stride Pool; 1: none
	Hidden   []int `json:"hidden,omitempty"` // dense layers after the blocks
	Classes  int   `json:"classes,omitempty"`
}

// OptimizerSpec is the optimizer a checkpoint records: "sgd" (with
// Momentum, Nesterov), "adam" or "adamw" (with Beta1, Beta2, Eps), and
// each with LR and WeightDecay.
type OptimizerSpec struct {
	Name        string  `json:"name"`
	LR          float64 `json:"lr"`
	Momentum    float64 `json:"momentum,omitempty"`
	Nesterov    bool    `json:"nesterov,omitempty"`
	Beta1       float64 `json:"beta1,omitempty"`
	Beta2       float64 `json:"beta2,omitempty"`
	Eps         float64 `json:"eps,omitempty"`
	WeightDecay float64 `json:"weight_decay,omitempty"`
}

// Progress is where a training run stood when it was saved: enough to
// take the next step it would have taken.
type Progress struct {
	Steps    int    `json:"steps"`     // steps done, which Adam's bias correction follows
	Epoch    int    `json:"epoch"`     // the epoch under way, from 0 (the next one at an epoch's end)
	Done     int    `json:"done"`      // batches of that epoch already trained on
	Seed     uint64 `json:"seed"`      // FitConfig.Seed: the initial weights and every epoch's order
	Batch    int    `json:"batch"`     // FitConfig.Batch
	DropLast bool   `json:"drop_last"` // FitConfig.DropLast
}

// Checkpoint is a trained network as a safetensors file records it: its
// configuration and carried values (parameters, optimizer state,
// BatchNorm running statistics) and where its training stood.
type Checkpoint struct {
	Path      string        // the file, for messages
	Model     ModelSpec     // the network
	Optimizer OptimizerSpec // the optimizer (its Name is "" in a file of weights only)
	Progress                // where training stood
	// Values are the tensors, by the names models.Step gives the
	// values it carries: "dense1.W", "dense1.W.m", "bn1.mean", ….
	Values map[string]graph.Value
	// Extra is the file's other metadata, kept for the caller.
	Extra map[string]string
}

// SpecOf records an MLP configuration.
func SpecOf(cfg models.MLPConfig) ModelSpec {
	s := ModelSpec{Kind: KindMLP, Sizes: slices.Clone(cfg.Sizes), DType: cfg.DType.String(), Norm: cfg.Norm.String(), Eps: cfg.Eps}
	if cfg.Activation != layers.ActDefault {
		s.Activation = cfg.Activation.String()
	}
	return s
}

// CNNSpecOf records a CNN configuration, its defaults resolved (Name,
// Batch, Mode and MaxMemory are not recorded).
func CNNSpecOf(cfg models.CNNConfig) ModelSpec {
	cfg = cfg.WithDefaults()
	s := ModelSpec{Kind: KindCNN, DType: cfg.DType.String(), Norm: cfg.Norm.String(), Eps: cfg.Eps,
		Height: cfg.Height, Width: cfg.Width, Channels: cfg.Channels, Conv: slices.Clone(cfg.Conv), Kernel: cfg.Kernel,
		Valid: cfg.Valid, Pool: cfg.Pool, Hidden: slices.Clone(cfg.Hidden), Classes: cfg.Classes}
	if cfg.Activation != layers.ActDefault {
		s.Activation = cfg.Activation.String()
	}
	return s
}

// IsCNN reports whether s records a CNN.
func (s ModelSpec) IsCNN() bool { return s.Kind == KindCNN }

// common reads the fields both kinds share into dtype, norm, activation.
func (s ModelSpec) common() (graph.DType, models.Norm, layers.Activation, error) {
	dt, err := graph.ParseDType(s.DType)
	if err != nil || !dt.IsFloat() {
		return dt, 0, 0, fmt.Errorf("dtype %q, want f32 or f64", s.DType)
	}
	norm, err := models.ParseNorm(s.Norm)
	if err != nil {
		return dt, 0, 0, err
	}
	act := layers.ActDefault
	if s.Activation != "" {
		if act, err = layers.ParseActivation(s.Activation); err != nil {
			return dt, 0, 0, err
		}
	}
	return dt, norm, act, nil
}

// Config returns the MLP configuration s records (Batch and Mode unset);
// a CNN's spec is an error (see CNNConfig).
func (s ModelSpec) Config() (models.MLPConfig, error) {
	var cfg models.MLPConfig
	switch {
	case s.Kind == KindCNN:
		return cfg, errors.New("kind \"cnn\": the model is a CNN, not an MLP")
	case s.Kind != "" && s.Kind != KindMLP:
		return cfg, fmt.Errorf("kind %q, want %q or %q", s.Kind, KindMLP, KindCNN)
	case len(s.Sizes) < 2:
		return cfg, fmt.Errorf("sizes %v, want at least the input and output sizes", s.Sizes)
	}
	if f := s.cnnFieldSet(); f != "" {
		return cfg, fmt.Errorf("%s is set, which describes a CNN, and the kind is %q; want kind \"cnn\" or no %s", f, s.kindName(), f)
	}
	cfg.Sizes = slices.Clone(s.Sizes)
	var err error
	if cfg.DType, cfg.Norm, cfg.Activation, err = s.common(); err != nil {
		return cfg, err
	}
	cfg.Eps = s.Eps
	return cfg, nil
}

// CNNConfig returns the CNN configuration s records (Batch and Mode
// unset); an MLP's spec is an error (see Config).
func (s ModelSpec) CNNConfig() (models.CNNConfig, error) {
	var cfg models.CNNConfig
	if s.Kind != KindCNN {
		return cfg, fmt.Errorf("kind %q: the model is not a CNN", s.kindName())
	}
	if s.Sizes != nil {
		return cfg, fmt.Errorf("sizes %v describe an MLP, and the kind is \"cnn\"; want no sizes", s.Sizes)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"height", s.Height}, {"width", s.Width}, {"channels", s.Channels}, {"kernel", s.Kernel}, {"pool", s.Pool}, {"classes", s.Classes}} {
		// A zero would take the builder's default: a file records every size.
		if f.v < 1 {
			return cfg, fmt.Errorf("%s %d, want at least 1", f.name, f.v)
		}
	}
	if len(s.Conv) == 0 {
		return cfg, errors.New("conv [], want each convolution block's output channels")
	}
	cfg = models.CNNConfig{Height: s.Height, Width: s.Width, Channels: s.Channels, Conv: slices.Clone(s.Conv), Kernel: s.Kernel,
		Valid: s.Valid, Pool: s.Pool, Hidden: slices.Clone(s.Hidden), Classes: s.Classes, Eps: s.Eps}
	var err error
	if cfg.DType, cfg.Norm, cfg.Activation, err = s.common(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// kindName is the kind s records, "mlp" when it records none.
func (s ModelSpec) kindName() string {
	if s.Kind == "" {
		return KindMLP
	}
	return s.Kind
}

// cnnFieldSet names a CNN field s sets, or returns "".
func (s ModelSpec) cnnFieldSet() string {
	switch {
	case s.Height != 0:
		return "height"
	case s.Width != 0:
		return "width"
	case s.Channels != 0:
		return "channels"
	case s.Conv != nil:
		return "conv"
	case s.Kernel != 0:
		return "kernel"
	case s.Valid:
		return "valid"
	case s.Pool != 0:
		return "pool"
	case s.Hidden != nil:
		return "hidden"
	case s.Classes != 0:
		return "classes"
	}
	return ""
}

// Network returns the FitConfig fields of the network s records: Model
// for an MLP; for a CNN, CNN and Model with the CNN's input and output
// sizes, DType and Norm (as Fit sets it), which the checks of rows read.
func (s ModelSpec) Network() (FitConfig, error) {
	if s.IsCNN() {
		cc, err := s.CNNConfig()
		if err != nil {
			return FitConfig{}, err
		}
		cfg := FitConfig{CNN: &cc}
		if err := cfg.resolve(cc.DType); err != nil {
			return FitConfig{}, err
		}
		return cfg, nil
	}
	mc, err := s.Config()
	if err != nil {
		return FitConfig{}, err
	}
	return FitConfig{Model: mc}, nil
}

// OptimizerSpecOf records an optimizer: optim.SGD or optim.Adam.
func OptimizerSpecOf(o optim.Optimizer) (OptimizerSpec, error) {
	switch o := o.(type) {
	case optim.SGD:
		return OptimizerSpec{Name: "sgd", LR: o.LR, Momentum: o.Momentum, Nesterov: o.Nesterov, WeightDecay: o.WeightDecay}, nil
	case optim.Adam:
		return OptimizerSpec{Name: o.Name(), LR: o.LR, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: o.WeightDecay}, nil
	case nil:
		return OptimizerSpec{}, errors.New("no optimizer")
	}
	return OptimizerSpec{}, fmt.Errorf("optimizer %s (%T) cannot be recorded; a checkpoint records optim.SGD and optim.Adam", o.Name(), o)
}

// Optimizer returns the optimizer s records, checked.
func (s OptimizerSpec) Optimizer() (optim.Optimizer, error) {
	var o optim.Optimizer
	switch s.Name {
	case "sgd":
		o = optim.SGD{LR: s.LR, Momentum: s.Momentum, Nesterov: s.Nesterov, WeightDecay: s.WeightDecay}
	case "adam", "adamw":
		o = optim.Adam{LR: s.LR, Beta1: s.Beta1, Beta2: s.Beta2, Eps: s.Eps, WeightDecay: s.WeightDecay, Decoupled: s.Name == "adamw"}
	case "":
		return nil, errors.New("no optimizer recorded (a file of weights only)")
	default:
		return nil, fmt.Errorf("optimizer %q, want sgd, adam or adamw", s.Name)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// Checkpoint returns what f has learned and where its training stands,
// ready to Save: the carried values are copied.
func (f *Fitted) Checkpoint() (*Checkpoint, error) {
	carried := f.loaded
	if f.current != nil {
		v, err := f.current.HostValues()
		if err != nil {
			return nil, err
		}
		carried = v
	}
	if carried == nil {
		return nil, errors.New("train: checkpoint: the network has not been trained")
	}
	spec := SpecOf(f.cfg.Model)
	if f.cfg.CNN != nil {
		spec = CNNSpecOf(*f.cfg.CNN)
	}
	ospec, err := OptimizerSpecOf(f.cfg.Optimizer)
	if err != nil {
		return nil, fmt.Errorf("train: checkpoint: %w", err)
	}
	return &Checkpoint{
		Model:     spec,
		Optimizer: ospec,
		Progress:  Progress{Steps: f.steps, Epoch: f.epoch, Done: f.done, Seed: f.cfg.Seed, Batch: f.cfg.Batch, DropLast: f.cfg.DropLast},
		Values:    copyValues(carried),
	}, nil
}

// Save writes f as a checkpoint to path (see Checkpoint.Save).
func (f *Fitted) Save(path string, extra map[string]string) error {
	c, err := f.Checkpoint()
	if err != nil {
		return err
	}
	c.Extra = extra
	return c.Save(path)
}

// Save writes c to path as a safetensors file, atomically: its values
// as tensors, its model, optimizer and progress as JSON strings in the
// metadata under MetaModel, MetaOptimizer and MetaProgress, beside
// c.Extra.
func (c *Checkpoint) Save(path string) error {
	tensors := make(map[string]*graph.Array, len(c.Values))
	for n, v := range c.Values {
		a, ok := v.(*graph.Array)
		if !ok {
			return fmt.Errorf("train: checkpoint: %s is %s, not an array", n, graph.DescribeValue(v))
		}
		tensors[n] = a
	}
	meta := make(map[string]string, len(c.Extra)+3)
	for k, v := range c.Extra {
		meta[k] = v
	}
	for k, v := range map[string]any{MetaModel: c.Model, MetaOptimizer: c.Optimizer, MetaProgress: c.Progress} {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("train: checkpoint: %s: %w", k, err)
		}
		meta[k] = string(b)
	}
	return checkpoint.Save(path, tensors, meta)
}

// LoadCheckpoint reads a checkpoint that Save wrote, or any safetensors
// file with the same names and the metadata MetaModel (MetaOptimizer and
// MetaProgress may be left out by a file of weights only, such as one
// exported from PyTorch). The tensors must be the parameters and running
// statistics of the model it records, and the optimizer's state when it
// records one: a missing tensor, one the model does not have, or one of
// another shape is an error naming the tensor and both shapes.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	f, err := checkpoint.Load(path)
	if err != nil {
		return nil, err
	}
	raw, ok := f.Metadata[MetaModel]
	if !ok {
		return nil, fmt.Errorf("train: %s: no %q in the metadata, so the model is unknown; load it with LoadWeights and the model's configuration", path, MetaModel)
	}
	c := &Checkpoint{Path: path, Extra: map[string]string{}}
	if err := strictJSON(raw, &c.Model); err != nil {
		return nil, fmt.Errorf("train: %s: metadata %s: %v", path, MetaModel, err)
	}
	if raw, ok := f.Metadata[MetaOptimizer]; ok {
		if err := strictJSON(raw, &c.Optimizer); err != nil {
			return nil, fmt.Errorf("train: %s: metadata %s: %v", path, MetaOptimizer, err)
		}
	}
	if raw, ok := f.Metadata[MetaProgress]; ok {
		if err := strictJSON(raw, &c.Progress); err != nil {
			return nil, fmt.Errorf("train: %s: metadata %s: %v", path, MetaProgress, err)
		}
	}
	for k, v := range f.Metadata {
		if k != MetaModel && k != MetaOptimizer && k != MetaProgress {
			c.Extra[k] = v
		}
	}
	cfg, err := c.Model.Network()
	if err != nil {
		return nil, fmt.Errorf("train: %s: metadata %s: %v", path, MetaModel, err)
	}
	var opt optim.Optimizer
	if c.Optimizer.Name != "" {
		if opt, err = c.Optimizer.Optimizer(); err != nil {
			return nil, fmt.Errorf("train: %s: metadata %s: %v", path, MetaOptimizer, err)
		}
	}
	return c, c.fill(f, cfg, opt)
}

// LoadWeights reads the parameters and running statistics of the model
// spec records (SpecOf an MLP's configuration, CNNSpecOf a CNN's) from
// any safetensors file that holds them by hofuse's names ("dense1.W" of
// [in, out], "dense1.b", "bn1.scale", "bn1.shift", "bn1.mean",
// "bn1.var", a CNN's "conv1.K" of [kernel, kernel, in, out], …), whatever
// its metadata: a file of weights for inference. Every tensor must be
// one the model reads, of its type; a mismatch names the tensor and both
// shapes.
func LoadWeights(path string, spec ModelSpec) (*Checkpoint, error) {
	cfg, err := spec.Network()
	if err != nil {
		return nil, fmt.Errorf("train: %s: the model: %w", path, err)
	}
	f, err := checkpoint.Load(path)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Path: path, Model: spec, Extra: f.Metadata}
	return c, c.fill(f, cfg, nil)
}

// fill checks the tensors of f against the carried values of the network
// of cfg (its Model or CNN) trained with opt (with opt nil, the inference
// model's parameters and running statistics) and takes them as c.Values.
func (c *Checkpoint) fill(f *checkpoint.Checkpoint, cfg FitConfig, opt optim.Optimizer) error {
	want, err := carriedTypes(cfg, opt)
	if err != nil {
		return fmt.Errorf("train: %s: %w", c.Path, err)
	}
	if err := f.Match(want); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	c.Values = make(map[string]graph.Value, len(f.Tensors))
	for n, a := range f.Tensors {
		c.Values[n] = a
	}
	return nil
}

// carriedTypes returns the types of the values the training step of the
// network of cfg (its Model or CNN) with opt carries; with opt nil, those
// of the inputs the inference model reads besides x.
func carriedTypes(cfg FitConfig, opt optim.Optimizer) (map[string]*graph.ArrayType, error) {
	var inputs []*graph.Input
	if opt == nil {
		m, err := cfg.build(2, models.Inference)
		if err != nil {
			return nil, err
		}
		inputs = m.Params
	} else {
		m, err := cfg.build(2, models.Training)
		if err != nil {
			return nil, err
		}
		s, err := m.TrainStep(models.TrainConfig{Optimizer: opt})
		if err != nil {
			return nil, err
		}
		inputs = s.Outputs
	}
	want := make(map[string]*graph.ArrayType, len(inputs))
	for _, in := range inputs {
		want[in.Name] = in.Type.(*graph.ArrayType)
	}
	return want, nil
}

// matchStep checks that c holds the values the training step of cfg
// carries, of their types.
func (c *Checkpoint) matchStep(cfg FitConfig) error {
	if c.Model.IsCNN() != (cfg.CNN != nil) {
		return fmt.Errorf("%s holds %s, FitConfig trains %s; resume with the checkpoint's model (Checkpoint.FitConfig)", c.Path, kindWords(c.Model.IsCNN()), kindWords(cfg.CNN != nil))
	}
	want, err := carriedTypes(cfg, cfg.Optimizer)
	if err != nil {
		return err
	}
	tensors := make(map[string]*graph.Array, len(c.Values))
	for n, v := range c.Values {
		a, ok := v.(*graph.Array)
		if !ok {
			return fmt.Errorf("%s: %s is %s, not an array", c.Path, n, graph.DescribeValue(v))
		}
		tensors[n] = a
	}
	if c.Optimizer.Name != "" && c.Optimizer.Name != cfg.Optimizer.Name() {
		return fmt.Errorf("%s was trained with %s, FitConfig.Optimizer is %s; the optimizer's state does not carry over", c.Path, c.Optimizer.Name, cfg.Optimizer.Name())
	}
	return (&checkpoint.Checkpoint{Name: c.Path, Tensors: tensors}).Match(want)
}

// kindWords names a model kind for messages.
func kindWords(cnn bool) string {
	if cnn {
		return "a CNN"
	}
	return "an MLP"
}

// FitConfig returns the configuration that continues the training c
// records for epochs more epochs on be (nil: native): its model (Model,
// or CNN for a CNN), optimizer, batch size, seed and DropLast, and Resume
// set to c.
func (c *Checkpoint) FitConfig(epochs int, be lowering.Backend) (FitConfig, error) {
	cfg, err := c.Model.Network()
	if err != nil {
		return FitConfig{}, fmt.Errorf("train: %s: %w", c.Path, err)
	}
	opt, err := c.Optimizer.Optimizer()
	if err != nil {
		return FitConfig{}, fmt.Errorf("train: %s: cannot resume: %w", c.Path, err)
	}
	if c.Batch < 1 {
		return FitConfig{}, fmt.Errorf("train: %s: cannot resume: no batch size recorded", c.Path)
	}
	cfg.Optimizer, cfg.Backend, cfg.Epochs, cfg.Batch, cfg.Seed, cfg.DropLast, cfg.Resume = opt, be, epochs, c.Batch, c.Seed, c.DropLast, c
	return cfg, nil
}

// Fitted returns the network c holds, for Evaluate and Predict on be
// (nil: native): it reads the parameters and running statistics and
// trains nothing. Evaluate runs in batches of the recorded batch size
// (256 when none is recorded).
func (c *Checkpoint) Fitted(be lowering.Backend) (*Fitted, error) {
	cfg, err := c.Model.Network()
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", c.Path, err)
	}
	if be == nil {
		be = native.New(native.Options{})
	}
	batch := c.Batch
	if batch < 1 {
		batch = 256
	}
	cfg.Backend, cfg.Batch, cfg.Seed, cfg.DropLast = be, batch, c.Seed, c.DropLast
	if c.Optimizer.Name != "" {
		if cfg.Optimizer, err = c.Optimizer.Optimizer(); err != nil {
			return nil, fmt.Errorf("train: %s: %w", c.Path, err)
		}
	}
	sizes := cfg.Model.Sizes
	return &Fitted{cfg: cfg, be: be, classes: sizes[len(sizes)-1], trainers: map[int]*Trainer{},
		infer: map[int]*plan{}, loaded: copyValues(c.Values), steps: c.Steps, epoch: c.Epoch, done: c.Done}, nil
}

// Config returns the model configuration f was trained with (Batch and
// Mode as Fit last set them, unset after Checkpoint.Fitted).
func (f *Fitted) Config() FitConfig { return f.cfg }

// strictJSON decodes s into v, refusing unknown fields.
func strictJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}
