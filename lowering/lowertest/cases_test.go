package lowertest

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestInstances: every instance parses and checks, names are unique, the
// suite holds at least MinInstances, and each input layout binds the same
// values as the dense one.
func TestInstances(t *testing.T) {
	insts, err := Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) < MinInstances {
		t.Errorf("%d instances, want at least %d", len(insts), MinInstances)
	}
	seen := map[string]bool{}
	for _, inst := range insts {
		if seen[inst.Name] {
			t.Errorf("two instances named %s", inst.Name)
		}
		seen[inst.Name] = true
		if _, err := graph.Check(inst.Term); err != nil {
			t.Errorf("%s: %v", inst.Name, err)
			continue
		}
		dense, err := Inputs(inst.Term, hash(inst.Name), inst.Special, Dense)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []Layout{Strided, Flipped} {
			in, err := Inputs(inst.Term, hash(inst.Name), inst.Special, l)
			if err != nil {
				t.Fatalf("%s %v: %v", inst.Name, l, err)
			}
			for name, v := range dense {
				if err := graph.Diff(v, in[name], 0); err != nil {
					t.Errorf("%s %v input %s: %v", inst.Name, l, name, err)
				}
			}
		}
	}
}

// TestStridedLayout: a strided input is a view with an offset and
// doubled strides; a flipped one has its last two axes swapped.
func TestStridedLayout(t *testing.T) {
	a, err := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := view(a, Strided)
	if err != nil {
		t.Fatal(err)
	}
	if s.Offset() == 0 || s.Layout()[0].Stride != 6 || s.Layout()[1].Stride != 2 {
		t.Errorf("strided view: offset %d, layout %v; want an offset and strides (6, 2)", s.Offset(), s.Layout())
	}
	f, err := view(a, Flipped)
	if err != nil {
		t.Fatal(err)
	}
	if f.Layout()[0].Stride != 1 || f.Layout()[1].Stride != 2 {
		t.Errorf("flipped view: layout %v; want strides (1, 2)", f.Layout())
	}
	for _, v := range []*graph.Array{s, f} {
		if err := graph.Diff(a, v, 0); err != nil {
			t.Error(err)
		}
	}
}

// TestScheduledReorders: the scheduled mode runs most of the suite's
// nests in an order other than the written one, so that the back ends'
// runs of it test the schedule pass's orders and not the written ones
// again.
func TestScheduledReorders(t *testing.T) {
	insts, err := Instances()
	if err != nil {
		t.Fatal(err)
	}
	withLoops, reordered := 0, 0
	for _, inst := range insts {
		g, err := Scheduled(inst.Term)
		if err != nil {
			t.Fatalf("%s: %v", inst.Name, err)
		}
		nested, changed := false, false
		for _, k := range g.Kernels {
			if k.Schedule != nil && k.Schedule.Orders > 1 {
				nested = true
			}
			if k.Schedule != nil && k.Schedule.Changed {
				changed = true
			}
		}
		if nested {
			withLoops++
		}
		if changed {
			reordered++
		}
	}
	t.Logf("%d of %d instances have a kernel with several orders; %d run reordered", withLoops, len(insts), reordered)
	if reordered < withLoops*9/10 || reordered < 100 {
		t.Errorf("only %d instances run reordered, of the %d with a kernel that has several orders", reordered, withLoops)
	}
}
