package fusion

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// paperMachine is a fixed machine for the tests, so that they do not
// depend on the host's caches.
func paperMachine() Machine {
	return Machine{LineBytes: 64, Caches: []Cache{{Level: 1, Bytes: 32 << 10}, {Level: 2, Bytes: 1 << 20}, {Level: 3, Bytes: 16 << 20}}, Source: "test"}.withRates()
}

func matmulTerm(t *testing.T, n int) graph.Node {
	t.Helper()
	return parse(t, fmt.Sprintf(`A : f64[%d,%d]; B : f64[%d,%d];
map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`, n, n, n, n))
}

func TestReadMachine(t *testing.T) {
	dir := t.TempDir()
	write := func(index, name, value string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, index), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, index, name), []byte(value+"\n"), 0o644))
	}
	for _, c := range [][4]string{
		{"index0", "1", "Data", "48K"},
		{"index1", "1", "Instruction", "32K"},
		{"index2", "2", "Unified", "1024K"},
		{"index3", "3", "Unified", "32M"},
	} {
		write(c[0], "level", c[1])
		write(c[0], "type", c[2])
		write(c[0], "size", c[3])
		write(c[0], "coherency_line_size", "128")
	}
	m, err := ReadMachine(dir)
	require.NoError(t, err)
	assert.Equal(t, 128, m.LineBytes)
	assert.Equal(t, []int{48 << 10, 1 << 20, 32 << 20}, []int{m.Caches[0].Bytes, m.Caches[1].Bytes, m.Caches[2].Bytes})
	assert.Len(t, m.Caches, 3, "the instruction cache is left out")
	assert.Greater(t, m.Caches[0].Bandwidth, m.Caches[2].Bandwidth)
	assert.Contains(t, m.String(), "L2 1.0 MiB")

	write("index2", "size", "lots")
	_, err = ReadMachine(dir)
	assert.ErrorContains(t, err, `index2/size: "lots" is not a cache size`)
	_, err = ReadMachine(t.TempDir())
	assert.ErrorContains(t, err, "describes no data cache")
	// The host's, or the defaults: either way some caches.
	assert.NotEmpty(t, DetectMachine().Caches)
}

// spearman is the rank correlation of x and y (no ties in y; ties in x
// get their mean rank).
func spearman(x, y []float64) float64 {
	rank := func(v []float64) []float64 {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			switch {
			case v[a] < v[b]:
				return -1
			case v[a] > v[b]:
				return 1
			}
			return 0
		})
		r := make([]float64, len(v))
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
				j++
			}
			for k := i; k <= j; k++ {
				r[idx[k]] = float64(i+j)/2 + 1
			}
			i = j + 1
		}
		return r
	}
	rx, ry := rank(x), rank(y)
	mean := float64(len(x)+1) / 2
	var num, dx, dy float64
	for i := range rx {
		num += (rx[i] - mean) * (ry[i] - mean)
		dx += (rx[i] - mean) * (rx[i] - mean)
		dy += (ry[i] - mean) * (ry[i] - mean)
	}
	return num / math.Sqrt(dx*dy)
}

// The paper's Table 1 (seconds, 1024×1024 f64, its machine), by order.
var paperTable1 = map[string]float64{
	"mapA rnz mapB": 0.45, "rnz mapA mapB": 1.41, "mapA mapB rnz": 4.67,
	"mapB mapA rnz": 6.05, "rnz mapB mapA": 13.8, "mapB rnz mapA": 15.6,
}

// The cost model, as loops (no GEMM), ranks the six orders of the naive
// product as the paper measured them: the two unit-stride orders first,
// the two that walk both A and the result by columns last.
func TestHierCostRanksTable1(t *testing.T) {
	scheds, err := Search(matmulTerm(t, 1024), SearchOptions{})
	require.NoError(t, err)
	var ours, paper []float64
	m := HierCost{Machine: paperMachine(), NoGEMM: true}
	for _, s := range scheds {
		c, err := m.Cost(s)
		require.NoError(t, err)
		ours = append(ours, c)
		paper = append(paper, paperTable1[s.Key()])
	}
	rho := spearman(ours, paper)
	t.Logf("costs %v, Spearman %.3f", ours, rho)
	assert.GreaterOrEqual(t, rho, 0.8)
}

// With the GEMM micro-kernel, the matrix product written in the contract
// rule's form is the cheapest order by far: the model never trades it.
func TestHierCostKeepsGEMMForm(t *testing.T) {
	scheds, err := Search(matmulTerm(t, 256), SearchOptions{})
	require.NoError(t, err)
	best, costs, err := Best(scheds, HierCost{Machine: paperMachine()})
	require.NoError(t, err)
	assert.Equal(t, "mapA mapB rnz", best.Key(), "costs %v", costs)
	for i, s := range scheds {
		if s.Key() != "mapA mapB rnz" && s.Key() != "mapB mapA rnz" {
			assert.Greater(t, costs[i], 10*costs[0], s.Key())
		}
	}
}

// exhaustiveBest costs every order of the nest, after no subdivision and
// after each single subdivision by block, with no pruning, and returns the
// cheapest order and its subdivision.
func exhaustiveBest(t *testing.T, term graph.Node, levels, block int, m CostModel) (string, []Subdivision, float64) {
	t.Helper()
	subs := [][]Subdivision{nil}
	for l := range levels {
		subs = append(subs, []Subdivision{{Level: l, Block: block}})
	}
	bestCost := math.Inf(1)
	var bestOrder string
	var bestSubs []Subdivision
	for _, sub := range subs {
		scheds, err := Search(term, SearchOptions{Subdivide: sub})
		require.NoError(t, err)
		for _, s := range scheds {
			if s.Term == nil {
				continue
			}
			c, err := m.Cost(s)
			require.NoError(t, err)
			if c < bestCost {
				bestCost, bestOrder, bestSubs = c, s.Key(), sub
			}
		}
	}
	return bestOrder, bestSubs, bestCost
}

// The pass's early cut never drops the order the exhaustive search finds
// best, on the paper's matrix product at its size and block, with and
// without the GEMM micro-kernel.
func TestSchedulePruningKeepsBest(t *testing.T) {
	for _, nogemm := range []bool{true, false} {
		t.Run(fmt.Sprintf("nogemm=%v", nogemm), func(t *testing.T) {
			term := matmulTerm(t, 1024)
			m := HierCost{Machine: paperMachine(), NoGEMM: nogemm}
			order, subs, cost := exhaustiveBest(t, term, 3, 16, m)
			g, err := Whole(term)
			require.NoError(t, err)
			require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine(), NoGEMM: nogemm, Blocks: []int{16}, Margin: 1e-9, Budget: 1 << 30}))
			s := g.Kernels[0].Schedule
			t.Logf("exhaustive: %s %v %.4g s; pass: %s", order, subs, cost, s)
			assert.Equal(t, order, s.Order)
			assert.InDelta(t, cost, s.Cost, 1e-9*cost)
			assert.NotEmpty(t, s.Pruned, "the paper's orders include equivalent ones to cut")
			if nogemm {
				assert.True(t, s.Changed)
				assert.NotEqual(t, "none", s.Subdivisions)
			} else {
				assert.False(t, s.Changed, "the written order is the GEMM form")
			}
		})
	}
}

// A contraction written in an order the GEMM micro-kernel does not take
// — the weight gradient Xᵀ·G as reverse mode writes it, a sum over the
// batch of outer products — is exchanged into the one it takes.
func TestScheduleReachesGEMMForm(t *testing.T) {
	term := parse(t, `X : f32[256,128]; G : f32[256,192];
rnz (zip (zip (+))) (\x g -> map (\xi -> map (\gj -> xi * gj) g) x) X G`)
	g, err := Whole(term)
	require.NoError(t, err)
	require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine()}))
	s := g.Kernels[0].Schedule
	assert.Equal(t, "rnz mapX mapG", s.Written)
	assert.Contains(t, []string{"mapX mapG rnz", "mapG mapX rnz"}, s.Order, s.String())
	assert.True(t, s.Changed)
	assert.Less(t, s.Cost, s.WrittenCost/10)
	_, info, loops, err := typedLoops(g.Kernels[0].Body)
	require.NoError(t, err)
	_, _, ok := gemmShape(info, loops.levels)
	assert.True(t, ok, "scheduled body %s", graph.Print(g.Kernels[0].Body))
	checkGraphEqual(t, term, g, 7)
}

// TestScheduleKeepsBatchedGEMM: maps around a matrix product (an imported
// MatMul of rank 3, whose batch axis here has extent 1, or attention's
// heads) are a batch of GEMMs, which the back ends run as such; the
// schedule pass knows their cost, written with a lambda or as a partial
// application (map (map f), which it reads in lambda form), and keeps them
// as written. It used to cost the partial form at one row a batch and
// exchange it into a loop of axpys that the native back end ran 10-30x
// slower than the GEMM.
func TestScheduleKeepsBatchedGEMM(t *testing.T) {
	for _, tc := range []struct {
		src   string
		flops float64
	}{
		{`A : f32[1,512,768]; W : f32[768,768]; map (map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W))) A`, 2 * 512 * 768 * 768},
		{`A : f32[4,256,768]; W : f32[768,768]; map (\m -> map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W)) m) A`, 2 * 4 * 256 * 768 * 768},
	} {
		term := parse(t, tc.src)
		_, info, loops, err := typedLoops(term)
		require.NoError(t, err)
		flops, _, ok := gemmShape(info, loops.levels)
		require.True(t, ok, tc.src)
		assert.Equal(t, tc.flops, flops, tc.src)
		g, err := Whole(term)
		require.NoError(t, err)
		require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine()}))
		s := g.Kernels[0].Schedule
		assert.False(t, s.Changed, "%s: %s", tc.src, s.String())
		assert.Contains(t, s.By, "GEMM micro-kernel's form", tc.src)
	}
}

// checkGraphEqual evaluates term and g on the same random inputs.
func checkGraphEqual(t *testing.T, term graph.Node, g *Graph, seed uint64) {
	t.Helper()
	info, err := graph.Check(term)
	require.NoError(t, err)
	cfg := graphtest.Config{DType: graph.Float64}
	in := cfg.Inputs(graphtest.Rand(seed), info.Inputs)
	want, err := graph.Eval(term, in)
	require.NoError(t, err)
	got, err := g.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, graph.ToleranceOf(want))
}

// lastOrder chooses the last order the pass enumerated: of the orders
// the model would not choose, the one the most exchanges away.
func lastOrder(_ *Kernel, cands []*ScheduleCandidate) int { return len(cands) - 1 }

// The law of the schedule pass: every order it enumerates computes the
// kernel's value. Random programs of every generator are cut into one
// kernel; each order the pass enumerates is evaluated against the term,
// and the graph with the last order chosen against the term too; so are
// the programs fused by Fuse with the last order of every kernel chosen.
func TestScheduleLaw(t *testing.T) {
	orders, trees := 0, 0
	for _, gen := range graphtest.Generators() {
		for seed := range uint64(12) {
			n, tr := scheduleLawCase(t, gen, seed)
			orders, trees = orders+n, trees+tr
		}
	}
	t.Logf("%d orders other than the written one checked, %d of them moving a loop off the spine", orders, trees)
	assert.Greater(t, orders, 100, "the generators' programs have nests to reorder")
	assert.Greater(t, trees, 10, "the generators' programs have loops off the spine to reorder")
}

// FuzzScheduleLaw is TestScheduleLaw on fuzzed seeds, every generator.
func FuzzScheduleLaw(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		for _, gen := range graphtest.Generators() {
			_, _ = scheduleLawCase(t, gen, seed)
		}
	})
}

// scheduleLawCase checks one program of gen, drawn from seed, and returns
// the number of orders other than the written one it checked, and how
// many of them kept the spine (Nest) as written and moved a loop off it.
func scheduleLawCase(t *testing.T, gen graphtest.NamedGenerator, seed uint64) (orders, trees int) {
	t.Helper()
	cfg := graphtest.Config{DType: graph.Float64}
	if seed%2 == 1 {
		cfg.DType = graph.Float32
	}
	r := graphtest.Rand(seed)
	term, ins := gen.Gen(r, cfg)
	in := cfg.Inputs(r, ins)
	want, err := graph.Eval(term, usedInputs(term, in))
	require.NoError(t, err)
	tol := graph.ToleranceOf(want)
	name := fmt.Sprintf("%s/%d", gen.Name, seed)

	g, err := Whole(term)
	require.NoError(t, err, name)
	err = ScheduleGraph(g, ScheduleOptions{Machine: paperMachine(), MinCost: -1, Blocks: []int{2, 3},
		Choose: func(k *Kernel, cands []*ScheduleCandidate) int {
			base, err := hoistViews(k.Body)
			require.NoError(t, err, name)
			for _, c := range spread(cands[1:], maxLawOrders) {
				got, err := graph.Eval(c.Term, usedInputs(c.Term, in))
				require.NoError(t, err, "%s: order %s: %s", name, c.Order, graph.Print(c.Term))
				if d := graph.Diff(want, got, tol); d != nil {
					t.Fatalf("%s: order %s changed the value\nwritten: %s\norder:   %s\n%v", name, c.Order, graph.Print(term), graph.Print(c.Term), d)
				}
				orders++
				if len(c.Subdivisions) == 0 && spineOrder(c.Term) == spineOrder(base) && graph.Print(c.Term) != graph.Print(base) {
					trees++ // the spine as written, another loop moved
				}
			}
			return len(cands) - 1
		}})
	require.NoError(t, err, name)
	got, err := g.Eval(usedInputs(term, in))
	require.NoError(t, err, name)
	if d := graph.Diff(want, got, tol); d != nil {
		t.Fatalf("%s: the scheduled kernel changed the value\n%s\n%v", name, g, d)
	}

	res, err := Fuse(term, Options{Schedule: ScheduleOptions{MinCost: -1, Choose: lastOrder}})
	require.NoError(t, err, name)
	got, err = res.Graph.Eval(usedInputs(term, in))
	require.NoError(t, err, name)
	if d := graph.Diff(want, got, tol); d != nil {
		t.Fatalf("%s: the fused and scheduled graph changed the value\n%s\n%v", name, res.Graph, d)
	}
	return orders, trees
}

// maxLawOrders bounds the orders of one kernel that scheduleLawCase
// interprets: a large random kernel has hundreds, each interpreted in
// tens of milliseconds, which would take a fuzzed input past the fuzzer's
// ten seconds.
const maxLawOrders = 48

// spread returns at most n elements of s, evenly spaced, the last
// included.
func spread[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	out := make([]T, n)
	for i := range n {
		out[i] = s[(i+1)*len(s)/n-1]
	}
	return out
}

// spineOrder writes the levels of term's Nest.
func spineOrder(term graph.Node) string {
	var parts []string
	for _, l := range Nest(term) {
		parts = append(parts, l.String())
	}
	return strings.Join(parts, " > ")
}

// The MLP, in inference and training, fused and scheduled with the last
// order of every kernel, equals the interpreter; with the default choice
// too.
func TestScheduleMLP(t *testing.T) {
	for _, mode := range []models.Mode{models.Inference, models.Training} {
		m, err := models.MLP(models.MLPConfig{Sizes: []int{12, 8, 6, 3}, Batch: 4, DType: graph.Float64, Norm: models.NormBatch, Mode: mode})
		require.NoError(t, err)
		in := m.RandomInput(3)
		b := m.RandomParams(3)
		b[m.Input.Name] = in
		want, err := graph.Eval(m.Output, b)
		require.NoError(t, err)
		changed := 0
		for _, choose := range []func(*Kernel, []*ScheduleCandidate) int{nil, lastOrder} {
			res, err := Fuse(m.Output, Options{Schedule: ScheduleOptions{MinCost: -1, Choose: choose}})
			require.NoError(t, err)
			got, err := res.Graph.Eval(b)
			require.NoError(t, err)
			graphtest.Compare(t, want, got, graph.ToleranceOf(want))
			for _, k := range res.Graph.Kernels {
				if k.Schedule != nil && k.Schedule.Changed {
					changed++
				}
			}
		}
		assert.Positive(t, changed, "some kernel of the MLP ran in another order")
	}
}

// The report shows each kernel's order, prediction and pruning, and the
// pass's time; Off leaves the kernels unscheduled.
func TestScheduleReport(t *testing.T) {
	term := matmulTerm(t, 64)
	res, err := Fuse(term, Options{Schedule: ScheduleOptions{Machine: paperMachine(), NoGEMM: true, Blocks: []int{16}}})
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, res.Report.WriteText(&sb))
	assert.Contains(t, sb.String(), "  order:  ")
	assert.Contains(t, sb.String(), "pruned")
	assert.Regexp(t, `schedule: \d+ orders costed, \d+ pruned, 1 kernels reordered, in `, sb.String())
	sb.Reset()
	require.NoError(t, res.Report.WriteJSON(&sb))
	assert.Contains(t, sb.String(), `"predicted_s"`)
	assert.Contains(t, sb.String(), `"search_ns"`)
	assert.Equal(t, res.Graph.Kernels[0].Schedule, res.Report.Kernels[0].Schedule)
	assert.Contains(t, res.Graph.Kernels[0].Label(), "(scheduled ")

	res, err = Fuse(term, Options{Schedule: ScheduleOptions{Off: true}})
	require.NoError(t, err)
	assert.Nil(t, res.Graph.Kernels[0].Schedule)
	assert.Nil(t, res.Report.Schedule)
	assert.Equal(t, res.Graph.Kernels[0].Name, res.Graph.Kernels[0].Label())
}

// Choose must return one of the orders.
func TestScheduleChooseOutOfRange(t *testing.T) {
	g, err := Whole(matmulTerm(t, 8))
	require.NoError(t, err)
	err = ScheduleGraph(g, ScheduleOptions{Choose: func(*Kernel, []*ScheduleCandidate) int { return 99 }})
	assert.ErrorContains(t, err, "kernel k1_kernel: ScheduleOptions.Choose chose order 99 of ")
}

// The tuner times the model's best orders and keeps the fastest in its
// cache; the next run reads it without timing; a corrupt file, or one
// from another machine, is ignored with a warning and rewritten.
func TestTuner(t *testing.T) {
	dir := t.TempDir()
	term := matmulTerm(t, 256)
	var warnings []string
	timed := 0
	tuner := &Tuner{
		Dir:     dir,
		Machine: paperMachine(),
		Warn:    func(s string) { warnings = append(warnings, s) },
		// A machine on which the written order is the fastest.
		Time: func(k *Kernel, body graph.Node) (float64, error) {
			timed++
			if body == k.Body {
				return 1e-3, nil
			}
			return 2e-3, nil
		},
	}
	run := func() *KernelSchedule {
		g, err := Whole(term)
		require.NoError(t, err)
		require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine(), NoGEMM: true, Tune: tuner}))
		return g.Kernels[0].Schedule
	}
	s := run()
	assert.Equal(t, "mapA mapB rnz", s.Order, "measured, the written order wins against the model's choice")
	assert.Equal(t, 4, timed, "the written order and the model's best three")
	assert.Equal(t, 1e-3, s.Measured)
	assert.Contains(t, s.By, "measurement (4 orders timed)")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)

	timed = 0
	s = run()
	assert.Zero(t, timed, "the choice is read from the cache")
	assert.Contains(t, s.By, "cached in "+files[0])
	assert.Empty(t, warnings)

	require.NoError(t, os.WriteFile(files[0], []byte("{not json"), 0o644))
	s = run()
	assert.Equal(t, 4, timed)
	assert.Contains(t, s.By, "measurement (4 orders timed)")
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "ignoring "+files[0]+", which is not a cache file")
	assert.Contains(t, warnings[0], "rewriting it")

	other := *tuner
	other.Machine.Caches = []Cache{{Level: 1, Bytes: 1}}
	g, err := Whole(term)
	require.NoError(t, err)
	require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine(), NoGEMM: true, Tune: &other}))
	require.Len(t, warnings, 2)
	assert.Contains(t, warnings[1], "measured on another machine")
	// The file is now the other machine's: this one measures again.
	timed = 0
	run()
	assert.Equal(t, 4, timed)
	assert.Contains(t, warnings[2], "measured on another machine")
}

// On the MLP 784-512-512-10 at batch 256, inference and the training
// step, the schedule pass keeps every kernel as fusion wrote it: the
// matrix products are in the GEMM micro-kernel's form, and the model
// predicts no other order of the elementwise and reduction kernels
// cheaper by the margin. So the native back end runs exactly what it ran
// without the pass (the figures in the closing note time both).
func TestScheduleKeepsMLPKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("fuses the full-size MLP and its training step")
	}
	m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: 256, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Inference})
	require.NoError(t, err)
	mt, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: 256, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	step, err := mt.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	require.NoError(t, err)
	searched := 0
	for _, name := range []string{"inference", "step"} {
		term := map[string]graph.Node{"inference": m.Output, "step": step.Term}[name]
		on, err := Fuse(term, Options{})
		require.NoError(t, err, name)
		off, err := Fuse(term, Options{Schedule: ScheduleOptions{Off: true}})
		require.NoError(t, err, name)
		assert.Equal(t, off.Graph.String(), on.Graph.String(), name)
		assert.Zero(t, on.Report.Schedule.Changed, name)
		n, gemm := 0, 0
		for _, k := range on.Graph.Kernels {
			if k.Schedule.Orders > 1 {
				n++
			}
			if strings.Contains(k.Schedule.By, "the GEMM micro-kernel's form") {
				gemm++
			}
		}
		if name == "inference" {
			assert.Equal(t, 3, gemm, "the three dense layers are cut by the GEMM bound")
		}
		searched += n
		t.Logf("%s: %d kernels, %d searched, %d cut by the GEMM bound, %d orders costed, %d pruned, search %v",
			name, len(on.Graph.Kernels), n, gemm, on.Report.Schedule.Orders, on.Report.Schedule.Pruned, on.Report.Schedule.Search)
	}
	assert.Positive(t, searched, "the pass searched some kernels")
}

// The cost model against measurements: the 18 orders of the paper's
// matrix product at N = 1024, as hofuse paper matmul timed them on the
// machine the default rates were calibrated on (testdata, saved with
// --json). The model ranks both tables as measured, and its times are
// within a factor e of the measured ones on average (they are within
// about 2).
func TestHierCostCalibration(t *testing.T) {
	b, err := os.ReadFile("testdata/paper_matmul_1024.json")
	require.NoError(t, err)
	var rep struct {
		Table1, Table2 []struct {
			Order string  `json:"order"`
			Ours  float64 `json:"ours_s"`
		}
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	m := HierCost{NoGEMM: true, Machine: Machine{LineBytes: 64, Source: "the calibration machine",
		Caches: []Cache{{Level: 1, Bytes: 48 << 10}, {Level: 2, Bytes: 1 << 20}, {Level: 3, Bytes: 32 << 20}}}}
	term := matmulTerm(t, 1024)
	logErr, n := 0.0, 0
	for i, sub := range [][]Subdivision{nil, {{Level: 2, Block: 16}}} {
		rows := [][]struct {
			Order string  `json:"order"`
			Ours  float64 `json:"ours_s"`
		}{rep.Table1, rep.Table2}[i]
		measured := map[string]float64{}
		for _, r := range rows {
			measured[r.Order] = r.Ours
		}
		scheds, err := Search(term, SearchOptions{Subdivide: sub})
		require.NoError(t, err)
		require.Len(t, scheds, len(rows))
		var ours, theirs []float64
		for _, s := range scheds {
			c, err := m.Cost(s)
			require.NoError(t, err)
			want, ok := measured[s.Key()]
			require.True(t, ok, s.Key())
			ours, theirs = append(ours, c), append(theirs, want)
			logErr += math.Abs(math.Log(c / want))
			n++
		}
		rho := spearman(ours, theirs)
		t.Logf("table %d: Spearman %.3f, predicted %v, measured %v", i+1, rho, ours, theirs)
		assert.GreaterOrEqual(t, rho, []float64{0.9, 0.8}[i], "table %d", i+1)
	}
	t.Logf("mean |log(predicted/measured)| %.2f", logErr/float64(n))
	assert.Less(t, logErr/float64(n), 1.0)
}

// TestScheduleKeepsWindowKernels: the CNN's convolutions and poolings,
// forward and in its training step, keep the order the layers wrote, the
// form the back ends' convolution and pooling paths take; and the pass's
// choices are the same on every run, whatever the load, because its
// budget counts orders, not time.
func TestScheduleKeepsWindowKernels(t *testing.T) {
	m, err := models.CNN(models.CNNConfig{Batch: 32, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	step, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	require.NoError(t, err)
	// MinCost < 0: no kernel is kept for being small, so the window
	// kernels are kept for being window kernels.
	first, err := Fuse(step.Term, Options{Schedule: ScheduleOptions{MinCost: -1}})
	require.NoError(t, err)
	windows := 0
	for _, k := range first.Graph.Kernels {
		if readsWindow(k.Body) {
			windows++
			assert.Equal(t, k.Schedule.Written, k.Schedule.Order, k.Name)
			assert.Contains(t, k.Schedule.By, "a window kernel", k.Name)
		}
	}
	assert.Positive(t, windows, "the CNN's step has window kernels")
	again, err := Fuse(step.Term, Options{Schedule: ScheduleOptions{MinCost: -1}})
	require.NoError(t, err)
	assert.Equal(t, first.Graph.String(), again.Graph.String())

	// A budget of a few orders is spent on the first kernels searched;
	// the rest keep their order and say why.
	small, err := Fuse(step.Term, Options{Schedule: ScheduleOptions{Budget: 1, MinCost: -1}})
	require.NoError(t, err)
	spent := 0
	for _, k := range small.Graph.Kernels {
		if k.Schedule != nil && strings.Contains(k.Schedule.By, "budget") {
			spent++
		}
	}
	assert.Positive(t, spent, "a budget of one order runs out")
}

// TestScheduleKeepsAttentionProducts: attention's kernel per head is a
// tree of loops, a product of Q and Kᵀ, a softmax of its rows and a
// product of that with V. The back ends run both products on the GEMM
// micro-kernel, and the cost model costs them so, each path of the tree
// on its own, where it used to cost P·V as strided loops and exchange it
// into rows of axpys that the native back end ran 1.5x slower.
func TestScheduleKeepsAttentionProducts(t *testing.T) {
	term := parse(t, `Q : f32[12,128,64]; K : f32[12,128,64]; V : f32[12,128,64];
nzip (\q k v ->
  map (\p -> map (\c -> rnz (+) (*) p c) (flip 0 v))
    (map (\e -> let m = reduce max e in let s = rnz (+) (\x -> exp (x - m)) e in map (\x -> exp (x - m) / s) e)
      (map (\r -> map (\c -> rnz (+) (*) r c) k) q))) Q K V`)
	g, err := Whole(term)
	require.NoError(t, err)
	require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine()}))
	s := g.Kernels[0].Schedule
	assert.False(t, s.Changed, s.String())
	_, info, loops, err := typedLoops(g.Kernels[0].Body)
	require.NoError(t, err)
	paths, _ := loops.paths()
	products := 0
	for _, p := range paths {
		if flops, _, ok := productShape(info, loops.path(p)); ok {
			products++
			assert.Equal(t, float64(2*12*128*128*64), flops)
		}
	}
	assert.Equal(t, 2, products, "scheduled body %s", graph.Print(g.Kernels[0].Body))
}

// TestCostTypesPartialApplications: a map whose function is a partial
// application, map (map f), costs what the same loops written with a
// lambda cost; the model reads both in lambda form, where the inner map's
// argument is typed. It used to take the inner loops' extents for 1.
func TestCostTypesPartialApplications(t *testing.T) {
	m := HierCost{Machine: paperMachine()}
	for _, tc := range []struct{ partial, lambda string }{
		{`x : f32[64,256,32]; map (map (map exp)) x`, `x : f32[64,256,32]; map (\a -> map (\b -> map (\c -> exp c) b) a) x`},
		{`x : f32[64,256,32]; map (map (reduce max)) x`, `x : f32[64,256,32]; map (\a -> map (\b -> reduce max b) a) x`},
	} {
		partial, err := m.TermCost(parse(t, tc.partial))
		require.NoError(t, err)
		lambda, err := m.TermCost(parse(t, tc.lambda))
		require.NoError(t, err)
		assert.InDelta(t, lambda, partial, lambda*1e-9, tc.partial)
		_, info, loops, err := typedLoops(parse(t, tc.partial))
		require.NoError(t, err)
		var extents []int
		for _, l := range loops.levels {
			h, _ := asHOF(l.Node)
			extents = append(extents, levelExtent(info, h))
		}
		assert.Equal(t, []int{64, 256, 32}, extents, tc.partial)
	}
}

// streamBoundOf is model's streamBound of term's loops; ok false where
// term has none the cost model takes.
func streamBoundOf(model HierCost, term graph.Node) (float64, bool) {
	_, info, l, err := typedLoops(term)
	if err != nil {
		return 0, false
	}
	return model.streamBound(info, l)
}

// TestScheduleStreamBound: a nest of elementwise maps written row-major
// reads and writes every byte once, vectorised, which is the cost model's
// lower bound for every order of it (streamBound): the pass keeps it as
// written without costing another order. The bound is below the cost of
// every order the search reaches, subdivided or not, for that nest and
// for a transposing one (whose written order is not at the bound, and
// which the pass still searches). The CNN's training step at batch 256,
// whose BatchNorm and ReLU kernels are such nests over [256,8,8,8], used
// to cost 140 orders each: 3.4 s of search.
func TestScheduleStreamBound(t *testing.T) {
	mach := paperMachine()
	model := HierCost{Machine: mach}
	for _, tc := range []struct {
		name, src string
		atBound   bool
	}{
		{"elementwise", `X : f32[64,32,32,16]; Y : f32[64,32,32,16]; zip (zip (zip (zip (\a b -> max (a + b) 0)))) X Y`, true},
		{"transposing", `X : f32[512,512]; Y : f32[512,512]; zip (zip (\a b -> a * b + a)) X (flip 0 Y)`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := parse(t, tc.src)
			bound, ok := streamBoundOf(model, term)
			require.True(t, ok)
			g, err := Whole(term)
			require.NoError(t, err)
			require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: mach}))
			s := g.Kernels[0].Schedule
			assert.Equal(t, tc.atBound, strings.Contains(s.By, "every byte once"), s.String())
			if tc.atBound {
				assert.Equal(t, 1, s.Orders, s.String())
				assert.InDelta(t, bound, s.WrittenCost, bound*1e-9, "the written order costs the bound")
			} else {
				assert.Greater(t, s.Orders, 1, "searched: %s", s.String())
			}
			// Every order the search reaches costs at least the bound.
			g, err = Whole(term)
			require.NoError(t, err)
			seen := 0
			require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: mach, Choose: func(_ *Kernel, orders []*ScheduleCandidate) int {
				for _, c := range orders {
					seen++
					assert.GreaterOrEqual(t, c.Cost, bound*(1-1e-9), "%s %v", c.Order, c.Subdivisions)
				}
				return 0
			}}))
			assert.GreaterOrEqual(t, seen, 4, "orders reached")
		})
	}
	for _, src := range []string{
		`A : f32[64,64]; B : f32[64,64]; map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A`,
		`X : f32[8,64]; map (\r -> let m = reduce max r in map (\x -> x - m) r) X`,
	} {
		_, ok := streamBoundOf(model, parse(t, src))
		assert.False(t, ok, "no stream bound for %s", src)
	}

	m, err := models.CNN(models.CNNConfig{Batch: 256, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	step, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	require.NoError(t, err)
	res, err := Fuse(step.Term, Options{Schedule: ScheduleOptions{Machine: mach}})
	require.NoError(t, err)
	orders, bounded := 0, 0
	for _, k := range res.Graph.Kernels {
		if k.Schedule == nil {
			continue
		}
		orders += k.Schedule.Orders
		if strings.Contains(k.Schedule.By, "every byte once") {
			bounded++
		}
	}
	assert.GreaterOrEqual(t, bounded, 6, "elementwise kernels kept at the bound")
	assert.Less(t, orders, 100, "orders costed over the CNN step")
}
