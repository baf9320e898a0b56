package models_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/models/train"
	"github.com/hofuse/hofuse/optim"
)

// jaxOptimFile is optim_sgd_momentum.json or optim_adam.json: ten
// optimizer steps on L = sum(output * c), written by JAX and checked
// against optax by make_fixtures.py.
type jaxOptimFile struct {
	jaxFile
	Optimizer string           `json:"optimizer"`
	LR        float64          `json:"lr"`
	Momentum  float64          `json:"momentum"`
	Nesterov  bool             `json:"nesterov"`
	Beta1     float64          `json:"beta1"`
	Beta2     float64          `json:"beta2"`
	AdamEps   float64          `json:"eps"`
	Steps     int              `json:"steps"`
	Configs   []jaxOptimConfig `json:"configs"`
}

type jaxOptimConfig struct {
	jaxConfig
	ZeroAtol float64    `json:"zero_grad_atol"`
	Losses   []float64  `json:"losses"`
	After1   []jaxArray `json:"params_after_1"`
	After10  []jaxArray `json:"params_after_10"`
}

// Ten steps of SGD with momentum and of Adam, built by Model.TrainStep
// with optim's update terms and run fused on the native back end, agree
// with JAX: the loss before every step, and every parameter after the
// first and the tenth step, within jaxTol relative (with the floor of
// jaxFloor times the largest parameter magnitude). The dense biases
// before BatchNorm in training mode have a zero gradient in exact
// arithmetic; they must stay within the fixture's zero_grad_atol of
// their initial values, where Adam's noise-driven steps leave them.
func TestJAXOptimizerSteps(t *testing.T) {
	for _, name := range []string{"optim_sgd_momentum.json", "optim_adam.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "jax", name))
		if err != nil {
			t.Fatalf("reading the JAX fixture: %v", err)
		}
		var f jaxOptimFile
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var opt optim.Optimizer
		switch f.Optimizer {
		case "sgd_momentum":
			opt = optim.SGD{LR: f.LR, Momentum: f.Momentum, Nesterov: f.Nesterov}
		case "adam":
			opt = optim.Adam{LR: f.LR, Beta1: f.Beta1, Beta2: f.Beta2, Eps: f.AdamEps}
		default:
			t.Fatalf("%s: optimizer %q", name, f.Optimizer)
		}
		if len(f.Configs) == 0 || f.Steps != 10 {
			t.Fatalf("%s: %d configurations of %d steps, want some of 10", name, len(f.Configs), f.Steps)
		}
		for _, c := range f.Configs {
			t.Run(name+"/"+c.Name, func(t *testing.T) { jaxOptimRun(t, opt, &c) })
		}
	}
}

func jaxOptimRun(t *testing.T, opt optim.Optimizer, c *jaxOptimConfig) {
	m := c.mlpOf(t, graph.Float64)
	ot := m.OutputType
	lossTerm := func(out graph.Node) (graph.Node, *graph.Input, error) {
		cIn, err := graph.NewInput("c", graph.ArrayOf(ot.DType, ot.Layout.Extents()...), false)
		if err != nil {
			return nil, nil, err
		}
		b := layers.NewBuilder("jax-loss")
		loss := b.RNZ(b.Op(graph.Add), b.Lambda([]string{"y", "k"}, func(vs []graph.Node) graph.Node {
			return b.RNZ(b.Op(graph.Add), b.Op(graph.Mul), vs[0], vs[1])
		}), out, cIn)
		loss, err = b.Done(loss)
		return loss, cIn, err
	}
	step, err := m.TrainStep(models.TrainConfig{Optimizer: opt, LossTerm: lossTerm})
	if err != nil {
		t.Fatal(err)
	}
	bind := c.bindings(t, m)
	init, err := step.InitialValues(bind)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := train.New(step, native.New(native.Options{}), train.Options{}, init)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	x := bind[m.Input.Name]
	cv := c.C.array(t, graph.Float64, ot.Layout.Extents())
	if len(c.Losses) != 10 {
		t.Fatalf("%d losses, want 10", len(c.Losses))
	}
	var w jaxWorst
	for i := range 10 {
		loss, err := tr.Step(x, cv)
		if err != nil {
			t.Fatal(err)
		}
		compareJAX(t, "loss", []float64{loss}, []float64{c.Losses[i]}, jaxTol, 0, &w)
		var want []jaxArray
		switch i {
		case 0:
			want = c.After1
		case 9:
			want = c.After10
		default:
			continue
		}
		if len(want) != len(m.Params) {
			t.Fatalf("fixture has %d parameters after the step, the model %d", len(want), len(m.Params))
		}
		var all [][]float64
		for _, a := range want {
			all = append(all, a.Data)
		}
		scale := maxAbs(all...)
		for j, p := range m.Params {
			got := tr.Values()[p.Name].(*graph.Array).Values()
			what := p.Name + " after step " + []string{"1", "10"}[min(i, 1)]
			if contains(c.ZeroGrad, p.Name) {
				initial := bind[p.Name].(*graph.Array).Values()
				for k := range got {
					if d := got[k] - initial[k]; !(d <= c.ZeroAtol && -d <= c.ZeroAtol) {
						t.Errorf("%s[%d] moved %.3g from its initial value, past %g", what, k, d, c.ZeroAtol)
					}
				}
				continue
			}
			compareJAX(t, what, got, want[j].Data, jaxTol, scale, &w)
		}
	}
	t.Logf("worst error %.3g at %s; %.3g at %s above the floor", w.rel, w.what, w.pure, w.pureWhat)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
