package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// WindowSubdiv tiles the positions of a window: blocks of b positions are
// windows themselves, over tiles of the operand that overlap by a halo,
//
//	subdiv d b (window d w s dl x)  =  window (d+1) w s dl (window d H (b*s) 1 x)
//
// with H = (b-1)*s + span the extent of operand that b consecutive
// positions read (span = (w-1)*dl + 1) and b*s the step between tiles, so
// that neighbouring tiles share a halo of H - b*s = span - s elements.
// Element (t, q, k) of both sides is x[(t*b + q)*s + k*dl]. Where the left
// side is a loop over blocks of outputs (the subdivision rules tile the
// positions of a convolution this way, for the cache), the right side
// says which tile of the input each block reads: a tile of H elements
// that the block can load once.
//
// Side conditions: b divides the number of positions P (subdiv's own
// condition, so the left side type-checks), and the halo is smaller than
// the step, span - s < b*s: otherwise every tile re-reads more than it
// adds, and the rule refuses, naming the numbers. With b = P (one tile)
// the rule does not apply: there is nothing to tile.
type WindowSubdiv struct{}

// Name implements Rule.
func (WindowSubdiv) Name() string { return "window-subdiv" }

// Rewrite implements Rule.
func (r WindowSubdiv) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	sd, ok := n.(*graph.Subdiv)
	if !ok {
		return nil, ErrNoMatch
	}
	v, x, ok := graph.AsView(sd.X)
	if !ok {
		return nil, ErrNoMatch
	}
	w, ok := v.(graph.WindowView)
	if !ok || w.Axis != sd.Axis {
		return nil, ErrNoMatch
	}
	xt, ok := c.TypeOf(x).(*graph.ArrayType)
	if !ok || w.Axis >= xt.Rank() {
		return nil, ErrNoMatch
	}
	e := xt.Layout[w.Axis].Extent
	p, b := w.Positions(e), sd.Block
	switch {
	case p == 0 || b >= p:
		return nil, ErrNoMatch
	case w.Span()-w.Stride >= b*w.Stride:
		return nil, refuse(r, n, "tiles of %d positions of %s step %d elements but share a halo of %d: each would re-read more than it adds",
			b, graph.ViewString(w), b*w.Stride, w.Span()-w.Stride)
	}
	tiles, err := graph.NewView(graph.WindowView{Axis: w.Axis, Width: (b-1)*w.Stride + w.Span(), Stride: b * w.Stride, Dilation: 1}, x)
	if err != nil {
		return nil, err
	}
	out, err := graph.NewView(graph.WindowView{Axis: w.Axis + 1, Width: w.Width, Stride: w.Stride, Dilation: w.Dilation}, tiles)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}
