package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
)

// mlpFlags are the flags that describe an MLP, shared by the commands that
// build one.
type mlpFlags struct {
	sizes      string
	batch      int
	dtype      string
	norm       string
	mode       string
	activation string
	// batchFlag is the flag errors about the batch name: "batch", or for
	// demo, which sets batch from each of its --batches, "batches".
	batchFlag string
	// maxMemory is --max-memory where the command has it (0: the
	// library's default limit).
	maxMemory int64

	// kind is the model the flags describe: "mlp" (or "") or "cnn".
	kind string
	// The CNN's flags (models.CNNConfig).
	image   string
	conv    string
	kernel  int
	pool    int
	hidden  string
	classes int
	valid   bool
}

// modelFlagNames are the flags register adds.
var modelFlagNames = []string{"sizes", "batch", "dtype", "norm", "mode", "activation",
	"image", "conv", "kernel", "pool", "hidden", "classes", "valid"}

// mlpOnlyFlags and cnnOnlyFlags describe one model only.
var (
	mlpOnlyFlags = []string{"sizes"}
	cnnOnlyFlags = []string{"image", "conv", "kernel", "pool", "hidden", "classes", "valid"}
)

// modelNames are the models the model flags describe.
const modelNames = "mlp or cnn"

// isModelName reports whether s names a model the flags build.
func isModelName(s string) bool { return s == "mlp" || s == "cnn" }

// checkKind sets the model the flags describe and rejects the flags of
// the other model among those set.
func (m *mlpFlags) checkKind(kind string, set map[string]bool) error {
	m.kind = kind
	if kind == "cnn" {
		return rejectFlags(set, "describes the MLP; the CNN's sizes are --image, --conv, --kernel, --pool, --hidden and --classes", mlpOnlyFlags...)
	}
	return rejectFlags(set, "describes the CNN (cnn); the MLP's sizes are --sizes", cnnOnlyFlags...)
}

func (m *mlpFlags) register(fs *flag.FlagSet, batch int) {
	fs.StringVar(&m.sizes, "sizes", "784,512,512,10", "layer `sizes`, input first, comma-separated")
	fs.IntVar(&m.batch, "batch", batch, "batch `size` (static: part of the types)")
	fs.StringVar(&m.dtype, "dtype", "f32", "element type: f32 or f64")
	fs.StringVar(&m.norm, "norm", "batchnorm", "normalisation after each hidden dense layer: batchnorm, layernorm or none")
	fs.StringVar(&m.mode, "mode", "inference", "inference or training (training BatchNorm uses batch statistics)")
	fs.StringVar(&m.activation, "activation", "relu", "activation: relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh, silu, softmax or none")
	fs.StringVar(&m.image, "image", "8x8x1", "cnn: the input image, `HxWxC` (height, width, channels); x is its flattening, batch×H·W·C")
	fs.StringVar(&m.conv, "conv", "8,16", "cnn: output `channels` of each convolution block (conv, norm, activation, max pooling), comma-separated")
	fs.IntVar(&m.kernel, "kernel", 3, "cnn: the convolutions' window is `K`×K")
	fs.IntVar(&m.pool, "pool", 2, "cnn: max pooling `P`×P at stride P after each block (1: none)")
	fs.StringVar(&m.hidden, "hidden", "", "cnn: `sizes` of dense layers between the blocks and the output, comma-separated")
	fs.IntVar(&m.classes, "classes", 10, "cnn: output `classes`")
	fs.BoolVar(&m.valid, "valid", false, "cnn: valid convolutions (no padding) instead of same")
}

// sizeList reads a comma-separated list of sizes of at least 1 for the
// flag name; "" is the empty list.
func sizeList(flagName, list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, usagef("--%s: %q is not a number", flagName, s)
		}
		if n < 1 {
			return nil, usagef("--%s %s: size %d is %d, want at least 1", flagName, list, len(out)+1, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// cnnConfig turns the flags into a CNN configuration; mistakes are usage
// errors.
func (m *mlpFlags) cnnConfig() (models.CNNConfig, error) {
	var cfg models.CNNConfig
	parts := strings.Split(m.image, "x")
	if len(parts) != 3 {
		return cfg, usagef("--image %s: want HxWxC, as 8x8x1", m.image)
	}
	var dims [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return cfg, usagef("--image %s: %q is not a size of at least 1", m.image, p)
		}
		dims[i] = n
	}
	cfg.Height, cfg.Width, cfg.Channels = dims[0], dims[1], dims[2]
	var err error
	if cfg.Conv, err = sizeList("conv", m.conv); err != nil {
		return cfg, err
	}
	if len(cfg.Conv) == 0 {
		return cfg, usagef("--conv: no convolution blocks; a CNN needs at least one")
	}
	if cfg.Hidden, err = sizeList("hidden", m.hidden); err != nil {
		return cfg, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"kernel", m.kernel}, {"pool", m.pool}, {"classes", m.classes}} {
		if f.v < 1 {
			return cfg, usagef("--%s %d: want at least 1", f.name, f.v)
		}
	}
	cfg.Kernel, cfg.Pool, cfg.Classes, cfg.Valid = m.kernel, m.pool, m.classes, m.valid
	dt, err := graph.ParseDType(m.dtype)
	if err != nil || !dt.IsFloat() {
		return cfg, usagef("--dtype: %q is not f32 or f64", m.dtype)
	}
	cfg.DType = dt
	cfg.MaxMemory = m.maxMemory
	if m.batch < 1 {
		return cfg, usagef("--%s %d: a batch size must be at least 1", m.flagForBatch(), m.batch)
	}
	cfg.Batch = m.batch
	if cfg.Norm, err = models.ParseNorm(m.norm); err != nil {
		return cfg, usagef("--norm: %v", err)
	}
	if cfg.Mode, err = models.ParseMode(m.mode); err != nil {
		return cfg, usagef("--mode: %v", err)
	}
	if cfg.Activation, err = layers.ParseActivation(m.activation); err != nil {
		return cfg, usagef("--activation: %v", err)
	}
	return cfg, nil
}

// buildCNN builds the CNN the flags describe; a configuration the models
// package rejects is a usage error naming the flag to change.
func (m *mlpFlags) buildCNN() (*models.Model, error) {
	cfg, err := m.cnnConfig()
	if err != nil {
		return nil, err
	}
	model, err := models.CNN(cfg)
	var ce *models.ConfigError
	if errors.As(err, &ce) {
		field, _, _ := strings.Cut(ce.Field, "[")
		flagName := map[string]string{"Batch": m.flagForBatch(), "Conv": "conv", "Hidden": "hidden", "Pool": "pool", "Kernel": "kernel",
			"Classes": "classes", "Height": "image", "Width": "image", "Channels": "image", "DType": "dtype", "Norm": "norm",
			"Mode": "mode", "Activation": "activation"}[field]
		if flagName == "" {
			return nil, err
		}
		return nil, usagef("--%s: %s", flagName, strings.ReplaceAll(ce.Msg, "CNNConfig.MaxMemory", "--max-memory"))
	}
	return model, err
}

// summary is a one-line description of the model the flags built.
func (m *mlpFlags) summary(model *models.Model) string {
	if m.kind == "cnn" {
		cfg, _ := m.cnnConfig()
		return fmt.Sprintf("%s, batch %d, %v, %v, %v, %v; %s", cnnShape(cfg),
			cfg.Batch, cfg.DType, cfg.Norm, cfg.Mode, cfg.Activation.OrDefault(), count(model.NumParams(), "parameter"))
	}
	cfg, _ := m.config()
	return describe(model, cfg)
}

// cnnShape describes a CNN's layers: "CNN 8x8x1, conv 8,16 (3x3 same),
// pool 2, 10 classes".
func cnnShape(cfg models.CNNConfig) string {
	pad := "same"
	if cfg.Valid {
		pad = "valid"
	}
	hidden := ""
	if len(cfg.Hidden) > 0 {
		hidden = " hidden " + joinInts(cfg.Hidden, ",") + ","
	}
	return fmt.Sprintf("CNN %dx%dx%d, conv %s (%dx%d %s), pool %d,%s %d classes",
		cfg.Height, cfg.Width, cfg.Channels, joinInts(cfg.Conv, ","), cfg.Kernel, cfg.Kernel, pad, cfg.Pool, hidden, cfg.Classes)
}

// describeModel is a one-line description of the network cfg trains (its
// CNN, or its MLP), without batch or mode.
func describeModel(cfg train.FitConfig) string {
	if c := cfg.CNN; c != nil {
		return fmt.Sprintf("%s, %v, %v, %v", cnnShape(*c), c.DType, c.Norm, c.Activation.OrDefault())
	}
	m := cfg.Model
	return fmt.Sprintf("MLP %s, %v, %v, %v", joinInts(m.Sizes, "-"), m.DType, m.Norm, m.Activation.OrDefault())
}

// modelWords names a model kind for messages: "an MLP" or "a CNN".
func modelWords(cnn bool) string {
	if cnn {
		return "a CNN"
	}
	return "an MLP"
}

// imageHint says what to pass as --image for rows of features values,
// given the --image that does not fit them.
func imageHint(image string, features int) string {
	hint := fmt.Sprintf("pass an --image HxWxC whose H·W·C is %d", features)
	if r := int(math.Sqrt(float64(features))); r*r == features {
		hint += fmt.Sprintf(", as %dx%dx1", r, r)
	}
	hint += " (--image " + image + " takes " + strconv.Itoa(imageFeatures(image)) + ")"
	return hint
}

// imageFeatures is H·W·C of an --image that cnnConfig accepted.
func imageFeatures(image string) int {
	n := 1
	for _, p := range strings.Split(image, "x") {
		d, _ := strconv.Atoi(strings.TrimSpace(p))
		n *= d
	}
	return n
}

// joinInts writes ns separated by sep.
func joinInts(ns []int, sep string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, sep)
}

// dependentRows reports whether the rows of a batch depend on each other
// in the model the flags describe (BatchNorm in training mode normalises
// with the batch's statistics).
func (m *mlpFlags) dependentRows() bool {
	return strings.HasPrefix(m.mode, "train") && m.norm == "batchnorm"
}

// config turns the flags into an MLP configuration; mistakes are usage
// errors.
func (m *mlpFlags) config() (models.MLPConfig, error) {
	var cfg models.MLPConfig
	for _, s := range strings.Split(m.sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return cfg, usagef("--sizes: %q is not a number", s)
		}
		if n < 1 {
			return cfg, usagef("--sizes %s: size %d is %d; every layer needs at least 1 feature", m.sizes, len(cfg.Sizes)+1, n)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	dt, err := graph.ParseDType(m.dtype)
	if err != nil || !dt.IsFloat() {
		return cfg, usagef("--dtype: %q is not f32 or f64", m.dtype)
	}
	cfg.DType = dt
	cfg.MaxMemory = m.maxMemory
	if m.batch < 1 {
		return cfg, usagef("--%s %d: a batch size must be at least 1", m.flagForBatch(), m.batch)
	}
	cfg.Batch = m.batch
	if cfg.Norm, err = models.ParseNorm(m.norm); err != nil {
		return cfg, usagef("--norm: %v", err)
	}
	if cfg.Mode, err = models.ParseMode(m.mode); err != nil {
		return cfg, usagef("--mode: %v", err)
	}
	if cfg.Activation, err = layers.ParseActivation(m.activation); err != nil {
		return cfg, usagef("--activation: %v", err)
	}
	return cfg, nil
}

// flagForBatch is the flag that gives the batch size.
func (m *mlpFlags) flagForBatch() string {
	if m.batchFlag != "" {
		return m.batchFlag
	}
	return "batch"
}

// build builds the MLP the flags describe. A configuration the models
// package rejects is a usage error naming the flag to change, not the
// field of models.MLPConfig.
func (m *mlpFlags) build() (*models.Model, error) {
	if m.kind == "cnn" {
		return m.buildCNN()
	}
	cfg, err := m.config()
	if err != nil {
		return nil, err
	}
	model, err := models.MLP(cfg)
	var ce *models.ConfigError
	switch {
	case errors.As(err, &ce):
		field, _, _ := strings.Cut(ce.Field, "[")
		switch field {
		case "Batch":
			if cfg.Mode == models.Training && cfg.Norm == models.NormBatch && cfg.Batch < 2 {
				return nil, usagef("--%s %d: --mode training normalises with the batch's statistics (--norm batchnorm), so a batch needs at least 2 rows; "+
					"pass a larger --%s, or --norm layernorm", m.flagForBatch(), cfg.Batch, m.flagForBatch())
			}
			return nil, usagef("--%s %d: %s", m.flagForBatch(), cfg.Batch, ce.Msg)
		case "Sizes":
			if len(cfg.Sizes) < 2 {
				return nil, usagef("--sizes %s: %s", m.sizes, ce.Msg)
			}
			// Sizes well formed but past a cap or the memory limit: the
			// work fails (exit 1); the library names its own option, the
			// command's is a flag.
			return nil, fmt.Errorf("--sizes %s: %s", m.sizes, strings.ReplaceAll(ce.Msg, "MLPConfig.MaxMemory", "--max-memory"))
		case "DType", "Norm", "Mode", "Activation":
			return nil, usagef("--%s: %s", strings.ToLower(field), ce.Msg)
		}
		return nil, usagef("%v", err)
	case err != nil:
		return nil, err
	}
	return model, nil
}

// usedOnlyWithMLP rejects model flags given to a command that works on a
// program, not on "mlp" or "cnn".
func usedOnlyWithMLP(set map[string]bool) error {
	return rejectFlags(set, "model flags describe the MLP of 'mlp' and the CNN of 'cnn'; a program's types fix its sizes", modelFlagNames...)
}

// describe is a one-line summary of a model.
func describe(m *models.Model, cfg models.MLPConfig) string {
	sizes := make([]string, len(cfg.Sizes))
	for i, s := range cfg.Sizes {
		sizes[i] = strconv.Itoa(s)
	}
	return fmt.Sprintf("MLP %s, batch %d, %v, %v, %v, %v; %s",
		strings.Join(sizes, "-"), cfg.Batch, cfg.DType, cfg.Norm, cfg.Mode, cfg.Activation.OrDefault(), count(m.NumParams(), "parameter"))
}

// parseBatches reads --batches, a comma-separated list of batch sizes of
// at least 1.
func parseBatches(list string) ([]int, error) {
	var sizes []int
	for _, s := range strings.Split(list, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			return nil, usagef("--batches: %q is not a batch size", s)
		}
		sizes = append(sizes, b)
	}
	return sizes, nil
}

// without returns names without the name drop.
func without(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}
