package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

func TestBadInputs(t *testing.T) {
	prog, err := graph.Parse(`A : f32[3,4]; s : f64; map (\r -> map (\x -> x * f32 s) r) A`)
	if err != nil {
		t.Fatal(err)
	}
	body := prog.Body
	g, err := fusion.Whole(body)
	if err != nil {
		t.Fatal(err)
	}
	p, err := native.New(native.Options{}).Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := graph.Zeros(graph.Float32, 3, 4)
	f64, _ := graph.Zeros(graph.Float64, 3, 4)
	wrongShape, _ := graph.Zeros(graph.Float32, 4, 3)
	sv := graph.ScalarValue{DType: graph.Float64, V: 2}
	for _, c := range []struct {
		name   string
		inputs map[string]graph.Value
		want   string
	}{
		{"missing", map[string]graph.Value{"A": good}, "native: input s (f64) is not bound"},
		{"extra", map[string]graph.Value{"A": good, "s": sv, "B": good, "C": sv}, "native: B, C bound, but the program has no such input"},
		{"dtype", map[string]graph.Value{"A": f64, "s": sv}, "native: input A needs f32[3,4], got f64[3,4]"},
		{"shape", map[string]graph.Value{"A": wrongShape, "s": sv}, "native: input A needs f32[3,4], got f32[4,3]"},
		{"kind", map[string]graph.Value{"A": sv, "s": sv}, "native: input A needs an array of type f32[3,4], got f64(2)"},
		{"nil array", map[string]graph.Value{"A": (*graph.Array)(nil), "s": sv}, "native: input A needs an array of type f32[3,4], got a nil *graph.Array"},
		{"nil value", map[string]graph.Value{"A": nil, "s": sv}, "native: input A needs an array of type f32[3,4], got nothing"},
		{"scalar dtype", map[string]graph.Value{"A": good, "s": graph.ScalarValue{DType: graph.Float32, V: 1}}, "native: input s needs a scalar of type f64, got f32(1)"},
		{"scalar kind", map[string]graph.Value{"A": good, "s": good}, "native: input s needs a scalar of type f64, got f32[3,4]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := p.Run(c.inputs)
			if err == nil {
				t.Fatalf("no error; got %v", out)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %q\nwant %q", err, c.want)
			}
		})
	}
	// A good run still works after the bad ones.
	if _, err := p.Run(map[string]graph.Value{"A": good, "s": sv}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(map[string]graph.Value{"A": good, "s": sv}); err == nil || err.Error() != "native: Run after Close" {
		t.Errorf("Run after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestBadTupleInputs(t *testing.T) {
	tt := &graph.TupleType{Elems: []graph.Type{graph.ArrayOf(graph.Float64, 2), graph.ArrayOf(graph.Float64, 2)}}
	in, err := graph.NewInput("t", tt, false)
	if err != nil {
		t.Fatal(err)
	}
	term, err := graph.ParseTerm(`zip (+) (fst t) (snd t)`, in)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(term)
	if err != nil {
		t.Fatal(err)
	}
	p, err := native.New(native.Options{}).Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, _ := graph.Zeros(graph.Float64, 2)
	b, _ := graph.Zeros(graph.Float64, 3)
	if _, err := p.Run(map[string]graph.Value{"t": graph.TupleValue{a, a}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    graph.Value
		want string
	}{
		{a, "native: input t needs a tuple of type (f64[2], f64[2]), got f64[2]"},
		{graph.TupleValue{a}, "native: input t needs a tuple of type (f64[2], f64[2]), got (f64[2])"},
		{graph.TupleValue{a, b}, "native: input t element 1: needs f64[2], got f64[3]"},
	} {
		_, err := p.Run(map[string]graph.Value{"t": c.v})
		if err == nil || err.Error() != c.want {
			t.Errorf("error\n got %v\nwant %s", err, c.want)
		}
	}
}

func TestBadGraph(t *testing.T) {
	if _, err := native.New(native.Options{}).Compile(nil); err == nil || err.Error() != "native: empty kernel graph" {
		t.Errorf("nil graph: %v", err)
	}
	if _, err := native.New(native.Options{}).Compile(&fusion.Graph{}); err == nil {
		t.Errorf("empty graph compiled")
	}
}

// TestResultFedBack runs a plan on its own previous result: the input
// aliases the arena the kernels overwrite (here with a transpose, which
// in place would read elements it has already written), so it must be
// copied first.
func TestResultFedBack(t *testing.T) {
	_, g := parseWhole(t, `x : f64[5,5]; map (\r -> map (\v -> v + 1) r) (flip 0 x)`)
	p, err := native.New(native.Options{Parallelism: 1}).Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x, _ := graph.Zeros(graph.Float64, 5, 5)
	for i := range 5 {
		for j := range 5 {
			x.Set(float64(10*i+j), i, j)
		}
	}
	out := graph.Value(x)
	for range 2 {
		if out, err = p.Run(map[string]graph.Value{"x": out}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		for j := range 5 {
			if got, want := out.(*graph.Array).At(i, j), float64(10*i+j+2); got != want {
				t.Fatalf("[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestNestedTupleInput binds an input whose type is a nested tuple: its
// leaves are bound depth first. p = ((u, s), w) with u = (1, 2, 3),
// s = 10, w = (100, 200, 300); u*s + w = (110, 220, 330).
func TestNestedTupleInput(t *testing.T) {
	// The notation has no nested tuple types; the term is built.
	pt := &graph.TupleType{Elems: []graph.Type{
		&graph.TupleType{Elems: []graph.Type{graph.ArrayOf(graph.Float64, 3), graph.Scalar(graph.Float64)}},
		graph.ArrayOf(graph.Float64, 3)}}
	p, err := graph.NewInput("p", pt, false)
	if err != nil {
		t.Fatal(err)
	}
	fp := mustNode(graph.NewProj(0, p))
	x, y := graph.NewVar("x"), graph.NewVar("y")
	body := mustNode(graph.NewCall(graph.Add, mustNode(graph.NewCall(graph.Mul, x, mustNode(graph.NewProj(1, fp)))), y))
	lam := mustNode(graph.NewLambda([]*graph.Var{x, y}, body))
	term := mustNode(graph.NewNZip(lam, mustNode(graph.NewProj(0, fp)), mustNode(graph.NewProj(1, p))))
	g, err := fusion.Whole(term)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := native.New(native.Options{}).Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := graph.FromFloat64([]float64{1, 2, 3}, 3)
	w, _ := graph.FromFloat64([]float64{100, 200, 300}, 3)
	out, err := pl.Run(map[string]graph.Value{"p": graph.TupleValue{graph.TupleValue{u, graph.ScalarValue{DType: graph.Float64, V: 10}}, w}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*graph.Array).Values(); len(got) != 3 || got[0] != 110 || got[1] != 220 || got[2] != 330 {
		t.Errorf("got %v, want [110 220 330]", got)
	}
	_, err = pl.Run(map[string]graph.Value{"p": graph.TupleValue{graph.TupleValue{u, u}, w}})
	if want := "native: input p element 0: element 1: needs a scalar of type f64, got f64[3]"; err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func mustNode[N graph.Node](n N, err error) N {
	if err != nil {
		panic(err)
	}
	return n
}
