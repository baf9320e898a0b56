package onnx

import (
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestRounding checks Floor, Ceil and Round past what ONNX's node tests feed
// (small floats): halves on both sides of zero, magnitudes past i32's
// range where the truncation runs in two parts, whole numbers past 2^52,
// the infinities and NaN, in float64, on the interpreter and the native
// back end, against Go's math.Floor, math.Ceil and math.RoundToEven.
func TestRounding(t *testing.T) {
	xs := []float64{-2.5, -2, -0.5, 0, 0.5, 1.5, 2.5, 0.49999999999999994, -3.5, 2.75, -2.25, 1<<31 - 0.5, -(1 << 31) - 0.5, 1<<32 + 1.5,
		1<<40 + 0.5, -(1 << 40) - 0.25, 1<<52 - 0.5, -(1 << 52) + 0.5, 1 << 53, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN()}
	x, err := graph.FromFloat64(xs, len(xs))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		name string
		f    func(float64) float64
	}{{"Floor", math.Floor}, {"Ceil", math.Ceil}, {"Round", math.RoundToEven}} {
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
		// Float32 rounding near the last fractional values (2^23 − 0.5).
		{name: "Round f32", opset: 11, x: []float32{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 8388607.5}, xShape: []int{8}, build: one("Round"), yShape: []int{8},
			want: []float64{-2, -2, 0, 0, 2, 2, 0, 8388608}},
		{name: "Floor f32", opset: 13, x: []float32{-2.5, -0.5, 0.5, 8388607.5, -8388607.5, 16777215, 3e9, -3e9}, xShape: []int{8}, build: one("Floor"), yShape: []int{8},
			want: []float64{-3, -1, 0, 8388607, -8388608, 16777215, 3e9, -3e9}},
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
		{"Slice reversing", newModel(13).input("x", tFloat, 4).output("y").initI("s", []int64{1}, -1).initI("e", []int64{1}, -100).
			initI("a", []int64{1}, 0).initI("st", []int64{1}, -1).node("Slice", "cut", []string{"x", "s", "e", "a", "st"}, []string{"y"}),
			[]string{`"cut"`, "step -1 on axis 0 is not supported", "reverses an axis"}},
		{"Slice empty", newModel(13).input("x", tFloat, 4).output("y").initI("s", []int64{1}, 3).initI("e", []int64{1}, 1).
			node("Slice", "cut", []string{"x", "s", "e"}, []string{"y"}),
			[]string{`"cut"`, "the slice of axis 0 (extent 4) is empty"}},
		{"Tile zero", newModel(13).input("x", tFloat, 2, 3).output("y").initI("r", []int64{2}, 0, 1).
			node("Tile", "t", []string{"x", "r"}, []string{"y"}),
			[]string{`"t"`, "repeats [0 1]: 0 for axis 0"}},
		{"Split sizes", newModel(13).input("x", tFloat, 5).output("y0", "y1").initI("sp", []int64{2}, 2, 2).
			node("Split", "sp", []string{"x", "sp"}, []string{"y0", "y1"}),
			[]string{`"sp"`, "split [2 2] adds up to 4, not the extent 5 of axis 0"}},
		{"Split unequal before 18", newModel(13).input("x", tFloat, 5).output("y0", "y1").
			node("Split", "sp", []string{"x"}, []string{"y0", "y1"}),
			[]string{`"sp"`, "axis 0 of extent 5 does not split into 2 equal parts"}},
		{"Expand mismatch", newModel(13).input("x", tFloat, 3).output("y").initI("sh", []int64{2}, 2, 4).
			node("Expand", "ex", []string{"x", "sh"}, []string{"y"}),
			[]string{`"ex"`, "input of shape [3] does not broadcast with shape [2 4] (axis 1: 3 and 4)"}},
		{"ConvTranspose W from the data", newModel(13).input("x", tFloat, 1, 2, 3, 3).input("w", tFloat, 2, 1, 2, 2).output("y").
			node("ConvTranspose", "up", []string{"x", "w"}, []string{"y"}),
			[]string{`"up"`, `input 1 ("w") is computed from the data; hofuse needs it known`}},
		{"ConvTranspose groups", newModel(13).input("x", tFloat, 1, 3, 3, 3).output("y").initF("w", []int64{3, 1, 1, 1}, 1, 2, 3).
			node("ConvTranspose", "up", []string{"x", "w"}, []string{"y"}, aInt("group", 2)),
			[]string{`"up"`, "X has 3 channels, W [3 1 1 1] takes 3 in 2 groups"}},
		{"ConvTranspose output_padding", newModel(13).input("x", tFloat, 1, 1, 3, 3).output("y").initF("w", []int64{1, 1, 1, 1}, 1).
			node("ConvTranspose", "up", []string{"x", "w"}, []string{"y"}, aInts("strides", 2, 2), aInts("output_padding", 2, 0)),
			[]string{`"up"`, "output_padding [2 0]: each value must be at least 0 and less than its axis's stride or dilation"}},
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

// backendsT returns the native back end and, unless -short, PJRT when a
// plugin is found (required with HOFUSE_REQUIRE_PJRT=1).
func backendsT(t *testing.T) []lowering.Backend {
	t.Helper()
	bs := []lowering.Backend{native.New(native.Options{})}
	if testing.Short() {
		return bs
	}
	path, err := pjrt.Locate("")
	if err != nil || !pjrt.CgoEnabled() {
		if pjrttest.Required() {
			t.Fatalf("no PJRT plugin: %v", err)
		}
		return bs
	}
	client, err := pjrt.Open(path)
	if err != nil {
		t.Fatalf("PJRT plugin %s does not open: %v", path, err)
	}
	t.Cleanup(func() { client.Close() })
	return append(bs, xla.New(client, xla.Options{}))
}

// TestDataViews checks Slice of a data tensor (crops, steps past the end
// of the axis, which pad, and steps that do not), Split, Tile and Expand
// on the interpreter and every back end. The expected values are numpy's
// x[...] and numpy.tile / numpy.broadcast_to of x = arange, written out.
func TestDataViews(t *testing.T) {
	x := make([]float32, 20)
	for i := range x {
		x[i] = float32(i)
	}
	slice := func(starts, ends, axes, steps []int64) func(b *mb) *mb {
		return func(b *mb) *mb {
			n := int64(len(starts))
			b = b.initI("s", []int64{n}, starts...).initI("e", []int64{n}, ends...).initI("a", []int64{n}, axes...).initI("st", []int64{n}, steps...)
			return b.node("Relu", "r", []string{"x"}, []string{"h"}).node("Slice", "cut", []string{"h", "s", "e", "a", "st"}, []string{"y"})
		}
	}
	backends := backendsT(t)
	for _, tc := range []opCase{
		// x.reshape(2, 10)[:, 1:9]
		{name: "Slice crop", x: x, xShape: []int{2, 10}, build: slice([]int64{1}, []int64{9}, []int64{1}, []int64{1}), yShape: []int{2, 8},
			want: []float64{1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18}},
		// x.reshape(2, 10)[:, ::3]: 4 elements, the last block padded.
		{name: "Slice step 3 padded", x: x, xShape: []int{2, 10}, build: slice([]int64{0}, []int64{100}, []int64{1}, []int64{3}), yShape: []int{2, 4},
			want: []float64{0, 3, 6, 9, 10, 13, 16, 19}},
		// x.reshape(2, 10)[:, 1:8:2]
		{name: "Slice step 2", x: x, xShape: []int{2, 10}, build: slice([]int64{1}, []int64{8}, []int64{-1}, []int64{2}), yShape: []int{2, 4},
			want: []float64{1, 3, 5, 7, 11, 13, 15, 17}},
		// x.reshape(4, 5)[1::2, -1:-6:-5]: a negative step keeping one element.
		{name: "Slice two axes", x: x, xShape: []int{4, 5}, build: slice([]int64{1, -1}, []int64{4, -6}, []int64{0, 1}, []int64{2, -5}), yShape: []int{2, 1},
			want: []float64{9, 19}},
		// numpy.tile(x[:6].reshape(2, 3), (2, 3))
		{name: "Tile", x: x[:6], xShape: []int{2, 3},
			build: func(b *mb) *mb {
				return b.initI("rep", []int64{2}, 2, 3).node("Tile", "t", []string{"x", "rep"}, []string{"y"})
			}, yShape: []int{4, 9},
			want: []float64{0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5}},
		// numpy.broadcast_to(x[:3].reshape(3, 1), (2, 3, 2))
		{name: "Expand", x: x[:3], xShape: []int{3, 1},
			build: func(b *mb) *mb {
				return b.initI("shape", []int64{3}, 2, 1, 2).node("Expand", "ex", []string{"x", "shape"}, []string{"y"})
			}, yShape: []int{2, 3, 2}, want: []float64{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}},
		// x.reshape(4, 5)[1:3, 2:] with opset 9's attributes.
		{name: "Slice opset 9", opset: 9, x: x, xShape: []int{4, 5},
			build: func(b *mb) *mb {
				return b.node("Relu", "r", []string{"x"}, []string{"h"}).
					node("Slice", "cut", []string{"h"}, []string{"y"}, aInts("starts", 1, 2), aInts("ends", 3, 1000), aInts("axes", 0, 1))
			}, yShape: []int{2, 3}, want: []float64{7, 8, 9, 12, 13, 14}},
		// numpy.split(x.reshape(4, 5), [1], axis=0)[1] with opset 11's
		// split attribute.
		{name: "Split attribute", opset: 11, x: x, xShape: []int{4, 5},
			build: func(b *mb) *mb {
				return b.node("Split", "sp", []string{"x"}, []string{"y0", "y"}, aInt("axis", -2), aInts("split", 1, 3))
			}, yShape: []int{3, 5}, want: []float64{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
		// numpy.split(x[:10].reshape(2, 5), [3], axis=1)[1] (opset 18's
		// num_outputs=2 cuts 5 into 3 and 2).
		{name: "Split uneven", opset: 18, x: x[:10], xShape: []int{2, 5},
			build: func(b *mb) *mb {
				return b.node("Split", "sp", []string{"x"}, []string{"y0", "y"}, aInt("axis", 1), aInt("num_outputs", 2))
			}, yShape: []int{2, 2}, want: []float64{3, 4, 8, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runOpCase(t, tc)
			dims := make([]any, len(tc.xShape))
			for i, d := range tc.xShape {
				dims[i] = d
			}
			opset := tc.opset
			if opset == 0 {
				opset = 13
			}
			m := importT(t, tc.build(newModel(opset).input("x", tFloat, dims...).output("y")), imports.Options{})
			bind, err := m.Bindings(map[string]graph.Value{"x": f32(t, tc.x, tc.xShape...)})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range backends {
				for _, unfused := range []bool{false, true} {
					v, err := backendRun(b, m, bind, unfused)
					if err != nil {
						t.Fatalf("%s (unfused %v): %v", b.Name(), unfused, err)
					}
					outs, err := m.OutputValues(v)
					if err != nil {
						t.Fatal(err)
					}
					expect(t, outs["y"], tc.yShape, tc.want)
				}
			}
		})
	}
}
