package paper

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Spearman returns Spearman's rank correlation of x and y: Pearson's
// correlation (gonum's stat.Correlation, which has no rank version) of their
// ranks, tied values sharing the average of the ranks they span. It is an
// error when x and y differ in length, have fewer than two elements, hold a
// NaN, or when either is constant (its ranks have no variance, and the
// correlation is undefined).
func Spearman(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("spearman: %d values against %d", len(x), len(y))
	}
	if len(x) < 2 {
		return 0, fmt.Errorf("spearman: %d values, need at least 2", len(x))
	}
	rx, err := Ranks(x)
	if err != nil {
		return 0, err
	}
	ry, err := Ranks(y)
	if err != nil {
		return 0, err
	}
	if constant(rx) || constant(ry) {
		return 0, fmt.Errorf("spearman: a constant sample has no rank correlation")
	}
	// Pearson on ranks can come out a rounding error beyond ±1.
	return max(-1, min(1, stat.Correlation(rx, ry, nil))), nil
}

// Ranks returns the rank of each element of x, 1 for the smallest; tied
// elements get the average of the ranks they occupy ([10 20 20 30] ranks
// [1 2.5 2.5 4]). A NaN has no rank and is an error.
func Ranks(x []float64) ([]float64, error) {
	idx := make([]int, len(x))
	for i, v := range x {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("spearman: element %d is NaN", i)
		}
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		// Positions i..j-1 hold equal values: ranks i+1..j, average (i+1+j)/2.
		avg := float64(i+1+j) / 2
		for _, k := range idx[i:j] {
			ranks[k] = avg
		}
		i = j
	}
	return ranks, nil
}

func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}
