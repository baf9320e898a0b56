package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestHoistInvariants checks normalisation's rule 9: a map over a row's
// channels, under a loop over rows, computes the scalars that depend on
// the per-channel vectors alone (a BatchNorm's reciprocal standard
// deviation, through lets) once per run, before the kernel; a scalar that
// reads the row stays in the loop; an outer map's element is no closed
// vector. The results equal the interpreter's bit for bit, with NaN, ±Inf
// and ±0 among the inputs, f32 and f64.
func TestHoistInvariants(t *testing.T) {
	cases := []planCase{
		{"batchnorm-gradient", `x : T[64,8]; s1 : T[8]; s2 : T[8]; g : T[8];
map (\r -> nzip (\v a b c -> let m = a / 64 in let var = b / 64 - m * m + 1e-05 in c * (v - m) * rsqrt var / var) r s1 s2 g) x`,
			[]string{"hoisted", "rsqrt (b / 64 - a / 64 * (a / 64) + 1e-05)", "flat map [64]"}, ""},
		{"reads-the-row", `x : T[64,8]; s : T[8]; map (\r -> zip (\v a -> rsqrt (v * a)) r s) x`,
			nil, "hoisted"},
		{"outer-element", `x : T[64,8]; s : T[64]; zip (\r s1 -> map (\v -> v * rsqrt s1) r) x s`,
			nil, "hoisted"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		runPlanCases(t, dt, cases)
	}
}
