package layers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// bnStatsFile is written by testdata/make_bn_stats.py (numpy in float64;
// see its header for how to rerun it).
const bnStatsFile = "testdata/bn_stats.json"

type jsonArray struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type bnStatsCase struct {
	Name             string    `json:"name"`
	Batch            int       `json:"batch"`
	Features         int       `json:"features"`
	Eps              float64   `json:"eps"`
	Momentum         float64   `json:"momentum"`
	X                jsonArray `json:"x"`
	Scale            jsonArray `json:"scale"`
	Shift            jsonArray `json:"shift"`
	Mean             jsonArray `json:"mean"`
	Var              jsonArray `json:"var"`
	Y                jsonArray `json:"y"`
	RunningMean      jsonArray `json:"running_mean"`
	RunningVar       jsonArray `json:"running_var"`
	F32NaiveRelErr   float64   `json:"f32_naive_relerr"`
	F32TwoPassRelErr float64   `json:"f32_twopass_relerr"`
	JAXF32VarRelErr  float64   `json:"jax_f32_var_relerr"`
}

func readBNStats(t *testing.T) []bnStatsCase {
	t.Helper()
	data, err := os.ReadFile(bnStatsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []bnStatsCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", bnStatsFile, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", bnStatsFile)
	}
	return f.Cases
}

// Tolerances of the f32 statistics against numpy's float64 ones, on data
// whose mean is 300 to 10^4 times its spread:
//
//   - mean: 1e-6 relative. It is k + S1/batch, k an element of the batch
//     and S1 a sum of deviations of the order of the spread, so it is a
//     few roundings of the mean, 6e-8 each.
//   - variance (biased): 1e-4 relative. S2/batch - a² with a² at most
//     batch·var and typically about var: the sums of 256 squares in f32
//     carry at most ~1e-5, and the cancellation costs about a factor 1.
//     Measured: at most 9e-7 on these cases (logged). The naive
//     E[x²] - E[x]², checked below on the same data, is off by 0.3 to 6e4.
//   - running statistics (momentum 0.1, from mean 0 and var 1): 1e-6
//     relative, a few roundings of values of order 1 and of the mean.
//   - normalised output y: 1e-4·max(1, |y|). y is (v - k - a) ·
//     rsqrt(var + eps) · g + b with v - k exact, so its error is a few
//     roundings of y plus the variance's error halved; rounding the mean
//     to f32 first would cost ulp(mean)/sqrt(var) instead, 0.02 for
//     1e4 + 0.05 N(0,1).
const (
	bnMeanTol    = 1e-6
	bnVarTol     = 1e-4
	bnRunningTol = 1e-6
	bnYTol       = 1e-4
)

// bnStatsProgram is the BatchNorm layer of a case in training mode, f32,
// with its running statistics, as one term: (y, (mean', var')) at
// momentum, and its bindings (running mean 0 and var 1, as PyTorch
// starts).
func bnStatsProgram(t *testing.T, c bnStatsCase, momentum float64) (graph.Node, map[string]graph.Value) {
	t.Helper()
	dt := graph.Float32
	x := input(t, dt, c.Batch, c.Features)
	y, p, err := layers.BatchNorm("bn1", x, c.Features, dt, layers.BatchNormOptions{Training: true, Eps: c.Eps})
	if err != nil {
		t.Fatal(err)
	}
	st, err := layers.BatchNormRunningStats(p, momentum)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := graph.NewTuple(y, st)
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, c.Features)
	for j := range ones {
		ones[j] = 1
	}
	bind := map[string]graph.Value{
		"x":         array(t, dt, c.X.Data, c.Batch, c.Features),
		"bn1.scale": array(t, dt, c.Scale.Data, c.Features),
		"bn1.shift": array(t, dt, c.Shift.Data, c.Features),
		"bn1.mean":  array(t, dt, make([]float64, c.Features), c.Features),
		"bn1.var":   array(t, dt, ones, c.Features),
	}
	return prog, bind
}

// maxRelErr is the largest |got - want| / max(floor, |want|).
func maxRelErr(got, want []float64, floor float64) float64 {
	worst := 0.0
	for i := range want {
		e := math.Abs(got[i]-want[i]) / math.Max(floor, math.Abs(want[i]))
		if e > worst || math.IsNaN(e) {
			worst = e
		}
	}
	return worst
}

// checkBNStats compares the results of bnStatsProgram at momentum 0.1 and
// at momentum 1 (whose running statistics are the batch mean and the
// unbiased batch variance) with the reference.
func checkBNStats(t *testing.T, c bnStatsCase, run func(prog graph.Node, bind map[string]graph.Value) graph.Value) {
	t.Helper()
	prog, bind := bnStatsProgram(t, c, c.Momentum)
	out := run(prog, bind).(graph.TupleValue)
	st := out[1].(graph.TupleValue)
	y := out[0].(*graph.Array).Values()
	eY := maxRelErr(y, c.Y.Data, 1)
	if eY > bnYTol {
		t.Errorf("%s: y is off by %.3g, want at most %g", c.Name, eY, bnYTol)
	}
	if e := maxRelErr(st[0].(*graph.Array).Values(), c.RunningMean.Data, 0); e > bnRunningTol {
		t.Errorf("%s: running mean is off by %.3g relative, want at most %g", c.Name, e, bnRunningTol)
	}
	if e := maxRelErr(st[1].(*graph.Array).Values(), c.RunningVar.Data, 0); e > bnRunningTol {
		t.Errorf("%s: running var is off by %.3g relative, want at most %g", c.Name, e, bnRunningTol)
	}

	prog, bind = bnStatsProgram(t, c, 1)
	st = run(prog, bind).(graph.TupleValue)[1].(graph.TupleValue)
	mean := st[0].(*graph.Array).Values()
	biased := st[1].(*graph.Array).Values() // unbiased, made biased in f64 below
	n := float64(c.Batch)
	for j := range biased {
		biased[j] *= (n - 1) / n
	}
	eMean := maxRelErr(mean, c.Mean.Data, 0)
	eVar := maxRelErr(biased, c.Var.Data, 0)
	if eMean > bnMeanTol {
		t.Errorf("%s: mean is off by %.3g relative, want at most %g", c.Name, eMean, bnMeanTol)
	}
	if eVar > bnVarTol {
		t.Errorf("%s: variance is off by %.3g relative, want at most %g", c.Name, eVar, bnVarTol)
	}
	t.Logf("%s: f32 mean %.2g, variance %.2g relative error, y %.2g (variance: naive f32 %.3g, two-pass f32 %.3g, jax.numpy.var f32 %.3g)",
		c.Name, eMean, eVar, eY, c.F32NaiveRelErr, c.F32TwoPassRelErr, c.JAXF32VarRelErr)
}

// TestBatchNormLargeMean checks the training-mode statistics and output of
// BatchNorm in f32, computed by the reference interpreter and by the fused
// native plan, against numpy's float64 ones on data with a large mean and
// a small spread (testdata/bn_stats.json), and that the naive one-traversal
// variance fails the same tolerance on the same data.
func TestBatchNormLargeMean(t *testing.T) {
	for _, c := range readBNStats(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Run("eval", func(t *testing.T) {
				checkBNStats(t, c, func(prog graph.Node, bind map[string]graph.Value) graph.Value {
					v, err := graph.Eval(prog, bind)
					if err != nil {
						t.Fatal(err)
					}
					return v
				})
			})
			t.Run("native", func(t *testing.T) {
				checkBNStats(t, c, runOn(t, native.New(native.Options{})))
			})
			t.Run("naive", func(t *testing.T) {
				// E[x²] - E[x]² in f32, one traversal, by the interpreter:
				// what the tolerance rules out.
				src := fmt.Sprintf(`x : f32[%d,%d]; `+
					`let m = map (\s -> s / %d) (reduce (zip (+)) x) in `+
					`zip (\q m1 -> q / %d - m1 * m1) (rnz (zip (+)) (\r -> map (\v -> v * v) r) x) m`,
					c.Batch, c.Features, c.Batch, c.Batch)
				prog, err := graph.Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				v, err := graph.Eval(prog.Body, map[string]graph.Value{"x": array(t, graph.Float32, c.X.Data, c.Batch, c.Features)})
				if err != nil {
					t.Fatal(err)
				}
				e := maxRelErr(v.(*graph.Array).Values(), c.Var.Data, 0)
				if !(e > 100*bnVarTol) {
					t.Errorf("%s: the naive variance is off by only %.3g; the data no longer tells the formulations apart", c.Name, e)
				}
				t.Logf("%s: naive f32 variance off by %.3g relative", c.Name, e)
			})
		})
	}
}

// TestBatchNormLargeMeanPJRT is TestBatchNormLargeMean on PJRT, the fused
// graph as one executable. Without a PJRT plugin it is skipped (failed
// under HOFUSE_REQUIRE_PJRT=1).
func TestBatchNormLargeMeanPJRT(t *testing.T) {
	client := pjrttest.Client(t)
	for _, c := range readBNStats(t) {
		t.Run(c.Name, func(t *testing.T) {
			checkBNStats(t, c, runOn(t, xla.New(client, xla.Options{})))
		})
	}
}

// runOn returns a function that fuses a program and runs it on b.
func runOn(t *testing.T, b lowering.Backend) func(graph.Node, map[string]graph.Value) graph.Value {
	return func(prog graph.Node, bind map[string]graph.Value) graph.Value {
		t.Helper()
		res, err := fusion.Fuse(prog, fusion.Options{})
		if err != nil {
			t.Fatal(err)
		}
		exe, err := b.Compile(res.Graph)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { exe.Close() })
		v, err := exe.Run(bind)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestBatchNormStatsOneKernel checks that fusion computes the batch
// statistics of a training-mode BatchNorm in one kernel: one reduction
// over the batch, with the tuple of both sums as its result, also when a
// dense layer before it is folded in.
func TestBatchNormStatsOneKernel(t *testing.T) {
	dt := graph.Float32
	x := input(t, dt, 8, 6)
	h, _, err := layers.Dense("dense1", x, 6, 5, dt)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []struct {
		name string
		x    graph.Node
		f    int
	}{{"input", x, 6}, {"dense", h, 5}} {
		t.Run(in.name, func(t *testing.T) {
			y, _, err := layers.BatchNorm("bn1", in.x, in.f, dt, layers.BatchNormOptions{Training: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := fusion.Fuse(y, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var stats []string
			for _, k := range res.Graph.Kernels {
				if r, ok := k.Body.(*graph.RNZ); ok {
					stats = append(stats, k.Name)
					if tt, ok := k.Output.Type.(*graph.TupleType); !ok || len(tt.Elems) != 2 {
						t.Errorf("kernel %s: %s gives %v, want the tuple of the two sums", k.Name, graph.Abbrev(r, 80), k.Output.Type)
					}
				}
			}
			if len(stats) != 1 {
				t.Errorf("the statistics take %d kernels %v, want 1", len(stats), stats)
				for _, k := range res.Graph.Kernels {
					t.Logf("%s: %s", k.Name, graph.Abbrev(k.Body, 200))
				}
			}
		})
	}
}
