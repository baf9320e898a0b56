package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// refActivations are the scalar activations, written from their
// definitions with Go's math package.
var refActivations = map[layers.Activation]func(v float64) float64{
	layers.ActNone:      func(v float64) float64 { return v },
	layers.ActReLU:      func(v float64) float64 { return math.Max(v, 0) },
	layers.ActLeakyReLU: func(v float64) float64 { return leaky(v, 0.01) },
	layers.ActSigmoid:   func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
	layers.ActTanh:      math.Tanh,
	layers.ActGELU:      func(v float64) float64 { return v * 0.5 * math.Erfc(-v/math.Sqrt2) },
	layers.ActGELUTanh: func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*math.Pow(v, 3))))
	},
	layers.ActSiLU: func(v float64) float64 { return v / (1 + math.Exp(-v)) },
}

func leaky(v, alpha float64) float64 {
	if v > 0 {
		return v
	}
	return alpha * v
}

func mapRef(f func(float64) float64, x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	return y
}

func TestActivations(t *testing.T) {
	shapes := [][]int{{3, 5}, {7}, {2, 3, 4}}
	for _, dt := range dtypes {
		for a, ref := range refActivations {
			for si, shape := range shapes {
				t.Run(fmt.Sprintf("%v/%v/%v", dt, a, shape), func(t *testing.T) {
					n := 1
					for _, e := range shape {
						n *= e
					}
					xv := uniform(rng(uint64(si)), dt, n, -4, 4)
					x := input(t, dt, shape...)
					name := a.String() + "1"
					y, err := layers.Activate(name, x, a)
					if err != nil {
						t.Fatal(err)
					}
					if a == layers.ActNone {
						if y != x {
							t.Errorf("none built %s, want x itself", graph.Print(y))
						}
					} else {
						assertSources(t, y, name)
					}
					got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, shape...)}, dt, shape...)
					assertClose(t, dt, got, mapRef(ref, xv))
				})
			}
		}
	}
}

func TestLeakyReLUAlpha(t *testing.T) {
	for _, dt := range dtypes {
		for _, alpha := range []float64{0.2, -0.5, 1.5} {
			xv := uniform(rng(7), dt, 15, -2, 2)
			x := input(t, dt, 3, 5)
			y, err := layers.LeakyReLU("lrelu", x, alpha)
			if err != nil {
				t.Fatal(err)
			}
			got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, 3, 5)}, dt, 3, 5)
			assertClose(t, dt, got, mapRef(func(v float64) float64 { return leaky(v, alpha) }, xv))
		}
	}
	_, err := layers.LeakyReLU("lrelu", input(t, graph.Float32, 3), math.Inf(1))
	assertError(t, err, "lrelu (LeakyReLU): alpha = +Inf, want a finite number")
}

func TestActivationTerms(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	for _, tc := range []struct {
		a    layers.Activation
		want string
	}{
		{layers.ActDefault, `map (\r -> map (\v -> max v 0) r) x`},
		{layers.ActReLU, `map (\r -> map (\v -> max v 0) r) x`},
		{layers.ActLeakyReLU, `map (\r -> map (\v -> select (v > 0) v (v * 0.01)) r) x`},
		{layers.ActSigmoid, `map (\r -> map (\v -> logistic v) r) x`},
		{layers.ActTanh, `map (\r -> map (\v -> tanh v) r) x`},
		{layers.ActGELU, `map (\r -> map (\v -> 0.5 * v * (1 + erf (v * 0.7071067811865476))) r) x`},
		{layers.ActGELUTanh, `map (\r -> map (\v -> 0.5 * v * (1 + tanh (0.7978845608028654 * (v + 0.044715 * (v * v * v))))) r) x`},
		{layers.ActSiLU, `map (\r -> map (\v -> v * logistic v) r) x`},
	} {
		y, err := layers.Activate("act", x, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := graph.Print(y); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.a, got, tc.want)
		}
	}
}

func TestMapScalarRank(t *testing.T) {
	x := input(t, graph.Float64, 2, 3, 4)
	y, err := layers.MapScalar("Square", "sq", x, func(b *layers.Builder, v graph.Node) graph.Node { return b.Mul(v, v) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graph.Print(y), `map (\r -> map (\r1 -> map (\v -> v * v) r1) r) x`; got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	if got := check(t, y).String(); got != "f64[2,3,4]" {
		t.Errorf("type %s", got)
	}
	assertSources(t, y, "sq")
}

func TestActivationNames(t *testing.T) {
	for a := layers.ActDefault; a.Valid(); a++ {
		got, err := layers.ParseActivation(a.String())
		if err != nil || got != a {
			t.Errorf("ParseActivation(%q) = %v, %v; want %v", a.String(), got, err, a)
		}
	}
	for s, want := range map[string]layers.Activation{
		"":          layers.ActDefault,
		"ReLU":      layers.ActReLU,
		"GELU_TANH": layers.ActGELUTanh,
		" gelu ":    layers.ActGELU,
		"swish":     layers.ActSiLU,
		"linear":    layers.ActNone,
	} {
		if got, err := layers.ParseActivation(s); err != nil || got != want {
			t.Errorf("ParseActivation(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	_, err := layers.ParseActivation("mish")
	assertError(t, err, `unknown activation "mish" (want one of none, relu, leaky_relu, sigmoid, tanh, gelu, gelu_tanh, silu, softmax)`)
	if s := layers.Activation(200).String(); s != "activation(200)" {
		t.Errorf("String of an invalid activation: %s", s)
	}
	if layers.ActDefault.OrDefault() != layers.ActReLU || layers.ActTanh.OrDefault() != layers.ActTanh {
		t.Error("OrDefault")
	}
}

func TestActivationErrors(t *testing.T) {
	xi := input(t, graph.Int32, 3, 5)
	s, err := graph.NewInput("s", graph.Scalar(graph.Float32), false)
	if err != nil {
		t.Fatal(err)
	}
	x := input(t, graph.Float32, 3, 5)
	_, err = layers.ReLU("relu1", xi)
	assertError(t, err, "relu1 (ReLU): x has type i32[3,5], want an f32 or f64 array")
	_, err = layers.GELU("gelu1", s)
	assertError(t, err, "gelu1 (GELU): x has type f32, want an f32 or f64 array")
	_, err = layers.Softmax("sm", xi)
	assertError(t, err, "sm (Softmax): x has type i32[3,5], want an f32 or f64 array")
	_, err = layers.Sigmoid("", x)
	assertError(t, err, "Sigmoid: empty layer name")
	_, err = layers.Tanh("tanh1", nil)
	assertError(t, err, "tanh1 (Tanh): x is nil")
	_, err = layers.Activate("act1", x, layers.Activation(99))
	assertError(t, err, "act1 (Activation): invalid activation activation(99)")
	_, err = layers.Activate("act1", nil, layers.ActNone)
	assertError(t, err, "act1 (Activation): x is nil")
}
