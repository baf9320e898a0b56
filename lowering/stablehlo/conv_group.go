package stablehlo

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// grouping is what groupedFilters reads off the filters' term of a grouped
// convolution.
type grouping struct {
	filters graph.Node   // C: [N, the window's k axes with in/G channels]
	wviews  []graph.View // the views from the window r to its groups, innermost first
	block   int          // the filters of one group, N/G
}

// groupedFilters matches the filters' term c of a grouped convolution, as
// layers.Conv2D gives it with Groups > 1,
//
//	flatten 0 (nzip (\wg kg -> nzip (\f -> E(dot wg f)) kg) WG (subdiv 0 N/G C))
//
// with WG the window r split along its channels into [G, k axes, in/G]
// (checked against the geometry by check) and C free of r. It returns the
// grouping, the contractions of wg with f in E and their depth, or nil.
func groupedFilters(c graph.Node, r *graph.Var, e *env) (*grouping, []graph.Node, int) {
	fl, ok := c.(graph.ViewNode)
	if !ok {
		return nil, nil, 0
	}
	if v, ok := fl.View().(graph.FlattenView); !ok || v.Axis != 0 {
		return nil, nil, 0
	}
	gz, ok := fl.Operand().(*graph.NZip)
	if !ok || graph.IsFunc(gz) || len(gz.Args) != 2 {
		return nil, nil, 0
	}
	gf, ok := gz.Fn.(*graph.Lambda)
	if !ok || len(gf.Params) != 2 {
		return nil, nil, 0
	}
	wviews, wbase := viewChain(gz.Args[0])
	if wbase != graph.Node(r) || len(wviews) == 0 {
		return nil, nil, 0
	}
	kv, ok := gz.Args[1].(graph.ViewNode)
	if !ok || usesVar(kv.Operand(), r) {
		return nil, nil, 0
	}
	sd, ok := kv.View().(graph.SubdivView)
	if !ok || sd.Axis != 0 {
		return nil, nil, 0
	}
	wg, kg := gf.Params[0], gf.Params[1]
	n3, ok := gf.Body.(*graph.NZip)
	if !ok || graph.IsFunc(n3) || len(n3.Args) != 1 || n3.Args[0] != graph.Node(kg) || usesVar(n3.Fn, kg) {
		return nil, nil, 0
	}
	l3, ok := n3.Fn.(*graph.Lambda)
	if !ok || len(l3.Params) != 1 {
		return nil, nil, 0
	}
	dots, ic, k := matchContractions(l3.Body, wg, l3, e)
	if dots == nil || ic != 0 {
		return nil, nil, 0
	}
	return &grouping{filters: kv.Operand(), wviews: wviews, block: sd.Block}, dots, k
}

// check returns the number of groups G when the window's views split the
// channel axis of the window g.inner into [G, in/G] and bring G to the
// front, leaving the other axes in their order, and the filters of extents
// cdims come in G groups of block; ok is false otherwise.
func (gr *grouping) check(g geometry, x, cdims []int) (groups int, ok bool) {
	ci := slices.IndexFunc(g.inner, func(a axis) bool { return a.kind == axChannel })
	if ci < 0 || len(cdims) == 0 {
		return 0, false
	}
	sd, ok := gr.wviews[0].(graph.SubdivView)
	if !ok || sd.Axis != ci || sd.Block <= 0 || x[g.channel]%sd.Block != 0 {
		return 0, false
	}
	groups = x[g.channel] / sd.Block
	if gr.block <= 0 || cdims[0] != groups*gr.block {
		return 0, false
	}
	// Labels of the window's axes after the split: the groups -1, the
	// channels within a group ci, the others their index.
	labels := seq(len(g.inner))
	labels = slices.Insert(labels, ci, -1)
	for _, v := range gr.wviews[1:] {
		f, ok := v.(graph.FlipView)
		if !ok || f.A < 0 || f.B < 0 || f.A >= len(labels) || f.B >= len(labels) {
			return 0, false
		}
		labels[f.A], labels[f.B] = labels[f.B], labels[f.A]
	}
	if !slices.Equal(labels, append([]int{-1}, seq(len(g.inner))...)) {
		return 0, false
	}
	return groups, true
}
