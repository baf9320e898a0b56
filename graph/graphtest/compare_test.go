package graphtest

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64s(extents []int, vs ...float64) *graph.Array {
	return must(graph.FromFloat64(vs, extents...))
}

// recorder is a testing.TB that records what Compare reports.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestCompare(t *testing.T) {
	rec := &recorder{TB: t}
	a := f64s([]int{2}, 1, 2)
	assert.True(t, Compare(rec, a, f64s([]int{2}, 1, 2), 0))
	assert.Empty(t, rec.msgs)
	assert.False(t, Compare(rec, a, f64s([]int{2}, 1, 3), 0.1))
	assert.Equal(t, []string{"array element [1] of [2]: want 2, got 3 (difference 1)"}, rec.msgs)
}

// TestToleranceCoversRounding measures how far evaluating a program in f32
// moves it from f64 (a seed makes the same program and inputs in both
// element types), which bounds what regrouping a reduction can do, and
// checks that graph.Tolerance(Float32) leaves a margin of ten.
func TestToleranceCoversRounding(t *testing.T) {
	for _, gen := range []Generator{Program, RNZOfRNZ} {
		for seed := range uint64(100) {
			n64, ins64 := gen(Rand(seed), Config{DType: graph.Float64})
			n32, ins32 := gen(Rand(seed), Config{DType: graph.Float32})
			v64 := must(graph.Eval(n64, Inputs(Rand(seed), ins64)))
			v32 := must(graph.Eval(n32, Inputs(Rand(seed), ins32)))
			w, g := flat(v64), flat(v32)
			require.Len(t, g, len(w))
			for k := range w {
				require.True(t, graph.Within(w[k], g[k], graph.Tolerance(graph.Float32)/10),
					"seed %d: element %d: f64 %v, f32 %v\n%s", seed, k, w[k], g[k], graph.Print(n32))
			}
		}
	}
}

// flat lists the elements of v, tuples flattened in order.
func flat(v graph.Value) []float64 {
	switch v := v.(type) {
	case graph.TupleValue:
		var out []float64
		for _, e := range v {
			out = append(out, flat(e)...)
		}
		return out
	case graph.ScalarValue:
		return []float64{v.V}
	case *graph.Array:
		return v.Values()
	}
	return nil
}
