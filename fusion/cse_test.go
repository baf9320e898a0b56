package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// countNodes is the number of distinct nodes of term.
func countNodes(term graph.Node) int {
	n := 0
	for range graph.All(term) {
		n++
	}
	return n
}

// The law of shareCommon on random programs of every generator: sharing
// keeps the value bit for bit (it reorders nothing), and a program paired
// with an α-renamed copy of itself (graph.Freshen: new binders, same
// structure) comes out as a pair of one node — the copy is recognised
// however its bound variables are named — with no more distinct nodes than
// the program alone has once shared, plus the pair.
func TestShareCommonLaw(t *testing.T) {
	merged := 0
	for _, g := range graphtest.Generators() {
		for seed := range uint64(120) {
			dt := graph.Float64
			if seed%2 == 1 {
				dt = graph.Float32
			}
			cfg := graphtest.Config{DType: dt}
			term, ins := g.Gen(graphtest.Rand(seed), cfg)
			copy, err := graph.Freshen(term)
			require.NoError(t, err)
			pair, err := graph.NewTuple(term, copy)
			require.NoError(t, err)
			in := cfg.Inputs(rand.New(rand.NewPCG(seed, 99)), ins)
			want, err := graph.Eval(pair, in)
			require.NoError(t, err, "%s seed %d", g.Name, seed)

			shared, err := shareCommon(pair)
			require.NoError(t, err, "%s seed %d: %s", g.Name, seed, graph.Print(pair))
			got, err := graph.Eval(shared, in)
			require.NoError(t, err, "%s seed %d: shared term %s", g.Name, seed, graph.Print(shared))
			if d := graph.Diff(want, got, exact); d != nil {
				t.Fatalf("%s seed %d: sharing changed the value\nbefore: %s\nafter:  %s\n%v", g.Name, seed, graph.Print(pair), graph.Print(shared), d)
			}
			alone, err := shareCommon(term)
			require.NoError(t, err)
			tup, ok := shared.(*graph.Tuple)
			require.True(t, ok, "%s seed %d: the pair became %s", g.Name, seed, graph.Print(shared))
			if tup.Elems[0] != tup.Elems[1] {
				// Only a term of untyped literals (whose context decides
				// its type) is left unshared.
				info, err := graph.Check(term)
				require.NoError(t, err)
				require.True(t, graph.Untyped(info.TypeOf(term)), "%s seed %d: the copy of %s was not shared", g.Name, seed, graph.Print(term))
				continue
			}
			merged++
			require.LessOrEqual(t, countNodes(shared), countNodes(alone)+1, "%s seed %d", g.Name, seed)
		}
	}
	require.Greater(t, merged, 1000)
}

// Terms that differ only in the names of their bound variables are shared;
// terms that differ in a free variable, a literal, an input, a view's axis
// or the order of arguments are not; and a subterm that reads a lambda's
// parameter is shared only with one that reads the same parameter.
func TestShareCommonCases(t *testing.T) {
	cases := []struct {
		src    string
		shared bool // whether the two elements of the pair become one node
	}{
		{`a : f64[4]; (map (\x -> x * 2) a, map (\y -> y * 2) a)`, true},
		{`a : f64[4]; (map (\x -> x * 2) a, map (\y -> y * 3) a)`, false},
		{`a : f64[4]; b : f64[4]; (map (\x -> x * 2) a, map (\y -> y * 2) b)`, false},
		{`a : f64[4]; b : f64[4]; (zip (\x y -> x - y) a b, zip (\y x -> x - y) a b)`, false},
		{`a : f64[4]; b : f64[4]; (zip (\x y -> x - y) a b, zip (\p q -> p - q) a b)`, true},
		{`w : f64[3,4]; (flip 0 w, flip 0 w)`, true},
		{`w : f64[4,4]; (map (\r -> reduce (+) r) w, map (\r -> reduce (+) r) (flip 0 w))`, false},
		{`a : f64[4]; (let s = reduce (+) a in map (\x -> x / s) a, let t = reduce (+) a in map (\y -> y / t) a)`, true},
		{`a : f64[4]; (let s = reduce (+) a in map (\x -> x / s) a, let t = reduce max a in map (\y -> y / t) a)`, false},
	}
	for _, c := range cases {
		p, err := graph.Parse(c.src)
		require.NoError(t, err, c.src)
		out, err := shareCommon(p.Body)
		require.NoError(t, err, c.src)
		tup := out.(*graph.Tuple)
		require.Equal(t, c.shared, tup.Elems[0] == tup.Elems[1], "%s\nbecame %s", c.src, graph.Print(out))
	}

	// Inside one lambda, r * 2 is computed once, and a copy that reads
	// another lambda's parameter is not shared with it.
	p, err := graph.Parse(`a : f64[4]; map (\r -> (r * 2 + r * 2) * reduce (+) (map (\s -> s * 2) a)) a`)
	require.NoError(t, err)
	out, err := shareCommon(p.Body)
	require.NoError(t, err)
	calls := 0
	for n := range graph.All(out) {
		if c, ok := n.(*graph.Call); ok && c.Op == graph.Mul {
			calls++
		}
	}
	require.Equal(t, 3, calls, "r * 2 once, s * 2 once, and the product: %s", graph.Print(out))
}

// freshenLambda renames a function's parameters and the binders of the
// subterms that read them, and keeps, shared, a closed subterm with
// binders of its own: β-reduction then leaves one node for it.
func TestFreshenLambdaKeepsClosedSubterms(t *testing.T) {
	term := parse(t, `a : f64[4]; map (\p -> p * reduce (+) (map (\q -> q * 2) a) + rnz (+) (\q -> q * p) a) a`)
	f := term.(*graph.NZip).Fn.(*graph.Lambda)
	closed := f.Body.(*graph.Call).Args[0].(*graph.Call).Args[1] // reduce (+) (map (\q -> q * 2) a)
	open := f.Body.(*graph.Call).Args[1].(*graph.RNZ)            // rnz (+) (\q -> q * p) a
	g, err := freshenLambda(f)
	require.NoError(t, err)
	require.NotSame(t, f.Params[0], g.Params[0])
	gclosed := g.Body.(*graph.Call).Args[0].(*graph.Call).Args[1]
	gopen := g.Body.(*graph.Call).Args[1].(*graph.RNZ)
	require.Same(t, closed, gclosed, "the closed sum is shared")
	require.NotSame(t, open.Fn, gopen.Fn, "the lambda reading p is renamed")
	require.NotSame(t, open.Fn.(*graph.Lambda).Params[0], gopen.Fn.(*graph.Lambda).Params[0])
	require.Equal(t, graph.Print(f), graph.Print(g))
	out, err := graph.NewNZip(g, term.(*graph.NZip).Args...)
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(1, 1)), []*graph.Input{term.(*graph.NZip).Args[0].(*graph.Input)})
	require.NoError(t, graph.Diff(must(graph.Eval(term, in)), must(graph.Eval(out, in)), exact))
}
