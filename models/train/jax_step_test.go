package train

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// jaxStepModule compiles JAX's lowering of its training step at batch
// (testdata/jax_step.py) on c and puts inputs for it on the device: every
// f32 tensor filled with a small repeating pattern, the labels 0 and the
// step number 1.
func jaxStepModule(tb testing.TB, c *pjrt.Client, batch int) (*pjrt.Executable, []*pjrt.Buffer) {
	tb.Helper()
	return jaxModule(tb, c, fmt.Sprintf("testdata/jax_step_b%d.mlir", batch))
}

// jaxModule compiles the JAX module in file on c and puts inputs for it
// on the device, as jaxStepModule says.
func jaxModule(tb testing.TB, c *pjrt.Client, file string) (*pjrt.Executable, []*pjrt.Buffer) {
	tb.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := c.Compile(string(text))
	if err != nil {
		tb.Fatalf("JAX's %s on %s: %v", file, c.PluginPath(), err)
	}
	var args []*pjrt.Buffer
	for _, p := range exe.Params() {
		var v graph.Value = graph.ScalarValue{DType: p.DType, V: 1}
		if len(p.Dims) > 0 {
			a, err := graph.Zeros(p.DType, p.Dims...)
			if err != nil {
				tb.Fatal(err)
			}
			if p.DType == graph.Float32 {
				for i := range a.Float32s() {
					a.Float32s()[i] = 0.01 * float32(i%7-3)
				}
			}
			v = a
		}
		b, err := c.ToDevice(v)
		if err != nil {
			tb.Fatal(err)
		}
		args = append(args, b)
	}
	tb.Cleanup(func() {
		for _, b := range args {
			b.Destroy()
		}
	})
	return exe, args
}

// TestJAXStepModule: JAX's training step compiles and runs on hofuse's
// plugin and returns a finite positive loss, so BenchmarkStepJAXModule
// times a working program.
func TestJAXStepModule(t *testing.T) {
	c := pjrttest.Client(t)
	exe, args := jaxStepModule(t, c, 32)
	outs, err := exe.RunBuffers(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, o := range outs {
			o.Destroy()
		}
	}()
	if got := len(outs); got != 1+3*10+4 {
		t.Fatalf("%d results, want the loss, 10 parameters, 2×10 moments and 4 running statistics", got)
	}
	loss, err := outs[0].ToHost()
	if err != nil {
		t.Fatal(err)
	}
	l, ok := loss.(graph.ScalarValue)
	if !ok || math.IsNaN(l.V) || math.IsInf(l.V, 0) || l.V <= 0 {
		t.Fatalf("loss %v, want a finite positive number", loss)
	}
}

// BenchmarkStepJAXModule times JAX's lowering of the training step on the
// plugin hofuse uses (its inputs on the device, nothing donated: its next
// values are new buffers, freed after each step) and hofuse's own step
// (Trainer.Step on PJRT, fused, its values kept on the device) in turn,
// each iteration one of each, so that both see the same load on a shared
// machine: jax-ms and hofuse-ms are their medians. hofuse's step also
// checks the labels before and every carried value for NaN after, which
// JAX's does not. Against JAX jit in its own process (hofuse bench train
// --peers jax) this separates the front end from the XLA build each runs
// on, as lowering/xla's BenchmarkJAXModuleMLP does for inference.
func BenchmarkStepJAXModule(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range []int{32, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			exe, args := jaxStepModule(b, c, batch)
			s, init, x, y := benchStep(b, batch)
			tr, err := New(s, xla.New(c, xla.Options{}), Options{}, init)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			stepAgainstModule(b, exe, args, tr, x, y)
		})
	}
}

// TestJAXCNNStepModule: JAX's CNN training step (testdata/jax_step.py)
// compiles and runs on hofuse's plugin and returns a finite positive
// loss, so BenchmarkStepCNNJAXModule times a working program.
func TestJAXCNNStepModule(t *testing.T) {
	c := pjrttest.Client(t)
	exe, args := jaxModule(t, c, "testdata/jax_cnn_step_b128.mlir")
	outs, err := exe.RunBuffers(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, o := range outs {
			o.Destroy()
		}
	}()
	if got := len(outs); got != 1+3*8+4 {
		t.Fatalf("%d results, want the loss, 8 parameters, 2×8 moments and 4 running statistics", got)
	}
	loss, err := outs[0].ToHost()
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := loss.(graph.ScalarValue); !ok || math.IsNaN(l.V) || math.IsInf(l.V, 0) || l.V <= 0 {
		t.Fatalf("loss %v, want a finite positive number", loss)
	}
}

// BenchmarkStepCNNJAXModule is BenchmarkStepJAXModule for the CNN step of
// BenchmarkStepCNN at batch 128: JAX's lowering and hofuse's step on the
// same plugin, in turn, jax-ms and hofuse-ms their medians.
func BenchmarkStepCNNJAXModule(b *testing.B) {
	const batch = 128
	c := pjrttest.Client(b)
	exe, args := jaxModule(b, c, "testdata/jax_cnn_step_b128.mlir")
	m, err := models.CNN(models.CNNConfig{Height: 8, Width: 8, Channels: 1, Batch: batch, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		b.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	if err != nil {
		b.Fatal(err)
	}
	init, err := s.InitialValues(m.RandomParams(1))
	if err != nil {
		b.Fatal(err)
	}
	y, err := graph.Zeros(graph.Int32, batch)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := New(s, xla.New(c, xla.Options{}), Options{}, init)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	x := m.RandomInput(1)
	stepAgainstModule(b, exe, args, tr, x, y)
}

// stepAgainstModule times JAX's compiled module exe on args and the
// trainer's step on x and y in turn, each iteration, after one warm-up
// step: jax-ms and hofuse-ms are their medians.
func stepAgainstModule(b *testing.B, exe *pjrt.Executable, args []*pjrt.Buffer, tr *Trainer, x, y graph.Value) {
	b.Helper()
	if _, err := tr.Step(x, y); err != nil { // warm up
		b.Fatal(err)
	}
	var jt, ht []float64
	for b.Loop() {
		start := time.Now()
		outs, err := exe.RunBuffers(args, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			o.Destroy()
		}
		mid := time.Now()
		if _, err := tr.Step(x, y); err != nil {
			b.Fatal(err)
		}
		jt, ht = append(jt, mid.Sub(start).Seconds()*1e3), append(ht, time.Since(mid).Seconds()*1e3)
	}
	slices.Sort(jt)
	slices.Sort(ht)
	b.ReportMetric(jt[len(jt)/2], "jax-ms")
	b.ReportMetric(ht[len(ht)/2], "hofuse-ms")
}
