package native_test

import (
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
