package fusion

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// colSums is a kernel whose loops are a tree: for each image x, the sums
// of its columns (written as a map over the columns, each reduced: a
// strided walk), and a map over its rows that scales each by them.
const colSums = `X : f32[%d,256,256];
map (\x -> let cs = map (\col -> reduce (+) col) (flip 0 x) in map (\r -> zip (\v c -> v * c) r cs) x) X`

// threeBranches has a straight chain of two maps at the top and three
// branches below it, two of them column reductions written in the slow
// order.
const threeBranches = `X : f32[4,2,128,128];
map (\xs -> map (\x ->
  let cs = map (\col -> reduce (+) col) (flip 0 x) in
  let cm = map (\col -> reduce max col) (flip 0 x) in
  map (\r -> nzip (\v c m -> v * c + m) r cs cm) x) xs) X`

func TestNestTree(t *testing.T) {
	term := parse(t, fmt.Sprintf(colSums, 4))
	roots := NestTree(term)
	require.Len(t, roots, 1)
	assert.Equal(t, "map", roots[0].Kind)
	require.Len(t, roots[0].Children, 2, "the row map (the let's body) and the column sums (its value)")
	assert.Equal(t, Nest(term)[1].Node, roots[0].Children[0].Node, "the first child is Nest's spine")
	assert.Equal(t, "rnz", roots[0].Children[1].Children[0].Kind)
	assert.Equal(t, "map X > (map x > zip r cs; map (flip 0 x) > rnz col)", NestOrder(term))
	assert.Equal(t, "map A > map (flip 0 B) > rnz rA cB", NestOrder(matmulTerm(t, 8)), "a straight nest as before")

	l := newLoopList(term)
	assert.Equal(t, []int{-1, 0, 1, 0, 3}, l.parent)
	assert.False(t, l.linear())
	paths, own := l.paths()
	assert.Equal(t, [][]int{{0, 1, 2}, {0, 3, 4}}, paths)
	assert.Equal(t, []int{0, 1}, own, "the second path shares the image loop with the first")
	assert.Equal(t, [][2]int{{0, 1}, {1, 2}, {3, 2}}, chains(l))
	labels := uniqueLabels(rootLabels(l.levels))
	assert.Equal(t, "mapX (mapX#2 mapX#3; mapX#4 rnz)", formatOrder(l, labels, nil))
	assert.Equal(t, "mapX (mapX#3 mapX#2; rnz mapX#4)", formatOrder(l, labels, []int{0, 2, 1, 4, 3}))

	lin := newLoopList(matmulTerm(t, 8))
	assert.True(t, lin.linear())
	paths, own = lin.paths()
	assert.Equal(t, [][]int{{0, 1, 2}}, paths)
	assert.Equal(t, []int{0}, own)
}

// A straight nest costs what it cost as one path; a tree costs more than
// its spine alone, and its cost grows with each path's own work.
func TestHierCostTree(t *testing.T) {
	m := HierCost{Machine: paperMachine(), NoGEMM: true}
	term := parse(t, fmt.Sprintf(colSums, 4))
	info, err := graph.Check(term)
	require.NoError(t, err)
	spine, err := newNestModel(info, Nest(term), 0, 64)
	require.NoError(t, err)
	c, err := m.TermCost(term)
	require.NoError(t, err)
	assert.Greater(t, c, spine.cost(m.Machine.withRates()), "the column sums cost something")

	// Doubling the images doubles both paths.
	c8, err := m.TermCost(parse(t, fmt.Sprintf(colSums, 8)))
	require.NoError(t, err)
	assert.InDelta(t, 2*c, c8, 0.05*c)
}

// The pass reorders a loop off the spine: the column sums, written as a
// strided walk down each column, become a sum of rows; the row map, on
// the spine, stays. The value does not change, and Nest's spine alone
// (what the pass enumerated before trees) would have found nothing.
func TestScheduleTree(t *testing.T) {
	term := parse(t, fmt.Sprintf(colSums, 4))
	g, err := Whole(term)
	require.NoError(t, err)
	require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine()}))
	s := g.Kernels[0].Schedule
	t.Log(s)
	assert.Equal(t, "mapX (mapX#2 mapX#3; mapX#4 rnz)", s.Written)
	assert.Equal(t, "mapX (mapX#2 mapX#3; rnz mapX#4)", s.Order)
	assert.True(t, s.Changed)
	assert.Less(t, s.Cost, s.WrittenCost/2)
	checkGraphEqual(t, term, g, 5)
}

// The early cut of a tree — each branch searched with its siblings as
// they are, the best of each kept — finds the order the exhaustive search
// over every combination of every chain's permutations finds best.
func TestScheduleTreeKeepsBest(t *testing.T) {
	for _, src := range []string{fmt.Sprintf(colSums, 4), threeBranches} {
		term := parse(t, src)
		m := HierCost{Machine: paperMachine(), NoGEMM: true}
		bestCost, bestOrder, combos := exhaustiveTreeBest(t, term, m)
		g, err := Whole(term)
		require.NoError(t, err)
		require.NoError(t, ScheduleGraph(g, ScheduleOptions{Machine: paperMachine(), NoGEMM: true, Blocks: []int{}, Margin: 1e-9, MinCost: -1, Budget: 1 << 30}))
		s := g.Kernels[0].Schedule
		t.Logf("exhaustive: %d orders, best %s %.4g s; pass: %s", combos, bestOrder, bestCost, s)
		assert.InDelta(t, bestCost, s.Cost, 1e-9*bestCost)
		assert.Less(t, s.Orders, combos, "the cut costs fewer orders than there are combinations")
		checkGraphEqual(t, term, g, 9)
	}
}

// exhaustiveTreeBest costs every combination of the permutations of every
// straight chain of term's loops, no subdivision, nothing cut, and returns
// the cheapest cost, its order, and how many orders it costed.
func exhaustiveTreeBest(t *testing.T, term graph.Node, m HierCost) (float64, string, int) {
	t.Helper()
	info, err := graph.Check(term)
	require.NoError(t, err)
	want := graph.Materialized(info.TypeOf(term)).String()
	base, err := hoistViews(term)
	require.NoError(t, err)
	loops := newLoopList(base)
	labels := uniqueLabels(rootLabels(loops.levels))
	chs := chains(loops)
	best, bestOrder, costed := math.Inf(1), "", 0
	var rec func(ci int, term graph.Node, perm []int)
	rec = func(ci int, term graph.Node, perm []int) {
		if ci == len(chs) {
			info, err := graph.Check(term)
			if err != nil || graph.Materialized(info.TypeOf(term)).String() != want {
				return
			}
			c, err := m.TermCost(term)
			require.NoError(t, err)
			costed++
			if c < best {
				best, bestOrder = c, formatOrder(loops, labels, perm)
			}
			return
		}
		lo, n := chs[ci][0], chs[ci][1]
		p := slices.Clone(perm)
		orders := [][]int{slices.Clone(p)}
		for _, pos := range sjtSwaps(n) {
			p[lo+pos], p[lo+pos+1] = p[lo+pos+1], p[lo+pos]
			orders = append(orders, slices.Clone(p))
		}
		for _, next := range orders {
			t2, err := realiseFrom(term, perm, next, lo, lo+n, labels, map[[2]string]string{})
			if err != nil {
				continue // the rules refuse: no order
			}
			rec(ci+1, t2, next)
		}
	}
	perm := make([]int, len(loops.levels))
	for i := range perm {
		perm[i] = i
	}
	rec(0, base, perm)
	require.Positive(t, costed)
	return best, bestOrder, costed
}
