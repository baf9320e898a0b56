package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
)

// TestCollapseNest: an elementwise nest of zips over arrays whose outer
// axes merge runs as one vector loop over all their elements, a copy as
// one run; a nest whose operand's axes do not merge (a flipped view) is
// not merged but runs as one vector loop over rows of its inner axis
// (rowsMap). Results against the interpreter, f32 and f64, sequential and
// parallel.
func TestCollapseNest(t *testing.T) {
	cases := []struct {
		name, src  string
		want, lack string
	}{
		{"merged", `X : T[3,5,7]; Y : T[3,5,7]; zip (zip (zip (\a b -> a * b + 1))) X Y`, "vector loop [105]", "loop nzip"},
		{"inner-merged", `X : T[3,5,7]; Y : T[5,3,7]; zip (zip (zip (\a b -> a * b + 1))) X (flip 0 Y)`, "vector loop [3,5,7] in rows of 7", "vector loop [105]"},
		{"broadcast", `X : T[3,5,7]; u : T[7]; map (\m -> map (\r -> zip (\a b -> a - b) r u) m) X`, "", "vector loop [105]"},
		{"copy", `X : T[4,6,5]; subdiv 0 2 X`, "copy [120]", "loop nzip"},
		// An optimizer's update writes a tuple of arrays: the weight and
		// its moments, each merged alike.
		{"tuple", `P : T[6,40]; G : T[6,40]; M : T[6,40]; V : T[6,40];
nzip (nzip (\p g m v -> (p - 0.01 * (0.9 * m + 0.1 * g) / (sqrt (0.99 * v + 0.01 * (g * g)) + 1e-08), 0.9 * m + 0.1 * g, 0.99 * v + 0.01 * (g * g)))) P G M V`,
			"vector loop [240]", "loop nzip"},
		{"tuple-flipped", `P : T[6,40]; G : T[40,6]; nzip (nzip (\p g -> (p + g, p * g))) P (flip 0 G)`, "", "vector loop [240]"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) { checkNest(t, tc.src, dt, 3, tc.want, tc.lack) })
		}
	}
}

// checkNest parses src with its element type T made dt, runs it fused and
// unfused, sequential and parallel, against the interpreter on inputs
// drawn from seed, and checks that each plan contains want and lacks lack
// (either left out when "").
func checkNest(t *testing.T, src string, dt graph.DType, seed uint64, want, lack string) {
	t.Helper()
	prog, err := graph.Parse(strings.ReplaceAll(src, "T[", dt.String()+"["))
	if err != nil {
		t.Fatal(err)
	}
	in, err := lowertest.Inputs(prog.Body, seed, 0, lowertest.Dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range lowertest.FusedAndUnfused(t, prog.Body) {
		for _, par := range []int{1, 0} {
			d := checkedDescribe(t, par, g, prog.Body, in)
			if want != "" && !strings.Contains(d, want) {
				t.Errorf("parallelism %d: plan lacks %q:\n%s", par, want, d)
			}
			if lack != "" && strings.Contains(d, lack) {
				t.Errorf("parallelism %d: plan has %q:\n%s", par, lack, d)
			}
		}
	}
}
