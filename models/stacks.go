package models

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

// The memory-bound layer stacks hofuse bench stack times, where fusion
// must save passes over memory rather than arithmetic.

// SoftmaxOperators is the softmax over the last axis of x, a rank-2
// array, as an exporter writes it: ONNX Softmax-13's function body, m =
// ReduceMax(x, keepdims), e = Exp(Sub(x, m)), Div(e, ReduceSum(e,
// keepdims)), each operator built by imports/nd as the ONNX importer
// builds it. Unfused, it runs one kernel per operator with a temporary
// between each; layers.Softmax is the same function as one layer.
func SoftmaxOperators(x graph.Node) (graph.Node, error) {
	m, err := nd.Ops{Source: "reducemax"}.Reduce(nd.Max, x, []int{1}, true)
	if err != nil {
		return nil, err
	}
	d, err := nd.Ops{Source: "sub"}.Binary(graph.Sub, x, m)
	if err != nil {
		return nil, err
	}
	e, err := nd.Ops{Source: "exp"}.Unary(graph.Exp, d)
	if err != nil {
		return nil, err
	}
	s, err := nd.Ops{Source: "reducesum"}.Reduce(nd.Sum, e, []int{1}, true)
	if err != nil {
		return nil, err
	}
	return nd.Ops{Source: "div"}.Binary(graph.Div, e, s)
}

// LNGELUResidual is x + GELU(LayerNorm(x)) over the rows of x, a
// dt[rows, features] array: three layers ("ln", "gelu" and "residual"),
// with the LayerNorm's parameters.
func LNGELUResidual(x graph.Node, features int, dt graph.DType) (graph.Node, *layers.LayerNormParams, error) {
	h, p, err := layers.LayerNorm("ln", x, features, dt, layers.LayerNormOptions{})
	if err != nil {
		return nil, nil, err
	}
	if h, err = layers.GELU("gelu", h); err != nil {
		return nil, nil, err
	}
	b := layers.NewBuilder("residual")
	add := b.Lambda([]string{"r", "s"}, func(vs []graph.Node) graph.Node { return b.Zip(b.Op(graph.Add), vs[0], vs[1]) })
	out, err := b.Done(b.Zip(add, x, h))
	if err != nil {
		return nil, nil, err
	}
	return out, p, nil
}
