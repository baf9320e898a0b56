package graph

import (
	"fmt"
	"sort"
	"strings"
)

// CheckInputs checks the values a caller binds by name to the inputs ins
// of a program: every input is bound, every name is an input's, and every
// value fits its input's type (CheckValue). Its errors name the input and
// say what it needs and what it got:
//
//	input u (f32[3]) is not bound
//	v, w bound, but the program has no such input
//	input A needs f32[3,4], got f64[3,4]
//
// Every evaluator and back end binds its inputs through it. It allocates
// nothing when the values fit, so that a back end's steady-state run stays
// free of allocations. The names of ins must be distinct.
func CheckInputs(ins []*Input, values map[string]Value) error {
	for _, in := range ins {
		v, ok := values[in.Name]
		if !ok {
			return fmt.Errorf("input %s (%v) is not bound", in.Name, in.Type)
		}
		if err := CheckValue(in.Type, v); err != nil {
			return fmt.Errorf("input %s %w", in.Name, err)
		}
	}
	if len(values) > len(ins) {
		known := make(map[string]bool, len(ins))
		for _, in := range ins {
			known[in.Name] = true
		}
		var extra []string
		for name := range values {
			if !known[name] {
				extra = append(extra, name)
			}
		}
		sort.Strings(extra)
		return fmt.Errorf("%s bound, but the program has no such input", strings.Join(extra, ", "))
	}
	return nil
}

// BindInputs checks values against ins (CheckInputs) and returns them
// keyed by input, as given: an array with strides other than the declared
// ones is not copied.
func BindInputs(ins []*Input, values map[string]Value) (map[*Input]Value, error) {
	if err := CheckInputs(ins, values); err != nil {
		return nil, err
	}
	out := make(map[*Input]Value, len(ins))
	for _, in := range ins {
		out[in] = values[in.Name]
	}
	return out, nil
}

// CheckValue checks that v can be bound to an input of type t: an *Array
// of the same element type and extents (its strides and offset may
// differ: a view fits), a ScalarValue of the same element type, a
// TupleValue whose elements fit. The error says what t needs and what v
// is, by type, never by its elements: "needs f32[3], got f64[3]".
func CheckValue(t Type, v Value) error {
	switch t := t.(type) {
	case *ArrayType:
		a, ok := v.(*Array)
		if !ok || a == nil {
			return fmt.Errorf("needs an array of type %v, got %s", t, DescribeValue(v))
		}
		if a.dtype != t.DType || !a.layout.SameExtents(t.Layout) {
			return fmt.Errorf("needs %v, got %s", t, DescribeValue(a))
		}
		return nil
	case *ScalarType:
		s, ok := v.(ScalarValue)
		if !ok || s.DType != t.DType {
			return fmt.Errorf("needs a scalar of type %v, got %s", t, DescribeValue(v))
		}
		return nil
	case *TupleType:
		tv, ok := v.(TupleValue)
		if !ok || len(tv) != len(t.Elems) {
			return fmt.Errorf("needs a tuple of type %v, got %s", t, DescribeValue(v))
		}
		for i := range tv {
			if err := CheckValue(t.Elems[i], tv[i]); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return nil
	}
	return fmt.Errorf("has type %v, which no value fits", t)
}

// DescribeValue names a value by its type, in the notation: f32[3,4] for
// an array (whatever its strides), f64(2) for a scalar, a tuple of those,
// "nothing" for nil; never an array's elements.
func DescribeValue(v Value) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case *Array:
		if v == nil {
			return "a nil *graph.Array"
		}
		return ArrayOf(v.dtype, v.Extents()...).String()
	case ScalarValue:
		return v.String()
	case TupleValue:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = DescribeValue(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%T", v)
}
