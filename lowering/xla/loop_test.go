package xla_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// descent is a loop of gradient descent on Σ w²: it returns the loss and
// the next w, w - lr·g, for a gradient g given each run.
func descent(t *testing.T) *fusion.Graph {
	t.Helper()
	prog, err := graph.Parse(`w : f64[4]; g : f64[4]; lr : f64;
		(rnz (+) (*) w w, nzip (\a b -> a - lr * b) w g)`)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func f64s(t *testing.T, xs ...float64) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(xs, len(xs))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLoop: in both modes, a loop keeps w on the device: two runs of
// w - 0.5·1 from w = (1, 2, 3, 4) return the losses 30 and 21 (Σ w² of
// the w each run read) and leave w = (0, 1, 2, 3), all exact in f64; the
// values bound stay the caller's; an infinity in the gradient is reported
// as w going non-finite, and Value shows it. The fused module aliases w to
// the result that replaces it.
func TestLoop(t *testing.T) {
	c := pjrttest.Client(t)
	g := descent(t)
	spec := lowering.LoopSpec{Carried: []string{"", "w"}, CheckFinite: true}
	for _, e := range executables {
		t.Run(e.name, func(t *testing.T) {
			l, err := xla.New(c, e.opt).CompileLoopGraph(g, spec)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if !e.opt.PerKernel {
				if text := l.Executable().Texts()[0]; !strings.Contains(text, "%w: tensor<4xf64> {tf.aliasing_output = 1 : i32}") {
					t.Errorf("the fused module does not alias w to result 1:\n%s", text)
				}
			}
			w0 := f64s(t, 1, 2, 3, 4)
			if err := l.Bind(map[string]graph.Value{"w": w0}); err != nil {
				t.Fatal(err)
			}
			in := map[string]graph.Value{"g": f64s(t, 1, 1, 1, 1), "lr": graph.ScalarValue{DType: graph.Float64, V: 0.5}}
			for i, want := range []float64{30, 21} {
				res, err := l.Run(in)
				if err != nil {
					t.Fatalf("run %d: %v", i+1, err)
				}
				if len(res.Results) != 1 || res.NonFinite != "" {
					t.Fatalf("run %d: %d results, non-finite %q; want the loss alone, all finite", i+1, len(res.Results), res.NonFinite)
				}
				if got := res.Results[0].(graph.ScalarValue).V; got != want {
					t.Errorf("run %d: loss %v, want %v", i+1, got, want)
				}
			}
			w, err := l.Value("w")
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Exact(f64s(t, 0, 1, 2, 3), w); err != nil {
				t.Errorf("w after two runs: %v", err)
			}
			if err := graph.Exact(f64s(t, 1, 2, 3, 4), w0); err != nil {
				t.Errorf("the value bound changed: %v", err)
			}
			in["g"] = f64s(t, 0, 0, math.Inf(1), 0)
			res, err := l.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			if res.NonFinite != "w" || res.Results[0].(graph.ScalarValue).V != 14 {
				t.Errorf("an infinite gradient: non-finite %q, loss %v; want w, 14", res.NonFinite, res.Results[0])
			}
			w, err = l.Value("w")
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.Exact(f64s(t, 0, 1, math.Inf(-1), 3), w); err != nil {
				t.Errorf("w after the infinite gradient: %v", err)
			}
		})
	}
}

// TestLoopImplied: a carried value the spec says is Implied is left out
// of the finiteness check, in both modes: the fused module's check
// returns one flag (for w) where it returned two, an infinity in w is
// still reported, and one in m alone is not (the caller vouched for it).
func TestLoopImplied(t *testing.T) {
	c := pjrttest.Client(t)
	prog, err := graph.Parse(`w : f64[4]; m : f64[4]; g : f64[4]; h : f64[4];
		(rnz (+) (*) w w, nzip (\a b -> a - b) w h, nzip (\a b -> a * 0 + b) m g)`)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range executables {
		for _, implied := range []bool{false, true} {
			spec := lowering.LoopSpec{Carried: []string{"", "w", "m"}, CheckFinite: true}
			flags := "tensor<2xi1>"
			if implied {
				spec.Implied, flags = []string{"m"}, "tensor<1xi1>"
			}
			l, err := xla.New(c, e.opt).CompileLoopGraph(g, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !e.opt.PerKernel {
				text := l.Executable().Texts()[0]
				if i := strings.Index(text, "func.func @finite_check("); i < 0 || !strings.Contains(text[i:strings.Index(text[i:], "{")+i], flags) {
					t.Errorf("%s, implied %v: the check does not return %s:\n%s", e.name, implied, flags, text)
				}
			}
			if err := l.Bind(map[string]graph.Value{"w": f64s(t, 1, 2, 3, 4), "m": f64s(t, 0, 0, 0, 0)}); err != nil {
				t.Fatal(err)
			}
			inf := f64s(t, 0, math.Inf(1), 0, 0)
			res, err := l.Run(map[string]graph.Value{"g": inf, "h": f64s(t, 0, 0, 0, 0)})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{false: "m", true: ""}[implied]; res.NonFinite != want {
				t.Errorf("%s, implied %v: an infinity in m alone: non-finite %q, want %q", e.name, implied, res.NonFinite, want)
			}
			if res, err = l.Run(map[string]graph.Value{"g": f64s(t, 0, 0, 0, 0), "h": inf}); err != nil {
				t.Fatal(err)
			}
			if res.NonFinite != "w" {
				t.Errorf("%s, implied %v: an infinity in w: non-finite %q, want w", e.name, implied, res.NonFinite)
			}
			l.Close()
		}
	}
}

// TestLoopErrors: a spec that does not fit the program, a run before
// Bind, a carried value passed to Run, a missing or extra value in Bind
// and a run after Close are errors that name the problem.
func TestLoopErrors(t *testing.T) {
	c := pjrttest.Client(t)
	g := descent(t)
	be := xla.New(c, xla.Options{})
	for _, tc := range []struct {
		spec lowering.LoopSpec
		want string
	}{
		{lowering.LoopSpec{Carried: []string{"", "z"}}, "xla: loop: result element 1 replaces z, which the program does not read"},
		{lowering.LoopSpec{Carried: []string{"w"}}, "xla: loop: the spec names 1 carried inputs for a result of 2 elements"},
		{lowering.LoopSpec{Carried: []string{"w", "w"}}, "xla: loop: result element 0 is f64, but the input w it replaces is f64[4]"},
		{lowering.LoopSpec{Carried: []string{"", "g"}, CheckFinite: true}, ""},
		{lowering.LoopSpec{Carried: []string{"", "w"}, CheckFinite: true, Implied: []string{"g"}}, "xla: loop: the finiteness of g is said to follow from the checked values, but g is not carried"},
	} {
		l, err := be.CompileLoop(g, tc.spec)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.spec, err)
			} else {
				l.Close()
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %s", tc.spec, err, tc.want)
		}
	}
	l, err := be.CompileLoop(g, lowering.LoopSpec{Carried: []string{"", "w"}})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]graph.Value{"g": f64s(t, 1, 1, 1, 1), "lr": graph.ScalarValue{DType: graph.Float64, V: 0.5}}
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", what, err, want)
		}
	}
	_, err = l.Run(in)
	check("run before Bind", err, "xla: loop: run before Bind: bind the carried values first")
	check("bind nothing", l.Bind(nil), "xla: loop: bind: no value for w")
	check("bind g", l.Bind(map[string]graph.Value{"w": f64s(t, 1, 2, 3, 4), "g": f64s(t, 1, 2, 3, 4)}), "xla: loop: bind: g is not a carried input")
	check("bind w of 3", l.Bind(map[string]graph.Value{"w": f64s(t, 1, 2, 3)}), "xla: loop: bind: w: needs f64[4], got f64[3]")
	if err := l.Bind(map[string]graph.Value{"w": f64s(t, 1, 2, 3, 4)}); err != nil {
		t.Fatal(err)
	}
	in["w"] = f64s(t, 1, 2, 3, 4)
	_, err = l.Run(in)
	check("run with w", err, "xla: loop: w is carried: the loop holds its value; bind it with Bind, not Run")
	delete(in, "w")
	delete(in, "lr")
	_, err = l.Run(in)
	check("run without lr", err, "xla: input lr (f64) is not bound")
	l.Close()
	_, err = l.Run(in)
	check("run after Close", err, "xla: loop: run after Close")
}

// TestFiniteCheck: the finiteness check on PJRT flags exactly the
// arguments that hold a NaN or an infinity, whatever their size (1, a
// prime above 32, a multiple of 32, a scalar) and position, f32 and f64;
// -0 and the largest finite values are finite, integers always.
func TestFiniteCheck(t *testing.T) {
	c := pjrttest.Client(t)
	type arg struct {
		dt      graph.DType
		dims    []int
		bad     int // the element set to val, -1 for none
		val     float64
		finites bool
	}
	args := []arg{
		{graph.Float32, []int{1}, -1, 0, true},
		{graph.Float32, []int{1}, 0, math.NaN(), false},
		{graph.Float32, []int{37}, 36, math.Inf(1), false},
		{graph.Float32, []int{37}, 5, math.MaxFloat32, true},
		{graph.Float32, []int{33, 64}, 33*64 - 1, math.Inf(-1), false},
		{graph.Float32, []int{33, 64}, 0, math.Copysign(0, -1), true},
		{graph.Float64, []int{7, 5}, 17, math.NaN(), false},
		{graph.Float64, []int{7, 5}, 17, math.MaxFloat64, true},
		{graph.Float64, nil, 0, math.Inf(1), false},
		{graph.Float32, nil, 0, -3, true},
		{graph.Int32, []int{3}, 1, -7, true},
		// Later members of groups checked together (same type and
		// extents): their flags keep their places.
		{graph.Float32, []int{37}, -1, 0, true},
		{graph.Float64, []int{7, 5}, 34, math.Inf(-1), false},
		{graph.Float32, []int{33, 64}, 100, math.NaN(), false},
	}
	var ts []graph.Type
	var vals []graph.Value
	for _, a := range args {
		if a.dims == nil {
			ts = append(ts, graph.Scalar(a.dt))
			vals = append(vals, graph.ScalarValue{DType: a.dt, V: a.val})
			continue
		}
		ts = append(ts, graph.ArrayOf(a.dt, a.dims...))
		v, err := graph.Zeros(a.dt, a.dims...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range v.Size() {
			v.Set(float64(i%7)-3, flatIndex(a.dims, i)...)
		}
		if a.bad >= 0 {
			v.Set(a.val, flatIndex(a.dims, a.bad)...)
		}
		vals = append(vals, v)
	}
	text, err := stablehlo.FiniteCheckModule(ts)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := c.Compile(text)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exe.Run(vals...)
	if err != nil {
		t.Fatal(err)
	}
	flags := outs[0].(*graph.Array)
	for i, a := range args {
		if got := flags.At(i) != 0; got != a.finites {
			t.Errorf("argument %d (%v%v, element %d = %v): finite %v, want %v", i, a.dt, a.dims, a.bad, a.val, got, a.finites)
		}
	}
}

// flatIndex turns a row-major position into indices of extents dims.
func flatIndex(dims []int, k int) []int {
	idx := make([]int, len(dims))
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = k % dims[d]
		k /= dims[d]
	}
	return idx
}
