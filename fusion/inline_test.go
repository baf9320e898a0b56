package fusion

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

// TestOccurrencesOnDAG: a subterm shared on several paths counts once per
// path, without being walked once per path. s_{i+1} = s_i * s_i over s_0 =
// v + 1 holds v 2^i times: 8 at i = 3, and at i = 80 far more than the
// count saturates at (1<<30), which a walk per path would never reach.
func TestOccurrencesOnDAG(t *testing.T) {
	v := graph.NewVar("v")
	s := must(graph.NewCall(graph.Add, v, graph.NewConst(1)))
	chain := []graph.Node{s}
	for range 80 {
		s = must(graph.NewCall(graph.Mul, s, s))
		chain = append(chain, s)
	}
	for _, fv := range []*graph.FreeVarCache{nil, {}} {
		count, under := occurrencesIn(fv, chain[3], v)
		assert.Equal(t, 8, count)
		assert.False(t, under)
		count, _ = occurrencesIn(fv, chain[80], v)
		assert.Equal(t, 1<<30, count)
		lam := must(graph.NewLambda([]*graph.Var{graph.NewVar("w")}, chain[80]))
		count, under = occurrencesIn(fv, must(graph.NewTuple(lam, chain[2])), v)
		assert.Equal(t, 1<<30, count)
		assert.True(t, under)
		count, under = occurrencesIn(fv, must(graph.NewLambda([]*graph.Var{v}, chain[80])), v)
		assert.Equal(t, 0, count, "a lambda of v shadows it")
		assert.False(t, under)
	}
}

// TestWorkPerElementOnDAG: workPerElement counts a shared subterm once per
// path, looking at it once. With s_0 = v + 1 and s_{i+1} = s_i * s_i,
// \v -> s_3 performs 15 operations, \v -> s_80 more than the count
// saturates at (1<<30), and cheapFn refuses it at once.
func TestWorkPerElementOnDAG(t *testing.T) {
	v := graph.NewVar("v")
	s := must(graph.NewCall(graph.Add, v, graph.NewConst(1)))
	chain := []graph.Node{s}
	for range 80 {
		s = must(graph.NewCall(graph.Mul, s, s))
		chain = append(chain, s)
	}
	ops, hofs := workPerElement(must(graph.NewLambda([]*graph.Var{v}, chain[3])))
	assert.Equal(t, 15, ops)
	assert.Equal(t, 0, hofs)
	big := must(graph.NewLambda([]*graph.Var{v}, chain[80]))
	ops, _ = workPerElement(big)
	assert.Equal(t, 1<<30, ops)
	assert.False(t, cheapFn(big))
}
