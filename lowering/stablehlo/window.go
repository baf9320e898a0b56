package stablehlo

import (
	shlo "github.com/gomlx/go-xla/pkg/stablehlo"

	"github.com/hofuse/hofuse/graph"
)

// The views that are not a reshape or a transpose of their operand: pad,
// crop and window. Each reads its operand as one dense tensor (loop levels
// first, then the logical axes) and gives one:
//
//   - pad d lo hi [in] is stablehlo.pad with the fill as padding value;
//   - crop d lo hi is a stablehlo.slice of axis d;
//   - window d w st dil is w strided slices of axis d, one per window
//     element (element k is positions k*dil, k*dil+st, ...), each given a
//     new axis of extent 1 after d and concatenated along it: the
//     im2col of the axis, which the reduction over the window elements
//     then reads (a convolution's becomes a dot_general over the window
//     and channel axes). Windows that tile the axis (stride w, no
//     dilation: a pooling's) are a reshape of it into [positions, w]
//     instead, after a slice that drops a tail no window reaches.
//
// The slices do not depend on the values, so XLA fuses them into their
// consumer where it can; the window's tensor is w times its operand's
// size at most when st = 1.

// strangeView translates a pad, crop or window view of x; ok is false for
// any other view.
func (l *lowerer) strangeView(n graph.ViewNode, x *val) (out *val, ok bool, err error) {
	switch v := n.View().(type) {
	case graph.PadView:
		out, err = l.pad(n, v, x)
	case graph.CropView:
		out, err = l.crop(n, v, x)
	case graph.WindowView:
		out, err = l.window(n, v, x)
	default:
		return nil, false, nil
	}
	return out, true, err
}

// denseDims returns x as one dense tensor, its levels and the tensor's
// extents (the levels' extents, then x's shape).
func (l *lowerer) denseDims(x *val) (*shlo.Value, []int, []int, error) {
	t, levels, err := l.dense(x)
	if err != nil {
		return nil, nil, nil, err
	}
	dims := make([]int, 0, len(levels)+len(x.shape))
	for _, lv := range levels {
		dims = append(dims, l.extents[lv])
	}
	return t, levels, append(dims, x.shape...), nil
}

func (l *lowerer) pad(n graph.ViewNode, v graph.PadView, x *val) (*val, error) {
	out, err := v.Apply(graph.RowMajor(x.shape...))
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	t, levels, dims, err := l.denseDims(x)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	fill, err := l.constant(x.dt, v.Fill.Value())
	if err != nil {
		return nil, l.wrap(n, err)
	}
	lo, hi, in := make([]int, len(dims)), make([]int, len(dims)), make([]int, len(dims))
	a := len(levels) + v.Axis
	lo[a], hi[a], in[a] = v.Lo, v.Hi, v.Interior
	p, err := shlo.Pad(t, fill.factors[0].t, lo, hi, in)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return denseVal(x.dt, p, levels, out.Extents()), nil
}

func (l *lowerer) crop(n graph.ViewNode, v graph.CropView, x *val) (*val, error) {
	out, err := v.Apply(graph.RowMajor(x.shape...))
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	t, levels, dims, err := l.denseDims(x)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	a := len(levels) + v.Axis
	starts, limits := make([]int, len(dims)), append([]int(nil), dims...)
	starts[a], limits[a] = v.Lo, dims[a]-v.Hi
	s, err := shlo.Slice(t, starts, limits, nil)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return denseVal(x.dt, s, levels, out.Extents()), nil
}

func (l *lowerer) window(n graph.ViewNode, v graph.WindowView, x *val) (*val, error) {
	out, err := v.Apply(graph.RowMajor(x.shape...))
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	t, levels, dims, err := l.denseDims(x)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	a := len(levels) + v.Axis
	positions := v.Positions(x.shape[v.Axis])
	if v.Stride == v.Width && (v.Dilation == 1 || v.Width == 1) {
		// The windows tile the axis (up to a tail no window reaches):
		// element k of position p is p*w + k, a reshape of the axis
		// into [positions, w], which XLA makes a bitcast where the
		// slices and their concatenation would copy.
		if used := positions * v.Width; used < dims[a] {
			starts, limits, strides := make([]int, len(dims)), append([]int(nil), dims...), make([]int, len(dims))
			for i := range strides {
				strides[i] = 1
			}
			limits[a] = used
			if t, err = shlo.Slice(t, starts, limits, strides); err != nil {
				return nil, l.wrap(n, err)
			}
		}
		tiled := append(append(append([]int(nil), dims[:a]...), positions, v.Width), dims[a+1:]...)
		ts, err := l.shape(x.dt, tiled)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		if t, err = shlo.Reshape(t, ts); err != nil {
			return nil, l.wrap(n, err)
		}
		return denseVal(x.dt, t, levels, out.Extents()), nil
	}
	// Each window element is a slice of extent positions along a, given
	// an axis of extent 1 after a.
	one := append(append(append([]int(nil), dims[:a]...), positions, 1), dims[a+1:]...)
	oneShape, err := l.shape(x.dt, one)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	parts := make([]*shlo.Value, v.Width)
	for k := range parts {
		starts, limits, strides := make([]int, len(dims)), append([]int(nil), dims...), make([]int, len(dims))
		for i := range strides {
			strides[i] = 1
		}
		starts[a] = k * v.Dilation
		limits[a] = starts[a] + (positions-1)*v.Stride + 1
		strides[a] = v.Stride
		s, err := shlo.Slice(t, starts, limits, strides)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		if parts[k], err = shlo.Reshape(s, oneShape); err != nil {
			return nil, l.wrap(n, err)
		}
	}
	w := parts[0]
	if len(parts) > 1 {
		if w, err = shlo.Concatenate(a+1, parts...); err != nil {
			return nil, l.wrap(n, err)
		}
	}
	return denseVal(x.dt, w, levels, out.Extents()), nil
}

// denseVal is the val of one dense tensor t over levels and the logical
// extents shape.
func denseVal(dt graph.DType, t *shlo.Value, levels, shape []int) *val {
	return &val{dt: dt, shape: shape, factors: []factor{{t: t, levels: levels, axes: seq(len(shape))}}}
}
