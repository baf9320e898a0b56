package paper

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRanks(t *testing.T) {
	r, err := Ranks([]float64{30, 10, 20, 20, 5, 20})
	require.NoError(t, err)
	// Sorted: 5 10 20 20 20 30; the three 20s share ranks 3, 4, 5.
	assert.Equal(t, []float64{6, 2, 4, 4, 1, 4}, r)
	_, err = Ranks([]float64{1, math.NaN()})
	assert.EqualError(t, err, "spearman: element 1 is NaN")
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Without ties, ρ = 1 - 6Σd²/(n(n²-1)). Ranks of y: [2 1 4 3 5],
		// d = [-1 1 -1 1 0], Σd² = 4: ρ = 1 - 24/120 = 0.8.
		{"no ties", []float64{1, 2, 3, 4, 5}, []float64{20, 10, 40, 30, 50}, 0.8},
		// Ranks of y with the 7s tied: [1 2 3.5 5 3.5]. Deviations from
		// the mean rank 3: x [-2 -1 0 1 2], y [-2 -1 0.5 2 0.5];
		// Σdxdy = 8, Σdx² = 10, Σdy² = 9.5: ρ = 8/√95.
		{"ties", []float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 8 / math.Sqrt(95)},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 10, 100, 1000}, 1},
		{"reversed", []float64{0.45, 1.41, 4.67}, []float64{3, 2, 1}, -1},
	}
	for _, tc := range tests {
		got, err := Spearman(tc.x, tc.y)
		require.NoError(t, err, tc.name)
		assert.InDelta(t, tc.want, got, 1e-12, tc.name)
	}
}

func TestSpearmanErrors(t *testing.T) {
	_, err := Spearman([]float64{1, 2}, []float64{1})
	assert.EqualError(t, err, "spearman: 2 values against 1")
	_, err = Spearman([]float64{1}, []float64{1})
	assert.EqualError(t, err, "spearman: 1 values, need at least 2")
	_, err = Spearman([]float64{1, 2, 3}, []float64{4, 4, 4})
	assert.EqualError(t, err, "spearman: a constant sample has no rank correlation")
}
