package autodiff

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// stopgrad is a constant to differentiation: L = Σ_ij x_ij · stopgrad
// x_0j (the first row read through the first view) has dL/dx_ij = x_0j,
// by hand, where without stopgrad row 0 would get Σ_i x_ij more; and the
// first view, which has no inverse, is never differentiated through.
func TestGradStopGrad(t *testing.T) {
	p := parse(t, `x : f64[3,2]; rnz (+) (\r -> rnz (+) (\v k -> v * stopgrad k) r (first 0 x)) x`)
	x := []float64{1, 2, 3, 4, 5, 6}
	loss, g := gradOf(t, p, map[string]graph.Value{"x": arr(t, x, 3, 2)}, "x")
	if want := 1.0*1 + 2*2 + 3*1 + 4*2 + 5*1 + 6*2; loss != want {
		t.Errorf("loss %v, want %v", loss, want)
	}
	checkVec(t, "dL/dx", g[0], []float64{1, 2, 1, 2, 1, 2}, 0)

	// d stopgrad(x)² / dx = 0, and stopgrad x alone gives a zero gradient.
	p = parse(t, `x : f64[3]; rnz (+) (\v -> v + stopgrad (v * v)) x`)
	_, g = gradOf(t, p, map[string]graph.Value{"x": arr(t, []float64{1, 2, 3}, 3)}, "x")
	checkVec(t, "dL/dx", g[0], []float64{1, 1, 1}, 0)
}

// Differentiating through the first view is refused, naming it: its
// cotangent would be a scatter into row 0.
func TestGradErrorFirstView(t *testing.T) {
	err := gradErr(t, `x : f64[3,2]; rnz (+) id (first 0 x)`, "x")
	want := "autodiff: first 0 x: the view first 0 has no inverse, so its gradient (a scatter-add) is not supported"
	if err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
