package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

// convMatMul converts MatMul(a, b; transpose_a, transpose_b): the matrix
// product of two rank-2 tensors, a transposed first when transpose_a is
// set and b when transpose_b is: [m,k] x [k,n] -> [m,n]. A transpose is a
// view (a flip), so nothing is copied.
func convMatMul(c *converter, n *node, in []value) ([]value, error) {
	ta, err := attrBool(n, "transpose_a", false)
	if err != nil {
		return nil, err
	}
	tb, err := attrBool(n, "transpose_b", false)
	if err != nil {
		return nil, err
	}
	o := nd.Ops{Source: n.name}
	var ab [2]graph.Node
	for i, t := range []bool{ta, tb} {
		what := [2]string{"a", "b"}[i]
		x, err := c.data(in[i])
		if err != nil {
			return nil, err
		}
		if r := rankOf(in[i].typ); r != 2 {
			return nil, fmt.Errorf("%s has rank %d (%v); MatMul multiplies matrices (BatchMatMul is not supported)", what, r, in[i].typ)
		}
		if t {
			if x, err = o.Transpose(x, []int{1, 0}); err != nil {
				return nil, err
			}
		}
		ab[i] = x
	}
	return c.result(o.MatMul(ab[0], ab[1]))
}

// checkNHWC refuses a data_format other than NHWC, the default.
func checkNHWC(n *node) string {
	f, err := attrString(n, "data_format", "NHWC")
	if err != nil {
		return err.Error()
	}
	if f != "NHWC" {
		return fmt.Sprintf("data_format %s is not supported (only NHWC, channels last)", f)
	}
	return ""
}

// convBiasAdd converts BiasAdd(value, bias; data_format NHWC): value +
// bias, bias a vector as long as value's last axis (the channels, in
// NHWC), added along it. NCHW is refused by the coverage pass.
func convBiasAdd(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	xe := extentsOf(in[0].typ)
	be := extentsOf(in[1].typ)
	if len(xe) < 2 {
		return nil, fmt.Errorf("value has rank %d (%v); BiasAdd needs rank 2 or more", len(xe), in[0].typ)
	}
	if len(be) != 1 || be[0] != xe[len(xe)-1] {
		return nil, fmt.Errorf("bias is %v; it must be a vector of the %d channels of value's last axis (value is %v)", in[1].typ, xe[len(xe)-1], in[0].typ)
	}
	b, err := c.data(in[1])
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.Binary(graph.Add, x, b))
}

// checkBatchNorm refuses training mode (is_training, whose default in
// TensorFlow's op registry is true) and a layout other than NHWC.
func checkBatchNorm(n *node) string {
	train, err := attrBool(n, "is_training", true)
	if err != nil {
		return err.Error()
	}
	if train {
		return "is_training=true (training mode: batch statistics) is not supported; export the graph for inference (is_training=false, as a frozen Keras model in inference mode has)"
	}
	return checkNHWC(n)
}

// convFusedBatchNorm converts FusedBatchNormV3(x, scale, offset, mean,
// variance; epsilon, is_training=false, data_format NHWC) in inference
// mode: y = (x - mean) * rsqrt(variance + epsilon) * scale + offset, the
// four vectors as long as x's last axis (the channels) and broadcast along
// it. Only output 0, y, is imported; the others (batch statistics and
// reserve space) are training's. epsilon defaults to 0.0001.
// FusedBatchNorm and FusedBatchNormV2, which older TensorFlow versions
// write, compute the same y from the same inputs and attributes.
func convFusedBatchNorm(c *converter, n *node, in []value) ([]value, error) {
	eps, err := attrFloat(n, "epsilon", 0.0001)
	if err != nil {
		return nil, err
	}
	xe := extentsOf(in[0].typ)
	if len(xe) < 2 {
		return nil, fmt.Errorf("x has rank %d (%v); the batch norm needs the channels as the last axis of rank 2 or more", len(xe), in[0].typ)
	}
	channels := xe[len(xe)-1]
	args := make([]graph.Node, 5)
	for i, what := range []string{"x", "scale", "offset", "mean", "variance"} {
		if i > 0 {
			if e := extentsOf(in[i].typ); len(e) != 1 || e[0] != channels {
				return nil, fmt.Errorf("%s is %v; it must be a vector of the %d channels of x's last axis (x is %v)", what, in[i].typ, channels, in[0].typ)
			}
		}
		a, err := c.floatData(in[i], what)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	y, err := nd.Ops{Source: n.name}.ZipWith(func(b *layers.Builder, v ...graph.Node) graph.Node {
		x, scale, offset, mean, variance := v[0], v[1], v[2], v[3], v[4]
		inv := b.Call(graph.Rsqrt, b.Add(variance, b.Const(float64(eps))))
		return b.Add(b.Mul(b.Mul(b.Sub(x, mean), inv), scale), offset)
	}, args...)
	return c.result(y, err)
}

// convSoftmax converts Softmax(logits): exp(x) / sum(exp(x)) along the last
// axis, computed stably (the row's maximum subtracted first).
func convSoftmax(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "logits")
	if err != nil {
		return nil, err
	}
	if rankOf(in[0].typ) < 1 {
		return nil, fmt.Errorf("logits is a scalar; Softmax needs rank 1 or more")
	}
	return c.result(nd.Ops{Source: n.name}.Softmax(x, -1))
}

// convLogSoftmax converts LogSoftmax(logits): x - log(sum(exp(x))) along
// the last axis, computed stably.
func convLogSoftmax(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "logits")
	if err != nil {
		return nil, err
	}
	if rankOf(in[0].typ) < 1 {
		return nil, fmt.Errorf("logits is a scalar; LogSoftmax needs rank 1 or more")
	}
	return c.result(nd.Ops{Source: n.name}.LogSoftmax(x, -1))
}
