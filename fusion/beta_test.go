package fusion

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

func TestBetaLaw(t *testing.T) {
	st := checkLaw(t, Beta{}, graphtest.Program, nil, exactTol)
	requireApplied(t, st, 20)
}

func TestBetaKeepsSharedArgumentsOnce(t *testing.T) {
	// The argument is used twice: β binds it with let instead of copying it.
	n := parse(t, `x : f64[3]; map (\v -> (\a -> a * a) (exp v)) x`)
	out, err := Fuse(n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Report.Kernels[0].Term; got != `map (\v -> let a = exp v in a * a) x` {
		t.Errorf("got %s", got)
	}
}

func FuzzBetaLaw(f *testing.F) { fuzzLaw(f, Beta{}, graphtest.Program, nil, exactTol) }

// β for products: a projection of a tuple is its component, and the other
// components, dead, go.
func TestBetaProjectsTuples(t *testing.T) {
	n := parse(t, `x : f64[3]; u : f64[4]; map (\v -> fst (v + 1, reduce (+) u)) x`)
	out, err := Fuse(n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := graph.Print(out.Term); got != `map (\v -> v + 1) x` {
		t.Errorf("got %s", got)
	}
	if len(out.Graph.Kernels) != 1 {
		t.Errorf("got %d kernels, want 1:\n%s", len(out.Graph.Kernels), out.Graph)
	}
}
