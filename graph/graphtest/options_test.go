package graphtest

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecialInputs: Config.Special mixes NaN, ±Inf and -0 into float
// inputs at about the stated rate, each kind drawn; with Special 0 the
// values are exactly those of Inputs.
func TestSpecialInputs(t *testing.T) {
	a := must(graph.NewInput("A", graph.ArrayOf(graph.Float32, 40, 50), false))
	b := must(graph.NewInput("b", graph.ArrayOf(graph.Float64, 2000), false))
	s := must(graph.NewInput("s", graph.Scalar(graph.Float64), false))
	ins := []*graph.Input{a, b, s}

	plain := Inputs(Rand(3), ins)
	same := Config{}.Inputs(Rand(3), ins)
	for _, in := range ins {
		require.NoError(t, graph.Diff(plain[in.Name], same[in.Name], 0), in.Name)
	}

	in := Config{Special: 0.1}.Inputs(Rand(3), ins)
	counts := map[string]int{}
	total := 0
	for _, name := range []string{"A", "b"} {
		arr := in[name].(*graph.Array)
		require.Equal(t, plain[name].(*graph.Array).Extents(), arr.Extents())
		for _, x := range arr.Values() {
			total++
			switch {
			case math.IsNaN(x):
				counts["nan"]++
			case math.IsInf(x, 1):
				counts["+inf"]++
			case math.IsInf(x, -1):
				counts["-inf"]++
			case x == 0 && math.Signbit(x):
				counts["-0"]++
			default:
				assert.True(t, -1 <= x && x < 1, "%v out of [-1, 1)", x)
			}
		}
	}
	special := 0
	for _, k := range []string{"nan", "+inf", "-inf", "-0"} {
		assert.Greater(t, counts[k], 50, "%s drawn %d times in %d", k, counts[k], total)
		special += counts[k]
	}
	// 4000 elements at rate 0.1: 400 expected, sd 19.
	assert.InDelta(t, 400, special, 80, "%d special values in %d", special, total)
}

// mixedTupleArg reports whether a traversal in n reads a tuple of arrays
// of different ranks.
func mixedTupleArg(n graph.Node, info *graph.Info) bool {
	return anyNode(n, func(m graph.Node) bool {
		var args []graph.Node
		switch m := m.(type) {
		case *graph.NZip:
			args = m.Args
		case *graph.RNZ:
			args = m.Args
		}
		for _, a := range args {
			tt, ok := info.TypeOf(a).(*graph.TupleType)
			if ok && len(tt.Elems) == 2 && rankOf(tt.Elems[0]) != rankOf(tt.Elems[1]) {
				return true
			}
		}
		return false
	})
}

// TestMixedTuples: with Config.MixedTuples the generators make well-typed
// programs in which traversals read tuples of arrays of different ranks,
// often; without it, rarely.
func TestMixedTuples(t *testing.T) {
	count := func(cfg Config) int {
		k := 0
		for seed := range uint64(200) {
			r := Rand(seed)
			n, ins := Program(r, cfg)
			info, err := graph.Check(n)
			require.NoError(t, err, "seed %d: %s", seed, graph.Print(n))
			_, err = graph.Eval(n, cfg.Inputs(r, ins))
			require.NoError(t, err, "seed %d: %s", seed, graph.Print(n))
			if mixedTupleArg(n, info) {
				k++
			}
		}
		return k
	}
	with := count(Config{MixedTuples: 0.3})
	without := count(Config{})
	t.Logf("programs with a mixed-rank tuple argument: %d of 200 (MixedTuples 0.3), %d (0)", with, without)
	assert.Greater(t, with, 40)
	assert.Greater(t, with, 3*without)
	assert.Zero(t, count(Config{MixedTuples: 1, Disable: Tuples}))
}

// TestGeneratorsWithOptions: every generator makes well-typed programs
// that evaluate without error under the input options, in both element
// types.
func TestGeneratorsWithOptions(t *testing.T) {
	for _, gen := range Generators() {
		for seed := range uint64(100) {
			cfg := Config{DType: dtypes[seed%2], MixedTuples: 0.3, Special: 0.05}
			r := Rand(seed)
			n, ins := gen.Gen(r, cfg)
			_, err := graph.Check(n)
			require.NoError(t, err, "%s seed %d: %s", gen.Name, seed, graph.Print(n))
			_, err = graph.Eval(n, cfg.Inputs(r, ins))
			require.NoError(t, err, "%s seed %d: %s", gen.Name, seed, graph.Print(n))
		}
	}
}
