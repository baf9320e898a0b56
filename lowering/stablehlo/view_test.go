package stablehlo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// TestNewViewTypes lowers views graph does not define: a permutation is a
// transpose, a permuted subdivision a reshape and a transpose, read off the
// layout each view gives; a window, which no reshape or transpose makes, is
// an unsupported construct named as such. (Package xla runs the first
// two.)
func TestNewViewTypes(t *testing.T) {
	cases, err := lowertest.ViewCases(graph.Float32)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		g, err := fusion.Whole(c.Term)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		m, err := stablehlo.Module(g)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, op := range c.Ops {
			if !strings.Contains(m, op) {
				t.Errorf("%s: module lacks %s:\n%s", c.Name, op, m)
			}
		}
		for _, op := range c.Lacks {
			if strings.Contains(m, op) {
				t.Errorf("%s: module contains %s:\n%s", c.Name, op, m)
			}
		}
	}

	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 5), false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := graph.NewView(lowertest.WindowView{Axis: 0, Width: 3}, x)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(w)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stablehlo.Module(g)
	if !errors.Is(err, stablehlo.ErrUnsupported) {
		t.Fatalf("window view: got %v, want an error wrapping ErrUnsupported", err)
	}
	want := "window 0 3 x: unsupported: view window 0 3 shows 9 of the 5 elements of its operand, which no reshape and transpose do"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("window view:\n got: %v\nwant: %s", err, want)
	}
}
