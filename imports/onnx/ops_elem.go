package onnx

import (
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	for _, b := range []struct {
		op string
		fn graph.Op
	}{{"Add", graph.Add}, {"Sub", graph.Sub}, {"Mul", graph.Mul}, {"Div", graph.Div}} {
		register(&converter{op: b.op, since: 6, until: 6, convert: legacyBroadcast(convBinary(b.fn))},
			&converter{op: b.op, since: 7, convert: convBinary(b.fn)})
	}
	register(
		&converter{op: "Pow", since: 1, until: 6, convert: legacyBroadcast(convPow)},
		&converter{op: "Pow", since: 7, convert: convPow},
		&converter{op: "Max", since: 6, convert: variadic(graph.Max)},
		&converter{op: "Min", since: 6, convert: variadic(graph.Min)},
		&converter{op: "Sum", since: 6, convert: variadic(graph.Add)},
		&converter{op: "Mean", since: 6, convert: convMean},
		&converter{op: "Neg", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Neg, v) })},
		&converter{op: "Abs", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Abs, v) })},
		&converter{op: "Exp", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Exp, v) })},
		&converter{op: "Log", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Log, v) })},
		&converter{op: "Sqrt", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Sqrt, v) })},
		&converter{op: "Reciprocal", since: 6, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Div(b.Const(1), v) })},
		&converter{op: "Erf", since: 9, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Erf, v) })},
		&converter{op: "Relu", since: 6, convert: activation(layers.ReLU, func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Call(graph.Max, v, b.Const(0))
		})},
		&converter{op: "Sigmoid", since: 6, convert: activation(layers.Sigmoid, func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Call(graph.Logistic, v)
		})},
		&converter{op: "Tanh", since: 6, convert: activation(layers.Tanh, func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Call(graph.Tanh, v)
		})},
		&converter{op: "LeakyRelu", since: 6, convert: convLeakyRelu},
		&converter{op: "Elu", since: 6, convert: convElu},
		&converter{op: "Selu", since: 6, convert: convSelu},
		&converter{op: "Softplus", since: 1, convert: unary(softplus)},
		&converter{op: "Gelu", since: 20, check: checkGelu, convert: convGelu},
		&converter{op: "Clip", since: 6, until: 10, convert: convClip},
		&converter{op: "Clip", since: 11, convert: convClip, needKnown: []int{1, 2}},
		&converter{op: "PRelu", since: 6, until: 6, convert: convPRelu},
		&converter{op: "PRelu", since: 7, convert: convPRelu},
		&converter{op: "HardSigmoid", since: 6, convert: convHardSigmoid},
		&converter{op: "HardSwish", since: 14, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Mul(v, hardSigmoid(b, v, 1.0/6, 0.5))
		})},
		&converter{op: "Softsign", since: 1, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Div(v, b.Add(b.Const(1), b.Call(graph.Abs, v)))
		})},
		&converter{op: "ThresholdedRelu", since: 10, convert: convThresholdedRelu},
		&converter{op: "Mish", since: 18, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Mul(v, b.Call(graph.Tanh, softplus(b, v)))
		})},
		&converter{op: "Celu", since: 12, convert: convCelu},
		&converter{op: "Shrink", since: 9, convert: convShrink},
		&converter{op: "Sign", since: 9, convert: unary(sign)},
		&converter{op: "Floor", since: 6, convert: convRound(roundFloor)},
		&converter{op: "Round", since: 11, convert: convRound(roundEven)},
		&converter{op: "Greater", since: 7, convert: convBinary(graph.Gt)},
		&converter{op: "Less", since: 7, convert: convBinary(graph.Lt)},
		&converter{op: "GreaterOrEqual", since: 12, convert: convBinary(graph.Ge)},
		&converter{op: "LessOrEqual", since: 12, convert: convBinary(graph.Le)},
		&converter{op: "Equal", since: 7, convert: convBinary(graph.Eq)},
		&converter{op: "And", since: 7, convert: convBinary(graph.And)},
		&converter{op: "Or", since: 7, convert: convBinary(graph.Or)},
		&converter{op: "Xor", since: 7, convert: convXor},
		&converter{op: "Not", since: 1, convert: unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Not, v) })},
		&converter{op: "Where", since: 9, convert: convWhere},
		&converter{op: "Ceil", since: 6, convert: convRound(roundCeil)},
	)
}

// convBinary converts Add, Sub, Mul and Div (opset 7 and later): op applied
// elementwise with NumPy's multidirectional broadcasting. Integer division
// rounds toward zero, as graph's i32 division does.
func convBinary(op graph.Op) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		y, err := c.in(1)
		if err != nil {
			return err
		}
		z, err := c.ops().Binary(op, x, y)
		if err != nil {
			return c.wrap(err, "%v", op)
		}
		c.out(0, z)
		return nil
	}
}

// legacyBroadcast adapts a binary converter to opset 6 and older, where
// B broadcasts to A only with attribute broadcast=1, its axes matching A's
// from attribute axis on (by default A's last axes). B gets trailing axes
// of extent 1 so that NumPy's broadcasting, which aligns on the right,
// gives the same result; without broadcast the shapes must be equal,
// which NumPy's broadcasting accepts too.
func legacyBroadcast(conv func(c *ctx) error) func(c *ctx) error {
	return func(c *ctx) error {
		bc, err := c.attrInt("broadcast", 0)
		if err != nil {
			return err
		}
		if bc == 0 || !c.has(1) {
			return conv(c)
		}
		a, err := c.shapeOf(0)
		if err != nil {
			return err
		}
		b, err := c.shapeOf(1)
		if err != nil {
			return err
		}
		axis, err := c.attrInt("axis", int64(len(a)-len(b)))
		if err != nil {
			return err
		}
		if axis < 0 {
			axis += int64(len(a))
		}
		if axis < 0 || int(axis)+len(b) > len(a) {
			return c.errorf("B of shape %v does not fit A of shape %v at axis %d", b, a, axis)
		}
		trail := len(a) - int(axis) - len(b)
		if trail == 0 {
			return conv(c)
		}
		axes := make([]int, trail)
		for i := range axes {
			axes[i] = len(b) + i
		}
		v, err := c.val(1)
		if err != nil {
			return err
		}
		name := c.node.GetInput()[1] + "/broadcast"
		if v.k != nil {
			c.imp.vals[name] = &value{name: name, k: reshaped(v.k, append(append([]int{}, b...), ones(trail)...))}
		} else {
			y, err := c.ops().Unsqueeze(v.term, axes)
			if err != nil {
				return c.wrap(err, "broadcasting B along axis %d", axis)
			}
			c.imp.vals[name] = &value{name: name, term: y}
		}
		c.node = cloneWithInput(c.node, 1, name)
		return conv(c)
	}
}

func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// cloneWithInput returns a copy of n whose input i is name.
func cloneWithInput(n *onnxpb.NodeProto, i int, name string) *onnxpb.NodeProto {
	cp := &onnxpb.NodeProto{Name: n.GetName(), OpType: n.GetOpType(), Domain: n.GetDomain(), Output: n.GetOutput(), Attribute: n.GetAttribute()}
	cp.Input = append([]string{}, n.GetInput()...)
	cp.Input[i] = name
	return cp
}

// convPow: x to the power y elementwise, broadcast (opset 7 and later).
// From opset 12 the exponent may have another numeric type than the base;
// it is converted to the base's type first.
func convPow(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.in(1)
	if err != nil {
		return err
	}
	xt, err := graph.TypeOf(x, nil)
	if err != nil {
		return c.wrap(err, "input 0")
	}
	dt := elemDType(xt)
	if (dt == graph.Float32 || dt == graph.Float64) && isSquare(c.known(1), xt) {
		// x·x: the same value as pow (x, 2), each rounded once, at the
		// cost of a product (exporters write LayerNorm's variance so).
		z, err := c.ops().Map(x, func(b *layers.Builder, v graph.Node) graph.Node { return b.Mul(v, v) })
		if err != nil {
			return c.wrap(err, "squaring")
		}
		c.out(0, z)
		return nil
	}
	if yt, err := graph.TypeOf(y, nil); err == nil && elemDType(yt) != dt {
		if y, err = c.ops().Cast(y, dt); err != nil {
			return c.wrap(err, "converting the exponent")
		}
	}
	z, err := c.ops().Binary(graph.Pow, x, y)
	if err != nil {
		return c.wrap(err, "pow")
	}
	c.out(0, z)
	return nil
}

// isSquare reports whether the exponent e, known at import time, is one
// 2 that does not widen x (of type xt) by broadcasting: a scalar, or a
// tensor of one element and no more axes than x.
func isSquare(e *tensor, xt graph.Type) bool {
	if e == nil || e.size() != 1 || e.at(0) != 2 {
		return false
	}
	rank := 0
	if at, ok := graph.Concrete(xt).(*graph.ArrayType); ok {
		rank = at.Rank()
	}
	return len(e.dims) <= rank
}

func elemDType(t graph.Type) graph.DType {
	switch t := graph.Concrete(t).(type) {
	case *graph.ArrayType:
		return t.DType
	case *graph.ScalarType:
		return t.DType
	}
	return graph.Invalid
}

// variadic converts Max, Min and Sum (opset 8 and later): op folded over
// all inputs left to right, broadcast. max and min propagate NaN, as
// ONNX's reference (numpy.maximum) does.
func variadic(op graph.Op) func(c *ctx) error {
	return func(c *ctx) error {
		if c.nin() == 0 {
			return c.errorf("no inputs")
		}
		acc, err := c.in(0)
		if err != nil {
			return err
		}
		for i := 1; i < c.nin(); i++ {
			y, err := c.in(i)
			if err != nil {
				return err
			}
			if acc, err = c.ops().Binary(op, acc, y); err != nil {
				return c.wrap(err, "input %d", i)
			}
		}
		c.out(0, acc)
		return nil
	}
}

// unary converts an elementwise operator whose scalar body f builds.
func unary(f func(b *layers.Builder, v graph.Node) graph.Node) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		y, err := c.ops().Map(x, f)
		if err != nil {
			return c.wrap(err, "input 0")
		}
		c.out(0, y)
		return nil
	}
}

// activation converts an elementwise activation through its layer when
// the input is a float array (with the channels last on a convolution's
// result), and with f (the same scalar body) for a scalar.
func activation(layer func(name string, x graph.Node) (graph.Node, error), f func(b *layers.Builder, v graph.Node) graph.Node) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		t, err := graph.TypeOf(x, nil)
		if err != nil {
			return c.wrap(err, "input 0")
		}
		var y graph.Node
		if at, ok := graph.Concrete(t).(*graph.ArrayType); ok && at.DType.IsFloat() {
			// On a convolution's result, with the channels last: the
			// flips cancel on both sides (nd.ChannelsLast).
			y, err = c.ops().ChannelsLast(x, func(x graph.Node) (graph.Node, error) { return layer(c.name, x) })
		} else {
			y, err = c.ops().Map(x, f)
		}
		if err != nil {
			return c.wrap(err, "input 0")
		}
		c.out(0, y)
		return nil
	}
}

// convLeakyRelu: x for x > 0, alpha·x otherwise (attribute alpha, default
// 0.01), through layers.LeakyReLU.
func convLeakyRelu(c *ctx) error {
	alpha, err := c.attrFloat("alpha", 0.01)
	if err != nil {
		return err
	}
	return activation(func(name string, x graph.Node) (graph.Node, error) { return layers.LeakyReLU(name, x, alpha) },
		func(b *layers.Builder, v graph.Node) graph.Node {
			return b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(0)), v, b.Mul(v, b.Const(alpha)))
		})(c)
}

// convElu: x for x ≥ 0, alpha·(exp(x) − 1) for x < 0 (alpha default 1).
func convElu(c *ctx) error {
	alpha, err := c.attrFloat("alpha", 1)
	if err != nil {
		return err
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		neg := b.Mul(b.Const(alpha), b.Sub(b.Call(graph.Exp, v), b.Const(1)))
		return b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(0)), neg, v)
	})(c)
}

// ONNX's Selu defaults (the float32 values of the constants of
// Klambauer et al.).
const (
	seluAlpha = 1.67326319217681884765625
	seluGamma = 1.05070102214813232421875
)

// convSelu: gamma·x for x > 0, gamma·(alpha·exp(x) − alpha) for x ≤ 0.
func convSelu(c *ctx) error {
	alpha, err := c.attrFloat("alpha", seluAlpha)
	if err != nil {
		return err
	}
	gamma, err := c.attrFloat("gamma", seluGamma)
	if err != nil {
		return err
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		neg := b.Sub(b.Mul(b.Const(alpha), b.Call(graph.Exp, v)), b.Const(alpha))
		return b.Mul(b.Const(gamma), b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(0)), v, neg))
	})(c)
}

// softplus is log(exp(x) + 1), as ONNX's reference computes it.
func softplus(b *layers.Builder, v graph.Node) graph.Node {
	return b.Call(graph.Log, b.Add(b.Call(graph.Exp, v), b.Const(1)))
}

func checkGelu(n *onnxpb.NodeProto, _ int) string {
	if a := attr(n, "approximate"); a != nil {
		if s := string(a.GetS()); s != "none" && s != "tanh" {
			return "approximate=" + s + " is not none or tanh"
		}
	}
	return ""
}

// convGelu (opset 20): the exact form 0.5·x·(1 + erf(x/√2)), or with
// approximate="tanh" the tanh form, through layers.GELU and
// layers.GELUTanh.
func convGelu(c *ctx) error {
	approx, err := c.attrString("approximate", "none")
	if err != nil {
		return err
	}
	if approx == "tanh" {
		return activation(layers.GELUTanh, func(b *layers.Builder, v graph.Node) graph.Node {
			cube := b.Mul(b.Mul(v, v), v)
			inner := b.Mul(b.Const(math.Sqrt(2/math.Pi)), b.Add(v, b.Mul(b.Const(0.044715), cube)))
			return b.Mul(b.Mul(b.Const(0.5), v), b.Add(b.Const(1), b.Call(graph.Tanh, inner)))
		})(c)
	}
	return activation(layers.GELU, func(b *layers.Builder, v graph.Node) graph.Node {
		e := b.Call(graph.Erf, b.Mul(v, b.Const(1/math.Sqrt2)))
		return b.Mul(b.Mul(b.Const(0.5), v), b.Add(b.Const(1), e))
	})(c)
}

// convClip: min(max(x, lo), hi). Up to opset 10 lo and hi are the
// attributes min and max (default −∞ and +∞); from opset 11 they are the
// optional scalar inputs 1 and 2, which must be known. A NaN element
// stays NaN.
func convClip(c *ctx) error {
	lo, hi := math.Inf(-1), math.Inf(1)
	var err error
	if c.opset < 11 {
		if lo, err = c.attrFloat("min", lo); err != nil {
			return err
		}
		if hi, err = c.attrFloat("max", hi); err != nil {
			return err
		}
	} else {
		for i, p := range []*float64{&lo, &hi} {
			if !c.has(i + 1) {
				continue
			}
			t, err := c.constIn(i+1, []string{"min", "max"}[i])
			if err != nil {
				return err
			}
			if t.size() != 1 {
				return c.errorf("input %d holds %d elements, want a scalar", i+1, t.size())
			}
			*p = t.at(0)
		}
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		y := v
		if !math.IsInf(lo, -1) {
			y = b.Call(graph.Max, y, b.Const(lo))
		}
		if !math.IsInf(hi, 1) {
			y = b.Call(graph.Min, y, b.Const(hi))
		}
		return y
	})(c)
}

// convMean: the elementwise mean of all inputs, broadcast (opset 8 and
// later; opset 6's inputs have one shape, which broadcasting accepts):
// their sum, left to right, divided by their number.
func convMean(c *ctx) error {
	if err := variadic(graph.Add)(c); err != nil {
		return err
	}
	n := c.nin()
	outs := c.node.GetOutput()
	if n == 1 || len(outs) == 0 || outs[0] == "" {
		return nil
	}
	sum := c.imp.vals[outs[0]].term
	y, err := c.ops().Map(sum, func(b *layers.Builder, v graph.Node) graph.Node { return b.Div(v, b.Const(float64(n))) })
	if err != nil {
		return c.wrap(err, "mean of %d inputs", n)
	}
	c.out(0, y)
	return nil
}

// convPRelu: x for x ≥ 0, slope·x for x < 0. From opset 7 the slope
// broadcasts to X one way (the result has X's shape; a slope of shape
// [C,1,1] gives one slope per channel of an [N,C,H,W] input). In opset 6
// the slope is one value or one per channel: a slope of shape [C] for X
// of shape [N,C,…] applies along axis 1.
func convPRelu(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	slope, err := c.in(1)
	if err != nil {
		return err
	}
	xs, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	ss, err := c.shapeOf(1)
	if err != nil {
		return err
	}
	if c.opset <= 6 && len(ss) == 1 && len(xs) > 2 && ss[0] == xs[1] {
		axes := make([]int, len(xs)-2)
		for i := range axes {
			axes[i] = i + 1
		}
		if slope, err = c.ops().Unsqueeze(slope, axes); err != nil {
			return c.wrap(err, "slope per channel")
		}
	}
	y, err := c.ops().ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Lt, vs[0], b.Const(0)), b.Mul(vs[1], vs[0]), vs[0])
	}, x, slope)
	if err != nil {
		return c.wrap(err, "slope")
	}
	if _, ys, err := nd.Shape(y); err != nil || !slices.Equal(ys, xs) {
		return c.errorf("slope of shape %v does not broadcast to X's shape %v (PRelu broadcasts the slope one way, to X)", ss, xs)
	}
	c.out(0, y)
	return nil
}

// hardSigmoid is max(0, min(1, alpha·x + beta)).
func hardSigmoid(b *layers.Builder, v graph.Node, alpha, beta float64) graph.Node {
	lin := b.Add(b.Mul(b.Const(alpha), v), b.Const(beta))
	return b.Call(graph.Max, b.Const(0), b.Call(graph.Min, b.Const(1), lin))
}

// convHardSigmoid: max(0, min(1, alpha·x + beta)), alpha 0.2 and beta 0.5
// by default. HardSwish (opset 14) is x·HardSigmoid(x) with alpha 1/6.
func convHardSigmoid(c *ctx) error {
	alpha, err := c.attrFloat("alpha", 0.2)
	if err != nil {
		return err
	}
	beta, err := c.attrFloat("beta", 0.5)
	if err != nil {
		return err
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node { return hardSigmoid(b, v, alpha, beta) })(c)
}

// convThresholdedRelu (opset 10): x for x > alpha, 0 otherwise (alpha
// default 1).
func convThresholdedRelu(c *ctx) error {
	alpha, err := c.attrFloat("alpha", 1)
	if err != nil {
		return err
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(alpha)), v, b.Const(0))
	})(c)
}

// convCelu (opset 12): max(0, x) + min(0, alpha·(exp(x/alpha) − 1)),
// alpha default 1 and not 0.
func convCelu(c *ctx) error {
	alpha, err := c.attrFloat("alpha", 1)
	if err != nil {
		return err
	}
	if alpha == 0 {
		return c.errorf("attribute alpha is 0; Celu divides by it")
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		neg := b.Mul(b.Const(alpha), b.Sub(b.Call(graph.Exp, b.Div(v, b.Const(alpha))), b.Const(1)))
		return b.Add(b.Call(graph.Max, b.Const(0), v), b.Call(graph.Min, b.Const(0), neg))
	})(c)
}

// convShrink (opset 9): x + bias for x < −lambd, x − bias for x > lambd,
// 0 otherwise (lambd default 0.5, bias 0).
func convShrink(c *ctx) error {
	lambd, err := c.attrFloat("lambd", 0.5)
	if err != nil {
		return err
	}
	bias, err := c.attrFloat("bias", 0)
	if err != nil {
		return err
	}
	return unary(func(b *layers.Builder, v graph.Node) graph.Node {
		hi := b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(lambd)), b.Sub(v, b.Const(bias)), b.Const(0))
		return b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(-lambd)), b.Add(v, b.Const(bias)), hi)
	})(c)
}

// sign is 1 for x > 0, −1 for x < 0 and x itself otherwise (0, and NaN
// stays NaN), as numpy.sign gives.
func sign(b *layers.Builder, v graph.Node) graph.Node {
	neg := b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(0)), b.Const(-1), v)
	return b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(0)), b.Const(1), neg)
}

// Rounding. The IR has no floor, ceil or round; it converts to i32
// rounding toward zero. A float of magnitude 2^52 or more (2^23 for
// float32) is a whole number already, and NaN and the infinities are
// their own floor, so those are kept; below, the truncation is computed
// in two parts of at most 2^31 so that i32 holds each, then moved by one
// where it is on the wrong side of x (Floor, Ceil) or where the fraction
// rounds away from zero (Round: above one half, or one half with an odd
// truncation, rounding half to even as ONNX and numpy do).
const (
	wholeF64 = 1 << 52
	split31  = 1 << 31
)

type rounding int

const (
	roundFloor rounding = iota
	roundCeil
	roundEven
)

// trunc is v rounded toward zero, for |v| < 2^52; conv converts back to
// v's type.
func trunc(b *layers.Builder, v graph.Node, conv graph.Op) graph.Node {
	// hi: v truncated to a multiple of 2^31; then the rest truncated.
	hi := b.Mul(b.Call(conv, b.Call(graph.ToI32, b.Div(v, b.Const(split31)))), b.Const(split31))
	return b.Add(hi, b.Call(conv, b.Call(graph.ToI32, b.Sub(v, hi))))
}

// convRound converts Floor, Ceil and Round (opset 11) of a float input.
func convRound(mode rounding) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		dt, _, err := nd.Shape(x)
		if err != nil {
			return c.wrap(err, "input X")
		}
		if !dt.IsFloat() {
			return c.errorf("input X has element type %v, want float or double", dt)
		}
		conv := graph.ToF32
		whole := float64(1 << 23)
		if dt == graph.Float64 {
			conv, whole = graph.ToF64, wholeF64
		}
		return unary(func(b *layers.Builder, v graph.Node) graph.Node {
			t := trunc(b, v, conv)
			var r graph.Node
			switch mode {
			case roundFloor:
				r = b.Call(graph.Select, b.Call(graph.Gt, t, v), b.Sub(t, b.Const(1)), t)
			case roundCeil:
				r = b.Call(graph.Select, b.Call(graph.Lt, t, v), b.Add(t, b.Const(1)), t)
			default:
				frac := b.Call(graph.Abs, b.Sub(v, t))
				half := b.Mul(t, b.Const(0.5))
				odd := b.Call(graph.Ne, trunc(b, half, conv), half)
				away := b.Call(graph.Or, b.Call(graph.Gt, frac, b.Const(0.5)),
					b.Call(graph.And, b.Call(graph.Eq, frac, b.Const(0.5)), odd))
				step := b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(0)), b.Call(conv, b.Const(-1)), b.Call(conv, b.Const(1)))
				r = b.Call(graph.Select, away, b.Add(t, step), t)
			}
			return b.Call(graph.Select, b.Call(graph.Lt, b.Call(graph.Abs, v), b.Const(whole)), r, v)
		})(c)
	}
}

// convXor (opset 7): a or b, but not both, broadcast; the inputs are bool.
func convXor(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.in(1)
	if err != nil {
		return err
	}
	for i, v := range []graph.Node{x, y} {
		if dt, _, err := nd.Shape(v); err != nil || dt != graph.Bool {
			return c.errorf("input %d is not bool", i)
		}
	}
	z, err := c.ops().ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(graph.And, b.Call(graph.Or, vs[0], vs[1]), b.Call(graph.Not, b.Call(graph.And, vs[0], vs[1])))
	}, x, y)
	if err != nil {
		return c.wrap(err, "xor")
	}
	c.out(0, z)
	return nil
}

// convWhere (opset 9): X where the bool condition holds, else Y, the
// three broadcast; X and Y have one element type.
func convWhere(c *ctx) error {
	var in [3]graph.Node
	var err error
	for i := range in {
		if in[i], err = c.in(i); err != nil {
			return err
		}
	}
	dts := make([]graph.DType, 3)
	for i, v := range in {
		if dts[i], _, err = nd.Shape(v); err != nil {
			return c.wrap(err, "input %d", i)
		}
	}
	if dts[0] != graph.Bool {
		return c.errorf("input condition has element type %v, want bool", dts[0])
	}
	if dts[1] != dts[2] {
		return c.errorf("inputs X and Y have element types %v and %v, want one", dts[1], dts[2])
	}
	y, err := c.ops().ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(graph.Select, vs[0], vs[1], vs[2])
	}, in[0], in[1], in[2])
	if err != nil {
		return c.wrap(err, "where")
	}
	c.out(0, y)
	return nil
}
