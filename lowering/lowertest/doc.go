// Package lowertest is the one correctness suite of the back ends: a
// table of programs that every lowering.Backend compiles and runs on
// random inputs, each result compared with the reference interpreter
// (graph.Eval), and the pipeline law test (random programs of graphtest,
// fused by fusion.Fuse, compiled and run). Every back end imports it, as
// gonum's implementations import testblas:
//
//	func TestSuite(t *testing.T) { lowertest.Run(t, native.New(native.Options{}), lowertest.Options{}) }
//	func TestPipeline(t *testing.T) { lowertest.RunPipeline(t, native.New(native.Options{}), lowertest.PipelineOptions{}) }
//
// # The cases
//
// Cases holds the paper's examples (equations 1 and 2, the six
// subdivided arrangements of the matrix-vector product, the matrix
// product in every loop order, blocked and not), the layers of package
// layers, elementwise chains, reductions of every kind (scalar, lifted,
// tuple, non-associative), views (flipped, subdivided, flattened,
// column-major, views of views), odd sizes (1, 3, 7, 17, 33), inputs with
// NaN, ±Inf and -0, and tuples of arrays of mixed rank. A templated case
// is instantiated in f32 and f64. Run binds each instance's inputs three
// ways in the first mode: row-major arrays, views into larger buffers
// (an offset and doubled strides) and views with the last two axes
// flipped; a back end must read all of them.
//
// # Modes
//
// Each instance is cut into kernels four ways (Modes): by the fusion
// pipeline (fusion.Fuse), layer by layer (fusion.Unfused), as one kernel
// (fusion.Whole), and with every computing subterm a kernel of its own.
// A back end with its own modes (native's parallelism, PJRT's per-kernel
// executables) runs the suite once per mode.
//
// # Tolerance
//
// Results compare with graph.Diff within graph.ToleranceOf the expected
// value: the project's one tolerance, graph.Tolerance (1e-4 for f32,
// 1e-10 for f64, in |want - got| / (1 + |want|)), whose doc says why. NaN
// matches NaN; an infinity only itself.
//
// # The floor
//
// Run and RunPipeline count the runs that compared equal and fail below a
// floor, so a suite that runs nothing, or much less than it holds, fails.
// Nothing is skipped: every mismatch is an error. The only runs that do
// not compare are the documented limitations of Options.Rejects, which
// must fail to compile with the stated error.
package lowertest
