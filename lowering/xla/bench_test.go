package xla_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// mlpTol is the tolerance (graph.Diff) between the MLP's results on
// PJRT and the interpreter's, and between the fused and unfused runs: the
// project's one for f32. Each output sums 784, 512 and 512 f32 products
// that XLA reassociates (and differently in one fused executable than in
// per-layer ones), while graph.Eval rounds from float64.
var mlpTol = graph.Tolerance(graph.Float32)

// mlpBatches and mlpModes are the benchmark's size classes and modes.
var (
	mlpBatches = []int{1, 256}
	mlpModes   = []string{"fused", "unfused"}
)

// mlpCase is the benchmark network, 784-512-512-10 f32 with batch norm
// (inference) and ReLU, cut in one mode and compiled.
type mlpCase struct {
	model  *models.Model
	graph  *fusion.Graph
	exe    *xla.Executable
	inputs map[string]graph.Value
}

// compileMLP builds the MLP at batch and compiles it for mode: "fused" is
// fusion.Fuse's graph as one executable; "unfused" is fusion.Unfused's
// graph with one executable per kernel (Options.PerKernel), its
// intermediates kept on the device between kernels: the layer-by-layer
// baseline that XLA cannot fuse across.
func compileMLP(tb testing.TB, c *pjrt.Client, batch int, mode string) *mlpCase {
	tb.Helper()
	m, err := models.MLP(models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: batch, DType: graph.Float32, Norm: models.NormBatch})
	if err != nil {
		tb.Fatal(err)
	}
	var g *fusion.Graph
	var opt xla.Options
	switch mode {
	case "fused":
		res, err := fusion.Fuse(m.Output, fusion.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		g = res.Graph
	case "unfused":
		if g, err = fusion.Unfused(m.Output); err != nil {
			tb.Fatal(err)
		}
		opt.PerKernel = true
	default:
		tb.Fatalf("unknown mode %q", mode)
	}
	x, err := xla.New(c, opt).CompileGraph(g)
	if err != nil {
		tb.Fatalf("batch %d %s: %v", batch, mode, err)
	}
	tb.Cleanup(func() { x.Close() })
	return &mlpCase{model: m, graph: g, exe: x, inputs: m.Bindings(1)}
}

// checkMLP runs the fused and unfused MLP at batch and compares them with
// each other and, at batch 1 (where the interpreter is quick), with
// graph.Eval, within mlpTol.
func checkMLP(tb testing.TB, c *pjrt.Client, batch int) {
	tb.Helper()
	results := map[string]graph.Value{}
	var ref *mlpCase
	for _, mode := range mlpModes {
		mc := compileMLP(tb, c, batch, mode)
		got, err := mc.exe.Run(mc.inputs)
		if err != nil {
			tb.Fatalf("batch %d %s: %v", batch, mode, err)
		}
		results[mode] = got
		ref = mc
	}
	if err := graph.Diff(results["unfused"], results["fused"], mlpTol); err != nil {
		tb.Fatalf("batch %d: fused differs from unfused (tolerance %g): %v", batch, mlpTol, err)
	}
	d, _ := graph.MaxAbsDiff(results["unfused"], results["fused"])
	tb.Logf("batch %d: max |fused - unfused| = %.3g", batch, d)
	if batch != 1 {
		return
	}
	want, err := graph.Eval(ref.model.Output, ref.inputs)
	if err != nil {
		tb.Fatal(err)
	}
	for _, mode := range mlpModes {
		if err := graph.Diff(want, results[mode], mlpTol); err != nil {
			tb.Fatalf("batch %d %s: differs from graph.Eval (tolerance %g): %v", batch, mode, mlpTol, err)
		}
		d, _ := graph.MaxAbsDiff(want, results[mode])
		tb.Logf("batch %d %s: max |PJRT - Eval| = %.3g", batch, mode, d)
	}
}

// TestMLP checks the benchmark's network before it is timed: fused equals
// unfused at every batch, and both equal graph.Eval at batch 1.
func TestMLP(t *testing.T) {
	c := pjrttest.Client(t)
	for _, batch := range mlpBatches {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) { checkMLP(t, c, batch) })
	}
}

// BenchmarkMLP times one inference of the MLP on the located PJRT plugin,
// fused and unfused, at batch 1 and 256: Executable.Run with host inputs
// and a host result, so each iteration copies the input and the
// parameters (about 2.6 MB) to the device and the result back, in both
// modes. Compiling happens before the timer starts; its PJRT time, summed
// over the executables, is reported as compile-ms, and the number of
// executables as execs.
func BenchmarkMLP(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range mlpBatches {
		checkMLP(b, c, batch)
		for _, mode := range mlpModes {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				mc := compileMLP(b, c, batch, mode)
				if _, err := mc.exe.Run(mc.inputs); err != nil { // warm up
					b.Fatal(err)
				}
				s := mc.exe.Stats()
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * 784))
				b.ResetTimer()
				for b.Loop() {
					if _, err := mc.exe.Run(mc.inputs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(s.Compile.Seconds()*1e3, "compile-ms")
				b.ReportMetric(float64(s.Executables), "execs")
			})
		}
	}
}

// deviceStep is one executable of a deviceChain and where its arguments
// and result live.
type deviceStep struct {
	name string
	exe  *pjrt.Executable
	args []*graph.Input // main's parameters, in order
	out  *graph.Input   // the buffer its one result is
}

// deviceChain runs a kernel graph on buffers already on the device, as
// xla's per-kernel mode does but without uploading the inputs on each
// run: it isolates execution from the host-to-device copies that
// Executable.Run makes.
type deviceChain struct {
	graph *fusion.Graph
	steps []deviceStep
	bufs  map[*graph.Input]*pjrt.Buffer // the graph's inputs, uploaded once
}

// newDeviceChain compiles g (one executable, or one per kernel) and
// uploads inputs. The MLP has no tuples, so every value is one buffer.
func newDeviceChain(tb testing.TB, c *pjrt.Client, g *fusion.Graph, perKernel bool, inputs map[string]graph.Value) *deviceChain {
	tb.Helper()
	d := &deviceChain{graph: g, bufs: map[*graph.Input]*pjrt.Buffer{}}
	add := func(name string, low *stablehlo.Lowered, out *graph.Input) {
		exe, err := c.Compile(low.Text)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		st := deviceStep{name: name, exe: exe, out: out}
		for _, p := range low.Params {
			if len(p.Path) != 0 {
				tb.Fatalf("%s: tuple parameter %s", name, p.Buffer.Name)
			}
			st.args = append(st.args, p.Buffer)
		}
		if len(low.Results) != 1 {
			tb.Fatalf("%s: %d results", name, len(low.Results))
		}
		d.steps = append(d.steps, st)
	}
	if perKernel {
		for _, k := range g.Kernels {
			low, err := stablehlo.LowerKernel(k)
			if err != nil {
				tb.Fatal(err)
			}
			add(k.Name, low, k.Output)
		}
	} else {
		low, err := stablehlo.LowerGraph(g)
		if err != nil {
			tb.Fatal(err)
		}
		add("main", low, g.Result)
	}
	for _, in := range g.Inputs {
		b, err := c.ToDevice(inputs[in.Name])
		if err != nil {
			tb.Fatal(err)
		}
		d.bufs[in] = b
	}
	tb.Cleanup(func() {
		for _, b := range d.bufs {
			b.Destroy()
		}
	})
	return d
}

// run runs every step and returns the result on the host; intermediates
// are freed. With keep, the intermediates are returned too, on the
// device, for runStep.
func (d *deviceChain) run(keep bool) (graph.Value, map[*graph.Input]*pjrt.Buffer, error) {
	live := map[*graph.Input]*pjrt.Buffer{}
	var temps []*pjrt.Buffer
	defer func() {
		if !keep {
			for _, b := range temps {
				b.Destroy()
			}
		}
	}()
	args := make([]*pjrt.Buffer, 0, 8)
	for _, st := range d.steps {
		args = args[:0]
		for _, in := range st.args {
			b := d.bufs[in]
			if b == nil {
				b = live[in]
			}
			args = append(args, b)
		}
		outs, err := st.exe.RunBuffers(args, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", st.name, err)
		}
		temps = append(temps, outs...)
		live[st.out] = outs[0]
	}
	v, err := live[d.graph.Result].ToHost()
	return v, live, err
}

// BenchmarkMLPDevice is BenchmarkMLP with the input and the parameters
// uploaded once, before the timer starts: each iteration runs the
// executable(s) on device buffers and copies only the batch×10 result
// back. The difference from BenchmarkMLP is the cost of the uploads.
func BenchmarkMLPDevice(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range mlpBatches {
		for _, mode := range mlpModes {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				mc := compileMLP(b, c, batch, mode)
				want, err := mc.exe.Run(mc.inputs)
				if err != nil {
					b.Fatal(err)
				}
				d := newDeviceChain(b, c, mc.graph, mode == "unfused", mc.inputs)
				got, _, err := d.run(false)
				if err != nil {
					b.Fatal(err)
				}
				if err := graph.Diff(want, got, mlpTol); err != nil {
					b.Fatalf("device chain differs from Executable.Run: %v", err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * 784))
				b.ResetTimer()
				for b.Loop() {
					if _, _, err := d.run(false); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMLPKernels times each kernel of the fused and the unfused
// graph alone, as its own executable on device buffers (its output is
// freed, not copied back): where the time of BenchmarkMLPDevice goes.
func BenchmarkMLPKernels(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range mlpBatches {
		for _, mode := range mlpModes {
			mc := compileMLP(b, c, batch, mode)
			d := newDeviceChain(b, c, mc.graph, true, mc.inputs)
			_, live, err := d.run(true)
			if err != nil {
				b.Fatal(err)
			}
			for _, st := range d.steps {
				args := make([]*pjrt.Buffer, len(st.args))
				for i, in := range st.args {
					if args[i] = d.bufs[in]; args[i] == nil {
						args[i] = live[in]
					}
				}
				b.Run(fmt.Sprintf("batch=%d/mode=%s/kernel=%s", batch, mode, st.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						outs, err := st.exe.RunBuffers(args, nil)
						if err != nil {
							b.Fatal(err)
						}
						outs[0].Destroy()
					}
				})
			}
			for _, buf := range live {
				buf.Destroy()
			}
		}
	}
}
