package stablehlo_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// Issue 8, items 3 and 4: programs that fusion once turned into kernels
// this lowering rejects. Each lowers fused and unfused, as one module and
// kernel by kernel.
func TestFusedProgramsLower(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		// Product merged the components of the tuple operator into one
		// nzip returning a tuple, which reduce cannot take as its body.
		{"tuple-reducer", `x : f64[5,3]; y : f64[5,3];
			rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\a b -> (a, b)) x y`},
		// The literal became a kernel of its own, typed f64 in an f32
		// program.
		{"literal-in-f32", `s : f32; x : f32[4]; map (\v -> v < (\y -> 1.5) s) x`},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, err := graph.Parse(c.src)
			require.NoError(t, err)
			res, err := fusion.Fuse(prog.Body, fusion.Options{})
			require.NoError(t, err)
			un, err := fusion.Unfused(prog.Body)
			require.NoError(t, err)
			for _, g := range []*fusion.Graph{res.Graph, un} {
				_, err := stablehlo.LowerGraph(g)
				require.NoError(t, err, "graph:\n%s", g)
				for _, k := range g.Kernels {
					_, err := stablehlo.LowerKernel(k)
					require.NoError(t, err, "kernel %s = %s", k.Name, graph.Print(k.Body))
				}
			}
		})
	}
}

// Fusion never turns a program this lowering takes into one it rejects: on
// random programs of every graphtest generator, whenever the unfused graph
// lowers, the fused one does too.
func TestFusionKeepsProgramsLowerable(t *testing.T) {
	perGen := 60
	if testing.Short() {
		perGen = 10
	}
	lowered := 0
	for _, ng := range graphtest.Generators() {
		for i := range perGen {
			seed := uint64(i)
			dt := graph.Float64
			if seed%2 == 1 {
				dt = graph.Float32
			}
			term, _ := ng.Gen(graphtest.Rand(seed), graphtest.Config{DType: dt})
			un, err := fusion.Unfused(term)
			require.NoError(t, err, "%s seed %d", ng.Name, seed)
			if _, err := stablehlo.LowerGraph(un); err != nil {
				continue // a form this lowering does not take, fused or not
			}
			lowered++
			res, err := fusion.Fuse(term, fusion.Options{})
			require.NoError(t, err, "%s seed %d", ng.Name, seed)
			if _, err := stablehlo.LowerGraph(res.Graph); err != nil {
				t.Errorf("%s seed %d: the unfused graph lowers, the fused one does not: %v\nprogram: %s\nfused:   %s",
					ng.Name, seed, err, graph.Print(term), graph.Print(res.Term))
			}
		}
	}
	// Most programs lower: a lowering that rejected everything would make
	// this test pass vacuously.
	require.Greater(t, lowered, len(graphtest.Generators())*perGen/2)
}
