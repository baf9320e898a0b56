package onnx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
)

// FuzzLoad feeds arbitrary bytes to the importer: truncated and corrupt
// protobuf, graphs with cycles or missing producers, hostile shapes and
// data lengths. It must return a model or an error, never panic, hang or
// allocate by an unchecked field; an error is an *imports.Error or an
// *imports.CoverageError, and a model's term checks and its outputs have
// the types the model says. Seeds: the small models of the tests and the
// committed corpus in testdata/fuzz/FuzzLoad (node-test models and the
// exported digits models).
func FuzzLoad(f *testing.F) {
	for _, b := range []*mb{mlp(), newModel(11).input("x", tFloat, 1, 2, 2).output("y").node("Softmax", "s", []string{"x"}, []string{"y"})} {
		f.Add(b.bytes(f))
	}
	for _, dir := range []string{"node/test_gemm_all_attributes", "node/test_reshape_reordered_all_dims", "pytorch/test_operator_view"} {
		if data, err := os.ReadFile(filepath.Join("testdata", dir, "model.onnx")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ImportBytes(data, "fuzz.onnx", imports.Options{Batch: 2, MaxFileBytes: 1 << 20})
		if err != nil {
			var ie *imports.Error
			var ce *imports.CoverageError
			if !errors.As(err, &ie) && !errors.As(err, &ce) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if _, err := graph.Check(m.Term); err != nil {
			t.Fatalf("the imported term does not check: %v", err)
		}
		for _, o := range m.Outputs {
			ot, err := graph.TypeOf(o.Term, nil)
			if err != nil || !graph.SameShape(graph.Concrete(ot), o.Type) {
				t.Fatalf("output %s: type %v, recorded %v (%v)", o.Name, ot, o.Type, err)
			}
		}
		for _, p := range m.Params {
			if err := graph.CheckValue(p.Type, m.Values[p.Name]); err != nil {
				t.Fatalf("parameter %s: %v", p.Name, err)
			}
		}
	})
}
