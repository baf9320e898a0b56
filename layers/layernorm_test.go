package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// refLayerNorm normalises every row of x with its own mean and biased
// variance, then scales and shifts feature by feature.
func refLayerNorm(x, scale, shift []float64, batch, f int, eps float64) []float64 {
	y := make([]float64, batch*f)
	for i := range batch {
		row := x[i*f : (i+1)*f]
		mean := 0.0
		for _, v := range row {
			mean += v
		}
		mean /= float64(f)
		variance := 0.0
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(f)
		for j, v := range row {
			y[i*f+j] = (v-mean)/math.Sqrt(variance+eps)*scale[j] + shift[j]
		}
	}
	return y
}

func TestLayerNorm(t *testing.T) {
	for _, dt := range dtypes {
		for si, sz := range normSizes {
			t.Run(fmt.Sprintf("%v/%dx%d", dt, sz.batch, sz.f), func(t *testing.T) {
				c := newBNCase(uint64(si), dt, sz.batch, sz.f)
				x := input(t, dt, sz.batch, sz.f)
				y, p, err := layers.LayerNorm("ln1", x, sz.f, dt, layers.LayerNormOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if p.Scale.Name != "ln1.scale" || p.Shift.Name != "ln1.shift" || len(p.Params()) != 2 {
					t.Errorf("params %v", p.Params())
				}
				got := eval(t, y, c.bind(t, "ln1", "scale", "shift"), dt, sz.batch, sz.f)
				assertClose(t, dt, got, refLayerNorm(c.x, c.scale, c.shift, sz.batch, sz.f, 1e-5))
			})
		}
	}
}

func TestLayerNormTerm(t *testing.T) {
	x := input(t, graph.Float64, 3, 5)
	y, _, err := layers.LayerNorm("ln1", x, 5, graph.Float64, layers.LayerNormOptions{Eps: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	want := `map (\r -> let m = reduce (+) r / 5 in ` +
		`let k = rsqrt (rnz (+) (\v -> (v - m) * (v - m)) r / 5 + 0.001) in ` +
		`nzip (\v g b -> (v - m) * k * g + b) r ln1.scale ln1.shift) x`
	if got := graph.Print(y); got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	assertSources(t, y, "ln1")
}

func TestLayerNormErrors(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	tests := []struct {
		name     string
		features int
		dt       graph.DType
		opt      layers.LayerNormOptions
		want     string
	}{
		{"ln1", 6, graph.Float32, layers.LayerNormOptions{}, "ln1 (LayerNorm): x has type f32[3,5], want f32[batch,6]: axis 1 (features) has extent 5, not 6"},
		{"ln1", 5, graph.Bool, layers.LayerNormOptions{}, "ln1 (LayerNorm): element type bool is not f32 or f64"},
		{"ln1", 5, graph.Float32, layers.LayerNormOptions{Eps: -1e-5}, "ln1 (LayerNorm): eps = -1e-05, want a positive number (0 for the default 1e-05)"},
		{"", 5, graph.Float32, layers.LayerNormOptions{}, "LayerNorm: empty layer name"},
	}
	for _, tc := range tests {
		_, _, err := layers.LayerNorm(tc.name, x, tc.features, tc.dt, tc.opt)
		assertError(t, err, tc.want)
	}
}
