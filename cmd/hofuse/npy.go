package main

import (
	"fmt"
	"os"
	"reflect"

	"github.com/hofuse/hofuse/data"

	"github.com/sbinet/npyio"

	"github.com/hofuse/hofuse/graph"
)

// readNpy reads a NumPy .npy file into an array (or a scalar value for a
// 0-d array), as data.ReadArray reads it: float32 becomes f32, float64
// f64, the integer types i32, bool bool; the header and the shape are
// checked against the file before anything is decoded.
func readNpy(path string) (graph.Value, error) {
	return data.ReadArray(path, 0)
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
