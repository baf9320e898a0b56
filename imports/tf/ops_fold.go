package tf

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// The shape ops below compute on values known at import time: the shape of
// a tensor (all of hofuse's extents are static) and the slicing, stacking
// and concatenation of constants that Keras's Flatten and TensorFlow's
// dynamic-batch reshapes build from it. They are folded while importing,
// so their results are constants that Reshape and the reductions read; an
// operand the graph computes at run time is an error naming it (but
// ConcatV2, which joins computed tensors too).

// constOperand returns the constant v, input what of the node, or an error
// saying that the op folds only constants.
func constOperand(v value, what string) (*tensor, error) {
	if v.konst == nil {
		return nil, fmt.Errorf("input %s is computed by the graph; hofuse folds this op at import time and needs its operands constant", what)
	}
	return v.konst, nil
}

// konstValue returns t as the constant output of node n.
func konstValue(n *node, t *tensor) (value, error) {
	dt, err := elemType(t.dtype)
	if err != nil {
		return value{}, err
	}
	var typ graph.Type = graph.Scalar(dt)
	if len(t.shape) > 0 {
		typ = graph.ArrayOf(dt, t.shape...)
	}
	return value{typ: typ, konst: t, from: n}, nil
}

// charge counts a folded constant of n elements of dt against the
// constants' budget before it is made: a Pack of one large constant named
// many times must not multiply it unchecked.
func (c *converter) charge(n int, dt tfpb.DataType) error {
	bytes := int64(n) * int64(byteSize(dt))
	if bytes > c.budget {
		return fmt.Errorf("the folded result holds %d bytes, past the limit of %d bytes left for the graph's constants (graph.DefaultMemoryLimit)", bytes, c.budget)
	}
	c.budget -= bytes
	return nil
}

// pick returns the tensor of t's elements at the flat indices idx, of the
// given shape and t's type.
func pick(t *tensor, idx []int, shape []int) *tensor {
	out := &tensor{dtype: t.dtype, shape: shape}
	for _, i := range idx {
		switch t.dtype {
		case tfpb.DataType_DT_FLOAT:
			out.f32 = append(out.f32, t.f32[i])
		case tfpb.DataType_DT_DOUBLE:
			out.f64 = append(out.f64, t.f64[i])
		case tfpb.DataType_DT_INT32:
			out.i32 = append(out.i32, t.i32[i])
		case tfpb.DataType_DT_INT64:
			out.i64 = append(out.i64, t.i64[i])
		case tfpb.DataType_DT_BOOL:
			out.b = append(out.b, t.b[i])
		}
	}
	return out
}

// concat returns the elements of ts, one after another, as a tensor of the
// given shape.
func concat(ts []*tensor, shape []int) *tensor {
	out := &tensor{dtype: ts[0].dtype, shape: shape}
	for _, t := range ts {
		out.f32 = append(out.f32, t.f32...)
		out.f64 = append(out.f64, t.f64...)
		out.i32 = append(out.i32, t.i32...)
		out.i64 = append(out.i64, t.i64...)
		out.b = append(out.b, t.b...)
	}
	return out
}

// convShape converts Shape(input; out_type): the extents of input, a
// vector of int32 (the default) or int64, folded to a constant.
func convShape(_ *converter, n *node, in []value) ([]value, error) {
	dt, present, err := attrType(n, "out_type")
	if err != nil {
		return nil, err
	}
	if !present {
		dt = tfpb.DataType_DT_INT32
	}
	ext := extentsOf(in[0].typ)
	if len(ext) == 0 {
		return nil, fmt.Errorf("input is a scalar: its shape is an empty vector, which hofuse cannot hold (extents are at least 1)")
	}
	t := &tensor{dtype: dt, shape: []int{len(ext)}}
	switch dt {
	case tfpb.DataType_DT_INT32:
		for _, e := range ext {
			if e > 1<<31-1 {
				return nil, fmt.Errorf("extent %d of input does not fit out_type int32", e)
			}
			t.i32 = append(t.i32, int32(e))
		}
	case tfpb.DataType_DT_INT64:
		for _, e := range ext {
			t.i64 = append(t.i64, int64(e))
		}
	default:
		return nil, fmt.Errorf("out_type %s: want int32 or int64", dtypeName(dt))
	}
	v, err := konstValue(n, t)
	return []value{v}, err
}

// convStridedSlice converts StridedSlice(input, begin, end, strides;
// begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
// Python's slicing with TensorFlow's masks. A constant vector sliced by
// one entry (the shape arithmetic of dynamic-batch reshapes) is folded:
// the elements begin, begin+stride, … up to end (excluded) — bit 0 of
// begin_mask (end_mask) starts (ends) at the vector's first or last
// element for the stride's direction, and shrink_axis_mask takes the one
// element at begin as a scalar. Negative indices count from the end;
// begin and end are clamped to the vector. Any other input is sliced by
// stridedSliceData.
func convStridedSlice(c *converter, n *node, in []value) ([]value, error) {
	masks := map[string]int64{}
	for _, key := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		m, err := attrInt(n, key, 0)
		if err != nil {
			return nil, err
		}
		masks[key] = m
	}
	x := in[0].konst
	if x == nil || len(x.shape) != 1 || masks["ellipsis_mask"] != 0 || masks["new_axis_mask"] != 0 {
		return stridedSliceData(c, n, in, masks)
	}
	var spec [3]int64
	for i, what := range []string{"begin", "end", "strides"} {
		ints, err := constInts(in[i+1], what)
		if err != nil {
			return nil, err
		}
		if len(ints) != 1 {
			return nil, fmt.Errorf("%s %v: want one entry, for the vector's one axis", what, ints)
		}
		spec[i] = ints[0]
	}
	size := int64(x.shape[0])
	begin, end, stride := spec[0], spec[1], spec[2]
	if stride == 0 {
		return nil, fmt.Errorf("strides [0]: a stride must not be 0")
	}
	if masks["shrink_axis_mask"]&1 != 0 {
		if begin < 0 {
			begin += size
		}
		if begin < 0 || begin >= size {
			return nil, fmt.Errorf("begin [%d] is out of range for shrinking a vector of %d elements", spec[0], size)
		}
		v, err := konstValue(n, pick(x, []int{int(begin)}, nil))
		return []value{v}, err
	}
	begin, end, _ = pySlice(size, begin, end, stride, masks["begin_mask"]&1 != 0, masks["end_mask"]&1 != 0)
	// A stride longer than the vector takes only the first element; capped
	// so, begin + k*stride cannot overflow.
	stride = min(max(stride, -size-1), size+1)
	var idx []int
	for i := begin; (stride > 0 && i < end) || (stride < 0 && i > end); i += stride {
		idx = append(idx, int(i))
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("the slice [%d:%d:%d] of a vector of %d elements is empty, which hofuse cannot hold", spec[0], spec[1], spec[2], size)
	}
	if err := c.charge(len(idx), x.dtype); err != nil {
		return nil, err
	}
	v, err := konstValue(n, pick(x, idx, []int{len(idx)}))
	return []value{v}, err
}

// convPack converts Pack(values...; axis): the N tensors of one shape
// stacked along a new axis at axis (negative counts from the end of the
// result). Constants stacked along the new outer axis are folded: [N]
// followed by their shape. Others (Keras's TimeDistributed stacks its
// steps) become each value with an axis of extent 1 inserted, joined by
// nd.Concat.
func convPack(c *converter, n *node, in []value) ([]value, error) {
	axis, err := attrInt(n, "axis", 0)
	if err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("no values")
	}
	r := int64(rankOf(in[0].typ))
	if axis < -r-1 || axis > r {
		return nil, fmt.Errorf("axis %d is out of range for values of rank %d (want %d..%d)", axis, r, -r-1, r)
	}
	if axis < 0 {
		axis += r + 1
	}
	allConst := true
	for _, v := range in {
		allConst = allConst && v.konst != nil
	}
	if !allConst || axis != 0 {
		o := nd.Ops{Source: n.name}
		xs := make([]graph.Node, len(in))
		for i, v := range in {
			if !slices.Equal(extentsOf(v.typ), extentsOf(in[0].typ)) {
				return nil, fmt.Errorf("values %d is %v and values 0 %v; Pack stacks values of one shape", i, v.typ, in[0].typ)
			}
			x, err := c.data(v)
			if err != nil {
				return nil, err
			}
			if xs[i], err = o.Unsqueeze(x, []int{int(axis)}); err != nil {
				return nil, err
			}
		}
		return c.result(o.Concat(int(axis), xs...))
	}
	ts, err := sameShapeConsts(in, nil)
	if err != nil {
		return nil, err
	}
	if err := c.charge(len(ts)*ts[0].size(), ts[0].dtype); err != nil {
		return nil, err
	}
	v, err := konstValue(n, concat(ts, append([]int{len(ts)}, ts[0].shape...)))
	return []value{v}, err
}

// convConcatV2 converts ConcatV2(values..., axis): the N tensors joined
// along axis (negative counts from the end); their element types, ranks
// and other extents agree. Constants joined along the outer axis fold at
// import (the shapes Keras builds); other operands join in the term,
// through nd.Concat, whose index inputs become parameters of the model.
func convConcatV2(c *converter, n *node, in []value) ([]value, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("%d inputs; ConcatV2 takes the values and then the axis", len(in))
	}
	ints, err := constInts(in[len(in)-1], "axis")
	if err != nil {
		return nil, err
	}
	if len(ints) != 1 {
		return nil, fmt.Errorf("axis %v: want one axis", ints)
	}
	vals := in[:len(in)-1]
	folded := true
	for _, v := range vals {
		folded = folded && v.konst != nil && v.term == nil
	}
	r := int64(rankOf(vals[0].typ))
	axis := ints[0]
	if axis < -r || axis >= r {
		return nil, fmt.Errorf("axis %d is out of range for values of rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	if !folded || axis != 0 {
		xs := make([]graph.Node, len(vals))
		for i, v := range vals {
			if xs[i], err = c.data(v); err != nil {
				return nil, err
			}
		}
		return c.result(nd.Ops{Source: n.name}.Concat(int(axis), xs...))
	}
	ts, err := sameShapeConsts(vals, func(s []int) []int { return s[1:] })
	if err != nil {
		return nil, err
	}
	outer, total := 0, 0
	for _, t := range ts {
		outer += t.shape[0]
		total += t.size()
	}
	if err := c.charge(total, ts[0].dtype); err != nil {
		return nil, err
	}
	v, err := konstValue(n, concat(ts, append([]int{outer}, ts[0].shape[1:]...)))
	return []value{v}, err
}

// sameShapeConsts returns the constants of in, which must share an element
// type and a shape (or, with part, the part of it part returns).
func sameShapeConsts(in []value, part func([]int) []int) ([]*tensor, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no values")
	}
	ts := make([]*tensor, len(in))
	for i, v := range in {
		t, err := constOperand(v, fmt.Sprintf("values %d", i))
		if err != nil {
			return nil, err
		}
		if t.dtype != in[0].konst.dtype {
			return nil, fmt.Errorf("values 0 is %s and values %d %s", dtypeName(in[0].konst.dtype), i, dtypeName(t.dtype))
		}
		a, b := t.shape, in[0].konst.shape
		if part != nil && len(a) > 0 && len(b) > 0 {
			a, b = part(a), part(b)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) || len(t.shape) != len(in[0].konst.shape) {
			return nil, fmt.Errorf("values 0 has shape %v and values %d %v", in[0].konst.shape, i, t.shape)
		}
		ts[i] = t
	}
	return ts, nil
}

func init() {
	ops["GatherV2"] = opDef{arity: 3, outputs: 1, check: checkGatherV2, convert: convGatherV2}
	ops["Prod"] = opDef{arity: 2, outputs: 1, convert: convProd}
}

// gatherRefusal is why GatherV2 of computed values is not supported.
const gatherRefusal = "GatherV2 of values computed from the model's inputs is not supported (the IR has no gather); GatherV2 folds only on known tensors (shapes, constants)"

// checkGatherV2 refuses batch_dims other than 0.
func checkGatherV2(n *node) string {
	bd, err := attrInt(n, "batch_dims", 0)
	if err != nil {
		return err.Error()
	}
	if bd != 0 {
		return fmt.Sprintf("batch_dims=%d is not supported (only 0)", bd)
	}
	return ""
}

// maxFoldElements caps what a gather or a product folds at import time:
// shape arithmetic and small constants, not data.
const maxFoldElements = 1 << 20

// convGatherV2 converts GatherV2(params, indices, axis; batch_dims 0) when
// params and indices are known at import time, folded: the slices of
// params at the indices along axis (a scalar; negative counts from the
// end), of shape params.shape[:axis] + indices.shape +
// params.shape[axis+1:]. Every index must be in [0, extent) as on
// TensorFlow's CPU, where an index out of range is an error. Keras's
// Tensordot (a Dense on a rank-3 input) gathers extents of a Shape so. A
// GatherV2 of computed values (an Embedding's lookup) is refused.
func convGatherV2(c *converter, n *node, in []value) ([]value, error) {
	params, indices := in[0].konst, in[1].konst
	if params == nil || indices == nil {
		return nil, fmt.Errorf("%s", gatherRefusal)
	}
	ax, err := constInts(in[2], "axis")
	if err != nil {
		return nil, err
	}
	if len(ax) != 1 || len(in[2].konst.shape) != 0 {
		return nil, fmt.Errorf("axis %v: want one axis, a scalar", ax)
	}
	r := int64(len(params.shape))
	axis := ax[0]
	if r == 0 {
		return nil, fmt.Errorf("params is a scalar; GatherV2 needs rank 1 or more")
	}
	if axis < -r || axis >= r {
		return nil, fmt.Errorf("axis %d is out of range for params of rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	idx, ok := indices.ints()
	if !ok {
		return nil, fmt.Errorf("indices is a %s tensor; want int32 or int64", dtypeName(indices.dtype))
	}
	extent := int64(params.shape[axis])
	for k, i := range idx {
		if i < 0 || i >= extent {
			return nil, fmt.Errorf("index %d (element %d of indices) is out of range for axis %d of params %v (from 0 to %d)", i, k, axis, params.shape, extent-1)
		}
	}
	outer, inner := 1, 1
	for _, e := range params.shape[:axis] {
		outer *= e
	}
	for _, e := range params.shape[axis+1:] {
		inner *= e
	}
	// outer and inner are at most the size of a decoded constant; their
	// product with the index count is checked before it is computed.
	if total := int64(outer) * int64(inner); total > 0 && int64(len(idx)) > maxFoldElements/total {
		return nil, fmt.Errorf("the result has %d×%d×%d elements, more than the %d hofuse folds at import time", outer, len(idx), inner, maxFoldElements)
	}
	shape := append(append(append([]int{}, params.shape[:axis]...), indices.shape...), params.shape[axis+1:]...)
	flat := make([]int, 0, outer*len(idx)*inner)
	for o := range outer {
		for _, i := range idx {
			base := (o*int(extent) + int(i)) * inner
			for k := range inner {
				flat = append(flat, base+k)
			}
		}
	}
	if len(flat) == 0 && !(len(shape) == 1 && (params.dtype == tfpb.DataType_DT_INT32 || params.dtype == tfpb.DataType_DT_INT64)) {
		return nil, fmt.Errorf("the result has shape %v, which is empty; hofuse arrays have no empty axes", shape)
	}
	if err := c.charge(len(flat), params.dtype); err != nil {
		return nil, err
	}
	v, err := konstValue(n, pick(params, flat, shape))
	if err != nil {
		return nil, err
	}
	if len(flat) == 0 {
		v.typ = graph.ArrayOf(graph.Int32, 0) // an empty index, as a Const of shape [0] is
	}
	return one(v), nil
}

// convProd converts Prod(input, reduction_indices; keep_dims): the
// product over the axes, as Mean. An integer input known at import time
// (the extents Keras's Tensordot multiplies) folds, exactly, as long as
// the product fits its type (TensorFlow's wraps; then the term computes
// it); any other input is reduced in the term (nd.Reduce with nd.Prod).
func convProd(c *converter, n *node, in []value) ([]value, error) {
	if k := in[0].konst; k != nil && in[0].term == nil {
		if t, ok, err := foldProd(n, k, in[1]); err != nil {
			return nil, err
		} else if ok {
			v, err := konstValue(n, t)
			if err != nil {
				return nil, err
			}
			return one(v), nil
		}
	}
	return reduction(nd.Prod)(c, n, in)
}

// foldProd returns the product of the integer tensor t over the axes in
// ax (a known operand); ok is false when t is not an integer tensor, is
// larger than maxFoldElements, or its product overflows t's type.
func foldProd(n *node, t *tensor, ax value) (*tensor, bool, error) {
	vals, isInt := t.ints()
	if !isInt || len(vals) > maxFoldElements {
		return nil, false, nil
	}
	keep, err := attrBool(n, "keep_dims", false)
	if err != nil {
		return nil, false, err
	}
	r := len(t.shape)
	list, err := axes(ax, "reduction_indices", r)
	if err != nil {
		return nil, false, err
	}
	reduced := make([]bool, r)
	for _, a := range list {
		if a < 0 {
			a += r
		}
		reduced[a] = true
	}
	var shape, kept []int // the result's extents; the input axes kept
	for d, e := range t.shape {
		switch {
		case !reduced[d]:
			shape = append(shape, e)
			kept = append(kept, d)
		case keep:
			shape = append(shape, 1)
		}
	}
	size := 1
	for d := range kept {
		size *= t.shape[kept[d]]
	}
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if t.dtype == tfpb.DataType_DT_INT64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	out := make([]int64, size)
	for i := range out {
		out[i] = 1
	}
	idx := make([]int, r)
	for _, v := range vals {
		o := 0
		for _, d := range kept {
			o = o*t.shape[d] + idx[d]
		}
		p, ok := mulChecked(out[o], v, lo, hi)
		if !ok {
			return nil, false, nil
		}
		out[o] = p
		for d := r - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < t.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	res := &tensor{dtype: t.dtype, shape: shape}
	if t.dtype == tfpb.DataType_DT_INT64 {
		res.i64 = out
	} else {
		for _, v := range out {
			res.i32 = append(res.i32, int32(v))
		}
	}
	return res, true, nil
}

// mulChecked returns a·b when it lies in [lo, hi].
func mulChecked(a, b, lo, hi int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, p >= lo && p <= hi
}

// pySlice resolves Python's slice begin:end:stride (stride ≠ 0) of an axis
// of size elements as StridedSlice reads it: a masked bound is the first
// or last element for the stride's direction (and one past it for end);
// otherwise negative bounds count from the end and both are clamped to
// [0, size] going up, [−1, size−1] going down. It returns the resolved
// bounds and the count of elements taken, 0 for an empty slice.
func pySlice(size, begin, end, stride int64, beginMasked, endMasked bool) (b, e, count int64) {
	lo, hi := int64(0), size
	first, past := int64(0), size
	if stride < 0 {
		lo, hi = -1, size-1
		first, past = size-1, -1
	}
	norm := func(v int64, masked bool, whole int64) int64 {
		if masked {
			return whole
		}
		if v < 0 {
			v += size
		}
		return min(max(v, lo), hi)
	}
	b, e = norm(begin, beginMasked, first), norm(end, endMasked, past)
	// A stride longer than the axis takes one element; capped so, the
	// count's arithmetic cannot overflow.
	st := min(max(stride, -size-1), size+1)
	if st > 0 {
		return b, e, max(0, (e-b+st-1)/st)
	}
	return b, e, max(0, (b-e-st-1)/(-st))
}

// stridedSliceData slices a tensor the graph computes (or a constant of
// rank 2 or more) by StridedSlice's specification, as TensorFlow reads
// it: entry i of begin, end and strides applies to the next axis of the
// input, unless bit i of ellipsis_mask makes it stand for as many whole
// axes as the other entries leave (one ellipsis at most) or bit i of
// new_axis_mask inserts an axis of extent 1 there; axes past the entries
// are whole. On an axis, bit i of begin_mask (end_mask) starts (ends) at
// its first or last element for the stride's direction; otherwise
// negative indices count from the end and the bounds are clamped as
// Python clamps them; bit i of shrink_axis_mask keeps the element at
// begin and drops the axis. The slices are views (nd.Slice): a negative
// stride that keeps more than one element is refused, the IR having no
// reversed view.
func stridedSliceData(c *converter, n *node, in []value, masks map[string]int64) ([]value, error) {
	var spec [3][]int64
	for i, what := range []string{"begin", "end", "strides"} {
		ints, err := constInts(in[i+1], what)
		if err != nil {
			return nil, err
		}
		spec[i] = ints
	}
	m := len(spec[0])
	if len(spec[1]) != m || len(spec[2]) != m {
		return nil, fmt.Errorf("begin, end and strides have %d, %d and %d entries; want one length", m, len(spec[1]), len(spec[2]))
	}
	if m > 64 {
		return nil, fmt.Errorf("%d entries in begin; the masks address at most 64", m)
	}
	ext := extentsOf(in[0].typ)
	r := len(ext)
	bit := func(key string, i int) bool { return masks[key]>>uint(i)&1 != 0 }
	// The axes the entries other than the ellipsis and new axes take.
	named, ellipses := 0, 0
	for i := range m {
		switch {
		case bit("ellipsis_mask", i):
			ellipses++
		case !bit("new_axis_mask", i):
			named++
		}
	}
	if ellipses > 1 {
		return nil, fmt.Errorf("ellipsis_mask %#b has more than one bit set; TensorFlow allows one ellipsis", masks["ellipsis_mask"])
	}
	if named > r {
		return nil, fmt.Errorf("%d entries slice axes of an input of rank %d", named, r)
	}
	type axisSlice struct{ start, step, count int }
	cuts := make([]axisSlice, r)
	for d := range r {
		cuts[d] = axisSlice{0, 1, ext[d]}
	}
	var shrink, newAxes []int // input axes to drop; positions of new axes in the result
	d, out := 0, 0            // the next input axis, the next axis of the result
	for i := range m {
		switch {
		case bit("ellipsis_mask", i):
			k := r - named
			d, out = d+k, out+k
			continue
		case bit("new_axis_mask", i):
			if bit("shrink_axis_mask", i) {
				return nil, fmt.Errorf("entry %d both inserts an axis (new_axis_mask) and drops one (shrink_axis_mask)", i)
			}
			newAxes = append(newAxes, out)
			out++
			continue
		}
		size := int64(ext[d])
		b, e, s := spec[0][i], spec[1][i], spec[2][i]
		if s == 0 {
			return nil, fmt.Errorf("strides[%d] is 0; a stride must not be 0", i)
		}
		if bit("shrink_axis_mask", i) {
			if b < 0 {
				b += size
			}
			if b < 0 || b >= size {
				return nil, fmt.Errorf("begin[%d] = %d is out of range for shrinking axis %d of extent %d", i, spec[0][i], d, size)
			}
			cuts[d] = axisSlice{int(b), 1, 1}
			shrink = append(shrink, d)
			d++
			continue
		}
		b, _, count := pySlice(size, b, e, s, bit("begin_mask", i), bit("end_mask", i))
		if count == 0 {
			return nil, fmt.Errorf("entry %d, [%d:%d:%d] of axis %d (extent %d), is empty, which hofuse cannot hold", i, spec[0][i], spec[1][i], spec[2][i], d, size)
		}
		step := int(min(max(s, -size), size)) // the count is known; keep the step in range
		cuts[d] = axisSlice{int(b), step, int(count)}
		d, out = d+1, out+1
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	o := nd.Ops{Source: n.name}
	for d, sl := range cuts {
		if x, err = o.Slice(x, d, sl.start, sl.step, sl.count); err != nil {
			return nil, err
		}
	}
	if len(shrink) > 0 {
		if x, err = o.Squeeze(x, shrink); err != nil {
			return nil, err
		}
	}
	if len(newAxes) > 0 {
		// The positions counted so far place every axis of the result;
		// the ones after the entries are the trailing whole axes.
		if x, err = o.Unsqueeze(x, newAxes); err != nil {
			return nil, err
		}
	}
	return c.result(x, nil)
}
