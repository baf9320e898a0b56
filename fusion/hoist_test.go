package fusion

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// exchangeInner applies an exchange rule inside a lambda without hoisting,
// which leaves the views HoistView moves.
func exchangeInner(term graph.Node) (graph.Node, error) {
	for _, r := range []Rule{MapMap{}, MapRNZ{}} {
		c, err := newContext(term)
		if err != nil {
			return nil, err
		}
		for n := range graph.All(term) {
			if n == term {
				continue
			}
			out, err := r.Rewrite(c, n)
			if err == nil {
				return replace(term, map[graph.Node]graph.Node{n: out})
			}
		}
	}
	return term, nil
}

func TestHoistViewLaw(t *testing.T) {
	st := checkLaw(t, HoistView{}, graphtest.MatMul, exchangeInner, exactTol)
	st.add(checkLaw(t, HoistView{}, graphtest.MapOfMap, exchangeInner, exactTol))
	requireApplied(t, st, lawCases/4)
}

func TestFlipFlipLaw(t *testing.T) {
	st := checkLaw(t, FlipFlip{}, flipChainProgram, nil, exactTol)
	requireApplied(t, st, lawCases/4)
}

func FuzzHoistViewLaw(f *testing.F) {
	fuzzLaw(f, HoistView{}, graphtest.MatMul, exchangeInner, exactTol)
}
func FuzzFlipFlipLaw(f *testing.F) { fuzzLaw(f, FlipFlip{}, flipChainProgram, nil, exactTol) }

func TestSinkViewLaw(t *testing.T) {
	st := checkLaw(t, SinkView{}, graphtest.Program, nil, exactTol)
	st.add(checkLaw(t, SinkView{}, graphtest.MapOfRNZ, applyOnce(MapRNZ{}), exactTol))
	requireApplied(t, st, 20)
}

func FuzzSinkViewLaw(f *testing.F) { fuzzLaw(f, SinkView{}, graphtest.Program, nil, exactTol) }
