package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/hofuse/hofuse/graph"
)

func init() {
	register(&command{
		name:    "eval",
		usage:   "[--seed N] [--inputs FILE.json] [--json] 'PROGRAM' | -f FILE",
		summary: "evaluate a program in the notation with the reference interpreter",
		run:     runEval,
	})
}

// inputFile is the JSON form of input values:
//
//	{"A": {"dtype": "f64", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]},
//	 "s": {"dtype": "f32", "data": [0.5]}}
//
// A value without a shape is a scalar.
type inputFile map[string]struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func runEval(args []string, stdout, stderr io.Writer) error {
	c := commands["eval"]
	fs := newFlags(c, stderr)
	seed := fs.Uint64("seed", 1, "seed for random inputs (uniform in [-1, 1))")
	inputsPath := fs.String("inputs", "", "JSON `file` with input values (see 'hofuse eval --help'); inputs it lacks are random")
	file := fs.String("f", "", "read the program from `file` instead of the argument")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	var src, name string
	switch {
	case *file != "" && len(pos) == 0:
		b, err := os.ReadFile(*file)
		if err != nil {
			return err
		}
		src, name = string(b), *file
	case *file == "" && len(pos) == 1:
		src, name = pos[0], "program"
	default:
		return usagef("want one program, as an argument or with -f FILE")
	}
	body, err := parseChecked(src, name)
	if err != nil {
		return err
	}
	info, err := graph.Check(body)
	if err != nil {
		return err
	}
	values := map[string]graph.Value{}
	if *inputsPath != "" {
		if values, err = readInputs(*inputsPath); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewPCG(*seed, *seed))
	for _, in := range info.Inputs {
		if _, ok := values[in.Name]; ok {
			continue
		}
		v, err := randomValue(r, in.Type)
		if err != nil {
			return fmt.Errorf("input %s: %w", in.Name, err)
		}
		values[in.Name] = v
	}
	out, err := graph.Eval(body, values)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(valueJSON(out))
	}
	fmt.Fprintln(stdout, formatValue(out))
	return nil
}

func randomValue(r *rand.Rand, t graph.Type) (graph.Value, error) {
	switch t := t.(type) {
	case *graph.ArrayType:
		a, err := graph.RandomArray(r, t.DType, t.Layout.Extents()...)
		if err != nil {
			return nil, err
		}
		return a.CopyTo(t.Layout)
	case *graph.ScalarType:
		return graph.ScalarValue{DType: t.DType, V: t.DType.Round(2*r.Float64() - 1)}, nil
	case *graph.TupleType:
		out := make(graph.TupleValue, len(t.Elems))
		for i, e := range t.Elems {
			v, err := randomValue(r, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("no random values of type %v", t)
}

func readInputs(path string) (map[string]graph.Value, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f inputFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]graph.Value{}
	for name, v := range f {
		dt, err := graph.ParseDType(v.DType)
		if err != nil {
			return nil, fmt.Errorf("%s: input %s: %w", path, name, err)
		}
		if len(v.Shape) == 0 {
			if len(v.Data) != 1 {
				return nil, fmt.Errorf("%s: input %s: a scalar needs exactly 1 value, got %d", path, name, len(v.Data))
			}
			out[name] = graph.ScalarValue{DType: dt, V: dt.Round(v.Data[0])}
			continue
		}
		a, err := graph.Zeros(dt, v.Shape...)
		if err != nil {
			return nil, fmt.Errorf("%s: input %s: %w", path, name, err)
		}
		if len(v.Data) != a.Size() {
			return nil, fmt.Errorf("%s: input %s: shape %v needs %d values, got %d", path, name, v.Shape, a.Size(), len(v.Data))
		}
		idx := make([]int, len(v.Shape))
		for _, x := range v.Data {
			a.Set(x, idx...)
			for d := len(idx) - 1; d >= 0; d-- {
				if idx[d]++; idx[d] < v.Shape[d] {
					break
				}
				idx[d] = 0
			}
		}
		out[name] = a
	}
	return out, nil
}

// formatValue prints a value for people: arrays nested by axis, elided in
// the middle when long.
func formatValue(v graph.Value) string {
	switch v := v.(type) {
	case *graph.Array:
		return v.String()
	case graph.ScalarValue:
		return fmt.Sprintf("%v %v", v.DType, v.V)
	case graph.TupleValue:
		return v.String()
	}
	return fmt.Sprint(v)
}

// valueJSON is the JSON form of a value, as readInputs reads it; tuples
// are lists.
func valueJSON(v graph.Value) any {
	switch v := v.(type) {
	case *graph.Array:
		return map[string]any{"dtype": v.DType().String(), "shape": v.Extents(), "data": v.Values()}
	case graph.ScalarValue:
		return map[string]any{"dtype": v.DType.String(), "data": []float64{v.V}}
	case graph.TupleValue:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = valueJSON(x)
		}
		return out
	}
	return nil
}
