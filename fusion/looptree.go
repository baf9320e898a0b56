package fusion

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// A LoopTree is one loop of a term and the loops its body runs. Nest
// follows a body to its first loop only; a body may run several (a
// LayerNorm's row computes two reductions and then a map over the row),
// and the loops of a kernel are then a tree, whose first child at every
// level is Nest's spine.
type LoopTree struct {
	Level
	Children []*LoopTree
}

// NestTree returns the loops at term's top level, each with the loops of
// its body, in the order Nest looks for them: a let's body before its
// value, a loop before the loops of its arguments, which run before it at
// the same level.
func NestTree(term graph.Node) []*LoopTree {
	var out []*LoopTree
	for _, n := range loopsIn(term, nil) {
		h, _ := asHOF(n)
		t := &LoopTree{Level: newLevel(n, h)}
		t.Children = NestTree(h.body)
		out = append(out, t)
	}
	return out
}

// loopsIn appends to out the loops of n outside any function: spineHOF's
// search, collecting every loop instead of stopping at the first.
func loopsIn(n graph.Node, out []graph.Node) []graph.Node {
	switch n := n.(type) {
	case *graph.NZip:
		if graph.IsFunc(n) {
			return out
		}
		if isCopy(n) {
			return loopsIn(n.Args[0], out)
		}
		return loopThenArgs(n, n.Args, out)
	case *graph.RNZ:
		return loopThenArgs(n, n.Args, out)
	case *graph.Lambda, *graph.Input, *graph.Var, *graph.Const, *graph.OpRef, *graph.Ident, *graph.Section:
		return out
	case *graph.Let:
		return loopsIn(n.Value, loopsIn(n.Body, out))
	}
	for _, c := range graph.Children(n) {
		out = loopsIn(c, out)
	}
	return out
}

// loopThenArgs appends the loop n, then the loops of its arguments.
func loopThenArgs(n graph.Node, args []graph.Node, out []graph.Node) []graph.Node {
	if _, ok := asHOF(n); !ok {
		return out
	}
	out = append(out, n)
	for _, a := range args {
		out = loopsIn(a, out)
	}
	return out
}

// newLevel describes the loop n, taken apart as h.
func newLevel(n graph.Node, h *hof) Level {
	lv := Level{Kind: "rnz", Node: n}
	if !h.isRNZ() {
		lv.Kind = [...]string{"nzip", "map", "zip"}[min(len(h.args), 3)%3]
	}
	for _, a := range h.args {
		lv.Args = append(lv.Args, graph.Abbrev(a, 60))
	}
	return lv
}

// loopList is a term's loops in preorder, with the shape of their tree:
// the parent of each (-1 for a loop at the top level).
type loopList struct {
	levels []Level
	parent []int
	kids   [][]int // kids[i+1]: the loops whose parent is i
}

func newLoopList(term graph.Node) loopList {
	var l loopList
	var walk func(ts []*LoopTree, parent int)
	walk = func(ts []*LoopTree, parent int) {
		for _, t := range ts {
			l.levels = append(l.levels, t.Level)
			l.parent = append(l.parent, parent)
			walk(t.Children, len(l.levels)-1)
		}
	}
	walk(NestTree(term), -1)
	l.kids = make([][]int, len(l.levels)+1)
	for j, p := range l.parent {
		l.kids[p+1] = append(l.kids[p+1], j)
	}
	return l
}

// children returns the loops whose parent is i (-1: the top level).
func (l loopList) children(i int) []int { return l.kids[i+1] }

// linear reports whether the loops are one straight chain, each the only
// loop of the one before: a nest Nest describes whole.
func (l loopList) linear() bool {
	for j, p := range l.parent {
		if p != j-1 {
			return false
		}
	}
	return true
}

// paths returns the loops from the top level to each innermost loop, in
// preorder, each with the depth of its first loop that no path before it
// ran: the part of the path that is its own.
func (l loopList) paths() (paths [][]int, own []int) {
	seen := make([]bool, len(l.levels))
	for j := range l.levels {
		if len(l.children(j)) > 0 {
			continue
		}
		var p []int
		for k := j; k >= 0; k = l.parent[k] {
			p = append([]int{k}, p...)
		}
		d := 0
		for d < len(p) && seen[p[d]] {
			d++
		}
		for _, k := range p {
			seen[k] = true
		}
		paths, own = append(paths, p), append(own, d)
	}
	return paths, own
}

// path returns the levels at the positions p.
func (l loopList) path(p []int) []Level {
	out := make([]Level, len(p))
	for i, k := range p {
		out[i] = l.levels[k]
	}
	return out
}

// shapeKey is the tree's shape: each loop's parent. Exchanges within a
// straight chain keep it.
func (l loopList) shapeKey() string { return fmt.Sprint(l.parent) }
