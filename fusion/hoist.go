package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// HoistView moves a layout operation on the result of an inner
// higher-order function out of the function that returns it:
//
//	nzip (\xs -> V (H ..)) ys      =  V' (nzip (\xs -> H ..) ys)
//	rnz (lift^k op) (\xs -> V (H ..)) ys  =  V (rnz (lift^k' op) (\xs -> H ..) ys)
//
// where V is a view (flip, flatten, subdiv, ...) and V' its Lift, the same
// view one level in (the nzip adds the outer axis). A lifted elementwise
// reduction commutes with any layout operation, but its lift depth must
// follow the rank of what it combines. The exchange and subdivision rules
// leave such views between the levels of a nest; hoisting them keeps the nest
// a straight chain of loops with the views on the outside. Side condition
// for rnz: the operator is one binary scalar op, in any form graph.Reducer
// recognises (zip (+), \a b -> zip (+) a b, ...), lifted elementwise over
// an array accumulator; the hoisted reduction lifts it as many times as
// the unviewed accumulator has axes; and the view moves elements only, or
// is a pad whose fill the operator keeps (any fill under max and min, the
// zero fill under +), since every operand contributes its fill.
type HoistView struct{}

// Name implements Rule.
func (HoistView) Name() string { return "hoist-view" }

// Rewrite implements Rule.
func (r HoistView) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	h, ok := asHOF(n)
	if !ok {
		return nil, ErrNoMatch
	}
	view, inner, ok := graph.AsView(h.body)
	if !ok {
		return nil, ErrNoMatch
	}
	if !viewOfHOF(inner) {
		return nil, ErrNoMatch // a view of a variable or input costs nothing where it is
	}
	outer := view.Lift() // the nzip adds the outer axis
	red := h.red
	if h.isRNZ() {
		outer = view
		rd, ok := graph.Reducer(h.red, nil)
		if !ok || len(rd.Ops) != 1 {
			return nil, refuse(r, n, "the reduction %s is not one elementwise (lifted) op", graph.Abbrev(h.red, 30))
		}
		if !fillSurvives(view, rd.Ops[0]) {
			return nil, refuse(r, n, "a reduction by %v of arrays padded by %s adds the fill to itself: the padded sum is not the sum of the padded",
				rd.Ops[0], graph.ViewString(view))
		}
		at, ok := c.TypeOf(inner).(*graph.ArrayType)
		if !ok || rd.Lifts[0] < 1 {
			return nil, refuse(r, n, "the reduction's accumulator is not an array")
		}
		var err error
		if red, err = lift(rd.Ops[0], at.Rank()); err != nil {
			return nil, err
		}
	}
	// The hoisted view applies to a materialised (row-major) result, not to
	// the view it applied to inside: a flatten that was legal there may not
	// be here.
	it, ok := c.TypeOf(inner).(*graph.ArrayType)
	if !ok {
		return nil, refuse(r, n, "the viewed term has no array type")
	}
	extents := it.Layout.Extents()
	if !h.isRNZ() {
		extents = append([]int{levelExtent(c.info, h)}, extents...)
	}
	if _, err := outer.Apply(graph.RowMajor(extents...)); err != nil {
		return nil, refuse(r, n, "outside the function the view would not be legal: %v", err)
	}
	moved, err := (&hof{red: red, params: h.params, body: inner, args: h.args}).build(n)
	if err != nil {
		return nil, err
	}
	out, err := graph.NewView(outer, moved)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}

// fillSurvives reports whether a reduction by op of arrays seen through
// view v is v of their reduction. Every layout (strided) view just moves
// elements, so it commutes with an elementwise op; a pad's elements past
// the edge are its fill in every operand, and op combines them into the
// fill again only when the fill is idempotent under op: any fill under
// max and min, the zero fill under +.
func fillSurvives(v graph.View, op graph.Op) bool {
	p, ok := v.(graph.PadView)
	if !ok {
		return !isFresh(v)
	}
	switch op {
	case graph.Max, graph.Min:
		return true
	case graph.Add:
		return p.Fill == graph.FillZero
	}
	return false
}

func isFresh(v graph.View) bool {
	_, ok := v.(graph.FreshView)
	return ok
}

// viewOfHOF reports whether n is a higher-order function or a chain of
// layout operations over one.
func viewOfHOF(n graph.Node) bool {
	if _, x, ok := graph.AsView(n); ok {
		return viewOfHOF(x)
	}
	_, ok := asHOF(n)
	return ok
}

// lift returns op lifted depth times: zip (zip .. op).
func lift(op graph.Op, depth int) (graph.Node, error) {
	ref, err := graph.NewOpRef(op)
	if err != nil {
		return nil, err
	}
	var out graph.Node = ref
	for range depth {
		z, err := graph.NewNZip(out)
		if err != nil {
			return nil, err
		}
		out = z
	}
	return out, nil
}
