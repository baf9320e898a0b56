package native_test

import (
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"testing"

	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// modes are the native back end's options the suite runs under: the
// parallelism of one and of several goroutines, and the loop nests
// without the GEMM kernel.
var modes = []struct {
	name string
	opts native.Options
}{
	{"parallel", native.Options{Parallelism: 4}},
	{"sequential", native.Options{Parallelism: 1}},
	{"nogemm", native.Options{NoGEMM: true}},
}

// TestSuite runs the back-end suite in every mode, each program fused by
// fusion.Fuse, unfused by fusion.Unfused, whole and cut everywhere.
func TestSuite(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			lowertest.Run(t, native.New(m.opts), lowertest.Options{Short: testing.Short()})
		})
	}
}

// TestPipeline is the pipeline law test on the native back end: random
// programs, fused by fusion.Fuse, in every mode.
func TestPipeline(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 10
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			lowertest.RunPipeline(t, native.New(m.opts), lowertest.PipelineOptions{Seeds: seeds, Modes: lowertest.Modes()})
		})
	}
}

// inputsFor draws random inputs for the inputs g reads.
func inputsFor(g *fusion.Graph, _ *graph.Info) map[string]graph.Value {
	return graphtest.Inputs(graphtest.Rand(7), g.Inputs)
}

// TestStridedInputs binds arrays whose strides differ from the declared
// layout (views of other arrays) and bool and i32 arrays: they are copied
// into the declared layout before the kernels read them.
func TestStridedInputs(t *testing.T) {
	prog, err := graph.Parse(`A : f64[4,6]; m : bool[6]; k : i32[6]; map (\r -> nzip (\x b i -> select b (x * f64 i) x) r m k) A`)
	if err != nil {
		t.Fatal(err)
	}
	r := graphtest.Rand(5)
	x, _ := graph.RandomArray(r, graph.Float64, 6, 4)
	xt, _ := x.Flip(0, 1) // 4×6 with strides (1,4)
	in := map[string]graph.Value{
		"A": xt,
		"m": must(graph.RandomArray(r, graph.Bool, 6)),
		"k": must(graph.RandomArray(r, graph.Int32, 6)),
	}
	for _, par := range []int{1, 0} {
		g, err := fusion.Whole(prog.Body)
		if err != nil {
			t.Fatal(err)
		}
		lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0)
	}
}

func must(a *graph.Array, err error) *graph.Array {
	if err != nil {
		panic(err)
	}
	return a
}
