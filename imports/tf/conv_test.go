package tf

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// jaxCase is one case of layers/testdata/conv_jax.json, the convolutions
// and poolings JAX computed (layers/testdata/make_conv_fixtures.py). Its
// channels-last cases are TensorFlow's Conv2D, DepthwiseConv2dNative,
// MaxPool and AvgPool: lax.conv_general_dilated with NHWC and HWIO, and
// TensorFlow's SAME is lax's.
type jaxCase struct {
	Name      string    `json:"name"`
	Kind      string    `json:"kind"`
	Format    string    `json:"format"`
	Batch     int       `json:"batch"`
	Spatial   []int     `json:"spatial"`
	In        int       `json:"in"`
	Out       int       `json:"out"`
	Channels  int       `json:"channels"`
	Kernel    []int     `json:"kernel"`
	Window    []int     `json:"window"`
	Strides   []int     `json:"strides"`
	Dilations []int     `json:"dilations"`
	Groups    int       `json:"groups"`
	Padding   string    `json:"padding"`
	Pads      []int     `json:"pads"`
	Include   bool      `json:"count_include_pad"`
	X         []float64 `json:"x"`
	K         []float64 `json:"K"`
	B         []float64 `json:"b"`
	Y         []float64 `json:"y"`
	YShape    []int     `json:"y_shape"`
}

func f64Placeholder(name string, dims ...int64) *tfpb.NodeDef {
	n := withAttr(ndef(name, "Placeholder"), "dtype", typeAttr(tfpb.DataType_DT_DOUBLE))
	return withAttr(n, "shape", &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: shapeProto(dims...)}})
}

func f64Const(name string, shape []int, vals []float64) *tfpb.NodeDef {
	s := make([]int64, len(shape))
	for i, d := range shape {
		s[i] = int64(d)
	}
	return constTensor(name, &tfpb.TensorProto{Dtype: tfpb.DataType_DT_DOUBLE, TensorShape: shapeProto(s...), DoubleVal: vals})
}

func nhwcAttr(v []int) *tfpb.AttrValue {
	if v == nil {
		v = []int{1, 1}
	}
	return intsAttr(1, int64(v[0]), int64(v[1]), 1)
}

// TestWindowOpsAgainstJAX imports Conv2D (with BiasAdd),
// DepthwiseConv2dNative, MaxPool and AvgPool graphs built from the
// channels-last JAX cases and compares their outputs with JAX's.
func TestWindowOpsAgainstJAX(t *testing.T) {
	data, err := os.ReadFile("../../layers/testdata/conv_jax.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Convs, Pools []jaxCase }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, jc := range append(file.Convs, file.Pools...) {
		if jc.Format != "last" || len(jc.Spatial) != 2 || jc.Include {
			continue // TensorFlow has 2-D NHWC ops, and AvgPool excludes padding
		}
		isPool := jc.Kind != ""
		if isPool && jc.Padding == "explicit" {
			continue // TensorFlow's poolings take SAME or VALID only
		}
		t.Run(jc.Name, func(t *testing.T) {
			channels := jc.In
			if isPool {
				channels = jc.Channels
			}
			nodes := []*tfpb.NodeDef{f64Placeholder("x", int64(jc.Batch), int64(jc.Spatial[0]), int64(jc.Spatial[1]), int64(channels))}
			var op *tfpb.NodeDef
			switch {
			case isPool:
				name := map[string]string{"max": "MaxPool", "avg": "AvgPool"}[jc.Kind]
				op = withAttr(ndef("y", name, "x"), "ksize", nhwcAttr(jc.Window))
			case jc.Groups == jc.In && jc.Groups > 1:
				// Depthwise: the HWIO kernel [kh, kw, 1, C*m] is the
				// filter [kh, kw, C, m], element for element.
				m := jc.Out / jc.In
				nodes = append(nodes, f64Const("K", []int{jc.Kernel[0], jc.Kernel[1], jc.In, m}, jc.K))
				op = withAttr(ndef("conv", "DepthwiseConv2dNative", "x", "K"), "dilations", nhwcAttr(jc.Dilations))
			default:
				g := max(jc.Groups, 1)
				nodes = append(nodes, f64Const("K", []int{jc.Kernel[0], jc.Kernel[1], jc.In / g, jc.Out}, jc.K))
				op = withAttr(ndef("conv", "Conv2D", "x", "K"), "dilations", nhwcAttr(jc.Dilations))
			}
			op = withAttr(op, "T", typeAttr(tfpb.DataType_DT_DOUBLE))
			op = withAttr(op, "strides", nhwcAttr(jc.Strides))
			op = withAttr(op, "padding", stringAttr(strings.ToUpper(jc.Padding)))
			if jc.Padding == "explicit" {
				p := jc.Pads
				op = withAttr(op, "explicit_paddings", intsAttr(0, 0, int64(p[0]), int64(p[1]), int64(p[2]), int64(p[3]), 0, 0))
			}
			nodes = append(nodes, op)
			if !isPool {
				nodes = append(nodes, f64Const("b", []int{jc.Out}, jc.B), withAttr(ndef("y", "BiasAdd", "conv", "b"), "T", typeAttr(tfpb.DataType_DT_DOUBLE)))
			}
			m, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x, err := graph.FromFloat64(jc.X, jc.Batch, jc.Spatial[0], jc.Spatial[1], channels)
			if err != nil {
				t.Fatal(err)
			}
			bind, err := m.Bindings(map[string]graph.Value{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			v, err := graph.Eval(m.Term, bind)
			if err != nil {
				t.Fatal(err)
			}
			got := v.(*graph.Array)
			if !equalInts(got.Extents(), jc.YShape) {
				t.Fatalf("output %v, JAX's %v", got.Extents(), jc.YShape)
			}
			for i, g := range got.Values() {
				if w := jc.Y[i]; !(math.Abs(g-w) <= 1e-12*math.Max(1, math.Abs(w))) {
					t.Fatalf("y[%d] = %v, JAX gives %v", i, g, w)
				}
			}
		})
		ran++
	}
	if ran < 10 {
		t.Errorf("only %d cases ran, want 10 at least", ran)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWindowOpErrors: what the coverage pass and the converters refuse,
// named.
func TestWindowOpErrors(t *testing.T) {
	x := placeholder("x", 1, 5, 5, 4)
	k := constF32("K", []int64{3, 3, 3, 2}, make([]float32, 54)...)
	for _, tc := range []struct {
		nodes []*tfpb.NodeDef
		want  string
	}{
		{[]*tfpb.NodeDef{x, k, withAttr(withAttr(ndef("y", "Conv2D", "x", "K"), "padding", stringAttr("VALID")), "data_format", stringAttr("NCHW"))},
			`Conv2D at node "y": data_format NCHW is not supported (only NHWC, channels last)`},
		{[]*tfpb.NodeDef{x, withAttr(withAttr(ndef("y", "MaxPool", "x"), "padding", stringAttr("EXPLICIT")), "ksize", intsAttr(1, 2, 2, 1))},
			`MaxPool at node "y": padding "EXPLICIT" is not supported (SAME, VALID or, for a convolution, EXPLICIT)`},
		{[]*tfpb.NodeDef{x, k, withAttr(ndef("y", "Conv2D", "x", "K"), "padding", stringAttr("VALID"))},
			"filter f32[3,3,3,2] takes 3 input channels, which do not divide the 4 of the input f32[1,5,5,4]"},
	} {
		_, err := ImportBytes(graphBytes(t, tc.nodes...), "g.pb", imports.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %s", err, tc.want)
		}
	}
}
