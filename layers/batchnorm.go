package layers

import (
	"fmt"

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
	Batch    int        // the batch extent of x (the product of its leading axes)
	Training bool       // built in training mode

	rank int // of x; 0 for 2
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

// BatchNorm returns batch normalisation of x, of type dt[batch, features]
// (or dt[batch, ..., features], normalised over every axis but the last,
// as PyTorch's BatchNorm2d normalises a convolution's channels; the terms
// below then map over the leading axes, and the statistics read x with
// them flattened), feature by feature:
//
//	y = (x - mean) * rsqrt(var + eps) * scale + shift
//
// In inference mode (the default) mean and var are the parameters
// "<name>.mean" and "<name>.var", the running statistics, and the term is
//
//	map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + eps) * g + b) r mean var scale shift) x
//
// In training mode (opt.Training) mean and var are the statistics of the
// batch over axis 0, computed in one traversal of x from the sums of the
// deviations from a shift k, the first row of the batch:
//
//	let h = x in
//	let t = rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q)))
//	            (\r -> zip (\v k -> let d = v - stopgrad k in (d, d * d)) r (first 0 h)) h in
//	map (\r -> nzip (\v k s1 s2 g b -> let a = s1 / batch in
//	                                   (v - stopgrad k - a) * rsqrt (s2 / batch - a * a + eps) * g + b)
//	                r (first 0 h) (fst t) (snd t) scale shift) h
//
// t holds, feature by feature, S1 = Σ (x - k) and S2 = Σ (x - k)²; then
// a = S1/batch is mean - k, the mean is k + a and the biased variance is
// S2/batch - a². Why this formulation:
//
//   - One traversal. Both sums are one reduction whose accumulator is a
//     tuple (the product of two (+) reductions, written so in the term), so
//     fusion makes one kernel of the statistics, and folds a producer (the
//     dense layer before) into it like any reduction. The textbook
//     formulation needs the mean before the centred squares, two traversals.
//   - Accurate. The naive one-traversal formula E[x²] - E[x]² cancels
//     catastrophically when the mean is large against the spread: in f32,
//     for 1000 + N(0,1) it is off by a factor of up to 19 at batch 2, and
//     for 1e4 + 0.05 N(0,1) by 6e4 (layers/testdata/bn_stats.json). With
//     the shift, the sums are of deviations of the order of the spread, and
//     since k is an element of the batch, a² = (k - mean)² is at most
//     Σ (x - mean)² = batch · var: the cancellation in S2/batch - a² loses at most a
//     factor batch of the precision, and in practice nothing (k is one
//     standard deviation from the mean, typically). Against numpy's f64
//     variance the f32 variance is within 1e-6 relative on such data
//     (batchnorm_stats_test.go), better than the f32 two-pass formula on
//     1e4 + 0.05 N(0,1), 2% off because its f32 mean is off by ulps of
//     the running sum. The output subtracts the small a from the exact
//     difference v - k rather than the rounded mean from v, so it keeps
//     those digits too.
//   - Differentiable as written. k is read under stopgrad: the statistics
//     do not depend on the shift (d/dk of k + S1/batch and of
//     S2/batch - a² is 0), so it is a constant to autodiff, which then
//     needs no derivative of the first view (a scatter it does not build).
//     The gradient through the two sums is the usual BatchNorm gradient.
//   - Cheap shift. first 0 h is a view of row 0 (graph.FirstView), no
//     traversal; the running mean is no substitute (it is 0 at the first
//     step, where the shift would do nothing).
//
// x is bound to h (unless it is an input or a variable already) because it
// is read several times; the sharing is by let rather than by one node used
// in several places because the reference interpreter caches a shared
// node's value only where it is evaluated outside every lambda and let
// body; a node shared under the row lambdas was recomputed at every row,
// input included, which multiplied the cost by about 2·batch+1 per stacked
// layer.
//
// The variance is the biased one (divided by batch, not batch-1), which is
// what PyTorch, Keras and ONNX normalise with in training. A batch of 1 is
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
	// x is [batch, features], or [batch, ..., features] with the
	// statistics over every axis but the last (BatchNorm2d channels last).
	rank := 2
	if at, ok := typeOfArray(x); ok && at.Rank() > 2 {
		rank = at.Rank()
	}
	axes := []axis{{"batch", 0}}
	for i := 1; i < rank-1; i++ {
		axes = append(axes, axis{fmt.Sprintf("axis %d", i), 0})
	}
	xt, err := l.input(x, dt, append(axes, axis{"features", features})...)
	if err != nil {
		return nil, nil, err
	}
	batch := 1
	for _, a := range xt.Layout[:rank-1] {
		batch *= a.Extent
	}
	if opt.Training && batch < 2 {
		return nil, nil, l.errorf("training mode needs a batch of at least 2, got %d: the variance of one sample is 0", batch)
	}
	if rank > 2 {
		// The statistics read x as [batch, features], flattened: copy x
		// first where its leading axes do not flatten.
		lay := xt.Layout
		for lay.Rank() > 2 && err == nil {
			lay, err = lay.Flatten(0)
		}
		if err != nil {
			x = l.MapRank(rank, x, func(b *Builder, v graph.Node) graph.Node { return v })
		}
	}
	p := &BatchNormParams{Layer: name, Input: x, Batch: batch, Training: opt.Training, rank: rank}
	for _, q := range []struct {
		dst  **graph.Input
		name string
	}{{&p.Mean, "mean"}, {&p.Var, "var"}, {&p.Scale, "scale"}, {&p.Shift, "shift"}} {
		if *q.dst, err = l.param(q.name, dt, features); err != nil {
			return nil, nil, err
		}
	}
	var y graph.Node
	if opt.Training {
		y = l.withBatchStats(x, batch, rank, func(h graph.Node, st *batchStats) graph.Node {
			return l.mapRows(rank-1, h, func(r graph.Node) graph.Node {
				return l.Map(l.Lambda1("r", func(r graph.Node) graph.Node {
					return l.normalizeShifted(r, st, p.Scale, p.Shift, eps)
				}), r)
			})
		})
	} else {
		y = l.mapRows(rank-1, x, func(r graph.Node) graph.Node {
			return l.Map(l.Lambda1("r", func(r graph.Node) graph.Node {
				return l.normalize(r, p.Mean, p.Var, p.Scale, p.Shift, eps)
			}), r)
		})
	}
	if y, err = l.done(y); err != nil {
		return nil, nil, err
	}
	return y, p, nil
}

// batchStats are the batch statistics of a BatchNorm layer in training
// mode, as withBatchStats binds them: the shift k (the first row of the
// batch, a view) and the tuple t = (S1, S2) of the sums of x - k and
// (x - k)² over the batch. The scalar terms below read one feature of them
// inside a lambda.
type batchStats struct {
	l     *layer
	batch graph.Node // the batch size, a literal
	k, t  graph.Node // dt[features] and (dt[features], dt[features])
}

// offset is a = S1/batch = mean - k, from one element s1 of S1.
func (st *batchStats) offset(s1 graph.Node) graph.Node {
	return st.l.Div(s1, st.batch)
}

// variance is the biased variance S2/batch - a², from one element s2 of S2
// and the offset a.
func (st *batchStats) variance(s2, a graph.Node) graph.Node {
	return st.l.Sub(st.l.Div(s2, st.batch), st.l.Mul(a, a))
}

// mean is stopgrad k + a, from one element k1 of k and its offset a.
func (st *batchStats) mean(k1, a graph.Node) graph.Node {
	return st.l.Add(st.l.Call(graph.StopGrad, k1), a)
}

// withBatchStats returns
//
//	let h = x in
//	let t = rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q)))
//	            (\r -> zip (\v k -> let d = v - stopgrad k in (d, d * d)) r (first 0 h)) h in
//	body h {k: first 0 h, t}
//
// the shifted sums of x over its batch axis, axis 0 (of extent batch), in one reduction with
// a tuple accumulator; see BatchNorm for the formulation. When x is an
// input or a variable it is used as it is, without let h.
func (l *layer) withBatchStats(x graph.Node, batch, rank int, body func(h graph.Node, st *batchStats) graph.Node) graph.Node {
	stats := func(h graph.Node) graph.Node {
		rows := h // [batch, features]: h with its leading axes flattened
		for range rank - 2 {
			rows = l.View(graph.FlattenView{Axis: 0}, rows)
		}
		k := l.View(graph.FirstView{Axis: 0}, rows)
		deviations := l.Lambda1("r", func(r graph.Node) graph.Node {
			return l.Zip(l.Lambda([]string{"v", "k"}, func(vs []graph.Node) graph.Node {
				return l.Let("d", l.Sub(vs[0], l.Call(graph.StopGrad, vs[1])), func(d graph.Node) graph.Node {
					return l.Tuple(d, l.Mul(d, d))
				})
			}), r, k)
		})
		sums := l.Lambda([]string{"p", "q"}, func(vs []graph.Node) graph.Node {
			p, q := vs[0], vs[1]
			return l.Tuple(l.Zip(l.Op(graph.Add), l.Proj(0, p), l.Proj(0, q)), l.Zip(l.Op(graph.Add), l.Proj(1, p), l.Proj(1, q)))
		})
		return l.Let("t", l.RNZ(sums, deviations, rows), func(t graph.Node) graph.Node {
			return body(h, &batchStats{l: l, batch: l.Const(float64(batch)), k: k, t: t})
		})
	}
	switch x.(type) {
	case *graph.Input, *graph.Var:
		return stats(x)
	}
	return l.Let("h", x, stats)
}

// normalizeShifted returns
//
//	nzip (\v k s1 s2 g b -> let a = s1 / batch in
//	                        (v - stopgrad k - a) * rsqrt (s2 / batch - a * a + eps) * g + b)
//	     r k (fst t) (snd t) scale shift
//
// one row normalised feature by feature with the batch statistics st. It
// subtracts k, then a, rather than the mean: v - k is exact where v and k
// are close, as they are when the mean is large against the spread, and a
// is small, so no digit of v - mean is lost to the rounding of the mean.
// The sums come as two arrays, fst t and snd t, rather than as the tuple
// t: the backward pass's cotangent of a tuple argument is a tuple nested
// in its own reduction's accumulator, which the native back end runs
// several times slower (12 ms against 0.9 ms for BatchNorm's backward
// sums at batch 32 by 512 features, one thread).
func (l *layer) normalizeShifted(r graph.Node, st *batchStats, scale, shift graph.Node, eps float64) graph.Node {
	fn := l.Lambda([]string{"v", "k", "s1", "s2", "g", "b"}, func(vs []graph.Node) graph.Node {
		v, k, s1, s2, g, b := vs[0], vs[1], vs[2], vs[3], vs[4], vs[5]
		return l.Let("a", st.offset(s1), func(a graph.Node) graph.Node {
			inv := l.Call(graph.Rsqrt, l.Add(st.variance(s2, a), l.Const(eps)))
			centred := l.Sub(l.Sub(v, l.Call(graph.StopGrad, k)), a)
			return l.Add(l.Mul(l.Mul(centred, inv), g), b)
		})
	})
	return l.NZip(fn, r, st.k, l.Proj(0, st.t), l.Proj(1, st.t), scale, shift)
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
	rank := max(p.rank, 2)
	y := l.withBatchStats(p.Input, p.Batch, rank, func(_ graph.Node, st *batchStats) graph.Node {
		mean := l.Zip(l.Lambda([]string{"k", "s1"}, func(vs []graph.Node) graph.Node {
			return st.mean(vs[0], st.offset(vs[1]))
		}), st.k, l.Proj(0, st.t))
		variance := l.Zip(l.Lambda([]string{"s1", "s2"}, func(vs []graph.Node) graph.Node {
			return l.Let("a", st.offset(vs[0]), func(a graph.Node) graph.Node { return st.variance(vs[1], a) })
		}), l.Proj(0, st.t), l.Proj(1, st.t))
		return l.Tuple(l.Zip(update(1), p.Mean, mean), l.Zip(update(unbiased), p.Var, variance))
	})
	return l.done(y)
}

// typeOfArray returns the array type of the closed term x, when it checks
// as one.
func typeOfArray(x graph.Node) (*graph.ArrayType, bool) {
	if x == nil {
		return nil, false
	}
	info, err := graph.Check(x)
	if err != nil {
		return nil, false
	}
	at, ok := info.TypeOf(x).(*graph.ArrayType)
	return at, ok
}
