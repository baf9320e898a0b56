package native_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSumSqDev checks the variance pass of a row program, the sum of
// (x - m)·(x - m) with m the row's mean, against graph.Eval: in float32
// it runs as one pass of kernels.SumSqDevF32, for rows shorter than the
// assembly's block, around it, and longer than a chunk (whose partial
// sums are added); in float64, and for sums of other chains, it keeps
// the chain and the sum.
func TestSumSqDev(t *testing.T) {
	const mean = `let m = reduce (+) r / %[2]d.0 in `
	for _, c := range []struct {
		body string
		dts  []string
		one  bool // runs as one pass (float32)
	}{
		{`reduce (+) (map (\v -> (v - m) * (v - m)) r)`, []string{"f32"}, true},
		{`reduce (+) (map (\v -> (v - m) * (v - m)) r)`, []string{"f64"}, false},
		{`reduce (+) (map (\v -> (m - v) * (m - v)) r)`, []string{"f32"}, false},
		{`reduce (+) (map (\v -> (v - m) * (v + m)) r)`, []string{"f32"}, false},
		{`reduce max (map (\v -> (v - m) * (v - m)) r)`, []string{"f32"}, false},
	} {
		for _, dt := range c.dts {
			for _, n := range []int{5, 31, 32, 100, 4100} {
				for _, par := range []int{1, 0} {
					src := fmt.Sprintf(`X : %[1]s[3, %[2]d]; map (\r -> `+mean+c.body+`) X`, dt, n)
					t.Run(fmt.Sprintf("%s/%s/n%d/par%d", c.body, dt, n, par), func(t *testing.T) {
						d := wholeAgainstEval(t, src, par, func(i, k int) float64 { return 3 + math.Sin(float64(7*i+3*k+1)) })
						if got := strings.Contains(d, "SumSqDevF32"); got != c.one {
							t.Errorf("one pass %v, want %v:\n%s", got, c.one, d)
						}
					})
				}
			}
		}
	}
}
