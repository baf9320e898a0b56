package onnx

import (
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestRounding checks Floor and Ceil past what ONNX's node tests feed
// (small floats): halves on both sides of zero, magnitudes past i32's
// range where the truncation runs in two parts, whole numbers past 2^52,
// the infinities and NaN, in float64, on the interpreter and the native
// back end, against Go's math.Floor and math.Ceil.
func TestRounding(t *testing.T) {
	xs := []float64{-2.5, -2, -0.5, 0, 0.5, 2.5, 1<<31 - 0.5, -(1 << 31) - 0.5,
		1<<40 + 0.5, -(1 << 40) - 0.25, 1<<52 - 0.5, -(1 << 52) + 0.5, 1 << 53, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN()}
	x, err := graph.FromFloat64(xs, len(xs))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		name string
		f    func(float64) float64
	}{{"Floor", math.Floor}, {"Ceil", math.Ceil}} {
		t.Run(op.name, func(t *testing.T) {
			b := newModel(13).input("x", tDouble, len(xs)).output("y").node(op.name, "r", []string{"x"}, []string{"y"})
			m := importT(t, b, imports.Options{})
			want := make([]float64, len(xs))
			for i, v := range xs {
				want[i] = op.f(v)
			}
			expect(t, run(t, m, map[string]graph.Value{"x": x})["y"], []int{len(xs)}, want)
			bind, err := m.Bindings(map[string]graph.Value{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			v, err := backendRun(native.New(native.Options{}), m, bind, false)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, v, []int{len(xs)}, want)
		})
	}
}

func TestMoreElementwise(t *testing.T) {
	xs := []float32{-30, -2, -0.5, 0, 0.5, 1, 3, 30}
	for _, tc := range []opCase{
		// Mish's node tests hold 10,000 elements, past the fixtures'
		// limit: x·tanh(ln(1 + eˣ)), including where eˣ overflows float32.
		{name: "Mish", opset: 18, x: xs, xShape: []int{8}, build: one("Mish"), yShape: []int{8},
			want: mapF(xs, func(v float64) float64 { return v * math.Tanh(math.Log1p(math.Exp(v))) })},
		{name: "Mish overflow", opset: 18, x: []float32{100}, xShape: []int{1}, build: one("Mish"), yShape: []int{1}, want: []float64{100}},
		{name: "HardSwish", opset: 14, x: xs, xShape: []int{2, 4}, build: one("HardSwish"), yShape: []int{2, 4},
			want: mapF(xs, func(v float64) float64 { return v * math.Max(0, math.Min(1, v/6+0.5)) })},
		{name: "Sign", opset: 13, x: xs, xShape: []int{8}, build: one("Sign"), yShape: []int{8}, want: []float64{-1, -1, -1, 0, 1, 1, 1, 1}},
		{name: "Mean of three", opset: 13, x: xs[:4], xShape: []int{4},
			build: func(b *mb) *mb {
				return b.initF("a", []int64{1}, 3).initF("c", []int64{2, 1}, 0, 6).node("Mean", "m", []string{"x", "a", "c"}, []string{"y"})
			}, yShape: []int{2, 4}, want: []float64{-9, 1.0 / 3, 2.5 / 3, 1, -7, 7.0 / 3, 8.5 / 3, 3}},
		// PyTorch's nn.PReLU(C) exported at opset 9 or later: a slope of
		// shape [C,1,1] for [N,C,H,W].
		{name: "PRelu per channel", opset: 13, x: xs, xShape: []int{1, 2, 2, 2},
			build: func(b *mb) *mb {
				return b.initF("s", []int64{2, 1, 1}, 0.25, 0.5).node("PRelu", "p", []string{"x", "s"}, []string{"y"})
			}, yShape: []int{1, 2, 2, 2}, want: []float64{-7.5, -0.5, -0.125, 0, 0.5, 1, 3, 30}},
		// Opset 6: a slope of shape [C] applies along the channel axis.
		{name: "PRelu opset 6 channels", opset: 6, x: xs, xShape: []int{1, 2, 4},
			build: func(b *mb) *mb {
				return b.initF("s", []int64{2}, 0.25, 0.5).node("PRelu", "p", []string{"x", "s"}, []string{"y"})
			}, yShape: []int{1, 2, 4}, want: []float64{-7.5, -0.5, -0.125, 0, 0.5, 1, 3, 30}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}

// TestMoreRefusals checks the errors of the new converters on input they
// cannot convert.
func TestMoreRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     *mb
		wants []string
	}{
		{"PRelu slope wider than X", newModel(13).input("x", tFloat, 2, 3).output("y").
			initF("s", []int64{2, 2, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12).node("PRelu", "p", []string{"x", "s"}, []string{"y"}),
			[]string{`"p"`, "slope of shape [2 2 3] does not broadcast to X's shape [2 3]"}},
		{"Celu alpha 0", newModel(13).input("x", tFloat, 3).output("y").node("Celu", "c", []string{"x"}, []string{"y"}, aFloat("alpha", 0)),
			[]string{`"c"`, "alpha is 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportBytes(tc.b.bytes(t), "test.onnx", imports.Options{})
			if err == nil {
				t.Fatal("imported; want an error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
