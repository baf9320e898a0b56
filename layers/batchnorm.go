package layers

import (
	"github.com/hofuse/hofuse/graph"
)

// DefaultBatchNormEps is the epsilon BatchNorm adds to the variance when
// BatchNormOptions.Eps is 0. It is PyTorch's (nn.BatchNorm1d eps) and
// ONNX's (BatchNormalization epsilon) default; Keras's BatchNormalization
// uses 1e-3.
const DefaultBatchNormEps = 1e-5

// DefaultBatchNormMomentum is PyTorch's BatchNorm momentum: the weight of
// the batch statistic in the running statistic, see BatchNormRunningStats.
const DefaultBatchNormMomentum = 0.1

// BatchNormOptions configure BatchNorm. The zero value is inference with
// the default epsilon.
type BatchNormOptions struct {
	// Eps is added to the variance before its square root is taken; 0 means
	// DefaultBatchNormEps. It must not be negative.
	Eps float64
	// Training normalises with the statistics of the batch instead of the
	// running statistics.
	Training bool
}

// BatchNormParams are the parameters of a BatchNorm layer, and what
// BatchNormRunningStats needs to know about it.
type BatchNormParams struct {
	Mean  *graph.Input // "<layer>.mean": running mean, dt[features]
	Var   *graph.Input // "<layer>.var": running (unbiased) variance, dt[features]
	Scale *graph.Input // "<layer>.scale": γ, dt[features]
	Shift *graph.Input // "<layer>.shift": β, dt[features]

	Layer    string     // the layer's name
	Input    graph.Node // the layer's input x
	Batch    int        // the batch extent of x
	Training bool       // built in training mode
}

// Params lists the parameters the layer's output reads: Mean, Var, Scale
// and Shift in inference mode; only Scale and Shift in training mode, where
// the running statistics are read and written only by BatchNormRunningStats.
func (p *BatchNormParams) Params() []*graph.Input {
	if p.Training {
		return []*graph.Input{p.Scale, p.Shift}
	}
	return []*graph.Input{p.Mean, p.Var, p.Scale, p.Shift}
}

// BatchNorm returns batch normalisation of x, of type dt[batch, features],
// feature by feature:
//
//	y = (x - mean) * rsqrt(var + eps) * scale + shift
//
// In inference mode (the default) mean and var are the parameters
// "<name>.mean" and "<name>.var", the running statistics, and the term is
//
//	map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + eps) * g + b) r mean var scale shift) x
//
// In training mode (opt.Training) mean and var are the statistics of the
// batch, reduced over axis 0 with the lifted addition zip (+), and the
// same normalisation follows:
//
//	let h = x in
//	let m = map (/batch) (reduce (zip (+)) h) in
//	let s = map (/batch) (rnz (zip (+)) (\r -> zip (\v m1 -> (v - m1) * (v - m1)) r m) h) in
//	map (\r -> nzip (\v m1 s1 g b -> (v - m1) * rsqrt (s1 + eps) * g + b) r m s scale shift) h
//
// The batch mean m is computed once and shared, through its let-bound
// variable, by the variance and the normalisation; x is bound to h (unless
// it is an input already) because it is read three times. The sharing is
// by let rather than by one node used in several places because the
// reference interpreter caches a shared node's value only where it is
// evaluated outside every lambda and let body; a node shared under the
// row lambdas was recomputed at every row, input included, which
// multiplied the cost by about 2·batch+1 per stacked layer (3.4 s instead
// of under a millisecond for an MLP with three such layers of 11 features
// at batch 4).
//
// s is the biased variance (divided by batch, not batch-1), which is what
// PyTorch, Keras and ONNX normalise with in training. A batch of 1 is
// refused in training mode, as PyTorch refuses it: its variance is 0 and
// the output would be shift alone.
//
// The layer is the forward pass only. It does not update the
// running statistics — BatchNormRunningStats builds that term, for the
// caller to evaluate and store (models.TrainStep puts it in the training
// step); autodiff differentiates the layer through the batch statistics.
//
// The parameter names follow the math, not a framework: scale and shift are
// PyTorch's weight and bias, Keras's gamma and beta, ONNX's scale and B;
// mean and var are PyTorch's running_mean and running_var, Keras's
// moving_mean and moving_variance, ONNX's input_mean and input_var.
func BatchNorm(name string, x graph.Node, features int, dt graph.DType, opt BatchNormOptions) (graph.Node, *BatchNormParams, error) {
	l := newLayer("BatchNorm", name)
	if err := l.validate(dt); err != nil {
		return nil, nil, err
	}
	if err := l.positive("features", features); err != nil {
		return nil, nil, err
	}
	eps, err := l.eps(opt.Eps, DefaultBatchNormEps)
	if err != nil {
		return nil, nil, err
	}
	xt, err := l.input(x, dt, axis{"batch", 0}, axis{"features", features})
	if err != nil {
		return nil, nil, err
	}
	batch := xt.Layout[0].Extent
	if opt.Training && batch < 2 {
		return nil, nil, l.errorf("training mode needs a batch of at least 2, got %d: the variance of one sample is 0", batch)
	}
	p := &BatchNormParams{Layer: name, Input: x, Batch: batch, Training: opt.Training}
	for _, q := range []struct {
		dst  **graph.Input
		name string
	}{{&p.Mean, "mean"}, {&p.Var, "var"}, {&p.Scale, "scale"}, {&p.Shift, "shift"}} {
		if *q.dst, err = l.param(q.name, dt, features); err != nil {
			return nil, nil, err
		}
	}
	normalizeRows := func(h, mean, variance graph.Node) graph.Node {
		return l.Map(l.Lambda1("r", func(r graph.Node) graph.Node {
			return l.normalize(r, mean, variance, p.Scale, p.Shift, eps)
		}), h)
	}
	var y graph.Node
	if opt.Training {
		y = l.withBatchStats(x, batch, normalizeRows)
	} else {
		y = normalizeRows(x, p.Mean, p.Var)
	}
	if y, err = l.done(y); err != nil {
		return nil, nil, err
	}
	return y, p, nil
}

// withBatchStats returns
//
//	let h = x in
//	let m = map (/batch) (reduce (zip (+)) h) in
//	let s = map (/batch) (rnz (zip (+)) (\r -> zip (\v m1 -> (v - m1) * (v - m1)) r m) h) in
//	body h m s
//
// the mean and the biased variance of x over its batch axis, axis 0. When
// x is an input or a variable it is used as it is, without let h.
func (l *layer) withBatchStats(x graph.Node, batch int, body func(h, mean, variance graph.Node) graph.Node) graph.Node {
	stats := func(h graph.Node) graph.Node {
		perBatch := l.Section(graph.Div, l.Const(float64(batch)), false) // (/batch)
		sum := l.NZip(l.Op(graph.Add))                                   // zip (+)
		mean := l.Map(perBatch, l.Reduce(sum, h))
		return l.Let("m", mean, func(m graph.Node) graph.Node {
			sq := l.Lambda1("r", func(r graph.Node) graph.Node {
				return l.Zip(l.Lambda([]string{"v", "m"}, func(vs []graph.Node) graph.Node {
					d := l.Sub(vs[0], vs[1])
					return l.Mul(d, d)
				}), r, m)
			})
			variance := l.Map(perBatch, l.RNZ(sum, sq, h))
			return l.Let("s", variance, func(s graph.Node) graph.Node { return body(h, m, s) })
		})
	}
	switch x.(type) {
	case *graph.Input, *graph.Var:
		return stats(x)
	}
	return l.Let("h", x, stats)
}

// normalize returns nzip (\v m s g b -> (v - m) * rsqrt (s + eps) * g + b)
// r mean variance scale shift: one row normalised feature by feature.
func (l *layer) normalize(r, mean, variance, scale, shift graph.Node, eps float64) graph.Node {
	fn := l.Lambda([]string{"v", "m", "s", "g", "b"}, func(vs []graph.Node) graph.Node {
		v, m, s, g, b := vs[0], vs[1], vs[2], vs[3], vs[4]
		inv := l.Call(graph.Rsqrt, l.Add(s, l.Const(eps)))
		return l.Add(l.Mul(l.Mul(l.Sub(v, m), inv), g), b)
	})
	return l.NZip(fn, r, mean, variance, scale, shift)
}

// eps returns eps, or def when eps is 0; a negative eps is an error.
func (l *layer) eps(eps, def float64) (float64, error) {
	switch {
	case eps == 0:
		return def, nil
	case eps < 0 || eps != eps:
		return 0, l.errorf("eps = %v, want a positive number (0 for the default %v)", eps, def)
	}
	return eps, nil
}

// BatchNormRunningStats returns the term of the running statistics after
// one training step of the BatchNorm layer p (built with Training), in
// PyTorch's convention:
//
//	mean' = (1 - momentum) * mean + momentum * batch_mean
//	var'  = (1 - momentum) * var  + momentum * batch_var * batch / (batch - 1)
//
// The result is the tuple (mean', var'), both of type dt[features]: the
// batch statistics are computed once for both, as in BatchNorm. The
// running variance keeps the unbiased batch variance (Bessel's
// correction), as PyTorch does, although the layer normalises with the
// biased one. Keras and ONNX write momentum the other way round — the
// weight of the old value, 0.99 by default in Keras and 0.9 in ONNX — and
// keep the biased variance. momentum must lie in [0, 1];
// DefaultBatchNormMomentum is PyTorch's 0.1.
//
// The term reads p.Mean, p.Var and the layer's input, and its nodes carry
// the layer's name as source. It is a program of its own, apart from the
// layer's output; storing its results back into the parameters is the
// caller's business.
func BatchNormRunningStats(p *BatchNormParams, momentum float64) (graph.Node, error) {
	if p == nil || p.Mean == nil || p.Var == nil || p.Input == nil {
		return nil, &Error{Kind: "BatchNorm", Msg: "running statistics: no BatchNorm parameters"}
	}
	l := newLayer("BatchNorm", p.Layer)
	if !p.Training {
		return nil, l.errorf("running statistics need a layer built in training mode")
	}
	if !(momentum >= 0 && momentum <= 1) {
		return nil, l.errorf("momentum = %v, want a number in [0, 1]", momentum)
	}
	if p.Batch < 2 {
		return nil, l.errorf("running statistics need a batch of at least 2, got %d", p.Batch)
	}
	update := func(correction float64) graph.Node {
		return l.Lambda([]string{"old", "new"}, func(vs []graph.Node) graph.Node {
			batchTerm := l.Mul(l.Const(momentum), vs[1])
			if correction != 1 {
				batchTerm = l.Mul(batchTerm, l.Const(correction))
			}
			return l.Add(l.Mul(l.Const(1-momentum), vs[0]), batchTerm)
		})
	}
	unbiased := float64(p.Batch) / float64(p.Batch-1)
	y := l.withBatchStats(p.Input, p.Batch, func(_, mean, variance graph.Node) graph.Node {
		return l.Tuple(l.Zip(update(1), p.Mean, mean), l.Zip(update(unbiased), p.Var, variance))
	})
	return l.done(y)
}
