package graph

import "fmt"

// FirstView sees the first element along axis Axis: first d X is X with
// axis d dropped, the other axes keeping their extents and strides and the
// offset unchanged, so first 0 X is X[0], the first row of a matrix, and
// first 1 X its first column. It reads one element of the axis where a
// reduction over it would read them all: a term that needs a value of its
// operand's scale before traversing it (BatchNorm's shift) reads it this
// way, without a traversal of its own.
//
// The operand needs rank 2 at least (the view keeps rank 1 at least) and a
// nonempty axis d. There is no Inverse: the view shows part of the array,
// and no view gives the rest back. Differentiating through it would need a
// scatter (the cotangent in row 0, zeros elsewhere), which autodiff does
// not build; a term reads it under stopgrad where it only serves the
// numerics.
type FirstView struct {
	Axis int // the axis dropped
}

// Name implements View.
func (FirstView) Name() string { return "first" }

// Params implements View.
func (v FirstView) Params() []int { return []int{v.Axis} }

// Apply implements View.
func (v FirstView) Apply(l Layout) (Layout, error) {
	switch {
	case len(l) < 2:
		return nil, &LayoutError{Op: "first", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("needs an array of rank 2 or more, got rank %d (first of a vector would be a scalar; reduce it instead)", len(l))}
	case v.Axis < 0 || v.Axis >= len(l):
		return nil, &LayoutError{Op: "first", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("axis %d out of range for rank %d", v.Axis, len(l))}
	case l[v.Axis].Extent < 1:
		return nil, &LayoutError{Op: "first", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("axis %d is empty: it has no first element", v.Axis)}
	}
	out := append(Layout(nil), l[:v.Axis]...)
	return append(out, l[v.Axis+1:]...), nil
}

// Inverse implements View: there is none, the view hides all but one
// element of the axis.
func (FirstView) Inverse(Layout) (View, bool) { return nil, false }

// Lift implements View.
func (v FirstView) Lift() View { return FirstView{Axis: v.Axis + 1} }

func init() {
	viewSyntaxes["first"] = ViewSyntax{Name: "first", Params: []ViewParam{{"axis", 0}},
		Make: func(p []int) (View, error) { return FirstView{Axis: p[0]}, nil }}
	Keywords["first"] = true
}
