package nd

import (
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Pad pads (or, for negative amounts, crops) axes of x: lo[i] elements
// before and hi[i] after axis axes[i], the new elements value (ONNX Pad in
// constant mode, TensorFlow Pad and PadV2). The axes are counted from 0;
// the caller normalises negative ones. A pad view fills with 0, -inf or
// +inf: any other value is selected where an array of x's zeros, padded
// with -inf, marks the outside, so that the inside keeps its bits (-0
// included). Cropping away every element of an axis is an error naming
// the amounts and the extent.
func (o Ops) Pad(x graph.Node, axes, lo, hi []int, value float64) (graph.Node, error) {
	p := o.begin("Pad")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	if len(lo) != len(axes) || len(hi) != len(axes) {
		return nil, p.errorf("%d axes with %d amounts before and %d after; want one of each per axis", len(axes), len(lo), len(hi))
	}
	ext := a.extents()
	for i, ax := range axes {
		if ax < 0 || ax >= len(ext) {
			return nil, p.errorf("axis %d is out of range for x of rank %d", ax, len(ext))
		}
		if cl, ch := max(-lo[i], 0), max(-hi[i], 0); cl+ch >= ext[ax] {
			return nil, p.errorf("pads %d and %d crop all %d elements of axis %d", lo[i], hi[i], ext[ax], ax)
		}
	}
	fill, other := graph.FillZero, false
	switch {
	case value == 0:
	case math.IsInf(value, -1):
		fill = graph.FillNegInf
	case math.IsInf(value, 1):
		fill = graph.FillPosInf
	default:
		other = true
	}
	padded := func(y graph.Node, fill graph.Fill) (graph.Node, error) {
		for i, ax := range axes {
			if cl, ch := max(-lo[i], 0), max(-hi[i], 0); cl+ch > 0 {
				if y, err = p.applyView(graph.CropView{Axis: ax, Lo: cl, Hi: ch}, y); err != nil {
					return nil, err
				}
			}
			if l, h := max(lo[i], 0), max(hi[i], 0); l+h > 0 {
				if y, err = p.applyView(graph.PadView{Axis: ax, Lo: l, Hi: h, Fill: fill}, y); err != nil {
					return nil, err
				}
			}
		}
		return y, nil
	}
	y, err := padded(x, fill)
	if err != nil || !other {
		return y, err
	}
	if a.dt != graph.Float32 && a.dt != graph.Float64 {
		return nil, p.errorf("x is %v: a fill of %v needs a float array", a.dt, value)
	}
	conv := graph.ToF32
	if a.dt == graph.Float64 {
		conv = graph.ToF64
	}
	zeros, err := o.Map(x, func(b *layers.Builder, _ graph.Node) graph.Node { return b.Call(conv, b.Const(0)) })
	if err != nil {
		return nil, p.wrap(err, "the mask of the padding")
	}
	mask, err := padded(zeros, graph.FillNegInf)
	if err != nil {
		return nil, err
	}
	return o.ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Eq, vs[1], b.Const(0)), vs[0], b.Call(conv, b.Const(value)))
	}, y, mask)
}

// applyView applies the view v to x, with the operation's source.
func (p *op) applyView(v graph.View, x graph.Node) (graph.Node, error) {
	n, err := graph.NewView(v, x)
	if err != nil {
		return nil, p.wrap(err, "%s", graph.ViewString(v))
	}
	if _, err := p.typeOf(n); err != nil {
		return nil, p.wrap(err, "%s", graph.ViewString(v))
	}
	return graph.WithSource(n, p.src), nil
}
