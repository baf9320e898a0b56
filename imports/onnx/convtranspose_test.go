package onnx

import (
	"errors"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// TestConvTransposeHostile imports ConvTranspose nodes with hostile
// attributes (huge or zero strides, dilations, pads, output shapes and
// output paddings, odd groups): each gives an *imports.Error naming the
// node, or a model whose term checks; none panics or allocates its
// output.
func TestConvTransposeHostile(t *testing.T) {
	const huge = int64(1) << 40
	for _, attrs := range [][]*onnxpb.AttributeProto{
		{aInts("strides", huge, 1)},
		{aInts("strides", 0, 1)},
		{aInts("dilations", huge, huge)},
		{aInts("pads", huge, 0, 0, 0)},
		{aInts("pads", 0, 0, huge, huge)},
		{aInts("pads", -1, 0, 0, 0)},
		{aInts("output_shape", huge, huge)},
		{aInts("output_shape", 0, 4)},
		{aInts("output_shape", 1, 1)},
		{aInts("output_shape", 3)},
		{aInts("output_padding", huge, 0), aInts("strides", huge, 1)},
		{aInts("output_padding", -1, 0)},
		{aInt("group", 0)},
		{aInt("group", -3)},
		{aInt("group", huge)},
		{aInts("kernel_shape", 3, 3)},
		{aString("auto_pad", "SAME_UPPER"), aInts("strides", huge, 2)},
		{aString("auto_pad", "EVERYWHERE")},
	} {
		b := newModel(13).input("x", tFloat, 1, 2, 3, 3).output("y").
			initF("w", []int64{2, 1, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8).
			node("ConvTranspose", "up", []string{"x", "w"}, []string{"y"}, attrs...)
		m, err := ImportBytes(b.bytes(t), "t.onnx", imports.Options{})
		if err != nil {
			var ie *imports.Error
			if !errors.As(err, &ie) || ie.Node != "up" {
				t.Errorf("%v: error %T %v, want an *imports.Error at node up", attrs, err, err)
			}
			continue
		}
		if _, err := graph.Check(m.Term); err != nil {
			t.Errorf("%v: the term does not check: %v", attrs, err)
		}
	}
}
