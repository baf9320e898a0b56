package graph

import (
	"fmt"
	"strings"
)

// Axis is one level of a layout: how many elements it has and how far apart
// consecutive ones lie in the underlying buffer, counted in elements.
type Axis struct {
	Extent int // number of elements along the axis; at least 1
	Stride int // buffer distance between consecutive elements; at least 0
}

// Layout is an ordered list of axes, axis 0 outermost, as in NumPy. Every
// higher-order function consumes the outermost axis of its array arguments.
// A layout is a value: the operations below return new layouts and never
// modify their receiver.
//
// The paper writes layouts innermost-first; this package does not. Here
//
//	subdiv d b : (e, s) at d  ->  (e/b, b*s) at d, (b, s) at d+1
//	flatten d  : (e0, s0), (e1, s1) at d, d+1  ->  (e0*e1, s1) at d, legal when s0 == e1*s1
//	flip d1 d2 : swaps axes d1 and d2, extent and stride together
type Layout []Axis

// RowMajor returns the contiguous layout of the given extents, the last axis
// varying fastest.
func RowMajor(extents ...int) Layout {
	l := make(Layout, len(extents))
	stride := 1
	for i := len(extents) - 1; i >= 0; i-- {
		l[i] = Axis{Extent: extents[i], Stride: stride}
		stride *= extents[i]
	}
	return l
}

// Rank is the number of axes.
func (l Layout) Rank() int { return len(l) }

// Extents returns the extent of every axis, outermost first.
func (l Layout) Extents() []int {
	e := make([]int, len(l))
	for i, a := range l {
		e[i] = a.Extent
	}
	return e
}

// Size is the number of elements the layout addresses.
func (l Layout) Size() int {
	n := 1
	for _, a := range l {
		n *= a.Extent
	}
	return n
}

// Span is one more than the largest buffer offset the layout reaches from
// offset 0: the buffer length a view with this layout needs.
func (l Layout) Span() int {
	last := 0
	for _, a := range l {
		last += (a.Extent - 1) * a.Stride
	}
	return last + 1
}

// Offset returns the buffer offset of the element at idx, relative to the
// view's own offset. It does not check idx; callers that take indices from
// users use Array.At, which does.
func (l Layout) Offset(idx []int) int {
	off := 0
	for i, a := range l {
		off += idx[i] * a.Stride
	}
	return off
}

// IsRowMajor reports whether l is the contiguous row-major layout of its
// extents.
func (l Layout) IsRowMajor() bool { return l.Equal(RowMajor(l.Extents()...)) }

// Equal reports whether l and m have the same axes, strides included.
func (l Layout) Equal(m Layout) bool {
	if len(l) != len(m) {
		return false
	}
	for i := range l {
		if l[i] != m[i] {
			return false
		}
	}
	return true
}

// SameExtents reports whether l and m have the same extents, whatever their
// strides.
func (l Layout) SameExtents(m Layout) bool {
	if len(l) != len(m) {
		return false
	}
	for i := range l {
		if l[i].Extent != m[i].Extent {
			return false
		}
	}
	return true
}

// Validate reports the first axis whose extent is below 1 or past
// MaxExtent, or whose stride is negative or past MaxElements, and a layout
// with more than MaxElements elements or whose buffer spans more. A valid
// layout's Size and Span, times any element size, cannot overflow an int.
func (l Layout) Validate() error {
	bad := func(i int, format string, args ...any) error {
		return &LayoutError{Op: "layout", Axis: i, Layout: l, Msg: fmt.Sprintf(format, args...)}
	}
	size := 1
	for i, a := range l {
		if a.Extent < 1 {
			return bad(i, "extent %d of axis %d is less than 1", a.Extent, i)
		}
		if a.Extent > MaxExtent {
			return bad(i, "extent %d of axis %d is past the cap of %d (graph.MaxExtent)", a.Extent, i, MaxExtent)
		}
		if size > MaxElements/a.Extent {
			return bad(i, "more than %d elements (graph.MaxElements) by axis %d", MaxElements, i)
		}
		size *= a.Extent
	}
	last := 0 // the largest offset, at most MaxElements-1
	for i, a := range l {
		if a.Stride < 0 {
			return bad(i, "stride %d of axis %d is negative", a.Stride, i)
		}
		if a.Stride > MaxElements {
			return bad(i, "stride %d of axis %d is past the cap of %d (graph.MaxElements)", a.Stride, i, MaxElements)
		}
		if a.Stride > 0 && a.Extent-1 > (MaxElements-1-last)/a.Stride {
			return bad(i, "the buffer spans more than %d elements (graph.MaxElements) by axis %d", MaxElements, i)
		}
		last += (a.Extent - 1) * a.Stride
	}
	return nil
}

// Subdiv splits axis d of extent e and stride s into an outer axis
// (e/b, b*s) at d and an inner axis (b, s) at d+1. The block b must divide e.
func (l Layout) Subdiv(d, b int) (Layout, error) {
	if err := l.checkAxis("subdiv", d); err != nil {
		return nil, err
	}
	a := l[d]
	if b < 1 || a.Extent%b != 0 {
		return nil, &LayoutError{Op: "subdiv", Axis: d, Layout: l,
			Msg: fmt.Sprintf("block %d does not divide extent %d of axis %d", b, a.Extent, d)}
	}
	out := make(Layout, 0, len(l)+1)
	out = append(out, l[:d]...)
	out = append(out, Axis{Extent: a.Extent / b, Stride: b * a.Stride}, Axis{Extent: b, Stride: a.Stride})
	return append(out, l[d+1:]...), nil
}

// Flatten merges axes d and d+1 into one axis (e_d*e_{d+1}, s_{d+1}). It is
// legal only when s_d == e_{d+1}*s_{d+1}, that is when the pair could have come
// from a Subdiv; otherwise the merged axis would not be a strided view.
func (l Layout) Flatten(d int) (Layout, error) {
	if err := l.checkAxis("flatten", d); err != nil {
		return nil, err
	}
	if d+1 >= len(l) {
		return nil, &LayoutError{Op: "flatten", Axis: d, Layout: l,
			Msg: fmt.Sprintf("axis %d has no inner axis to merge with (rank %d)", d, len(l))}
	}
	o, i := l[d], l[d+1]
	if o.Stride != i.Extent*i.Stride {
		return nil, &LayoutError{Op: "flatten", Axis: d, Layout: l,
			Msg: fmt.Sprintf("axes %d and %d are not contiguous: stride %d of axis %d is not extent %d times stride %d of axis %d",
				d, d+1, o.Stride, d, i.Extent, i.Stride, d+1)}
	}
	out := make(Layout, 0, len(l)-1)
	out = append(out, l[:d]...)
	out = append(out, Axis{Extent: o.Extent * i.Extent, Stride: i.Stride})
	return append(out, l[d+2:]...), nil
}

// Flip swaps axes d1 and d2, extent and stride together. Flip is an
// involution and symmetric in d1 and d2; Flip(d, d) is the identity.
func (l Layout) Flip(d1, d2 int) (Layout, error) {
	if err := l.checkAxis("flip", d1); err != nil {
		return nil, err
	}
	if err := l.checkAxis("flip", d2); err != nil {
		return nil, err
	}
	out := append(Layout(nil), l...)
	out[d1], out[d2] = out[d2], out[d1]
	return out, nil
}

func (l Layout) checkAxis(op string, d int) error {
	if d < 0 || d >= len(l) {
		return &LayoutError{Op: op, Axis: d, Layout: l,
			Msg: fmt.Sprintf("axis %d out of range for rank %d", d, len(l))}
	}
	return nil
}

// String writes the layout as the notation does: <(e0,s0),(e1,s1),...>.
func (l Layout) String() string {
	var sb strings.Builder
	sb.WriteByte('<')
	for i, a := range l {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d,%d)", a.Extent, a.Stride)
	}
	sb.WriteByte('>')
	return sb.String()
}

// LayoutError reports an illegal layout operation: which operation, on which
// axis of which layout, and why.
type LayoutError struct {
	Op     string // "subdiv", "flatten", "flip" or "layout"
	Axis   int    // the axis the operation named
	Layout Layout // the layout it was applied to
	Msg    string // what is wrong, naming axis, extent, block or stride
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("%s: %s in layout %v", e.Op, e.Msg, e.Layout)
}
