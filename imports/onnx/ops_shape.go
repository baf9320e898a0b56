package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

func init() {
	register(
		&converter{op: "Constant", since: 1, check: checkConstant, convert: convConstant},
		&converter{op: "Identity", since: 1, convert: convIdentity},
		&converter{op: "Dropout", since: 6, check: checkDropout, convert: convDropout, needKnown: []int{2}},
		&converter{op: "Shape", since: 1, convert: convShape},
		&converter{op: "Gather", since: 1, convert: convGather, allKnown: true, why: gatherRefusal},
		&converter{op: "Reshape", since: 5, convert: convReshape, needKnown: []int{1}},
		&converter{op: "Flatten", since: 1, convert: convFlatten},
		&converter{op: "Transpose", since: 1, convert: convTranspose},
		&converter{op: "Squeeze", since: 1, until: 12, convert: convSqueeze},
		&converter{op: "Squeeze", since: 13, convert: convSqueeze, needKnown: []int{1}},
		&converter{op: "Unsqueeze", since: 1, until: 12, convert: convUnsqueeze},
		&converter{op: "Unsqueeze", since: 13, convert: convUnsqueeze, needKnown: []int{1}},
		&converter{op: "Concat", since: 4, convert: convConcat},
		&converter{op: "Cast", since: 6, check: checkCast, convert: convCast},
		&converter{op: "Expand", since: 8, convert: convExpand, needKnown: []int{1}},
		&converter{op: "Tile", since: 6, convert: convTile, needKnown: []int{1}},
		&converter{op: "Split", since: 2, until: 12, convert: convSplit},
		&converter{op: "Split", since: 13, convert: convSplit, needKnown: []int{1}},
	)
}

// ops is the nd builder whose nodes carry the node's name.
func (c *ctx) ops() nd.Ops { return nd.Ops{Source: c.name} }

// shapeOf returns the extents of input i: a known tensor's dims, or its
// term's type's.
func (c *ctx) shapeOf(i int) ([]int, error) {
	v, err := c.val(i)
	if err != nil {
		return nil, err
	}
	if v.k != nil {
		return slices.Clone(v.k.dims), nil
	}
	_, ext, err := nd.Shape(v.term)
	if err != nil {
		return nil, c.wrap(err, "input %d (%q)", i, v.name)
	}
	return ext, nil
}

// checkConstant refuses the Constant forms that carry no numeric tensor.
func checkConstant(n *onnxpb.NodeProto, _ int) string {
	for _, a := range n.GetAttribute() {
		switch a.GetName() {
		case "value", "value_float", "value_floats", "value_int", "value_ints":
			if a.GetName() == "value" && a.GetT() == nil {
				return "attribute value holds no tensor"
			}
			return ""
		case "sparse_value":
			return "sparse constants are not supported"
		case "value_string", "value_strings":
			return "string constants are not supported"
		}
	}
	return "no value attribute"
}

// convConstant (opset 1 and later): the tensor of attribute value, or
// from opset 12 one of value_float, value_floats (float32), value_int,
// value_ints (int64). The output is known at import time; it becomes a
// parameter named as the output when a term reads it, and folds into
// shape computations otherwise.
func convConstant(c *ctx) error {
	for _, a := range c.node.GetAttribute() {
		var t *tensor
		switch a.GetName() {
		case "value":
			var err error
			if t, err = decodeTensor(a.GetT()); err != nil {
				return c.wrap(err, "attribute value")
			}
		case "value_float":
			t = &tensor{elem: tFloat, f: []float64{float64(a.GetF())}}
		case "value_floats":
			t = &tensor{elem: tFloat, dims: []int{len(a.GetFloats())}}
			for _, f := range a.GetFloats() {
				t.f = append(t.f, float64(f))
			}
		case "value_int":
			t = &tensor{elem: tInt64, i: []int64{a.GetI()}}
		case "value_ints":
			t = &tensor{elem: tInt64, dims: []int{len(a.GetInts())}, i: slices.Clone(a.GetInts())}
		default:
			continue
		}
		c.outConst(0, t)
		return nil
	}
	return c.errorf("no value attribute")
}

// convIdentity: the output is the input, known or not.
func convIdentity(c *ctx) error {
	v, err := c.val(0)
	if err != nil {
		return err
	}
	if len(c.node.GetOutput()) > 0 && c.node.GetOutput()[0] != "" {
		name := c.node.GetOutput()[0]
		c.imp.vals[name] = &value{name: name, term: v.term, k: v.k}
	}
	return nil
}

// checkDropout refuses the mask output and a training_mode input.
func checkDropout(n *onnxpb.NodeProto, opset int) string {
	if len(n.GetOutput()) > 1 && n.GetOutput()[1] != "" {
		return "the mask output is not supported (hofuse runs Dropout in inference only)"
	}
	if a := attr(n, "is_test"); opset < 7 && (a == nil || a.GetI() == 0) {
		return "is_test=0 (training, the default in opset 6) is not supported: hofuse runs Dropout in inference only"
	}
	return ""
}

// convDropout is Dropout in inference (opset 6 with is_test=1, and 7 and
// later): the output is the input. From opset 12 the optional training_mode input must be a
// known false; ratio is ignored in inference.
func convDropout(c *ctx) error {
	if c.opset >= 12 && c.has(2) {
		t, err := c.constIn(2, "training_mode")
		if err != nil {
			return err
		}
		if t.size() != 1 || t.at(0) != 0 {
			return c.errorf("training_mode is true; hofuse runs Dropout in inference only")
		}
	}
	return convIdentity(c)
}

// convShape: the extents of the input as an int64 tensor, known at
// import time since the IR's extents are static. From opset 15, start and
// end (negative counting from the rank, clamped) select a slice of them.
func convShape(c *ctx) error {
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	r := len(ext)
	start, end := 0, r
	if c.opset >= 15 {
		s, err := c.attrInt("start", 0)
		if err != nil {
			return err
		}
		e, err := c.attrInt("end", int64(r))
		if err != nil {
			return err
		}
		clamp := func(v int64) int {
			if v < 0 {
				v += int64(r)
			}
			return int(min(max(v, 0), int64(r)))
		}
		start, end = clamp(s), clamp(e)
	}
	t := &tensor{elem: tInt64, dims: []int{max(end-start, 0)}}
	for _, e := range ext[start:max(end, start)] {
		t.i = append(t.i, int64(e))
	}
	c.outConst(0, t)
	return nil
}

// gatherRefusal is why Gather of computed values is not supported.
const gatherRefusal = "Gather of values computed from the model's inputs is not supported (the IR has no gather); Gather folds only on known tensors (shapes, initializers)"

// convGather folds Gather (along attribute axis, default 0; negative
// indices count from the end) when data and indices are both known: the
// shape computations exporters write (Shape, then Gather of one extent).
// Gather on data computed from the model's inputs is not supported.
func convGather(c *ctx) error {
	data, idx := c.known(0), c.known(1)
	if data == nil || idx == nil {
		return c.errorf("%s", gatherRefusal)
	}
	axis64, err := c.attrInt("axis", 0)
	if err != nil {
		return err
	}
	r := len(data.dims)
	axis := int(axis64)
	if axis < -r || axis >= r {
		return c.errorf("axis %d is out of range for data of rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	ind, err := idx.ints()
	if err != nil {
		return c.wrap(err, "indices")
	}
	n := data.dims[axis]
	for k, i := range ind {
		if i < -n || i >= n {
			return c.errorf("index %d (element %d of indices) is out of range for axis %d of extent %d", i, k, axis, n)
		}
		if i < 0 {
			ind[k] = i + n
		}
	}
	outer := prod(data.dims[:axis])
	inner := prod(data.dims[axis+1:])
	if n := outer * inner; n > 0 && len(ind) > maxFold/n {
		return c.errorf("the result has %d×%d×%d elements, more than the %d hofuse folds at import time", outer, len(ind), inner, maxFold)
	}
	out := &tensor{elem: data.elem}
	out.dims = append(append(append([]int{}, data.dims[:axis]...), idx.dims...), data.dims[axis+1:]...)
	for o := range outer {
		for _, i := range ind {
			for in := range inner {
				k := (o*n+i)*inner + in
				if isFloatElem(data.elem) {
					out.f = append(out.f, data.f[k])
				} else {
					out.i = append(out.i, data.i[k])
				}
			}
		}
	}
	c.outConst(0, out)
	return nil
}

func prod(xs []int) int {
	p := 1
	for _, x := range xs {
		p *= x
	}
	return p
}

// reshaped returns a copy of t's header with new dims (the elements are
// shared; tensors are never written after they are made).
func reshaped(t *tensor, dims []int) *tensor {
	return &tensor{elem: t.elem, dims: dims, f: t.f, i: t.i}
}

// convReshape (opset 5 and later): the shape input must be known; an
// entry 0 copies the input's extent (unless allowzero=1, opset 14), one
// entry -1 is inferred. A known data input folds.
func convReshape(c *ctx) error {
	st, err := c.constIn(1, "shape")
	if err != nil {
		return err
	}
	shape, err := st.ints()
	if err != nil {
		return c.wrap(err, "shape")
	}
	in, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	allowZero := int64(0)
	if c.opset >= 14 {
		if allowZero, err = c.attrInt("allowzero", 0); err != nil {
			return err
		}
	}
	ext, err := nd.ResolveShape(in, shape, allowZero != 0)
	if err != nil {
		return c.wrap(err, "shape %v for an input of shape %v", shape, in)
	}
	if k := c.known(0); k != nil {
		c.outConst(0, reshaped(k, ext))
		return nil
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.ops().Reshape(x, ext)
	if err != nil {
		return c.wrap(err, "reshaping")
	}
	c.out(0, y)
	return nil
}

// convFlatten: the input as a matrix, the axes before axis (attribute,
// default 1; negative from opset 11) merged into the rows and the rest
// into the columns.
func convFlatten(c *ctx) error {
	axis, err := c.attrInt("axis", 1)
	if err != nil {
		return err
	}
	if k := c.known(0); k != nil {
		r := len(k.dims)
		a := int(axis)
		if a < -r || a > r {
			return c.errorf("axis %d is out of range for rank %d", a, r)
		}
		if a < 0 {
			a += r
		}
		c.outConst(0, reshaped(k, []int{prod(k.dims[:a]), prod(k.dims[a:])}))
		return nil
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.ops().Flatten(x, int(axis))
	if err != nil {
		return c.wrap(err, "flattening")
	}
	c.out(0, y)
	return nil
}

// convTranspose: the axes permuted by perm (attribute; default reversed).
func convTranspose(c *ctx) error {
	perm, ok, err := c.attrInts("perm")
	if err != nil {
		return err
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	if !ok {
		ext, err := c.shapeOf(0)
		if err != nil {
			return err
		}
		for i := len(ext) - 1; i >= 0; i-- {
			perm = append(perm, i)
		}
	}
	y, err := c.ops().Transpose(x, perm)
	if err != nil {
		return c.wrap(err, "perm %v", perm)
	}
	c.out(0, y)
	return nil
}

// axesArg returns the axes of Squeeze, Unsqueeze and the reductions: the
// attribute axes before opset `from`, the optional input 1 from it on.
// ok is false when neither is given.
func (c *ctx) axesArg(from int) ([]int, bool, error) {
	if c.opset < from {
		return c.attrInts("axes")
	}
	if !c.has(1) {
		return nil, false, nil
	}
	t, err := c.constIn(1, "axes")
	if err != nil {
		return nil, false, err
	}
	axes, err := t.ints()
	if err != nil {
		return nil, false, c.wrap(err, "axes")
	}
	return axes, true, nil
}

// normAxes resolves axes (negative from the end) for rank r and sorts
// them.
func (c *ctx) normAxes(axes []int, r int) ([]int, error) {
	out := make([]int, len(axes))
	for i, a := range axes {
		if a < -r || a >= r {
			return nil, c.errorf("axis %d is out of range for rank %d", a, r)
		}
		if a < 0 {
			a += r
		}
		out[i] = a
	}
	slices.Sort(out)
	if len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, c.errorf("axes %v name an axis twice", axes)
	}
	return out, nil
}

// convSqueeze removes axes of extent 1: those of axes (attribute up to
// opset 12, input from 13), or every one when axes is not given.
func convSqueeze(c *ctx) error {
	axes, ok, err := c.axesArg(13)
	if err != nil {
		return err
	}
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	if !ok {
		axes = nil
		for i, e := range ext {
			if e == 1 {
				axes = append(axes, i)
			}
		}
	}
	norm, err := c.normAxes(axes, len(ext))
	if err != nil {
		return err
	}
	if k := c.known(0); k != nil {
		var dims []int
		for i, e := range ext {
			if slices.Contains(norm, i) {
				if e != 1 {
					return c.errorf("axis %d has extent %d; Squeeze removes axes of extent 1 only", i, e)
				}
				continue
			}
			dims = append(dims, e)
		}
		c.outConst(0, reshaped(k, dims))
		return nil
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.ops().Squeeze(x, norm)
	if err != nil {
		return c.wrap(err, "axes %v", axes)
	}
	c.out(0, y)
	return nil
}

// convUnsqueeze inserts axes of extent 1 at the positions axes gives in
// the output (attribute up to opset 12, input from 13; negative counts
// from the output's rank).
func convUnsqueeze(c *ctx) error {
	axes, ok, err := c.axesArg(13)
	if err != nil {
		return err
	}
	if !ok {
		return c.errorf("axes is not given")
	}
	ext, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	norm, err := c.normAxes(axes, len(ext)+len(axes))
	if err != nil {
		return err
	}
	if k := c.known(0); k != nil {
		dims := make([]int, 0, len(ext)+len(norm))
		j := 0
		for i := range len(ext) + len(norm) {
			if slices.Contains(norm, i) {
				dims = append(dims, 1)
			} else {
				dims = append(dims, ext[j])
				j++
			}
		}
		c.outConst(0, reshaped(k, dims))
		return nil
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.ops().Unsqueeze(x, norm)
	if err != nil {
		return c.wrap(err, "axes %v", axes)
	}
	c.out(0, y)
	return nil
}

// convConcat joins the inputs along axis (attribute; negative from opset
// 11). Known inputs fold (the shape vectors exporters build); computed
// ones are joined by nd.Concat, which selects each result block from its
// operand by position (an index input).
func convConcat(c *ctx) error {
	axis64, err := c.attrInt("axis", math.MinInt64)
	if err != nil {
		return err
	}
	if axis64 == math.MinInt64 {
		return c.errorf("attribute axis is not given")
	}
	axis := int(axis64)
	allKnown := true
	for i := range c.nin() {
		if c.known(i) == nil {
			allKnown = false
		}
	}
	if allKnown && c.nin() > 0 {
		return c.foldConcat(axis)
	}
	xs := make([]graph.Node, c.nin())
	for i := range xs {
		if xs[i], err = c.in(i); err != nil {
			return err
		}
	}
	y, err := c.ops().Concat(axis, xs...)
	if err != nil {
		return c.wrap(err, "axis %d", axis)
	}
	c.out(0, y)
	return nil
}

func (c *ctx) foldConcat(axis int) error {
	first := c.known(0)
	r := len(first.dims)
	if axis < -r || axis >= r {
		return c.errorf("axis %d is out of range for rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	dims := slices.Clone(first.dims)
	dims[axis] = 0
	for i := range c.nin() {
		t := c.known(i)
		if len(t.dims) != r || t.elem != first.elem {
			return c.errorf("input %d is %s%v, input 0 %s%v: Concat needs one element type and rank", i, elemName(t.elem), t.dims, elemName(first.elem), first.dims)
		}
		for d := range r {
			if d != axis && t.dims[d] != first.dims[d] {
				return c.errorf("input %d has extent %d on axis %d, input 0 has %d", i, t.dims[d], d, first.dims[d])
			}
		}
		dims[axis] += t.dims[axis]
	}
	out := &tensor{elem: first.elem, dims: dims}
	outer := prod(first.dims[:axis])
	for o := range outer {
		for i := range c.nin() {
			t := c.known(i)
			chunk := prod(t.dims[axis:])
			if isFloatElem(t.elem) {
				out.f = append(out.f, t.f[o*chunk:(o+1)*chunk]...)
			} else {
				out.i = append(out.i, t.i[o*chunk:(o+1)*chunk]...)
			}
		}
	}
	c.outConst(0, out)
	return nil
}

// castTarget reads Cast's attribute to.
func castTarget(n *onnxpb.NodeProto) (int32, bool) {
	a := attr(n, "to")
	if a == nil {
		return 0, false
	}
	return int32(a.GetI()), true
}

// checkCast refuses targets the IR has no type for.
func checkCast(n *onnxpb.NodeProto, _ int) string {
	to, ok := castTarget(n)
	if !ok {
		return "attribute to is not given"
	}
	if _, ok := dtypeOf(to); !ok {
		return fmt.Sprintf("a cast to %s is not supported (float, double, the integer types as i32, and bool are)", elemName(to))
	}
	return ""
}

// convCast converts the input's elements to the type of attribute to:
// float to f32, double to f64, the integer types to i32 (rounding toward
// zero), bool to bool (x != 0). A known input folds, keeping the ONNX
// type, so shape computations stay exact.
func convCast(c *ctx) error {
	to, _ := castTarget(c.node)
	if k := c.known(0); k != nil {
		out := &tensor{elem: to, dims: k.dims}
		n := k.size()
		for j := range n {
			v := k.at(j)
			switch {
			case to == tFloat:
				out.f = append(out.f, float64(float32(v)))
			case to == tDouble:
				out.f = append(out.f, v)
			case to == tBool:
				b := int64(0)
				if v != 0 {
					b = 1
				}
				out.i = append(out.i, b)
			default:
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return c.errorf("element %d is %v, which has no integer value", j, v)
				}
				out.i = append(out.i, int64(math.Trunc(v)))
			}
		}
		c.outConst(0, out)
		return nil
	}
	dt, _ := dtypeOf(to)
	x, err := c.in(0)
	if err != nil {
		return err
	}
	y, err := c.ops().Cast(x, dt)
	if err != nil {
		return c.wrap(err, "to %s", elemName(to))
	}
	c.out(0, y)
	return nil
}

// convExpand (opset 8): the input broadcast with the known shape input
// 1, both ways as NumPy broadcasts (a target extent of 1 keeps the
// input's extent).
func convExpand(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	st, err := c.constIn(1, "shape")
	if err != nil {
		return err
	}
	shape, err := st.ints()
	if err != nil {
		return c.wrap(err, "input shape")
	}
	xs, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	r := max(len(xs), len(shape))
	out := make([]int, r)
	for k := range r {
		a, b := 1, 1
		if j := k - (r - len(xs)); j >= 0 {
			a = xs[j]
		}
		if j := k - (r - len(shape)); j >= 0 {
			b = shape[j]
		}
		switch {
		case b < 1 || b > graph.MaxExtent:
			return c.errorf("shape %v has extent %d; extents must be between 1 and %d", shape, b, graph.MaxExtent)
		case a == b || b == 1:
			out[k] = a
		case a == 1:
			out[k] = b
		default:
			return c.errorf("input of shape %v does not broadcast with shape %v (axis %d: %d and %d)", xs, shape, k, a, b)
		}
	}
	y, err := c.ops().Stretch(x, out)
	if err != nil {
		return c.wrap(err, "broadcasting to %v", out)
	}
	c.out(0, y)
	return nil
}

// convTile (opset 6): the input repeated along each axis as often as the
// known input repeats says (one count per axis, at least 1). Axis i of
// extent d repeated r times becomes the axes [r, d], stretched from
// [1, d], merged into one of extent r·d (nd.Tile).
func convTile(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	rt, err := c.constIn(1, "repeats")
	if err != nil {
		return err
	}
	reps, err := rt.ints()
	if err != nil {
		return c.wrap(err, "input repeats")
	}
	xs, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	if len(reps) != len(xs) {
		return c.errorf("repeats %v has %d entries for an input of rank %d", reps, len(reps), len(xs))
	}
	for i, r := range reps {
		if r < 1 {
			return c.errorf("repeats %v: %d for axis %d; the IR's arrays have at least one element on every axis", reps, r, i)
		}
		if xs[i] > graph.MaxExtent/r {
			return c.errorf("repeats %v: axis %d of extent %d becomes longer than %d", reps, i, xs[i], graph.MaxExtent)
		}
	}
	y, err := c.ops().Tile(x, reps)
	if err != nil {
		return c.wrap(err, "tile")
	}
	c.out(0, y)
	return nil
}

// convSplit: the input cut along axis (default 0) into one part per
// output. The parts' extents are attribute split (up to opset 12) or the
// known input 1 (from 13); without them the axis is cut into equal
// parts, which must divide it, or from opset 18 with attribute
// num_outputs into parts of ⌈extent/num_outputs⌉, the last one smaller.
// Each part is a crop of the input.
func convSplit(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	xs, err := c.shapeOf(0)
	if err != nil {
		return err
	}
	r := len(xs)
	axis64, err := c.attrInt("axis", 0)
	if err != nil {
		return err
	}
	axis := int(axis64)
	if axis < -r || axis >= r {
		return c.errorf("axis %d is out of range for rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	n := xs[axis]
	nout := len(c.node.GetOutput())
	var split []int
	if c.opset < 13 {
		if split, _, err = c.attrInts("split"); err != nil {
			return err
		}
	} else if c.has(1) {
		t, err := c.constIn(1, "split")
		if err != nil {
			return err
		}
		if split, err = t.ints(); err != nil {
			return c.wrap(err, "input split")
		}
	}
	if split == nil {
		parts := nout
		if a := attr(c.node, "num_outputs"); a != nil && c.opset >= 18 {
			if parts = int(a.GetI()); parts != nout {
				return c.errorf("num_outputs is %d and the node has %d outputs", parts, nout)
			}
		}
		if parts < 1 {
			return c.errorf("no outputs")
		}
		size := n / parts
		if n%parts != 0 {
			if c.opset < 18 {
				return c.errorf("axis %d of extent %d does not split into %d equal parts; give split", axis, n, parts)
			}
			size = (n + parts - 1) / parts
		}
		for i := range parts {
			split = append(split, min(size, n-i*size))
		}
	}
	if len(split) != nout {
		return c.errorf("split %v has %d parts for %d outputs", split, len(split), nout)
	}
	sum := 0
	for _, e := range split {
		if e < 1 {
			return c.errorf("split %v has a part of extent %d; the IR's arrays have at least one element on every axis", split, e)
		}
		sum += e
	}
	if sum != n {
		return c.errorf("split %v adds up to %d, not the extent %d of axis %d", split, sum, n, axis)
	}
	lo := 0
	for i, e := range split {
		y := x
		if e != n {
			if y, err = c.view(graph.CropView{Axis: axis, Lo: lo, Hi: n - lo - e}, x); err != nil {
				return err
			}
		}
		c.out(i, y)
		lo += e
	}
	return nil
}
