package onnx

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// readNpyF32 reads a float32 or integer .npy fixture (data.ReadArray) as
// float64 values and its shape.
func readNpyF32(t *testing.T, path string) ([]float64, []int) {
	t.Helper()
	v, err := data.ReadArray(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := v.(*graph.Array)
	if !ok {
		t.Fatalf("%s: %s, want an array", path, graph.DescribeValue(v))
	}
	return a.Values(), a.Extents()
}

// TestExportedModels runs the models real exporters wrote (scikit-learn
// through skl2onnx, Keras through tf2onnx, Softmax at two opsets, a CNN
// over InstanceNormalization, PRelu, LRN, Slice, Split, HardSwish, Mish
// and GlobalMaxPool written as PyTorch exports it, a channels-first
// block with unfolded BatchNormalization) on the interpreter and, fused
// and unfused, on the native back end and on PJRT when a plugin is found,
// against onnxruntime's outputs within 1e-5 relative (4e-5 where
// onnxruntime's own rounding is that far from float64's), and checks the
// digits predictions.
func TestExportedModels(t *testing.T) {
	dir := filepath.Join("testdata", "models")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no exported models: %v", err)
	}
	backends := modelBackends(t)
	for _, tc := range []struct {
		file, input, inputName string
		output, want           string
		labels                 string  // ORT's predicted labels, compared with the argmax
		rtol                   float64 // 0 for 1e-5
	}{
		{"sklearn_mlp_digits_nozipmap.onnx", "digits_input.npy", "input", "probabilities", "sklearn_mlp_digits_ort_probabilities.npy", "sklearn_mlp_digits_ort_label.npy", 0},
		{"sklearn_mlp_digits.onnx", "digits_input.npy", "input", "out_activations_result", "sklearn_mlp_digits_ort_probabilities.npy", "sklearn_mlp_digits_ort_label.npy", 0},
		{"keras_digits_tf2onnx.onnx", "digits_input.npy", "input:0", "Identity:0", "keras_digits_tf2onnx_ort_output.npy", "", 0},
		{"softmax_opset11_axis1.onnx", "opset11_input.npy", "x", "y", "softmax_opset11_axis1_ort_output.npy", "", 0},
		{"softmax_opset11_noaxis.onnx", "opset11_input.npy", "x", "y", "softmax_opset11_noaxis_ort_output.npy", "", 0},
		{"logsoftmax_opset11_axis1.onnx", "opset11_input.npy", "x", "y", "logsoftmax_opset11_axis1_ort_output.npy", "", 0},
		{"softmax_opset13_axis1.onnx", "opset11_input.npy", "x", "y", "softmax_opset13_axis1_ort_output.npy", "", 0},
		{"ops_cnn_digits.onnx", "digits_input.npy", "input", "probabilities", "ops_cnn_digits_ort_probabilities.npy", "", 0},
		// onnxruntime's probabilities are up to 1.6e-5 relative from a
		// float64 evaluation of the same weights (make_models.py checks
		// them within 1e-4); the interpreter's element 45 is 6.3e-6 on
		// one side of it and onnxruntime's 4.7e-6 on the other.
		{"convbn_digits.onnx", "digits_input.npy", "input", "probabilities", "convbn_digits_ort_probabilities.npy", "", 4e-5},
	} {
		t.Run(tc.file, func(t *testing.T) {
			xv, xs := readNpyF32(t, filepath.Join(dir, tc.input))
			m, err := Import(filepath.Join(dir, tc.file), imports.Options{Batch: xs[0], Outputs: []string{tc.output}})
			if err != nil {
				t.Fatal(err)
			}
			x32 := make([]float32, len(xv))
			for i, v := range xv {
				x32[i] = float32(v)
			}
			bind, err := m.Bindings(map[string]graph.Value{tc.inputName: f32(t, x32, xs...)})
			if err != nil {
				t.Fatal(err)
			}
			want, ws := readNpyF32(t, filepath.Join(dir, tc.want))
			results := everyBackend(t, backends, m, bind)
			for name, got := range results {
				a := got.(*graph.Array)
				if !slices.Equal(a.Extents(), ws) {
					t.Fatalf("%s: extents %v, want %v", name, a.Extents(), ws)
				}
				rtol := tc.rtol
				if rtol == 0 {
					rtol = 1e-5
				}
				for i, g := range a.Values() {
					if !(math.Abs(g-want[i]) <= rtol*math.Abs(want[i])+1e-7) { // NaN fails
						t.Fatalf("%s: element %d: got %v, onnxruntime %v", name, i, g, want[i])
					}
				}
				if tc.labels != "" {
					labels, _ := readNpyF32(t, filepath.Join(dir, tc.labels))
					pred := argmaxRows(a)
					if fmt.Sprint(pred) != fmt.Sprint(labels) {
						t.Errorf("%s: predictions %v, onnxruntime %v", name, pred, labels)
					}
				}
			}
		})
	}
}

// modelBackends returns the native back end, and PJRT's when a plugin is
// found (required where pjrttest says so), closed when t ends.
func modelBackends(t *testing.T) []lowering.Backend {
	t.Helper()
	backends := []lowering.Backend{native.New(native.Options{})}
	if path, err := pjrt.Locate(""); err == nil && pjrt.CgoEnabled() && !testing.Short() {
		client, err := pjrt.Open(path)
		if err != nil {
			t.Fatalf("PJRT plugin %s does not open: %v", path, err)
		}
		t.Cleanup(func() { client.Close() })
		backends = append(backends, xla.New(client, xla.Options{}))
	} else if pjrttest.Required() {
		t.Fatalf("no PJRT plugin: %v", err)
	}
	return backends
}

// everyBackend runs m on the interpreter and on each back end, fused and
// unfused, by name ("interp", "native unfused=false", …).
func everyBackend(t *testing.T, backends []lowering.Backend, m *imports.Model, bind map[string]graph.Value) map[string]graph.Value {
	t.Helper()
	interp, err := graph.Eval(m.Term, bind)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]graph.Value{"interp": interp}
	for _, b := range backends {
		for _, unfused := range []bool{false, true} {
			v, err := backendRun(b, m, bind, unfused)
			if err != nil {
				t.Fatalf("%s (unfused %v): %v", b.Name(), unfused, err)
			}
			results[fmt.Sprintf("%s unfused=%v", b.Name(), unfused)] = v
		}
	}
	return results
}

func argmaxRows(a *graph.Array) []float64 {
	ext := a.Extents()
	v := a.Values()
	var out []float64
	for r := range ext[0] {
		best := 0
		for c := range ext[1] {
			if v[r*ext[1]+c] > v[r*ext[1]+best] {
				best = c
			}
		}
		out = append(out, float64(best))
	}
	return out
}
