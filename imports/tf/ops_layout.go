package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

func init() {
	ops["Pad"] = opDef{arity: 2, outputs: 1, convert: convPad}
	ops["PadV2"] = opDef{arity: 3, outputs: 1, convert: convPad}
	ops["MirrorPad"] = opDef{arity: 2, outputs: 1, check: checkMirrorPad}
	ops["Transpose"] = opDef{arity: 2, outputs: 1, convert: convTranspose}
	ops["Cast"] = opDef{arity: 1, outputs: 1, check: checkCast, convert: convCast}
}

// convPad converts Pad(input, paddings) and PadV2(input, paddings,
// constant_values): paddings a constant [rank, 2] of the elements to add
// before and after each axis (Keras's ZeroPadding2D), filled with 0 or
// with the scalar constant_values.
func convPad(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	r := rankOf(in[0].typ)
	p := in[1].konst
	if p == nil {
		return nil, fmt.Errorf("input paddings is computed by the graph; hofuse needs it constant at import time (a Const)")
	}
	ints, ok := p.ints()
	if !ok || len(p.shape) != 2 || p.shape[0] != r || p.shape[1] != 2 {
		return nil, fmt.Errorf("input paddings is a %s tensor of shape %v; want int32 or int64 of shape [%d 2] for an input of rank %d", dtypeName(p.dtype), p.shape, r, r)
	}
	axes, lo, hi := make([]int, r), make([]int, r), make([]int, r)
	for i := range r {
		axes[i], lo[i], hi[i] = i, int(ints[2*i]), int(ints[2*i+1])
		if lo[i] < 0 || hi[i] < 0 {
			return nil, fmt.Errorf("paddings %v: TensorFlow pads by amounts of at least 0; axis %d has %d and %d", ints, i, lo[i], hi[i])
		}
	}
	value := 0.0
	if len(in) == 3 {
		k := in[2].konst
		if k == nil || k.size() != 1 || len(k.shape) != 0 {
			return nil, fmt.Errorf("input constant_values must be a constant scalar (a Const)")
		}
		value = k.at(0)
	}
	return c.result(nd.Ops{Source: n.name}.Pad(x, axes, lo, hi, value))
}

// checkMirrorPad refuses MirrorPad, whatever its mode: reflecting an axis
// needs a reversed view, which the IR does not have.
func checkMirrorPad(n *node) string {
	mode, err := attrString(n, "mode", "REFLECT")
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("mode %s is not supported: hofuse pads with a constant only (Pad, PadV2), the IR having no reversed view to mirror an axis with", mode)
}

// convTranspose converts Transpose(x, perm): axis i of the result is axis
// perm[i] of x, perm a constant; a view, no copy.
func convTranspose(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	ints, err := constInts(in[1], "perm")
	if err != nil {
		return nil, err
	}
	perm := make([]int, len(ints))
	for i, v := range ints {
		perm[i] = int(v)
	}
	return c.result(nd.Ops{Source: n.name}.Transpose(x, perm))
}

// checkCast refuses a Cast to a type hofuse does not compute in.
func checkCast(n *node) string {
	dst, present, err := attrType(n, "DstT")
	switch {
	case err != nil:
		return err.Error()
	case !present:
		return "attribute DstT is missing"
	}
	if _, err := elemType(dst); err != nil {
		return "DstT: " + err.Error()
	}
	return ""
}

// convCast converts Cast(x; DstT): each element converted to DstT (float
// to int truncates toward zero; to bool, nonzero is true). A constant is
// converted when the graph is read (the shape arithmetic of exports);
// int64 is hofuse's int32, as for constants.
func convCast(c *converter, n *node, in []value) ([]value, error) {
	dst, _, err := attrType(n, "DstT")
	if err != nil {
		return nil, err
	}
	dt, err := elemType(dst)
	if err != nil {
		return nil, err
	}
	if k := in[0].konst; k != nil && in[0].term == nil {
		if ints, ok := k.ints(); ok && (dst == tfpb.DataType_DT_INT32 || dst == tfpb.DataType_DT_INT64) {
			t := &tensor{dtype: dst, shape: k.shape}
			if dst == tfpb.DataType_DT_INT64 {
				t.i64 = ints
			} else {
				t.i32 = make([]int32, len(ints))
				for i, v := range ints {
					t.i32[i] = int32(v)
				}
			}
			var typ graph.Type = graph.Scalar(dt)
			if len(k.shape) > 0 {
				typ = graph.ArrayOf(dt, k.shape...)
			}
			return one(value{typ: typ, konst: t, from: n}), nil
		}
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	return c.result(nd.Ops{Source: n.name}.Cast(x, dt))
}
