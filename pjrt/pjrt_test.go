package pjrt_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// denseProgram is max(x·w + b, 0) for x[m,k], w[k,n], b[n] of element
// type dt ("f32" or "f64"), written by hand in StableHLO's pretty syntax.
func denseProgram(dt string, m, k, n int) string {
	return fmt.Sprintf(`module @dense {
  func.func @main(%%x: tensor<%[2]dx%[3]dx%[1]s>, %%w: tensor<%[3]dx%[4]dx%[1]s>, %%b: tensor<%[4]dx%[1]s>) -> tensor<%[2]dx%[4]dx%[1]s> {
    %%0 = stablehlo.dot_general %%x, %%w, contracting_dims = [1] x [0] : (tensor<%[2]dx%[3]dx%[1]s>, tensor<%[3]dx%[4]dx%[1]s>) -> tensor<%[2]dx%[4]dx%[1]s>
    %%1 = stablehlo.broadcast_in_dim %%b, dims = [1] : (tensor<%[4]dx%[1]s>) -> tensor<%[2]dx%[4]dx%[1]s>
    %%2 = stablehlo.add %%0, %%1 : tensor<%[2]dx%[4]dx%[1]s>
    %%z = stablehlo.constant dense<0.0> : tensor<%[2]dx%[4]dx%[1]s>
    %%3 = stablehlo.maximum %%2, %%z : tensor<%[2]dx%[4]dx%[1]s>
    return %%3 : tensor<%[2]dx%[4]dx%[1]s>
  }
}`, dt, m, k, n)
}

// denseRef is denseProgram in Go loops, in float64.
func denseRef(x, w, b []float64, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				s += x[i*k+p] * w[p*n+j]
			}
			out[i*n+j] = max(s+b[j], 0)
		}
	}
	return out
}

// quarters returns n values i/4 - c: dyadic and small, so that every sum
// of products is exact in f32 and f64 whatever order XLA adds in, and the
// results can be compared exactly.
func quarters(n, c int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((i*7+c)%13-6) / 4
	}
	return v
}

func array(t *testing.T, dt graph.DType, vals []float64, dims ...int) *graph.Array {
	t.Helper()
	c, err := graph.Zeros(dt, dims...)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(dims))
	for _, v := range vals {
		c.Set(v, idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
	}
	return c
}

func TestDenseExact(t *testing.T) {
	c := pjrttest.Client(t)
	for _, tc := range []struct {
		dt      graph.DType
		m, k, n int
	}{
		{graph.Float32, 2, 3, 4},
		{graph.Float64, 2, 3, 4},
		{graph.Float32, 7, 33, 5},
		{graph.Float64, 1, 1, 1},
	} {
		t.Run(fmt.Sprintf("%v_%dx%dx%d", tc.dt, tc.m, tc.k, tc.n), func(t *testing.T) {
			e, err := c.Compile(denseProgram(tc.dt.String(), tc.m, tc.k, tc.n))
			if err != nil {
				t.Fatal(err)
			}
			xs, ws, bs := quarters(tc.m*tc.k, 1), quarters(tc.k*tc.n, 5), quarters(tc.n, 3)
			outs, err := e.Run(array(t, tc.dt, xs, tc.m, tc.k), array(t, tc.dt, ws, tc.k, tc.n), array(t, tc.dt, bs, tc.n))
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != 1 {
				t.Fatalf("got %d results, want 1", len(outs))
			}
			got, ok := outs[0].(*graph.Array)
			if !ok || got.DType() != tc.dt || fmt.Sprint(got.Extents()) != fmt.Sprint([]int{tc.m, tc.n}) {
				t.Fatalf("result %v, want %v[%d %d]", outs[0], tc.dt, tc.m, tc.n)
			}
			want := denseRef(xs, ws, bs, tc.m, tc.k, tc.n)
			for i, g := range got.Values() {
				if g != want[i] {
					t.Fatalf("element %d: got %v, want %v (all: %v)", i, g, want[i], got.Values())
				}
			}
		})
	}
}

// mixedProgram exercises i32, i1 and f64 parameters and results, a scalar
// parameter, a scalar result and several results.
const mixedProgram = `module @mixed {
  func.func public @main(%i: tensor<3xi32> {mhlo.sharding = "{replicated}"}, %p: tensor<3xi1>, %s: tensor<f64>, %v: tensor<2x3xf64>)
      -> (tensor<3xi32>, tensor<3xi1>, tensor<f64>, tensor<2x3xf64> {jax.result_info = "v"}) {
    %0 = stablehlo.multiply %i, %i : tensor<3xi32>
    %1 = stablehlo.not %p : tensor<3xi1>
    %init = stablehlo.constant dense<0.0> : tensor<f64>
    %2 = stablehlo.reduce(%v init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf64>, tensor<f64>) -> tensor<f64>
    %3 = stablehlo.multiply %2, %s : tensor<f64>
    %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %4 = stablehlo.multiply %v, %sb : tensor<2x3xf64>
    return %0, %1, %3, %4 : tensor<3xi32>, tensor<3xi1>, tensor<f64>, tensor<2x3xf64>
  }
}`

func TestMixedTypesAndViews(t *testing.T) {
	c := pjrttest.Client(t)
	e, err := c.Compile(mixedProgram)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(e.Params()); got != "[tensor<3xi32> tensor<3xi1> tensor<f64> tensor<2x3xf64>]" {
		t.Errorf("Params() = %s", got)
	}
	if got := fmt.Sprint(e.Results()); got != "[tensor<3xi32> tensor<3xi1> tensor<f64> tensor<2x3xf64>]" {
		t.Errorf("Results() = %s", got)
	}
	i := array(t, graph.Int32, []float64{-2, 3, 40000}, 3)
	p := array(t, graph.Bool, []float64{1, 0, 1}, 3)
	s := graph.ScalarValue{DType: graph.Float64, V: 0.5}
	// v is a flipped (column-major) view of a 3x2 array: Run must send its
	// elements in the view's row-major order.
	base := array(t, graph.Float64, []float64{1, 2, 3, 4, 5, 6}, 3, 2)
	v, err := base.Flip(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := e.Run(i, p, s, v)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"i32[3]", "[4 9 1.6e+09]",
		"bool[3]", "[0 1 0]",
		"", "f64(10.5)",
		"f64[2 3]", "[0.5 1.5 2.5 1 2 3]",
	}
	for k, o := range outs {
		switch o := o.(type) {
		case *graph.Array:
			if got := fmt.Sprintf("%v%v", o.DType(), o.Extents()); got != want[2*k] {
				t.Errorf("result %d: type %s, want %s", k, got, want[2*k])
			}
			if got := fmt.Sprint(o.Values()); got != want[2*k+1] {
				t.Errorf("result %d: %s, want %s", k, got, want[2*k+1])
			}
		case graph.ScalarValue:
			if got := o.String(); got != want[2*k+1] {
				t.Errorf("result %d: %s, want %s", k, got, want[2*k+1])
			}
		default:
			t.Errorf("result %d: unexpected %T", k, o)
		}
	}
}

func TestCache(t *testing.T) {
	c := pjrttest.Client(t)
	h0, m0 := c.CacheStats()
	e1, err := c.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	e2, err := c.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if e1 != e2 {
		t.Error("the same text compiled twice gave two executables")
	}
	e3, err := c.Compile(denseProgram("f32", 5, 3, 4)) // a new batch size
	if err != nil {
		t.Fatal(err)
	}
	if e3 == e1 {
		t.Error("a new batch size returned the cached executable")
	}
	if _, err := c.Compile(denseProgram("f32", 5, 3, 4)); err != nil {
		t.Fatal(err)
	}
	h, m := c.CacheStats()
	if h-h0 != 2 || m-m0 != 2 {
		t.Errorf("CacheStats = %d hits, %d misses; want 2 and 2 more than %d, %d", h, m, h0, m0)
	}
	if e1.CompileTime() <= 0 {
		t.Errorf("CompileTime = %v", e1.CompileTime())
	}

	// A second handle on the same plugin shares the compiled programs.
	c2, err := pjrt.Open(c.PluginPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Compile(denseProgram("f32", 2, 3, 4)); err != nil {
		t.Fatal(err)
	}
	if h, m := c2.CacheStats(); h != 1 || m != 0 {
		t.Errorf("second handle: CacheStats = %d, %d; want 1 hit (shared), 0 misses", h, m)
	}
}

func TestBadInputs(t *testing.T) {
	c := pjrttest.Client(t)
	e, err := c.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	x := array(t, graph.Float32, quarters(6, 0), 2, 3)
	w := array(t, graph.Float32, quarters(12, 0), 3, 4)
	b := array(t, graph.Float32, quarters(4, 0), 4)
	xi := array(t, graph.Int32, quarters(6, 0), 2, 3) // same byte size as x: PJRT would take it
	xd := array(t, graph.Float64, quarters(6, 0), 2, 3)
	xt, _ := x.Flip(0, 1)
	for _, tc := range []struct {
		name   string
		inputs []graph.Value
		want   string
	}{
		{"too few", []graph.Value{x, w}, "got 2 inputs, the program takes 3"},
		{"too many", []graph.Value{x, w, b, b}, "got 4 inputs, the program takes 3"},
		{"i32 for f32", []graph.Value{xi, w, b}, "argument 0 (%x): got i32[2 3] (tensor<2x3xi32>), the program takes tensor<2x3xf32>"},
		{"f64 for f32", []graph.Value{x, w, array(t, graph.Float64, quarters(4, 0), 4)}, "argument 2 (%b): got f64[4]"},
		{"f64 matrix", []graph.Value{xd, w, b}, "argument 0 (%x): got f64[2 3]"},
		{"shape", []graph.Value{x, xt, b}, "argument 1 (%w): got f32[3 2] (tensor<3x2xf32>), the program takes tensor<3x4xf32>"},
		{"scalar", []graph.Value{x, w, graph.ScalarValue{DType: graph.Float32, V: 1}}, "argument 2 (%b): got f32 scalar (tensor<f32>), the program takes tensor<4xf32>"},
		{"tuple", []graph.Value{x, graph.TupleValue{w}, b}, "argument 1 (%w): a tuple is not a tensor"},
		{"nil", []graph.Value{x, w, nil}, "argument 2 (%b): nil value"},
		{"nil array", []graph.Value{(*graph.Array)(nil), w, b}, "argument 0 (%x): nil array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Run(tc.inputs...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothere", "pjrt_c_api_cpu_plugin.so")
	_, err := pjrt.Open(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), pjrt.InstallCommand()) {
		t.Errorf("Open(missing) = %v; want an error naming %s and the install command", err, missing)
	}
	text := filepath.Join(t.TempDir(), "notaplugin.so")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !pjrt.CgoEnabled() {
		if _, err := pjrt.Open(text); !errors.Is(err, pjrt.ErrNoCgo) {
			t.Errorf("Open without cgo = %v, want ErrNoCgo", err)
		}
		return
	}
	_, err = pjrt.Open(text)
	if err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("Open(text file) = %v; want an error naming %s", err, text)
	}
	_, err = pjrt.Open(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("Open(folder) = %v; want 'is a folder'", err)
	}
}

// TestZeroValues: values not made by Open, Compile or ToDevice give
// errors, not panics.
func TestZeroValues(t *testing.T) {
	var c pjrt.Client
	if _, err := c.Compile(denseProgram("f32", 1, 1, 1)); err == nil {
		t.Error("Compile on a zero Client succeeded")
	}
	if _, err := c.ToDevice(graph.ScalarValue{DType: graph.Float32}); err == nil {
		t.Error("ToDevice on a zero Client succeeded")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close on a zero Client: %v", err)
	}
	var e pjrt.Executable
	if _, err := e.Run(); err == nil {
		t.Error("Run on a zero Executable succeeded")
	}
	if _, err := e.RunBuffers(nil, nil); err == nil {
		t.Error("RunBuffers on a zero Executable succeeded")
	}
	var b pjrt.Buffer
	if _, err := b.ToHost(); err == nil {
		t.Error("ToHost on a zero Buffer succeeded")
	}
	if err := b.Destroy(); err != nil {
		t.Errorf("Destroy on a zero Buffer: %v", err)
	}
	if c.Platform() != "" || len(c.Devices()) != 0 || e.Params() != nil || b.Type().Size() != 1 {
		t.Error("facts of zero values")
	}
}

func TestCompileErrors(t *testing.T) {
	c := pjrttest.Client(t)
	_, err := c.Compile("module { this is not stablehlo }")
	if err == nil || !strings.Contains(err.Error(), c.PluginPath()) || !strings.Contains(err.Error(), "error: custom op 'this' is unknown") {
		t.Errorf("Compile(bad text) = %v; want the plugin path and XLA's message", err)
	}
	// Valid StableHLO whose signature hofuse cannot feed: an i64 parameter.
	_, err = c.Compile(`module @m {
  func.func @main(%a: tensor<2xi64>) -> tensor<2xi64> {
    return %a : tensor<2xi64>
  }
}`)
	if err == nil || !strings.Contains(err.Error(), "element type i64") || !strings.Contains(err.Error(), "parameter 0 %a") {
		t.Errorf("Compile(i64) = %v; want an error about element type i64 of parameter 0", err)
	}
	if h, m := c.CacheStats(); h != 0 || m != 0 {
		t.Errorf("failed compiles counted: %d hits, %d misses", h, m)
	}
}

func TestBuffers(t *testing.T) {
	c := pjrttest.Client(t)
	e, err := c.Compile(denseProgram("f64", 2, 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	xs, ws, bs := quarters(6, 2), quarters(9, 4), quarters(3, 6)
	xb, err := c.ToDevice(array(t, graph.Float64, xs, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer xb.Destroy()
	wb, err := c.ToDevice(array(t, graph.Float64, ws, 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Destroy()
	bb, err := c.ToDevice(array(t, graph.Float64, bs, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer bb.Destroy()
	if got := xb.Type().String(); got != "tensor<2x3xf64>" {
		t.Errorf("Type() = %s", got)
	}

	// Two layers, the intermediate staying on the device and donated to
	// the second run.
	h, err := e.RunBuffers([]*pjrt.Buffer{xb, wb, bb}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.RunBuffers([]*pjrt.Buffer{h[0], wb, bb}, []bool{true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	defer out[0].Destroy()
	got, err := out[0].ToHost()
	if err != nil {
		t.Fatal(err)
	}
	want := denseRef(denseRef(xs, ws, bs, 2, 3, 3), ws, bs, 2, 3, 3)
	if g := got.(*graph.Array).Values(); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("two layers: %v, want %v", g, want)
	}
	if _, err := h[0].ToHost(); err == nil || !strings.Contains(err.Error(), "donated") {
		t.Errorf("ToHost of a donated buffer: %v", err)
	}
	if _, err := e.RunBuffers([]*pjrt.Buffer{h[0], wb, bb}, nil); err == nil || !strings.Contains(err.Error(), "argument 0 (%x): buffer was donated") {
		t.Errorf("RunBuffers with a donated buffer: %v", err)
	}
	if _, err := e.RunBuffers([]*pjrt.Buffer{xb, xb, bb}, nil); err == nil || !strings.Contains(err.Error(), "argument 1 (%w): got buffer (tensor<2x3xf64>)") {
		t.Errorf("RunBuffers with a wrong shape: %v", err)
	}
	if _, err := e.RunBuffers([]*pjrt.Buffer{xb, wb}, nil); err == nil || !strings.Contains(err.Error(), "got 2 inputs") {
		t.Errorf("RunBuffers with too few: %v", err)
	}
	if _, err := e.RunBuffers([]*pjrt.Buffer{xb, wb, bb}, []bool{true}); err == nil || !strings.Contains(err.Error(), "1 donate flags for 3 inputs") {
		t.Errorf("RunBuffers with short donate: %v", err)
	}
	// A scalar buffer comes back as a ScalarValue.
	sb, err := c.ToDevice(graph.ScalarValue{DType: graph.Int32, V: -7})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sb.ToHost(); err != nil || v != (graph.ScalarValue{DType: graph.Int32, V: -7}) {
		t.Errorf("scalar round trip: %v, %v", v, err)
	}
	if err := sb.Destroy(); err != nil {
		t.Error(err)
	}
	if err := sb.Destroy(); err != nil {
		t.Errorf("second Destroy: %v", err)
	}
	if _, err := sb.ToHost(); err == nil || !strings.Contains(err.Error(), "destroyed") {
		t.Errorf("ToHost after Destroy: %v", err)
	}
}

// TestBufferTwice: one buffer may be passed for two parameters, and is
// then read by both; donated, it may not, and the error names the second
// parameter.
func TestBufferTwice(t *testing.T) {
	c := pjrttest.Client(t)
	e, err := c.Compile(`func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}`)
	if err != nil {
		t.Fatal(err)
	}
	ab, err := c.ToDevice(array(t, graph.Float32, []float64{1.5, -2}, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer ab.Destroy()
	out, err := e.RunBuffers([]*pjrt.Buffer{ab, ab}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := out[0].ToHost()
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*graph.Array).Values(); fmt.Sprint(g) != "[3 -4]" {
		t.Errorf("a + a = %v, want [3 -4]", g)
	}
	_, err = e.RunBuffers([]*pjrt.Buffer{ab, ab}, []bool{false, true})
	if want := "pjrt: run: argument 1 (%b): a donated buffer may be passed only once"; err == nil || err.Error() != want {
		t.Errorf("a donated buffer twice: got %v, want %s", err, want)
	}
	if _, err := ab.ToHost(); err != nil {
		t.Errorf("the buffer after the refused run: %v", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	path := pjrttest.PluginPath(t)
	c, err := pjrt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	x := array(t, graph.Float32, quarters(6, 0), 2, 3)
	w := array(t, graph.Float32, quarters(12, 0), 3, 4)
	b := array(t, graph.Float32, quarters(4, 0), 4)
	xb, err := c.ToDevice(x)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := c.ToDevice(w)
	bb, _ := c.ToDevice(b)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checks := map[string]error{}
	_, checks["Compile"] = c.Compile(denseProgram("f32", 2, 3, 4))
	_, checks["Compile new"] = c.Compile(denseProgram("f32", 9, 3, 4))
	_, checks["Run"] = e.Run(x, w, b)
	_, checks["ToDevice"] = c.ToDevice(x)
	_, checks["ToHost"] = xb.ToHost()
	_, checks["RunBuffers"] = e.RunBuffers([]*pjrt.Buffer{xb, wb, bb}, nil)
	for name, err := range checks {
		if !errors.Is(err, pjrt.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := xb.Destroy(); err != nil {
		t.Errorf("Destroy after Close: %v", err)
	}
	if c.Platform() == "" || c.PluginPath() != path && !strings.HasSuffix(path, filepath.Base(c.PluginPath())) {
		t.Errorf("cached facts after Close: %q %q", c.Platform(), c.PluginPath())
	}
}

// TestCloseOneOfTwo: closing one handle leaves the other working, and the
// closed handle's executables report ErrClosed.
func TestCloseOneOfTwo(t *testing.T) {
	c1 := pjrttest.Client(t)
	c2, err := pjrt.Open(c1.PluginPath())
	if err != nil {
		t.Fatal(err)
	}
	e2, err := c2.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	c2.Close()
	x := array(t, graph.Float32, quarters(6, 0), 2, 3)
	w := array(t, graph.Float32, quarters(12, 0), 3, 4)
	b := array(t, graph.Float32, quarters(4, 0), 4)
	if _, err := e2.Run(x, w, b); !errors.Is(err, pjrt.ErrClosed) {
		t.Errorf("Run on the closed handle: %v", err)
	}
	e1, err := c1.Compile(denseProgram("f32", 2, 3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e1.Run(x, w, b); err != nil {
		t.Errorf("Run on the open handle: %v", err)
	}
}

// TestConcurrentRunsAndClose runs from several goroutines while the client
// closes: every run either succeeds or reports ErrClosed, and nothing
// crashes.
func TestConcurrentRunsAndClose(t *testing.T) {
	path := pjrttest.PluginPath(t)
	c, err := pjrt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Compile(denseProgram("f32", 7, 33, 5))
	if err != nil {
		t.Fatal(err)
	}
	x := array(t, graph.Float32, quarters(7*33, 1), 7, 33)
	w := array(t, graph.Float32, quarters(33*5, 5), 33, 5)
	b := array(t, graph.Float32, quarters(5, 3), 5)
	want := fmt.Sprint(denseRef(quarters(7*33, 1), quarters(33*5, 5), quarters(5, 3), 7, 33, 5))
	var wg sync.WaitGroup
	started := make(chan struct{}, 4)
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				if n == 3 {
					started <- struct{}{}
				}
				outs, err := e.Run(x, w, b)
				if err != nil {
					if !errors.Is(err, pjrt.ErrClosed) {
						errs <- err
					}
					return
				}
				if got := fmt.Sprint(outs[0].(*graph.Array).Values()); got != want {
					errs <- fmt.Errorf("got %s, want %s", got, want)
					return
				}
			}
		}()
	}
	for range 4 {
		<-started
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSelfTestAndFacts(t *testing.T) {
	c := pjrttest.Client(t)
	if _, err := c.SelfTest(); err != nil {
		t.Fatal(err)
	}
	major, minor := c.APIVersion()
	if major == 0 && minor == 0 {
		t.Error("APIVersion 0.0")
	}
	if len(c.Devices()) != 1 && c.Platform() == "cpu" {
		t.Errorf("Devices() = %v; want one CPU device", c.Devices())
	}
	// The options each kind of plugin takes (clientOptions): a GPU client
	// must not take 75% of the GPU's memory at start.
	want := map[string]string{"cpu": "cpu_device_count=1", "cuda": "preallocate=false"}
	if w, ok := want[c.Platform()]; ok && c.CreateOptions() != w {
		t.Errorf("CreateOptions() = %q on %s; want %q", c.CreateOptions(), c.Platform(), w)
	}
	t.Logf("%s: platform %s, PJRT API %d.%d, StableHLO %s, devices %v", c.PluginPath(), c.Platform(), major, minor, c.StableHLOVersion(), c.Devices())
}

func BenchmarkRunDense64(b *testing.B) {
	c := pjrttest.Client(b)
	e, err := c.Compile(denseProgram("f32", 64, 64, 64))
	if err != nil {
		b.Fatal(err)
	}
	x, _ := graph.FromFloat32(make([]float32, 64*64), 64, 64)
	b.ReportAllocs()
	b.SetBytes(3 * 64 * 64 * 4)
	for b.Loop() {
		if _, err := e.Run(x, x, graph.Value(must(graph.FromFloat32(make([]float32, 64), 64)))); err != nil {
			b.Fatal(err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
