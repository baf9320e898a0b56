package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestSharedElementFunction checks the softmax rewrite of sharedelem.go:
// a row whose sum and map share the element function computes it once
// into the destination, and gives the same bits as the same row written
// so that the rewrite does not apply (the map as a zip over the row
// twice), on rows longer than a vector chunk, in float32 and float64, with
// -Inf, huge and equal values; both agree with the interpreter. Terms
// where the rewrite must not apply (no shared subterm, a map over another
// row) are compiled as before.
func TestSharedElementFunction(t *testing.T) {
	const note = "element function shared by a reduction and a map"
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		A, err := graph.NewInput("A", graph.ArrayOf(dt, 5, 300), false)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(3, 4))
		vals := make([]float64, 5*300)
		for i := range vals {
			vals[i] = r.NormFloat64() * 4
		}
		vals[7], vals[301], vals[302], vals[2*300+5] = math.Inf(-1), 80, 80, -1e30
		for i := 3 * 300; i < 4*300; i++ {
			vals[i] = 1.5 // a constant row: every element 1/300
		}
		av, err := graph.Zeros(dt, 5, 300)
		require.NoError(t, err)
		for i, v := range vals {
			av.Set(v, i/300, i%300)
		}
		in := map[string]graph.Value{"A": av}

		run := func(src string) (graph.Node, *native.Plan, []float64) {
			t.Helper()
			term, err := graph.ParseTerm(src, A)
			require.NoError(t, err)
			g, err := fusion.Whole(term)
			require.NoError(t, err)
			p, err := native.New(native.Options{}).Plan(g)
			require.NoError(t, err)
			t.Cleanup(func() { p.Close() })
			out, err := p.Run(in)
			require.NoError(t, err)
			lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
			return term, p, append([]float64(nil), out.(*graph.Array).Values()...)
		}
		const head = `map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in `
		for _, c := range []struct{ shared, plain string }{
			{head + `map (\v -> exp (v - m) / s) r) A`, head + `zip (\v u -> exp (v - m) / s) r r) A`},
			{head + `map (\v -> exp (v - m) / s + exp (v - m) * v) r) A`, head + `zip (\v u -> exp (v - m) / s + exp (v - m) * v) r r) A`},
		} {
			_, ps, got := run(c.shared)
			_, pp, want := run(c.plain)
			require.Contains(t, ps.Describe(), note, "%v: %s", dt, c.shared)
			require.NotContains(t, pp.Describe(), note, "%v: %s", dt, c.plain)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%v %s: element %d = %v, want %v as without the rewrite", dt, c.shared, i, got[i], want[i])
				}
			}
		}
		for _, src := range []string{
			head + `map (\v -> exp (v + m) / s) r) A`,                                                      // no shared subterm
			`map (\r -> let s = rnz (+) (\v -> exp v) r in map (\v -> exp v / s) (map (\x -> x + 1) r)) A`, // another row
		} {
			_, p, _ := run(src)
			if strings.Contains(p.Describe(), note) {
				t.Errorf("%v %s: rewritten, but it has no shared element function of the row's type:\n%s", dt, src, p.Describe())
			}
		}
	}
}

// TestDestLet checks destLet: a let whose array value the map ending its
// body reads (the softmax Fuse makes of ReduceMax, Sub, Exp, ReduceSum
// and Div) computes the value into the destination and maps it in place,
// with the interpreter's results; and terms where the destination would be
// read after the map overwrote it — the map reading a permutation of the
// value, the map's function reading the value whole, a let between that
// is an array — keep the value in scratch, with the interpreter's results
// too.
func TestDestLet(t *testing.T) {
	const note = "let computed into the destination"
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		A, err := graph.NewInput("A", graph.ArrayOf(dt, 4, 1200), false)
		require.NoError(t, err)
		B, err := graph.NewInput("B", graph.ArrayOf(dt, 4, 1200), false)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(5, 6))
		vals := map[string]graph.Value{}
		for _, x := range []*graph.Input{A, B} {
			vals[x.Name], err = graph.RandomArray(r, dt, 4, 1200)
			require.NoError(t, err)
		}
		check := func(src string, fires bool) {
			t.Helper()
			term, err := graph.ParseTerm(src, A, B)
			require.NoError(t, err)
			g, err := fusion.Whole(term)
			require.NoError(t, err)
			in := map[string]graph.Value{}
			for _, x := range g.Inputs {
				in[x.Name] = vals[x.Name]
			}
			p, err := native.New(native.Options{}).Plan(g)
			require.NoError(t, err)
			defer p.Close()
			// The let's value, e or d, in scratch or not.
			inScratch := strings.Contains(p.Describe(), fmt.Sprintf("materialise %v[1200] into scratch", dt))
			if inScratch == fires || fires && !strings.Contains(p.Describe(), note) {
				t.Errorf("%v %s: value in scratch %v, want %v:\n%s", dt, src, inScratch, !fires, p.Describe())
			}
			lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
		}
		// The softmax of the five operators, fused.
		check(`map (\a -> let e = (let b = reduce max a in map (\x -> exp (x - b)) a) in let s = reduce (+) e in map (\y -> y / s) e) A`, true)
		// Two scalar lets, the second reading the first; a map over the
		// value and another row.
		check(`zip (\a c -> let d = zip (\x z -> x * z) a c in let m = reduce (+) d in let q = rnz (+) (\x -> (x - m) * (x - m)) d in zip (\y z -> (y - m) / q + z) d c) A B`, true)
		// A let between that is a pair of scalars.
		check(`map (\a -> let e = map (\x -> x * 3) a in let p = (reduce max e, reduce min e) in map (\y -> y - fst p + snd p) e) A`, true)
		// The map reads the value shifted by one, element k - 1 at k:
		// in the destination, the map would have overwritten it.
		check(`map (\a -> let e = map exp a in let s = reduce (+) e in zip (\y z -> y / s + z) e (first 1 (window 0 2 (pad 0 1 0 e)))) A`, false)
		// The map's function reads the value whole.
		check(`map (\a -> let e = map exp a in map (\y -> y / reduce (+) e) e) A`, false)
		// A let between that is an array (it goes into the destination
		// itself, e staying in scratch).
		check(`map (\a -> let e = map exp a in let w = map (\x -> x * 2) e in zip (\y z -> y + z) e w) A`, false)
		// The map does not read the value.
		check(`map (\a -> let e = map exp a in let s = reduce (+) e in map (\y -> y / s) a) A`, false)
	}
}

// TestFillFold checks fillFold: a row filled by a map and then reduced
// whole (a softmax's sum, as sharedElemLet and destLet compile it; a
// maximum, a minimum, a product) is reduced chunk by chunk as the map
// fills it, with the bits of the plan that fills the row first and
// reduces it after (DisableFold), and the interpreter's values. The rows
// span three vector chunks, the last one partial, in float32 and float64,
// one goroutine and two (the rows split between them).
func TestFillFold(t *testing.T) {
	const note = "of the row the loop before fills, chunk by chunk"
	const rows, cols = 3, 2*native.VectorChunk + 907
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		A, err := graph.NewInput("A", graph.ArrayOf(dt, rows, cols), false)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(7, 8))
		av, err := graph.Zeros(dt, rows, cols)
		require.NoError(t, err)
		for i := range rows * cols {
			av.Set(r.NormFloat64(), i/cols, i%cols)
		}
		av.Set(math.Inf(-1), 0, 5)
		av.Set(9, 1, native.VectorChunk) // a row's maximum, first in its chunk
		in := map[string]graph.Value{"A": av}
		for _, src := range []string{
			// destLet's: the five operators of a softmax, fused.
			`map (\a -> let e = (let b = reduce max a in map (\x -> exp (x - b)) a) in let s = reduce (+) e in map (\y -> y / s) e) A`,
			// sharedElemLet's: layers.Softmax.
			`map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) A`,
			`map (\a -> let e = map (\x -> x * 3 + 1) a in let s = reduce max e in map (\y -> y - s) e) A`,
			`map (\a -> let e = map (\x -> x * 3 + 1) a in let s = reduce min e in map (\y -> y - s) e) A`,
			`map (\a -> let e = map (\x -> 1 + x / 4096) a in let s = reduce (*) e in map (\y -> y * s) e) A`,
		} {
			term, err := graph.ParseTerm(src, A)
			require.NoError(t, err)
			g, err := fusion.Whole(term)
			require.NoError(t, err)
			for _, par := range []int{1, 2} {
				run := func(t *testing.T, fold bool) []float64 {
					p, err := native.New(native.Options{Parallelism: par}).Plan(g)
					require.NoError(t, err)
					defer p.Close()
					if got := strings.Contains(p.Describe(), note); got != fold {
						t.Fatalf("%v %s, %d goroutines: folded as the row fills %v, want %v:\n%s", dt, src, par, got, fold, p.Describe())
					}
					out, err := p.Run(in)
					require.NoError(t, err)
					return append([]float64(nil), out.(*graph.Array).Values()...)
				}
				got := run(t, true)
				var want []float64
				t.Run(fmt.Sprintf("%v/par%d/nofold", dt, par), func(t *testing.T) {
					native.DisableFold(t)
					want = run(t, false)
				})
				require.Len(t, want, len(got))
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%v %s, %d goroutines: element %d = %v, want %v as with the row reduced after its fill", dt, src, par, i, got[i], want[i])
					}
				}
				lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, term, in, 0)
			}
		}
	}
}
