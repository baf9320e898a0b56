package models

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// CNNConfig describes a small LeNet-like convolutional classifier: blocks
// of a convolution, a normalisation, an activation and a max pooling, then
// dense layers.
type CNNConfig struct {
	// Name names the model; "" means "cnn".
	Name string
	// Height, Width and Channels are the input image's; 0 means 8, 8 and
	// 1 (the digits data set). The input "x" is the flattened image,
	// DType[Batch, Height*Width*Channels], row-major channels last, as a
	// data set yields it; the model sees it as [Batch, Height, Width,
	// Channels] through subdiv views.
	Height, Width, Channels int
	// Conv are the output channels of each block's convolution; nil means
	// 8, 16.
	Conv []int
	// Kernel is the convolutions' window, Kernel × Kernel, with "same"
	// padding and stride 1; 0 means 3.
	Kernel int
	// Valid makes the convolutions "valid" (no padding: each shrinks the
	// image by Kernel-1) instead of "same".
	Valid bool
	// Pool is the max pooling after each block, Pool × Pool at stride
	// Pool; 0 means 2, 1 means none. An extent it does not divide drops
	// its last rows, as a "valid" pooling does.
	Pool int
	// Hidden are the sizes of dense layers between the blocks and the
	// output layer (each with the normalisation and activation); nil for
	// none.
	Hidden []int
	// Classes is the output layer's size; 0 means 10.
	Classes int
	// Batch is the static batch extent, at least 1 (2 for BatchNorm in
	// training mode).
	Batch int
	// DType is f32 or f64.
	DType graph.DType
	// Norm is NormBatch (the default LeNet-with-BatchNorm) or NormNone;
	// the convolutions have no bias before a BatchNorm, which subtracts
	// it again.
	Norm Norm
	// Mode selects the BatchNorm behaviour.
	Mode Mode
	// Activation follows each normalisation; the zero value is ReLU.
	Activation layers.Activation
	// Eps is BatchNorm's epsilon; 0 means layers.DefaultBatchNormEps.
	Eps float64
	// MaxMemory caps what the parameters and input take; 0 means
	// graph.DefaultMemoryLimit.
	MaxMemory int64
}

// WithDefaults returns cfg with every zero field that has a default
// (Height, Width, Channels, Conv, Kernel, Pool, Classes, Name) set to it:
// the configuration CNN builds, as a checkpoint records it.
func (cfg CNNConfig) WithDefaults() CNNConfig {
	cfg.defaults()
	return cfg
}

func (cfg *CNNConfig) defaults() {
	if cfg.Height == 0 {
		cfg.Height = 8
	}
	if cfg.Width == 0 {
		cfg.Width = 8
	}
	if cfg.Channels == 0 {
		cfg.Channels = 1
	}
	if cfg.Conv == nil {
		cfg.Conv = []int{8, 16}
	}
	if cfg.Kernel == 0 {
		cfg.Kernel = 3
	}
	if cfg.Pool == 0 {
		cfg.Pool = 2
	}
	if cfg.Classes == 0 {
		cfg.Classes = 10
	}
	if cfg.Name == "" {
		cfg.Name = "cnn"
	}
}

func (cfg *CNNConfig) validate() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Config: "CNNConfig", Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Height", cfg.Height}, {"Width", cfg.Width}, {"Channels", cfg.Channels}, {"Kernel", cfg.Kernel},
		{"Pool", cfg.Pool}, {"Classes", cfg.Classes}, {"Batch", cfg.Batch}} {
		if f.v < 1 {
			return bad(f.name, "%d, want at least 1", f.v)
		}
		if f.v > graph.MaxExtent {
			return bad(f.name, "%d, past the cap of %d (graph.MaxExtent)", f.v, graph.MaxExtent)
		}
	}
	if len(cfg.Conv) == 0 {
		return bad("Conv", "no convolution blocks; want at least one (an MLP has none)")
	}
	for i, c := range cfg.Conv {
		if c < 1 || c > graph.MaxExtent {
			return bad(fmt.Sprintf("Conv[%d]", i), "%d channels, want 1 to %d", c, graph.MaxExtent)
		}
	}
	for i, h := range cfg.Hidden {
		if h < 1 || h > graph.MaxExtent {
			return bad(fmt.Sprintf("Hidden[%d]", i), "%d features, want 1 to %d", h, graph.MaxExtent)
		}
	}
	// The image shrinks by the pooling after each block.
	h, w := cfg.Height, cfg.Width
	for i := range cfg.Conv {
		if cfg.Valid {
			if h < cfg.Kernel || w < cfg.Kernel {
				return bad("Kernel", "block %d convolves a %dx%d image with a valid %dx%d window: the image is too small for %d blocks", i+1, h, w, cfg.Kernel, cfg.Kernel, len(cfg.Conv))
			}
			h, w = h-cfg.Kernel+1, w-cfg.Kernel+1
		}
		if cfg.Pool > 1 && (h < cfg.Pool || w < cfg.Pool) {
			return bad("Pool", "block %d pools a %dx%d image with a %dx%d window: the image is too small for %d blocks", i+1, h, w, cfg.Pool, cfg.Pool, len(cfg.Conv))
		}
		if cfg.Pool > 1 {
			h, w = h/cfg.Pool, w/cfg.Pool
		}
	}
	pixels := cfg.Height * cfg.Width
	if pixels > graph.MaxElements/cfg.Channels || cfg.Batch > graph.MaxElements/(pixels*cfg.Channels) {
		return bad("Batch", "a batch of %d images of %dx%dx%d has more than %d elements (graph.MaxElements)", cfg.Batch, cfg.Height, cfg.Width, cfg.Channels, graph.MaxElements)
	}
	for _, c := range cfg.Conv {
		if cfg.Batch > graph.MaxElements/(pixels*c) {
			return bad("Batch", "a batch of %d images of %dx%d with %d channels has more than %d elements (graph.MaxElements)", cfg.Batch, cfg.Height, cfg.Width, c, graph.MaxElements)
		}
	}
	switch {
	case cfg.MaxMemory < 0:
		return bad("MaxMemory", "%d, want a positive number of bytes (0 for graph.DefaultMemoryLimit)", cfg.MaxMemory)
	case !cfg.DType.IsFloat():
		return bad("DType", "%v, want f32 or f64", cfg.DType)
	case cfg.Norm != NormNone && cfg.Norm != NormBatch:
		return bad("Norm", "%v, want batchnorm or none", cfg.Norm)
	case cfg.Mode >= numModes:
		return bad("Mode", "invalid mode %v", cfg.Mode)
	case !cfg.Activation.Valid() || cfg.Activation == layers.ActSoftmax:
		return bad("Activation", "%v, want an elementwise activation", cfg.Activation)
	case cfg.Eps < 0 || math.IsNaN(cfg.Eps) || math.IsInf(cfg.Eps, 0):
		return bad("Eps", "%v, want a positive number (0 for the layer default)", cfg.Eps)
	case cfg.Norm == NormBatch && cfg.Mode == Training && cfg.Batch < 2 && len(cfg.Hidden) > 0:
		return bad("Batch", "%d: BatchNorm in training mode needs a batch of at least 2", cfg.Batch)
	}
	return nil
}

// CNN builds a LeNet-like convolutional classifier. With the defaults
// (8x8x1 images, Conv 8, 16, Kernel 3, Pool 2, BatchNorm, ReLU, 10
// classes) the layers are
//
//	conv1 bn1 relu1 pool1 conv2 bn2 relu2 pool2 flatten dense1
//
// Each convolution is layers.Conv2D, channels last, "same" padding (or
// "valid", CNNConfig.Valid), stride 1; each BatchNorm normalises the channels over the batch and the image
// (the convolution's output seen as [Batch*H*W, channels], a view), as
// PyTorch's BatchNorm2d does; each pooling is layers.MaxPool2D. The input
// "x" is the flattened image (see CNNConfig.Height); the output is
// DType[Batch, Classes], the logits. Kernels are drawn from
// U(-1/√fan_in, 1/√fan_in) with fan_in = Kernel² · in channels, as
// PyTorch's nn.Conv2d initialises them; the rest as MLP does. TrainStep
// trains it like an MLP.
func CNN(cfg CNNConfig) (*Model, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dt := cfg.DType
	x, err := graph.NewInput("x", graph.ArrayOf(dt, cfg.Batch, cfg.Height*cfg.Width*cfg.Channels), false)
	if err != nil {
		return nil, err
	}
	m := &Model{Name: cfg.Name, Input: x, init: map[*graph.Input]uniformInit{}}
	act := cfg.Activation.OrDefault()
	// views applies views to n, the first innermost.
	views := func(n graph.Node, vs ...graph.View) (graph.Node, error) {
		for _, v := range vs {
			var err error
			if n, err = graph.NewView(v, n); err != nil {
				return nil, fmt.Errorf("models: %s: internal error: %w", cfg.Name, err)
			}
		}
		return n, nil
	}
	// [B, H*W*C] -> [B, H, W*C] -> [B, H, W, C].
	h, err := views(x, graph.SubdivView{Axis: 1, Block: cfg.Width * cfg.Channels}, graph.SubdivView{Axis: 2, Block: cfg.Channels})
	if err != nil {
		return nil, err
	}
	height, width, in := cfg.Height, cfg.Width, cfg.Channels
	// normalize applies the normalisation (features last) and the
	// activation of block i.
	normalize := func(i int, h graph.Node, features int) (graph.Node, error) {
		if cfg.Norm == NormBatch {
			bname := fmt.Sprintf("bn%d", i)
			opt := layers.BatchNormOptions{Eps: cfg.Eps, Training: cfg.Mode == Training}
			y, bp, err := layers.BatchNorm(bname, h, features, dt, opt)
			if err != nil {
				return nil, err
			}
			m.Layers = append(m.Layers, bname)
			m.bns = append(m.bns, bp)
			m.init[bp.Mean] = uniformInit{-0.1, 0.1}
			m.init[bp.Var] = uniformInit{0.5, 1.5}
			m.init[bp.Scale] = uniformInit{0.75, 1.25}
			m.init[bp.Shift] = uniformInit{-0.1, 0.1}
			m.Params = append(m.Params, bp.Params()...)
			h = y
		}
		if act == layers.ActNone {
			return h, nil
		}
		aname := fmt.Sprintf("%v%d", act, i)
		y, err := layers.Activate(aname, h, act)
		if err != nil {
			return nil, err
		}
		m.Layers = append(m.Layers, aname)
		return y, nil
	}
	block := 0
	for i, out := range cfg.Conv {
		block = i + 1
		cname := fmt.Sprintf("conv%d", block)
		var cp *layers.ConvParams
		opt := layers.ConvOptions{Padding: layers.PadSame, NoBias: cfg.Norm == NormBatch}
		if cfg.Valid {
			opt.Padding = layers.PadValid
		}
		if h, cp, err = layers.Conv2D(cname, h, in, out, [2]int{cfg.Kernel, cfg.Kernel}, dt, opt); err != nil {
			return nil, err
		}
		if cfg.Valid {
			height, width = height-cfg.Kernel+1, width-cfg.Kernel+1
		}
		bound := 1 / math.Sqrt(float64(cfg.Kernel*cfg.Kernel*in))
		m.add(cname, cp.Params(), uniformInit{-bound, bound})
		// BatchNorm of [B, H, W, C]: statistics over B, H and W.
		if h, err = normalize(block, h, out); err != nil {
			return nil, err
		}
		if cfg.Pool > 1 {
			pname := fmt.Sprintf("pool%d", block)
			p := []int{cfg.Pool, cfg.Pool}
			if h, err = layers.MaxPool2D(pname, h, [2]int{cfg.Pool, cfg.Pool}, layers.ConvOptions{Strides: p}); err != nil {
				return nil, err
			}
			m.Layers = append(m.Layers, pname)
			height, width = height/cfg.Pool, width/cfg.Pool
		}
		in = out
	}
	if h, err = layers.Flatten("flatten", h); err != nil {
		return nil, err
	}
	m.Layers = append(m.Layers, "flatten")
	features := height * width * in
	sizes := append(append([]int{features}, cfg.Hidden...), cfg.Classes)
	for i := 1; i < len(sizes); i++ {
		dname := fmt.Sprintf("dense%d", i)
		var dp *layers.DenseParams
		if h, dp, err = layers.Dense(dname, h, sizes[i-1], sizes[i], dt); err != nil {
			return nil, err
		}
		bound := 1 / math.Sqrt(float64(sizes[i-1]))
		m.add(dname, dp.Params(), uniformInit{-bound, bound})
		if i == len(sizes)-1 {
			break
		}
		if h, err = normalize(block+i, h, sizes[i]); err != nil {
			return nil, err
		}
	}
	return m.finish(h, cfg.MaxMemory, "CNNConfig", "Batch", fmt.Sprintf("batch %d", cfg.Batch))
}

// finish checks the model's term and its memory, and records the output.
func (m *Model) finish(h graph.Node, maxMemory int64, config, field, what string) (*Model, error) {
	m.Output = h
	info, err := graph.Check(h)
	if err != nil {
		return nil, fmt.Errorf("models: %s: internal error: the model's term is ill-typed: %w", m.Name, err)
	}
	t, ok := info.TypeOf(h).(*graph.ArrayType)
	if !ok {
		return nil, fmt.Errorf("models: %s: internal error: the model's output has type %v, not an array", m.Name, info.TypeOf(h))
	}
	m.OutputType = t
	if len(info.Inputs) != len(m.Params)+1 {
		return nil, fmt.Errorf("models: %s: internal error: the term reads %d inputs, the layers declare %d parameters and x", m.Name, len(info.Inputs), len(m.Params))
	}
	limit := maxMemory
	if limit == 0 {
		limit = graph.DefaultMemoryLimit
	}
	if need := m.Bytes(); need > limit {
		return nil, &ConfigError{Config: config, Field: field, Msg: fmt.Sprintf(
			"%s: the parameters and input need %d bytes, past the memory limit of %d bytes (raise %s.MaxMemory)", what, need, limit, config)}
	}
	return m, nil
}
