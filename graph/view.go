package graph

import (
	"fmt"
	"reflect"
	"strings"
)

// View is a layout operation: a way to see an array through a new layout
// over the same buffer, never copying. subdiv, flatten and flip are views;
// so is any type that implements this interface, and every part of the
// project that handles views (Check, Eval, Print, Parse, Rewrite, the fusion
// rules, both back ends) does so through these methods. See the package
// documentation's section on views for how to add one.
//
// A View is a small value (its axes and sizes); it does not hold the array
// it applies to. ViewNode is the term that applies a View to an operand.
type View interface {
	// Name is the view's keyword in the notation, as in "subdiv".
	Name() string
	// Params are the integers the notation writes after the name, in the
	// shortest form that the parser reads back as the same view (flip 0,
	// not flip 0 1).
	Params() []int
	// Apply returns the layout of the view of an array whose layout is l,
	// or a *LayoutError naming the axis, extent, block or stride that makes
	// the view illegal on l.
	Apply(l Layout) (Layout, error)
	// Inverse returns the view that undoes this one on arrays of layout l:
	// for every l on which Apply succeeds, Inverse(l) applied to Apply(l)
	// gives l back, strides included. ok is false when there is none (a
	// view that shows one element at several places).
	Inverse(l Layout) (inv View, ok bool)
	// Lift returns the same view one axis deeper: element i of Lift
	// applied to X is this view applied to X[i]. It is how a view moves
	// across an nzip: a view of the function's result is the lifted view
	// of the nzip's result, and a view of a parameter is the lifted view
	// of the array the parameter ranges over.
	Lift() View
}

// ViewNode is a term that applies a View to one operand: *Subdiv, *Flatten
// and *Flip for the three views the notation started with, and *ViewOp for
// every other. Code that handles a view should ask for a ViewNode (in a
// type switch, case ViewNode) and use its View, not list the node kinds.
type ViewNode interface {
	Node
	// View returns the view the node applies.
	View() View
	// Operand returns the viewed term.
	Operand() Node
}

// ViewOp applies a view other than subdiv, flatten and flip to X. NewView
// builds it; the three older views always have their own node kinds.
type ViewOp struct {
	base
	V View // the view; never a SubdivView, FlattenView or FlipView
	X Node // the viewed term
}

// View implements ViewNode.
func (n *ViewOp) View() View { return n.V }

// Operand implements ViewNode.
func (n *ViewOp) Operand() Node { return n.X }

// View implements ViewNode.
func (n *Subdiv) View() View { return SubdivView{Axis: n.Axis, Block: n.Block} }

// Operand implements ViewNode.
func (n *Subdiv) Operand() Node { return n.X }

// View implements ViewNode.
func (n *Flatten) View() View { return FlattenView{Axis: n.Axis} }

// Operand implements ViewNode.
func (n *Flatten) Operand() Node { return n.X }

// View implements ViewNode.
func (n *Flip) View() View { return FlipView{A: n.Axis1, B: n.Axis2} }

// Operand implements ViewNode.
func (n *Flip) Operand() Node { return n.X }

// AsView returns the view n applies and its operand, when n is a ViewNode.
func AsView(n Node) (View, Node, bool) {
	if v, ok := n.(ViewNode); ok {
		return v.View(), v.Operand(), true
	}
	return nil, nil, false
}

// NewView returns the term that applies v to x: a *Subdiv, *Flatten or
// *Flip for those views, a *ViewOp for any other. Whether v is legal on
// x's layout is Check's question.
func NewView(v View, x Node) (ViewNode, error) {
	switch v := v.(type) {
	case nil:
		return nil, fmt.Errorf("view: %w", ErrNilNode)
	case SubdivView:
		n, err := NewSubdiv(v.Axis, v.Block, x)
		if err != nil {
			return nil, err
		}
		return n, nil
	case FlattenView:
		n, err := NewFlatten(v.Axis, x)
		if err != nil {
			return nil, err
		}
		return n, nil
	case FlipView:
		n, err := NewFlip(v.A, v.B, x)
		if err != nil {
			return nil, err
		}
		return n, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, fmt.Errorf("view: %w", ErrNilNode)
	}
	for i, p := range v.Params() {
		if p < 0 {
			return nil, fmt.Errorf("%s: parameter %d is negative (%d)", v.Name(), i, p)
		}
	}
	if err := nonNil(v.Name(), x); err != nil {
		return nil, err
	}
	return &ViewOp{V: v, X: x}, nil
}

// ViewString writes v as the notation does, without its operand:
// "subdiv 0 4", "flip 1".
func ViewString(v View) string {
	var sb strings.Builder
	sb.WriteString(v.Name())
	for _, p := range v.Params() {
		fmt.Fprintf(&sb, " %d", p)
	}
	return sb.String()
}

// SubdivView splits axis Axis into blocks of Block; see Layout.Subdiv.
type SubdivView struct {
	Axis  int // the axis split
	Block int // the inner extent; divides the axis's extent
}

// Name implements View.
func (SubdivView) Name() string { return "subdiv" }

// Params implements View.
func (v SubdivView) Params() []int { return []int{v.Axis, v.Block} }

// Apply implements View.
func (v SubdivView) Apply(l Layout) (Layout, error) { return l.Subdiv(v.Axis, v.Block) }

// Inverse implements View: flatten merges the two axes subdiv made.
func (v SubdivView) Inverse(Layout) (View, bool) { return FlattenView{Axis: v.Axis}, true }

// Lift implements View.
func (v SubdivView) Lift() View { return SubdivView{Axis: v.Axis + 1, Block: v.Block} }

// FlattenView merges axes Axis and Axis+1; see Layout.Flatten.
type FlattenView struct {
	Axis int // the outer of the two axes merged
}

// Name implements View.
func (FlattenView) Name() string { return "flatten" }

// Params implements View.
func (v FlattenView) Params() []int { return []int{v.Axis} }

// Apply implements View.
func (v FlattenView) Apply(l Layout) (Layout, error) { return l.Flatten(v.Axis) }

// Inverse implements View: subdiv by the extent of the inner axis merged.
func (v FlattenView) Inverse(l Layout) (View, bool) {
	if v.Axis < 0 || v.Axis+1 >= len(l) {
		return nil, false
	}
	return SubdivView{Axis: v.Axis, Block: l[v.Axis+1].Extent}, true
}

// Lift implements View.
func (v FlattenView) Lift() View { return FlattenView{Axis: v.Axis + 1} }

// FlipView swaps axes A and B; see Layout.Flip.
type FlipView struct {
	A, B int // the axes swapped
}

// Name implements View.
func (FlipView) Name() string { return "flip" }

// Params implements View: flip d for flip d (d+1).
func (v FlipView) Params() []int {
	if v.B == v.A+1 {
		return []int{v.A}
	}
	return []int{v.A, v.B}
}

// Apply implements View.
func (v FlipView) Apply(l Layout) (Layout, error) { return l.Flip(v.A, v.B) }

// Inverse implements View: flip is an involution.
func (v FlipView) Inverse(Layout) (View, bool) { return v, true }

// Lift implements View.
func (v FlipView) Lift() View { return FlipView{A: v.A + 1, B: v.B + 1} }

// ViewSyntax tells the parser how to read a view: its keyword, its integer
// parameters and how to build the view from them. RegisterView adds one.
type ViewSyntax struct {
	// Name is the keyword, the view's Name.
	Name string
	// Params name the integer parameters in order, each with its least
	// legal value; the parser's errors name them.
	Params []ViewParam
	// Optional is how many trailing parameters may be left out. A trailing
	// integer is read as a parameter only when another argument follows it
	// (flip 0 2 is flip 0 applied to the literal 2).
	Optional int
	// Make builds the view from the integers read, at least
	// len(Params)-Optional of them.
	Make func(params []int) (View, error)
}

// ViewParam is one integer parameter of a view in the notation.
type ViewParam struct {
	Name string // what the parser's errors call it: "axis", "block"
	Min  int    // its least legal value, at least 0
}

// viewSyntaxes are the views the parser reads, by keyword.
var viewSyntaxes = map[string]ViewSyntax{
	"subdiv": {Name: "subdiv", Params: []ViewParam{{"axis", 0}, {"block", 1}},
		Make: func(p []int) (View, error) { return SubdivView{Axis: p[0], Block: p[1]}, nil }},
	"flatten": {Name: "flatten", Params: []ViewParam{{"axis", 0}},
		Make: func(p []int) (View, error) { return FlattenView{Axis: p[0]}, nil }},
	"flip": {Name: "flip", Params: []ViewParam{{"axis", 0}, {"axis", 0}}, Optional: 1,
		Make: func(p []int) (View, error) {
			if len(p) == 1 {
				return FlipView{A: p[0], B: p[0] + 1}, nil
			}
			return FlipView{A: p[0], B: p[1]}, nil
		}},
}

// RegisterView makes the parser read a new view and reserves its keyword
// (it joins Keywords). Printing needs no registration: it writes a view's
// Name and Params. Call it from an init function: the parser and printer
// read the registry without locking. It returns an error when the name is
// empty, already a keyword or a scalar op's name, or the syntax is
// incomplete.
func RegisterView(s ViewSyntax) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("register view: empty name")
	case Keywords[s.Name]:
		return fmt.Errorf("register view %s: the name is already a keyword", s.Name)
	case s.Make == nil:
		return fmt.Errorf("register view %s: no Make function", s.Name)
	case s.Optional < 0 || s.Optional > len(s.Params):
		return fmt.Errorf("register view %s: %d optional parameters of %d", s.Name, s.Optional, len(s.Params))
	}
	if _, isOp := OpByName(s.Name); isOp {
		return fmt.Errorf("register view %s: the name is a scalar op", s.Name)
	}
	for i, p := range s.Params {
		if p.Name == "" || p.Min < 0 {
			return fmt.Errorf("register view %s: parameter %d needs a name and a minimum of at least 0", s.Name, i)
		}
	}
	viewSyntaxes[s.Name] = s
	Keywords[s.Name] = true
	return nil
}
