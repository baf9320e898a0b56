package fusion

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// checkSchedules evaluates every schedule against the original term and
// checks that each runs its loops in the order its labels say.
func checkSchedules(t *testing.T, prog *graph.Program, scheds []*Schedule) {
	t.Helper()
	in := graphtest.Inputs(rand.New(rand.NewPCG(3, 3)), prog.Inputs)
	want, err := graph.Eval(prog.Body, in)
	require.NoError(t, err)
	for _, s := range scheds {
		require.NoError(t, s.Err, s.Key())
		var kinds []string
		for _, l := range Nest(s.Term) {
			kinds = append(kinds, l.Kind)
		}
		for i, label := range s.Order {
			want := "map"
			if strings.HasPrefix(label, "rnz") {
				want = "rnz"
			}
			assert.Equal(t, want, kinds[i], "%s: level %d is %v", s.Key(), i, kinds)
		}
		got, err := graph.Eval(s.Term, in)
		require.NoError(t, err, s.Key())
		// Subdividing or exchanging reductions regroups the sums.
		graphtest.Compare(t, want, got, graph.ToleranceOf(want))
	}
}

// assertOuterLayout checks that the outermost loop of s traverses A laid
// out as the view want of the program's A (strides and all).
func assertOuterLayout(t *testing.T, s *Schedule, prog *graph.Program, want string) {
	t.Helper()
	info, err := graph.Check(s.Term)
	require.NoError(t, err)
	h, _ := asHOF(Nest(s.Term)[0].Node)
	wantTerm, err := graph.ParseTerm(want, prog.Inputs...)
	require.NoError(t, err)
	wantInfo, err := graph.Check(wantTerm)
	require.NoError(t, err)
	assert.Equal(t, wantInfo.TypeOf(wantTerm).String(), info.TypeOf(h.args[0]).String(), "%s: outer layout of A", s.Key())
}

func keys(scheds []*Schedule) []string {
	var out []string
	for _, s := range scheds {
		out = append(out, s.Key())
	}
	return out
}

// The six arrangements of the matrix-vector product (paper section 3):
// subdividing the reduction gives 1a-1c, subdividing the map 2a-2c. The
// layouts are in this project's convention, axis 0 outermost.
func TestSearchMatVecArrangements(t *testing.T) {
	prog := must(graph.Parse(`A : f64[8,6]; u : f64[6]; map (\r -> rnz (+) (*) r u) A`))

	one, err := Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{Level: 1, Block: 3}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"mapA rnz rnz", "rnz mapA rnz", "rnz rnz mapA"}, keys(one)) // 1a, 1b, 1c
	checkSchedules(t, prog, one)
	// The paper's A(1a) = subdiv 1 3 A, A(1b) = flip 0 (subdiv 1 3 A) and
	// A(1c) = flip 1 (flip 0 (subdiv 1 3 A)) in this project's convention
	// (the paper numbers axes innermost first), with u' = subdiv 0 3 u.
	assert.Equal(t, []string{"map (subdiv 1 3 A)", "rnz r (subdiv 0 3 u)", "rnz x0s x1s"}, one[0].Layouts())
	assert.Equal(t, `map (\r -> rnz (+) (\x0s x1s -> rnz (+) (\x0 x1 -> x0 * x1) x0s x1s) r (subdiv 0 3 u)) (subdiv 1 3 A)`, graph.Print(one[0].Term))
	assertOuterLayout(t, one[0], prog, "subdiv 1 3 A")
	assertOuterLayout(t, one[1], prog, "flip 0 (subdiv 1 3 A)")
	assertOuterLayout(t, one[2], prog, "flip 1 (flip 0 (subdiv 1 3 A))")

	two, err := Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{Level: 0, Block: 2}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"mapA mapA rnz", "mapA rnz mapA", "rnz mapA mapA"}, keys(two)) // 2c, 2b, 2a
	checkSchedules(t, prog, two)
	assert.Equal(t, `flatten 0 (map (\rs -> map (\r -> rnz (+) (*) r u) rs) (subdiv 0 2 A))`, graph.Print(two[0].Term))
	// The paper's A(2c) = flip 0 (flip 1 (subdiv 0 2 (flip 0 A))) is, in
	// this convention, the rows of A in blocks: subdiv 0 2 A.
	assertOuterLayout(t, two[0], prog, "subdiv 0 2 A")
	assertOuterLayout(t, two[1], prog, "flip 0 (subdiv 1 2 (flip 0 A))")
	assertOuterLayout(t, two[2], prog, "subdiv 1 2 (flip 0 A)")
}

// Paper Table 1: the six orders of the naive matrix product.
func TestSearchMatMulTable1(t *testing.T) {
	prog := must(graph.Parse(`A : f64[4,6]; B : f64[6,5]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`))
	scheds, err := Search(prog.Body, SearchOptions{})
	require.NoError(t, err)
	paper := []string{"mapA rnz mapB", "rnz mapA mapB", "mapA mapB rnz", "mapB mapA rnz", "rnz mapB mapA", "mapB rnz mapA"}
	assert.ElementsMatch(t, paper, keys(scheds))
	// Steinhaus-Johnson-Trotter order: each differs from the one before by
	// one exchange of neighbours.
	assert.Equal(t, []string{"mapA mapB rnz", "mapA rnz mapB", "rnz mapA mapB", "rnz mapB mapA", "mapB rnz mapA", "mapB mapA rnz"}, keys(scheds))
	checkSchedules(t, prog, scheds)
}

// Paper Table 2: with the reduction subdivided, the 4! orders of four loops
// collapse to 12, since the two halves of the reduction are not told apart.
func TestSearchMatMulTable2(t *testing.T) {
	prog := must(graph.Parse(`A : f64[4,8]; B : f64[8,5]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`))
	scheds, err := Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{Level: 2, Block: 4}}})
	require.NoError(t, err)
	paper := []string{
		"rnz mapA mapB rnz", "mapA rnz mapB rnz", "rnz mapA rnz mapB", "mapA rnz rnz mapB",
		"rnz rnz mapA mapB", "mapB rnz mapA rnz", "rnz mapB mapA rnz", "mapA mapB rnz rnz",
		"rnz mapB rnz mapA", "mapB mapA rnz rnz", "mapB rnz rnz mapA", "rnz rnz mapB mapA",
	}
	assert.ElementsMatch(t, paper, keys(scheds))
	checkSchedules(t, prog, scheds)
}

// Subdividing both maps and the reduction: six loops in three pairs, 6!/2!³
// = 90 distinct orders, all reachable and all equal. Orders that leave the
// result as transposed tiles end with an explicit copy (map id) before the
// flatten that makes it a matrix again.
func TestSearchMatMulAllSubdivided(t *testing.T) {
	prog := must(graph.Parse(`A : f64[4,4]; B : f64[4,4]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`))
	scheds, err := Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{0, 2}, {1, 2}, {2, 2}}})
	require.NoError(t, err)
	assert.Len(t, scheds, 90)
	copies := 0
	for _, s := range scheds {
		if strings.Contains(graph.Print(s.Term), "map id") {
			copies++
		}
	}
	assert.Greater(t, copies, 0)
	assert.Less(t, copies, 90)
	checkSchedules(t, prog, scheds)
}

func TestSJTSwaps(t *testing.T) {
	for k := 1; k <= 5; k++ {
		perm := make([]int, k)
		for i := range perm {
			perm[i] = i
		}
		seen := map[string]bool{strings.Repeat("x", 0) + fmtPerm(perm): true}
		for _, p := range sjtSwaps(k) {
			perm[p], perm[p+1] = perm[p+1], perm[p]
			seen[fmtPerm(perm)] = true
		}
		f := 1
		for i := 2; i <= k; i++ {
			f *= i
		}
		assert.Len(t, seen, f, "k=%d", k)
		assert.Len(t, sjtSwaps(k), f-1, "k=%d", k)
	}
}

func fmtPerm(p []int) string {
	var sb strings.Builder
	for _, x := range p {
		sb.WriteByte(byte('0' + x))
	}
	return sb.String()
}

func TestSearchErrors(t *testing.T) {
	_, err := Search(must(graph.ParseTerm(`x : f64[3]; x`)), SearchOptions{})
	assert.ErrorContains(t, err, "has no loops")
	prog := must(graph.Parse(`A : f64[4,6]; u : f64[6]; map (\r -> rnz (+) (*) r u + 1) A`))
	_, err = Search(prog.Body, SearchOptions{})
	assert.ErrorContains(t, err, "the loops are not a straight nest: level 0 computes rnz (+) (*) r u + 1 around level 1")
	prog = must(graph.Parse(`A : f64[4,6]; u : f64[6]; map (\r -> rnz (+) (*) r u) A`))
	_, err = Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{Level: 1, Block: 4}}})
	assert.ErrorContains(t, err, "block 4 does not divide the outer extent 6")
	_, err = Search(prog.Body, SearchOptions{Subdivide: []Subdivision{{Level: 5, Block: 2}}})
	assert.ErrorContains(t, err, "subdivision of level 5, but the nest has 2 levels")
}

// The static model prefers unit-stride inner loops: for the naive product
// with row-major matrices, mapB innermost (B read along its rows) beats
// mapA innermost (A read down its columns), as in the paper's Table 1.
func TestStaticCostRanksMatMul(t *testing.T) {
	prog := must(graph.Parse(`A : f64[64,64]; B : f64[64,64]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`))
	scheds, err := Search(prog.Body, SearchOptions{})
	require.NoError(t, err)
	best, costs, err := Best(scheds, StaticCost{CacheBytes: 16 << 10})
	require.NoError(t, err)
	cost := func(key string) float64 {
		return costs[slices.IndexFunc(scheds, func(s *Schedule) bool { return s.Key() == key })]
	}
	assert.Less(t, cost("mapA rnz mapB"), cost("mapB rnz mapA"))
	assert.Less(t, cost("rnz mapA mapB"), cost("rnz mapB mapA"))
	assert.True(t, strings.HasSuffix(best.Key(), "mapB"), "best %s, costs %v", best.Key(), costs)
}
