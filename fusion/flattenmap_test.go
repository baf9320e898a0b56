package fusion

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// flattenMaps rewrites every nzip N of term whose result is an array of
// rank 2 or more (at most 8 of them) into subdiv 0 e1 (flatten 0 N), e1
// the extent of N's second axis: an equal term in which flatten 0 N is a
// redex of flatten-map when N is a map of maps. N's own arguments are
// whatever the generator drew: inputs, flips and other views, some of
// which cannot be flattened.
func flattenMaps(term graph.Node) (graph.Node, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	repl := map[graph.Node]graph.Node{}
	for n := range graph.All(term) {
		z, ok := n.(*graph.NZip)
		at, isArr := info.TypeOf(n).(*graph.ArrayType)
		if !ok || graph.IsFunc(z) || !isArr || at.Rank() < 2 || len(repl) >= 8 {
			continue
		}
		f, err := graph.NewFlatten(0, n)
		if err != nil {
			return nil, err
		}
		s, err := graph.NewSubdiv(0, at.Layout[1].Extent, f)
		if err != nil {
			return nil, err
		}
		repl[n] = s
	}
	if len(repl) == 0 {
		return term, nil
	}
	return replace(term, repl)
}

// TestFlattenMapLaw: flatten 0 (nzip (\ps -> nzip g ps) xs) = nzip g
// (flatten 0 x1) .. on random programs: the maps of maps subdiv-map tiles
// (blocks of 1 and 2), where the flatten cancels the subdiv of every
// argument, and every map of maps written subdiv 0 e1 (flatten 0 N), whose
// arguments are flattened as they are or refused when their layout cannot
// be. The rule keeps every scalar operation, so the values are
// bit-identical.
func TestFlattenMapLaw(t *testing.T) {
	var st lawStats
	for _, b := range []int{1, 2} {
		st.add(checkLaw(t, FlattenMap{}, graphtest.Program, applyOnce(SubdivMap{Block: b}), exactTol))
		st.add(checkLaw(t, FlattenMap{}, graphtest.MapOfMap, applyOnce(SubdivMap{Block: b}), exactTol))
	}
	cancelled := st.applied
	st.add(checkLaw(t, FlattenMap{}, graphtest.MapOfMap, flattenMaps, exactTol))
	st.add(checkLaw(t, FlattenMap{}, graphtest.MatMul, flattenMaps, exactTol))
	t.Logf("applied %d (%d on tiled maps), refused %v", st.applied, cancelled, st.refused)
	requireApplied(t, st, lawCases)
	require.GreaterOrEqual(t, st.applied-cancelled, lawCases/12, "the rule seldom flattened arguments that are not subdivs")
}

func FuzzFlattenMapLaw(f *testing.F) {
	fuzzLaw(f, FlattenMap{}, graphtest.MapOfMap, flattenMaps, exactTol)
}

// TestFlattenMapByHand pins what the rule writes, and its refusal: a
// transposed matrix's rows are not one stride apart in a flattened axis.
func TestFlattenMapByHand(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`x : f64[6]; flatten 0 (map (map (\a -> a * 2)) (subdiv 0 3 x))`, `map (\a -> a * 2) x`},
		{`x : f64[4]; y : f64[4]; flatten 0 (zip (\p q -> zip (\a b -> a - b) q p) (subdiv 0 1 x) (subdiv 0 1 y))`, `zip (\a b -> a - b) y x`},
		{`A : f64[2,3]; flatten 0 (map (map exp) A)`, `map (\x0 -> exp x0) (flatten 0 A)`},
	} {
		n := parse(t, tc.src)
		c, err := newContext(n)
		require.NoError(t, err)
		out, err := FlattenMap{}.Rewrite(c, n)
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, graph.Print(out), tc.src)
	}
	checkRefusal(t, FlattenMap{}, parse(t, `A : f64[2,3]; flatten 0 (map (map exp) (flip 0 A))`), "argument 0, flip 0 A, cannot be flattened")
	for _, src := range []string{
		`A : f64[2,3]; flatten 0 (map (\r -> map (\a -> a + reduce (+) r) r) A)`, // the inner function reads the row
		`A : f64[2,3]; flatten 0 (zip (\p q -> map exp p) A A)`,                  // q is not traversed
	} {
		n := parse(t, src)
		c, err := newContext(n)
		require.NoError(t, err)
		_, err = FlattenMap{}.Rewrite(c, n)
		require.ErrorIs(t, err, ErrNoMatch, src)
	}
}

// TestFlattenMapFusesLayerNorm: the LayerNorm an importer writes from
// whole-tensor operators reads its inverse deviation, one per row, as
// flatten 0 (map (map f) (subdiv 0 1 v)) beside the rows. Without
// flatten-map, Fuse left four kernels; with it, one, which computes what
// the term does.
func TestFlattenMapFusesLayerNorm(t *testing.T) {
	src := `x : f64[8,64]; g : f64[64]; b : f64[64]; ` +
		`let d = zip (\r m -> map (\a -> a - m) r) x (map (\r -> reduce (+) r / 64) x) in ` +
		`zip (\r s -> nzip (\a gg bb -> a * s * gg + bb) r g b) d ` +
		`(flatten 0 (map (map (\v -> 1 / sqrt (v + 1e-05))) (subdiv 0 1 (map (\r -> reduce (+) (map (\a -> a * a) r) / 64) d))))`
	term := parse(t, src)
	res, err := Fuse(term, Options{})
	require.NoError(t, err)
	require.Len(t, res.Graph.Kernels, 1, "kernels: %v", res.Report.Kernels)
	without, err := Fuse(term, Options{Disable: []string{"flatten-map"}})
	require.NoError(t, err)
	require.Len(t, without.Graph.Kernels, 4, "without the rule, the views keep the kernels apart")
	info, err := graph.Check(term)
	require.NoError(t, err)
	in := graphtest.Config{DType: graph.Float64}.Inputs(graphtest.Rand(7), info.Inputs)
	want, err := graph.Eval(term, in)
	require.NoError(t, err)
	got, err := graph.Eval(res.Graph.Kernels[0].Body, in)
	require.NoError(t, err)
	require.NoError(t, graph.Diff(want, got, 1e-12))
}
