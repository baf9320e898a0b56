package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// ONNX element types (TensorProto.DataType) that hofuse reads.
const (
	tFloat   = int32(onnxpb.TensorProto_FLOAT)
	tUint8   = int32(onnxpb.TensorProto_UINT8)
	tInt8    = int32(onnxpb.TensorProto_INT8)
	tUint16  = int32(onnxpb.TensorProto_UINT16)
	tInt16   = int32(onnxpb.TensorProto_INT16)
	tInt32   = int32(onnxpb.TensorProto_INT32)
	tInt64   = int32(onnxpb.TensorProto_INT64)
	tBool    = int32(onnxpb.TensorProto_BOOL)
	tFloat16 = int32(onnxpb.TensorProto_FLOAT16)
	tDouble  = int32(onnxpb.TensorProto_DOUBLE)
	tUint32  = int32(onnxpb.TensorProto_UINT32)
	tUint64  = int32(onnxpb.TensorProto_UINT64)
)

// elemName is the ONNX name of an element type, "tensor(float)" style
// without the wrapper: "float", "int64", or "type 99" for an unknown one.
func elemName(t int32) string {
	if s, ok := onnxpb.TensorProto_DataType_name[t]; ok {
		return strings.ToLower(s)
	}
	return fmt.Sprintf("type %d", t)
}

// elemSize is the byte size of one element of t in raw_data, or 0 for a
// type hofuse does not read.
func elemSize(t int32) int {
	switch t {
	case tUint8, tInt8, tBool:
		return 1
	case tUint16, tInt16, tFloat16:
		return 2
	case tFloat, tInt32, tUint32:
		return 4
	case tInt64, tDouble, tUint64:
		return 8
	}
	return 0
}

// isFloatElem reports whether t is a floating-point element type.
func isFloatElem(t int32) bool { return t == tFloat || t == tDouble || t == tFloat16 }

// dtypeOf is the graph element type a tensor of ONNX type t becomes: f32,
// f64, i32 for the integer types (indices and shapes), bool. ok is false
// for types the IR has no counterpart for (float16, strings, complex).
func dtypeOf(t int32) (graph.DType, bool) {
	switch t {
	case tFloat:
		return graph.Float32, true
	case tDouble:
		return graph.Float64, true
	case tInt32, tInt64, tInt8, tUint8, tInt16, tUint16, tUint32, tUint64:
		return graph.Int32, true
	case tBool:
		return graph.Bool, true
	}
	return graph.Invalid, false
}

// tensor is a value known at import time: an initializer, a Constant, or
// a folded shape computation. Its elements are row-major; floats keep
// their values in f (float32 values exactly), integers and booleans in i.
type tensor struct {
	elem int32     // ONNX element type
	dims []int     // extents; a scalar has none; an extent may be 0
	f    []float64 // elements of a float tensor
	i    []int64   // elements of an integer or bool tensor
}

// size is the number of elements.
func (t *tensor) size() int {
	if isFloatElem(t.elem) {
		return len(t.f)
	}
	return len(t.i)
}

// at returns element k as a float64.
func (t *tensor) at(k int) float64 {
	if isFloatElem(t.elem) {
		return t.f[k]
	}
	return float64(t.i[k])
}

// ints returns the elements as ints; a float tensor is an error.
func (t *tensor) ints() ([]int, error) {
	if isFloatElem(t.elem) {
		return nil, fmt.Errorf("a %s tensor where integers are needed", elemName(t.elem))
	}
	out := make([]int, len(t.i))
	for k, v := range t.i {
		out[k] = int(v)
	}
	return out, nil
}

// countElements returns the product of dims, checking each extent
// (0 … graph.MaxExtent) and the product (at most graph.MaxElements)
// without overflow.
func countElements(dims []int64) (int, error) {
	n := 1
	for i, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is %d, negative", i, d)
		}
		if d > graph.MaxExtent {
			return 0, fmt.Errorf("dimension %d is %d, past the cap of %d (graph.MaxExtent)", i, d, graph.MaxExtent)
		}
		if d != 0 && n > graph.MaxElements/int(d) {
			return 0, fmt.Errorf("more than %d elements (graph.MaxElements) by dimension %d", graph.MaxElements, i)
		}
		n *= int(d)
	}
	return n, nil
}

// decodeTensor reads a TensorProto: its dimensions, element type and data
// from raw_data (little-endian) or the typed field of its type. The data's
// length is checked against the shape before anything is allocated, so
// the allocation is no larger than the data the file holds. A tensor with
// external data is refused.
func decodeTensor(tp *onnxpb.TensorProto) (*tensor, error) {
	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL || len(tp.GetExternalData()) > 0 {
		loc := ""
		for _, kv := range tp.GetExternalData() {
			if kv.GetKey() == "location" {
				loc = fmt.Sprintf(" (location %q)", kv.GetValue())
			}
		}
		return nil, fmt.Errorf("its data is in an external file%s; hofuse reads only models that hold their data: "+
			"load the model with onnx.load and save it with onnx.save_model(model, path, save_as_external_data=False)", loc)
	}
	if tp.GetSegment() != nil {
		return nil, fmt.Errorf("a segmented tensor; hofuse reads whole tensors only")
	}
	elem := tp.GetDataType()
	size := elemSize(elem)
	if size == 0 || elem == tFloat16 {
		return nil, fmt.Errorf("element type %s is not supported (float, double, bool and the integer types are)", elemName(elem))
	}
	n, err := countElements(tp.GetDims())
	if err != nil {
		return nil, err
	}
	t := &tensor{elem: elem, dims: make([]int, len(tp.GetDims()))}
	for i, d := range tp.GetDims() {
		t.dims[i] = int(d)
	}
	if raw := tp.GetRawData(); len(raw) > 0 || typedLen(tp) == 0 && n > 0 {
		if len(raw)/size != n || len(raw)%size != 0 {
			return nil, fmt.Errorf("raw_data holds %d bytes; its shape %v of %s needs %d", len(raw), t.dims, elemName(elem), n*size)
		}
		if isFloatElem(elem) {
			t.f = make([]float64, n)
		} else {
			t.i = make([]int64, n)
		}
		for k := range n {
			b := raw[k*size:]
			switch elem {
			case tFloat:
				t.f[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			case tDouble:
				t.f[k] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			case tInt8:
				t.i[k] = int64(int8(b[0]))
			case tUint8:
				t.i[k] = int64(b[0])
			case tBool:
				t.i[k] = int64(min(b[0], 1))
			case tInt16:
				t.i[k] = int64(int16(binary.LittleEndian.Uint16(b)))
			case tUint16:
				t.i[k] = int64(binary.LittleEndian.Uint16(b))
			case tInt32:
				t.i[k] = int64(int32(binary.LittleEndian.Uint32(b)))
			case tUint32:
				t.i[k] = int64(binary.LittleEndian.Uint32(b))
			case tInt64, tUint64:
				t.i[k] = int64(binary.LittleEndian.Uint64(b))
			}
		}
		return t, nil
	}
	field, got := typedField(tp)
	if got != n {
		return nil, fmt.Errorf("%s holds %d values; its shape %v needs %d", field, got, t.dims, n)
	}
	switch elem {
	case tFloat:
		t.f = make([]float64, n)
		for k, v := range tp.GetFloatData() {
			t.f[k] = float64(v)
		}
	case tDouble:
		t.f = append([]float64(nil), tp.GetDoubleData()...)
	case tInt64:
		t.i = append([]int64(nil), tp.GetInt64Data()...)
	case tUint32, tUint64:
		t.i = make([]int64, n)
		for k, v := range tp.GetUint64Data() {
			t.i[k] = int64(v)
		}
	default: // int32_data carries int32, int16, int8, uint16, uint8, bool
		t.i = make([]int64, n)
		for k, v := range tp.GetInt32Data() {
			if elem == tBool {
				v = min(max(v, 0), 1)
			}
			t.i[k] = int64(v)
		}
	}
	return t, nil
}

// typedField names the typed field that holds a tensor of tp's element
// type and returns how many values it holds.
func typedField(tp *onnxpb.TensorProto) (string, int) {
	switch tp.GetDataType() {
	case tFloat:
		return "float_data", len(tp.GetFloatData())
	case tDouble:
		return "double_data", len(tp.GetDoubleData())
	case tInt64:
		return "int64_data", len(tp.GetInt64Data())
	case tUint32, tUint64:
		return "uint64_data", len(tp.GetUint64Data())
	}
	return "int32_data", len(tp.GetInt32Data())
}

func typedLen(tp *onnxpb.TensorProto) int { _, n := typedField(tp); return n }

// array converts t into a row-major graph array of its graph element type
// (dtypeOf). Every extent must be at least 1 (the IR has no empty axes);
// integers must fit in i32.
func (t *tensor) array() (*graph.Array, error) {
	dt, ok := dtypeOf(t.elem)
	if !ok {
		return nil, fmt.Errorf("element type %s has no counterpart in the IR", elemName(t.elem))
	}
	for i, d := range t.dims {
		if d < 1 {
			return nil, fmt.Errorf("dimension %d is %d; the IR's arrays have at least one element on every axis", i, d)
		}
	}
	a, err := graph.NewArray(dt, graph.RowMajor(t.dims...))
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(t.dims))
	for k := range t.size() {
		v := t.at(k)
		if dt == graph.Int32 && (v < math.MinInt32 || v > math.MaxInt32) {
			return nil, fmt.Errorf("element %d is %v, past the range of i32", k, v)
		}
		rem := k
		for ax := len(t.dims) - 1; ax >= 0; ax-- {
			idx[ax] = rem % t.dims[ax]
			rem /= t.dims[ax]
		}
		a.Set(v, idx...)
	}
	return a, nil
}
