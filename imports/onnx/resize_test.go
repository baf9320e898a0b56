package onnx

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// TestResizeNearest imports Resize as PyTorch's nn.Upsample(scale_factor,
// mode="nearest") exports it (opset 11 and later: an empty roi, scales
// [1, 1, 2, 3], coordinate_transformation_mode asymmetric, nearest_mode
// floor), the same by sizes, by the default half_pixel, and Upsample 7's
// attribute, and checks each against the repetition written out by hand.
func TestResizeNearest(t *testing.T) {
	want := []float32{
		1, 1, 1, 2, 2, 2,
		1, 1, 1, 2, 2, 2,
		3, 3, 3, 4, 4, 4,
		3, 3, 3, 4, 4, 4,
	}
	str := func(name, v string) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_STRING, S: []byte(v)}
	}
	torch := []*onnxpb.AttributeProto{str("mode", "nearest"), str("coordinate_transformation_mode", "asymmetric"), str("nearest_mode", "floor")}
	for _, tc := range []struct {
		name string
		b    *mb
	}{
		{"pytorch scales", newModel(13).input("x", tFloat, 1, 1, 2, 2).output("y").initF("roi", []int64{0}).
			initF("scales", []int64{4}, 1, 1, 2, 3).node("Resize", "up", []string{"x", "roi", "scales"}, []string{"y"}, torch...)},
		{"pytorch sizes", newModel(13).input("x", tFloat, 1, 1, 2, 2).output("y").initF("roi", []int64{0}).initF("scales", []int64{0}).
			initI("sizes", []int64{4}, 1, 1, 4, 6).node("Resize", "up", []string{"x", "roi", "scales", "sizes"}, []string{"y"}, torch...)},
		{"half_pixel", newModel(13).input("x", tFloat, 1, 1, 2, 2).output("y").initF("roi", []int64{0}).
			initF("scales", []int64{4}, 1, 1, 2, 3).node("Resize", "up", []string{"x", "roi", "scales"}, []string{"y"})},
		{"Upsample 7", newModel(7).input("x", tFloat, 1, 1, 2, 2).output("y").
			node("Upsample", "up", []string{"x"}, []string{"y"}, &onnxpb.AttributeProto{Name: "scales", Type: onnxpb.AttributeProto_FLOATS, Floats: []float32{1, 1, 2, 3}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ImportBytes(tc.b.bytes(t), "up.onnx", imports.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x, err := graph.FromFloat32([]float32{1, 2, 3, 4}, 1, 1, 2, 2)
			if err != nil {
				t.Fatal(err)
			}
			bind, err := m.Bindings(map[string]graph.Value{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range backendsT(t) {
				got, err := backendRun(b, m, bind, false)
				if err != nil {
					t.Fatalf("%s: %v", b.Name(), err)
				}
				a := got.(*graph.Array)
				if !slices.Equal(a.Extents(), []int{1, 1, 4, 6}) || !slices.Equal(a.Float32s(), want) {
					t.Errorf("%s: got %v %v, want [1 1 4 6] %v", b.Name(), a.Extents(), a.Float32s(), want)
				}
			}
		})
	}
}

// TestResizeRefusals checks the settings Resize refuses, by their
// messages: linear mode, a coordinate mode under which nearest is not a
// repetition, a fractional scale, and sizes that are no whole multiple.
func TestResizeRefusals(t *testing.T) {
	str := func(name, v string) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_STRING, S: []byte(v)}
	}
	base := func() *mb { return newModel(13).input("x", tFloat, 1, 1, 2, 2).output("y").initF("roi", []int64{0}) }
	for _, tc := range []struct {
		name string
		b    *mb
		want string
	}{
		{"linear", base().initF("s", []int64{4}, 1, 1, 2, 2).node("Resize", "up", []string{"x", "roi", "s"}, []string{"y"}, str("mode", "linear")),
			`mode "linear" is not supported`},
		{"align_corners", base().initF("s", []int64{4}, 1, 1, 2, 2).node("Resize", "up", []string{"x", "roi", "s"}, []string{"y"}, str("coordinate_transformation_mode", "align_corners")),
			`coordinate_transformation_mode "align_corners" with nearest_mode "round_prefer_floor" is not supported`},
		{"fraction", base().initF("s", []int64{4}, 1, 1, 1.5, 2).node("Resize", "up", []string{"x", "roi", "s"}, []string{"y"}),
			"scales [1 1 1.5 2]: 1.5 along axis 2 is not a whole upsampling"},
		{"sizes", base().initF("s", []int64{0}).initI("z", []int64{4}, 1, 1, 3, 4).node("Resize", "up", []string{"x", "roi", "s", "z"}, []string{"y"}),
			"sizes [1 1 3 4]: axis 2 of extent 2 to 3 is not a whole upsampling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportBytes(tc.b.bytes(t), "up.onnx", imports.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"up"`) {
				t.Errorf("error %v, want one at node up containing %q", err, tc.want)
			}
		})
	}
}
