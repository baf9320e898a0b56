package main

import (
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
}

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
		cfg.Sizes = append(cfg.Sizes, n)
	}
	dt, err := graph.ParseDType(m.dtype)
	if err != nil || !dt.IsFloat() {
		return cfg, usagef("--dtype: %q is not f32 or f64", m.dtype)
	}
	cfg.DType = dt
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

// build builds the MLP the flags describe. A configuration the models
// package rejects (a size below 1, fewer than two sizes) is a usage error.
func (m *mlpFlags) build() (*models.Model, error) {
	cfg, err := m.config()
	if err != nil {
		return nil, err
	}
	model, err := models.MLP(cfg)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return model, nil
}

// describe is a one-line summary of a model.
func describe(m *models.Model, cfg models.MLPConfig) string {
	sizes := make([]string, len(cfg.Sizes))
	for i, s := range cfg.Sizes {
		sizes[i] = strconv.Itoa(s)
	}
	return fmt.Sprintf("MLP %s, batch %d, %v, %v, %v, %v; %d parameters",
		strings.Join(sizes, "-"), cfg.Batch, cfg.DType, cfg.Norm, cfg.Mode, cfg.Activation.OrDefault(), m.NumParams())
}
