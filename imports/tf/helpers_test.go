package tf

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/hofuse/hofuse/imports/tf/tfpb"
	"google.golang.org/protobuf/proto"
)

// Builders of small GraphDefs for the tests, written field by field so that
// a test says exactly what the file holds.

func ndef(name, op string, inputs ...string) *tfpb.NodeDef {
	return &tfpb.NodeDef{Name: name, Op: op, Input: inputs, Attr: map[string]*tfpb.AttrValue{}}
}

func withAttr(n *tfpb.NodeDef, key string, v *tfpb.AttrValue) *tfpb.NodeDef {
	n.Attr[key] = v
	return n
}

func typeAttr(dt tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dt}}
}

func boolAttr(b bool) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: b}} }

func floatAttr(f float32) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_F{F: f}} }

func stringAttr(s string) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(s)}}
}

func intsAttr(v ...int64) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: v}}}
}

func shapeProto(dims ...int64) *tfpb.TensorShapeProto {
	s := &tfpb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

// placeholder is a float32 Placeholder of the given shape (-1 unknown).
func placeholder(name string, dims ...int64) *tfpb.NodeDef {
	n := withAttr(ndef(name, "Placeholder"), "dtype", typeAttr(tfpb.DataType_DT_FLOAT))
	return withAttr(n, "shape", &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: shapeProto(dims...)}})
}

// constTensor is a Const holding p.
func constTensor(name string, p *tfpb.TensorProto) *tfpb.NodeDef {
	n := withAttr(ndef(name, "Const"), "dtype", typeAttr(p.Dtype))
	return withAttr(n, "value", &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: p}})
}

// constF32 is a float32 Const with its values in tensor_content.
func constF32(name string, shape []int64, vals ...float32) *tfpb.NodeDef {
	content := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(content[4*i:], math.Float32bits(v))
	}
	return constTensor(name, &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(shape...), TensorContent: content})
}

// constI32 is an int32 Const with its values in int_val.
func constI32(name string, shape []int64, vals ...int32) *tfpb.NodeDef {
	return constTensor(name, &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(shape...), IntVal: vals})
}

func graphBytes(t testing.TB, nodes ...*tfpb.NodeDef) []byte {
	t.Helper()
	b, err := proto.Marshal(&tfpb.GraphDef{Node: nodes, Versions: &tfpb.VersionDef{Producer: 1994}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
