package train

import (
	"context"
	"maps"
	"testing"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// On PJRT, Predict runs the inference program with the parameters bound
// on the device (copied once per set of values) and sends only the rows:
// its logits are those of the program run with every value copied, and
// after the values are taken again (as after more training) the plan binds
// the new ones.
func TestPredictBindsParametersOnPJRT(t *testing.T) {
	client := pjrttest.Client(t)
	d, err := data.Digits()
	if err != nil {
		t.Fatal(err)
	}
	small, err := d.Subset(seq(96))
	if err != nil {
		t.Fatal(err)
	}
	cfg := digitsConfig(1)
	cfg.Model.Sizes = []int{64, 8, 10}
	cfg.Backend = xla.New(client, xla.Options{})
	f, err := Fit(context.Background(), cfg, small, nil, Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := small.Batch(seq(5))
	if err != nil {
		t.Fatal(err)
	}
	x := b.X
	check := func(what string) {
		t.Helper()
		got, err := f.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		p := f.infer[5]
		if p.bound == nil || p.gen != f.gen {
			t.Fatalf("%s: the plan's parameters are not bound to the current values", what)
		}
		in := maps.Clone(f.values)
		in[p.m.Input.Name] = x
		want, err := p.exe.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		if dd, err := graph.MaxAbsDiff(want, got); err != nil || dd != 0 {
			t.Fatalf("%s: bound Predict differs from a run with every value copied by %g (%v)", what, dd, err)
		}
	}
	check("first")
	// New values: scale the first parameter, as more training would
	// change it, and take the values again.
	gen := f.gen
	vals, err := f.current.InferenceBindings(f.infer[5].m)
	if err != nil {
		t.Fatal(err)
	}
	name := f.infer[5].m.Params[0].Name
	a := graph.CopyValue(vals[name]).(*graph.Array)
	for i, v := range a.Float32s() {
		a.Float32s()[i] = 2*v + 0.5
	}
	vals[name] = a
	f.values, f.gen = vals, gen+1
	check("after the values changed")
}
