package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestBatchNormTrainingGradient differentiates a loss through a
// training-mode BatchNorm (through its shifted one-traversal statistics,
// whose shift autodiff treats as a constant) and compares the gradients
// with respect to the input, the scale and the shift with central finite
// differences of the loss, in f64:
//
//	fd = (L(p + h) - L(p - h)) / 2h,  h = 1e-6 max(1, |p|),
//
// |g - fd| <= 1e-5 max(1, |g|, |fd|), as autodiff's gradient law test. The
// loss L = Σ c·y + Σ y³/3 (c fixed weights) is not linear in y, so the
// gradient reaching the statistics varies by row. The data are ordinary
// (uniform in [-2, 2]) and large-mean (1000 + uniform spread), at batch 2
// (where y is ±1 per feature) and 5. The gradient term also runs fused on
// the native back end and agrees with the interpreter.
func TestBatchNormTrainingGradient(t *testing.T) {
	const rel = 1e-5
	dt := graph.Float64
	for _, tc := range []struct {
		batch, f int
		centre   float64
	}{{2, 3, 0}, {5, 4, 0}, {5, 3, 1000}, {2, 2, 1000}} {
		t.Run(fmt.Sprintf("%dx%d/centre%g", tc.batch, tc.f, tc.centre), func(t *testing.T) {
			x := input(t, dt, tc.batch, tc.f)
			y, p, err := layers.BatchNorm("bn1", x, tc.f, dt, layers.BatchNormOptions{Training: true})
			if err != nil {
				t.Fatal(err)
			}
			c, err := graph.NewInput("c", graph.ArrayOf(dt, tc.batch, tc.f), false)
			if err != nil {
				t.Fatal(err)
			}
			src := `\y c -> rnz (+) (\r w -> rnz (+) (\v u -> u * v + v * v * v / 3) r w) y c`
			lossFn, err := graph.ParseTerm(src)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := graph.NewApp(lossFn, y, c)
			if err != nil {
				t.Fatal(err)
			}
			wrt := []*graph.Input{x, p.Scale, p.Shift}
			g, err := autodiff.Grad(loss, wrt)
			if err != nil {
				t.Fatal(err)
			}
			r := rng(uint64(tc.batch*100 + tc.f))
			in := map[string]graph.Value{
				"x":         array(t, dt, shifted(uniform(r, dt, tc.batch*tc.f, -2, 2), tc.centre), tc.batch, tc.f),
				"c":         array(t, dt, uniform(r, dt, tc.batch*tc.f, -1, 1), tc.batch, tc.f),
				"bn1.scale": array(t, dt, uniform(r, dt, tc.f, 0.5, 1.5), tc.f),
				"bn1.shift": array(t, dt, uniform(r, dt, tc.f, -0.5, 0.5), tc.f),
			}
			gv, err := graph.Eval(g, in)
			if err != nil {
				t.Fatal(err)
			}
			grads := gv.(graph.TupleValue)
			lossAt := func(in map[string]graph.Value) float64 {
				v, err := graph.Eval(loss, in)
				if err != nil {
					t.Fatal(err)
				}
				return v.(graph.ScalarValue).V
			}
			for k, w := range wrt {
				base := in[w.Name].(*graph.Array).Values()
				got := grads[k+1].(*graph.Array).Values()
				extents := in[w.Name].(*graph.Array).Extents()
				for i := range base {
					h := 1e-6 * math.Max(1, math.Abs(base[i]))
					at := func(d float64) float64 {
						moved := append([]float64(nil), base...)
						moved[i] += d
						in2 := map[string]graph.Value{}
						for n, v := range in {
							in2[n] = v
						}
						in2[w.Name] = array(t, dt, moved, extents...)
						return lossAt(in2)
					}
					fd := (at(h) - at(-h)) / (2 * h)
					if !(math.Abs(got[i]-fd) <= rel*math.Max(1, math.Max(math.Abs(got[i]), math.Abs(fd)))) {
						t.Errorf("d L / d %s[%d] = %v, finite differences give %v", w.Name, i, got[i], fd)
					}
				}
			}

			res, err := fusion.Fuse(g, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			exe, err := native.New(native.Options{}).Compile(res.Graph)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			nv, err := exe.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Diff(gv, nv, 1e-9); err != nil {
				t.Errorf("fused native gradient: %v", err)
			}
		})
	}
}

// shifted adds c to every value.
func shifted(v []float64, c float64) []float64 {
	for i := range v {
		v[i] += c
	}
	return v
}
