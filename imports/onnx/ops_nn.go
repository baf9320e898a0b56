package onnx

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	register(
		&converter{op: "Gemm", since: 6, convert: convGemm},
		&converter{op: "MatMul", since: 1, convert: convMatMul},
		&converter{op: "Einsum", since: 12, check: checkEinsum, convert: convEinsum},
		&converter{op: "Softmax", since: 1, until: 12, convert: convSoftmax(false)},
		&converter{op: "Softmax", since: 13, convert: convSoftmax(false)},
		&converter{op: "LogSoftmax", since: 1, until: 12, convert: convSoftmax(true)},
		&converter{op: "LogSoftmax", since: 13, convert: convSoftmax(true)},
		&converter{op: "BatchNormalization", since: 6, until: 13, check: checkBatchNorm, convert: convBatchNorm},
		&converter{op: "BatchNormalization", since: 14, check: checkBatchNorm, convert: convBatchNorm},
		&converter{op: "LayerNormalization", since: 17, convert: convLayerNorm},
		&converter{op: "InstanceNormalization", since: 6, convert: convInstanceNorm},
		&converter{op: "ReduceSum", since: 1, until: 12, convert: convReduce(nd.Sum, 13)},
		&converter{op: "ReduceSum", since: 13, needKnown: []int{1}, convert: convReduce(nd.Sum, 13)},
		&converter{op: "ReduceMean", since: 1, until: 17, convert: convReduce(nd.Mean, 18)},
		&converter{op: "ReduceMean", since: 18, needKnown: []int{1}, convert: convReduce(nd.Mean, 18)},
		&converter{op: "ReduceMax", since: 1, until: 17, convert: convReduce(nd.Max, 18)},
		&converter{op: "ReduceMax", since: 18, needKnown: []int{1}, convert: convReduce(nd.Max, 18)},
		&converter{op: "ReduceMin", since: 1, until: 17, convert: convReduce(nd.Min, 18)},
		&converter{op: "ReduceMin", since: 18, needKnown: []int{1}, convert: convReduce(nd.Min, 18)},
		&converter{op: "ReduceProd", since: 1, until: 17, convert: convReduce(nd.Prod, 18)},
		&converter{op: "ReduceProd", since: 18, needKnown: []int{1}, convert: convReduce(nd.Prod, 18)},
		&converter{op: "ReduceSumSquare", since: 1, until: 17, convert: convReduce(nd.SumSquare, 18)},
		&converter{op: "ReduceSumSquare", since: 18, needKnown: []int{1}, convert: convReduce(nd.SumSquare, 18)},
		&converter{op: "ReduceL1", since: 1, until: 17, convert: convReduce(nd.L1, 18)},
		&converter{op: "ReduceL1", since: 18, needKnown: []int{1}, convert: convReduce(nd.L1, 18)},
		&converter{op: "ReduceL2", since: 1, until: 17, convert: convReduce(nd.L2, 18)},
		&converter{op: "ReduceL2", since: 18, needKnown: []int{1}, convert: convReduce(nd.L2, 18)},
		&converter{op: "ReduceLogSum", since: 1, until: 17, convert: convReduce(nd.LogSum, 18)},
		&converter{op: "ReduceLogSum", since: 18, needKnown: []int{1}, convert: convReduce(nd.LogSum, 18)},
		&converter{op: "ReduceLogSumExp", since: 1, until: 17, convert: convReduce(nd.LogSumExp, 18)},
		&converter{op: "ReduceLogSumExp", since: 18, needKnown: []int{1}, convert: convReduce(nd.LogSumExp, 18)},
		&converter{op: "ArgMax", since: 1, convert: convArg(true)},
		&converter{op: "ArgMin", since: 1, convert: convArg(false)},
	)
}

// convGemm: alpha·A'·B' + beta·C, A' = A or its transpose (transA), B'
// likewise (transB); C broadcasts one way to the result and is required
// before opset 11, optional from it.
func convGemm(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	var cc graph.Node
	if c.has(2) {
		if cc, err = c.in(2); err != nil {
			return err
		}
	} else if c.opset < 11 {
		return c.errorf("input C is required before opset 11")
	}
	alpha, err := c.attrFloat("alpha", 1)
	if err != nil {
		return err
	}
	beta, err := c.attrFloat("beta", 1)
	if err != nil {
		return err
	}
	ta, err := c.attrInt("transA", 0)
	if err != nil {
		return err
	}
	tb, err := c.attrInt("transB", 0)
	if err != nil {
		return err
	}
	y, err := c.ops().Gemm(a, b, cc, alpha, beta, ta != 0, tb != 0)
	if err != nil {
		return c.wrap(err, "gemm")
	}
	c.out(0, y)
	return nil
}

// convMatMul: numpy.matmul of the two inputs.
func convMatMul(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	y, err := c.ops().MatMul(a, b)
	if err != nil {
		return c.wrap(err, "matmul")
	}
	c.out(0, y)
	return nil
}

// checkEinsum refuses an Einsum without its equation.
func checkEinsum(n *onnxpb.NodeProto, _ int) string {
	if a := attr(n, "equation"); a == nil || len(a.GetS()) == 0 {
		return "attribute equation is missing"
	}
	return ""
}

// convEinsum converts Einsum(equation; Inputs...): numpy.einsum's
// semantics, which ONNX's specification follows, through nd.Einsum (which
// refuses a label repeated within one term, a diagonal).
func convEinsum(c *ctx) error {
	eq, err := c.attrString("equation", "")
	if err != nil {
		return err
	}
	xs := make([]graph.Node, c.nin())
	for i := range xs {
		if xs[i], err = c.in(i); err != nil {
			return err
		}
	}
	y, err := c.ops().Einsum(eq, xs...)
	if err != nil {
		return c.wrap(err, "equation %q", eq)
	}
	c.out(0, y)
	return nil
}

// convSoftmax converts Softmax and LogSoftmax with the semantics of the
// node's opset. Up to opset 12 the input is seen as a matrix: the axes
// before axis (default 1) are the rows, axis and every axis after it
// together are one row of the softmax, and the result has the input's
// shape. From opset 13 the softmax runs along the one axis axis (default
// -1). The two agree when axis is the last axis.
func convSoftmax(log bool) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		ext, err := c.shapeOf(0)
		if err != nil {
			return err
		}
		r := len(ext)
		def := int64(-1)
		if c.opset <= 12 {
			def = 1
		}
		axis64, err := c.attrInt("axis", def)
		if err != nil {
			return err
		}
		axis := int(axis64)
		if axis < -r || axis >= r {
			return c.errorf("axis %d is out of range for rank %d", axis, r)
		}
		if axis < 0 {
			axis += r
		}
		ops := c.ops()
		f := ops.Softmax
		if log {
			f = ops.LogSoftmax
		}
		var y graph.Node
		if c.opset >= 13 {
			y, err = f(x, axis)
		} else {
			y, err = ops.SoftmaxFlattened(x, axis, log)
		}
		if err != nil {
			return c.wrap(err, "axis %d", axis)
		}
		c.out(0, y)
		return nil
	}
}

// checkBatchNorm refuses training: training_mode=1 (opset 14 and later),
// is_test=0 (opset 6, where it is the default), the statistics outputs
// (which only training produces), spatial=0 (opsets 6 to 8).
func checkBatchNorm(n *onnxpb.NodeProto, opset int) string {
	if v, set := intAttrIs(n, "training_mode", 0); set {
		return fmt.Sprintf("training_mode=%d is not supported: hofuse imports BatchNormalization for inference (export the model in eval mode)", v)
	}
	for i, o := range n.GetOutput() {
		if i > 0 && o != "" {
			return "the running statistics outputs are produced in training only, which is not supported (export the model in eval mode)"
		}
	}
	if opset <= 6 {
		if _, set := intAttrIs(n, "is_test", 1); set {
			return "is_test=0 (training) is not supported: hofuse imports BatchNormalization for inference (export the model in eval mode)"
		}
	}
	if opset <= 8 {
		if _, set := intAttrIs(n, "spatial", 1); set {
			return "spatial=0 (statistics per element) is not supported"
		}
	}
	return ""
}

// convBatchNorm is BatchNormalization in inference: for input X of shape
// [N, C, D1, …] and per-channel scale, B, mean and var of shape [C],
//
//	Y = (X − mean) / sqrt(var + epsilon) · scale + B
//
// with the parameters broadcast along the channel axis 1 (epsilon
// default 1e-5; momentum plays no part in inference), computed as
// (X − mean) · k + B with k = (1 / sqrt(var + epsilon)) · scale, a factor
// per channel that the back ends compute once, as TensorFlow's importer
// and layers.BatchNorm multiply by the reciprocal root: within a few ulps
// of the quotient's form, and a product instead of a division for each
// element (a division is a tenth of a multiplication's throughput).
func convBatchNorm(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	if len(ext) < 2 {
		return c.errorf("input X has shape %v, want rank 2 or more ([N, C, …])", ext)
	}
	eps, err := c.attrFloat("epsilon", 1e-5)
	if err != nil {
		return err
	}
	ps := make([]graph.Node, 4) // scale, B, mean, var
	for i := range ps {
		if ps[i], err = c.in(i + 1); err != nil {
			return err
		}
		pe, err := c.shapeOf(i + 1)
		if err != nil {
			return err
		}
		if len(pe) != 1 || pe[0] != ext[1] {
			return c.errorf("input %d (%s) has shape %v, want [%d] (the channels of X %v)", i+1, []string{"scale", "B", "mean", "var"}[i], pe, ext[1], ext)
		}
		if len(ext) > 2 {
			axes := make([]int, len(ext)-2)
			for k := range axes {
				axes[k] = k + 1
			}
			if ps[i], err = c.ops().Unsqueeze(ps[i], axes); err != nil {
				return c.wrap(err, "input %d", i+1)
			}
		}
	}
	y, err := c.ops().ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		v, scale, bias, mean, variance := vs[0], vs[1], vs[2], vs[3], vs[4]
		k := b.Mul(b.Call(graph.Rsqrt, b.Add(variance, b.Const(eps))), scale)
		return b.Add(b.Mul(b.Sub(v, mean), k), bias)
	}, x, ps[0], ps[1], ps[2], ps[3])
	if err != nil {
		return c.wrap(err, "normalizing")
	}
	c.out(0, y)
	return nil
}

// convLayerNorm (opset 17): X normalised over the axes from axis
// (default −1) to the last, then scaled and shifted:
//
//	m = mean(X), d = X − m, v = mean(d·d)
//	Y = d · (1 / sqrt(v + epsilon)) · Scale + B
//
// Scale and the optional B broadcast over the normalised axes (epsilon
// default 1e-5). The computation is in the input's type. The optional
// outputs Mean (m) and InvStdDev (1 / sqrt(v + epsilon)) keep the
// normalised axes with extent 1 and are converted to stash_type (default
// float).
func convLayerNorm(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	r := len(ext)
	axis64, err := c.attrInt("axis", -1)
	if err != nil {
		return err
	}
	axis := int(axis64)
	if axis < -r || axis >= r {
		return c.errorf("axis %d is out of range for rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	eps, err := c.attrFloat("epsilon", 1e-5)
	if err != nil {
		return err
	}
	axes := make([]int, 0, r-axis)
	for a := axis; a < r; a++ {
		axes = append(axes, a)
	}
	ops := c.ops()
	mean, d, variance, err := c.moments(x, axes)
	if err != nil {
		return err
	}
	inv, err := ops.Map(variance, func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Div(b.Const(1), b.Call(graph.Sqrt, b.Add(v, b.Const(eps))))
	})
	if err != nil {
		return c.wrap(err, "deviation")
	}
	scale, err := c.in(1)
	if err != nil {
		return err
	}
	args := []graph.Node{d, inv, scale}
	if c.has(2) {
		bias, err := c.in(2)
		if err != nil {
			return err
		}
		args = append(args, bias)
	}
	y, err := ops.ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		y := b.Mul(b.Mul(vs[0], vs[1]), vs[2])
		if len(vs) == 4 {
			y = b.Add(y, vs[3])
		}
		return y
	}, args...)
	if err != nil {
		return c.wrap(err, "scaling")
	}
	c.out(0, y)
	stash, err := c.attrInt("stash_type", int64(tFloat))
	if err != nil {
		return err
	}
	sdt, ok := dtypeOf(int32(stash))
	if !ok || !sdt.IsFloat() {
		return c.errorf("stash_type %s is not float or double", elemName(int32(stash)))
	}
	for i, stat := range []graph.Node{mean, inv} {
		if len(c.node.GetOutput()) > i+1 && c.node.GetOutput()[i+1] != "" {
			v, err := ops.Cast(stat, sdt)
			if err != nil {
				return c.wrap(err, "output %d", i+1)
			}
			c.out(i+1, v)
		}
	}
	return nil
}

// convInstanceNorm: each channel of each instance of X [N, C, D1, …]
// normalised over its spatial axes, then scaled and shifted per channel:
//
//	m = mean over D1, … of X, v = mean of (X − m)²
//	Y = scale · (X − m) / sqrt(v + epsilon) + B
//
// with scale and B of shape [C] and epsilon default 1e-5.
func convInstanceNorm(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	if len(ext) < 3 {
		return c.errorf("input X has shape %v, want rank 3 or more ([N, C, D1, …])", ext)
	}
	eps, err := c.attrFloat("epsilon", 1e-5)
	if err != nil {
		return err
	}
	spatial := make([]int, len(ext)-2)
	for i := range spatial {
		spatial[i] = i + 2
	}
	ps := make([]graph.Node, 2) // scale, B
	for i := range ps {
		if ps[i], err = c.in(i + 1); err != nil {
			return err
		}
		pe, err := c.shapeOf(i + 1)
		if err != nil {
			return err
		}
		if len(pe) != 1 || pe[0] != ext[1] {
			return c.errorf("input %d (%s) has shape %v, want [%d] (the channels of X %v)", i+1, []string{"scale", "B"}[i], pe, ext[1], ext)
		}
		unsq := make([]int, len(ext)-2)
		for k := range unsq {
			unsq[k] = k + 1
		}
		if ps[i], err = c.ops().Unsqueeze(ps[i], unsq); err != nil {
			return c.wrap(err, "input %d", i+1)
		}
	}
	ops := c.ops()
	_, d, variance, err := c.moments(x, spatial)
	if err != nil {
		return err
	}
	y, err := ops.ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		norm := b.Div(vs[0], b.Call(graph.Sqrt, b.Add(vs[1], b.Const(eps))))
		return b.Add(b.Mul(vs[2], norm), vs[3])
	}, d, variance, ps[0], ps[1])
	if err != nil {
		return c.wrap(err, "normalizing")
	}
	c.out(0, y)
	return nil
}

// convReduce converts ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and
// ReduceLogSumExp (nd.Reduce's kinds): the input reduced over axes, which
// is an attribute before opset from and the optional input 1 from it
// (ReduceSum 13, the others 18). No axes means
// every axis, or with noop_with_empty_axes=1 (in the input form) the
// input unchanged. keepdims (default 1) keeps each reduced axis with
// extent 1. ReduceMax and ReduceMin of a bool input (opset 20) are
// "any" and "all".
func convReduce(kind nd.ReduceKind, from int) func(c *ctx) error {
	return func(c *ctx) error {
		axes, ok, err := c.axesArg(from)
		if err != nil {
			return err
		}
		keep, err := c.attrInt("keepdims", 1)
		if err != nil {
			return err
		}
		x, err := c.in(0)
		if err != nil {
			return err
		}
		ext, err := c.shapeOf(0)
		if err != nil {
			return err
		}
		if !ok || len(axes) == 0 {
			noop := int64(0)
			if c.opset >= from {
				if noop, err = c.attrInt("noop_with_empty_axes", 0); err != nil {
					return err
				}
			}
			if noop != 0 {
				c.out(0, x)
				return nil
			}
			axes = make([]int, len(ext))
			for i := range axes {
				axes[i] = i
			}
		}
		norm, err := c.normAxes(axes, len(ext))
		if err != nil {
			return err
		}
		if dt, _, _ := nd.Shape(x); dt == graph.Bool && (kind == nd.Max || kind == nd.Min) {
			return c.reduceBool(kind, x, norm, keep != 0)
		}
		y, err := c.ops().Reduce(kind, x, norm, keep != 0)
		if err != nil {
			return c.wrap(err, "axes %v", axes)
		}
		c.out(0, y)
		return nil
	}
}

// reduceBool is ReduceMax (any) and ReduceMin (all) of a bool input
// (opset 20): the booleans as 0 and 1 in f32, reduced, compared with 0.
func (c *ctx) reduceBool(kind nd.ReduceKind, x graph.Node, axes []int, keep bool) error {
	ops := c.ops()
	f, err := ops.Map(x, func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Call(graph.Select, v, b.Call(graph.ToF32, b.Const(1)), b.Call(graph.ToF32, b.Const(0)))
	})
	if err != nil {
		return c.wrap(err, "input data")
	}
	r, err := ops.Reduce(kind, f, axes, keep)
	if err != nil {
		return c.wrap(err, "axes %v", axes)
	}
	y, err := ops.Map(r, func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Gt, v, b.Const(0)) })
	if err != nil {
		return c.wrap(err, "axes %v", axes)
	}
	c.out(0, y)
	return nil
}

// convArg converts ArgMax and ArgMin: the index of the largest (smallest)
// element along axis (default 0), the first among equals or, with
// select_last_index=1 (opset 12), the last; keepdims (default 1) keeps the
// axis with extent 1. ONNX's result is int64; hofuse's is i32.
func convArg(largest bool) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		axis, err := c.attrInt("axis", 0)
		if err != nil {
			return err
		}
		keep, err := c.attrInt("keepdims", 1)
		if err != nil {
			return err
		}
		last, err := c.attrInt("select_last_index", 0)
		if err != nil {
			return err
		}
		f := c.ops().ArgMax
		if !largest {
			f = c.ops().ArgMin
		}
		y, err := f(x, int(axis), keep != 0, last != 0)
		if err != nil {
			return c.wrap(err, "axis %d", axis)
		}
		c.out(0, y)
		return nil
	}
}

// moments returns the mean of x over axes (kept with extent 1), x minus
// it, and the mean of that difference squared: the variance, computed as
// LayerNormalization's and InstanceNormalization's specifications write
// it.
func (c *ctx) moments(x graph.Node, axes []int) (mean, d, variance graph.Node, err error) {
	ops := c.ops()
	if mean, err = ops.Reduce(nd.Mean, x, axes, true); err != nil {
		return nil, nil, nil, c.wrap(err, "mean")
	}
	if d, err = ops.Binary(graph.Sub, x, mean); err != nil {
		return nil, nil, nil, c.wrap(err, "centering")
	}
	sq, err := ops.Map(d, func(b *layers.Builder, v graph.Node) graph.Node { return b.Mul(v, v) })
	if err != nil {
		return nil, nil, nil, c.wrap(err, "squaring")
	}
	if variance, err = ops.Reduce(nd.Mean, sq, axes, true); err != nil {
		return nil, nil, nil, c.wrap(err, "variance")
	}
	return mean, d, variance, nil
}
