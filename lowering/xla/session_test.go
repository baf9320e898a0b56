package xla_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// bindMLP binds mc's parameters and returns the session.
func bindMLP(tb testing.TB, mc *mlpCase) *xla.Session {
	tb.Helper()
	s, err := mc.exe.BindSession(mc.model.RandomParams(1))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestSessionMatchesRun checks a Session against Executable.Run, which
// copies everything on every call, on the same executable: the same bits,
// fused and one executable per kernel, for two inputs in a row (the
// second run must see the new data, not the first's left in a reused input
// buffer) and after SetParams changes one parameter.
func TestSessionMatchesRun(t *testing.T) {
	c := pjrttest.Client(t)
	for _, mode := range mlpModes {
		t.Run(mode, func(t *testing.T) {
			mc := compileMLP(t, c, 3, mode)
			s := bindMLP(t, mc)
			x := mc.model.Input.Name
			same := func(what string, in map[string]graph.Value) {
				t.Helper()
				want, err := mc.exe.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Run(map[string]graph.Value{x: in[x]})
				if err != nil {
					t.Fatal(err)
				}
				if d, err := graph.MaxAbsDiff(want, got); err != nil || d != 0 {
					t.Fatalf("%s: session differs from Run by %g (%v)", what, d, err)
				}
			}
			in := mc.model.Bindings(1)
			same("first input", in)
			in[x] = mc.model.RandomInput(2)
			same("second input", in)

			p := mc.model.Params[0].Name
			changed := mc.model.RandomParams(7)[p]
			if err := s.SetParams(map[string]graph.Value{p: changed}); err != nil {
				t.Fatal(err)
			}
			in[p] = changed
			same("after SetParams", in)
			tm := s.Timing()
			if tm.Execute <= 0 {
				t.Errorf("timing %+v: no execute time", tm)
			}
		})
	}
}

// TestSessionErrors checks that wrong inputs name the input and say what
// to do.
func TestSessionErrors(t *testing.T) {
	c := pjrttest.Client(t)
	mc := compileMLP(t, c, 2, "fused")
	s := bindMLP(t, mc)
	x := mc.model.Input.Name
	p := mc.model.Params[0].Name
	in := mc.model.Bindings(1)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"parameter given to Run", func() error {
			_, err := s.Run(map[string]graph.Value{x: in[x], p: in[p]})
			return err
		}, p + " is a bound parameter: change it with SetParams"},
		{"missing data", func() error { _, err := s.Run(map[string]graph.Value{}); return err }, "no value for input " + x},
		{"unknown input", func() error {
			_, err := s.Run(map[string]graph.Value{x: in[x], "nope": in[x]})
			return err
		}, "nope is not an input"},
		{"wrong shape", func() error {
			_, err := s.Run(map[string]graph.Value{x: in[p]})
			return err
		}, "input " + x},
		{"data given to SetParams", func() error { return s.SetParams(map[string]graph.Value{x: in[x]}) }, x + " was bound as data"},
		{"bind unknown", func() error {
			_, err := mc.exe.BindSession(map[string]graph.Value{"nope": in[p]})
			return err
		}, "bind: nope is not an input of the program"},
		{"bind wrong type", func() error {
			bad := maps.Clone(mc.model.RandomParams(1))
			bad[p] = in[x]
			_, err := mc.exe.BindSession(bad)
			return err
		}, "parameter " + p},
	}
	for _, tc := range cases {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	s.Close()
	if _, err := s.Run(map[string]graph.Value{x: in[x]}); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("run after Close: got %v", err)
	}
}

// sessionAllocBound is the most Go allocations a steady-state fused run of
// the MLP may make: what go-xla v0.1.4 makes to execute a program (its
// ExecutionConfig, the list of inputs not donated, the list of results,
// and each result's Buffer, its wrapper and their cleanups). The inputs,
// the parameters, the result's host storage and hofuse's side of the run
// cost none.
const sessionAllocBound = 7

// TestSessionAllocs checks that a steady-state run allocates no more than
// sessionAllocBound times on the Go side, at any batch size (the count
// does not grow with the data).
func TestSessionAllocs(t *testing.T) {
	c := pjrttest.Client(t)
	for _, batch := range mlpBatches {
		mc := compileMLP(t, c, batch, "fused")
		s := bindMLP(t, mc)
		in := map[string]graph.Value{mc.model.Input.Name: mc.model.RandomInput(1)}
		if _, err := s.Run(in); err != nil {
			t.Fatal(err)
		}
		var err error
		n := testing.AllocsPerRun(20, func() {
			if _, e := s.Run(in); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("batch %d: %.0f allocations per run", batch, n)
		if n > sessionAllocBound {
			t.Errorf("batch %d: %.0f allocations per run, want at most %d", batch, n, sessionAllocBound)
		}
	}
}

// BenchmarkSessionMLP times one inference of the MLP through a Session:
// the parameters stay on the device, each iteration copies the input in
// and the batch×10 result out. in-ms, exec-ms and out-ms split the mean
// time between the copy in, the execution and the copy out.
func BenchmarkSessionMLP(b *testing.B) {
	c := pjrttest.Client(b)
	for _, batch := range mlpBatches {
		for _, mode := range mlpModes {
			b.Run(fmt.Sprintf("batch=%d/mode=%s", batch, mode), func(b *testing.B) {
				mc := compileMLP(b, c, batch, mode)
				s := bindMLP(b, mc)
				in := map[string]graph.Value{mc.model.Input.Name: mc.model.RandomInput(1)}
				if _, err := s.Run(in); err != nil {
					b.Fatal(err)
				}
				var sum xla.Timing
				b.ReportAllocs()
				b.SetBytes(int64(4 * batch * 784))
				b.ResetTimer()
				for b.Loop() {
					if _, err := s.Run(in); err != nil {
						b.Fatal(err)
					}
					tm := s.Timing()
					sum.In += tm.In
					sum.Execute += tm.Execute
					sum.Out += tm.Out
				}
				n := float64(b.N)
				b.ReportMetric(sum.In.Seconds()*1e3/n, "in-ms")
				b.ReportMetric(sum.Execute.Seconds()*1e3/n, "exec-ms")
				b.ReportMetric(sum.Out.Seconds()*1e3/n, "out-ms")
			})
		}
	}
}
