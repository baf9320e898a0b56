package native_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestAliasedOutputs checks that a kernel's output tuple takes earlier
// kernels' outputs as its elements instead of copying them, but a program
// input, and an output asked for twice after its first time, are copied:
// the results equal the interpreter's on two runs, and no two result
// arrays, nor a result and an input, share memory.
func TestAliasedOutputs(t *testing.T) {
	X, err := graph.NewInput("X", graph.ArrayOf(graph.Float32, 4, 6), false)
	require.NoError(t, err)
	term, err := graph.ParseTerm(`let a = map (map (\v -> v * 2.0)) X in (map (reduce (+)) a, a, a, X)`, X)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct {
		mode    string
		aliased string
	}{{"fused", "3 of its elements"}, {"unfused", "1 of its elements"}} {
		var g *fusion.Graph
		if c.mode == "fused" {
			res, err := fusion.Fuse(term, fusion.Options{})
			require.NoError(t, err)
			g = res.Graph
		} else {
			g, err = fusion.Unfused(term)
			require.NoError(t, err)
		}
		p, err := native.New(native.Options{}).Plan(g)
		require.NoError(t, err)
		require.Contains(t, p.Describe(), c.aliased+" are earlier kernels' outputs, not copied", c.mode)
		for run := range 2 {
			xv, err := graph.RandomArray(r, graph.Float32, 4, 6)
			require.NoError(t, err)
			in := map[string]graph.Value{"X": xv}
			lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
			out, err := p.Run(in)
			require.NoError(t, err)
			tv := out.(graph.TupleValue)
			arrays := []*graph.Array{tv[1].(*graph.Array), tv[2].(*graph.Array), tv[3].(*graph.Array), xv}
			for i, a := range arrays {
				for j, b := range arrays[:i] {
					require.NotSame(t, &a.Float32s()[0], &b.Float32s()[0], "%s run %d: arrays %d and %d share memory", c.mode, run, j, i)
				}
			}
			for i := range 4 {
				for j := range 6 {
					require.Equal(t, float32(2*xv.At(i, j)), float32(tv[1].(*graph.Array).At(i, j)))
					require.Equal(t, float32(2*xv.At(i, j)), float32(tv[2].(*graph.Array).At(i, j)))
					require.Equal(t, xv.At(i, j), tv[3].(*graph.Array).At(i, j))
				}
			}
		}
		require.NoError(t, p.Close())
	}
}
