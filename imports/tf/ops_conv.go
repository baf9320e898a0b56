package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	ops["Conv2D"] = opDef{arity: 2, outputs: 1, check: checkWindowed, convert: convConv2D(false)}
	ops["DepthwiseConv2dNative"] = opDef{arity: 2, outputs: 1, check: checkWindowed, convert: convConv2D(true)}
	ops["MaxPool"] = opDef{arity: 1, outputs: 1, check: checkWindowed, convert: convTFPool(true)}
	ops["AvgPool"] = opDef{arity: 1, outputs: 1, check: checkWindowed, convert: convTFPool(false)}
}

// checkWindowed refuses what the convolutions and poolings do not take:
// a layout other than NHWC, and a padding other than SAME, VALID and
// EXPLICIT (the poolings: SAME and VALID).
func checkWindowed(n *node) string {
	if why := checkNHWC(n); why != "" {
		return why
	}
	p, err := attrString(n, "padding", "")
	if err != nil {
		return err.Error()
	}
	switch {
	case p == "SAME" || p == "VALID":
	case p == "EXPLICIT" && (n.op == "Conv2D" || n.op == "DepthwiseConv2dNative" || n.op == "Conv2DBackpropInput"):
	default:
		return fmt.Sprintf("padding %q is not supported (SAME, VALID or, for a convolution, EXPLICIT)", p)
	}
	return ""
}

// windowOpts reads strides, dilations and padding, given per NHWC axis
// ([1, h, w, 1]), into layers' options, channels last.
func windowOpts(n *node, pooling bool) (layers.ConvOptions, error) {
	opt := layers.ConvOptions{Format: layers.ChannelsLast}
	spatial := func(key string, def int64) ([]int, error) {
		v, err := attrInts(n, key)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return []int{int(def), int(def)}, nil
		}
		if len(v) != 4 || v[0] != 1 || v[3] != 1 {
			return nil, fmt.Errorf("%s %v: want 4 values [1, height, width, 1]", key, v)
		}
		return []int{int(v[1]), int(v[2])}, nil
	}
	var err error
	if opt.Strides, err = spatial("strides", 1); err != nil {
		return opt, err
	}
	if !pooling {
		if opt.Dilations, err = spatial("dilations", 1); err != nil {
			return opt, err
		}
	}
	p, err := attrString(n, "padding", "")
	if err != nil {
		return opt, err
	}
	switch p {
	case "SAME":
		opt.Padding = layers.PadSame
	case "EXPLICIT":
		e, err := attrInts(n, "explicit_paddings")
		if err != nil {
			return opt, err
		}
		if len(e) != 8 || e[0] != 0 || e[1] != 0 || e[6] != 0 || e[7] != 0 {
			return opt, fmt.Errorf("explicit_paddings %v: want 8 values, padding the height and width only", e)
		}
		opt.Padding = layers.PadExplicit
		opt.Pads = []int{int(e[2]), int(e[3]), int(e[4]), int(e[5])}
	}
	return opt, nil
}

// convConv2D converts Conv2D(input [N, H, W, C], filter [kh, kw, C/g,
// out]) — grouped when the filter takes fewer channels than the input has
// — and, with depthwise, DepthwiseConv2dNative(input, filter [kh, kw, C,
// m]), the convolution of each channel with its m filters, output channel
// c*m + k: a convolution of C groups whose filter is the same tensor read
// as [kh, kw, 1, C*m].
func convConv2D(depthwise bool) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		x, err := c.floatData(in[0], "input")
		if err != nil {
			return nil, err
		}
		k, err := c.floatData(in[1], "filter")
		if err != nil {
			return nil, err
		}
		xe, ke := extentsOf(in[0].typ), extentsOf(in[1].typ)
		if len(xe) != 4 || len(ke) != 4 {
			return nil, fmt.Errorf("input %v and filter %v: want rank 4, [N, H, W, C] and [kh, kw, in, out]", in[0].typ, in[1].typ)
		}
		opt, err := windowOpts(n, false)
		if err != nil {
			return nil, err
		}
		channels, out := xe[3], ke[3]
		if depthwise {
			if ke[2] != channels {
				return nil, fmt.Errorf("filter %v has %d input channels, the input %v has %d", in[1].typ, ke[2], in[0].typ, channels)
			}
			out = channels * ke[3]
			if k, err = (nd.Ops{Source: n.name}).Reshape(k, []int{ke[0], ke[1], 1, out}); err != nil {
				return nil, err
			}
			opt.Groups = channels
		} else {
			if ke[2] < 1 || channels%ke[2] != 0 {
				return nil, fmt.Errorf("filter %v takes %d input channels, which do not divide the %d of the input %v", in[1].typ, ke[2], channels, in[0].typ)
			}
			opt.Groups = channels / ke[2]
		}
		return c.result(layers.ConvWith(n.name, x, k, nil, channels, out, ke[:2], elemOf(in[0].typ), opt))
	}
}

// convTFPool converts MaxPool and AvgPool(value [N, H, W, C]; ksize [1,
// kh, kw, 1], strides, padding SAME or VALID). AvgPool divides by the
// elements of each window inside the input, as TensorFlow does with SAME.
func convTFPool(isMax bool) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		x, err := c.floatData(in[0], "value")
		if err != nil {
			return nil, err
		}
		if r := rankOf(in[0].typ); r != 4 {
			return nil, fmt.Errorf("value %v has rank %d; want [N, H, W, C]", in[0].typ, r)
		}
		ks, err := attrInts(n, "ksize")
		if err != nil {
			return nil, err
		}
		if len(ks) != 4 || ks[0] != 1 || ks[3] != 1 {
			return nil, fmt.Errorf("ksize %v: want 4 values [1, height, width, 1]", ks)
		}
		opt, err := windowOpts(n, true)
		if err != nil {
			return nil, err
		}
		window := [2]int{int(ks[1]), int(ks[2])}
		var y graph.Node
		if isMax {
			y, err = layers.MaxPool2D(n.name, x, window, opt)
		} else {
			y, err = layers.AvgPool2D(n.name, x, window, opt)
		}
		return c.result(y, err)
	}
}
