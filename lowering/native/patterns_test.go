package native_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestPatterns checks that the shapes the compiler should recognise are
// recognised: the plan's description names the kernel calls and loops it
// chose.
func TestPatterns(t *testing.T) {
	insts, err := lowertest.Instances()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]graph.Node{}
	for _, c := range insts {
		cases[c.Name] = c.Term
	}
	for _, c := range []struct {
		name   string
		opts   native.Options
		want   []string
		forbid []string
	}{
		{"dense/fused-bn-relu", native.Options{}, []string{"gemm 9x11x13 A·B f32", "epilogue per row segment", "hoisted $h1 f32[11] = nzip"}, nil},
		{"dense/unfused", native.Options{}, []string{"gemm 9x11x13 A·B f32", "epilogue per row segment, blocks of rows as flat chunks of 9 rows: 2 loads, 1 ops"}, []string{"materialise"}},
		{"dense/transB", native.Options{}, []string{"gemm 6x4x5 A·Bᵀ f64"}, nil},
		{"matmul/mapA_mapB_rnz", native.Options{}, []string{"gemm 5x7x6 A·B f64"}, nil},
		{"matmul/mapA_mapB_rnz", native.Options{NoGEMM: true}, []string{"loop nzip [7] of dot [6]"}, []string{"gemm"}},
		{"matmul-blocked/rnz_mapA_mapB_rnz", native.Options{}, []string{"C += A·B"}, nil},
		{"matvec/rows", native.Options{}, []string{"loop nzip [6] of dot [9]"}, nil},
		{"matvec/columns", native.Options{}, []string{"loop rnz [9] of axpy [6] (kernels.Axpy)"}, []string{"scratch"}},
		{"matvec/1c", native.Options{}, []string{"loop rnz [9] of axpy [6]"}, []string{"scratch"}}, // the nest of two rnz [3] merged (collapseReduce)
		{"matmul/rnz_mapA_mapB", native.Options{NoGEMM: true}, []string{"loop nzip [5] of axpy [7]"}, []string{"gemm", "scratch"}},
		{"matmul-blocked/rnz_mapA_rnz_mapB", native.Options{NoGEMM: true}, []string{"loop rnz [3] of axpy [7]"}, []string{"gemm", "scratch"}},
		{"reduce/sum-of-maxes-lifted", native.Options{}, []string{"vector loop [5]: 12 loads, 11 ops"}, []string{"rnz"}}, // both reductions unrolled (normalisation's rule 5)
		{"reduce/sum-of-maxes-lifted-long", native.Options{}, []string{"rnz [6] into scratch, then accumulate"}, nil},
		{"reduce/dot", native.Options{}, []string{"dot [13] (kernels.Dot)"}, nil},
		{"reduce/large", native.Options{}, []string{"split over 2 goroutines"}, nil},
		{"reduce/tuple", native.Options{}, []string{"in place ([add max])"}, []string{"general"}},
		{"reduce/general", native.Options{}, []string{"loop rnz [13] scalar"}, nil},
		{"elementwise/f32-long", native.Options{}, []string{"f32 chunks"}, []string{"per-element"}},
		{"elementwise/large", native.Options{}, []string{"vector loop [60000]", "split over goroutines"}, nil},
		{"softmax/rows-f32", native.Options{}, []string{"vector rnz [33] (max)", "vector rnz [33] (add)", "f32 chunks", "element function shared by a reduction and a map"}, []string{"per-element"}},
		{"hoist/closed-under-lambda", native.Options{}, []string{"hoisted $h1 f64[11]"}, nil},
		{"views/flip-of-computed", native.Options{}, nil, []string{"scratch"}},
		{"elementwise/id", native.Options{}, []string{"copy [77]"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.Parallelism == 0 {
				c.opts.Parallelism = 2 // the descriptions below assume two goroutines
			}
			term, ok := cases[c.name]
			if !ok {
				t.Fatalf("no case %s in the suite", c.name)
			}
			g, err := fusion.Whole(term)
			if err != nil {
				t.Fatal(err)
			}
			p, err := native.New(c.opts).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			d := p.Describe()
			for _, w := range c.want {
				if !strings.Contains(d, w) {
					t.Errorf("plan lacks %q:\n%s", w, d)
				}
			}
			for _, f := range c.forbid {
				if strings.Contains(d, f) {
					t.Errorf("plan has %q:\n%s", f, d)
				}
			}
		})
	}
}

// TestMLPPatterns checks that every dense layer of the benchmark network,
// fused or not, becomes a GEMM.
func TestMLPPatterns(t *testing.T) {
	for mode, want := range map[string]int{"fused": 3, "unfused": 3} {
		g, _ := mlpGraph(t, 4, graph.Float32, mode)
		p, err := native.New(native.Options{}).Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(p.Describe(), "gemm "); got != want {
			t.Errorf("%s: %d GEMMs, want %d:\n%s", mode, got, want, p.Describe())
		}
		p.Close()
	}
}

// TestConcurrentRuns runs one plan from several goroutines: runs are
// serialised, and every result is right when read under the plan's lock
// discipline (copied before the next run can start).
func TestConcurrentRuns(t *testing.T) {
	g, in := mlpGraph(t, 8, graph.Float32, "fused")
	p, err := native.New(native.Options{}).Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	want := first.(*graph.Array).Copy()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				mu.Lock()
				out, err := p.Run(in)
				if err != nil {
					t.Error(err)
				} else if d := maxDiff(want, out.(*graph.Array)); d != 0 {
					t.Errorf("result differs by %g", d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func maxDiff(a, b *graph.Array) float64 {
	x, y := a.Values(), b.Values()
	d := 0.0
	for i := range x {
		d = max(d, abs(x[i]-y[i]))
	}
	return d
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPlansShareWorkers: plans own no goroutines; their parallel loops
// and products run on kernels' one pool, which grows to the most helpers
// any run asked for (three, for Parallelism 4), however many plans run.
func TestPlansShareWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	var plans []*native.Plan
	for range 5 {
		g, in := mlpGraph(t, 64, graph.Float32, "fused")
		p, err := native.New(native.Options{Parallelism: 4}).Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(in); err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	if n := runtime.NumGoroutine(); n > before+3 {
		t.Errorf("%d goroutines before five plans of Parallelism 4, %d after they ran: more than the pool's three", before, n)
	}
	for _, p := range plans {
		p.Close()
	}
	if n := runtime.NumGoroutine(); n > before+3 {
		t.Errorf("%d goroutines before the plans, %d after Close", before, n)
	}
}
