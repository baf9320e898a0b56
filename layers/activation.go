package layers

import (
	"fmt"
	"math"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Activation names an activation function, for models and the command
// line. The zero value, ActDefault, stands for the default of whoever reads
// it (ReLU for Activate and models.MLP).
type Activation uint8

// The activations.
const (
	ActDefault   Activation = iota // the reader's default: ReLU here
	ActNone                        // the identity: no node at all
	ActReLU                        // max v 0
	ActLeakyReLU                   // v for v > 0, else DefaultLeakyReLUAlpha * v
	ActSigmoid                     // logistic v
	ActTanh                        // tanh v
	ActGELU                        // 0.5 v (1 + erf(v / √2))
	ActGELUTanh                    // 0.5 v (1 + tanh(√(2/π) (v + 0.044715 v³)))
	ActSiLU                        // v * logistic v
	ActSoftmax                     // softmax over the innermost axis
	numActivations
)

var activationNames = [numActivations]string{
	ActDefault:   "default",
	ActNone:      "none",
	ActReLU:      "relu",
	ActLeakyReLU: "leaky_relu",
	ActSigmoid:   "sigmoid",
	ActTanh:      "tanh",
	ActGELU:      "gelu",
	ActGELUTanh:  "gelu_tanh",
	ActSiLU:      "silu",
	ActSoftmax:   "softmax",
}

// String returns the name ParseActivation reads: "relu", "gelu_tanh", ….
func (a Activation) String() string {
	if a < numActivations {
		return activationNames[a]
	}
	return fmt.Sprintf("activation(%d)", uint8(a))
}

// Valid reports whether a is one of the activations above.
func (a Activation) Valid() bool { return a < numActivations }

// OrDefault returns ActReLU for ActDefault and a otherwise.
func (a Activation) OrDefault() Activation {
	if a == ActDefault {
		return ActReLU
	}
	return a
}

// activationAliases are other spellings ParseActivation accepts.
var activationAliases = map[string]Activation{
	"":           ActDefault,
	"identity":   ActNone,
	"linear":     ActNone,
	"leakyrelu":  ActLeakyReLU,
	"logistic":   ActSigmoid,
	"swish":      ActSiLU,
	"gelu_erf":   ActGELU,
	"gelu-tanh":  ActGELUTanh,
	"leaky-relu": ActLeakyReLU,
}

// ParseActivation reads an activation name, case-insensitively: the names
// String writes ("none", "relu", "leaky_relu", "sigmoid", "tanh", "gelu",
// "gelu_tanh", "silu", "softmax") and a few aliases ("linear" and
// "identity" for none, "swish" for silu, "logistic" for sigmoid).
func ParseActivation(s string) (Activation, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for a, name := range activationNames {
		if name == s {
			return Activation(a), nil
		}
	}
	if a, ok := activationAliases[s]; ok {
		return a, nil
	}
	return ActDefault, fmt.Errorf("unknown activation %q (want one of %s)", s, strings.Join(activationNames[ActNone:], ", "))
}

// Activate applies the activation a to x, an f32 or f64 array of any rank,
// as a layer named name. ActNone returns x itself and builds nothing;
// ActDefault is ReLU; ActLeakyReLU uses DefaultLeakyReLUAlpha.
func Activate(name string, x graph.Node, a Activation) (graph.Node, error) {
	switch a.OrDefault() {
	case ActNone:
		if x == nil {
			return nil, &Error{Kind: "Activation", Layer: name, Msg: "x is nil"}
		}
		return x, nil
	case ActReLU:
		return ReLU(name, x)
	case ActLeakyReLU:
		return LeakyReLU(name, x, DefaultLeakyReLUAlpha)
	case ActSigmoid:
		return Sigmoid(name, x)
	case ActTanh:
		return Tanh(name, x)
	case ActGELU:
		return GELU(name, x)
	case ActGELUTanh:
		return GELUTanh(name, x)
	case ActSiLU:
		return SiLU(name, x)
	case ActSoftmax:
		return Softmax(name, x)
	}
	return nil, &Error{Kind: "Activation", Layer: name, Msg: fmt.Sprintf("invalid activation %v", a)}
}

// ScalarFunc builds the body of a scalar function from its argument v, with
// b, whose nodes carry the layer's name.
type ScalarFunc func(b *Builder, v graph.Node) graph.Node

// MapScalar returns f applied to every element of x, an f32 or f64 array
// of any rank, as a layer of the given kind ("ReLU", …) and name: map
// (\v -> f v) x for rank 1, map (\r -> map (\v -> f v) r) x for rank 2,
// and so on. The result has x's element type and extents.
func MapScalar(kind, name string, x graph.Node, f ScalarFunc) (graph.Node, error) {
	l := newLayer(kind, name)
	if l.name == "" {
		return nil, &Error{Kind: kind, Msg: "empty layer name"}
	}
	xt, err := l.floatArray(x)
	if err != nil {
		return nil, err
	}
	return l.done(l.MapRank(xt.Rank(), x, f))
}

// floatArray checks that x is an f32 or f64 array of any rank.
func (l *layer) floatArray(x graph.Node) (*graph.ArrayType, error) {
	if x == nil {
		return nil, l.errorf("x is nil")
	}
	info, err := graph.Check(x)
	if err != nil {
		return nil, l.wrap(err, "x is ill-typed")
	}
	t := info.TypeOf(x)
	at, ok := t.(*graph.ArrayType)
	if !ok {
		return nil, l.errorf("x has type %v, want an f32 or f64 array", t)
	}
	if !at.DType.IsFloat() {
		return nil, l.errorf("x has type %v, want an f32 or f64 array", t)
	}
	return at, nil
}

// ReLU returns max v 0 for every element v of x: +0 for -0 and NaN for
// NaN, as graph's max (IEEE 754-2019 maximum) defines, on every back end.
func ReLU(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("ReLU", name, x, func(b *Builder, v graph.Node) graph.Node {
		return b.Call(graph.Max, v, b.Const(0))
	})
}

// DefaultLeakyReLUAlpha is the slope LeakyReLU uses for negative inputs
// when called through Activate. It is PyTorch's (negative_slope) and ONNX's
// (alpha) default; Keras's LeakyReLU defaults to 0.3 and TensorFlow's
// tf.nn.leaky_relu to 0.2.
const DefaultLeakyReLUAlpha = 0.01

// LeakyReLU returns select (v > 0) v (v * alpha) for every element v of x.
// alpha may be any finite number.
func LeakyReLU(name string, x graph.Node, alpha float64) (graph.Node, error) {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return nil, &Error{Kind: "LeakyReLU", Layer: name, Msg: fmt.Sprintf("alpha = %v, want a finite number", alpha)}
	}
	return MapScalar("LeakyReLU", name, x, func(b *Builder, v graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Gt, v, b.Const(0)), v, b.Mul(v, b.Const(alpha)))
	})
}

// Sigmoid returns logistic v = 1 / (1 + exp(-v)) for every element v of x.
func Sigmoid(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("Sigmoid", name, x, func(b *Builder, v graph.Node) graph.Node {
		return b.Call(graph.Logistic, v)
	})
}

// Tanh returns tanh v for every element v of x.
func Tanh(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("Tanh", name, x, func(b *Builder, v graph.Node) graph.Node {
		return b.Call(graph.Tanh, v)
	})
}

// GELU returns the exact (erf) form of the Gaussian error linear unit,
// 0.5 * v * (1 + erf(v * (1/√2))), for every element v of x. The erf form
// is the default in PyTorch (nn.GELU, approximate='none'), Keras
// (activations.gelu, approximate=False) and ONNX (Gelu, approximate="none");
// GELUTanh is the tanh approximation.
func GELU(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("GELU", name, x, func(b *Builder, v graph.Node) graph.Node {
		e := b.Call(graph.Erf, b.Mul(v, b.Const(1/math.Sqrt2)))
		return b.Mul(b.Mul(b.Const(0.5), v), b.Add(b.Const(1), e))
	})
}

// GELUTanh returns the tanh approximation of GELU,
// 0.5 * v * (1 + tanh(√(2/π) * (v + 0.044715 * v * v * v))), for every
// element v of x: PyTorch's nn.GELU(approximate='tanh') and ONNX's Gelu
// with approximate="tanh".
func GELUTanh(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("GELUTanh", name, x, func(b *Builder, v graph.Node) graph.Node {
		cube := b.Mul(b.Mul(v, v), v)
		inner := b.Mul(b.Const(math.Sqrt(2/math.Pi)), b.Add(v, b.Mul(b.Const(0.044715), cube)))
		return b.Mul(b.Mul(b.Const(0.5), v), b.Add(b.Const(1), b.Call(graph.Tanh, inner)))
	})
}

// SiLU returns v * logistic v for every element v of x (also called swish;
// Keras's swish and PyTorch's nn.SiLU agree).
func SiLU(name string, x graph.Node) (graph.Node, error) {
	return MapScalar("SiLU", name, x, func(b *Builder, v graph.Node) graph.Node {
		return b.Mul(v, b.Call(graph.Logistic, v))
	})
}
