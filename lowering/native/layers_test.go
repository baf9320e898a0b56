package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// splits returns the kernel graphs the layer and model tests compile: the
// fusion pass's, the unfused baseline and one kernel for everything.
func splits(t *testing.T, term graph.Node) map[string]*fusion.Graph {
	t.Helper()
	res, err := fusion.Fuse(term, fusion.Options{})
	if err != nil {
		t.Fatalf("fuse: %v", err)
	}
	unfused, err := fusion.Unfused(term)
	if err != nil {
		t.Fatalf("unfused: %v", err)
	}
	whole, err := fusion.Whole(term)
	if err != nil {
		t.Fatalf("whole: %v", err)
	}
	return map[string]*fusion.Graph{"fused": res.Graph, "unfused": unfused, "whole": whole}
}

var backends = map[string]native.Options{
	"parallel":   {},
	"sequential": {Parallelism: 1},
}

// checkAll compiles term under every split and back-end option and
// compares with the interpreter.
func checkAll(t *testing.T, term graph.Node, inputs map[string]graph.Value, tol float64) {
	t.Helper()
	for sname, g := range splits(t, term) {
		for bname, opts := range backends {
			t.Run(sname+"/"+bname, func(t *testing.T) {
				lowertest.Check(t, native.New(opts), g, term, inputs, tol)
			})
		}
	}
}

func TestLayers(t *testing.T) {
	const batch, in, out = 7, 13, 9
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		x, err := graph.NewInput("x", graph.ArrayOf(dt, batch, in), false)
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string]func() (graph.Node, error){
			"dense": func() (graph.Node, error) {
				y, _, err := layers.Dense("dense1", x, in, out, dt)
				return y, err
			},
			"batchnorm": func() (graph.Node, error) {
				y, _, err := layers.BatchNorm("bn1", x, in, dt, layers.BatchNormOptions{})
				return y, err
			},
			"batchnorm-training": func() (graph.Node, error) {
				y, _, err := layers.BatchNorm("bn1", x, in, dt, layers.BatchNormOptions{Training: true})
				return y, err
			},
			"layernorm": func() (graph.Node, error) {
				y, _, err := layers.LayerNorm("ln1", x, in, dt, layers.LayerNormOptions{})
				return y, err
			},
			"softmax": func() (graph.Node, error) { return layers.Softmax("sm", x) },
		}
		for _, a := range []layers.Activation{layers.ActReLU, layers.ActLeakyReLU, layers.ActSigmoid,
			layers.ActTanh, layers.ActGELU, layers.ActGELUTanh, layers.ActSiLU} {
			cases[a.String()] = func() (graph.Node, error) { return layers.Activate("act", x, a) }
		}
		cases["dense-bn-relu"] = func() (graph.Node, error) {
			y, _, err := layers.Dense("dense1", x, in, out, dt)
			if err != nil {
				return nil, err
			}
			if y, _, err = layers.BatchNorm("bn1", y, out, dt, layers.BatchNormOptions{}); err != nil {
				return nil, err
			}
			return layers.ReLU("relu1", y)
		}
		for name, build := range cases {
			t.Run(fmt.Sprintf("%s/%v", name, dt), func(t *testing.T) {
				term, err := build()
				if err != nil {
					t.Fatal(err)
				}
				info, err := graph.Check(term)
				if err != nil {
					t.Fatal(err)
				}
				inputs := positiveVariances(graphtest.Inputs(graphtest.Rand(nativetestSeed(name)), info.Inputs))
				checkAll(t, term, inputs, 0)
			})
		}
	}
}

// positiveVariances makes batch norm's running variances positive, as
// trained ones are.
func positiveVariances(in map[string]graph.Value) map[string]graph.Value {
	for name, v := range in {
		if len(name) > 4 && name[len(name)-4:] == ".var" {
			a := v.(*graph.Array)
			for i := range a.Extents()[0] {
				x := a.At(i)
				a.Set(x*x+0.5, i)
			}
		}
	}
	return in
}

func nativetestSeed(s string) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func TestMLP(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, norm := range []models.Norm{models.NormNone, models.NormBatch, models.NormLayer} {
			for _, mode := range []models.Mode{models.Inference, models.Training} {
				if mode == models.Training && norm != models.NormBatch {
					continue
				}
				name := fmt.Sprintf("%v/%v/%v", dt, norm, mode)
				t.Run(name, func(t *testing.T) {
					m, err := models.MLP(models.MLPConfig{Sizes: []int{37, 29, 23, 11}, Batch: 9, DType: dt, Norm: norm, Mode: mode})
					if err != nil {
						t.Fatal(err)
					}
					checkAll(t, m.Output, m.Bindings(3), 0)
				})
			}
		}
	}
}

// TestMLPFullSize runs the benchmark network once, at batch 3, fused and
// unfused, against the interpreter.
func TestMLPFullSize(t *testing.T) {
	if testing.Short() {
		t.Skip("the interpreter takes a while on the full network")
	}
	for _, mode := range []string{"fused", "unfused"} {
		t.Run(mode, func(t *testing.T) {
			g, in := mlpGraph(t, 3, graph.Float32, mode)
			m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: 3, DType: graph.Float32, Norm: models.NormBatch})
			if err != nil {
				t.Fatal(err)
			}
			lowertest.Check(t, native.New(native.Options{}), g, m.Output, in, 0)
		})
	}
}
