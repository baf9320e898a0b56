package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// The shape ops and reductions read an operand that must be known at
// import time (a shape, an axis list) from a constant; a computed one is an
// error naming the input.

// constInts returns the integer constant v, an input of the node named
// what ("shape", "reduction_indices"), as a flat list: a scalar gives one
// element.
func constInts(v value, what string) ([]int64, error) {
	if v.konst == nil {
		return nil, fmt.Errorf("input %s is computed by the graph; hofuse needs it constant at import time (a Const)", what)
	}
	ints, ok := v.konst.ints()
	if !ok || len(v.konst.shape) > 1 {
		return nil, fmt.Errorf("input %s is a %s tensor of shape %v; it must be an int32 or int64 scalar or vector", what, dtypeName(v.konst.dtype), v.konst.shape)
	}
	return ints, nil
}

// axes converts constant axes to ints, each in [-rank, rank).
func axes(v value, what string, rank int) ([]int, error) {
	ints, err := constInts(v, what)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ints))
	for i, a := range ints {
		if a < int64(-rank) || a >= int64(rank) {
			return nil, fmt.Errorf("%s %v: axis %d is out of range for rank %d", what, ints, a, rank)
		}
		out[i] = int(a)
	}
	return out, nil
}

// reduction returns the converter of a reduction of the given kind.
func reduction(kind nd.ReduceKind) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		keep, err := attrBool(n, "keep_dims", false)
		if err != nil {
			return nil, err
		}
		ax, err := axes(in[1], "reduction_indices", rankOf(in[0].typ))
		if err != nil {
			return nil, err
		}
		x, err := c.data(in[0])
		if err != nil {
			return nil, err
		}
		if len(ax) == 0 {
			return one(value{term: x, typ: in[0].typ}), nil
		}
		return c.result(nd.Ops{Source: n.name}.Reduce(kind, x, ax, keep))
	}
}

// convMean converts Mean(input, reduction_indices; keep_dims): the mean
// over the axes (a scalar or a vector, negative counting from the end),
// which are kept with extent 1 when keep_dims is set. No axes returns the
// input.
var convMean = reduction(nd.Mean)

// convSum converts Sum(input, reduction_indices; keep_dims): the sum over
// the axes, as Mean.
var convSum = reduction(nd.Sum)

// convMax converts Max(input, reduction_indices; keep_dims): the maximum
// over the axes, as Mean; NaN if any element reduced is NaN.
var convMax = reduction(nd.Max)

// convReshape converts Reshape(tensor, shape): tensor's elements, row-major,
// in the shape given by a constant; one entry may be -1, inferred from the
// element count. A view of a row-major operand; a constant tensor is
// reshaped at import.
func convReshape(c *converter, n *node, in []value) ([]value, error) {
	ints, err := constInts(in[1], "shape")
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(ints))
	for i, e := range ints {
		if e < -1 || e > graph.MaxExtent {
			return nil, fmt.Errorf("shape %v: entry %d is %d; want -1 or an extent from 1 to %d", ints, i, e, int64(graph.MaxExtent))
		}
		shape[i] = int(e)
	}
	// TensorFlow's 0 is a literal empty axis, not ONNX's "copy": allowZero.
	ext, err := nd.ResolveShape(extentsOf(in[0].typ), shape, true)
	if err != nil {
		return nil, err
	}
	if in[0].konst != nil && in[0].term == nil {
		return one(c.reshapeConst(n, in[0], ext)), nil
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	if len(ext) == 0 {
		return c.result(nd.Ops{Source: n.name}.Reshape(x, nil))
	}
	return c.result(nd.Ops{Source: n.name}.Reshape(x, ext))
}

// convSqueeze converts Squeeze(input; squeeze_dims): input without the
// listed axes, each of extent 1, or without every axis of extent 1 when
// the list is empty.
func convSqueeze(c *converter, n *node, in []value) ([]value, error) {
	dims, err := attrInts(n, "squeeze_dims")
	if err != nil {
		return nil, err
	}
	ext := extentsOf(in[0].typ)
	r := len(ext)
	drop := make([]bool, r)
	if len(dims) == 0 {
		for i, e := range ext {
			drop[i] = e == 1
		}
	}
	for _, d := range dims {
		if d < int64(-r) || d >= int64(r) {
			return nil, fmt.Errorf("squeeze_dims %v: axis %d is out of range for rank %d", dims, d, r)
		}
		if d < 0 {
			d += int64(r)
		}
		if ext[d] != 1 {
			return nil, fmt.Errorf("squeeze_dims %v: axis %d of input %v has extent %d, not 1", dims, d, in[0].typ, ext[d])
		}
		drop[d] = true
	}
	var kept, axesList []int
	for i, e := range ext {
		if drop[i] {
			axesList = append(axesList, i)
		} else {
			kept = append(kept, e)
		}
	}
	if len(axesList) == 0 {
		return one(in[0]), nil
	}
	if in[0].konst != nil && in[0].term == nil {
		return one(c.reshapeConst(n, in[0], kept)), nil
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.Squeeze(x, axesList))
}

// convExpandDims converts ExpandDims(input, axis): input with an axis of
// extent 1 inserted at position axis of the result, from -rank-1 to rank
// (negative counts from the end: -1 appends). A constant input is reshaped
// at import; a computed scalar cannot gain an axis in the IR.
func convExpandDims(c *converter, n *node, in []value) ([]value, error) {
	ints, err := constInts(in[1], "axis")
	if err != nil {
		return nil, err
	}
	if len(ints) != 1 {
		return nil, fmt.Errorf("axis %v: want one axis", ints)
	}
	ext := extentsOf(in[0].typ)
	r := len(ext)
	a := ints[0]
	if a < int64(-r-1) || a > int64(r) {
		return nil, fmt.Errorf("axis %d is out of range for an input of rank %d (from %d to %d)", a, r, -r-1, r)
	}
	if a < 0 {
		a += int64(r) + 1
	}
	if in[0].konst != nil && in[0].term == nil {
		out := append(append(append([]int(nil), ext[:a]...), 1), ext[a:]...)
		return one(c.reshapeConst(n, in[0], out)), nil
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.Unsqueeze(x, []int{int(a)}))
}

// reshapeConst returns the constant v with the extents ext (of the same
// element count), as node n's own constant: read as data, it becomes a
// parameter named after n.
func (c *converter) reshapeConst(n *node, v value, ext []int) value {
	t := *v.konst
	t.shape = ext
	dt := elemOf(v.typ)
	var typ graph.Type = graph.Scalar(dt)
	if len(ext) > 0 {
		typ = graph.ArrayOf(dt, ext...)
	}
	return value{typ: typ, konst: &t, from: n}
}
