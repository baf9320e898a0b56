package fusion

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// A matrix product is fused into a consumer with one result, as the GEMM's
// epilogue, but not into one with a tuple of results (an optimizer's update
// of a weight and its moment): there it would run one dot product at a
// time, so it is materialised and the consumer reads it.
func TestMatrixProductIntoTupleConsumer(t *testing.T) {
	const mm = `(map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A)`
	one := fuseProgram(t, `A : f64[4,3]; B : f64[3,5]; W : f64[4,5]; zip (zip (\p g -> p - g)) W `+mm)
	assert.Equal(t, 1, one.Report.KernelsAfter, "kernels:\n%s", one.Graph)
	two := fuseProgram(t, `A : f64[4,3]; B : f64[3,5]; W : f64[4,5]; nzip (nzip (\p g -> (p - g, g * g))) W `+mm)
	require.Equal(t, 2, two.Report.KernelsAfter, "kernels:\n%s", two.Graph)
	assert.Equal(t, `map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A`, two.Report.Kernels[0].Term)
	found := false
	for _, f := range two.Report.RulesRefused {
		found = found || f.Rule == "nzip-nzip" && strings.Contains(f.Reason, "the consumer has a tuple of results")
	}
	assert.True(t, found, "the report says why the product is materialised: %+v", two.Report.RulesRefused)
}
