package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// evalBoth evaluates term and g on the same random inputs and checks that
// they agree within tol.
func evalBoth(t *testing.T, prog *graph.Program, g *Graph, tol float64) {
	t.Helper()
	in := graphtest.Inputs(rand.New(rand.NewPCG(3, 4)), prog.Inputs)
	want, err := graph.Eval(prog.Body, in)
	require.NoError(t, err)
	got, err := g.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, tol)
}

// Issue 8, item 3: product fused the two components of a tuple reduction
// operator into one nzip returning a tuple, an operator StableHLO's reduce
// cannot take. Only beta, inline-let and eta run inside a reducer: the
// operator comes out as it went in. (lowering/stablehlo's
// TestFusedProgramsLower lowers the result.)
func TestFuseLeavesReducerAlone(t *testing.T) {
	prog, err := graph.Parse(`x : f64[5,3]; y : f64[5,3];
		rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`)
	require.NoError(t, err)
	res, err := Fuse(prog.Body, Options{})
	require.NoError(t, err)
	assert.Equal(t, `rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`, graph.Print(res.Term))
	assert.NotContains(t, appliedRules(res.Report), "product")
	evalBoth(t, prog, res.Graph, 0)

	// Outside a reducer, the same tuple of zips is fused.
	prog, err = graph.Parse(`x : f64[5,3]; y : f64[5,3]; (zip (zip (+)) x y, zip (zip (*)) x y)`)
	require.NoError(t, err)
	res, err = Fuse(prog.Body, Options{})
	require.NoError(t, err)
	assert.Equal(t, `zip (zip (\x0 x1 -> (x0 + x1, x0 * x1))) x y`, graph.Print(res.Term))
	evalBoth(t, prog, res.Graph, 0)
	assert.Contains(t, appliedRules(res.Report), "product")
}

// appliedRules lists the names of the rules a report says were applied.
func appliedRules(r *Report) []string {
	var out []string
	for _, a := range r.RulesApplied {
		out = append(out, a.Rule)
	}
	return out
}

// Issue 8, item 4: (\y -> 1.5) s reads an input, so partitioning cut it
// into a kernel of its own, typed f64 by default, inside an f32 program:
// "operand types f32 and f64 differ". A literal's value stays in the
// kernel that uses it, where its context types it.
func TestPartitionKeepsLiteralInItsUser(t *testing.T) {
	prog, err := graph.Parse(`s : f32; x : f32[4]; map (\v -> v < (\y -> 1.5) s) x`)
	require.NoError(t, err)
	un, err := Unfused(prog.Body)
	require.NoError(t, err)
	require.Len(t, un.Kernels, 1)
	assert.Equal(t, `map (\v -> v < (\y -> 1.5) s) x`, graph.Print(un.Kernels[0].Body))
	evalBoth(t, prog, un, 0)

	res, err := Fuse(prog.Body, Options{})
	require.NoError(t, err)
	assert.Equal(t, `map (\v -> v < 1.5) x`, graph.Print(res.Term))
	evalBoth(t, prog, res.Graph, 0)

	// By hand: x = [1, 2, -3, 1.5] gives [1, 0, 1, 0].
	x, err := graph.FromFloat32([]float32{1, 2, -3, 1.5}, 4)
	require.NoError(t, err)
	in := map[string]graph.Value{"s": graph.ScalarValue{DType: graph.Float32, V: 7}, "x": x}
	for _, g := range []*Graph{un, res.Graph} {
		got, err := g.Eval(in)
		require.NoError(t, err)
		assert.Equal(t, []float64{1, 0, 1, 0}, got.(*graph.Array).Values())
	}
}
