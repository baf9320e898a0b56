package peers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	gomlx "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// sizes are the feature counts of the compared network: an MNIST-sized
// MLP, the one lowering/native's own BenchmarkMLP runs.
var sizes = []int{784, 512, 512, 10}

// seed draws the weights and the input every implementation is fed.
const seed = 1

// newMLP builds the compared network at batch: f32, BatchNorm in
// inference mode, ReLU, and its bindings (weights and input) from seed.
func newMLP(tb testing.TB, batch int) (*models.Model, map[string]graph.Value) {
	tb.Helper()
	m, err := models.MLP(models.MLPConfig{
		Sizes: sizes,
		Batch: batch,
		DType: graph.Float32,
		Norm:  models.NormBatch,
		Mode:  models.Inference,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m, m.Bindings(seed)
}

// hofusePlan cuts m's term into kernels — fused by the fusion pipeline, or
// one kernel per layer operation — and plans it on the native back end
// with its default options (all cores). The caller closes the plan.
func hofusePlan(tb testing.TB, m *models.Model, fused bool) *native.Plan {
	tb.Helper()
	var g *fusion.Graph
	if fused {
		res, err := fusion.Fuse(m.Output, fusion.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		g = res.Graph
	} else {
		var err error
		if g, err = fusion.Unfused(m.Output); err != nil {
			tb.Fatal(err)
		}
	}
	p, err := native.New(native.Options{}).Plan(g)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// gomlxMLP is the network written with GoMLX's graph package, compiled
// for the SimpleGo backend, with its arguments (input and weights) made
// once into tensors.
type gomlxMLP struct {
	backend backends.Backend
	exec    *gomlx.Exec
	args    []any // *tensors.Tensor: x, then m.Params in order
}

// newGoMLX writes m's computation with GoMLX ops, reading the same values
// as m from bindings, and compiles it (the first run compiles; it is not
// part of any timing). The caller closes it.
//
// Per dense layer i, h = Dot(h, W) + b, with b broadcast over the batch as
// [1, out]; per BatchNorm layer,
//
//	h = (h - mean) * Rsqrt(var + eps) * scale + shift
//
// with the statistics and affine parameters broadcast the same way, and
// ReLU is Max(h, 0). The operation order is the one layers.BatchNorm
// writes, so only the reduction order of Dot differs from hofuse's.
func newGoMLX(tb testing.TB, m *models.Model, bindings map[string]graph.Value) *gomlxMLP {
	tb.Helper()
	backend, err := simplego.New("")
	if err != nil {
		tb.Fatal(err)
	}
	// Arguments in the order the graph function reads its inputs.
	names := []string{m.Input.Name}
	for _, p := range m.Params {
		names = append(names, p.Name)
	}
	index := make(map[string]int, len(names))
	args := make([]any, len(names))
	for i, name := range names {
		index[name] = i
		a, ok := bindings[name].(*graph.Array)
		if !ok {
			tb.Fatalf("no array bound to %s", name)
		}
		args[i] = gomlxTensor(a)
	}
	eps := layers.DefaultBatchNormEps
	layerCount := len(sizes) - 1
	fn := func(in []*gomlx.Node) *gomlx.Node {
		param := func(format string, i int) *gomlx.Node {
			name := fmt.Sprintf(format, i)
			k, ok := index[name]
			if !ok {
				panic(fmt.Sprintf("peers: the model has no parameter %s", name))
			}
			return in[k]
		}
		row := func(v *gomlx.Node) *gomlx.Node { return gomlx.InsertAxes(v, 0) } // [f] -> [1, f]
		h := in[index[m.Input.Name]]
		for i := 1; i <= layerCount; i++ {
			h = gomlx.Add(gomlx.Dot(h, param("dense%d.W", i)), row(param("dense%d.b", i)))
			if i == layerCount {
				break
			}
			inv := gomlx.Rsqrt(gomlx.AddScalar(row(param("bn%d.var", i)), eps))
			h = gomlx.Sub(h, row(param("bn%d.mean", i)))
			h = gomlx.Mul(gomlx.Mul(h, inv), row(param("bn%d.scale", i)))
			h = gomlx.Add(h, row(param("bn%d.shift", i)))
			h = gomlx.MaxScalar(h, 0.0)
		}
		return h
	}
	exec, err := gomlx.NewExec(backend, fn)
	if err != nil {
		backend.Finalize()
		tb.Fatal(err)
	}
	g := &gomlxMLP{backend: backend, exec: exec, args: args}
	if err := exec.PreCompile(args...); err != nil {
		g.Close()
		tb.Fatal(err)
	}
	return g
}

// gomlxTensor copies a (an f32 array) into a GoMLX tensor of the same
// extents, row-major.
func gomlxTensor(a *graph.Array) *tensors.Tensor {
	v := a.Values()
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x) // exact: the values are float32s
	}
	return tensors.FromFlatDataAndDimensions(f, a.Extents()...)
}

// Run runs one inference. The caller finalizes the result.
func (g *gomlxMLP) Run() (*tensors.Tensor, error) { return g.exec.Exec1(g.args...) }

// Close releases the executable, the argument tensors and the backend.
func (g *gomlxMLP) Close() {
	g.exec.Finalize()
	for _, a := range g.args {
		_ = a.(*tensors.Tensor).FinalizeAll()
	}
	g.backend.Finalize()
}

// tolerance for f32 results: |got - want| <= tolerance * max(1, |want|).
// The implementations read the same float32 values and differ only in the
// order of the 784- and 512-term sums of the dense layers (GoMLX's Dot and
// hofuse's GEMM block them differently; the interpreter sums in order).
// The worst disagreement seen, which the test logs, is 1.5e-7 (about two
// f32 ulps); 1e-4 leaves room for other blockings on other machines and
// still catches a wrong operation or parameter: dropping the BatchNorm
// shift moves outputs by 5e-2, and Keras's eps (1e-3 instead of 1e-5) by
// 2e-4, both of which fail.
const tolerance = 1e-4

// compare checks got against want element by element, logs the worst
// relative difference and reports the first elements out of tolerance.
func compare(t *testing.T, label string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", label, len(got), len(want))
	}
	worst, bad := 0.0, 0
	for i := range want {
		d := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
		if !(d <= tolerance) { // NaN fails too
			if bad < 5 {
				t.Errorf("%s: element %d = %v, want %v (relative difference %.3g > %g)", label, i, got[i], want[i], d, tolerance)
			}
			bad++
		}
		if d > worst || d != d {
			worst = d
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", label, bad, len(want))
	}
	t.Logf("%s: worst relative difference %.3g over %d elements", label, worst, len(want))
}

// runHofuse runs m on a native plan and returns a copy of its result.
func runHofuse(t *testing.T, m *models.Model, bindings map[string]graph.Value, fused bool) []float64 {
	t.Helper()
	p := hofusePlan(t, m, fused)
	defer p.Close()
	out, err := p.Run(bindings)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := out.(*graph.Array)
	if !ok {
		t.Fatalf("native result is %T, want an array", out)
	}
	checkExtents(t, "native", a.Extents(), m)
	return a.Values() // a copy: the plan's arena goes with Close
}

// runGoMLX runs m written in GoMLX on SimpleGo and returns its result.
func runGoMLX(t *testing.T, m *models.Model, bindings map[string]graph.Value) []float64 {
	t.Helper()
	g := newGoMLX(t, m, bindings)
	defer g.Close()
	out, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	defer out.FinalizeAll()
	checkExtents(t, "gomlx", out.Shape().Dimensions, m)
	f, err := tensors.CopyFlatData[float32](out)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(f))
	for i, x := range f {
		v[i] = float64(x)
	}
	return v
}

func checkExtents(t *testing.T, label string, got []int, m *models.Model) {
	t.Helper()
	want := m.OutputType.Layout.Extents()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: result extents %v, want %v", label, got, want)
	}
}

// TestPeersAgree checks that every implementation BenchmarkMLP times
// computes the same function: at batch 4 against the reference
// interpreter, graph.Eval; at batch 256 (and 1) against the fused native
// plan, the interpreter being slow there.
func TestPeersAgree(t *testing.T) {
	for _, batch := range []int{1, 4, 256} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			m, bindings := newMLP(t, batch)
			fused := runHofuse(t, m, bindings, true)
			unfused := runHofuse(t, m, bindings, false)
			gomlxOut := runGoMLX(t, m, bindings)
			want, wantLabel := fused, "hofuse-fused"
			if batch == 4 {
				ref, err := graph.Eval(m.Output, bindings)
				if err != nil {
					t.Fatal(err)
				}
				want, wantLabel = ref.(*graph.Array).Values(), "graph.Eval"
				compare(t, "hofuse-fused vs "+wantLabel, fused, want)
			}
			compare(t, "hofuse-unfused vs "+wantLabel, unfused, want)
			compare(t, "gomlx-simplego vs "+wantLabel, gomlxOut, want)
		})
	}
}

// BenchmarkMLP times one inference of the 784-512-512-10 MLP (f32,
// BatchNorm inference, ReLU) per iteration, by each implementation, at
// batch 1 and 256. Compilation is done before the timer starts. SetBytes
// counts the input, so MB/s is input throughput.
func BenchmarkMLP(b *testing.B) {
	impls := []struct {
		name string
		// setup compiles m and returns one inference and a cleanup.
		setup func(b *testing.B, m *models.Model, bindings map[string]graph.Value) (run func() error, done func())
	}{
		{"hofuse-fused", func(b *testing.B, m *models.Model, bindings map[string]graph.Value) (func() error, func()) {
			return hofuseRunner(b, m, bindings, true)
		}},
		{"hofuse-unfused", func(b *testing.B, m *models.Model, bindings map[string]graph.Value) (func() error, func()) {
			return hofuseRunner(b, m, bindings, false)
		}},
		{"gomlx-simplego", func(b *testing.B, m *models.Model, bindings map[string]graph.Value) (func() error, func()) {
			g := newGoMLX(b, m, bindings)
			run := func() error {
				out, err := g.Run()
				if err != nil {
					return err
				}
				return out.FinalizeAll() // back to SimpleGo's buffer pool
			}
			return run, g.Close
		}},
	}
	for _, batch := range []int{1, 256} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("batch=%d/impl=%s", batch, impl.name), func(b *testing.B) {
				m, bindings := newMLP(b, batch)
				run, done := impl.setup(b, m, bindings)
				defer done()
				if err := run(); err != nil { // warm: first-run allocations, pools
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * sizes[0]))
				for b.Loop() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// hofuseRunner plans m (fused or not) and returns one Run over bindings.
func hofuseRunner(b *testing.B, m *models.Model, bindings map[string]graph.Value, fused bool) (func() error, func()) {
	p := hofusePlan(b, m, fused)
	run := func() error {
		_, err := p.Run(bindings)
		return err
	}
	return run, func() { p.Close() }
}
