package nd_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/lowering/native"
)

// input declares an f32 input of the extents and binds a random value.
func randInput(t *testing.T, r *rand.Rand, bind map[string]graph.Value, name string, dt graph.DType, extents ...int) graph.Node {
	t.Helper()
	if len(extents) == 0 {
		in, err := graph.NewInput(name, graph.Scalar(dt), false)
		if err != nil {
			t.Fatal(err)
		}
		bind[name] = graph.ScalarValue{DType: dt, V: dt.Round(r.Float64()*4 - 2)}
		return in
	}
	in, err := graph.NewInput(name, graph.ArrayOf(dt, extents...), false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := graph.RandomArray(r, dt, extents...)
	if err != nil {
		t.Fatal(err)
	}
	bind[name] = a
	return in
}

// runNative compiles y on the native back end, fused by fusion.Fuse and
// unfused (fusion.Unfused), runs both on bind and compares with
// graph.Eval; it returns the fused plan's description.
func runNative(t *testing.T, y graph.Node, bind map[string]graph.Value) string {
	t.Helper()
	if err := nd.BindIndexes(y, bind); err != nil {
		t.Fatal(err)
	}
	want, err := graph.Eval(y, bind)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fusion.Fuse(y, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unfused, err := fusion.Unfused(y)
	if err != nil {
		t.Fatal(err)
	}
	desc := ""
	for _, g := range []*fusion.Graph{res.Graph, unfused} {
		p, err := native.New(native.Options{Parallelism: 2}).Plan(g)
		if err != nil {
			t.Fatalf("native: %v\nterm: %s", err, graph.Print(y))
		}
		got, err := p.Run(bind)
		if err != nil {
			t.Fatal(err)
		}
		if err := graph.Diff(want, got, graph.ToleranceOf(want)); err != nil {
			t.Errorf("native differs from Eval: %v\nterm: %s\nplan:\n%s", err, graph.Print(y), p.Describe())
		}
		if desc == "" {
			desc = p.Describe()
		}
		p.Close()
	}
	return desc
}

// TestMatMulIsGEMM checks that a product of two matrices is the term the
// native back end compiles to its GEMM kernel, and that it computes what
// the interpreter does; Gemm with each form of C does too.
func TestMatMulIsGEMM(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	bind := map[string]graph.Value{}
	a := randInput(t, r, bind, "a", graph.Float32, 9, 13)
	b := randInput(t, r, bind, "b", graph.Float32, 13, 11)
	y, err := nd.MatMul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graph.Print(y), `map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 b)) a`; got != want {
		t.Errorf("term\n%s\nwant\n%s", got, want)
	}
	if d := runNative(t, y, bind); !strings.Contains(d, "gemm 9x11x13 A·B f32") {
		t.Errorf("MatMul is not a GEMM:\n%s", d)
	}
	for _, c := range []struct {
		name   string
		cshape []int
		transB bool
	}{
		{"none", nil, false},
		{"row", []int{11}, false},
		{"full", []int{9, 11}, false},
		{"column", []int{9, 1}, false},
		{"scalar", []int{}, true},
	} {
		t.Run("gemm/"+c.name, func(t *testing.T) {
			bind := map[string]graph.Value{}
			a := randInput(t, r, bind, "a", graph.Float32, 9, 13)
			bshape := []int{13, 11}
			if c.transB {
				bshape = []int{11, 13}
			}
			b := randInput(t, r, bind, "b", graph.Float32, bshape...)
			var cc graph.Node
			if c.cshape != nil {
				cc = randInput(t, r, bind, "c", graph.Float32, c.cshape...)
			}
			y, err := nd.Gemm(a, b, cc, 0.5, 2, false, c.transB)
			if err != nil {
				t.Fatal(err)
			}
			if d := runNative(t, y, bind); !strings.Contains(d, "gemm 9x11x13") {
				t.Errorf("Gemm is not a GEMM:\n%s", d)
			}
		})
	}
}

// TestNativeAgrees runs the other operations on the native back end,
// fused, and compares with the interpreter.
func TestNativeAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, c := range []struct {
		name  string
		build func(bind map[string]graph.Value) (graph.Node, error)
	}{
		{"add-broadcast-rank4", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Binary(graph.Add, randInput(t, r, bind, "x", graph.Float32, 2, 1, 3, 4), randInput(t, r, bind, "y", graph.Float32, 3, 1))
		}},
		{"matmul-batched", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.MatMul(randInput(t, r, bind, "a", graph.Float32, 2, 1, 3, 4), randInput(t, r, bind, "b", graph.Float32, 3, 4, 5))
		}},
		{"matmul-vec", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.MatMul(randInput(t, r, bind, "a", graph.Float64, 4), randInput(t, r, bind, "b", graph.Float64, 4, 5))
		}},
		{"reshape-of-transpose", func(bind map[string]graph.Value) (graph.Node, error) {
			x, err := nd.Transpose(randInput(t, r, bind, "x", graph.Float32, 2, 3, 4), []int{2, 0, 1})
			if err != nil {
				return nil, err
			}
			return nd.Reshape(x, []int{4, 6})
		}},
		{"flatten", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Flatten(randInput(t, r, bind, "x", graph.Float32, 2, 3, 4), 1)
		}},
		{"reduce-mean-keep", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Reduce(nd.Mean, randInput(t, r, bind, "x", graph.Float32, 2, 3, 4), []int{0, 2}, true)
		}},
		{"reduce-max-all", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Reduce(nd.Max, randInput(t, r, bind, "x", graph.Float32, 3, 4), []int{0, 1}, false)
		}},
		{"softmax-axis1", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Softmax(randInput(t, r, bind, "x", graph.Float32, 2, 3, 4), 1)
		}},
		{"logsoftmax", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.LogSoftmax(randInput(t, r, bind, "x", graph.Float32, 5, 7), -1)
		}},
		{"argmax", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.ArgMax(randInput(t, r, bind, "x", graph.Float32, 4, 9), 1, true, false)
		}},
		{"cast", func(bind map[string]graph.Value) (graph.Node, error) {
			return nd.Cast(randInput(t, r, bind, "x", graph.Float32, 4, 9), graph.Float64)
		}},
		{"unsqueeze-squeeze", func(bind map[string]graph.Value) (graph.Node, error) {
			x, err := nd.Unsqueeze(randInput(t, r, bind, "x", graph.Float32, 3, 4), []int{0, 3})
			if err != nil {
				return nil, err
			}
			return nd.Binary(graph.Mul, x, randInput(t, r, bind, "y", graph.Float32, 1, 3, 1, 1))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bind := map[string]graph.Value{}
			y, err := c.build(bind)
			if err != nil {
				t.Fatal(err)
			}
			runNative(t, y, bind)
		})
	}
}
