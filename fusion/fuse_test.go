package fusion

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/models"
)

// fuseProgram parses src (declarations and a term), fuses it, and checks
// that the kernel graph computes what the term computes on random inputs.
// The tolerance allows only for reassociated sums.
func fuseProgram(t *testing.T, src string) *Result {
	t.Helper()
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	res, err := Fuse(prog.Body, Options{})
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(7, 7)), prog.Inputs)
	want, err := graph.Eval(prog.Body, in)
	require.NoError(t, err)
	got, err := res.Graph.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, graph.ToleranceOf(want))
	return res
}

// checkEval checks that the kernels of res compute what term computes on
// the reference interpreter, on random inputs, within tol.
func checkEval(t *testing.T, term graph.Node, res *Result, tol float64) {
	t.Helper()
	info, err := graph.Check(term)
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(5, 5)), info.Inputs)
	want, err := graph.Eval(term, in)
	require.NoError(t, err)
	got, err := res.Graph.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, tol)
}

func kernelTerms(res *Result) []string {
	var out []string
	for _, k := range res.Report.Kernels {
		out = append(out, k.Term)
	}
	return out
}

// Paper eq. 1: w_i = Σ_j (A_ij + B_ij)(v_j + u_j), written with its two
// temporaries, becomes one reduction per row with no temporaries: the sums
// are recomputed inside the dot product, one add each.
func TestFuseEquation1(t *testing.T) {
	res := fuseProgram(t, `A : f64[5,7]; B : f64[5,7]; v : f64[7]; u : f64[7];
		map (\r -> rnz (+) (*) r (zip (+) v u)) (zip (zip (+)) A B)`)
	assert.Equal(t, 3, res.Report.KernelsBefore, "before: a sum of matrices, a sum of vectors, the product")
	assert.Equal(t, 1, res.Report.KernelsAfter)
	assert.Equal(t, 0, res.Report.Temporaries)
	assert.Equal(t, []string{`zip (\y0 y1 -> rnz (+) (\y01 y11 y02 y12 -> (y01 + y11) * (y02 + y12)) y0 y1 v u) A B`}, kernelTerms(res))
}

// Paper eq. 2: C_ik = Σ_j A_ij B_jk g_j, written as a scaled copy of A and a
// product, is one kernel: the scaling is one more factor in the dot product.
func TestFuseEquation2(t *testing.T) {
	res := fuseProgram(t, `A : f64[4,6]; B : f64[6,5]; g : f64[6];
		map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) (map (\r -> zip (*) r g) A)`)
	assert.Equal(t, 1, res.Report.KernelsAfter)
	assert.Equal(t, 0, res.Report.Temporaries)
	assert.Equal(t, []string{`map (\r -> map (\c -> rnz (+) (\y0 y1 x1 -> y0 * y1 * x1) r g c) (flip 0 B)) A`}, kernelTerms(res))
}

// The 3-tensor example C_ipq = Σ_jk A_ijk B_jp C_kq g_j f_k, with A scaled
// by g and f first, is one kernel.
func TestFuseThreeTensor(t *testing.T) {
	res := fuseProgram(t, `A : f64[3,4,5]; B : f64[4,2]; C : f64[5,3]; g : f64[4]; f : f64[5];
		map (\Ai -> map (\cB -> map (\cC -> rnz (+) (\aj b -> rnz (+) (*) aj cC * b) Ai cB) (flip 0 C)) (flip 0 B))
		    (map (\Ai -> zip (\aj gj -> map (*gj) (zip (*) aj f)) Ai g) A)`)
	assert.Equal(t, 1, res.Report.KernelsAfter)
	assert.Equal(t, 0, res.Report.Temporaries)
}

// A dense → inference BatchNorm → ReLU block is one kernel: a matrix
// product whose dot products feed the normalisation and the activation.
func TestFuseDenseBatchNormReLUInference(t *testing.T) {
	x := must(graph.NewInput("x", graph.ArrayOf(graph.Float32, 4, 6), false))
	y, _, err := layers.Dense("dense1", x, 6, 5, graph.Float32)
	require.NoError(t, err)
	z, _, err := layers.BatchNorm("bn1", y, 5, graph.Float32, layers.BatchNormOptions{})
	require.NoError(t, err)
	r, err := layers.ReLU("relu1", z)
	require.NoError(t, err)
	res, err := Fuse(r, Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Report.KernelsBefore)
	require.Equal(t, 1, res.Report.KernelsAfter)
	k := res.Report.Kernels[0]
	assert.Equal(t, []string{"dense1", "bn1", "relu1"}, k.Sources)
	assert.Equal(t, `map (\r -> nzip (\c x1 m s g b -> max ((rnz (+) (*) r c + x1 - m) * rsqrt (s + 1e-05) * g + b) 0) (flip 0 dense1.W) dense1.b bn1.mean bn1.var bn1.scale bn1.shift) x`, k.Term)
	assert.Equal(t, "map x > nzip (flip 0 dense1.W) dense1.b bn1.mean bn1.var bn1.scale bn1.shift > rnz r c", k.Order)
	checkEval(t, r, res, 1e-6)
}

// A dense → training BatchNorm → ReLU block computes in three kernels: the
// batch statistics are one reduction over the batch axis (the sums of the
// deviations from the first row, and of their squares), which must be
// finished before the normalisation starts. The dense output is read by
// the shift (its first row, a view), the reduction and the normalisation
// (materialised once, as recomputing a matrix product would cost more);
// the normalisation also applies the ReLU. The shift and the two sums are
// read in place, through views and projections of the kernels' results,
// not copied by kernels of their own.
func TestFuseDenseBatchNormReLUTraining(t *testing.T) {
	x := must(graph.NewInput("x", graph.ArrayOf(graph.Float64, 4, 6), false))
	y, _, err := layers.Dense("dense1", x, 6, 5, graph.Float64)
	require.NoError(t, err)
	z, _, err := layers.BatchNorm("bn1", y, 5, graph.Float64, layers.BatchNormOptions{Training: true})
	require.NoError(t, err)
	r, err := layers.ReLU("relu1", z)
	require.NoError(t, err)
	res, err := Fuse(r, Options{})
	require.NoError(t, err)
	require.Equal(t, 3, res.Report.KernelsAfter)
	assert.Greater(t, res.Report.KernelsBefore, res.Report.KernelsAfter)
	var orders []string
	for _, k := range res.Report.Kernels {
		orders = append(orders, k.Order)
	}
	assert.Equal(t, []string{
		"map x > zip (flip 0 dense1.W) dense1.b > rnz r c",                                         // the dense layer
		"rnz t1_dense1 > zip r (first 0 t1_dense1)",                                                // (Σ_b (y_bj - k_j), Σ_b (y_bj - k_j)²) with k = y_0, one reduction
		"map t1_dense1 > nzip r (first 0 t1_dense1) (fst t2_bn1) (snd t2_bn1) bn1.scale bn1.shift", // normalise and ReLU
	}, orders)
	found := false
	for _, f := range res.Report.RulesRefused {
		found = found || f.Rule == "inline-let" && strings.Contains(f.Reason, "used 4 times")
	}
	assert.True(t, found, "the report says why the dense output is materialised: %+v", res.Report.RulesRefused)
	checkEval(t, r, res, 1e-12)
}

// Softmax over rows is one kernel: each row is read from memory once, and
// the max, the sum of exponentials and the normalisation are three loops
// over the row while it is in cache. The pass does not merge the max and
// the sum into one tuple reduction: that "online" form rescales partial
// sums by exp(m_old - m_new), which changes the rounding, and the pass only
// regroups reductions exactly as their laws allow.
func TestFuseSoftmax(t *testing.T) {
	x := must(graph.NewInput("x", graph.ArrayOf(graph.Float64, 3, 5), false))
	s, err := layers.Softmax("softmax", x)
	require.NoError(t, err)
	res, err := Fuse(s, Options{})
	require.NoError(t, err)
	require.Equal(t, 1, res.Report.KernelsAfter)
	// The three loops over the row, as NestTree finds them: the let's
	// body first, then the values it binds.
	assert.Equal(t, "map x > (map r; rnz r; rnz r)", res.Report.Kernels[0].Order)
	assert.Equal(t, `map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x`,
		res.Report.Kernels[0].Term)
	checkEval(t, s, res, 1e-12)
}

// An MLP 784-512-512-10 in inference mode is one kernel per block.
func TestFuseMLPInference(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: 2, DType: graph.Float32, Norm: models.NormBatch})
	require.NoError(t, err)
	res, err := Fuse(m.Output, Options{})
	require.NoError(t, err)
	assert.Equal(t, 7, res.Report.KernelsBefore)
	require.Equal(t, 3, res.Report.KernelsAfter)
	assert.Equal(t, [][]string{{"dense1", "bn1", "relu1"}, {"dense2", "bn2", "relu2"}, {"dense3"}},
		[][]string{res.Report.Kernels[0].Sources, res.Report.Kernels[1].Sources, res.Report.Kernels[2].Sources})
	assert.Equal(t, 2, res.Report.Temporaries)
	assert.Equal(t, 2*2*512*4, res.Report.TemporaryBytes)
}

// TestFusedAndUnfusedEqualEval runs every layer block and the MLP, fused
// and unfused, and compares both with the reference interpreter on the
// program itself, in float32 and float64. Fusion regroups nothing here, so
// the results agree up to the order of scalar operations within an
// expression; the tolerance is 1e-12 relative for f64 and 1e-6 for f32.
func TestFusedAndUnfusedEqualEval(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		tol := map[graph.DType]float64{graph.Float32: 1e-6, graph.Float64: 1e-12}[dt]
		for _, norm := range []models.Norm{models.NormNone, models.NormBatch, models.NormLayer} {
			for _, mode := range []models.Mode{models.Inference, models.Training} {
				for _, act := range []layers.Activation{layers.ActReLU, layers.ActGELU, layers.ActSiLU, layers.ActTanh, layers.ActSoftmax} {
					name := dt.String() + "/" + norm.String() + "/" + mode.String() + "/" + act.String()
					t.Run(name, func(t *testing.T) {
						m, err := models.MLP(models.MLPConfig{Sizes: []int{7, 6, 5, 3}, Batch: 3, DType: dt, Norm: norm, Mode: mode, Activation: act})
						require.NoError(t, err)
						in := m.Bindings(11)
						want, err := graph.Eval(m.Output, in)
						require.NoError(t, err)
						res, err := Fuse(m.Output, Options{})
						require.NoError(t, err)
						got, err := res.Graph.Eval(in)
						require.NoError(t, err)
						graphtest.Compare(t, want, got, tol)
						un, err := Unfused(m.Output)
						require.NoError(t, err)
						got, err = un.Eval(in)
						require.NoError(t, err)
						graphtest.Compare(t, want, got, tol)
						assert.LessOrEqual(t, res.Report.KernelsAfter, res.Report.KernelsBefore)
					})
				}
			}
		}
	}
}

func TestFuseIsDeterministic(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{9, 8, 7, 3}, Batch: 2, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	var texts []string
	for range 3 {
		res, err := Fuse(m.Output, Options{})
		require.NoError(t, err)
		var sb strings.Builder
		res.Report.Passes = nil // durations differ
		res.Report.Schedule.Search = 0
		for _, k := range res.Report.Kernels {
			k.Schedule.Duration = 0
		}
		require.NoError(t, res.Report.WriteJSON(&sb))
		texts = append(texts, sb.String()+res.Graph.String())
	}
	assert.Equal(t, texts[0], texts[1])
	assert.Equal(t, texts[0], texts[2])
}

func TestFuseDisableRule(t *testing.T) {
	src := `A : f64[5,7]; B : f64[5,7]; map (\r -> reduce (+) r) (zip (zip (+)) A B)`
	prog := must(graph.Parse(src))
	res, err := Fuse(prog.Body, Options{Disable: []string{"nzip-nzip"}})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Report.KernelsAfter)
	_, err = Fuse(prog.Body, Options{Disable: []string{"no-such-rule"}})
	assert.ErrorContains(t, err, `fusion: unknown rule "no-such-rule"; the rules are beta, inline-let`)
}

// Every name Options.Disable accepts is a rule some program needs: each
// appears in the rules_applied of programs below, disabling it takes it out
// of their reports, and for one of them at least it changes the fused term
// or the kernels. The schedule search's rules are refused with a message that
// says so.
func TestEveryRuleNameIsReachable(t *testing.T) {
	var corpus []graph.Node
	for _, src := range []string{
		`A : f64[5,7]; B : f64[5,7]; v : f64[7]; u : f64[7]; map (\r -> rnz (+) (*) r (zip (+) v u)) (zip (zip (+)) A B)`,
		`x : f64[3,5]; map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x`,
		`b : f32[6]; c : f32[6]; x : f32[8]; let t = zip (+) (map (*2) b) (map (*2) c) in map (\v -> snd (t, v)) x`,
		`u : f64[4]; (reduce (+) u, rnz (+) (\v -> v * v) u)`,
		`A : f64[2,3]; reduce (zip (+)) (flip 0 (flip 0 A))`,
		`u : f64[4]; map (\v -> v + 1) (let y = map (*2) u in zip (*) y y)`,
		`X : f64[4,3]; G : f64[4,2]; W : f64[2,5]; rnz (zip (+)) (\r g -> zip (\c gi -> gi) W g) X G`,
		`X : f64[4,3]; G : f64[4,2]; rnz (zip (zip (+))) (\r g -> map (\gi -> map (\xi -> gi * xi) r) g) X G`,
		`x : f64[11]; u : f64[5]; map (\c -> rnz (+) (*) c u) (flip 0 (window 0 3 2 x))`,
		`x : f64[3,5]; zip (\r s -> map (\v -> v * s) r) x (flatten 0 (map (map (\v -> 1 / v)) (subdiv 0 1 (map (reduce (+)) x))))`,
	} {
		corpus = append(corpus, must(graph.Parse(src)).Body)
	}
	for seed := range uint64(40) {
		for _, gen := range []graphtest.Generator{graphtest.Program, splitLetProgram, floatLetProgram, flipChainProgram} {
			term, _ := gen(graphtest.Rand(seed), graphtest.Config{})
			corpus = append(corpus, term)
		}
	}
	summary := func(res *Result) string { return graph.Print(res.Term) + "\n" + res.Graph.String() }
	for _, name := range RuleNames() {
		t.Run(name, func(t *testing.T) {
			applied := 0
			for _, term := range corpus {
				res, err := Fuse(term, Options{})
				require.NoError(t, err)
				if !slices.Contains(appliedRules(res.Report), name) {
					continue
				}
				applied++
				off, err := Fuse(term, Options{Disable: []string{name}})
				require.NoError(t, err)
				require.NotContains(t, appliedRules(off.Report), name)
				if summary(res) != summary(off) {
					return
				}
			}
			t.Fatalf("%s applies to %d programs of the corpus, and disabling it changes none", name, applied)
		})
	}
	for _, r := range Rules() {
		if slices.Contains(RuleNames(), r.Name()) {
			continue
		}
		_, err := Fuse(corpus[0], Options{Disable: []string{r.Name()}})
		assert.EqualError(t, err, fmt.Sprintf("fusion: rule %q belongs to the schedule pass, which applies it one exchange or subdivision at a time and is switched off whole (ScheduleOptions.Off); the rules the rewriting passes run are %s",
			r.Name(), strings.Join(RuleNames(), ", ")))
	}
}
