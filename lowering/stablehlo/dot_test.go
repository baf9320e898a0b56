package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// A sum of products in every batch position (Σ_b x_bf·y_bf for each f, as
// in BatchNorm's backward pass) lowers to a product and a reduce, not to a
// dot_general with batch dimensions and no free ones; a matrix product
// and a plain dot product stay dot_general.
func TestBatchedDotProductIsReduce(t *testing.T) {
	for _, c := range []struct {
		src string
		dot bool
	}{
		{`x : f32[6,3]; y : f32[6,3]; rnz (zip (+)) (zip (*)) x y`, false},
		{`x : f32[3,6]; y : f32[3,6]; nzip (\a b -> rnz (+) (*) a b) x y`, false},
		{`A : f32[2,3]; u : f32[3]; map (\r -> rnz (+) (*) r u) A`, true},
		{`u : f32[3]; v : f32[3]; rnz (+) (*) u v`, true},
	} {
		prog, err := graph.Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := fusion.Whole(prog.Body)
		if err != nil {
			t.Fatal(err)
		}
		low, err := stablehlo.LowerGraph(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(low.Text, "stablehlo.dot_general"); got != c.dot {
			t.Errorf("%s: dot_general %v, want %v:\n%s", c.src, got, c.dot, low.Text)
		}
	}
}
