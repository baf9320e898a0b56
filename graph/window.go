package graph

import "fmt"

// WindowView sees axis Axis of its operand as overlapping windows: an
// axis (e, s) becomes an outer axis of window positions and an inner axis
// of the Width elements of each window,
//
//	window d w st dil : (e, s) at d  ->  ((e - span)/st + 1, st*s) at d, (w, dil*s) at d+1
//
// where span = (w-1)*dil + 1 is the extent one window covers (its
// effective width), st the step between window positions (the stride of a
// convolution or a pooling) and dil the step between the elements of one
// window (the dilation). Element (p, k) of the view is element p*st + k*dil
// of the operand. Positions that would not fit a whole window are dropped,
// as a "valid" convolution drops them; padding comes first, with PadView.
//
// The view never copies: the two new axes address the operand's buffer
// with overlapping strides, so one element of the operand is seen at
// several places (when st < span). Such a view has no inverse, except when
// the windows tile the axis exactly (st = w, dil = 1, w dividing e), where
// it is subdiv d w and flatten d undoes it.
//
// A convolution is an nzip over the window positions of a reduction over
// the window elements; a pooling the same with max or + as the reduction.
// The notation writes window d w, window d w st or window d w st dil
// (stride and dilation default to 1) and prints the shortest form.
type WindowView struct {
	Axis     int // the axis windowed
	Width    int // the elements of one window; at least 1
	Stride   int // the step between window positions; at least 1
	Dilation int // the step between the elements of a window; at least 1
}

// Name implements View.
func (WindowView) Name() string { return "window" }

// Params implements View: the stride and dilation only when they are not 1.
func (v WindowView) Params() []int {
	switch {
	case v.Dilation != 1:
		return []int{v.Axis, v.Width, v.Stride, v.Dilation}
	case v.Stride != 1:
		return []int{v.Axis, v.Width, v.Stride}
	}
	return []int{v.Axis, v.Width}
}

// Span is the extent of the operand's axis that one window covers,
// (Width-1)*Dilation + 1.
func (v WindowView) Span() int { return (v.Width-1)*v.Dilation + 1 }

// Positions returns how many windows fit an axis of extent e, or 0 when
// none does.
func (v WindowView) Positions(e int) int {
	if v.Width < 1 || v.Stride < 1 || v.Dilation < 1 || v.Span() > e {
		return 0
	}
	return (e-v.Span())/v.Stride + 1
}

// Apply implements View.
func (v WindowView) Apply(l Layout) (Layout, error) {
	bad := func(format string, args ...any) error {
		return &LayoutError{Op: "window", Axis: v.Axis, Layout: l, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case v.Axis < 0 || v.Axis >= len(l):
		return nil, bad("axis %d out of range for rank %d", v.Axis, len(l))
	case v.Width < 1:
		return nil, bad("width %d is less than 1", v.Width)
	case v.Stride < 1:
		return nil, bad("stride %d is less than 1", v.Stride)
	case v.Dilation < 1:
		return nil, bad("dilation %d is less than 1", v.Dilation)
	case v.Width > MaxExtent || v.Dilation > MaxExtent || v.Stride > MaxExtent:
		return nil, bad("width %d, stride %d or dilation %d is past the cap of %d (graph.MaxExtent)", v.Width, v.Stride, v.Dilation, MaxExtent)
	case v.Width > 1 && v.Dilation > (MaxExtent-1)/(v.Width-1):
		return nil, bad("window of width %d at dilation %d spans more than %d elements (graph.MaxExtent)", v.Width, v.Dilation, MaxExtent)
	}
	a := l[v.Axis]
	if a.Stride > 0 && max(v.Stride, v.Dilation) > MaxElements/a.Stride {
		return nil, bad("stride %d or dilation %d times stride %d of axis %d is past the cap of %d (graph.MaxElements)",
			v.Stride, v.Dilation, a.Stride, v.Axis, MaxElements)
	}
	if span := v.Span(); span > a.Extent {
		if v.Dilation == 1 {
			return nil, bad("window of width %d is larger than extent %d of axis %d (pad the axis, or take a smaller window)",
				v.Width, a.Extent, v.Axis)
		}
		return nil, bad("window of width %d at dilation %d spans %d, more than extent %d of axis %d (pad the axis, or take a smaller window)",
			v.Width, v.Dilation, span, a.Extent, v.Axis)
	}
	out := make(Layout, 0, len(l)+1)
	out = append(out, l[:v.Axis]...)
	out = append(out,
		Axis{Extent: v.Positions(a.Extent), Stride: v.Stride * a.Stride},
		Axis{Extent: v.Width, Stride: v.Dilation * a.Stride})
	out = append(out, l[v.Axis+1:]...)
	if err := out.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	return out, nil
}

// Inverse implements View: windows that tile the axis exactly are a
// subdiv, undone by flatten; overlapping or gapped windows have none.
func (v WindowView) Inverse(l Layout) (View, bool) {
	if v.Axis < 0 || v.Axis >= len(l) || v.Dilation != 1 || v.Stride != v.Width || v.Width < 1 || l[v.Axis].Extent%v.Width != 0 {
		return nil, false
	}
	return FlattenView{Axis: v.Axis}, true
}

// Lift implements View.
func (v WindowView) Lift() View {
	v.Axis++
	return v
}

func init() {
	viewSyntaxes["window"] = ViewSyntax{Name: "window",
		Params:   []ViewParam{{"axis", 0}, {"width", 1}, {"stride", 1}, {"dilation", 1}},
		Optional: 2,
		Make: func(p []int) (View, error) {
			v := WindowView{Axis: p[0], Width: p[1], Stride: 1, Dilation: 1}
			if len(p) > 2 {
				v.Stride = p[2]
			}
			if len(p) > 3 {
				v.Dilation = p[3]
			}
			return v, nil
		}}
	Keywords["window"] = true
}
