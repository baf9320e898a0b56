package layers

import "github.com/hofuse/hofuse/graph"

// DefaultLayerNormEps is the epsilon LayerNorm adds to the variance when
// LayerNormOptions.Eps is 0. It is PyTorch's (nn.LayerNorm eps) and ONNX's
// (LayerNormalization epsilon) default; Keras's LayerNormalization uses
// 1e-3.
const DefaultLayerNormEps = 1e-5

// LayerNormOptions configure LayerNorm.
type LayerNormOptions struct {
	// Eps is added to the variance before its square root is taken; 0 means
	// DefaultLayerNormEps. It must not be negative.
	Eps float64
}

// LayerNormParams are the parameters of a LayerNorm layer.
type LayerNormParams struct {
	Scale *graph.Input // "<layer>.scale": γ, dt[features]
	Shift *graph.Input // "<layer>.shift": β, dt[features]
}

// Params lists the parameters, Scale first.
func (p *LayerNormParams) Params() []*graph.Input { return []*graph.Input{p.Scale, p.Shift} }

// LayerNorm returns layer normalisation of x, of type dt[batch, features]:
// every row is normalised with its own mean and biased variance over the
// feature axis, then scaled and shifted feature by feature. The term is
//
//	map (\r -> let m = reduce (+) r / features in
//	           let k = rsqrt (rnz (+) (\v -> (v - m) * (v - m)) r / features + eps) in
//	           nzip (\v g b -> (v - m) * k * g + b) r scale shift) x
//
// The row statistics depend on the row, so they are bound with let inside
// the lambda rather than shared as nodes; k, the reciprocal standard
// deviation, is computed once per row. The variance is the centred
// two-pass one, not BatchNorm's shifted one-traversal sums: both passes
// read the one row while it is in cache, inside the kernel that computes
// the row (a dense layer's), and a shift would have to be the row's first
// element read from a materialised input (first 1 x), which would cut the
// layer off its producer's kernel for no saving in memory traffic. Training and inference compute
// the same thing; there are no running statistics. The variance is the
// biased one in PyTorch, Keras and ONNX alike; scale and shift are
// PyTorch's weight and bias, Keras's gamma and beta, ONNX's Scale and B.
func LayerNorm(name string, x graph.Node, features int, dt graph.DType, opt LayerNormOptions) (graph.Node, *LayerNormParams, error) {
	l := newLayer("LayerNorm", name)
	if err := l.validate(dt); err != nil {
		return nil, nil, err
	}
	if err := l.positive("features", features); err != nil {
		return nil, nil, err
	}
	eps, err := l.eps(opt.Eps, DefaultLayerNormEps)
	if err != nil {
		return nil, nil, err
	}
	if _, err := l.input(x, dt, axis{"batch", 0}, axis{"features", features}); err != nil {
		return nil, nil, err
	}
	p := &LayerNormParams{}
	if p.Scale, err = l.param("scale", dt, features); err != nil {
		return nil, nil, err
	}
	if p.Shift, err = l.param("shift", dt, features); err != nil {
		return nil, nil, err
	}
	n := float64(features)
	y := l.Map(l.Lambda1("r", func(r graph.Node) graph.Node {
		mean := l.Div(l.Reduce(l.Op(graph.Add), r), l.Const(n))
		return l.Let("m", mean, func(m graph.Node) graph.Node {
			sq := l.Lambda1("v", func(v graph.Node) graph.Node {
				d := l.Sub(v, m)
				return l.Mul(d, d)
			})
			variance := l.Div(l.RNZ(l.Op(graph.Add), sq, r), l.Const(n))
			inv := l.Call(graph.Rsqrt, l.Add(variance, l.Const(eps)))
			return l.Let("k", inv, func(k graph.Node) graph.Node {
				fn := l.Lambda([]string{"v", "g", "b"}, func(vs []graph.Node) graph.Node {
					return l.Add(l.Mul(l.Mul(l.Sub(vs[0], m), k), vs[1]), vs[2])
				})
				return l.NZip(fn, r, p.Scale, p.Shift)
			})
		})
	}), x)
	if y, err = l.done(y); err != nil {
		return nil, nil, err
	}
	return y, p, nil
}
