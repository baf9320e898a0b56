package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestRowsFold: a nest of zips that folds strided rows with one op — a
// max pooling's window, a min pooling's, a sum folded left to right —
// runs in one pass over the rows (kernels.FoldRows), and equals the
// interpreter, f32 and f64, fused and unfused, sequential and parallel,
// with and without NaN, ±Inf and -0 among the inputs, and with the fold
// declined (the chunks a machine without AVX-512 runs): rows of whole
// vectors, of a masked last vector (20 and 24 channels), 2×2 and 3×3
// windows, overlapping windows. A sum in another order, or a fold with
// another op in it, keeps the chunks.
func TestRowsFold(t *testing.T) {
	const folded = "folded in one pass over the rows"
	cases := []struct {
		name, src string
		fold      bool
	}{
		{"max-pool", `x : T[3,8,8,32]; map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) (flip 1 (window 0 2 2 (window 1 2 2 img)))) x`, true},
		{"max-pool-3x3-masked", `x : T[2,9,9,20]; map (\img -> map (map (\p -> rnz (zip max) (\r -> reduce (zip max) r) p)) (flip 1 (window 0 3 2 (window 1 3 2 img)))) x`, true},
		{"min-pool-overlapping", `x : T[2,7,7,24]; map (\img -> map (map (\p -> rnz (zip min) (\r -> reduce (zip min) r) p)) (flip 1 (window 0 2 1 (window 1 3 1 img)))) x`, true},
		{"sum-left-to-right", `X : T[4,6,16]; Y : T[6,4,16]; Z : T[4,6,16]; nzip (nzip (nzip (\a b c -> (a + b) + c))) X (flip 0 Y) Z`, true},
		{"sum-of-pairs", `X : T[4,6,16]; Y : T[6,4,16]; Z : T[4,6,16]; W : T[6,4,16]; nzip (nzip (nzip (\a b c d -> (a + b) + (c + d)))) X (flip 0 Y) Z (flip 0 W)`, false},
		{"max-less-one", `X : T[4,6,16]; Y : T[6,4,16]; zip (zip (zip (\a b -> max a b - a))) X (flip 0 Y)`, false},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) {
				prog, err := graph.Parse(strings.ReplaceAll(tc.src, "T[", dt.String()+"["))
				if err != nil {
					t.Fatal(err)
				}
				for _, special := range []float64{0, 0.25} {
					in, err := lowertest.Inputs(prog.Body, 7, special, lowertest.Dense)
					if err != nil {
						t.Fatal(err)
					}
					for _, g := range lowertest.FusedAndUnfused(t, prog.Body) {
						for _, par := range []int{1, 0} {
							d := checkedDescribe(t, par, g, prog.Body, in)
							if strings.Contains(d, folded) != tc.fold {
								t.Errorf("parallelism %d: folded %v, want %v:\n%s", par, !tc.fold, tc.fold, d)
							}
						}
					}
					t.Run("chunks", func(t *testing.T) {
						native.DisableRowsFold(t)
						for _, g := range lowertest.FusedAndUnfused(t, prog.Body) {
							lowertest.Check(t, native.New(native.Options{}), g, prog.Body, in, 0)
						}
					})
				}
			})
		}
	}
}
