package fusion

import (
	"testing"

	"github.com/hofuse/hofuse/graph/graphtest"
)

// The exchange rules keep the order in which each element is combined,
// except rnz-rnz, which regroups.

func TestMapMapLaw(t *testing.T) {
	st := checkLaw(t, MapMap{}, graphtest.MapOfMap, nil, exactTol)
	st.add(checkLaw(t, MapMap{}, graphtest.MatMul, nil, exactTol))
	requireApplied(t, st, lawCases/2)
}

func TestMapRNZLaw(t *testing.T) {
	st := checkLaw(t, MapRNZ{}, graphtest.MapOfRNZ, nil, exactTol)
	st.add(checkLaw(t, MapRNZ{}, graphtest.MatVec, nil, exactTol))
	requireApplied(t, st, lawCases/2)
}

func TestRNZMapLaw(t *testing.T) {
	st := checkLaw(t, RNZMap{}, graphtest.MapOfRNZ, applyOnce(MapRNZ{}), exactTol)
	st.add(checkLaw(t, RNZMap{}, graphtest.MatVec, applyOnce(MapRNZ{}), exactTol))
	requireApplied(t, st, lawCases/2)
}

func TestRNZRNZLaw(t *testing.T) {
	st := checkLaw(t, RNZRNZ{}, graphtest.RNZOfRNZ, nil, regrouped)
	requireApplied(t, st, lawCases/3)
}

func TestExchangeRefusals(t *testing.T) {
	// Subtraction is neither associative nor commutative.
	checkRefusal(t, RNZRNZ{}, parse(t, `A : f64[3,4]; B : f64[4];
		rnz (-) (\a -> rnz (-) (*) a B) A`), "the reduction (-) is not known to be associative and commutative")
	checkRefusal(t, RNZRNZ{}, parse(t, `A : f64[3,4]; B : f64[4];
		rnz (+) (\a -> rnz max (*) a B) A`), "the two reductions differ ((+) and max)")
	// An inner array computed from the outer element is not a view of it.
	checkRefusal(t, MapRNZ{}, parse(t, `A : f64[3,4];
		map (\a -> rnz (+) (*) a (map exp a)) A`), "inner argument 1, map exp a, depends on the outer element other than as a view of it")
	checkRefusal(t, RNZMap{}, parse(t, `A : f64[3,4];
		rnz (\p q -> zip (+) p q) (\a -> map exp a) A`), "is not a lifted (zip) operator")
}

func FuzzMapMapLaw(f *testing.F) { fuzzLaw(f, MapMap{}, graphtest.MapOfMap, nil, exactTol) }
func FuzzMapRNZLaw(f *testing.F) { fuzzLaw(f, MapRNZ{}, graphtest.MapOfRNZ, nil, exactTol) }
func FuzzRNZMapLaw(f *testing.F) {
	fuzzLaw(f, RNZMap{}, graphtest.MapOfRNZ, applyOnce(MapRNZ{}), exactTol)
}
func FuzzRNZRNZLaw(f *testing.F) { fuzzLaw(f, RNZRNZ{}, graphtest.RNZOfRNZ, nil, regrouped) }
