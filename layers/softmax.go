package layers

import "github.com/hofuse/hofuse/graph"

// Softmax returns the softmax of x, an f32 or f64 array of any rank, over
// its innermost axis (axis -1, the default of Keras and of ONNX since
// opset 13; PyTorch asks for the axis). It is numerically stable: each row
// is shifted by its maximum before exp, so exp never overflows. For a row
// r the term is
//
//	let m = reduce max r in
//	let s = rnz (+) (\v -> exp (v - m)) r in
//	map (\v -> exp (v - m) / s) r
//
// nested in one map per outer axis: map (\r -> …) x for rank 2. The row's
// exps are computed twice, once for the sum and once for the output, rather
// than stored in a temporary row; both the max and the sum are rnz
// reductions over the row.
func Softmax(name string, x graph.Node) (graph.Node, error) {
	l := newLayer("Softmax", name)
	if l.name == "" {
		return nil, &Error{Kind: l.kind, Msg: "empty layer name"}
	}
	xt, err := l.floatArray(x)
	if err != nil {
		return nil, err
	}
	y := l.mapRows(xt.Rank(), x, func(r graph.Node) graph.Node {
		return l.Let("m", l.Reduce(l.Op(graph.Max), r), func(m graph.Node) graph.Node {
			shifted := func(v graph.Node) graph.Node { return l.Call(graph.Exp, l.Sub(v, m)) }
			sum := l.RNZ(l.Op(graph.Add), l.Lambda1("v", shifted), r)
			return l.Let("s", sum, func(s graph.Node) graph.Node {
				return l.Map(l.Lambda1("v", func(v graph.Node) graph.Node {
					return l.Div(shifted(v), s)
				}), r)
			})
		})
	})
	return l.done(y)
}
