package conv

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// Grouping is what groupedFilters reads off the filters' term of a
// grouped convolution.
type Grouping struct {
	Filters graph.Node   // C: [N, the window's k axes with in/G channels]
	WViews  []graph.View // the views from the window r to its groups, innermost first
	Block   int          // the filters of one group, N/G
}

// groupedFilters matches the filters' term c of a grouped convolution, as
// layers.Conv2D gives it with Groups > 1,
//
//	flatten 0 (nzip (\wg kg -> nzip (\f -> E(dot wg f)) kg) WG (subdiv 0 N/G C))
//
// with WG the window r split along its channels into [G, k axes, in/G]
// (checked against the geometry by Check) and C free of r. It returns the
// grouping, \f -> E, the contractions of wg with f in E and their depth,
// or nil.
func groupedFilters(c graph.Node, r *graph.Var, env graph.Env) (*Grouping, *graph.Lambda, []graph.Node, int) {
	fl, ok := c.(graph.ViewNode)
	if !ok {
		return nil, nil, nil, 0
	}
	if v, ok := fl.View().(graph.FlattenView); !ok || v.Axis != 0 {
		return nil, nil, nil, 0
	}
	gz, ok := fl.Operand().(*graph.NZip)
	if !ok || graph.IsFunc(gz) || len(gz.Args) != 2 {
		return nil, nil, nil, 0
	}
	gf, ok := gz.Fn.(*graph.Lambda)
	if !ok || len(gf.Params) != 2 {
		return nil, nil, nil, 0
	}
	wviews, wbase := ViewChain(gz.Args[0])
	if wbase != graph.Node(r) || len(wviews) == 0 {
		return nil, nil, nil, 0
	}
	kv, ok := gz.Args[1].(graph.ViewNode)
	if !ok || UsesVar(kv.Operand(), r) {
		return nil, nil, nil, 0
	}
	sd, ok := kv.View().(graph.SubdivView)
	if !ok || sd.Axis != 0 {
		return nil, nil, nil, 0
	}
	wg, kg := gf.Params[0], gf.Params[1]
	n3, ok := gf.Body.(*graph.NZip)
	if !ok || graph.IsFunc(n3) || len(n3.Args) != 1 || n3.Args[0] != graph.Node(kg) || UsesVar(n3.Fn, kg) {
		return nil, nil, nil, 0
	}
	l3, ok := n3.Fn.(*graph.Lambda)
	if !ok || len(l3.Params) != 1 {
		return nil, nil, nil, 0
	}
	dots, ic, k := matchContractions(l3.Body, wg, l3, env)
	if dots == nil || ic != 0 {
		return nil, nil, nil, 0
	}
	return &Grouping{Filters: kv.Operand(), WViews: wviews, Block: sd.Block}, l3, dots, k
}

// Check returns the number of groups G when the window's views split the
// channel axis of the window g.Inner into [G, in/G] and bring G to the
// front, leaving the other axes in their order, and the filters of
// extents cdims come in G groups of Block, over a base array of extents
// x. The error, wrapping ErrNotConv, says which does not hold.
func (gr *Grouping) Check(g Geometry, x, cdims []int) (groups int, err error) {
	ci := slices.IndexFunc(g.Inner, func(a Axis) bool { return a.Kind == Channel })
	if ci < 0 || len(cdims) == 0 {
		return 0, notConv("grouped filters over a window without channels")
	}
	sd, ok := gr.WViews[0].(graph.SubdivView)
	if !ok || sd.Axis != ci || sd.Block <= 0 || x[g.Channel]%sd.Block != 0 {
		return 0, notConv("the window is not split along its %d channels into groups", x[g.Channel])
	}
	groups = x[g.Channel] / sd.Block
	if gr.Block <= 0 || cdims[0] != groups*gr.Block {
		return 0, notConv("%d filters are not %d groups of %d", cdims[0], groups, gr.Block)
	}
	// Labels of the window's axes after the split: the groups -1, the
	// channels within a group ci, the others their index.
	labels := seq(len(g.Inner))
	labels = slices.Insert(labels, ci, -1)
	for _, v := range gr.WViews[1:] {
		f, ok := v.(graph.FlipView)
		if !ok || f.A < 0 || f.B < 0 || f.A >= len(labels) || f.B >= len(labels) {
			return 0, notConv("a %T in the window's split into groups", v)
		}
		labels[f.A], labels[f.B] = labels[f.B], labels[f.A]
	}
	if !slices.Equal(labels, append([]int{-1}, seq(len(g.Inner))...)) {
		return 0, notConv("the window's split does not bring the groups to the front in order")
	}
	return groups, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
