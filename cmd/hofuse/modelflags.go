package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/models"
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
}

// modelFlagNames are the flags register adds.
var modelFlagNames = []string{"sizes", "batch", "dtype", "norm", "mode", "activation"}

func (m *mlpFlags) register(fs *flag.FlagSet, batch int) {
	fs.StringVar(&m.sizes, "sizes", "784,512,512,10", "layer `sizes`, input first, comma-separated")
	fs.IntVar(&m.batch, "batch", batch, "batch `size` (static: part of the types)")
	fs.StringVar(&m.dtype, "dtype", "f32", "element type: f32 or f64")
	fs.StringVar(&m.norm, "norm", "batchnorm", "normalisation after each hidden dense layer: batchnorm, layernorm or none")
	fs.StringVar(&m.mode, "mode", "inference", "inference or training (training BatchNorm uses batch statistics)")
	fs.StringVar(&m.activation, "activation", "relu", "activation: relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh, silu, softmax or none")
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
// program, not on "mlp".
func usedOnlyWithMLP(set map[string]bool) error {
	return rejectFlags(set, "model flags describe the MLP of 'mlp'; a program's types fix its sizes", modelFlagNames...)
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
