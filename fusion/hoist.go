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
// the unviewed accumulator has axes.
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
