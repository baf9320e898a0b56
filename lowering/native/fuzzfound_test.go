package native_test

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestFuzzFound holds programs that the pipeline fuzzer
// (lowertest.RunPipeline with more seeds than the suite runs) found
// computing wrong results, shrunk, each with what went wrong. They run in
// every mode of lowertest.Modes, sequential and parallel, against the
// interpreter.
func TestFuzzFound(t *testing.T) {
	for _, c := range []struct {
		name, src string
		set       func(in map[string]graph.Value) // special values, or nil
	}{
		// A value hoisted out of a vector loop as a per-element vector
		// (select (x1 < x1) x1 x1, from an input alone) read by a
		// per-element closure (the sum of it over another array): the
		// closure read element 0 of the vector for every element (seed
		// MapOfMap/f64/172).
		// A matrix-vector product run as axpys over the columns: a zero
		// element of the vector skipped its column, so an Inf there
		// gave a number instead of NaN (0·Inf); seed MatVec/f32/383.
		{"axpy-by-zero", `x0 : f32[7,7]; x1 : f32[7]; map (\r -> rnz (+) (*) r x1) (flip 0 x0)`, func(in map[string]graph.Value) {
			in["x0"].(*graph.Array).Set(math.Inf(-1), 1, 5)
			in["x1"].(*graph.Array).Set(math.Copysign(0, -1), 1)
		}},
		// A contraction whose row part is a literal (the 2 of y · 2, y
		// f32): moved out as the row's prologue, alone, the 2 typed as
		// f64, and the kernel did not type-check (seed MapOfRNZ/f32/821).
		{"literal-row-prologue", `x5 : f32[1,1]; x7 : f32[1]; map (\a -> rnz (+) (\x y -> y * 2) a x7) x5`, nil},
		{"literal-row-prologue-left", `x5 : f32[3,4]; x7 : f32[4]; map (\a -> rnz (+) (\x y -> (2 + 1) * y) a x7) x5`, nil},
		// A let-bound value that is a literal's (1, typed by the t1 * t1
		// it feeds) computed from a traversal it ignores: hoisted out of
		// the kernel as a buffer of the literal's undecided type, it did
		// not compile ("input $h1: invalid element type"; cut unfused,
		// seed RNZOfRNZ/f64/9276).
		{"untyped-let-value", `x6 : f64[1]; let t1 = (\y -> 1) (map id x6) in t1 * t1`, nil},
		{"hoisted-vector-in-a-closure", `x4 : f64[4]; x8 : f64[5]; let t1 = map (\x -> select (x < x) x x) x8 in map (\x -> map (\b -> b / x) (map (\x1 -> rnz (+) (\x2 -> x1) t1) t1)) x4`, nil},
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
			if c.set != nil {
				c.set(in)
			}
			for _, m := range lowertest.Modes() {
				g, err := m.Cut(prog.Body)
				if err != nil {
					t.Fatal(err)
				}
				for _, par := range []int{1, 0} {
					if !lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0) {
						t.Logf("mode %s, parallelism %d", m.Name, par)
					}
				}
			}
		})
	}
}
