package graphtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
)

// Inputs returns random values for ins, keyed by input name: arrays from
// graph.RandomArray, scalars likewise uniform in [-1, 1) and rounded to
// their element type. The values are drawn in the order of ins, so they
// are deterministic for the state of r. It panics when an input has a type
// other than an array or scalar type, which graph.NewInput does not make.
func Inputs(r *rand.Rand, ins []*graph.Input) map[string]graph.Value {
	out := make(map[string]graph.Value, len(ins))
	for _, in := range ins {
		switch t := in.Type.(type) {
		case *graph.ArrayType:
			out[in.Name] = must(graph.RandomArray(r, t.DType, t.Layout.Extents()...))
		case *graph.ScalarType:
			out[in.Name] = graph.ScalarValue{DType: t.DType, V: t.DType.Round(2*r.Float64() - 1)}
		default:
			panic(fmt.Sprintf("graphtest: input %s has type %v", in.Name, in.Type))
		}
	}
	return out
}
