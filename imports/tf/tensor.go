package tf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// tensor is a constant's value, decoded and checked: its TensorFlow element
// type, its extents (none for a scalar) and its elements, row-major, in the
// one slice its type uses.
type tensor struct {
	dtype tfpb.DataType
	shape []int
	f32   []float32 // DT_FLOAT
	f64   []float64 // DT_DOUBLE
	i32   []int32   // DT_INT32
	i64   []int64   // DT_INT64
	b     []bool    // DT_BOOL
}

// size returns the number of elements.
func (t *tensor) size() int {
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// at returns element i as a float64 (int64 values beyond 2^53 round).
func (t *tensor) at(i int) float64 {
	switch t.dtype {
	case tfpb.DataType_DT_FLOAT:
		return float64(t.f32[i])
	case tfpb.DataType_DT_DOUBLE:
		return t.f64[i]
	case tfpb.DataType_DT_INT32:
		return float64(t.i32[i])
	case tfpb.DataType_DT_INT64:
		return float64(t.i64[i])
	case tfpb.DataType_DT_BOOL:
		if t.b[i] {
			return 1
		}
	}
	return 0
}

// ints returns the elements of an integer tensor (DT_INT32 or DT_INT64), as
// shape and axis operands are; ok is false for other types.
func (t *tensor) ints() (v []int64, ok bool) {
	switch t.dtype {
	case tfpb.DataType_DT_INT32:
		v = make([]int64, len(t.i32))
		for i, x := range t.i32 {
			v[i] = int64(x)
		}
		return v, true
	case tfpb.DataType_DT_INT64:
		return t.i64, true
	}
	return nil, false
}

// value returns the tensor as a graph value: a ScalarValue for a scalar, a
// row-major *graph.Array otherwise, sharing the tensor's elements. DT_INT64
// has no hofuse element type; its values must fit an i32.
func (t *tensor) value() (graph.Value, error) {
	dt, err := elemType(t.dtype)
	if err != nil {
		return nil, err
	}
	if len(t.shape) == 0 {
		v := t.at(0)
		if t.dtype == tfpb.DataType_DT_INT64 && (v < math.MinInt32 || v > math.MaxInt32) {
			return nil, fmt.Errorf("the int64 value %d does not fit the i32 hofuse computes integers in", t.i64[0])
		}
		return graph.ScalarValue{DType: dt, V: v}, nil
	}
	a, err := graph.Zeros(dt, t.shape...)
	if err != nil {
		return nil, err
	}
	switch t.dtype {
	case tfpb.DataType_DT_FLOAT:
		copy(a.Float32s(), t.f32)
		return a, nil
	case tfpb.DataType_DT_DOUBLE:
		copy(a.Float64s(), t.f64)
		return a, nil
	}
	idx := make([]int, len(t.shape))
	for i := range t.size() {
		v := t.at(i)
		if t.dtype == tfpb.DataType_DT_INT64 && (v < math.MinInt32 || v > math.MaxInt32) {
			return nil, fmt.Errorf("the int64 value %d at flat index %d does not fit the i32 hofuse computes integers in", t.i64[i], i)
		}
		a.Set(v, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < t.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return a, nil
}

// elemType maps a TensorFlow element type to hofuse's: float and double to
// f32 and f64, int32 (and int64, for values that fit) to i32, bool to bool.
func elemType(dt tfpb.DataType) (graph.DType, error) {
	switch dt {
	case tfpb.DataType_DT_FLOAT:
		return graph.Float32, nil
	case tfpb.DataType_DT_DOUBLE:
		return graph.Float64, nil
	case tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64:
		return graph.Int32, nil
	case tfpb.DataType_DT_BOOL:
		return graph.Bool, nil
	}
	return graph.Invalid, fmt.Errorf("element type %s is not supported (hofuse computes in float, double, int32 and bool)", dtypeName(dt))
}

// dtypeName writes a DataType as TensorFlow's Python API does (float32,
// int64, string), or its number when it is not a known one.
func dtypeName(dt tfpb.DataType) string {
	switch dt {
	case tfpb.DataType_DT_FLOAT:
		return "float32"
	case tfpb.DataType_DT_DOUBLE:
		return "float64"
	case tfpb.DataType_DT_HALF:
		return "float16"
	case tfpb.DataType_DT_BFLOAT16:
		return "bfloat16"
	}
	if name, ok := tfpb.DataType_name[int32(dt)]; ok {
		return strings.ToLower(strings.TrimPrefix(name, "DT_"))
	}
	return fmt.Sprintf("DataType(%d)", int32(dt))
}

// byteSize is the size of one element of dt in tensor_content, or 0 for the
// types a constant here cannot have.
func byteSize(dt tfpb.DataType) int {
	switch dt {
	case tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32:
		return 4
	case tfpb.DataType_DT_DOUBLE, tfpb.DataType_DT_INT64:
		return 8
	case tfpb.DataType_DT_BOOL:
		return 1
	}
	return 0
}

// checkShape checks a fully known shape and returns its extents: every
// dimension from 1 to graph.MaxExtent, at most graph.MaxElements elements
// in all. what names the shape in errors ("the tensor's shape").
func checkShape(s *tfpb.TensorShapeProto, what string) ([]int, error) {
	if s.GetUnknownRank() {
		return nil, fmt.Errorf("%s has unknown rank", what)
	}
	dims := s.GetDim()
	shape := make([]int, len(dims))
	n := int64(1)
	for i, d := range dims {
		size := d.GetSize()
		switch {
		case size < 0:
			return nil, fmt.Errorf("dimension %d of %s is unknown (%d)", i, what, size)
		case size == 0:
			return nil, fmt.Errorf("dimension %d of %s is 0; hofuse arrays have no empty axes", i, what)
		case size > graph.MaxExtent:
			return nil, fmt.Errorf("dimension %d of %s is %d, past the cap of %d (graph.MaxExtent)", i, what, size, int64(graph.MaxExtent))
		case n > graph.MaxElements/size:
			return nil, fmt.Errorf("%s has more than %d elements (graph.MaxElements) by dimension %d", what, int64(graph.MaxElements), i)
		}
		n *= size
		shape[i] = int(size)
	}
	return shape, nil
}

// decodeTensor decodes and checks a TensorProto. The data must fit its
// shape: tensor_content exactly the shape's bytes, or a typed field with at
// most as many values (fewer repeat the last, as TensorFlow fills; none
// gives zeros). The shape's byte size is checked against maxBytes before
// anything is allocated.
func decodeTensor(p *tfpb.TensorProto, maxBytes int64) (*tensor, error) {
	dt := p.GetDtype()
	size := byteSize(dt)
	if size == 0 {
		_, err := elemType(dt)
		if err == nil {
			err = fmt.Errorf("element type %s is not supported", dtypeName(dt))
		}
		return nil, err
	}
	shape, err := checkShape(p.GetTensorShape(), "the tensor's shape")
	if err != nil {
		return nil, err
	}
	t := &tensor{dtype: dt, shape: shape}
	n := t.size()
	if int64(n) > maxBytes/int64(size) {
		return nil, fmt.Errorf("the tensor's shape %v holds %d bytes, past the limit of %d bytes left for the graph's constants (graph.DefaultMemoryLimit)", shape, int64(n)*int64(size), maxBytes)
	}
	if content := p.GetTensorContent(); len(content) > 0 {
		if len(content) != n*size {
			return nil, fmt.Errorf("tensor_content holds %d bytes, but shape %v of %s needs %d", len(content), shape, dtypeName(dt), n*size)
		}
		le := binary.LittleEndian
		switch dt {
		case tfpb.DataType_DT_FLOAT:
			t.f32 = make([]float32, n)
			for i := range t.f32 {
				t.f32[i] = math.Float32frombits(le.Uint32(content[4*i:]))
			}
		case tfpb.DataType_DT_DOUBLE:
			t.f64 = make([]float64, n)
			for i := range t.f64 {
				t.f64[i] = math.Float64frombits(le.Uint64(content[8*i:]))
			}
		case tfpb.DataType_DT_INT32:
			t.i32 = make([]int32, n)
			for i := range t.i32 {
				t.i32[i] = int32(le.Uint32(content[4*i:]))
			}
		case tfpb.DataType_DT_INT64:
			t.i64 = make([]int64, n)
			for i := range t.i64 {
				t.i64[i] = int64(le.Uint64(content[8*i:]))
			}
		case tfpb.DataType_DT_BOOL:
			t.b = make([]bool, n)
			for i := range t.b {
				t.b[i] = content[i] != 0
			}
		}
		return t, nil
	}
	switch dt {
	case tfpb.DataType_DT_FLOAT:
		t.f32, err = fill(p.GetFloatVal(), n, "float_val")
	case tfpb.DataType_DT_DOUBLE:
		t.f64, err = fill(p.GetDoubleVal(), n, "double_val")
	case tfpb.DataType_DT_INT32:
		t.i32, err = fill(p.GetIntVal(), n, "int_val")
	case tfpb.DataType_DT_INT64:
		t.i64, err = fill(p.GetInt64Val(), n, "int64_val")
	case tfpb.DataType_DT_BOOL:
		t.b, err = fill(p.GetBoolVal(), n, "bool_val")
	}
	if err != nil {
		return nil, fmt.Errorf("%w for shape %v", err, shape)
	}
	return t, nil
}

// fill returns n elements from vals as TensorFlow reads a typed field:
// all of them when there are n, the last one repeated when there are fewer,
// zeros when there are none. More than n is an error.
func fill[T any](vals []T, n int, field string) ([]T, error) {
	if len(vals) > n {
		return nil, fmt.Errorf("%s holds %d values, more than the %d elements", field, len(vals), n)
	}
	out := make([]T, n)
	copy(out, vals)
	if len(vals) > 0 {
		last := vals[len(vals)-1]
		for i := len(vals); i < n; i++ {
			out[i] = last
		}
	}
	return out, nil
}
