package tf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// FuzzLoad decodes arbitrary bytes as a GraphDef. Whatever the bytes, ImportBytes
// returns a model whose term checks or an error naming the file; it never
// panics, and no allocation is sized by a field it has not checked (the
// constants' budget is lowered here so that a fuzzed shape cannot ask for
// gigabytes). Seeds: every per-op fixture under testdata/ops, the small
// graphs below, and the corpus committed under testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	pbs, err := filepath.Glob(filepath.Join("testdata", "ops", "*.pb"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range pbs {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(graphBytes(f, placeholder("x", -1, 3), ndef("y", "Relu", "x")))
	f.Add(graphBytes(f, placeholder("x", 2), ndef("a", "AddV2", "x", "b"), ndef("b", "Relu", "a")))
	f.Add(graphBytes(f, constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(4, 4), FloatVal: []float32{2}}), ndef("y", "Identity", "c")))
	f.Add(graphBytes(f, placeholder("x", -1, 4), constI32("s", []int64{2}, -1, 2), ndef("y", "Reshape", "x", "s")))

	old := maxConstBytes
	maxConstBytes = 1 << 20
	f.Cleanup(func() { maxConstBytes = old })
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ImportBytes(data, "f.pb", imports.Options{Batch: 2})
		if err != nil {
			var ie *imports.Error
			var ce *imports.CoverageError
			if !errors.As(err, &ie) && !errors.As(err, &ce) {
				t.Fatalf("error %T %v is neither an *imports.Error nor an *imports.CoverageError", err, err)
			}
			if !strings.HasPrefix(err.Error(), "f.pb: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if _, err := graph.Check(m.Term); err != nil {
			t.Fatalf("the imported term does not check: %v", err)
		}
		if len(m.Outputs) == 0 {
			t.Fatal("a model without outputs")
		}
	})
}
