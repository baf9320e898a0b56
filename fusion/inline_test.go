package fusion

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
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

// letChain returns x : f32[4]; map (\v -> let t1 = v + 1 in let t2 = t1 + 1
// in .. in tn) x, built with the constructors (the notation's parser is
// not under test here).
func letChain(tb testing.TB, n int) (graph.Node, *graph.Input) {
	x, err := graph.NewInput("x", graph.ArrayOf(graph.Float32, 4), false)
	require.NoError(tb, err)
	v := graph.NewVar("v")
	vars := []*graph.Var{v}
	for i := 1; i <= n; i++ {
		vars = append(vars, graph.NewVar(fmt.Sprintf("t%d", i)))
	}
	var body graph.Node = vars[n]
	for i := n; i >= 1; i-- {
		val, err := graph.NewCall(graph.Add, vars[i-1], graph.NewConst(1))
		require.NoError(tb, err)
		body, err = graph.NewLet(vars[i], val, body)
		require.NoError(tb, err)
	}
	lam, err := graph.NewLambda([]*graph.Var{v}, body)
	require.NoError(tb, err)
	term, err := graph.NewNZip(lam, x)
	require.NoError(tb, err)
	return term, x
}

// TestFuseLetChainNearLinear: a chain of lets inside a lambda, each used
// once, inlines in time near-linear in its length. Each inlining used to
// walk (occurrences) and rebuild (Substitute) the whole rest of the chain,
// about 220 s at n = graph.MaxDepth; inline-let now skips the subterms in
// which the variable is not free, and an engine sweep inlines every other
// let, so a chain near graph.MaxDepth takes a few seconds on a loaded
// machine. The result is x + n, exactly in f32 for these inputs.
func TestFuseLetChainNearLinear(t *testing.T) {
	n := graph.MaxDepth - 100
	term, _ := letChain(t, n)
	start := time.Now()
	res := fuseWithin(t, term, 30*time.Second)
	t.Logf("Fuse on a chain of %d lets: %v", n, time.Since(start))
	xs := []float32{0.5, -2, 3.25, 100}
	in := map[string]graph.Value{"x": must(graph.FromFloat32(xs, 4))}
	got, err := res.Graph.Eval(in)
	require.NoError(t, err)
	want := make([]float32, len(xs))
	for i, x := range xs {
		want[i] = x + float32(n)
	}
	require.NoError(t, graph.Exact(must(graph.FromFloat32(want, 4)), got))
}
