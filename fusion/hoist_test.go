package fusion

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestHoistViewLambdaReducer: hoist-view recognises the reduction operator
// with graph.Reducer, so a lifted op written as a lambda moves the view out
// as zip (+) does, and the result keeps the sums: with X = 1..12 as
// [3,2,2], the sum of the doubled, transposed (flip 0) matrices is
// 2·transpose [[15,18],[21,24]] = [[30,42],[36,48]].
func TestHoistViewLambdaReducer(t *testing.T) {
	for _, red := range []string{`zip (zip (+))`, `\a b -> zip (zip (+)) a b`, `\a b -> zip (\u v -> zip (+) v u) a b`} {
		t.Run(red, func(t *testing.T) {
			term := parse(t, `X : f64[3,2,2]; rnz (`+red+`) (\r -> flip 0 (map (\c -> map (*2) c) r)) X`)
			c, err := newContext(term)
			require.NoError(t, err)
			out, err := HoistView{}.Rewrite(c, term)
			require.NoError(t, err)
			assert.Equal(t, `flip 0 (rnz (zip (zip (+))) (\r -> map (\c -> map (*2) c) r) X)`, graph.Print(out))
			x := make([]float64, 12)
			for i := range x {
				x[i] = float64(i + 1)
			}
			in := map[string]graph.Value{"X": must(graph.FromFloat64(x, 3, 2, 2))}
			got, err := graph.Eval(out, in)
			require.NoError(t, err)
			want := must(graph.FromFloat64([]float64{30, 42, 36, 48}, 2, 2))
			require.NoError(t, graph.Exact(want, got))
		})
	}
}
