package autodiff

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// GradAux returns the auxiliary results after the gradients, computed as
// they are: for loss = Σ exp x and aux = (map exp x, Σ x), with x = (0,
// 1, 2), the result is (e⁰+e¹+e², (e⁰, e¹, e²), (e⁰, e¹, e²), 3). The
// exp node the loss and the first aux share stays one node, so the fused
// term computes it in one kernel, not two.
func TestGradAux(t *testing.T) {
	p := parse(t, "x : f64[3]; x")
	x := input(t, p, "x")
	ex, err := graph.ParseTerm(`map exp x`, x)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := graph.NewReduce(mustT(graph.NewOpRef(graph.Add)), ex)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := graph.ParseTerm(`reduce (+) x`, x)
	if err != nil {
		t.Fatal(err)
	}
	g, err := GradAux(loss, []*graph.Input{x}, ex, sum)
	if err != nil {
		t.Fatal(err)
	}
	v, err := graph.Eval(g, map[string]graph.Value{"x": arr(t, []float64{0, 1, 2}, 3)})
	if err != nil {
		t.Fatal(err)
	}
	tup := v.(graph.TupleValue)
	if len(tup) != 4 {
		t.Fatalf("%d results, want 4", len(tup))
	}
	e := []float64{1, math.E, math.E * math.E}
	if got := tup[0].(graph.ScalarValue).V; math.Abs(got-(e[0]+e[1]+e[2])) > 1e-14 {
		t.Errorf("loss = %v, want %v", got, e[0]+e[1]+e[2])
	}
	checkVec(t, "dx", tup[1].(*graph.Array).Values(), e, 1e-15)
	checkVec(t, "aux 0", tup[2].(*graph.Array).Values(), e, 1e-15)
	if got := tup[3].(graph.ScalarValue).V; got != 3 {
		t.Errorf("aux 1 = %v, want 3", got)
	}
	// The forward map exp x is one node of the result, read by the loss
	// and returned as aux 0; given a copy of it instead, the result holds
	// two.
	if n := expMaps(g); n != 1 {
		t.Errorf("the result holds %d nodes map (\\v -> exp v) x, want 1: %s", n, graph.Print(g))
	}
	exCopy, err := graph.ParseTerm(`map exp x`, x)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := GradAux(loss, []*graph.Input{x}, exCopy, sum)
	if err != nil {
		t.Fatal(err)
	}
	if n := expMaps(g2); n != 2 {
		t.Errorf("with a copy of map exp x as aux, the result holds %d nodes map (\\v -> exp v) x, want 2", n)
	}
	if _, err := fusion.Fuse(g, fusion.Options{}); err != nil {
		t.Fatal(err)
	}
}

// expMaps counts the nodes nzip (\v -> exp v) x of n.
func expMaps(n graph.Node) int {
	count := 0
	for m := range graph.All(n) {
		z, ok := m.(*graph.NZip)
		if !ok {
			continue
		}
		l, ok := z.Fn.(*graph.Lambda)
		if !ok || len(l.Params) != 1 {
			continue
		}
		if c, ok := l.Body.(*graph.Call); ok && c.Op == graph.Exp && c.Args[0] == graph.Node(l.Params[0]) {
			count++
		}
	}
	return count
}

// A nil or ill-typed auxiliary result is refused, naming its position.
func TestGradAuxErrors(t *testing.T) {
	p := parse(t, "x : f64[3]; reduce (+) x")
	x := input(t, p, "x")
	_, err := GradAux(p.Body, []*graph.Input{x}, nil)
	if want := "autodiff: auxiliary result 0 is nil"; err == nil || err.Error() != want {
		t.Errorf("nil aux: got %v, want %s", err, want)
	}
	bad, err := graph.ParseTerm(`zip (+) x y`, x, mustT(graph.NewInput("y", graph.ArrayOf(graph.Float64, 4), false)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = GradAux(p.Body, []*graph.Input{x}, p.Body, bad)
	want := "autodiff: auxiliary result 1 does not type-check: zip (+) x y: nzip arguments have different outer extents: argument 0 has 3, argument 1 has 4"
	if err == nil || err.Error() != want {
		t.Errorf("ill-typed aux: got %v, want %s", err, want)
	}
}

func mustT[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
