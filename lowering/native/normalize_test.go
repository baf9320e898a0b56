package native

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// The normaliser returns every error it meets instead of compiling the
// body it started from (issue 8 item 6). A checked kernel body cannot
// reach these paths, so the rules are called directly on terms Check would
// reject.
func TestNormaliseErrorsSurface(t *testing.T) {
	a, err := graph.NewInput("a", graph.ArrayOf(graph.Float64, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	x, y := graph.NewVar("x"), graph.NewVar("y")
	lam, err := graph.NewLambda([]*graph.Var{x, y}, x)
	if err != nil {
		t.Fatal(err)
	}
	app, err := graph.NewApp(lam, a) // two parameters, one argument
	if err != nil {
		t.Fatal(err)
	}
	sec, err := graph.NewSection(graph.Add, graph.NewConst(1), false)
	if err != nil {
		t.Fatal(err)
	}
	app2, err := graph.NewApp(sec, a, a) // a section takes one argument
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		term graph.Node
		want string
	}{
		{"lambda arity", app, `(\x y -> x) a: function of 2 parameters applied to 1 arguments`},
		{"section arity", app2, `(+1) a a: section applied to 2 arguments`},
	} {
		t.Run(c.name, func(t *testing.T) {
			nz := &normalizer{memo: map[graph.Node]graph.Node{}}
			out, err := nz.norm(c.term)
			if err == nil {
				t.Fatalf("no error; normalised to %s", graph.Print(out))
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %q\nwant %q", err, c.want)
			}
		})
	}
}

// TestNormaliseErrorNamesKernel: an error met while normalising a kernel
// body surfaces from Plan with the kernel's name.
func TestNormaliseErrorNamesKernel(t *testing.T) {
	a, err := graph.NewInput("a", graph.ArrayOf(graph.Float64, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	x, y := graph.NewVar("x"), graph.NewVar("y")
	lam, err := graph.NewLambda([]*graph.Var{x, y}, x)
	if err != nil {
		t.Fatal(err)
	}
	body, err := graph.NewNZip(lam, a)
	if err != nil {
		t.Fatal(err)
	}
	out, err := graph.NewInput("t1_bad", graph.ArrayOf(graph.Float64, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	g := &fusion.Graph{Inputs: []*graph.Input{a}, Result: out,
		Kernels: []*fusion.Kernel{{Name: "k1_bad", Inputs: []*graph.Input{a}, Body: body, Output: out}}}
	_, err = New(Options{}).Plan(g)
	want := `native: kernel k1_bad: the body does not type-check: \x y -> x: function of 2 parameters applied to 1 arguments`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}
