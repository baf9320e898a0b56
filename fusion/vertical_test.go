package fusion

import (
	"testing"

	"github.com/hofuse/hofuse/graph"

	"github.com/hofuse/hofuse/graph/graphtest"
)

func TestNZipNZipLaw(t *testing.T) {
	st := checkLaw(t, NZipNZip{}, graphtest.NZipOfNZip, nil, exactTol)
	st.add(checkLaw(t, NZipNZip{}, graphtest.Program, nil, exactTol))
	requireApplied(t, st, lawCases/2)
}

func TestRNZNZipLaw(t *testing.T) {
	st := checkLaw(t, RNZNZip{}, graphtest.RNZOfNZip, nil, exactTol)
	st.add(checkLaw(t, RNZNZip{}, graphtest.Program, nil, exactTol))
	requireApplied(t, st, lawCases/2)
}

func TestVerticalRefusals(t *testing.T) {
	// A producer that is a reduction per element, read by every iteration of
	// the consumer's inner loop: the next dense layer.
	checkRefusal(t, NZipNZip{}, parse(t, `x : f64[2,3]; W : f64[3,4]; V : f64[4,5];
		map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 V)) (map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W)) x)`),
		"inside an inner higher-order function, and computing it takes a reduction")
}

func TestVerticalRefusesSharedCostlyProducer(t *testing.T) {
	y := parse(t, `x : f64[4,3]; W : f64[3,3]; map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W)) x`)
	// zip (zip (+)) y y, with y one shared node.
	twice := must(graph.NewNZip(must(graph.NewNZip(must(graph.NewOpRef(graph.Add)))), y, y))
	checkRefusal(t, NZipNZip{}, twice, "has 2 consumers; recomputing it (2 inner higher-order functions per element) costs more than materialising")
}

func FuzzNZipNZipLaw(f *testing.F) { fuzzLaw(f, NZipNZip{}, graphtest.NZipOfNZip, nil, exactTol) }
func FuzzRNZNZipLaw(f *testing.F)  { fuzzLaw(f, RNZNZip{}, graphtest.RNZOfNZip, nil, exactTol) }
