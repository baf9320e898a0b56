package fusion

import (
	"testing"

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
