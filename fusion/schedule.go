package fusion

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// A Subdivision asks the schedule search to tile one level of a nest.
type Subdivision struct {
	Level int // index in the nest before any subdivision, outermost 0; in a tree of loops, the loop's index in preorder
	Block int // block size; it must divide the level's extent
}

// SearchOptions control Search.
type SearchOptions struct {
	// Subdivide tiles levels of the nest before the orders are enumerated.
	Subdivide []Subdivision
	// Labels names the levels of the initial nest (mapA, mapB, rnz); by
	// default a level is named by its kind and the input it traverses.
	Labels []string
}

// A Schedule is one nesting order of a kernel's loops.
type Schedule struct {
	Order []string   // level labels, outermost first
	Term  graph.Node // the term that runs the loops in this order; nil if infeasible
	Err   error      // why the order could not be reached, if it could not
}

// Key is the order as one string: "mapA mapB rnz".
func (s *Schedule) Key() string { return strings.Join(s.Order, " ") }

// Layouts describes, level by level, the arrays each loop traverses.
func (s *Schedule) Layouts() []string {
	if s.Term == nil {
		return nil
	}
	var out []string
	for _, l := range Nest(s.Term) {
		out = append(out, l.String())
	}
	return out
}

// Search enumerates the nesting orders of a kernel whose loops form a
// straight nest (each loop's function is the next loop), after the
// requested subdivisions. The orders come in the sequence of the
// Steinhaus–Johnson–Trotter algorithm: each differs from the previous by
// one exchange of adjacent loops, realised by the exchange rules (map-map,
// map-rnz, rnz-map, rnz-rnz) with the matching flips. Orders whose labels
// repeat an earlier order (the two halves of a subdivided loop are one
// label) are equivalent and dropped. An order no exchange can reach is kept
// with its Err.
func Search(term graph.Node, opt SearchOptions) ([]*Schedule, error) {
	term, err := hoistViews(term)
	if err != nil {
		return nil, err
	}
	levels, err := linearNest(term)
	if err != nil {
		return nil, err
	}
	labels := opt.Labels
	if labels == nil {
		labels = defaultLabels(levels)
	}
	if len(labels) != len(levels) {
		return nil, fmt.Errorf("schedule: %d labels for a nest of %d levels", len(labels), len(levels))
	}
	labels = slices.Clone(labels)
	subs := slices.Clone(opt.Subdivide)
	slices.SortFunc(subs, func(a, b Subdivision) int { return b.Level - a.Level })
	for _, s := range subs {
		if s.Level < 0 || s.Level >= len(levels) {
			return nil, fmt.Errorf("schedule: subdivision of level %d, but the nest has %d levels", s.Level, len(levels))
		}
		if term, err = subdivideLevel(term, s); err != nil {
			return nil, err
		}
		labels = slices.Insert(labels, s.Level, labels[s.Level])
	}
	if _, err := linearNest(term); err != nil {
		return nil, err
	}

	k := len(labels)
	var out []*Schedule
	perm := make([]int, k) // perm[pos] = original level at that position
	for i := range perm {
		perm[i] = i
	}
	start := term
	cur := term // the term realising perm, or nil
	// record adds the schedule for perm, realising it from scratch when the
	// exchange from the previous order failed, and returns its term. Of the
	// orders that share labels, the one that keeps the halves of each
	// subdivided loop in their original order (blocks outside elements) is
	// kept, as the paper lists them.
	byKey := map[string]int{}
	inOrder := func(p []int) bool {
		for i := range p {
			for j := i + 1; j < len(p); j++ {
				if labels[p[i]] == labels[p[j]] && p[i] > p[j] {
					return false
				}
			}
		}
		return true
	}
	record := func() graph.Node {
		order := make([]string, k)
		for i, p := range perm {
			order[i] = labels[p]
		}
		s := &Schedule{Order: order, Term: cur}
		if cur == nil {
			s.Term, s.Err = realise(start, perm)
		}
		if i, ok := byKey[s.Key()]; !ok {
			byKey[s.Key()] = len(out)
			out = append(out, s)
		} else if inOrder(perm) && s.Term != nil {
			out[i] = s
		}
		return s.Term
	}
	record()
	for _, pos := range sjtSwaps(k) {
		perm[pos], perm[pos+1] = perm[pos+1], perm[pos]
		if cur != nil {
			if next, err := exchangeAt(cur, pos); err == nil {
				cur = next
			} else {
				cur = nil
			}
		}
		cur = record()
	}
	return out, nil
}

// sjtSwaps returns the positions of the adjacent transpositions that take
// the identity permutation of k elements through all k! permutations, in the
// order of the Steinhaus–Johnson–Trotter algorithm (the "plain changes").
func sjtSwaps(k int) []int {
	perm := make([]int, k)
	dir := make([]int, k) // -1 left, +1 right, per value
	for i := range perm {
		perm[i], dir[i] = i, -1
	}
	var swaps []int
	for {
		// The largest mobile element: it points at a smaller neighbour.
		mobile, at := -1, -1
		for i, v := range perm {
			j := i + dir[v]
			if j >= 0 && j < k && perm[j] < v && v > mobile {
				mobile, at = v, i
			}
		}
		if mobile < 0 {
			return swaps
		}
		j := at + dir[mobile]
		perm[at], perm[j] = perm[j], perm[at]
		swaps = append(swaps, min(at, j))
		for _, v := range perm {
			if v > mobile {
				dir[v] = -dir[v]
			}
		}
	}
}

// realise reaches the order perm from term, whose levels are in the
// identity order, by adjacent exchanges (a bubble sort).
func realise(term graph.Node, perm []int) (graph.Node, error) {
	cur := make([]int, len(perm))
	for i := range cur {
		cur[i] = i
	}
	for target := range perm {
		at := slices.Index(cur, perm[target])
		for at > target {
			next, err := exchangeAt(term, at-1)
			if err != nil {
				return nil, err
			}
			term = next
			cur[at-1], cur[at] = cur[at], cur[at-1]
			at--
		}
	}
	return term, nil
}

// exchangeAt exchanges the loop at pos of term's loops in preorder (a
// depth, in a straight nest) with the loop after it, which must be the
// whole value of its function's body.
func exchangeAt(term graph.Node, pos int) (graph.Node, error) {
	l := newLoopList(term)
	levels := l.levels
	if pos < 0 || pos+1 >= len(levels) {
		return nil, fmt.Errorf("schedule: no levels %d and %d in a nest of %d", pos, pos+1, len(levels))
	}
	if l.parent[pos+1] != pos {
		return nil, fmt.Errorf("schedule: levels %d and %d are not directly nested", pos, pos+1)
	}
	n := levels[pos].Node
	var rule Rule
	switch [2]bool{levels[pos].Kind == "rnz", levels[pos+1].Kind == "rnz"} {
	case [2]bool{false, false}:
		rule = MapMap{}
	case [2]bool{false, true}:
		rule = MapRNZ{}
	case [2]bool{true, false}:
		rule = RNZMap{}
	default:
		rule = RNZRNZ{}
	}
	out, err := rule.Rewrite(nil, n)
	if err != nil {
		if errors.Is(err, ErrNoMatch) {
			return nil, fmt.Errorf("schedule: levels %d and %d are not directly nested", pos, pos+1)
		}
		return nil, err
	}
	next, err := replace(term, map[graph.Node]graph.Node{n: out})
	if err != nil {
		return nil, err
	}
	if _, ok := rule.(MapMap); ok {
		// The exchange flips the maps' result, which must then be an
		// array of arrays: a map of tuples cannot be flipped.
		if _, err := graph.Check(next); err != nil {
			return nil, refuse(rule, n, "the exchanged maps' result cannot be flipped: %s", firstLine(err))
		}
	}
	return hoistViews(next)
}

// subdivideLevel tiles one loop of term, s.Level its position in
// preorder (a depth, in a straight nest).
func subdivideLevel(term graph.Node, s Subdivision) (graph.Node, error) {
	levels := newLoopList(term).levels
	if s.Level < 0 || s.Level >= len(levels) {
		return nil, fmt.Errorf("schedule: no level %d in a nest of %d", s.Level, len(levels))
	}
	n := levels[s.Level].Node
	c, err := newContext(term)
	if err != nil {
		return nil, err
	}
	var out graph.Node
	if levels[s.Level].Kind == "rnz" {
		out, err = SubdivRNZ{Block: s.Block}.Rewrite(c, n)
	} else {
		out, err = SubdivMap{Block: s.Block}.Rewrite(c, n)
	}
	if err != nil {
		return nil, err
	}
	next, err := replace(term, map[graph.Node]graph.Node{n: out})
	if err != nil {
		return nil, err
	}
	return hoistViews(next)
}

// hoistViews applies HoistView to a normal form, so that views sit outside
// the nest.
func hoistViews(term graph.Node) (graph.Node, error) {
	e := newEngine([]Rule{HoistView{}, FlipFlip{}, SinkView{}})
	e.checkEach = true
	e.repair = copyWhereNeeded
	out, err := e.run(term)
	if err != nil {
		return nil, err
	}
	return copyWhereNeeded(out)
}

// copyWhereNeeded makes the views above a nest legal. A view may need
// strides the nest's result does not have: a flatten needs the two axes it
// merges to be contiguous, and after exchanges have permuted the nest's
// result they may not be (a tiled result is not row-major). Where the view
// is illegal on the result's layout, the result is copied first with map id,
// the IR's explicit copy (row-major): the order really needs that
// transposition. Nest treats map id as no loop.
func copyWhereNeeded(term graph.Node) (graph.Node, error) {
	v, x, ok := graph.AsView(term)
	if !ok {
		return term, nil
	}
	x, err := copyWhereNeeded(x)
	if err != nil {
		return nil, err
	}
	info, err := graph.Check(x)
	if err != nil {
		return nil, err
	}
	if at, ok := info.TypeOf(x).(*graph.ArrayType); ok {
		if _, err := v.Apply(at.Layout); err != nil {
			if x, err = graph.NewNZip(graph.NewIdent(), x); err != nil {
				return nil, err
			}
		}
	}
	return graph.WithChildren(term, []graph.Node{x})
}

// linearNest returns term's nest and checks that each loop's function body
// is the next loop.
func linearNest(term graph.Node) ([]Level, error) {
	levels := Nest(term)
	if len(levels) == 0 {
		return nil, fmt.Errorf("schedule: %s has no loops", graph.Abbrev(term, 40))
	}
	for d := 0; d+1 < len(levels); d++ {
		h, _ := asHOF(levels[d].Node)
		if h.body != levels[d+1].Node {
			return nil, fmt.Errorf("schedule: the loops are not a straight nest: level %d computes %s around level %d",
				d, graph.Abbrev(h.body, 40), d+1)
		}
	}
	return levels, nil
}

// defaultLabels names each level by its kind and the first input it
// traverses: mapA, mapB, rnz.
func defaultLabels(levels []Level) []string {
	out := make([]string, len(levels))
	for i, l := range levels {
		kind := "map"
		if l.Kind == "rnz" {
			kind = "rnz"
		}
		h, _ := asHOF(l.Node)
		name := ""
		for _, a := range h.args {
			graph.Inspect(a, func(n graph.Node) bool {
				if in, ok := n.(*graph.Input); ok && name == "" {
					name = in.Name
				}
				return name == ""
			})
			if name != "" {
				break
			}
		}
		if kind == "rnz" {
			name = ""
		}
		out[i] = kind + name
	}
	return out
}
