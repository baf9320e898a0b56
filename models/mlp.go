package models

import (
	"fmt"
	"math"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Norm is the normalisation an MLP block applies after its dense layer.
type Norm uint8

// The normalisations.
const (
	NormNone  Norm = iota // no normalisation
	NormBatch             // layers.BatchNorm, "bn<i>"
	NormLayer             // layers.LayerNorm, "ln<i>"
	numNorms
)

var normNames = [numNorms]string{NormNone: "none", NormBatch: "batchnorm", NormLayer: "layernorm"}

// String returns the name ParseNorm reads: "none", "batchnorm" or
// "layernorm".
func (n Norm) String() string {
	if n < numNorms {
		return normNames[n]
	}
	return fmt.Sprintf("norm(%d)", uint8(n))
}

// ParseNorm reads a normalisation name, case-insensitively: "none",
// "batchnorm" (or "bn", "batch"), "layernorm" (or "ln", "layer").
func ParseNorm(s string) (Norm, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "":
		return NormNone, nil
	case "batchnorm", "bn", "batch":
		return NormBatch, nil
	case "layernorm", "ln", "layer":
		return NormLayer, nil
	}
	return NormNone, fmt.Errorf("unknown normalisation %q (want none, batchnorm or layernorm)", s)
}

// Mode says whether a model is built for inference or for training. Only
// BatchNorm behaves differently.
type Mode uint8

// The modes.
const (
	Inference Mode = iota // BatchNorm normalises with its running statistics
	Training              // BatchNorm normalises with the batch's statistics
	numModes
)

// String returns "inference" or "training".
func (m Mode) String() string {
	switch m {
	case Inference:
		return "inference"
	case Training:
		return "training"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode reads "inference" (or "infer", "eval") or "training" (or
// "train"), case-insensitively.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inference", "infer", "eval", "":
		return Inference, nil
	case "training", "train":
		return Training, nil
	}
	return Inference, fmt.Errorf("unknown mode %q (want inference or training)", s)
}

// MLPConfig describes a multilayer perceptron.
type MLPConfig struct {
	// Name names the model; "" means "mlp".
	Name string
	// Sizes are the feature counts from input to output, at least two:
	// 784, 512, 512, 10 is a network of three dense layers.
	Sizes []int
	// Batch is the static batch extent of the input, at least 1 (at least
	// 2 for BatchNorm in training mode).
	Batch int
	// DType is the element type of the input, the parameters and every
	// intermediate value: f32 or f64.
	DType graph.DType
	// Norm is the normalisation after each dense layer but the last.
	Norm Norm
	// Mode selects the BatchNorm behaviour.
	Mode Mode
	// Activation follows each normalisation; the zero value,
	// layers.ActDefault, is ReLU.
	Activation layers.Activation
	// Eps is the normalisation epsilon; 0 means the layer's default
	// (layers.DefaultBatchNormEps or layers.DefaultLayerNormEps).
	Eps float64
	// MaxMemory caps, in bytes, what the model's parameters and input
	// take (RandomParams and RandomInput allocate them); 0 means
	// graph.DefaultMemoryLimit. MLP refuses a config past it.
	MaxMemory int64
}

// ConfigError is a model configuration that cannot be built: the field at
// fault and why.
type ConfigError struct {
	Config string // the config type: "MLPConfig"
	Field  string // the field at fault, as "Sizes" or "Sizes[2]"
	Msg    string // what is wrong with it
}

// Error writes "MLPConfig.Field: message".
func (e *ConfigError) Error() string { return e.Config + "." + e.Field + ": " + e.Msg }

func (cfg *MLPConfig) validate() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Config: "MLPConfig", Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if len(cfg.Sizes) < 2 {
		return bad("Sizes", "%d sizes %v, want at least 2 (input and output features)", len(cfg.Sizes), cfg.Sizes)
	}
	for i, s := range cfg.Sizes {
		if s < 1 {
			return bad(fmt.Sprintf("Sizes[%d]", i), "%d features, want at least 1", s)
		}
		if s > graph.MaxExtent {
			return bad(fmt.Sprintf("Sizes[%d]", i), "%d features, past the cap of %d (graph.MaxExtent)", s, graph.MaxExtent)
		}
	}
	if cfg.Batch < 1 {
		return bad("Batch", "%d, want at least 1", cfg.Batch)
	}
	if cfg.Batch > graph.MaxExtent {
		return bad("Batch", "%d, past the cap of %d (graph.MaxExtent)", cfg.Batch, graph.MaxExtent)
	}
	for i, s := range cfg.Sizes {
		if cfg.Batch > graph.MaxElements/s {
			return bad(fmt.Sprintf("Sizes[%d]", i), "a batch of %d by %d features has more than %d elements (graph.MaxElements)",
				cfg.Batch, s, graph.MaxElements)
		}
		if i > 0 && cfg.Sizes[i-1] > graph.MaxElements/s {
			return bad(fmt.Sprintf("Sizes[%d]", i), "the weights of dense%d, %d by %d, have more than %d elements (graph.MaxElements)",
				i, cfg.Sizes[i-1], s, graph.MaxElements)
		}
	}
	if cfg.MaxMemory < 0 {
		return bad("MaxMemory", "%d, want a positive number of bytes (0 for graph.DefaultMemoryLimit)", cfg.MaxMemory)
	}
	if !cfg.DType.IsFloat() {
		return bad("DType", "%v, want f32 or f64", cfg.DType)
	}
	if cfg.Norm >= numNorms {
		return bad("Norm", "invalid normalisation %v", cfg.Norm)
	}
	if cfg.Mode >= numModes {
		return bad("Mode", "invalid mode %v", cfg.Mode)
	}
	if !cfg.Activation.Valid() {
		return bad("Activation", "invalid activation %v", cfg.Activation)
	}
	if cfg.Eps < 0 || math.IsNaN(cfg.Eps) || math.IsInf(cfg.Eps, 0) {
		return bad("Eps", "%v, want a positive number (0 for the layer default)", cfg.Eps)
	}
	if cfg.Norm == NormBatch && cfg.Mode == Training && cfg.Batch < 2 && len(cfg.Sizes) > 2 {
		return bad("Batch", "%d: BatchNorm in training mode needs a batch of at least 2", cfg.Batch)
	}
	return nil
}

// MLP builds a multilayer perceptron. For Sizes s0, s1, …, sn it stacks n
// dense layers; each but the last is followed by a normalisation (per Norm)
// and an activation, and the last dense layer is the output, with neither:
// a classifier's logits or a regressor's values. With Sizes 784, 512, 512,
// 10, BatchNorm and ReLU the layers are
//
//	dense1 bn1 relu1 dense2 bn2 relu2 dense3
//
// The input is "x": DType[Batch, s0]; the output is DType[Batch, sn].
// Parameters are named after their layers: "dense1.W", "bn1.mean", ….
// In Training mode BatchNorm normalises with the batch's statistics; the
// model alone does not update the running statistics: Model.TrainStep
// builds the training step, which does (with
// layers.BatchNormRunningStats), and the backward pass.
//
// A config that cannot be built returns a *ConfigError naming the field.
func MLP(cfg MLPConfig) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dt := cfg.DType
	x, err := graph.NewInput("x", graph.ArrayOf(dt, cfg.Batch, cfg.Sizes[0]), false)
	if err != nil {
		return nil, err
	}
	name := cfg.Name
	if name == "" {
		name = "mlp"
	}
	m := &Model{Name: name, Input: x, init: map[*graph.Input]uniformInit{}}
	act := cfg.Activation.OrDefault()
	h := graph.Node(x)
	last := len(cfg.Sizes) - 1
	for i := 1; i <= last; i++ {
		in, out := cfg.Sizes[i-1], cfg.Sizes[i]
		dname := fmt.Sprintf("dense%d", i)
		var dp *layers.DenseParams
		if h, dp, err = layers.Dense(dname, h, in, out, dt); err != nil {
			return nil, err
		}
		bound := 1 / math.Sqrt(float64(in))
		m.add(dname, dp.Params(), uniformInit{-bound, bound})
		if i == last {
			break
		}
		switch cfg.Norm {
		case NormBatch:
			bname := fmt.Sprintf("bn%d", i)
			var bp *layers.BatchNormParams
			opt := layers.BatchNormOptions{Eps: cfg.Eps, Training: cfg.Mode == Training}
			if h, bp, err = layers.BatchNorm(bname, h, out, dt, opt); err != nil {
				return nil, err
			}
			m.Layers = append(m.Layers, bname)
			m.bns = append(m.bns, bp)
			m.init[bp.Mean] = uniformInit{-0.1, 0.1}
			m.init[bp.Var] = uniformInit{0.5, 1.5}
			m.init[bp.Scale] = uniformInit{0.75, 1.25}
			m.init[bp.Shift] = uniformInit{-0.1, 0.1}
			m.Params = append(m.Params, bp.Params()...)
		case NormLayer:
			lname := fmt.Sprintf("ln%d", i)
			var lp *layers.LayerNormParams
			if h, lp, err = layers.LayerNorm(lname, h, out, dt, layers.LayerNormOptions{Eps: cfg.Eps}); err != nil {
				return nil, err
			}
			m.Layers = append(m.Layers, lname)
			m.init[lp.Scale] = uniformInit{0.75, 1.25}
			m.init[lp.Shift] = uniformInit{-0.1, 0.1}
			m.Params = append(m.Params, lp.Params()...)
		}
		if act != layers.ActNone {
			aname := fmt.Sprintf("%v%d", act, i)
			if h, err = layers.Activate(aname, h, act); err != nil {
				return nil, err
			}
			m.Layers = append(m.Layers, aname)
		}
	}
	m.Output = h
	info, err := graph.Check(h)
	if err != nil {
		return nil, fmt.Errorf("models: %s: internal error: the model's term is ill-typed: %w", name, err)
	}
	t, ok := info.TypeOf(h).(*graph.ArrayType)
	if !ok {
		return nil, fmt.Errorf("models: %s: internal error: the model's output has type %v, not an array", name, info.TypeOf(h))
	}
	m.OutputType = t
	if len(info.Inputs) != len(m.Params)+1 {
		return nil, fmt.Errorf("models: %s: internal error: the term reads %d inputs, the layers declare %d parameters and x", name, len(info.Inputs), len(m.Params))
	}
	limit := cfg.MaxMemory
	if limit == 0 {
		limit = graph.DefaultMemoryLimit
	}
	if need := m.Bytes(); need > limit {
		return nil, &ConfigError{Config: "MLPConfig", Field: "Sizes", Msg: fmt.Sprintf(
			"sizes %v with batch %d: the parameters and input need %d bytes, past the memory limit of %d bytes (raise MLPConfig.MaxMemory)",
			cfg.Sizes, cfg.Batch, need, limit)}
	}
	return m, nil
}

// add records a layer and its parameters, all initialised alike.
func (m *Model) add(layer string, params []*graph.Input, init uniformInit) {
	m.Layers = append(m.Layers, layer)
	m.Params = append(m.Params, params...)
	for _, p := range params {
		m.init[p] = init
	}
}
