package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// WindowFlip exchanges the two traversals of a window, positions and
// elements:
//
//	flip d (window d w s dl x)  =  window d P dl s x
//
// where P = (e - span)/s + 1 is the number of positions of the window on
// axis d (extent e, span = (w-1)*dl + 1). Element (k, p) of the left side
// is x[p*s + k*dl], and so is element (k, p) of the right: the window of
// P elements at dilation s, stepping dl. A convolution written output
// stationary (map over the positions of a reduction over the elements)
// and weight stationary (a reduction over the elements of a map over the
// positions: the exchange rules' flip 0 of its window) then read the same
// kind of view, a window, which the back ends lower as one.
//
// Side condition: the right side has exactly w positions, that is
// (e - span) mod s < dl. Otherwise the elements of axis d past the last
// window (which no window of the left side reads) would start a window of
// the right side, and the rule refuses, naming the numbers.
type WindowFlip struct{}

// Name implements Rule.
func (WindowFlip) Name() string { return "window-flip" }

// Rewrite implements Rule.
func (r WindowFlip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	f, ok := n.(*graph.Flip)
	if !ok {
		return nil, ErrNoMatch
	}
	v, x, ok := graph.AsView(f.X)
	if !ok {
		return nil, ErrNoMatch
	}
	w, ok := v.(graph.WindowView)
	if !ok || min(f.Axis1, f.Axis2) != w.Axis || max(f.Axis1, f.Axis2) != w.Axis+1 {
		return nil, ErrNoMatch
	}
	xt, ok := c.TypeOf(x).(*graph.ArrayType)
	if !ok || w.Axis >= xt.Rank() {
		return nil, ErrNoMatch
	}
	e := xt.Layout[w.Axis].Extent
	p := w.Positions(e)
	if p == 0 {
		return nil, ErrNoMatch
	}
	ex := graph.WindowView{Axis: w.Axis, Width: p, Stride: w.Dilation, Dilation: w.Stride}
	if got := ex.Positions(e); got != w.Width {
		return nil, refuse(r, n, "the exchanged window %s would have %d positions on extent %d, not the %d elements of %s: the %d element(s) past the last window would start one",
			graph.ViewString(ex), got, e, w.Width, graph.ViewString(w), (e-w.Span())%w.Stride)
	}
	out, err := graph.NewView(ex, x)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}
