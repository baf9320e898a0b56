package fusion

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph/graphtest"
)

func TestProductLaw(t *testing.T) {
	st := checkLaw(t, Product{}, graphtest.ProductPair, nil, exactTol)
	requireApplied(t, st, lawCases/3)
}

func TestFanOutLaw(t *testing.T) {
	st := checkLaw(t, FanOut{}, graphtest.ProductPair, applyOnce(Product{}), exactTol)
	st.add(checkLaw(t, FanOut{}, graphtest.Program, nil, exactTol))
	requireApplied(t, st, 20)
}

// A mean and a sum of squares over one axis become one traversal with a
// tuple accumulator.
func TestProductMeanAndVariance(t *testing.T) {
	res := fuseProgram(t, `x : f64[6]; (reduce (+) x, rnz (+) (\v -> v * v) x)`)
	require.Equal(t, 1, res.Report.KernelsAfter)
	assert.Equal(t, `rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x0 -> (x0, x0 * x0)) x`, res.Report.Kernels[0].Term)
}

func TestProductRefusesDifferentExtents(t *testing.T) {
	checkRefusal(t, Product{}, parse(t, `x : f64[6]; y : f64[5]; (reduce (+) x, reduce max y)`),
		"the rnz elements traverse different outer extents [6 5]")
}

func FuzzProductLaw(f *testing.F) { fuzzLaw(f, Product{}, graphtest.ProductPair, nil, exactTol) }
func FuzzFanOutLaw(f *testing.F) {
	fuzzLaw(f, FanOut{}, graphtest.ProductPair, applyOnce(Product{}), exactTol)
}
