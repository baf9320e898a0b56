package tf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
)

// A case of testdata/ops/cases.json, which gen.py writes: a graph and
// TensorFlow's outputs on the given inputs.
type opCase struct {
	Name    string              `json:"name"`
	Batch   int                 `json:"batch"`
	Inputs  map[string]opTensor `json:"inputs"`
	Outputs []namedOpTensor     `json:"outputs"`
}

type opTensor struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type namedOpTensor struct {
	Name string `json:"name"`
	opTensor
}

func (t opTensor) array(tb testing.TB) *graph.Array {
	tb.Helper()
	dt := map[string]graph.DType{"float32": graph.Float32, "float64": graph.Float64, "int32": graph.Int32}[t.DType]
	a, err := graph.Zeros(dt, t.Shape...)
	if err != nil {
		tb.Fatal(err)
	}
	idx := make([]int, len(t.Shape))
	for _, v := range t.Data {
		a.Set(v, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < t.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return a
}

func loadOpCases(t *testing.T) []opCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "ops", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []opCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Cases
}

// closeTo reports whether got is within rel of want, relative to want's
// magnitude (absolutely, for |want| < 1).
func closeTo(got, want, rel float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// TestOpsAgainstTensorFlow imports every per-op graph of testdata/ops and
// evaluates it on the inputs TensorFlow ran, with graph.Eval and, fused and
// unfused, on the native back end and on PJRT when a plugin is found: the
// outputs equal TensorFlow's within 1e-5 relative (f32) or 1e-12 (f64),
// and every node of the term but variables carries a source name.
func TestOpsAgainstTensorFlow(t *testing.T) {
	bs := backends(t)
	cases := loadOpCases(t)
	if len(cases) < 30 {
		t.Fatalf("%d cases in cases.json, want every op's", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			m, err := Import(filepath.Join("testdata", "ops", tc.Name+".pb"), imports.Options{Batch: tc.Batch})
			if err != nil {
				t.Fatal(err)
			}
			data := map[string]graph.Value{}
			for name, in := range tc.Inputs {
				data[name] = in.array(t)
			}
			binds, err := m.Bindings(data)
			if err != nil {
				t.Fatal(err)
			}
			sourced(t, m.Term)
			v, err := graph.Eval(m.Term, binds)
			if err != nil {
				t.Fatal(err)
			}
			compareOutputs(t, "graph.Eval", m, v, tc.Outputs)
			for _, b := range bs {
				for _, unfused := range []bool{false, true} {
					v, _, err := runOn(b, m, binds, unfused)
					if err != nil {
						t.Fatalf("%s (unfused %v): %v", b.Name(), unfused, err)
					}
					compareOutputs(t, fmt.Sprintf("%s unfused=%v", b.Name(), unfused), m, v, tc.Outputs)
				}
			}
		})
	}
}

// compareOutputs compares v, a value of m.Term computed by how, with
// TensorFlow's outputs.
func compareOutputs(t *testing.T, how string, m *imports.Model, v graph.Value, wants []namedOpTensor) {
	t.Helper()
	outs, err := m.OutputValues(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != len(wants) {
		t.Fatalf("%s: %d outputs, TensorFlow gave %d", how, len(outs), len(wants))
	}
	for _, want := range wants {
		got, ok := outs[want.Name].(*graph.Array)
		if !ok {
			t.Fatalf("%s: output %s is %v, want an array", how, want.Name, outs[want.Name])
		}
		if fmt.Sprint(got.Extents()) != fmt.Sprint(want.Shape) {
			t.Fatalf("%s: output %s has extents %v, TensorFlow %v", how, want.Name, got.Extents(), want.Shape)
		}
		rel := 1e-5
		if want.DType == "float64" {
			rel = 1e-12
		}
		vals := got.Values()
		for i, w := range want.Data {
			if !closeTo(vals[i], w, rel) {
				t.Errorf("%s: output %s element %d = %v, TensorFlow %v", how, want.Name, i, vals[i], w)
			}
		}
	}
}
