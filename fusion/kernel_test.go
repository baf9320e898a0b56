package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// denseRelu builds relu (x W) with its two layers named, sharing nothing.
func denseRelu(t *testing.T) (graph.Node, map[string]graph.Value) {
	t.Helper()
	x := must(graph.NewInput("x", graph.ArrayOf(graph.Float64, 3, 4), false))
	W := must(graph.NewInput("W", graph.ArrayOf(graph.Float64, 4, 5), true))
	r, c, v, row := graph.NewVar("r"), graph.NewVar("c"), graph.NewVar("v"), graph.NewVar("row")
	add, mul := must(graph.NewOpRef(graph.Add)), must(graph.NewOpRef(graph.Mul))
	dot := must(graph.NewRNZ(add, mul, r, c))
	cols := must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{c}, dot)), must(graph.NewFlip(0, 1, W))))
	dense := graph.WithSource(must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{r}, cols)), x)), "dense1")
	relu := must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{row},
		must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{v}, must(graph.NewCall(graph.Max, v, graph.NewConst(0))))), row)))), dense))
	term := graph.WithSource(relu, "relu1")
	rng := rand.New(rand.NewPCG(1, 2))
	return term, map[string]graph.Value{
		"x": must(graph.RandomArray(rng, graph.Float64, 3, 4)),
		"W": must(graph.RandomArray(rng, graph.Float64, 4, 5)),
	}
}

func TestUnfusedSplitsAtLayers(t *testing.T) {
	term, in := denseRelu(t)
	g, err := Unfused(term)
	require.NoError(t, err)
	require.Len(t, g.Kernels, 2)
	assert.Equal(t, "k1_dense1", g.Kernels[0].Name)
	assert.Equal(t, "k2_relu1", g.Kernels[1].Name)
	assert.Equal(t, []string{"dense1"}, g.Kernels[0].Sources)
	assert.Equal(t, "t1_dense1 : f64[3,5] = map (\\r -> map (\\c -> rnz (+) (*) r c) (flip 0 W)) x\n"+
		"t2_relu1 : f64[3,5] = map (\\row -> map (\\v -> max v 0) row) t1_dense1\n", g.String())
	assert.Equal(t, 3*5*8, g.TemporaryBytes())
	want := must(graph.Eval(term, in))
	got := must(g.Eval(in))
	assert.Equal(t, want, got)
}

func TestWholeIsOneKernel(t *testing.T) {
	term, in := denseRelu(t)
	g, err := Whole(term)
	require.NoError(t, err)
	require.Len(t, g.Kernels, 1)
	assert.Equal(t, []string{"dense1", "relu1"}, g.Kernels[0].Sources)
	assert.Empty(t, g.Temporaries())
	assert.Equal(t, must(graph.Eval(term, in)), must(g.Eval(in)))
}

func TestUnfusedMaterialisesSharedTerms(t *testing.T) {
	u := must(graph.NewInput("u", graph.ArrayOf(graph.Float64, 3), false))
	sum := must(graph.NewReduce(must(graph.NewOpRef(graph.Add)), u))
	e := graph.NewVar("e")
	// map (\e -> e / s) u, with s = reduce (+) u computed once.
	norm := must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{e}, must(graph.NewCall(graph.Div, e, sum)))), u))
	both := must(graph.NewTuple(norm, sum))
	g, err := Unfused(both)
	require.NoError(t, err)
	// The sum is used twice and materialised once; the map has no source of
	// its own and stays in the root's kernel.
	require.Len(t, g.Kernels, 2)
	assert.Equal(t, "reduce (+) u", graph.Print(g.Kernels[0].Body))
	assert.Equal(t, "(map (\\e -> e / t1_kernel) u, t1_kernel)", graph.Print(g.Kernels[1].Body))
	in := map[string]graph.Value{"u": must(graph.FromFloat64([]float64{1, 2, 5}, 3))}
	assert.Equal(t, must(graph.Eval(both, in)), must(g.Eval(in)))
}
