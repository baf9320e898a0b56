package fusion

import (
	"testing"

	"github.com/hofuse/hofuse/graph/graphtest"
)

func TestInlineLetLaw(t *testing.T) {
	st := checkLaw(t, InlineLet{}, graphtest.Program, nil, exactTol)
	requireApplied(t, st, 20)
}

func TestInlineLetRefusesSharedClosedValues(t *testing.T) {
	checkRefusal(t, InlineLet{}, parse(t, `x : f64[4,3]; let s = reduce (zip (+)) x in map (\r -> zip (-) r s) x`),
		"s is used once, inside an inner higher-order function")
	checkRefusal(t, InlineLet{}, parse(t, `x : f64[4]; let s = map (\v -> exp (v * v + 1) / (v + 2)) x in zip (+) s s`), "s is used twice")
}

func TestSplitLetLaw(t *testing.T) {
	st := checkLaw(t, SplitLet{}, graphtest.Program, nil, exactTol)
	st.add(checkLaw(t, SplitLet{}, splitLetProgram, nil, exactTol))
	requireApplied(t, st, 20)
}

func TestFloatLetLaw(t *testing.T) {
	st := checkLaw(t, FloatLet{}, graphtest.Program, nil, exactTol)
	st.add(checkLaw(t, FloatLet{}, floatLetProgram, nil, exactTol))
	requireApplied(t, st, 20)
}

func FuzzInlineLetLaw(f *testing.F) { fuzzLaw(f, InlineLet{}, graphtest.Program, nil, exactTol) }
func FuzzSplitLetLaw(f *testing.F)  { fuzzLaw(f, SplitLet{}, splitLetProgram, nil, exactTol) }
func FuzzFloatLetLaw(f *testing.F)  { fuzzLaw(f, FloatLet{}, floatLetProgram, nil, exactTol) }
