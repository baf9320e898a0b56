package native

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// cnnStepPlan fuses (or not) the LeNet-like CNN's training step at the
// given batch and plans it, returning the plan and its bindings.
func cnnStepPlan(tb testing.TB, batch int, unfused bool, opts Options) (*Plan, map[string]graph.Value) {
	tb.Helper()
	m, err := models.CNN(models.CNNConfig{Batch: batch, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	if err != nil {
		tb.Fatal(err)
	}
	var g *fusion.Graph
	if unfused {
		g, err = fusion.Unfused(s.Term)
	} else {
		var res *fusion.Result
		res, err = fusion.Fuse(s.Term, fusion.Options{})
		if err == nil {
			g = res.Graph
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
	p, err := New(opts).Plan(g)
	if err != nil {
		tb.Fatal(err)
	}
	init, err := s.InitialValues(m.RandomParams(1))
	if err != nil {
		tb.Fatal(err)
	}
	y, err := graph.Zeros(graph.Int32, batch)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range batch {
		y.Set(float64(i%10), i)
	}
	binds, err := s.Bindings(init, m.RandomInput(1), y, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return p, binds
}

// BenchmarkCNNStepKernels times each kernel of the CNN's fused training
// step at batch 128 and logs (-v) the kernels by their share of the step,
// with what the compiler made of them.
func BenchmarkCNNStepKernels(b *testing.B) {
	p, binds := cnnStepPlan(b, 128, false, Options{})
	defer p.Close()
	if _, err := p.Run(binds); err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, len(p.steps))
	fr := p.rt.frames[0]
	for b.Loop() {
		for i := range p.steps {
			t0 := time.Now()
			run(p.steps[i].run, fr)
			times[i] += time.Since(t0)
		}
	}
	idx := make([]int, len(times))
	var total time.Duration
	for i := range idx {
		idx[i] = i
		total += times[i]
	}
	sort.Slice(idx, func(a, c int) bool { return times[idx[a]] > times[idx[c]] })
	descs := kernelDescs(p.desc)
	var sb strings.Builder
	for _, i := range idx[:min(len(idx), 15)] {
		fmt.Fprintf(&sb, "%5.1f%% %8.3fms %s\n%s\n", 100*float64(times[i])/float64(total), float64(times[i])/float64(b.N)/1e6, p.steps[i].name, descs[p.steps[i].name])
	}
	b.Logf("%d kernels, %.3f ms per step\n%s", len(times), float64(total)/float64(b.N)/1e6, sb.String())
}

// kernelDescs splits a plan's description by kernel name.
func kernelDescs(desc string) map[string]string {
	out := map[string]string{}
	var name string
	for line := range strings.SplitSeq(desc, "\n") {
		if !strings.HasPrefix(line, " ") && strings.HasPrefix(line, "kernel ") {
			name = strings.Fields(line)[1]
			name = strings.TrimSuffix(name, ":")
		}
		out[name] += line + "\n"
	}
	return out
}

// TestCNNStepConvGradientsOnGEMM: in the LeNet-like CNN's training step
// (batch 6, f32 and f64, fused and unfused), both weight gradients (a
// contraction over the batch and the window positions) and the second
// convolution's dY·Wᵀ (a zip whose windows of the input are never read)
// run as GEMMs, and the step's results equal graph.Eval's.
func TestCNNStepConvGradientsOnGEMM(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		m, err := models.CNN(models.CNNConfig{Batch: 6, DType: dt, Norm: models.NormBatch, Mode: models.Training})
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.SGD{LR: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		init, err := s.InitialValues(m.RandomParams(2))
		if err != nil {
			t.Fatal(err)
		}
		y, err := graph.Zeros(graph.Int32, 6)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			y.Set(float64(i%10), i)
		}
		binds, err := s.Bindings(init, m.RandomInput(2), y, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, err := graph.Eval(s.Term, binds)
		if err != nil {
			t.Fatal(err)
		}
		for _, unfused := range []bool{false, true} {
			var g *fusion.Graph
			if unfused {
				g, err = fusion.Unfused(s.Term)
			} else {
				var res *fusion.Result
				if res, err = fusion.Fuse(s.Term, fusion.Options{}); err == nil {
					g = res.Graph
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(Options{Parallelism: 2}).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			d := p.Describe()
			for _, w := range []string{"contraction as gemm 9x8x384:", "contraction as gemm 72x16x96:", "contraction as gemm 16x72x16:"} {
				if !strings.Contains(d, w) {
					t.Errorf("%v unfused=%v: plan lacks %q:\n%s", dt, unfused, w, d)
				}
			}
			got, err := p.Run(binds)
			if err != nil {
				t.Fatal(err)
			}
			if diff := graph.Diff(want, got, graph.Tolerance(dt)); diff != nil {
				t.Errorf("%v unfused=%v: the step differs from graph.Eval: %v", dt, unfused, diff)
			}
			p.Close()
		}
	}
}
