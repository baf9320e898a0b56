package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestFuzzFound holds programs that the pipeline fuzzer
// (lowertest.RunPipeline with more seeds than the suite runs) found
// computing wrong results, shrunk, each with what went wrong. They run
// fused, unfused and whole, sequential and parallel, against the
// interpreter.
func TestFuzzFound(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		// A value hoisted out of a vector loop as a per-element vector
		// (select (x1 < x1) x1 x1, from an input alone) read by a
		// per-element closure (the sum of it over another array): the
		// closure read element 0 of the vector for every element (seed
		// MapOfMap/f64/172).
		{"hoisted-vector-in-a-closure", `x4 : f64[4]; x8 : f64[5]; let t1 = map (\x -> select (x < x) x x) x8 in map (\x -> map (\b -> b / x) (map (\x1 -> rnz (+) (\x2 -> x1) t1) t1)) x4`},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, err := graph.Parse(c.src)
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(prog.Body, 3, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := fusion.Whole(prog.Body)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range append(lowertest.FusedAndUnfused(t, prog.Body), whole) {
				for _, par := range []int{1, 0} {
					lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0)
				}
			}
		})
	}
}
