package onnx

import (
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

func init() {
	register(
		&converter{op: "Slice", since: 1, until: 9, convert: convSlice},
		&converter{op: "Slice", since: 10, convert: convSlice, needKnown: []int{1, 2, 3, 4}},
		&converter{op: "ConstantOfShape", since: 9, check: checkConstantOfShape, convert: convConstantOfShape, needKnown: []int{0}},
		&converter{op: "Range", since: 11, convert: convRange, allKnown: true,
			why: "Range's length depends on its inputs' values, and hofuse's extents are fixed when the model is imported; its inputs must be known then (constants, or shapes of the inputs)"},
	)
}

// convSlice converts Slice. Up to opset 9 starts, ends and the optional
// axes are attributes; from 10 they are inputs 1 to 3, with the optional
// steps as input 4, and must be known. Negative starts and ends count
// from the end of their axis and are clamped to it, as numpy's slicing
// does; a negative step walks backwards. On a known tensor (the shape
// computations exporters write: Shape, then Slice of some extents) the
// result is computed at import time. Otherwise it is a view of the data:
// a crop for step 1, and for a step s > 1 a crop, then the axis split
// into blocks of s (padded to a whole number of blocks) of which the
// first element of each is kept. A negative step that keeps more than
// one element is refused: the IR has no view that reverses an axis.
func convSlice(c *ctx) error {
	var starts, ends, axes, steps []int
	var err error
	if c.opset < 10 {
		if starts, _, err = c.attrInts("starts"); err != nil {
			return err
		}
		if ends, _, err = c.attrInts("ends"); err != nil {
			return err
		}
		if axes, _, err = c.attrInts("axes"); err != nil {
			return err
		}
	} else {
		for i, p := range []*[]int{&starts, &ends, &axes, &steps} {
			if !c.has(i + 1) {
				continue
			}
			t, err := c.constIn(i+1, []string{"starts", "ends", "axes", "steps"}[i])
			if err != nil {
				return err
			}
			if *p, err = t.ints(); err != nil {
				return c.wrap(err, "input %d", i+1)
			}
		}
	}
	dims, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	r := len(dims)
	if len(starts) != len(ends) {
		return c.errorf("starts has %d entries and ends %d", len(starts), len(ends))
	}
	if axes == nil {
		for i := range starts {
			axes = append(axes, i)
		}
	}
	if steps == nil {
		for range starts {
			steps = append(steps, 1)
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return c.errorf("starts, ends, axes and steps have %d, %d, %d and %d entries", len(starts), len(ends), len(axes), len(steps))
	}
	axes, err = c.normAxesKeepOrder(axes, r)
	if err != nil {
		return err
	}
	// lo, step and count per axis; axes not named keep everything.
	lo := make([]int, r)
	step := make([]int, r)
	cnt := make([]int, r)
	for d := range r {
		lo[d], step[d], cnt[d] = 0, 1, dims[d]
	}
	for k, d := range axes {
		n, s := dims[d], steps[k]
		if s == 0 {
			return c.errorf("step of axis %d is 0", d)
		}
		b, e := starts[k], ends[k]
		if b < 0 {
			b += n
		}
		if e < 0 {
			e += n
		}
		if s > 0 {
			b, e = min(max(b, 0), n), min(max(e, 0), n)
			cnt[d] = max(0, (e-b+s-1)/s)
		} else {
			b, e = min(max(b, -1), n-1), min(max(e, -1), n-1)
			cnt[d] = max(0, (b-e-s-1)/(-s))
		}
		lo[d], step[d] = b, s
	}
	total := prod(cnt)
	if data := c.known(0); data != nil && total <= maxFold {
		c.outConst(0, sliceKnown(data, lo, step, cnt))
		return nil
	}
	y, err := c.in(0)
	if err != nil {
		return err
	}
	for d := range r {
		if y, err = c.sliceAxis(y, d, dims[d], lo[d], step[d], cnt[d]); err != nil {
			return err
		}
	}
	c.out(0, y)
	return nil
}

// sliceKnown computes a slice of a known tensor.
func sliceKnown(data *tensor, lo, step, cnt []int) *tensor {
	r := len(data.dims)
	out := &tensor{elem: data.elem, dims: cnt}
	idx := make([]int, r)
	for range prod(cnt) {
		src := 0
		for d := range r {
			src = src*data.dims[d] + lo[d] + idx[d]*step[d]
		}
		if isFloatElem(data.elem) {
			out.f = append(out.f, data.f[src])
		} else {
			out.i = append(out.i, data.i[src])
		}
		for d := r - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < cnt[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// sliceAxis keeps cnt elements of axis d (extent n) of y, from lo on,
// step apart, as views.
func (c *ctx) sliceAxis(y graph.Node, d, n, lo, step, cnt int) (graph.Node, error) {
	if cnt == 0 {
		return nil, c.errorf("the slice of axis %d (extent %d) is empty; the IR's arrays have at least one element on every axis", d, n)
	}
	y, err := c.ops().Slice(y, d, lo, step, cnt)
	if err != nil {
		return nil, c.wrap(err, "axis %d", d)
	}
	return y, nil
}

// normAxesKeepOrder resolves axes (negative from the end) for rank r,
// keeping their order, and refuses one named twice.
func (c *ctx) normAxesKeepOrder(axes []int, r int) ([]int, error) {
	if _, err := c.normAxes(axes, r); err != nil {
		return nil, err
	}
	out := make([]int, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += r
		}
		out[i] = a
	}
	return out, nil
}

func checkConstantOfShape(n *onnxpb.NodeProto, _ int) string {
	if a := attr(n, "value"); a != nil && a.GetT() == nil {
		return "attribute value holds no tensor"
	}
	return ""
}

// convConstantOfShape (opset 9): a tensor of the shape given by the
// known input 0, every element the one-element tensor of attribute value
// (default float 0). It is known at import time, so it folds, up to the
// fold limit.
func convConstantOfShape(c *ctx) error {
	st, err := c.constIn(0, "shape")
	if err != nil {
		return err
	}
	dims, err := st.ints()
	if err != nil {
		return c.wrap(err, "shape")
	}
	fill := &tensor{elem: tFloat, f: []float64{0}}
	if a := attr(c.node, "value"); a != nil {
		if fill, err = decodeTensor(a.GetT()); err != nil {
			return c.wrap(err, "attribute value")
		}
		if fill.size() != 1 {
			return c.errorf("attribute value holds %d elements, want 1", fill.size())
		}
	}
	n := 1
	for i, d := range dims {
		if d < 0 {
			return c.errorf("dimension %d of the shape is %d", i, d)
		}
		if d > 0 && n > maxFold/d {
			return c.errorf("the shape %v has more than the %d elements hofuse folds at import time", dims, maxFold)
		}
		n *= d
	}
	out := &tensor{elem: fill.elem, dims: dims}
	for range n {
		if isFloatElem(fill.elem) {
			out.f = append(out.f, fill.f[0])
		} else {
			out.i = append(out.i, fill.i[0])
		}
	}
	c.outConst(0, out)
	return nil
}

// convRange (opset 11): start, start+delta, … up to limit (excluded), of
// the inputs' element type, as ONNX defines it: max(ceil((limit −
// start) / delta), 0) elements, element i = start + i·delta. The inputs
// are scalars known when the model is imported, and the result is
// folded; an empty one is refused, extents being at least 1.
func convRange(c *ctx) error {
	var v [3]*tensor
	for i, what := range []string{"start", "limit", "delta"} {
		t, err := c.constIn(i, what)
		if err != nil {
			return err
		}
		if t.size() != 1 {
			return c.errorf("input %d (%s) holds %d elements, want a scalar", i, what, t.size())
		}
		if i > 0 && t.elem != v[0].elem {
			return c.errorf("input %d (%s) is %s but start is %s; Range takes one element type", i, what, elemName(t.elem), elemName(v[0].elem))
		}
		v[i] = t
	}
	start, limit, delta := v[0].at(0), v[1].at(0), v[2].at(0)
	if delta == 0 {
		return c.errorf("delta is 0")
	}
	count := math.Ceil((limit - start) / delta)
	switch {
	case !(count >= 1):
		return c.errorf("the range from %v to %v by %v is empty; the IR's arrays have at least one element", start, limit, delta)
	case count > maxFold:
		return c.errorf("the range from %v to %v by %v has %v elements, more than the %d hofuse folds at import time", start, limit, delta, count, maxFold)
	}
	out := &tensor{elem: v[0].elem, dims: []int{int(count)}}
	for i := range int(count) {
		if isFloatElem(out.elem) {
			x := start + float64(i)*delta
			if out.elem == tFloat {
				x = float64(float32(float32(start) + float32(i)*float32(delta)))
			}
			out.f = append(out.f, x)
		} else {
			out.i = append(out.i, v[0].i[0]+int64(i)*v[2].i[0])
		}
	}
	c.outConst(0, out)
	return nil
}
