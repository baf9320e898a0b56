package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestSharedTupleDestinations: a term several elements of a tuple project
// is computed once, its components landing straight in the elements that
// alone project them (accumulated inside a reduction, stored outside),
// the others (a component projected twice, one not projected) through
// scratch; results against the interpreter, f32 and f64, sequential and
// parallel.
func TestSharedTupleDestinations(t *testing.T) {
	const f = `(nzip (\a b -> (a + b, a * b, exp a)) r B)`
	cases := []struct{ name, body string }{
		{"reduction-twice", `rnz (\x y -> (zip (+) (fst x) (fst y), zip (+) (snd x) (snd y), zip (+) (proj 2 x) (proj 2 y)))
    (\r -> (fst F, fst F, proj 2 F)) A`},
		{"map", `map (\r -> (proj 2 F, snd F, r)) A`},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) {
				prog, err := graph.Parse("A : " + dt.String() + "[6, 5]; B : " + dt.String() + "[5]; " + strings.ReplaceAll(tc.body, "F", f))
				if err != nil {
					t.Fatal(err)
				}
				// The parser builds a copy of the map per projection;
				// fusion leaves one node.
				var tup *graph.Tuple
				switch b := prog.Body.(type) {
				case *graph.RNZ:
					tup = b.Fn.(*graph.Lambda).Body.(*graph.Tuple)
				case *graph.NZip:
					tup = b.Fn.(*graph.Lambda).Body.(*graph.Tuple)
				}
				shared := tup.Elems[0].(*graph.Proj).X
				tup.Elems[1].(*graph.Proj).X = shared
				if p, ok := tup.Elems[2].(*graph.Proj); ok {
					p.X = shared
				}
				g, err := fusion.Whole(prog.Body)
				if err != nil {
					t.Fatal(err)
				}
				in, err := lowertest.Inputs(prog.Body, 4, 0, lowertest.Dense)
				if err != nil {
					t.Fatal(err)
				}
				for _, par := range []int{1, 0} {
					lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0)
				}
			})
		}
	}
}
