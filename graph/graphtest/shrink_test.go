package graphtest

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callsOp reports whether n applies op anywhere: as a call, an op
// reference or a section.
func callsOp(n graph.Node, op graph.Op) bool {
	for m := range graph.All(n) {
		switch m := m.(type) {
		case *graph.Call:
			if m.Op == op {
				return true
			}
		case *graph.OpRef:
			if m.Op == op {
				return true
			}
		case *graph.Section:
			if m.Op == op {
				return true
			}
		}
	}
	return false
}

// TestShrinkPlantedFailure plants a failure — a predicate true of every
// program that applies tanh — and checks that Shrink reduces programs of
// every generator that have one to a tiny program that still applies tanh,
// with tiny inputs.
func TestShrinkPlantedFailure(t *testing.T) {
	fails := func(c Case) bool { return callsOp(c.Term, graph.Tanh) }
	shrunk := 0
	for seed := uint64(0); seed < 200 && shrunk < 12; seed++ {
		r := Rand(seed)
		gen := Generators()[seed%uint64(len(Generators()))]
		n, ins := gen.Gen(r, Config{})
		c := Case{Term: n, Inputs: Inputs(r, ins)}
		if !fails(c) {
			continue
		}
		shrunk++
		got := Shrink(c, fails)
		require.True(t, fails(got), "seed %d: the shrunk case no longer fails", seed)
		_, err := graph.Check(got.Term)
		require.NoError(t, err)
		nodes, elems := size(got)
		before, beforeElems := size(c)
		// The smallest term that applies tanh is tanh of an input (two
		// nodes with a call, three with map tanh x), or a section in a map.
		assert.LessOrEqual(t, nodes, 4, "seed %d (%s): %d nodes -> %d:\n%v\nfrom\n%v", seed, gen.Name, before, nodes, got, c)
		assert.LessOrEqual(t, elems, 2, "seed %d (%s): %d input elements -> %d:\n%v", seed, gen.Name, beforeElems, elems, got)
		t.Logf("seed %d (%s): %d nodes, %d elements -> %s", seed, gen.Name, before, beforeElems, graph.Print(got.Term))
	}
	require.GreaterOrEqual(t, shrunk, 12, "too few programs with tanh to shrink")
}

// TestShrinkKeepsValues: a failure that depends on the value of a closed
// subterm survives replacing it by an input bound to its value.
func TestShrinkKeepsValues(t *testing.T) {
	prog, err := graph.Parse(`u : f64[6]; v : f64[6]; rnz (+) (*) (map (\x -> x * 2 + 1) u) v`)
	require.NoError(t, err)
	in := map[string]graph.Value{
		"u": must(graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 6)),
		"v": must(graph.FromFloat64([]float64{1, 0, 0, 0, 0, 0}, 6)),
	}
	// Fails when the result is 3: (1*2+1)*1, which only the first elements
	// decide.
	fails := func(c Case) bool {
		v, err := graph.Eval(c.Term, c.Inputs)
		sv, ok := v.(graph.ScalarValue)
		return err == nil && ok && sv.V == 3
	}
	c := Case{Term: prog.Body, Inputs: in}
	require.True(t, fails(c))
	got := Shrink(c, fails)
	require.True(t, fails(got))
	nodes, elems := size(got)
	assert.Less(t, nodes, 5, "%v", got)
	assert.LessOrEqual(t, elems, 2, "%v", got)
}

// TestShrinkNothingSmaller returns the case itself when no smaller case
// fails.
func TestShrinkNothingSmaller(t *testing.T) {
	prog, err := graph.Parse(`u : f64[1]; map tanh u`)
	require.NoError(t, err)
	c := Case{Term: prog.Body, Inputs: map[string]graph.Value{"u": must(graph.FromFloat64([]float64{0.5}, 1))}}
	got := Shrink(c, func(c Case) bool { return callsOp(c.Term, graph.Tanh) })
	assert.Equal(t, graph.Print(c.Term), graph.Print(got.Term))
}
