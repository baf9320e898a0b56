package native_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
)

// TestHoistInvariants checks normalisation's rule 9: a map over a row's
// channels, under a loop over rows, computes the scalars that depend on
// the per-channel vectors alone (a BatchNorm's reciprocal standard
// deviation, through lets) once per run, before the kernel; a scalar that
// reads the row stays in the loop; an outer map's element is no closed
// vector. The results equal the interpreter's bit for bit, with NaN, ±Inf
// and ±0 among the inputs, f32 and f64.
func TestHoistInvariants(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // in the plan
		lack      string
	}{
		{"batchnorm-gradient", `x : T[64,8]; s1 : T[8]; s2 : T[8]; g : T[8];
map (\r -> nzip (\v a b c -> let m = a / 64 in let var = b / 64 - m * m + 1e-05 in c * (v - m) * rsqrt var / var) r s1 s2 g) x`,
			[]string{"hoisted", "rsqrt (b / 64 - a / 64 * (a / 64) + 1e-05)", "flat map [64]"}, ""},
		{"reads-the-row", `x : T[64,8]; s : T[8]; map (\r -> zip (\v a -> rsqrt (v * a)) r s) x`,
			nil, "hoisted"},
		{"outer-element", `x : T[64,8]; s : T[64]; zip (\r s1 -> map (\v -> v * rsqrt s1) r) x s`,
			nil, "hoisted"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) {
				prog, err := graph.Parse(strings.ReplaceAll(tc.src, "T[", dt.String()+"["))
				require.NoError(t, err)
				in, err := lowertest.Inputs(prog.Body, 7, 0, lowertest.Dense)
				require.NoError(t, err)
				withSpecials(t, in)
				d := checkExact(t, prog.Body, in, -1)
				for _, w := range tc.want {
					require.Contains(t, d, w)
				}
				if tc.lack != "" {
					require.NotContains(t, d, tc.lack)
				}
			})
		}
	}
}
