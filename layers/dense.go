package layers

import "github.com/hofuse/hofuse/graph"

// DenseParams are the parameters of a Dense layer.
type DenseParams struct {
	W *graph.Input // "<layer>.W": dt[in, out]
	B *graph.Input // "<layer>.b": dt[out]
}

// Params lists the parameters, W first.
func (p *DenseParams) Params() []*graph.Input { return []*graph.Input{p.W, p.B} }

// Dense returns the fully connected layer y = x W + b for x of type
// dt[batch, in], with the parameters W: dt[in, out] ("<name>.W") and
// b: dt[out] ("<name>.b"); y has type dt[batch, out]. The term is
//
//	map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) x
//
// each row r of x is multiplied with each column c of W (the columns of W
// are the rows of flip 0 W) and b is added to the resulting row.
//
// W is stored [in, out], as in Keras (kernel) and in ONNX Gemm without
// transB; PyTorch's nn.Linear stores weight as [out, in] and computes
// x weightᵀ + bias, so a PyTorch weight is this W flipped.
func Dense(name string, x graph.Node, in, out int, dt graph.DType) (graph.Node, *DenseParams, error) {
	l := newLayer("Dense", name)
	if err := l.validate(dt); err != nil {
		return nil, nil, err
	}
	if err := l.positive("in", in); err != nil {
		return nil, nil, err
	}
	if err := l.positive("out", out); err != nil {
		return nil, nil, err
	}
	if _, err := l.input(x, dt, axis{"batch", 0}, axis{"in", in}); err != nil {
		return nil, nil, err
	}
	w, err := l.param("W", dt, in, out)
	if err != nil {
		return nil, nil, err
	}
	bias, err := l.param("b", dt, out)
	if err != nil {
		return nil, nil, err
	}
	cols := l.Flip(0, 1, w)
	y := l.Map(l.Lambda1("r", func(r graph.Node) graph.Node {
		dots := l.Map(l.Lambda1("c", func(c graph.Node) graph.Node {
			return l.RNZ(l.Op(graph.Add), l.Op(graph.Mul), r, c)
		}), cols)
		return l.Zip(l.Op(graph.Add), dots, bias)
	}), x)
	y, err = l.done(y)
	if err != nil {
		return nil, nil, err
	}
	return y, &DenseParams{W: w, B: bias}, nil
}
