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
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// TestGELUPass checks fuseGELU: GELU's products after its erf, in the
// orders layers.GELU and TensorFlow (0.5 · x first) and PyTorch's exporter
// (x · e first, or e · x) write them, with and without a residual add
// after them, run in the erf's pass (kernels.ErfGELUAheadF32) where that
// is one pass, with the bits of the plan that runs them as a chain after
// the erf (DisableGELU) and the interpreter's values. Products in another
// order, and an erf that is read twice, keep the chain.
func TestGELUPass(t *testing.T) {
	const note = "GELU's products in the erf's pass"
	r := rand.New(rand.NewPCG(17, 18))
	const rows, cols = 3, 1030
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, rows, cols), false)
	require.NoError(t, err)
	B, err := graph.NewInput("B", graph.ArrayOf(graph.Float32, rows, cols), false)
	require.NoError(t, err)
	av, err := graph.RandomArray(r, graph.Float32, rows, cols)
	require.NoError(t, err)
	for i := range cols {
		av.Set(av.At(0, i)*4, 0, i) // erf's argument past 4, where it rounds to ±1
	}
	av.Set(math.Copysign(0, -1), 1, 3)
	av.Set(math.Inf(-1), 1, 4)
	av.Set(math.NaN(), 2, 1029)
	bv, err := graph.RandomArray(r, graph.Float32, rows, cols)
	require.NoError(t, err)
	in := map[string]graph.Value{"A": av, "B": bv}
	zip := func(body string) string { return `zip (\r b -> zip (\v w -> ` + body + `) r b) A B` }
	for _, c := range []struct {
		body  string
		fuses bool
	}{
		{`f32 0.5 * v * (erf (v * f32 0.70710677) + 1)`, true},
		{`f32 0.5 * v * (erf (v * f32 0.70710677) + 1) + w`, true},
		{`w + f32 0.5 * v * (erf (v * f32 0.70710677) + 1)`, true},
		{`v * (erf (v / f32 1.4142135) + 1) * f32 0.5`, true},
		{`v * (erf (v / f32 1.4142135) + 1) * f32 0.5 + w`, true},
		{`(erf (v / f32 1.4142135) + 1) * v * f32 0.5 + w`, true},
		// A factor other than 0.5 (a power of two, which the two orders
		// round alike but for subnormals), in either order.
		{`f32 1.7 * v * (erf (v * f32 0.3) + f32 0.25) + w`, true},
		{`v * (erf (v / f32 2.5) + f32 0.75) * f32 1.7`, true},
		{`v * f32 1.5 * (erf (v * f32 0.3) + f32 0.25) - w`, false},            // a difference after the products
		{`(erf (v / f32 1.4142135) + 1) * f32 0.5 * v`, false},                 // (e · K) · x
		{`let e = erf (v * f32 0.70710677) + 1 in v * e * f32 0.5 + e`, false}, // e read twice
	} {
		src := zip(c.body)
		term, err := graph.ParseTerm(src, A, B)
		require.NoError(t, err)
		g, err := fusion.Whole(term)
		require.NoError(t, err)
		run := func(t *testing.T, fused bool) []float64 {
			p, err := native.New(native.Options{}).Plan(g)
			require.NoError(t, err)
			defer p.Close()
			d := p.Describe()
			require.Contains(t, d, "erf (x", "%s:\n%s", c.body, d)
			require.Equal(t, fused, strings.Contains(d, note), "%s:\n%s", c.body, d)
			out, err := p.Run(in)
			require.NoError(t, err)
			return append([]float64(nil), out.(*graph.Array).Values()...)
		}
		got := run(t, c.fuses && kernels.GELUOnePass())
		var want []float64
		t.Run("chain", func(t *testing.T) {
			native.DisableGELU(t)
			want = run(t, false)
		})
		require.Len(t, want, len(got))
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: element %d = %v, want %v as with the products in a chain", c.body, i, got[i], want[i])
			}
		}
		lowertest.Check(t, native.New(native.Options{}), g, term, in, graph.Tolerance(graph.Float32))
	}
}
