package tf

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
	"github.com/hofuse/hofuse/layers"
)

// The elementwise ops. TensorFlow's binary ops broadcast as NumPy does
// (shapes aligned on the right, extent 1 stretched) and need both operands
// of one element type; nd.Binary does the same.

// binary returns the converter of a broadcasting binary op computing op.
func binaryOp(op graph.Op) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		if t, ok := foldIntBinary(op, in[0], in[1]); ok {
			v, err := konstValue(n, t)
			if err != nil {
				return nil, err
			}
			return one(v), nil
		}
		x, err := c.data(in[0])
		if err != nil {
			return nil, err
		}
		y, err := c.data(in[1])
		if err != nil {
			return nil, err
		}
		return c.result(nd.Ops{Source: n.name}.Binary(op, x, y))
	}
}

// foldIntBinary computes x op y when both are integer constants not yet
// read as data and one is a scalar or both have one shape: the shape
// arithmetic Keras writes (a repeat count times an extent) folds at
// import time, exactly, in int64, as TensorFlow computes it in the
// operands' type. Only +, - and × fold; anything else is left to the
// term.
func foldIntBinary(op graph.Op, x, y value) (*tensor, bool) {
	a, b := x.konst, y.konst
	if a == nil || b == nil || x.term != nil || y.term != nil || a.dtype != b.dtype {
		return nil, false
	}
	av, aok := a.ints()
	bv, bok := b.ints()
	if !aok || !bok || len(av) == 0 || len(bv) == 0 || max(len(av), len(bv)) > maxFoldInts ||
		(op != graph.Add && op != graph.Sub && op != graph.Mul) {
		return nil, false
	}
	shape := a.shape
	switch {
	case len(a.shape) == 0:
		shape = b.shape
	case len(b.shape) == 0:
	case slices.Equal(a.shape, b.shape):
	default:
		return nil, false
	}
	n := max(len(av), len(bv))
	out := make([]int64, n)
	for i := range out {
		p, q := av[min(i, len(av)-1)], bv[min(i, len(bv)-1)]
		switch op {
		case graph.Add:
			out[i] = p + q
		case graph.Sub:
			out[i] = p - q
		default:
			out[i] = p * q
		}
	}
	t := &tensor{dtype: a.dtype, shape: slices.Clone(shape)}
	if a.dtype == tfpb.DataType_DT_INT64 {
		t.i64 = out
		return t, true
	}
	for _, v := range out {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, false // TensorFlow wraps; leave it to the term
		}
		t.i32 = append(t.i32, int32(v))
	}
	return t, true
}

// maxFoldInts is the most elements foldIntBinary computes: shape
// arithmetic, not data.
const maxFoldInts = 64

// convAdd converts Add(x, y) and AddV2(x, y): x + y, broadcast. (AddV2
// differs from Add only for strings, which hofuse does not have.)
var convAdd = binaryOp(graph.Add)

// convSub converts Sub(x, y): x - y, broadcast.
var convSub = binaryOp(graph.Sub)

// convMul converts Mul(x, y): x * y, broadcast.
var convMul = binaryOp(graph.Mul)

// convRealDiv converts RealDiv(x, y): x / y, broadcast; IEEE division for
// floats (x/0 is ±Inf or NaN).
var convRealDiv = binaryOp(graph.Div)

// unary returns the converter of an op that applies f to every element of
// its float operand.
func unary(f func(b *layers.Builder, v graph.Node) graph.Node) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		x, err := c.floatData(in[0], "x")
		if err != nil {
			return nil, err
		}
		return c.result(nd.Ops{Source: n.name}.Map(x, f))
	}
}

// convSoftplus converts Softplus(features) as TensorFlow's kernel
// computes it: features itself above −t, exp(features) below t, and
// log(exp(features) + 1) between, where t = log(ε) + 2 for the element
// type's machine epsilon ε (−13.94 for float32, −34.04 for float64), so
// that it neither overflows nor loses the small values.
func convSoftplus(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "features")
	if err != nil {
		return nil, err
	}
	eps := 0x1p-52
	if elemOf(in[0].typ) == graph.Float32 {
		eps = 0x1p-23
	}
	t := math.Log(eps) + 2
	return c.result(nd.Ops{Source: n.name}.Map(x, func(b *layers.Builder, v graph.Node) graph.Node {
		e := b.Call(graph.Exp, v)
		mid := b.Call(graph.Log, b.Add(e, b.Const(1)))
		return b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(-t)), v,
			b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(t)), e, mid))
	}))
}

// convSoftsign converts Softsign(features): features / (|features| + 1).
var convSoftsign = unary(func(b *layers.Builder, v graph.Node) graph.Node {
	return b.Div(v, b.Add(b.Call(graph.Abs, v), b.Const(1)))
})

// convRelu converts Relu(features): max(features, 0), through the ReLU
// layer: +0 for -0, NaN for NaN.
func convRelu(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "features")
	if err != nil {
		return nil, err
	}
	return c.result(layers.ReLU(n.name, x))
}

// convSigmoid converts Sigmoid(x): 1 / (1 + exp(-x)), through the Sigmoid
// layer.
func convSigmoid(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "x")
	if err != nil {
		return nil, err
	}
	return c.result(layers.Sigmoid(n.name, x))
}

// convTanh converts Tanh(x): the hyperbolic tangent, through the Tanh
// layer.
func convTanh(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "x")
	if err != nil {
		return nil, err
	}
	return c.result(layers.Tanh(n.name, x))
}

// convRelu6 converts Relu6(features): min(max(features, 0), 6).
var convRelu6 = unary(func(b *layers.Builder, v graph.Node) graph.Node {
	return b.Call(graph.Min, b.Call(graph.Max, v, b.Const(0)), b.Const(6))
})

// expm1 returns exp(v) - 1. In float32, exp(v) - 1 loses the digits of a
// tiny v (exp(v) rounds to within 6e-8 of 1); an f32 v is widened, the
// difference taken in f64 and rounded once to f32, which agrees with
// expm1 to within an ulp and is at least as close as TensorFlow's float32
// exp(v) - 1.
func expm1(b *layers.Builder, v graph.Node, dt graph.DType) graph.Node {
	if dt == graph.Float32 {
		return b.Call(graph.ToF32, b.Sub(b.Call(graph.Exp, b.Call(graph.ToF64, v)), b.Const(1)))
	}
	return b.Sub(b.Call(graph.Exp, v), b.Const(1))
}

// convElu converts Elu(features): exp(features) - 1 where features < 0,
// else features (so -0 stays -0, as in TensorFlow's kernel); TensorFlow's
// Elu has no alpha (it is 1).
func convElu(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "features")
	if err != nil {
		return nil, err
	}
	dt, _, _ := nd.Shape(x)
	return c.result(nd.Ops{Source: n.name}.Map(x, func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(0)), expm1(b, v, dt), v)
	}))
}

// The constants of SELU (Klambauer et al., 2017), as TensorFlow's kernel
// writes them.
const (
	seluScale = 1.0507009873554804934193349852946
	seluAlpha = 1.6732632423543772848170429916717
)

// convSelu converts Selu(features): scale * alpha * (exp(features) - 1)
// where features < 0, else scale * features, with scale ≈ 1.0507 and alpha
// ≈ 1.6733 (seluScale, seluAlpha), the branch chosen as TensorFlow's kernel
// does.
func convSelu(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "features")
	if err != nil {
		return nil, err
	}
	dt, _, _ := nd.Shape(x)
	return c.result(nd.Ops{Source: n.name}.Map(x, func(b *layers.Builder, v graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Lt, v, b.Const(0)),
			b.Mul(expm1(b, v, dt), b.Const(seluScale*seluAlpha)),
			b.Mul(v, b.Const(seluScale)))
	}))
}

// convRsqrt converts Rsqrt(x): 1 / sqrt(x).
var convRsqrt = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Rsqrt, v) })

// convSqrt converts Sqrt(x): the square root (NaN below 0).
var convSqrt = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Sqrt, v) })

// convSquare converts Square(x): x * x.
var convSquare = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Mul(v, v) })

// convErf converts Erf(x): the error function.
var convErf = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Erf, v) })

// floatData returns v as a term of a float element type; what names the
// operand in the error.
func (c *converter) floatData(v value, what string) (graph.Node, error) {
	x, err := c.data(v)
	if err != nil {
		return nil, err
	}
	if dt := elemOf(v.typ); !dt.IsFloat() {
		return nil, fmt.Errorf("%s has element type %v; the op needs f32 or f64", what, dt)
	}
	return x, nil
}

// elemOf returns the element type of a scalar or array type.
func elemOf(t graph.Type) graph.DType {
	switch t := t.(type) {
	case *graph.ArrayType:
		return t.DType
	case *graph.ScalarType:
		return t.DType
	}
	return graph.Invalid
}

// convNeg converts Neg(x): -x.
var convNeg = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Neg, v) })

// convAbs converts Abs(x): |x|.
var convAbs = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Abs, v) })

// convExp converts Exp(x): e to the x.
var convExp = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Exp, v) })

// convLog converts Log(x): the natural logarithm (-Inf at 0, NaN below).
var convLog = unary(func(b *layers.Builder, v graph.Node) graph.Node { return b.Call(graph.Log, v) })

// convStopGradient converts StopGradient(input): its input (it only stops
// gradients, which an imported inference graph does not take).
func convStopGradient(_ *converter, _ *node, in []value) ([]value, error) {
	return one(in[0]), nil
}

// convErfc converts Erfc(x): 1 - erf(x), the complementary error function
// (Keras writes its exact GELU with it). An f32 x is widened and the
// difference taken in f64 and rounded once; where erfc(x) falls below
// about 1e-12 (x > 5) the difference keeps fewer digits than erfc itself
// would.
func convErfc(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "x")
	if err != nil {
		return nil, err
	}
	dt := elemOf(in[0].typ)
	return c.result(nd.Ops{Source: n.name}.Map(x, func(b *layers.Builder, v graph.Node) graph.Node {
		if dt == graph.Float32 {
			return b.Call(graph.ToF32, b.Sub(b.Const(1), b.Call(graph.Erf, b.Call(graph.ToF64, v))))
		}
		return b.Sub(b.Const(1), b.Call(graph.Erf, v))
	}))
}

// convSquaredDifference converts SquaredDifference(x, y): (x - y)², broadcast
// (Keras's LayerNormalization computes its variance with it).
func convSquaredDifference(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	y, err := c.data(in[1])
	if err != nil {
		return nil, err
	}
	if dx, dy := elemOf(in[0].typ), elemOf(in[1].typ); dx != dy {
		return nil, fmt.Errorf("x has element type %v and y %v; SquaredDifference needs one type", dx, dy)
	}
	return c.result(nd.Ops{Source: n.name}.ZipWith(func(b *layers.Builder, v ...graph.Node) graph.Node {
		d := b.Sub(v[0], v[1])
		return b.Mul(d, d)
	}, x, y))
}

// convPow converts Pow(x, y): x to the power y, elementwise, broadcast,
// as C's pow computes it (0 to a negative power is +Inf, a negative base
// to a non-integer power NaN). The IR's pow is a float op: x and y have
// one float element type; TensorFlow's integer Pow is refused.
func convPow(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "x")
	if err != nil {
		return nil, err
	}
	y, err := c.floatData(in[1], "y")
	if err != nil {
		return nil, err
	}
	if dx, dy := elemOf(in[0].typ), elemOf(in[1].typ); dx != dy {
		return nil, fmt.Errorf("x has element type %v and y %v; Pow needs one type", dx, dy)
	}
	return c.result(nd.Ops{Source: n.name}.Binary(graph.Pow, x, y))
}

// convMaximum converts Maximum(x, y): the larger, broadcast; NaN if either
// is NaN.
var convMaximum = binaryOp(graph.Max)

// convMinimum converts Minimum(x, y): the smaller, broadcast; NaN if either
// is NaN.
var convMinimum = binaryOp(graph.Min)

// convLeakyRelu converts LeakyRelu(features; alpha): features where
// features > 0, else alpha * features; alpha defaults to 0.2 (TensorFlow's,
// where Keras's LeakyReLU layer uses 0.3 and PyTorch 0.01).
func convLeakyRelu(c *converter, n *node, in []value) ([]value, error) {
	alpha, err := attrFloat(n, "alpha", 0.2)
	if err != nil {
		return nil, err
	}
	x, err := c.floatData(in[0], "features")
	if err != nil {
		return nil, err
	}
	return c.result(layers.LeakyReLU(n.name, x, float64(alpha)))
}
