package onnx

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// TestMLModels runs the models of testdata/ml (make_ml_models.py): six
// scikit-learn pipelines exported by skl2onnx, which use the ai.onnx.ml
// domain's Scaler, Normalizer, LinearRegressor, LinearClassifier and
// ArrayFeatureExtractor, and one-node models of those operators on
// inputs that reach their edge cases. Every output of each, one at a
// time, on the interpreter and on the native back end (and PJRT's when a
// plugin is found) fused and unfused, against onnxruntime's values:
// floats within 1e-5 relative, labels exactly.
func TestMLModels(t *testing.T) {
	dir := filepath.Join("testdata", "ml")
	raw, err := os.ReadFile(filepath.Join(dir, "INDEX.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		Cases []struct {
			File      string            `json:"file"`
			Input     string            `json:"input"`
			InputFile string            `json:"input_file"`
			Outputs   map[string]string `json:"outputs"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Cases) < 18 {
		t.Fatalf("%d cases in INDEX.json, want 18", len(index.Cases))
	}
	backends := modelBackends(t)
	for _, c := range index.Cases {
		for out, file := range c.Outputs {
			t.Run(c.File+"/"+out, func(t *testing.T) {
				xv, xs := readNpyF32(t, filepath.Join(dir, c.InputFile))
				m, err := Import(filepath.Join(dir, c.File), imports.Options{Batch: xs[0], Outputs: []string{out}})
				if err != nil {
					t.Fatal(err)
				}
				x32 := make([]float32, len(xv))
				for i, v := range xv {
					x32[i] = float32(v)
				}
				bind, err := m.Bindings(map[string]graph.Value{c.Input: f32(t, x32, xs...)})
				if err != nil {
					t.Fatal(err)
				}
				want, ws := readNpyF32(t, filepath.Join(dir, file))
				results := everyBackend(t, backends, m, bind)
				exact := strings.Contains(out, "label")
				for name, v := range results {
					a, ok := v.(*graph.Array)
					if !ok {
						t.Fatalf("%s: %s, want an array", name, graph.DescribeValue(v))
					}
					if !slices.Equal(a.Extents(), ws) {
						t.Fatalf("%s: extents %v, want %v", name, a.Extents(), ws)
					}
					if exact && a.DType() != graph.Int32 {
						t.Errorf("%s: labels of type %v, want i32", name, a.DType())
					}
					for i, g := range a.Values() {
						w := want[i]
						// A NaN fails, as a difference that is not within the tolerance.
						if exact && g != w || !exact && !(math.Abs(g-w) <= 1e-5*math.Abs(w)+1e-7) {
							t.Fatalf("%s: element %d: got %v, onnxruntime %v", name, i, g, w)
						}
					}
				}
			})
		}
	}
}

func aFloats(name string, v ...float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_FLOATS, Floats: v}
}

// TestMLRefusals: ai.onnx.ml nodes with attributes that do not fit
// their input, or that hofuse does not convert, are errors that name the
// node and the numbers, never panics.
func TestMLRefusals(t *testing.T) {
	for _, c := range []struct {
		op    string
		ins   []string
		outs  []string
		attrs []*onnxpb.AttributeProto
		want  string
	}{
		{"Scaler", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aFloats("offset", 1, 2)}, "attribute offset has 2 values; want 1 or one per feature (3"},
		{"Scaler", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aInts("scale", 2)}, "attribute scale is INTS, want floats"},
		{"Normalizer", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aString("norm", "L3")}, `norm "L3"; want MAX, L1 or L2`},
		{"LinearRegressor", []string{"x"}, []string{"y"}, nil, "attribute coefficients is missing"},
		{"LinearRegressor", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3, 4)}, "coefficients has 4 values, not a multiple of the 3 features"},
		{"LinearRegressor", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3), aInt("targets", 2)}, "attribute targets is 2 but coefficients has 1 rows"},
		{"LinearRegressor", []string{"x"}, []string{"y"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3), aString("post_transform", "PROBIT")}, `post_transform "PROBIT"; hofuse converts NONE only`},
		{"LinearClassifier", []string{"x"}, []string{"l", "s"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3, 4, 5, 6), aInts("classlabels_ints", 1, 2, 3)}, "3 class labels for 2 rows of coefficients"},
		{"LinearClassifier", []string{"x"}, []string{"l", "s"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3), aFloats("intercepts", 1, 2), aInts("classlabels_ints", 0, 1)}, "attribute intercepts has 2 values; want one per row of coefficients (1)"},
		{"LinearClassifier", []string{"x"}, []string{"l", "s"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3), aInts("classlabels_ints", 0, 1<<40)}, "class label 1099511627776 is past the range of i32"},
		{"LinearClassifier", []string{"x"}, []string{"l", "s"}, []*onnxpb.AttributeProto{aFloats("coefficients", 1, 2, 3), aInts("classlabels_ints", 0, 1), aString("post_transform", "SOFTMAX_ZERO")}, `post_transform "SOFTMAX_ZERO"; hofuse converts NONE, LOGISTIC and SOFTMAX`},
		{"ArrayFeatureExtractor", []string{"x", "x"}, []string{"y"}, nil, "the IR has no gather of data"},
	} {
		b := newModel(17).input("x", tFloat, 2, 3).output(c.outs[len(c.outs)-1])
		b.m.OpsetImport = append(b.m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: "ai.onnx.ml", Version: 3})
		b.node(c.op, "n7", c.ins, c.outs, c.attrs...)
		b.m.Graph.Node[0].Domain = "ai.onnx.ml"
		_, err := ImportBytes(b.bytes(t), "ml.onnx", imports.Options{})
		if err == nil {
			t.Errorf("%s %v: imported, want an error saying %q", c.op, c.attrs, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "n7") {
			t.Errorf("%s: error %q, want it to name node n7 and say %q", c.op, err, c.want)
		}
	}
}

// TestMLStringLabels: a LinearClassifier with string class labels imports
// its scores; its label, asked for as an output or read by another node,
// is an error that says why it was not computed.
func TestMLStringLabels(t *testing.T) {
	model := func(outs []string, next bool) []byte {
		b := newModel(17).input("x", tFloat, 2, 3)
		for _, o := range outs {
			b.output(o)
		}
		b.m.OpsetImport = append(b.m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: "ai.onnx.ml", Version: 3})
		b.node("LinearClassifier", "n7", []string{"x"}, []string{"l", "s"}, aFloats("coefficients", 1, 2, 3),
			&onnxpb.AttributeProto{Name: "classlabels_strings", Type: onnxpb.AttributeProto_STRINGS, Strings: [][]byte{[]byte("no"), []byte("yes")}})
		b.m.Graph.Node[0].Domain = "ai.onnx.ml"
		if next {
			b.node("Identity", "n8", []string{"l"}, []string{"y"})
		}
		return b.bytes(t)
	}
	if _, err := ImportBytes(model([]string{"s"}, false), "ml.onnx", imports.Options{}); err != nil {
		t.Fatalf("the scores: %v", err)
	}
	for _, c := range []struct {
		outs []string
		next bool
		want string
	}{
		{[]string{"l"}, false, `output "l" was not computed: its class labels are strings (classlabels_strings)`},
		{[]string{"s", "y"}, true, `input 0 ("l") was not computed: its class labels are strings (classlabels_strings)`},
	} {
		_, err := ImportBytes(model(c.outs, c.next), "ml.onnx", imports.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("outputs %v: error %v, want one saying %q", c.outs, err, c.want)
		}
	}
}
