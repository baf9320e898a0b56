package graphtest

import "github.com/hofuse/hofuse/graph"

// Tolerance is a starting tolerance for Diff when a rewrite regroups or
// reorders floating-point reductions (exchanging two reductions,
// subdividing one): 1e-4 for f32 and 1e-10 for f64. Over 500 seeds of
// every generator with the default Config, evaluating a program in f32
// instead of f64 moves no element by more than about 5e-6 in Diff's
// measure |want - got| / (1 + |want|), and regrouping rounds less than
// that; the margin is twentyfold. TestToleranceCoversRounding keeps the
// measurement up to date.
//
// A rewrite that keeps the order of every scalar operation (fusing an nzip
// into an nzip or rnz, exchanging a map with a map or with a reduction,
// pairing traversals, flipping) should give bit-identical results in the
// reference interpreter, so its law test can compare with tolerance 0. A
// law test for a regrouping rule may also want Disable: Select, so that a
// comparison near its threshold cannot flip.
func Tolerance(dt graph.DType) float64 {
	if dt == graph.Float32 {
		return 1e-4
	}
	return 1e-10
}
