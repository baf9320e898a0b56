package xla_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// jaxModule is JAX's lowered module of the benchmark MLP at batch
// (testdata/jax_mlp.py), compiled on c, with mc's weights and input on the
// device in its parameter order: the dict's keys sorted, then x.
type jaxModule struct {
	exe  *pjrt.Executable
	args []*pjrt.Buffer
}

func loadJAXModule(tb testing.TB, c *pjrt.Client, batch int, mc *mlpCase) *jaxModule {
	tb.Helper()
	text, err := os.ReadFile(fmt.Sprintf("testdata/jax_mlp_b%d.mlir", batch))
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := c.Compile(string(text))
	if err != nil {
		tb.Fatalf("JAX's module on %s: %v", c.PluginPath(), err)
	}
	var names []string
	for _, p := range mc.model.Params {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	names = append(names, mc.model.Input.Name)
	if len(names) != len(exe.Params()) {
		tb.Fatalf("JAX's module takes %d parameters, the model has %d inputs", len(exe.Params()), len(names))
	}
	j := &jaxModule{exe: exe}
	for _, n := range names {
		b, err := c.ToDevice(mc.inputs[n])
		if err != nil {
			tb.Fatalf("%s: %v", n, err)
		}
		j.args = append(j.args, b)
	}
	tb.Cleanup(func() {
		for _, b := range j.args {
			b.Destroy()
		}
	})
	return j
}

// TestJAXModuleMLP runs JAX's own lowering of the benchmark MLP on the
// plugin hofuse uses, on the same weights and input as hofuse's fused
// module: the two front ends agree within the f32 tolerance.
func TestJAXModuleMLP(t *testing.T) {
	c := pjrttest.Client(t)
	for _, batch := range mlpBatches {
		mc := compileMLP(t, c, batch, "fused")
		j := loadJAXModule(t, c, batch, mc)
		outs, err := j.exe.RunBuffers(j.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := outs[0].ToHost()
		outs[0].Destroy()
		if err != nil {
			t.Fatal(err)
		}
		want, err := mc.exe.Run(mc.inputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := graph.Diff(want, got, mlpTol); err != nil {
			t.Errorf("batch %d: JAX's module differs from hofuse's: %v", batch, err)
		}
	}
}

// BenchmarkJAXModuleMLP times the execution alone of the benchmark MLP on
// the plugin, its weights and input on the device, JAX's lowering and
// hofuse's fused module in turn, each iteration one of each so that both
// see the same load on a shared machine: jax-ms is the median of JAX's
// module run (its result freed, not read), hofuse-ms the median execute
// time of hofuse's Session (Timing.Execute, without the copies in and
// out). Against JAX jit in its own process (hofuse bench mlp --peers jax)
// this separates the front end (the module) from the XLA build each runs
// on.
func BenchmarkJAXModuleMLP(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range mlpBatches {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			mc := compileMLP(b, c, batch, "fused")
			j := loadJAXModule(b, c, batch, mc)
			s := bindMLP(b, mc)
			in := map[string]graph.Value{mc.model.Input.Name: mc.inputs[mc.model.Input.Name]}
			var jt, ht []float64
			for b.Loop() {
				start := time.Now()
				outs, err := j.exe.RunBuffers(j.args, nil)
				if err != nil {
					b.Fatal(err)
				}
				outs[0].Destroy()
				jt = append(jt, time.Since(start).Seconds()*1e3)
				if _, err := s.Run(in); err != nil {
					b.Fatal(err)
				}
				ht = append(ht, s.Timing().Execute.Seconds()*1e3)
			}
			slices.Sort(jt)
			slices.Sort(ht)
			b.ReportMetric(jt[len(jt)/2], "jax-ms")
			b.ReportMetric(ht[len(ht)/2], "hofuse-ms")
		})
	}
}
