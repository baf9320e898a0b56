package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"reflect"

	"github.com/sbinet/npyio"

	"github.com/hofuse/hofuse/graph"
)

// readNpy reads a NumPy .npy file into an array (or a scalar value for a
// 0-d array). float32 becomes f32, float64 f64, the integer types i32
// (values past its range are an error), bool bool. The element count the
// header gives is checked against the file's size before anything is
// allocated; Fortran-ordered files are refused.
func readNpy(path string) (graph.Value, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a NumPy .npy file: %w", path, err)
	}
	h := r.Header
	if h.Descr.Fortran {
		return nil, fmt.Errorf("%s: the array is in Fortran order; save it with numpy.save(path, numpy.ascontiguousarray(a))", path)
	}
	shape := h.Descr.Shape
	n := 1
	for i, d := range shape {
		if d < 1 || d > graph.MaxExtent || n > graph.MaxElements/d {
			return nil, fmt.Errorf("%s: dimension %d is %d; extents must be between 1 and %d", path, i, d, graph.MaxExtent)
		}
		n *= d
	}
	rt := npyio.TypeFrom(h.Descr.Type)
	if rt == nil {
		return nil, fmt.Errorf("%s: element type %q is not supported (float32, float64, integers and bool are)", path, h.Descr.Type)
	}
	if int64(n) > st.Size()/int64(rt.Size()) {
		return nil, fmt.Errorf("%s: the header says %v elements of %s, more than the file's %d bytes hold", path, shape, h.Descr.Type, st.Size())
	}
	slice := reflect.MakeSlice(reflect.SliceOf(rt), n, n)
	ptr := reflect.New(slice.Type())
	ptr.Elem().Set(slice)
	if err := r.Read(ptr.Interface()); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data := ptr.Elem()
	var dt graph.DType
	switch rt.Kind() {
	case reflect.Float32:
		dt = graph.Float32
	case reflect.Float64:
		dt = graph.Float64
	case reflect.Bool:
		dt = graph.Bool
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		dt = graph.Int32
	default:
		return nil, fmt.Errorf("%s: element type %q is not supported (float32, float64, integers and bool are)", path, h.Descr.Type)
	}
	elem := func(k int) (float64, error) {
		v := data.Index(k)
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			return v.Float(), nil
		case reflect.Bool:
			if v.Bool() {
				return 1, nil
			}
			return 0, nil
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if v.Uint() > math.MaxInt32 {
				return 0, fmt.Errorf("%s: element %d is %d, past the range of i32", path, k, v.Uint())
			}
			return float64(v.Uint()), nil
		}
		if x := v.Int(); x < math.MinInt32 || x > math.MaxInt32 {
			return 0, fmt.Errorf("%s: element %d is %d, past the range of i32", path, k, x)
		}
		return float64(v.Int()), nil
	}
	if len(shape) == 0 {
		x, err := elem(0)
		if err != nil {
			return nil, err
		}
		return graph.ScalarValue{DType: dt, V: x}, nil
	}
	a, err := graph.NewArray(dt, graph.RowMajor(shape...))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	idx := make([]int, len(shape))
	for k := range n {
		x, err := elem(k)
		if err != nil {
			return nil, err
		}
		a.Set(x, idx...)
		for ax := len(idx) - 1; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < shape[ax] {
				break
			}
			idx[ax] = 0
		}
	}
	return a, nil
}

// writeNpy writes v, an array or a scalar, as a NumPy .npy file of its
// element type (f32 as float32, f64 as float64, i32 as int32, bool as
// bool), row-major.
func writeNpy(path string, v graph.Value) error {
	var dt graph.DType
	var shape []int
	var at func(k int) float64
	switch v := v.(type) {
	case *graph.Array:
		dt, shape = v.DType(), v.Extents()
		vals := v.Values()
		at = func(k int) float64 { return vals[k] }
	case graph.ScalarValue:
		dt = v.DType
		at = func(int) float64 { return v.V }
	default:
		return fmt.Errorf("%s: cannot write %s as .npy (an array or a scalar can be)", path, graph.DescribeValue(v))
	}
	var et reflect.Type
	switch dt {
	case graph.Float32:
		et = reflect.TypeFor[float32]()
	case graph.Float64:
		et = reflect.TypeFor[float64]()
	case graph.Int32:
		et = reflect.TypeFor[int32]()
	case graph.Bool:
		et = reflect.TypeFor[bool]()
	default:
		return fmt.Errorf("%s: element type %v has no .npy counterpart", path, dt)
	}
	// npyio takes the shape from the Go type: a fixed-size array per
	// axis, innermost last ([2][3]float32 is shape (2, 3)).
	t := et
	for ax := len(shape) - 1; ax >= 0; ax-- {
		t = reflect.ArrayOf(shape[ax], t)
	}
	val := reflect.New(t).Elem()
	idx := make([]int, len(shape))
	for k := range prodInts(shape) {
		x := val
		for _, i := range idx {
			x = x.Index(i)
		}
		switch dt {
		case graph.Float32, graph.Float64:
			x.SetFloat(at(k))
		case graph.Int32:
			x.SetInt(int64(at(k)))
		case graph.Bool:
			x.SetBool(at(k) != 0)
		}
		for ax := len(idx) - 1; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < shape[ax] {
				break
			}
			idx[ax] = 0
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := npyio.Write(f, val.Interface()); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

func prodInts(xs []int) int {
	n := 1
	for _, x := range xs {
		n *= x
	}
	return n
}
