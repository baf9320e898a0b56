package paper

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// The check of each order's result against the naive order's fails loudly
// on a wrong element and passes rounding differences.
func TestCheckResult(t *testing.T) {
	x := &experiment{cfg: MatmulConfig{Size: 2}, rep: &MatmulReport{}}
	want, err := graph.FromFloat64([]float64{1, -4, 2, 3}, 2, 2)
	require.NoError(t, err)
	d, err := x.check(want)
	require.NoError(t, err)
	assert.Zero(t, d)

	close, err := graph.FromFloat64([]float64{1, -4 + 1e-15, 2, 3}, 2, 2)
	require.NoError(t, err)
	d, err = x.check(close)
	require.NoError(t, err)
	assert.InDelta(t, 1e-15, d, 2e-16)

	wrong, err := graph.FromFloat64([]float64{1, -4, 2.5, 3}, 2, 2)
	require.NoError(t, err)
	_, err = x.check(wrong)
	assert.EqualError(t, err, "result differs from mapA mapB rnz's: C[1,0] = 2.5, want 2 (|diff| 0.5, 0.125 of the largest element, above the 1e-09 allowed)")

	// A flipped view is compared by its elements, not its buffer.
	flipped, err := graph.FromFloat64([]float64{1, 2, -4, 3}, 2, 2)
	require.NoError(t, err)
	flipped, err = flipped.Flip(0, 1)
	require.NoError(t, err)
	_, err = x.check(flipped)
	assert.NoError(t, err)

	_, err = x.check(graph.ScalarValue{DType: graph.Float64, V: 1})
	assert.EqualError(t, err, "result is graph.ScalarValue, not an array")
}

func TestMatmulConfigCheck(t *testing.T) {
	assert.NoError(t, DefaultMatmulConfig().Check())
	c := DefaultMatmulConfig()
	c.Block = 24
	assert.EqualError(t, c.Check(), "block 24 does not divide size 1024")
	_, err := Matmul(c)
	assert.EqualError(t, err, "block 24 does not divide size 1024")
}

// Both tables' orders, as the search enumerates them, are the paper's: the
// keys of Table1 are the six orders of the naive product, those of Table2
// the twelve with the reduction subdivided, and the search starts from
// NaiveOrder. (Matmul fails on any order a table lacks; this checks it on
// a small product without timing anything.)
func TestPaperTables(t *testing.T) {
	prog, err := MatmulTerm(8)
	require.NoError(t, err)
	one, err := fusion.Search(prog.Body, fusion.SearchOptions{})
	require.NoError(t, err)
	two, err := fusion.Search(prog.Body, fusion.SearchOptions{Subdivide: []fusion.Subdivision{{Level: 2, Block: 4}}})
	require.NoError(t, err)
	orders := func(scheds []*fusion.Schedule) []string {
		var out []string
		for _, s := range scheds {
			require.NoError(t, s.Err, s.Key())
			out = append(out, s.Key())
		}
		return out
	}
	assert.ElementsMatch(t, orders(one), slices.Collect(maps.Keys(Table1)))
	assert.ElementsMatch(t, orders(two), slices.Collect(maps.Keys(Table2)))
	assert.Equal(t, NaiveOrder, one[0].Key())
	assert.Equal(t, 4.67, Table1[NaiveOrder])
}
