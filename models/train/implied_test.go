package train

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// impliedCases are the optimizers whose state impliedSlot leaves out of
// the finiteness check, and one whose state it keeps (none).
var impliedCases = []struct {
	opt  optim.Optimizer
	slot string
}{
	{optim.NewAdam(0.001), "m"},
	{optim.NewAdamW(0.001), "m"},
	{optim.Adam{LR: 1e-50, Beta1: 0.5, Beta2: 0.5, Eps: 0, WeightDecay: 0.1}, "m"}, // LR 0 in f32, Eps 0
	{&optim.Adam{LR: 3, Beta1: 0, Beta2: 0.999999}, "m"},
	{optim.SGD{LR: 0.1, Momentum: 0.9}, "momentum"},
	{optim.SGD{LR: 0.1, Momentum: 0.5, Nesterov: true, WeightDecay: 0.01}, "momentum"},
	{&optim.SGD{LR: 1e-50, Momentum: 0.9}, "momentum"},
	{optim.SGD{LR: 0.1}, ""},
}

// TestImpliedFiniteUpdate checks impliedFinite's claim on the update
// itself: for every combination of parameter, gradient and state
// elements drawn from zeros, ordinary and huge numbers, NaN and both
// infinities, at the first step and a late one, in f32 and f64, wherever
// the implied slot's new value is not finite the parameter's new value is
// not finite either, on the interpreter and on PJRT (the back end whose
// check leaves the slot out). The case occurs (the test is not vacuous).
func TestImpliedFiniteUpdate(t *testing.T) {
	c := pjrttest.Client(t)
	be := xla.New(c, xla.Options{})
	special := []float64{0, math.Copysign(0, -1), 1, -2.5, 1e-30, 3e38, -1e300, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, tc := range impliedCases {
		if tc.slot == "" {
			continue
		}
		o := tc.opt
		k := slices.Index(o.Slots(), tc.slot)
		if k < 0 {
			t.Fatalf("%s has no slot %q", o.Name(), tc.slot)
		}
		nv := 2 + len(o.Slots()) // p, g, state
		n := 1
		for range nv {
			n *= len(special)
		}
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			at := graph.ArrayOf(dt, n)
			in := func(name string, typ graph.Type) *graph.Input {
				i, err := graph.NewInput(name, typ, false)
				if err != nil {
					t.Fatal(err)
				}
				return i
			}
			names := append([]string{"p", "g"}, o.Slots()...)
			var state, scalars []graph.Node
			for _, s := range o.Slots() {
				state = append(state, in(s, at))
			}
			for _, s := range o.Scalars() {
				scalars = append(scalars, in(s, graph.Scalar(dt)))
			}
			u, err := o.Update(in("p", at), in("g", at), state, scalars)
			if err != nil {
				t.Fatal(err)
			}
			vals := map[string]graph.Value{}
			for j, name := range names {
				a, err := graph.Zeros(dt, n)
				if err != nil {
					t.Fatal(err)
				}
				stride := 1
				for range j {
					stride *= len(special)
				}
				for i := range n {
					a.Set(special[(i/stride)%len(special)], i)
				}
				vals[name] = a
			}
			res, err := fusion.Fuse(u, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			exe, err := be.Compile(res.Graph)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []int{1, 100000} {
				sc, err := o.ScalarValues(step, dt)
				if err != nil {
					t.Fatal(err)
				}
				for name, v := range sc {
					vals[name] = v
				}
				want, err := graph.Eval(u, vals)
				if err != nil {
					t.Fatal(err)
				}
				got, err := exe.Run(vals)
				if err != nil {
					t.Fatal(err)
				}
				for where, r := range map[string]graph.Value{"interpreter": want, "PJRT": got} {
					tup := r.(graph.TupleValue)
					p, s := tup[0].(*graph.Array), tup[1+k].(*graph.Array)
					cases := 0
					for i := range n {
						sv, pv := s.At(i), p.At(i)
						if !isFinite(sv) {
							cases++
							if isFinite(pv) {
								t.Errorf("%s %v step %d, %s: p=%v g=%v state=%v: the new %s is %v but the new parameter %v",
									o.Name(), dt, step, where, vals["p"].(*graph.Array).At(i), vals["g"].(*graph.Array).At(i), stateAt(vals, o.Slots(), i), tc.slot, sv, pv)
							}
						}
					}
					if cases == 0 {
						t.Errorf("%s %v step %d, %s: no element's %s went non-finite", o.Name(), dt, step, where, tc.slot)
					}
				}
			}
			exe.Close()
		}
	}
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func stateAt(vals map[string]graph.Value, slots []string, i int) []float64 {
	var out []float64
	for _, s := range slots {
		out = append(out, vals[s].(*graph.Array).At(i))
	}
	return out
}

// TestImpliedFinite: the trainer's loop leaves exactly the implied slot of
// every parameter out of its check: Adam's m, SGD's momentum, nothing for
// plain SGD.
func TestImpliedFinite(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{3, 4, 2}, Batch: 2, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range impliedCases {
		s, err := m.TrainStep(models.TrainConfig{Optimizer: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if tc.slot != "" {
			for _, p := range m.Params {
				want = append(want, p.Name+"."+tc.slot)
			}
		}
		if got := impliedFinite(s); !slices.Equal(got, want) {
			t.Errorf("%s: implied %v, want %v", tc.opt.Name(), got, want)
		}
	}
}

// BenchmarkStepFiniteCheck times what the finiteness check costs the MLP
// 784-512-512-10's training step (Adam, PJRT, fused) at batch 32 and 256:
// three Trainers on the same plugin, whose loops check no carried value
// (none-ms), every one (all-ms) and all but the implied ones, as New does
// (implied-ms), each iteration one step of each in turn so that all three
// see the same load; the metrics are their medians.
func BenchmarkStepFiniteCheck(b *testing.B) {
	c := pjrttest.Client(b)
	be := xla.New(c, xla.Options{})
	for _, batch := range []int{32, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, init, x, y := benchStep(b, batch)
			g, err := Kernels(s, Options{})
			if err != nil {
				b.Fatal(err)
			}
			names := []string{"none", "all", "implied"}
			var trs []*Trainer
			for _, name := range names {
				tr, err := New(s, be, Options{}, init)
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				spec := lowering.LoopSpec{Carried: []string{""}, CheckFinite: name != "none"}
				for _, in := range s.Outputs {
					spec.Carried = append(spec.Carried, in.Name)
				}
				if name == "implied" {
					spec.Implied = impliedFinite(s)
				}
				l, err := be.CompileLoop(g, spec)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Bind(tr.carried); err != nil {
					b.Fatal(err)
				}
				tr.loop.Close()
				tr.loop = l
				if _, err := tr.Step(x, y); err != nil { // warm up
					b.Fatal(err)
				}
				trs = append(trs, tr)
			}
			ts := make([][]float64, len(trs))
			for b.Loop() {
				for i, tr := range trs {
					start := time.Now()
					if _, err := tr.Step(x, y); err != nil {
						b.Fatal(err)
					}
					ts[i] = append(ts[i], time.Since(start).Seconds()*1e3)
				}
			}
			for i, name := range names {
				slices.Sort(ts[i])
				b.ReportMetric(ts[i][len(ts[i])/2], name+"-ms")
			}
		})
	}
}
