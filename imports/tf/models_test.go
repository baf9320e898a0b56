package tf

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// readNpy reads a float32 .npy fixture (data.ReadArray): its values and
// extents.
func readNpy(t *testing.T, path string) ([]float32, []int) {
	t.Helper()
	v, err := data.ReadArray(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := v.(*graph.Array)
	if !ok || a.DType() != graph.Float32 {
		t.Fatalf("%s: %s, want an f32 array", path, graph.DescribeValue(v))
	}
	return a.Float32s(), a.Extents()
}

// backends returns the native back end and, when a PJRT plugin is found
// (HOFUSE_PJRT_DIR), the PJRT one; with HOFUSE_REQUIRE_PJRT=1 a missing
// plugin fails the test.
func backends(t *testing.T) []lowering.Backend {
	bs := []lowering.Backend{native.New(native.Options{})}
	path, err := pjrt.Locate("")
	if err == nil && pjrt.CgoEnabled() {
		client, err := pjrt.Open(path)
		if err != nil {
			t.Fatalf("PJRT plugin %s does not open: %v", path, err)
		}
		t.Cleanup(func() { client.Close() })
		return append(bs, xla.New(client, xla.Options{}))
	}
	if pjrttest.Required() {
		t.Fatalf("no PJRT plugin: %v", err)
	}
	t.Logf("PJRT not run: %v", err)
	return bs
}

// runOn compiles the model's term on b, fused or unfused, and runs it.
func runOn(b lowering.Backend, m *imports.Model, bind map[string]graph.Value, unfused bool) (graph.Value, *fusion.Graph, error) {
	var g *fusion.Graph
	var err error
	if unfused {
		g, err = fusion.Unfused(m.Term)
	} else {
		var res *fusion.Result
		if res, err = fusion.Fuse(m.Term, fusion.Options{}); err == nil {
			g = res.Graph
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("fusion: %w", err)
	}
	exe, err := b.Compile(g)
	if err != nil {
		return nil, nil, fmt.Errorf("compile: %w", err)
	}
	defer exe.Close()
	bound := map[string]graph.Value{}
	for _, in := range g.Inputs {
		if v, ok := bind[in.Name]; ok {
			bound[in.Name] = v
		}
	}
	v, err := exe.Run(bound)
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	return graph.CopyValue(v), g, nil
}

// TestKerasDigits imports the digits classifiers TensorFlow froze (a Keras
// Sequential model, whose BatchNormalization Keras writes as AddV2, Rsqrt,
// Mul and Sub, and the same weights written with FusedBatchNormV3, Reshape
// and MatMul with transpose_b) and runs them on held-out rows with
// graph.Eval and, fused and unfused, on the native back end and on PJRT
// when a plugin is found: every probability within 1e-5 relative of
// TensorFlow's, the same predicted digits, and the fused kernels named
// after the TensorFlow nodes they hold.
func TestKerasDigits(t *testing.T) {
	bs := backends(t)
	x, xs := readNpy(t, filepath.Join("testdata", "digits_input.npy"))
	for _, tc := range []struct{ file, want string }{
		{"keras_digits.pb", "keras_digits_tf_output.npy"},
		{"digits_fused_bn.pb", "digits_fused_bn_tf_output.npy"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := Import(filepath.Join("testdata", tc.file), imports.Options{Batch: xs[0]})
			if err != nil {
				t.Fatal(err)
			}
			if m.Producer != "TensorFlow (GraphDef version 2474)" || m.Format != "tf" {
				t.Errorf("producer %q, format %q", m.Producer, m.Format)
			}
			if len(m.Inputs) != 1 || m.Inputs[0].Name != "input" || m.Inputs[0].Type.String() != "f32[16,64]" {
				t.Fatalf("inputs %v", m.Inputs)
			}
			if len(m.Outputs) != 1 || m.Outputs[0].Name != "Identity" || m.Outputs[0].Type.String() != "f32[16,10]" {
				t.Fatalf("outputs %+v", m.Outputs)
			}
			xa, err := graph.FromFloat32(slices.Clone(x), xs...)
			if err != nil {
				t.Fatal(err)
			}
			bind, err := m.Bindings(map[string]graph.Value{"input": xa})
			if err != nil {
				t.Fatal(err)
			}
			want, ws := readNpy(t, filepath.Join("testdata", tc.want))
			interp, err := graph.Eval(m.Term, bind)
			if err != nil {
				t.Fatal(err)
			}
			results := map[string]graph.Value{"graph.Eval": interp}
			for _, b := range bs {
				for _, unfused := range []bool{false, true} {
					v, g, err := runOn(b, m, bind, unfused)
					if err != nil {
						t.Fatalf("%s (unfused %v): %v", b.Name(), unfused, err)
					}
					results[fmt.Sprintf("%s unfused=%v", b.Name(), unfused)] = v
					if !unfused {
						kernelsNamed(t, g, filepath.Join("testdata", tc.file))
					}
				}
			}
			wantLabels := argmax(want, ws)
			for name, got := range results {
				a := got.(*graph.Array)
				if !slices.Equal(a.Extents(), ws) {
					t.Fatalf("%s: extents %v, TensorFlow %v", name, a.Extents(), ws)
				}
				vals := a.Values()
				worst := 0.0
				for i, w := range want {
					rel := math.Abs(vals[i]-float64(w)) / math.Abs(float64(w))
					worst = max(worst, rel)
					if !(rel <= 1e-5) {
						t.Errorf("%s: element %d = %v, TensorFlow %v (relative difference %.2g)", name, i, vals[i], w, rel)
					}
				}
				t.Logf("%s: largest relative difference from TensorFlow %.2g", name, worst)
				f := make([]float32, len(vals))
				for i, v := range vals {
					f[i] = float32(v)
				}
				if got := argmax(f, ws); !slices.Equal(got, wantLabels) {
					t.Errorf("%s: predicted digits %v, TensorFlow %v", name, got, wantLabels)
				}
			}
		})
	}
}

// kernelsNamed checks that every source name of every kernel of g is the
// name of a node of the graph in file.
func kernelsNamed(t *testing.T, g *fusion.Graph, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	gd, err := decodeGraph(file, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range g.Kernels {
		if len(k.Sources) == 0 {
			t.Errorf("kernel %s has no source", k.Name)
		}
		for _, s := range k.Sources {
			if gd.byName[s] == nil {
				t.Errorf("kernel %s has source %q, which is no node of %s (sources %v)", k.Name, s, file, k.Sources)
			}
		}
	}
}

func argmax(v []float32, shape []int) []int {
	var out []int
	for r := range shape[0] {
		row := v[r*shape[1] : (r+1)*shape[1]]
		best := 0
		for c := range row {
			if row[c] > row[best] {
				best = c
			}
		}
		out = append(out, best)
	}
	return out
}
