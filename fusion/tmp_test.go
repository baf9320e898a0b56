package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

func TestTmpSearch(t *testing.T) {
	A := must(graph.NewInput("A", graph.ArrayOf(graph.Float64, 4, 6), false))
	B := must(graph.NewInput("B", graph.ArrayOf(graph.Float64, 6, 8), false))
	term := must(graph.ParseTerm(`map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`, A, B))
	r := rand.New(rand.NewPCG(1, 1))
	in := map[string]graph.Value{"A": must(graph.RandomArray(r, graph.Float64, 4, 6)), "B": must(graph.RandomArray(r, graph.Float64, 6, 8))}
	want := must(graph.Eval(term, in)).(*graph.Array)
	for _, subs := range [][]Subdivision{nil, {{Level: 2, Block: 3}}} {
		ss, err := Search(term, SearchOptions{Subdivide: subs})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(len(ss))
		for _, s := range ss {
			if s.Err != nil {
				t.Log(s.Key(), s.Err)
				continue
			}
			var kinds []string
			for _, l := range Nest(s.Term) {
				kinds = append(kinds, l.Kind)
			}
			t.Log(kinds)
			got, err := graph.Eval(s.Term, in)
			if err != nil {
				t.Fatal(s.Key(), graph.Print(s.Term), err)
			}
			d := 0.0
			g := got.(*graph.Array)
			for i := range 4 {
				for j := range 8 {
					d = max(d, abs(g.At(i, j)-want.At(i, j)))
				}
			}
			t.Logf("%-22s %.1e %s", s.Key(), d, graph.Print(s.Term))
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
