package native_test

import (
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"testing"

	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/nativetest"
)

func TestSuite(t *testing.T) {
	for _, c := range []struct {
		name string
		opts native.Options
	}{
		{"parallel", native.Options{}},
		{"sequential", native.Options{Parallelism: 1}},
		{"nogemm", native.Options{NoGEMM: true}},
	} {
		t.Run(c.name, func(t *testing.T) { nativetest.Run(t, native.New(c.opts)) })
	}
}

func TestRandomPrograms(t *testing.T) {
	for _, c := range []struct {
		name string
		opts native.Options
		dt   graph.DType
	}{
		{"f64", native.Options{}, graph.Float64},
		{"f32", native.Options{}, graph.Float32},
		{"f64-sequential", native.Options{Parallelism: 1}, graph.Float64},
		{"f64-nogemm", native.Options{NoGEMM: true}, graph.Float64},
	} {
		t.Run(c.name, func(t *testing.T) {
			nativetest.RunRandom(t, native.New(c.opts), 1, 300, graphtest.Config{DType: c.dt})
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
		nativetest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0)
	}
}

func must(a *graph.Array, err error) *graph.Array {
	if err != nil {
		panic(err)
	}
	return a
}
