package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// subdivRule draws a block from 1..4, so that it divides the extent in some
// cases and not in others.
type subdivRule struct {
	mk func(block int) Rule
	r  *rand.Rand
}

func (s subdivRule) Name() string { return s.mk(1).Name() }
func (s subdivRule) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	return s.mk(1+s.r.IntN(4)).Rewrite(c, n)
}

func TestSubdivMapLaw(t *testing.T) {
	rule := subdivRule{func(b int) Rule { return SubdivMap{Block: b} }, rand.New(rand.NewPCG(1, 1))}
	st := checkLaw(t, rule, graphtest.Program, nil, exactTol)
	st.add(checkLaw(t, rule, graphtest.MatMul, nil, exactTol))
	requireApplied(t, st, lawCases/2)
	if len(st.refused) == 0 {
		t.Errorf("no block was refused: %v", st.refused)
	}
}

func TestSubdivRNZLaw(t *testing.T) {
	rule := subdivRule{func(b int) Rule { return SubdivRNZ{Block: b} }, rand.New(rand.NewPCG(2, 2))}
	st := checkLaw(t, rule, graphtest.Program, nil, regrouped)
	st.add(checkLaw(t, rule, graphtest.MatVec, nil, regrouped))
	requireApplied(t, st, lawCases/2)
}

func TestSubdivRefusals(t *testing.T) {
	checkRefusal(t, SubdivMap{Block: 4}, parse(t, `x : f64[6]; map exp x`), "block 4 does not divide the outer extent 6")
	checkRefusal(t, SubdivRNZ{Block: 2}, parse(t, `x : f64[6]; reduce (-) x`), "the reduction (-) is not known to be associative")
}

func FuzzSubdivMapLaw(f *testing.F) {
	fuzzLaw(f, SubdivMap{Block: 2}, graphtest.Program, nil, exactTol)
}
func FuzzSubdivRNZLaw(f *testing.F) {
	fuzzLaw(f, SubdivRNZ{Block: 2}, graphtest.Program, nil, regrouped)
}
