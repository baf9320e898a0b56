package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// refSoftmax is the softmax of every innermost row of length n of x,
// computed the textbook way with the row maximum subtracted.
func refSoftmax(x []float64, n int) []float64 {
	y := make([]float64, len(x))
	for i := 0; i < len(x); i += n {
		row := x[i : i+n]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - m)
		}
		for j, v := range row {
			y[i+j] = math.Exp(v-m) / sum
		}
	}
	return y
}

func TestSoftmax(t *testing.T) {
	shapes := [][]int{{3, 5}, {4, 7}, {1, 1}, {6}, {2, 3, 4}}
	for _, dt := range dtypes {
		for si, shape := range shapes {
			t.Run(fmt.Sprintf("%v/%v", dt, shape), func(t *testing.T) {
				n := 1
				for _, e := range shape {
					n *= e
				}
				// Large values: without the max subtracted, exp would
				// overflow even float64.
				lo, hi := -5.0, 5.0
				if si == 1 {
					lo, hi = 700, 900
				}
				xv := uniform(rng(uint64(si)), dt, n, lo, hi)
				x := input(t, dt, shape...)
				y, err := layers.Softmax("softmax1", x)
				if err != nil {
					t.Fatal(err)
				}
				assertSources(t, y, "softmax1")
				got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, shape...)}, dt, shape...)
				assertClose(t, dt, got, refSoftmax(xv, shape[len(shape)-1]))
			})
		}
	}
}

func TestSoftmaxTerm(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	y, err := layers.Activate("softmax1", x, layers.ActSoftmax)
	if err != nil {
		t.Fatal(err)
	}
	want := `map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x`
	if got := graph.Print(y); got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
}
