package onnx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// mlp is a small valid model: Gemm, Relu, Gemm, Softmax.
func mlp() *mb {
	return newModel(13).input("x", tFloat, "N", 2).output("y").
		initF("W1", []int64{3, 2}, 1, 0, 0, 1, 1, 1).initF("b1", []int64{3}, 0, 0, -1).
		initF("W2", []int64{3, 2}, 1, -1, 0.5, 0.5, -1, 1).
		node("Gemm", "fc1", []string{"x", "W1", "b1"}, []string{"h"}, aInt("transB", 1)).
		node("Relu", "relu1", []string{"h"}, []string{"r"}).
		node("MatMul", "fc2", []string{"r", "W2"}, []string{"z"}).
		node("Softmax", "softmax", []string{"z"}, []string{"y"})
}

func importErr(t *testing.T, data []byte) error {
	t.Helper()
	_, err := ImportBytes(data, "bad.onnx", imports.Options{})
	if err == nil {
		t.Fatal("import succeeded, want an error")
	}
	return err
}

func TestLoadErrors(t *testing.T) {
	valid := mlp().bytes(t)
	for _, tc := range []struct {
		name string
		data func() []byte
		want string
	}{
		{"truncated", func() []byte { return valid[:len(valid)-7] },
			"bad.onnx: not a readable ONNX model (truncated or corrupt protobuf): "},
		{"not protobuf", func() []byte { return []byte("\xff\xff\xff\xff garbage") },
			"bad.onnx: not a readable ONNX model (truncated or corrupt protobuf): "},
		{"no graph", func() []byte { b := mlp(); b.m.Graph = nil; return b.bytes(t) }, "bad.onnx: the model has no graph"},
		{"cycle", func() []byte {
			b := mlp()
			b.m.Graph.Node[0].Input[0] = "y" // fc1 reads softmax's output
			return b.bytes(t)
		}, `bad.onnx: node "fc1" (Gemm): the graph has a cycle through nodes "fc1", "relu1", "fc2", "softmax"`},
		{"missing producer", func() []byte {
			b := mlp()
			b.m.Graph.Node[2].Input[1] = "W9"
			return b.bytes(t)
		}, `bad.onnx: node "fc2" (MatMul): input "W9" is produced by no node, graph input or initializer`},
		{"unnamed node", func() []byte {
			b := mlp()
			b.m.Graph.Node[1].Name = ""
			b.m.Graph.Node[1].Input[0] = "nothing"
			return b.bytes(t)
		}, `bad.onnx: node "#1 r" (Relu): input "nothing" is produced by no node, graph input or initializer`},
		{"two producers", func() []byte {
			b := mlp()
			b.m.Graph.Node[1].Output[0] = "h"
			return b.bytes(t)
		}, `bad.onnx: node "relu1" (Relu): output "h" is also produced by node "fc1"`},
		{"input dimension zero", func() []byte {
			b := mlp()
			b.m.Graph.Input[0] = newModel(13).input("x", tFloat, 0, 2).m.Graph.Input[0]
			return b.bytes(t)
		}, `bad.onnx: node "x" (graph input): dimension 0 is 0; extents must be between 1 and 1099511627776 (graph.MaxExtent)`},
		{"input dimension too large", func() []byte {
			b := mlp()
			b.m.Graph.Input[0] = newModel(13).input("x", tFloat, 1<<41, 2).m.Graph.Input[0]
			return b.bytes(t)
		}, `bad.onnx: node "x" (graph input): dimension 0 is 2199023255552; extents must be between 1 and 1099511627776 (graph.MaxExtent)`},
		{"initializer dimension too large", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[0].Dims = []int64{3, 1 << 41}
			return b.bytes(t)
		}, `bad.onnx: node "W1" (initializer): reading the tensor: dimension 1 is 2199023255552, past the cap of 1099511627776 (graph.MaxExtent)`},
		{"initializer elements overflow", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[0].Dims = []int64{1 << 39, 1 << 39}
			return b.bytes(t)
		}, `bad.onnx: node "W1" (initializer): reading the tensor: more than 1099511627776 elements (graph.MaxElements) by dimension 1`},
		{"initializer dimension zero used by a term", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[0].Dims = []int64{0, 2}
			b.m.Graph.Initializer[0].FloatData = nil
			return b.bytes(t)
		}, `bad.onnx: node "fc1" (Gemm): input 1 ("W1"): dimension 0 is 0; the IR's arrays have at least one element on every axis`},
		{"float_data shorter than the shape", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[1].FloatData = []float32{1, 2}
			return b.bytes(t)
		}, `bad.onnx: node "b1" (initializer): reading the tensor: float_data holds 2 values; its shape [3] needs 3`},
		{"raw_data longer than the shape", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[1].FloatData = nil
			b.m.Graph.Initializer[1].RawData = make([]byte, 16)
			return b.bytes(t)
		}, `bad.onnx: node "b1" (initializer): reading the tensor: raw_data holds 16 bytes; its shape [3] of float needs 12`},
		{"huge shape, no data", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[1].Dims = []int64{1 << 40}
			b.m.Graph.Initializer[1].FloatData = nil
			return b.bytes(t)
		}, `bad.onnx: node "b1" (initializer): reading the tensor: raw_data holds 0 bytes; its shape [1099511627776] of float needs 4398046511104`},
		{"external data", func() []byte {
			b := mlp()
			w := b.m.Graph.Initializer[0]
			w.FloatData = nil
			w.DataLocation = onnxpb.TensorProto_EXTERNAL
			w.ExternalData = []*onnxpb.StringStringEntryProto{{Key: "location", Value: "weights.bin"}}
			return b.bytes(t)
		}, `bad.onnx: node "W1" (initializer): reading the tensor: its data is in an external file (location "weights.bin"); hofuse reads only models that hold their data: ` +
			`load the model with onnx.load and save it with onnx.save_model(model, path, save_as_external_data=False)`},
		{"unsupported element type", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[1].DataType = int32(onnxpb.TensorProto_FLOAT16)
			return b.bytes(t)
		}, `bad.onnx: node "b1" (initializer): reading the tensor: element type float16 is not supported (float, double, bool and the integer types are)`},
		{"opset too old", func() []byte { b := mlp(); b.m.OpsetImport[0].Version = 5; return b.bytes(t) },
			"bad.onnx: opset 5 is older than the oldest hofuse reads (6); convert the model with onnx.version_converter.convert_version(model, 22)"},
		{"no default opset", func() []byte { b := mlp(); b.m.OpsetImport[0].Domain = "ai.onnx.ml"; return b.bytes(t) },
			`bad.onnx: the model imports no version of the default operator set (opset_import has no entry for domain ""); hofuse reads opsets 6 to 22`},
		{"no outputs", func() []byte { b := mlp(); b.m.Graph.Output = nil; return b.bytes(t) }, "bad.onnx: the graph has no outputs"},
		{"output nobody computes", func() []byte { b := mlp(); b.output("ghost"); return b.bytes(t) },
			`bad.onnx: graph output "ghost" is produced by no node, graph input or initializer`},
		{"input not a tensor", func() []byte {
			b := mlp()
			b.m.Graph.Input[0].Type = &onnxpb.TypeProto{Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{}}}
			return b.bytes(t)
		}, `bad.onnx: node "x" (graph input): not a tensor (sequences, maps and optionals are not supported)`},
		{"shape mismatch in a converter", func() []byte {
			b := mlp()
			b.m.Graph.Initializer[2].Dims = []int64{2, 3}
			return b.bytes(t)
		}, `bad.onnx: node "fc2" (MatMul): matmul: nd.MatMul (fc2): a [1,3] has 3 columns (axis 1) but b [2,3] has 2 rows (axis 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := importErr(t, tc.data())
			if !strings.HasPrefix(err.Error(), tc.want) || (!strings.HasSuffix(tc.want, ": ") && err.Error() != tc.want) {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
			var ie *imports.Error
			if !errors.As(err, &ie) || ie.File != "bad.onnx" {
				t.Errorf("%T is not an *imports.Error naming the file", err)
			}
		})
	}
}

func TestCoverageListsEverything(t *testing.T) {
	b := mlp()
	b.m.OpsetImport = append(b.m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: "com.example", Version: 1})
	b.node("LSTM", "lstm1", []string{"x", "W1"}, []string{"c1"}).
		node("BatchNormalization", "bn1", []string{"c1", "b1", "b1", "b1", "b1"}, []string{"c2"}, aInt("training_mode", 1)).
		node("Fancy", "fancy", []string{"c2"}, []string{"c3"}).
		node("Concat", "cat", []string{"c3", "y"}, []string{"c4"}, aInt("axis", 1)).
		output("c4")
	b.m.Graph.Node[len(b.m.Graph.Node)-2].Domain = "com.example"
	_, err := ImportBytes(b.bytes(t), "m.onnx", imports.Options{})
	var ce *imports.CoverageError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *imports.CoverageError", err)
	}
	want := `m.onnx: 3 unsupported nodes: ` +
		`LSTM (opset 13) at node "lstm1": no converter: recurrent layers are not supported; ` +
		`BatchNormalization (opset 13) at node "bn1": training_mode=1 is not supported: hofuse imports BatchNormalization for inference (export the model in eval mode); ` +
		`Fancy (opset 1, domain com.example) at node "fancy": no converter for operators of domain "com.example"`
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if ce.Coverage.Nodes != 8 || ce.Coverage.Ops["Gemm"] != 1 || ce.Coverage.Ops["com.example:Fancy"] != 1 {
		t.Errorf("counts: %d nodes, ops %v", ce.Coverage.Nodes, ce.Coverage.Ops)
	}
}

func TestPruneOutputs(t *testing.T) {
	// A scikit-learn export as it comes ends in a ZipMap of the
	// probabilities, an ai.onnx.ml operator hofuse does not convert;
	// asking for the probabilities alone prunes it.
	b := mlp()
	b.m.OpsetImport = append(b.m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: "ai.onnx.ml", Version: 1})
	b.node("ZipMap", "label_of", []string{"y"}, []string{"label"})
	b.m.Graph.Node[len(b.m.Graph.Node)-1].Domain = "ai.onnx.ml"
	b.m.Graph.Output = append([]*onnxpb.ValueInfoProto{{Name: "label"}}, b.m.Graph.Output...)
	if _, err := ImportBytes(b.bytes(t), "skl.onnx", imports.Options{}); err == nil ||
		!strings.HasPrefix(err.Error(), `skl.onnx: 1 unsupported node: ZipMap (opset 1, domain ai.onnx.ml) at node "label_of": no converter: its output is a sequence of maps`) {
		t.Errorf("all outputs: %v", err)
	}
	m, err := ImportBytes(b.bytes(t), "skl.onnx", imports.Options{Outputs: []string{"y"}, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := "skl.onnx: onnx, opset 13, 4 nodes, outputs: y\n  ops: Gemm 1, MatMul 1, Relu 1, Softmax 1\n  unsupported: none\n" +
		"  pruned outputs: label\n  pruned nodes (1): ai.onnx.ml:ZipMap \"label_of\"\n"
	if got := m.Coverage.Text(); got != want {
		t.Errorf("coverage:\n%s\nwant\n%s", got, want)
	}
	if len(m.Outputs) != 1 || m.Outputs[0].Type.String() != "f32[4,2]" || len(m.Params) != 3 {
		t.Errorf("outputs %v, %d params", m.Outputs, len(m.Params))
	}
	if len(m.Symbolic) != 1 || m.Symbolic[0] != (imports.SymbolicDim{Input: "x", Axis: 0, Name: "N", Extent: 4}) {
		t.Errorf("symbolic dims: %+v", m.Symbolic)
	}
	if _, err := ImportBytes(b.bytes(t), "skl.onnx", imports.Options{Outputs: []string{"probs"}}); err == nil ||
		err.Error() != "skl.onnx: choosing outputs: no output named \"probs\"; the model's outputs are label, y" {
		t.Errorf("unknown output: %v", err)
	}
}

func TestNewerOpsetWarns(t *testing.T) {
	b := mlp()
	b.m.OpsetImport[0].Version = 25
	m, err := ImportBytes(b.bytes(t), "new.onnx", imports.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"opset 25 is newer than the opsets hofuse is tested with (6 to 22); tried as if it were 22"}
	if strings.Join(m.Coverage.Warnings, "|") != want[0] {
		t.Errorf("warnings %q, want %q", m.Coverage.Warnings, want)
	}
}

func TestFileLimits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	if err := os.WriteFile(path, mlp().bytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Import(path, imports.Options{MaxFileBytes: 10})
	if err == nil || !strings.HasPrefix(err.Error(), path+": the file has ") || !strings.HasSuffix(err.Error(), "bytes, past the limit of 10 (Options.MaxFileBytes)") {
		t.Errorf("got %v", err)
	}
	if _, err := Import(path, imports.Options{}); err != nil {
		t.Errorf("a valid file: %v", err)
	}
	if _, err := Import(filepath.Join(dir, "none.onnx"), imports.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestFoldLimit: folding a Gather whose result would be larger than
// maxFold elements is refused before it allocates.
func TestFoldLimit(t *testing.T) {
	data := make([]float32, 1000)
	idx := make([]int64, 100)
	b := newModel(13).input("x", tFloat, 1).output("y").
		initF("d", []int64{1, 1000}, data...).initI("i", []int64{100}, idx...).
		node("Gather", "g", []string{"d", "i"}, []string{"gd"}).
		node("Add", "a", []string{"x", "gd"}, []string{"y"})
	err := importErr(t, b.bytes(t))
	want := `bad.onnx: node "g" (Gather): the result has 1×100×1000 elements, more than the 65536 hofuse folds at import time`
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestIndexLimit: a declared extent past maxIndexExtent on an axis ArgMax
// reduces is refused before the index input's value is made.
func TestIndexLimit(t *testing.T) {
	b := newModel(13).input("x", tFloat, 1<<30).output("y").
		node("ArgMax", "am", []string{"x"}, []string{"y"}, aInt("axis", 0))
	err := importErr(t, b.bytes(t))
	want := "bad.onnx: the model needs the positions 0 … 1073741823 along an axis of extent 1073741824 (for ArgMax, ArgMin or Concat), more than the 16777216 hofuse makes when it imports; declare a smaller input shape"
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestSliceOfData: Slice of a computed value converts, but starts
// computed from the data are reported by the coverage pass, before
// conversion.
func TestSliceOfData(t *testing.T) {
	b := newModel(13).input("x", tFloat, 4).output("y").initI("e", []int64{1}, 3).
		node("Relu", "r", []string{"x"}, []string{"h"}).
		node("Cast", "c", []string{"x"}, []string{"s"}, aInt("to", int64(tInt64))).
		node("Slice", "cut", []string{"h", "s", "e"}, []string{"y"})
	err := importErr(t, b.bytes(t))
	want := `bad.onnx: 1 unsupported node: Slice (opset 13) at node "cut": input 1 ("s") is computed from the data; hofuse needs it known when the model is imported (an initializer, a Constant, or a shape computation)`
	if err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
