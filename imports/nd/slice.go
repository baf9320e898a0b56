package nd

import "github.com/hofuse/hofuse/graph"

// Slice returns count elements of x along axis (negative counts from the
// end): start, start+step, …, start+(count−1)·step, as a slice with that
// start, step and count does (numpy's x[start::step][:count], ONNX's
// Slice, TensorFlow's StridedSlice, once their bounds are resolved). The
// elements must lie within the axis; step is at least 1, or any value
// when count is 1. The result is views: a crop, and for a step above 1
// the axis cut into blocks of step (padded at the end when the last block
// is short) of which the first element is kept. The IR has no view that
// reverses an axis, so a negative step that keeps more than one element
// is refused; an empty slice is refused, extents being at least 1.
func Slice(x graph.Node, axis, start, step, count int) (graph.Node, error) {
	return Ops{}.Slice(x, axis, start, step, count)
}

// Slice is the package's Slice, with o's source name.
func (o Ops) Slice(x graph.Node, axis, start, step, count int) (graph.Node, error) {
	p := o.begin("Slice")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	d, err := p.normAxis("axis", axis, a.rank())
	if err != nil {
		return nil, err
	}
	n := a.lay[d].Extent
	switch {
	case count < 1:
		return nil, p.errorf("the slice of axis %d (extent %d) is empty; the IR's arrays have at least one element on every axis", d, n)
	case start < 0 || start >= n:
		return nil, p.errorf("start %d is outside axis %d (extent %d)", start, d, n)
	case count == n && step == 1:
		return x, nil
	case count == 1:
		return p.applyView(graph.CropView{Axis: d, Lo: start, Hi: n - start - 1}, x)
	case step < 1:
		return nil, p.errorf("step %d on axis %d is not supported: the IR has no view that reverses an axis (only a negative step that keeps one element is)", step, d)
	case start+(count-1)*step >= n:
		return nil, p.errorf("%d elements from %d by steps of %d run past axis %d (extent %d)", count, start, step, d, n)
	}
	// Keep elements start … start+(count−1)·step, then as many more as
	// the last block of step needs, padding past the end of the axis.
	keep := min(count*step, n-start)
	y := x
	if start > 0 || start+keep < n {
		if y, err = p.applyView(graph.CropView{Axis: d, Lo: start, Hi: n - start - keep}, y); err != nil {
			return nil, err
		}
	}
	if step == 1 {
		return y, nil
	}
	if keep < count*step {
		if y, err = p.applyView(graph.PadView{Axis: d, Hi: count*step - keep, Fill: graph.FillZero}, y); err != nil {
			return nil, err
		}
	}
	if y, err = p.applyView(graph.SubdivView{Axis: d, Block: step}, y); err != nil {
		return nil, err
	}
	return p.applyView(graph.FirstView{Axis: d + 1}, y)
}
