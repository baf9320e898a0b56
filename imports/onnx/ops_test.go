package onnx

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// opCase is one converter test: a model of one or a few nodes over the
// input x, and the output y it must give, computed by hand (or by the
// formula of the operator's specification, in float64).
type opCase struct {
	name   string
	opset  int64
	x      []float32
	xShape []int
	build  func(b *mb) *mb // adds initializers and nodes reading "x", writing "y"
	yShape []int
	want   []float64
}

func runOpCase(t *testing.T, tc opCase) {
	t.Helper()
	opset := tc.opset
	if opset == 0 {
		opset = 13
	}
	dims := make([]any, len(tc.xShape))
	for i, d := range tc.xShape {
		dims[i] = d
	}
	b := tc.build(newModel(opset).input("x", tFloat, dims...).output("y"))
	m := importT(t, b, imports.Options{})
	out := run(t, m, map[string]graph.Value{"x": f32(t, tc.x, tc.xShape...)})
	expect(t, out["y"], tc.yShape, tc.want)
}

// TestPowSquare: Pow by an exponent known to be 2 imports as x·x, which
// rounds as pow (x, 2) does and costs a product, not a call of the
// general power (exporters write LayerNorm's variance so); any other
// exponent, or a 2 whose extra axes widen x by broadcasting, stays pow.
func TestPowSquare(t *testing.T) {
	x := []float32{-3, -0.5, 0, 1e-30, 2, 1e30}
	for _, tc := range []struct {
		name  string
		build func(b *mb) *mb
		pow   bool
		shape []int
		want  []float64
	}{
		{"scalar 2", func(b *mb) *mb { return b.initF("e", nil, 2) }, false, []int{6}, mapF(x, func(v float64) float64 { return v * v })},
		{"one-element 2", func(b *mb) *mb { return b.initF("e", []int64{1}, 2) }, false, []int{6}, mapF(x, func(v float64) float64 { return v * v })},
		{"3", func(b *mb) *mb { return b.initF("e", nil, 3) }, true, []int{6}, mapF(x, func(v float64) float64 { return math.Pow(v, 3) })},
		{"2 that widens x", func(b *mb) *mb { return b.initF("e", []int64{1, 1}, 2) }, true, []int{1, 6}, mapF(x, func(v float64) float64 { return v * v })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.build(newModel(13).input("x", tFloat, 6).output("y")).node("Pow", "p", []string{"x", "e"}, []string{"y"})
			m := importT(t, b, imports.Options{})
			require.Equal(t, tc.pow, strings.Contains(graph.Print(m.Term), "pow"), graph.Print(m.Term))
			out := run(t, m, map[string]graph.Value{"x": f32(t, x, 6)})
			expect(t, out["y"], tc.shape, tc.want)
		})
	}
}

func one(op string, attrs ...*onnxpb.AttributeProto) func(b *mb) *mb {
	return func(b *mb) *mb { return b.node(op, "n1", []string{"x"}, []string{"y"}, attrs...) }
}

func mapF(xs []float32, f func(float64) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(float32(f(float64(x))))
	}
	return out
}

var xs6 = []float32{-2, -0.5, 0, 0.5, 1, 3}

func TestElementwise(t *testing.T) {
	for _, tc := range []opCase{
		{name: "Relu", x: xs6, xShape: []int{2, 3}, build: one("Relu"), yShape: []int{2, 3}, want: []float64{0, 0, 0, 0.5, 1, 3}},
		{name: "LeakyRelu default", x: xs6, xShape: []int{2, 3}, build: one("LeakyRelu"), yShape: []int{2, 3},
			want: mapF(xs6, func(v float64) float64 { return math.Max(v, 0) + 0.01*math.Min(v, 0) })},
		{name: "LeakyRelu alpha", x: xs6, xShape: []int{6}, build: one("LeakyRelu", aFloat("alpha", 0.5)), yShape: []int{6},
			want: []float64{-1, -0.25, 0, 0.5, 1, 3}},
		{name: "Elu", x: xs6, xShape: []int{6}, build: one("Elu", aFloat("alpha", 2)), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 {
				if v < 0 {
					return 2 * (math.Exp(v) - 1)
				}
				return v
			})},
		{name: "Selu", x: xs6, xShape: []int{6}, build: one("Selu"), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 {
				if v > 0 {
					return seluGamma * v
				}
				return seluGamma * (seluAlpha*math.Exp(v) - seluAlpha)
			})},
		{name: "Sigmoid", x: xs6, xShape: []int{6}, build: one("Sigmoid"), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) })},
		{name: "Tanh", x: xs6, xShape: []int{6}, build: one("Tanh"), yShape: []int{6}, want: mapF(xs6, math.Tanh)},
		{name: "Softplus", x: xs6, xShape: []int{6}, build: one("Softplus"), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 { return math.Log(math.Exp(v) + 1) })},
		{name: "Gelu", opset: 20, x: xs6, xShape: []int{6}, build: one("Gelu"), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) })},
		{name: "Gelu tanh", opset: 20, x: xs6, xShape: []int{6}, build: one("Gelu", aString("approximate", "tanh")), yShape: []int{6},
			want: mapF(xs6, func(v float64) float64 {
				return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
			})},
		{name: "Erf", x: xs6, xShape: []int{6}, build: one("Erf"), yShape: []int{6}, want: mapF(xs6, math.Erf)},
		{name: "Exp", x: xs6, xShape: []int{6}, build: one("Exp"), yShape: []int{6}, want: mapF(xs6, math.Exp)},
		{name: "Neg", x: xs6, xShape: []int{6}, build: one("Neg"), yShape: []int{6}, want: []float64{2, 0.5, 0, -0.5, -1, -3}},
		{name: "Log", x: []float32{1, 2, 4}, xShape: []int{3}, build: one("Log"), yShape: []int{3},
			want: []float64{0, float64(float32(math.Log(2))), float64(float32(math.Log(4)))}},
		{name: "Sqrt", x: []float32{0, 4, 2.25}, xShape: []int{3}, build: one("Sqrt"), yShape: []int{3}, want: []float64{0, 2, 1.5}},
		{name: "Clip attributes (opset 6)", opset: 7, x: xs6, xShape: []int{6}, build: one("Clip", aFloat("min", -1), aFloat("max", 0.75)), yShape: []int{6},
			want: []float64{-1, -0.5, 0, 0.5, 0.75, 0.75}},
		{name: "Clip inputs (opset 11)", opset: 13, x: xs6, xShape: []int{6},
			build: func(b *mb) *mb {
				return b.initF("lo", nil, -1).initF("hi", nil, 0.75).node("Clip", "c", []string{"x", "lo", "hi"}, []string{"y"})
			}, yShape: []int{6}, want: []float64{-1, -0.5, 0, 0.5, 0.75, 0.75}},
		{name: "Clip max only", opset: 13, x: xs6, xShape: []int{6},
			build: func(b *mb) *mb {
				return b.initF("hi", nil, 0.75).node("Clip", "c", []string{"x", "", "hi"}, []string{"y"})
			}, yShape: []int{6}, want: []float64{-2, -0.5, 0, 0.5, 0.75, 0.75}},
		{name: "Add broadcast row", x: xs6, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("r", []int64{3}, 10, 20, 30).node("Add", "a", []string{"x", "r"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{8, 19.5, 30, 10.5, 21, 33}},
		{name: "Sub broadcast column", x: xs6, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("c", []int64{2, 1}, 1, 2).node("Sub", "s", []string{"x", "c"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{-3, -1.5, -1, -1.5, -1, 1}},
		{name: "Mul scalar", x: xs6, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("s", nil, 2).node("Mul", "m", []string{"s", "x"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{-4, -1, 0, 1, 2, 6}},
		{name: "Div", x: xs6, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("d", []int64{3}, 2, 4, 8).node("Div", "d", []string{"x", "d"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{-1, -0.125, 0, 0.25, 0.25, 0.375}},
		{name: "Pow", x: []float32{1, 2, 3}, xShape: []int{3},
			build: func(b *mb) *mb {
				return b.initF("e", nil, 2).node("Pow", "p", []string{"x", "e"}, []string{"y"})
			}, yShape: []int{3}, want: []float64{1, 4, 9}},
		{name: "Pow int exponent", opset: 15, x: []float32{1, 2, 3}, xShape: []int{3},
			build: func(b *mb) *mb {
				return b.initI("e", nil, 3).node("Pow", "p", []string{"x", "e"}, []string{"y"})
			}, yShape: []int{3}, want: []float64{1, 8, 27}},
		{name: "Max three", x: xs6, xShape: []int{6},
			build: func(b *mb) *mb {
				return b.initF("a", nil, 0.25).initF("c", []int64{6}, 0, 0, 0, 0, 0, 5).
					node("Max", "mx", []string{"x", "a", "c"}, []string{"y"})
			}, yShape: []int{6}, want: []float64{0.25, 0.25, 0.25, 0.5, 1, 5}},
		{name: "Min", x: xs6, xShape: []int{6},
			build: func(b *mb) *mb {
				return b.initF("a", nil, 0.25).node("Min", "mn", []string{"x", "a"}, []string{"y"})
			}, yShape: []int{6}, want: []float64{-2, -0.5, 0, 0.25, 0.25, 0.25}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}

// softmax of the values, in float64 then rounded to f32.
func softmax(v ...float64) []float64 {
	s := 0.0
	for _, x := range v {
		s += math.Exp(x)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(float32(math.Exp(x) / s))
	}
	return out
}

func TestSoftmaxOpsets(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	// Up to opset 12, axis 1 of a [1,2,2] input makes one row of all four
	// values; from 13 the softmax runs along axis 1 alone: pairs (1,3) and
	// (2,4).
	old := softmax(1, 2, 3, 4)
	p13, p24 := softmax(1, 3), softmax(2, 4)
	for _, tc := range []opCase{
		{name: "Softmax opset 11 axis 1", opset: 11, x: x, xShape: []int{1, 2, 2}, build: one("Softmax", aInt("axis", 1)), yShape: []int{1, 2, 2}, want: old},
		{name: "Softmax opset 11 default axis", opset: 11, x: x, xShape: []int{1, 2, 2}, build: one("Softmax"), yShape: []int{1, 2, 2}, want: old},
		{name: "Softmax opset 13 axis 1", opset: 13, x: x, xShape: []int{1, 2, 2}, build: one("Softmax", aInt("axis", 1)), yShape: []int{1, 2, 2},
			want: []float64{p13[0], p24[0], p13[1], p24[1]}},
		{name: "Softmax opset 13 default axis", opset: 13, x: x, xShape: []int{1, 2, 2}, build: one("Softmax"), yShape: []int{1, 2, 2},
			want: append(softmax(1, 2), softmax(3, 4)...)},
		{name: "LogSoftmax opset 11 axis 1", opset: 11, x: x, xShape: []int{1, 2, 2}, build: one("LogSoftmax", aInt("axis", 1)), yShape: []int{1, 2, 2},
			want: func() []float64 {
				l := math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3) + math.Exp(4))
				return []float64{float64(float32(1 - l)), float64(float32(2 - l)), float64(float32(3 - l)), float64(float32(4 - l))}
			}()},
		{name: "LogSoftmax opset 13 axis 1", opset: 13, x: x, xShape: []int{1, 2, 2}, build: one("LogSoftmax", aInt("axis", 1)), yShape: []int{1, 2, 2},
			want: []float64{math.Log(p13[0]), math.Log(p24[0]), math.Log(p13[1]), math.Log(p24[1])}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}

func TestLinear(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6} // [2,3]
	for _, tc := range []opCase{
		{name: "MatMul", x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("W", []int64{3, 2}, 1, 0, 0, 1, 1, 1).node("MatMul", "mm", []string{"x", "W"}, []string{"y"})
			}, yShape: []int{2, 2}, want: []float64{4, 5, 10, 11}},
		{name: "Gemm transB alpha beta", x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("W", []int64{2, 3}, 1, 0, 1, 0, 1, 1).initF("c", []int64{2}, 1, -1).
					node("Gemm", "g", []string{"x", "W", "c"}, []string{"y"}, aInt("transB", 1), aFloat("alpha", 2), aFloat("beta", 3))
			}, yShape: []int{2, 2}, want: []float64{2*4 + 3, 2*5 - 3, 2*10 + 3, 2*11 - 3}},
		{name: "Gemm transA no C (opset 11)", opset: 11, x: x, xShape: []int{3, 2},
			build: func(b *mb) *mb {
				return b.initF("W", []int64{3, 1}, 1, 1, 1).node("Gemm", "g", []string{"x", "W"}, []string{"y"}, aInt("transA", 1))
			}, yShape: []int{2, 1}, want: []float64{1 + 3 + 5, 2 + 4 + 6}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}

func TestNormalization(t *testing.T) {
	// BatchNormalization on [N=1, C=2, 2]: channel 0 has mean 1, var 4,
	// scale 2, bias 1; channel 1 mean 0, var 0.25 (with epsilon 0 given
	// as 0 would be exact; the default 1e-5 is in the formula).
	x := []float32{3, 5, 1, -1}
	bn := func(v, mean, variance, scale, bias float64) float64 {
		return float64(float32((v-mean)/math.Sqrt(variance+1e-5)*scale + bias))
	}
	for _, opset := range []int64{9, 14} {
		runOpCase(t, opCase{name: "BatchNormalization", opset: opset, x: x, xShape: []int{1, 2, 2},
			build: func(b *mb) *mb {
				return b.initF("s", []int64{2}, 2, 1).initF("bias", []int64{2}, 1, 0).initF("m", []int64{2}, 1, 0).initF("v", []int64{2}, 4, 0.25).
					node("BatchNormalization", "bn", []string{"x", "s", "bias", "m", "v"}, []string{"y"})
			}, yShape: []int{1, 2, 2},
			want: []float64{bn(3, 1, 4, 2, 1), bn(5, 1, 4, 2, 1), bn(1, 0, 0.25, 1, 0), bn(-1, 0, 0.25, 1, 0)}})
	}
	// LayerNormalization over the last axis of [2,2]: rows (1,3) and
	// (2,6): means 2 and 4, variances 1 and 4.
	ln := func(v, mean, variance, scale, bias float64) float64 {
		return float64(float32((v-mean)*(1/math.Sqrt(variance+1e-5))*scale + bias))
	}
	runOpCase(t, opCase{name: "LayerNormalization", opset: 17, x: []float32{1, 3, 2, 6}, xShape: []int{2, 2},
		build: func(b *mb) *mb {
			return b.initF("g", []int64{2}, 1, 2).initF("bb", []int64{2}, 0, 1).
				node("LayerNormalization", "ln", []string{"x", "g", "bb"}, []string{"y"})
		}, yShape: []int{2, 2},
		want: []float64{ln(1, 2, 1, 1, 0), ln(3, 2, 1, 2, 1), ln(2, 4, 4, 1, 0), ln(6, 4, 4, 2, 1)}})
}

func TestShapeOps(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6}
	for _, tc := range []opCase{
		{name: "Identity", x: x, xShape: []int{6}, build: one("Identity"), yShape: []int{6}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Dropout inference", x: x, xShape: []int{6}, build: one("Dropout"), yShape: []int{6}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Flatten axis 2", x: x, xShape: []int{1, 2, 3}, build: one("Flatten", aInt("axis", 2)), yShape: []int{2, 3}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Flatten axis 0", x: x, xShape: []int{2, 3}, build: one("Flatten", aInt("axis", 0)), yShape: []int{1, 6}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Transpose default", x: x, xShape: []int{2, 3}, build: one("Transpose"), yShape: []int{3, 2}, want: []float64{1, 4, 2, 5, 3, 6}},
		{name: "Transpose perm", x: x, xShape: []int{1, 2, 3}, build: one("Transpose", aInts("perm", 2, 0, 1)), yShape: []int{3, 1, 2}, want: []float64{1, 4, 2, 5, 3, 6}},
		{name: "Reshape 0 and -1", x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("shape", []int64{3}, 0, -1, 1).node("Reshape", "r", []string{"x", "shape"}, []string{"y"})
			}, yShape: []int{2, 3, 1}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Reshape from a folded shape subgraph", x: x, xShape: []int{2, 3},
			// PyTorch's x.view(x.size(0), -1): Shape, Gather 0, Unsqueeze,
			// Concat with [-1], Reshape.
			build: func(b *mb) *mb {
				return b.initI("zero", nil, 0).initI("minus1", []int64{1}, -1).
					node("Shape", "shape", []string{"x"}, []string{"s"}).
					node("Gather", "gather", []string{"s", "zero"}, []string{"n"}, aInt("axis", 0)).
					node("Unsqueeze", "unsq", []string{"n"}, []string{"n1"}, aInts("axes", 0)).
					node("Concat", "cat", []string{"n1", "minus1"}, []string{"shape2"}, aInt("axis", 0)).
					node("Reshape", "view", []string{"x", "shape2"}, []string{"y"})
			}, opset: 11, yShape: []int{2, 3}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Squeeze attribute (opset 11)", opset: 11, x: x, xShape: []int{1, 6, 1}, build: one("Squeeze", aInts("axes", 0)), yShape: []int{6, 1}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Squeeze all (opset 11)", opset: 11, x: x, xShape: []int{1, 6, 1}, build: one("Squeeze"), yShape: []int{6}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Squeeze input (opset 13)", opset: 13, x: x, xShape: []int{1, 6, 1},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, -1).node("Squeeze", "sq", []string{"x", "axes"}, []string{"y"})
			}, yShape: []int{1, 6}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Unsqueeze attribute (opset 11)", opset: 11, x: x, xShape: []int{6}, build: one("Unsqueeze", aInts("axes", 0, 2)), yShape: []int{1, 6, 1}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Unsqueeze input (opset 13)", opset: 13, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, 1).node("Unsqueeze", "u", []string{"x", "axes"}, []string{"y"})
			}, yShape: []int{2, 1, 3}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Concat on the feature axis", x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("k", []int64{2, 1}, 10, 20).node("Relu", "r", []string{"x"}, []string{"h"}).
					node("Concat", "cat", []string{"h", "k"}, []string{"y"}, aInt("axis", -1))
			}, yShape: []int{2, 4}, want: []float64{1, 2, 3, 10, 4, 5, 6, 20}},
		{name: "Concat on the batch axis", x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("k", []int64{1, 3}, 7, 8, 9).node("Concat", "cat", []string{"k", "x"}, []string{"y"}, aInt("axis", 0))
			}, yShape: []int{3, 3}, want: []float64{7, 8, 9, 1, 2, 3, 4, 5, 6}},
		{name: "Reshape by a sliced shape (opset 13)", opset: 13, x: x, xShape: []int{1, 2, 3},
			// x.view(*x.shape[1:]): Shape, Slice from 1 to the end, Reshape.
			build: func(b *mb) *mb {
				return b.initI("one", []int64{1}, 1).initI("big", []int64{1}, 1<<40).
					node("Shape", "shape", []string{"x"}, []string{"s"}).
					node("Slice", "tail", []string{"s", "one", "big"}, []string{"s2"}).
					node("Reshape", "view", []string{"x", "s2"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "Slice with a negative step (opset 13)", opset: 13, x: []float32{1, 2, 3, 4}, xShape: []int{2, 2},
			build: func(b *mb) *mb {
				return b.initF("k", []int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8).initI("st", []int64{1}, -1).initI("en", []int64{1}, -1<<40).
					initI("ax", []int64{1}, 1).initI("sp", []int64{1}, -2).
					node("Slice", "rev", []string{"k", "st", "en", "ax", "sp"}, []string{"k2"}).
					node("Add", "add", []string{"x", "k2"}, []string{"y"})
			}, yShape: []int{2, 2}, want: []float64{1 + 4, 2 + 2, 3 + 8, 4 + 6}},
		{name: "Slice attributes (opset 9)", opset: 9, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initF("k", []int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8).
					node("Slice", "cut", []string{"k"}, []string{"k2"}, aInts("starts", 1), aInts("ends", 100), aInts("axes", -1)).
					node("Add", "add", []string{"x", "k2"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{1 + 2, 2 + 3, 3 + 4, 4 + 6, 5 + 7, 6 + 8}},
		{name: "ConstantOfShape", opset: 13, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				v := &onnxpb.TensorProto{Dims: []int64{1}, DataType: tFloat, FloatData: []float32{0.5}}
				return b.node("Shape", "shape", []string{"x"}, []string{"s"}).
					node("ConstantOfShape", "half", []string{"s"}, []string{"h"}, aTensor("value", v)).
					node("Mul", "mul", []string{"x", "h"}, []string{"y"})
			}, yShape: []int{2, 3}, want: []float64{0.5, 1, 1.5, 2, 2.5, 3}},
		{name: "Constant and Cast", x: x, xShape: []int{6},
			build: func(b *mb) *mb {
				c := &onnxpb.TensorProto{Dims: []int64{6}, DataType: tDouble, DoubleData: []float64{0.5, 0.5, 0.5, 0.5, 0.5, 1.5}}
				return b.node("Constant", "k", nil, []string{"k"}, aTensor("value", c)).
					node("Cast", "cast", []string{"k"}, []string{"kf"}, aInt("to", int64(tFloat))).
					node("Mul", "mul", []string{"x", "kf"}, []string{"y"})
			}, yShape: []int{6}, want: []float64{0.5, 1, 1.5, 2, 2.5, 9}},
		{name: "Cast to double and back", x: []float32{1.5, -2.5}, xShape: []int{2},
			build: func(b *mb) *mb {
				return b.node("Cast", "c1", []string{"x"}, []string{"d"}, aInt("to", int64(tDouble))).
					node("Cast", "c2", []string{"d"}, []string{"i"}, aInt("to", int64(tInt32))).
					node("Cast", "c3", []string{"i"}, []string{"y"}, aInt("to", int64(tFloat)))
			}, yShape: []int{2}, want: []float64{1, -2}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}

func TestReductions(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6} // [2,3]
	for _, tc := range []opCase{
		{name: "ReduceSum attribute (opset 11)", opset: 11, x: x, xShape: []int{2, 3}, build: one("ReduceSum", aInts("axes", 1)), yShape: []int{2, 1}, want: []float64{6, 15}},
		{name: "ReduceSum input (opset 13)", opset: 13, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, 0).node("ReduceSum", "rs", []string{"x", "axes"}, []string{"y"}, aInt("keepdims", 0))
			}, yShape: []int{3}, want: []float64{5, 7, 9}},
		{name: "ReduceSum all (opset 13)", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceSum", aInt("keepdims", 0)), yShape: []int{}, want: []float64{21}},
		{name: "ReduceSum noop (opset 13)", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceSum", aInt("noop_with_empty_axes", 1)), yShape: []int{2, 3}, want: []float64{1, 2, 3, 4, 5, 6}},
		{name: "ReduceMean attribute (opset 17)", opset: 17, x: x, xShape: []int{2, 3}, build: one("ReduceMean", aInts("axes", -1)), yShape: []int{2, 1}, want: []float64{2, 5}},
		{name: "ReduceMean input (opset 18)", opset: 18, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, 0).node("ReduceMean", "rm", []string{"x", "axes"}, []string{"y"})
			}, yShape: []int{1, 3}, want: []float64{2.5, 3.5, 4.5}},
		{name: "ReduceMax attribute (opset 13)", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceMax", aInts("axes", 0, 1), aInt("keepdims", 0)), yShape: []int{}, want: []float64{6}},
		{name: "ReduceMax input (opset 18)", opset: 18, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, 1).node("ReduceMax", "rx", []string{"x", "axes"}, []string{"y"}, aInt("keepdims", 0))
			}, yShape: []int{2}, want: []float64{3, 6}},
		{name: "ReduceProd", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceProd", aInts("axes", 1), aInt("keepdims", 0)), yShape: []int{2}, want: []float64{6, 120}},
		{name: "ReduceSumSquare input (opset 18)", opset: 18, x: x, xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("axes", []int64{1}, 1).node("ReduceSumSquare", "r", []string{"x", "axes"}, []string{"y"})
			}, yShape: []int{2, 1}, want: []float64{14, 77}},
		{name: "ReduceL1", opset: 13, x: []float32{-1, 2, -3, 4, -5, 6}, xShape: []int{2, 3}, build: one("ReduceL1", aInts("axes", 0)), yShape: []int{1, 3}, want: []float64{5, 7, 9}},
		{name: "ReduceL2", opset: 13, x: []float32{3, 4, 0, 0, 0, 5}, xShape: []int{2, 3}, build: one("ReduceL2", aInts("axes", 1), aInt("keepdims", 0)), yShape: []int{2}, want: []float64{5, 5}},
		{name: "ReduceLogSum", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceLogSum", aInts("axes", 1), aInt("keepdims", 0)), yShape: []int{2},
			want: []float64{float64(float32(math.Log(6))), float64(float32(math.Log(15)))}},
		{name: "ReduceLogSumExp", opset: 13, x: x, xShape: []int{2, 3}, build: one("ReduceLogSumExp", aInts("axes", 1), aInt("keepdims", 0)), yShape: []int{2},
			want: []float64{float64(float32(math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3)))), float64(float32(math.Log(math.Exp(4) + math.Exp(5) + math.Exp(6))))}},
		{name: "ArgMax", x: []float32{1, 9, 3, 7, 2, 7}, xShape: []int{2, 3}, build: one("ArgMax", aInt("axis", 1), aInt("keepdims", 0)), yShape: []int{2}, want: []float64{1, 0}},
		{name: "ArgMax last index", x: []float32{1, 9, 3, 7, 2, 7}, xShape: []int{2, 3}, build: one("ArgMax", aInt("axis", 1), aInt("select_last_index", 1)), yShape: []int{2, 1}, want: []float64{1, 2}},
		{name: "ArgMin axis 0", x: []float32{1, 9, 3, 7, 2, 7}, xShape: []int{2, 3}, build: one("ArgMin"), yShape: []int{1, 3}, want: []float64{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) { runOpCase(t, tc) })
	}
}
