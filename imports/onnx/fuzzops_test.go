package onnx

import (
	"errors"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// FuzzConvert builds one-node models from the fuzzer's numbers: an
// operator from the registry at an opset, an input of a small shape, a
// known second input, and integer attributes (axis, axes, perm, keepdims,
// to, …) with any values, hostile ones included. Importing must give a
// model whose term checks and evaluates, or an *imports.Error or
// *imports.CoverageError: converters never panic on odd attributes.
func FuzzConvert(f *testing.F) {
	f.Add(uint8(0), uint8(13), uint8(2), uint8(3), uint8(4), int64(1), int64(-1), int64(0))
	f.Add(uint8(5), uint8(11), uint8(3), uint8(2), uint8(2), int64(-2), int64(2), int64(1))
	f.Add(uint8(9), uint8(18), uint8(1), uint8(5), uint8(1), int64(0), int64(7), int64(1))
	ops := make([]string, 0, len(registry))
	for key := range registry {
		if key[0] == ':' {
			ops = append(ops, key[1:])
		}
	}
	slices.Sort(ops)
	f.Fuzz(func(t *testing.T, op, opset, rank, d0, d1 uint8, a, b, c int64) {
		name := ops[int(op)%len(ops)]
		dims := []any{}
		for i := range int(rank % 4) {
			dims = append(dims, 1+int([]uint8{d0, d1, d0 ^ d1}[i%3]%5))
		}
		bld := newModel(int64(6+int(opset)%20)).input("x", tFloat, dims...).output("y")
		bld.initF("k", []int64{2}, 0.5, -1.5)
		bld.initI("ax", []int64{2}, a, b)
		attrs := []*onnxpb.AttributeProto{aInt("axis", a), aInts("axes", a, b), aInts("perm", a, b, c), aInt("keepdims", c),
			aInt("to", b), aInt("transA", c&1), aInt("transB", b&1), aFloat("alpha", float32(a)), aInt("select_last_index", c&1)}
		inputs := []string{"x", "k", "ax"}[:1+int(uint64(c)%3)]
		if name == "Constant" {
			inputs = nil
		}
		bld.node(name, "n", inputs, []string{"y"}, attrs[:1+int(uint64(b)%uint64(len(attrs)))]...)
		m, err := ImportBytes(bld.bytes(t), "fuzz.onnx", imports.Options{})
		if err != nil {
			var ie *imports.Error
			var ce *imports.CoverageError
			if !errors.As(err, &ie) && !errors.As(err, &ce) {
				t.Fatalf("%s: error of type %T: %v", name, err, err)
			}
			return
		}
		if _, err := graph.Check(m.Term); err != nil {
			t.Fatalf("%s: the term does not check: %v", name, err)
		}
		data := map[string]graph.Value{}
		for _, in := range m.Inputs {
			at, ok := in.Type.(*graph.ArrayType)
			if !ok {
				data[in.Name] = graph.ScalarValue{DType: graph.Float32, V: 0.25}
				continue
			}
			arr, err := graph.NewArray(at.DType, at.Layout)
			if err != nil {
				t.Fatal(err)
			}
			data[in.Name] = arr
		}
		bind, err := m.Bindings(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := graph.Eval(m.Term, bind); err != nil {
			t.Fatalf("%s: eval: %v", name, err)
		}
	})
}
