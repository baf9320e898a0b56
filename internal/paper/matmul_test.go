package paper

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// Both tables' orders, as the search enumerates them, are the paper's.
func TestPaperTables(t *testing.T) {
	assert.Len(t, Table1, 6)
	assert.Len(t, Table2, 12)
	assert.Equal(t, 4.67, Table1[NaiveOrder])
}
