package pjrt

import (
	"fmt"
	"unsafe"

	"github.com/hofuse/hofuse/graph"
)

// hostTensor is a value on the host in the form PJRT takes: row-major bytes
// of a tensor type.
type hostTensor struct {
	typ  TensorType
	data []byte // len == typ.Size() * typ.DType.Size(); cap >= 1
}

// describeValue names v's kind and type for error messages: f32[2 3],
// f64 scalar, tuple of 2.
func describeValue(v graph.Value) string {
	switch v := v.(type) {
	case *graph.Array:
		if v == nil {
			return "nil array"
		}
		return fmt.Sprintf("%v%v", v.DType(), v.Extents())
	case graph.ScalarValue:
		return fmt.Sprintf("%v scalar", v.DType)
	case graph.TupleValue:
		return fmt.Sprintf("tuple of %d", len(v))
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// valueType returns the tensor type of an array or scalar value.
func valueType(v graph.Value) (TensorType, error) {
	switch v := v.(type) {
	case *graph.Array:
		if v == nil {
			return TensorType{}, fmt.Errorf("nil array")
		}
		if _, ok := mlirElem[v.DType()]; !ok {
			return TensorType{}, fmt.Errorf("element type %v is not supported", v.DType())
		}
		return TensorType{DType: v.DType(), Dims: v.Extents()}, nil
	case graph.ScalarValue:
		if _, ok := mlirElem[v.DType]; !ok {
			return TensorType{}, fmt.Errorf("scalar of element type %v is not supported (give it f32, f64, i32 or bool)", v.DType)
		}
		return TensorType{DType: v.DType, Dims: []int{}}, nil
	case graph.TupleValue:
		return TensorType{}, fmt.Errorf("a tuple is not a tensor; pass its elements as separate arguments")
	case nil:
		return TensorType{}, fmt.Errorf("nil value")
	}
	return TensorType{}, fmt.Errorf("unsupported value %T", v)
}

// toHost converts an array or scalar into PJRT's host form. A row-major
// float array is used in place, without a copy; other views are copied.
func toHost(v graph.Value) (hostTensor, error) {
	t, err := valueType(v)
	if err != nil {
		return hostTensor{}, err
	}
	n := t.Size()
	switch v := v.(type) {
	case graph.ScalarValue:
		return fromFloat64s(t, []float64{v.V}), nil
	case *graph.Array:
		if v.Layout().IsRowMajor() {
			switch v.DType() {
			case graph.Float32:
				if n > 0 {
					return hostTensor{t, asBytes(v.Float32s()[v.Offset() : v.Offset()+n])}, nil
				}
			case graph.Float64:
				if n > 0 {
					return hostTensor{t, asBytes(v.Float64s()[v.Offset() : v.Offset()+n])}, nil
				}
			}
		}
		return fromFloat64s(t, v.Values()), nil
	}
	panic("unreachable: valueType accepted " + describeValue(v))
}

// fromFloat64s packs row-major values, as graph keeps them in float64, into
// PJRT's host bytes of type t.
func fromFloat64s(t TensorType, vals []float64) hostTensor {
	n := len(vals)
	switch t.DType {
	case graph.Float32:
		out := make([]float32, max(n, 1))[:n]
		for i, x := range vals {
			out[i] = float32(x)
		}
		return hostTensor{t, asBytes(out)}
	case graph.Float64:
		out := make([]float64, max(n, 1))[:n]
		copy(out, vals)
		return hostTensor{t, asBytes(out)}
	case graph.Int32:
		out := make([]int32, max(n, 1))[:n]
		for i, x := range vals {
			out[i] = int32(x)
		}
		return hostTensor{t, asBytes(out)}
	case graph.Bool:
		out := make([]byte, max(n, 1))[:n]
		for i, x := range vals {
			if x != 0 {
				out[i] = 1
			}
		}
		return hostTensor{t, out}
	}
	panic("unreachable: unsupported dtype " + t.DType.String())
}

// asBytes views a numeric slice as its bytes; the result keeps the slice's
// capacity so that an empty slice still has an address.
func asBytes[T float32 | float64 | int32](s []T) []byte {
	if cap(s) == 0 {
		return make([]byte, 1)[:0]
	}
	size := int(unsafe.Sizeof(s[:1][0]))
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), cap(s)*size)[:len(s)*size]
}

// hostBuffer is storage for reading a tensor of type t back from a device:
// fill data, then call value.
type hostBuffer struct {
	typ  TensorType
	data []byte
	f32  []float32
	f64  []float64
	i32  []int32
}

func newHostBuffer(t TensorType) *hostBuffer {
	n := t.Size()
	h := &hostBuffer{typ: t}
	switch t.DType {
	case graph.Float32:
		h.f32 = make([]float32, max(n, 1))[:n]
		h.data = asBytes(h.f32)
	case graph.Float64:
		h.f64 = make([]float64, max(n, 1))[:n]
		h.data = asBytes(h.f64)
	case graph.Int32:
		h.i32 = make([]int32, max(n, 1))[:n]
		h.data = asBytes(h.i32)
	case graph.Bool:
		h.data = make([]byte, max(n, 1))[:n]
	default:
		panic("unreachable: unsupported dtype " + t.DType.String())
	}
	return h
}

// value returns the filled buffer as a graph value: a ScalarValue for a
// rank-0 tensor, else a new row-major array (float arrays wrap the buffer
// without a copy).
func (h *hostBuffer) value() (graph.Value, error) {
	t := h.typ
	if len(t.Dims) == 0 {
		var v float64
		switch t.DType {
		case graph.Float32:
			v = float64(h.f32[0])
		case graph.Float64:
			v = h.f64[0]
		case graph.Int32:
			v = float64(h.i32[0])
		case graph.Bool:
			if h.data[0] != 0 {
				v = 1
			}
		}
		return graph.ScalarValue{DType: t.DType, V: v}, nil
	}
	switch t.DType {
	case graph.Float32:
		return graph.FromFloat32(h.f32, t.Dims...)
	case graph.Float64:
		return graph.FromFloat64(h.f64, t.Dims...)
	}
	a, err := graph.Zeros(t.DType, t.Dims...)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(t.Dims))
	for k := range t.Size() {
		if t.DType == graph.Int32 {
			a.Set(float64(h.i32[k]), idx...)
		} else if h.data[k] != 0 {
			a.Set(1, idx...)
		}
		for d := len(idx) - 1; d >= 0; d-- { // next row-major index
			if idx[d]++; idx[d] < t.Dims[d] {
				break
			}
			idx[d] = 0
		}
	}
	return a, nil
}
