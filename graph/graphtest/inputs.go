package graphtest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
)

// Inputs returns random values for ins, keyed by input name: arrays from
// graph.RandomArray, scalars likewise uniform in [-1, 1) and rounded to
// their element type. The values are drawn in the order of ins, so they
// are deterministic for the state of r. It panics when an input has a type
// other than an array or scalar type, which graph.NewInput does not make.
// It is Config{}.Inputs.
func Inputs(r *rand.Rand, ins []*graph.Input) map[string]graph.Value {
	return Config{}.Inputs(r, ins)
}

// Specials are the special floating-point values Config.Special mixes into
// inputs: NaN, +Inf, -Inf and -0.
var Specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}

// Inputs is the package's Inputs with the input options of c: with
// probability c.Special, an element of a floating-point input is one of
// Specials instead (each as likely). With c.Special 0 it draws exactly what
// Inputs draws. Tuple inputs get a value per element.
func (c Config) Inputs(r *rand.Rand, ins []*graph.Input) map[string]graph.Value {
	out := make(map[string]graph.Value, len(ins))
	for _, in := range ins {
		out[in.Name] = c.value(r, in.Name, in.Type)
	}
	return out
}

func (c Config) value(r *rand.Rand, name string, t graph.Type) graph.Value {
	switch t := t.(type) {
	case *graph.ArrayType:
		a := must(graph.RandomArray(r, t.DType, t.Layout.Extents()...))
		if c.Special > 0 && t.DType.IsFloat() {
			vs := a.Values()
			for k := range vs {
				if r.Float64() < c.Special {
					vs[k] = Specials[r.IntN(len(Specials))]
				}
			}
			a = must(fromValues(t.DType, vs, t.Layout.Extents()))
		}
		return a
	case *graph.ScalarType:
		v := t.DType.Round(2*r.Float64() - 1)
		if c.Special > 0 && t.DType.IsFloat() && r.Float64() < c.Special {
			v = Specials[r.IntN(len(Specials))]
		}
		return graph.ScalarValue{DType: t.DType, V: v}
	case *graph.TupleType:
		tv := make(graph.TupleValue, len(t.Elems))
		for i, e := range t.Elems {
			tv[i] = c.value(r, name, e)
		}
		return tv
	}
	panic(fmt.Sprintf("graphtest: input %s has type %v", name, t))
}

// fromValues makes a row-major array of dt holding vs.
func fromValues(dt graph.DType, vs []float64, extents []int) (*graph.Array, error) {
	if dt == graph.Float32 {
		f := make([]float32, len(vs))
		for i, v := range vs {
			f[i] = float32(v)
		}
		return graph.FromFloat32(f, extents...)
	}
	return graph.FromFloat64(vs, extents...)
}
