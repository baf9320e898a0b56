package onnx

import (
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// mb builds small ONNX models for tests.
type mb struct{ m *onnxpb.ModelProto }

func newModel(opset int64) *mb {
	return &mb{m: &onnxpb.ModelProto{
		IrVersion:    8,
		ProducerName: "hofuse-test",
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: "", Version: opset}},
		Graph:        &onnxpb.GraphProto{Name: "test"},
	}}
}

// input declares a graph input; each dim is an int (a fixed extent) or a
// string (a symbolic one).
func (b *mb) input(name string, elem int32, dims ...any) *mb {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		switch d := d.(type) {
		case int:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
		case string:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}})
		}
	}
	b.m.Graph.Input = append(b.m.Graph.Input, &onnxpb.ValueInfoProto{Name: name, Type: &onnxpb.TypeProto{
		Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: elem, Shape: shape}}}})
	return b
}

func (b *mb) output(names ...string) *mb {
	for _, n := range names {
		b.m.Graph.Output = append(b.m.Graph.Output, &onnxpb.ValueInfoProto{Name: n})
	}
	return b
}

// initF adds a float initializer in float_data.
func (b *mb) initF(name string, dims []int64, vals ...float32) *mb {
	b.m.Graph.Initializer = append(b.m.Graph.Initializer, &onnxpb.TensorProto{Name: name, Dims: dims, DataType: tFloat, FloatData: vals})
	return b
}

// initI adds an int64 initializer.
func (b *mb) initI(name string, dims []int64, vals ...int64) *mb {
	b.m.Graph.Initializer = append(b.m.Graph.Initializer, &onnxpb.TensorProto{Name: name, Dims: dims, DataType: tInt64, Int64Data: vals})
	return b
}

func (b *mb) node(op, name string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *mb {
	b.m.Graph.Node = append(b.m.Graph.Node, &onnxpb.NodeProto{OpType: op, Name: name, Input: ins, Output: outs, Attribute: attrs})
	return b
}

func (b *mb) bytes(t testing.TB) []byte {
	data, err := proto.Marshal(b.m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func aInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_INT, I: v}
}

func aFloat(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_FLOAT, F: v}
}

func aInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_INTS, Ints: v}
}

func aString(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_STRING, S: []byte(v)}
}

func aTensor(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: name, Type: onnxpb.AttributeProto_TENSOR, T: t}
}

// importT imports the model, failing the test on error.
func importT(t testing.TB, b *mb, opt imports.Options) *imports.Model {
	t.Helper()
	m, err := ImportBytes(b.bytes(t), "test.onnx", opt)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return m
}

// f32 makes a row-major f32 array.
func f32(t testing.TB, vals []float32, extents ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat32(vals, extents...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run evaluates the model's term with the reference interpreter on the
// data inputs and returns the outputs by name.
func run(t testing.TB, m *imports.Model, data map[string]graph.Value) map[string]graph.Value {
	t.Helper()
	bind, err := m.Bindings(data)
	if err != nil {
		t.Fatalf("bindings: %v", err)
	}
	v, err := graph.Eval(m.Term, bind)
	if err != nil {
		t.Fatalf("eval: %v\nterm: %s", err, graph.Print(m.Term))
	}
	outs, err := m.OutputValues(v)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

// expect compares an output with the wanted extents and values (row-major)
// within a relative tolerance of 1e-6 (f32 rounding of hand-computed
// values).
func expect(t testing.TB, got graph.Value, extents []int, want []float64) {
	t.Helper()
	var vals []float64
	var ext []int
	switch g := got.(type) {
	case *graph.Array:
		vals, ext = g.Values(), g.Extents()
	case graph.ScalarValue:
		vals, ext = []float64{g.V}, []int{}
	default:
		t.Fatalf("got %s, want an array", graph.DescribeValue(got))
	}
	if len(ext) != len(extents) {
		t.Fatalf("got extents %v, want %v", ext, extents)
	}
	for i := range ext {
		if ext[i] != extents[i] {
			t.Fatalf("got extents %v, want %v", ext, extents)
		}
	}
	if len(vals) != len(want) {
		t.Fatalf("got %d values, want %d", len(vals), len(want))
	}
	for i := range vals {
		g, w := vals[i], want[i]
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if math.Abs(g-w) > 1e-6*math.Max(1, math.Abs(w)) {
			t.Errorf("element %d: got %v, want %v (all: %v)", i, g, w, vals)
			return
		}
	}
}
