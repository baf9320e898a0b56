package tf

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
)

// TestActivationEdges pins the activations at the values where a careless
// formula goes wrong, against Go's math package computed by hand: -0 stays
// -0 in Elu and Selu (TensorFlow's kernels pick the negative branch only
// below 0), a tiny negative input keeps its digits (expm1, not exp(v) - 1
// in float32, which would give -1.19e-7 for -1e-7), NaN stays NaN, and
// Relu6 clips at 6.
func TestActivationEdges(t *testing.T) {
	in := []float32{float32(math.Copysign(0, -1)), -1e-7, 2, -3, float32(math.NaN()), 7}
	f32 := func(v float64) float64 { return float64(float32(v)) }
	em1 := func(v float32) float64 { return f32(math.Expm1(float64(v))) }
	scale, alpha := 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
	for _, tc := range []struct {
		op   string
		want []float64
	}{
		{"Elu", []float64{math.Copysign(0, -1), em1(-1e-7), 2, em1(-3), math.NaN(), 7}},
		{"Selu", []float64{math.Copysign(0, -1), f32(em1(-1e-7) * f32(scale*alpha)), f32(2 * f32(scale)), f32(em1(-3) * f32(scale*alpha)), math.NaN(), f32(7 * f32(scale))}},
		{"Relu6", []float64{0, 0, 2, 0, math.NaN(), 6}},
		{"Relu", []float64{0, 0, 2, 0, math.NaN(), 7}},
	} {
		m, err := ImportBytes(graphBytes(t, placeholder("x", int64(len(in))), ndef("y", tc.op, "x")), "g.pb", imports.Options{})
		if err != nil {
			t.Fatal(err)
		}
		x, err := graph.FromFloat32(append([]float32(nil), in...), len(in))
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Eval(m.Term, map[string]graph.Value{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		got := v.(*graph.Array).Values()
		for i, w := range tc.want {
			g := got[i]
			if math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(w) && (g != w || math.Signbit(g) != math.Signbit(w))) {
				t.Errorf("%s(%v) = %v, want %v", tc.op, in[i], g, w)
			}
		}
	}
}
