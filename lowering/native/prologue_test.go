package native

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/lowertest"
)

// TestRowPrologue checks rowPrologue: a scaler fused into a dense layer's
// contraction (each column recomputing the row's (y − o)·s) is moved out
// of the columns' loop, so that the layer runs on the GEMM kernel, with
// the interpreter's results; contractions where the row's part is not
// the same for every column, or where the row is read elsewhere, are
// left alone.
func TestRowPrologue(t *testing.T) {
	X := mustInput(t, "X", graph.ArrayOf(graph.Float32, 7, 20))
	W := mustInput(t, "W", graph.ArrayOf(graph.Float32, 20, 9))
	o := mustInput(t, "o", graph.ArrayOf(graph.Float32, 20))
	s := mustInput(t, "s", graph.ArrayOf(graph.Float32, 20))
	b := mustInput(t, "b", graph.ArrayOf(graph.Float32, 9))
	ins := []*graph.Input{X, W, o, s, b}
	for _, c := range []struct {
		src      string
		rewrites bool
	}{
		{`map (\a -> zip (\c x -> max (rnz (+) (\y p q w -> (y - p) * q * w) a o s c + x) 0) (flip 0 W) b) X`, true},
		{`map (\a -> map (\c -> rnz (+) (\w y q -> w * (y * q)) c a s) (flip 0 W)) X`, true},
		// The column's element inside the prologue: no row part.
		{`map (\a -> map (\c -> rnz (+) (\y w -> (y - w) * w) a c) (flip 0 W)) X`, false},
		// The row read outside the contraction too.
		{`map (\a -> map (\c -> rnz (+) (\y q w -> y * q * w) a s c + reduce (+) a) (flip 0 W)) X`, false},
		// A plain dot (of a computed column): nothing to move.
		{`map (\a -> map (\c -> rnz (+) (\y w -> y * w) a (map (\v -> v * 2) c)) (flip 0 W)) X`, false},
	} {
		term, err := graph.ParseTerm(c.src, ins...)
		require.NoError(t, err)
		out, changed, err := rowPrologue(term)
		require.NoError(t, err)
		require.Equal(t, c.rewrites, changed, "%s\n-> %s", c.src, graph.Print(out))
		_, err = graph.Check(out)
		require.NoError(t, err, graph.Print(out))
		g, err := fusion.Whole(term)
		require.NoError(t, err)
		p, err := New(Options{}).Plan(g)
		require.NoError(t, err)
		if c.rewrites {
			require.True(t, strings.Contains(p.Describe(), "gemm"), "%s: no GEMM:\n%s", c.src, p.Describe())
		}
		p.Close()
		in := graphtest.Inputs(graphtest.Rand(11), g.Inputs)
		lowertest.Check(t, New(Options{}), g, term, in, 0)
	}
}

func mustInput(t *testing.T, name string, ty graph.Type) *graph.Input {
	t.Helper()
	in, err := graph.NewInput(name, ty, false)
	require.NoError(t, err)
	return in
}
