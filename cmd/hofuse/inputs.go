package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"os"

	"github.com/hofuse/hofuse/graph"
)

// readInputs reads the input values in the JSON file at path (the format
// is in evalHelp) for the program's inputs. Errors name the file, the
// input, the place in it and what is wrong.
func readInputs(path string, inputs []*graph.Input) (map[string]graph.Value, error) {
	var b []byte
	if strings.HasPrefix(strings.TrimSpace(path), "{") {
		// Inline JSON: --inputs '{"x": [1, 2, 3]}'.
		b, path = []byte(path), "--inputs"
	} else {
		var err error
		if b, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`%s: want a JSON object mapping input names to values, as {"x": [1, 2, 3]}; got %s`, path, describeJSON(raw))
	}
	byName := map[string]*graph.Input{}
	var names []string
	for _, in := range inputs {
		byName[in.Name] = in
		names = append(names, in.Name)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := map[string]graph.Value{}
	for _, k := range keys {
		in, ok := byName[k]
		if !ok {
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s: input %q: the program has no input of that name (its inputs: %s)", path, k, have)
		}
		v, err := jsonValue(obj[k], in.Type, "input "+k, fmt.Sprintf("%s : %v", k, in.Type))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[k] = v
	}
	return out, nil
}

// jsonValue converts a decoded JSON value to a value of type t. where is
// the place for errors ("input Z[1]"), decl the input's declaration.
func jsonValue(v any, t graph.Type, where, decl string) (graph.Value, error) {
	switch t := t.(type) {
	case *graph.ScalarType:
		if obj, ok := v.(map[string]any); ok { // the form --json writes
			a, err := graph.Zeros(t.DType, 1)
			if err != nil {
				return nil, err
			}
			if err := fillFlat(a, obj, graph.ArrayOf(t.DType), []int{1}, where, decl); err != nil {
				return nil, err
			}
			return graph.ScalarValue{DType: t.DType, V: a.At(0)}, nil
		}
		x, err := jsonNumber(v, t.DType, where)
		if err != nil {
			return nil, err
		}
		return graph.ScalarValue{DType: t.DType, V: x}, nil
	case *graph.TupleType:
		list, ok := v.([]any)
		if !ok || len(list) != len(t.Elems) {
			return nil, fmt.Errorf("%s: want an array of the %s of the tuple (%s), got %s", where, count(len(t.Elems), "component"), decl, describeJSON(v))
		}
		out := make(graph.TupleValue, len(t.Elems))
		for i, e := range t.Elems {
			var err error
			if out[i], err = jsonValue(list[i], e, fmt.Sprintf("%s component %d", where, i), decl); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *graph.ArrayType:
		extents := t.Layout.Extents()
		a, err := graph.Zeros(t.DType, extents...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if obj, ok := v.(map[string]any); ok {
			err = fillFlat(a, obj, t, extents, where, decl)
		} else {
			err = fillNested(a, v, t.DType, extents, make([]int, 0, len(extents)), where, decl)
		}
		if err != nil {
			return nil, err
		}
		return a.CopyTo(t.Layout)
	}
	return nil, fmt.Errorf("%s: no values of type %v", where, t)
}

// fillNested sets a's elements from nested JSON arrays, one level per
// axis; idx is the index of v.
func fillNested(a *graph.Array, v any, dt graph.DType, extents, idx []int, where, decl string) error {
	d := len(idx)
	if d == len(extents) {
		x, err := jsonNumber(v, dt, where)
		if err != nil {
			return err
		}
		a.Set(x, idx...)
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: want an array of %s along axis %d (%s), got %s", where, count(extents[d], "entry"), d, decl, describeJSON(v))
	}
	if len(list) != extents[d] {
		return fmt.Errorf("%s: axis %d has %s, want %d (%s)", where, d, count(len(list), "entry"), extents[d], decl)
	}
	for i, e := range list {
		if err := fillNested(a, e, dt, extents, append(idx, i), fmt.Sprintf("%s[%d]", where, i), decl); err != nil {
			return err
		}
	}
	return nil
}

// fillFlat sets a's elements from the form --json writes:
// {"dtype": "f64", "shape": [2, 3], "data": [...]}, data in row-major order.
// extents are a's; a scalar is read as one element, with no shape.
func fillFlat(a *graph.Array, obj map[string]any, t *graph.ArrayType, extents []int, where, decl string) error {
	for k := range obj {
		if k != "dtype" && k != "shape" && k != "data" {
			return fmt.Errorf(`%s: unknown field %q; an object value has "dtype", "shape" and "data" (%s)`, where, k, decl)
		}
	}
	if dt, ok := obj["dtype"]; ok && dt != t.DType.String() {
		return fmt.Errorf("%s: dtype %s, but the program declares %s", where, describeJSON(dt), decl)
	}
	var shape []int
	list, _ := obj["shape"].([]any)
	for _, e := range list {
		n, err := strconv.Atoi(fmt.Sprint(e))
		if err != nil {
			return fmt.Errorf("%s: shape %s is not a list of extents", where, describeJSON(obj["shape"]))
		}
		shape = append(shape, n)
	}
	if want := t.Layout.Extents(); !slices.Equal(shape, want) {
		return fmt.Errorf("%s: shape %v, but the program declares %s", where, shape, decl)
	}
	data, ok := obj["data"].([]any)
	if !ok || len(data) != a.Size() {
		return fmt.Errorf("%s: data: want an array of %s (%s), got %s", where, count(a.Size(), "number"), decl, describeJSON(obj["data"]))
	}
	idx := make([]int, len(extents))
	for i, e := range data {
		x, err := jsonNumber(e, t.DType, fmt.Sprintf("%s data[%d]", where, i))
		if err != nil {
			return err
		}
		a.Set(x, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < extents[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}

// jsonNumber converts a JSON number, or "NaN", "Inf" or "-Inf", to a value
// of dt: i32 takes integers in range, bool takes true, false, 0 and 1.
func jsonNumber(v any, dt graph.DType, where string) (float64, error) {
	var x float64
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %s is out of range for %v", where, v, dt)
		}
		x = f
	case string:
		switch v {
		case "NaN":
			x = math.NaN()
		case "Inf", "+Inf":
			x = math.Inf(1)
		case "-Inf":
			x = math.Inf(-1)
		default:
			return 0, fmt.Errorf(`%s: the string %q is not a number; write a number, "NaN", "Inf" or "-Inf"`, where, v)
		}
		if !dt.IsFloat() {
			return 0, fmt.Errorf("%s: %s is not a value of %v", where, v, dt)
		}
	case bool:
		if dt != graph.Bool {
			return 0, fmt.Errorf("%s: %v is not a number of %v", where, v, dt)
		}
		if v {
			return 1, nil
		}
		return 0, nil
	default:
		return 0, fmt.Errorf(`%s: %s is not a number; write a number, "NaN", "Inf" or "-Inf"`, where, describeJSON(v))
	}
	switch dt {
	case graph.Int32:
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			return 0, fmt.Errorf("%s: %v is not an i32 (an integer from %d to %d)", where, v, math.MinInt32, math.MaxInt32)
		}
	case graph.Bool:
		if x != 0 && x != 1 {
			return 0, fmt.Errorf("%s: %v is not a bool (true, false, 1 or 0)", where, v)
		}
	}
	return dt.Round(x), nil
}

// describeJSON names a decoded JSON value for an error message.
func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case []any:
		return fmt.Sprintf("an array of %s", count(len(v), "entry"))
	case map[string]any:
		return "an object"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// formatValue prints a value for people: arrays nested by axis, elided in
// the middle when long; NaN and infinities as NaN, +Inf and -Inf.
func formatValue(v graph.Value) string {
	switch v := v.(type) {
	case *graph.Array:
		return v.String()
	case graph.ScalarValue:
		if v.DType == graph.Int32 || v.DType == graph.Bool {
			return fmt.Sprintf("%v %s", v.DType, strconv.FormatFloat(v.V, 'f', -1, 64))
		}
		return fmt.Sprintf("%v %v", v.DType, v.V)
	case graph.TupleValue:
		return v.String()
	}
	return fmt.Sprint(v)
}

// valueJSON is the JSON form of a value, which readInputs reads too: an
// array as {"dtype", "shape", "data"}, data in row-major order, NaN and
// infinities as the strings "NaN", "Inf" and "-Inf"; tuples are lists.
func valueJSON(v graph.Value) any {
	switch v := v.(type) {
	case *graph.Array:
		vals := v.Values()
		data := make([]any, len(vals))
		for i, x := range vals {
			data[i] = jsonElem(v.DType(), x)
		}
		return map[string]any{"dtype": v.DType().String(), "shape": v.Extents(), "data": data}
	case graph.ScalarValue:
		return map[string]any{"dtype": v.DType.String(), "data": []any{jsonElem(v.DType, v.V)}}
	case graph.TupleValue:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = valueJSON(x)
		}
		return out
	}
	return nil
}

// jsonElem is an element of dtype dt as JSON: a bool as true or false, a
// number as jsonFloat writes it.
func jsonElem(dt graph.DType, x float64) any {
	if dt == graph.Bool {
		return x != 0
	}
	return jsonFloat(x)
}

// jsonFloat is x, or for NaN and infinities, which JSON lacks, the
// strings readInputs takes for them.
func jsonFloat(x float64) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	return x
}
