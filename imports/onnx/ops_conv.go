package onnx

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	register(
		&converter{op: "Conv", since: 1, check: checkConv, convert: convConv},
		&converter{op: "MaxPool", since: 1, check: checkPool, convert: convPool(true)},
		&converter{op: "AveragePool", since: 1, check: checkPool, convert: convPool(false)},
		&converter{op: "GlobalAveragePool", since: 1, convert: convGlobalAveragePool},
		&converter{op: "GlobalMaxPool", since: 1, convert: convGlobalMaxPool},
		&converter{op: "LRN", since: 1, convert: convLRN},
		&converter{op: "Pad", since: 2, until: 10, check: checkPad, convert: convPad},
		&converter{op: "Pad", since: 11, check: checkPad, needKnown: []int{1, 2, 3}, convert: convPad},
	)
}

// maxSpatial is the most spatial axes a convolution or pooling takes.
const maxSpatial = 3

// checkConv refuses a kernel of more than three spatial axes.
func checkConv(n *onnxpb.NodeProto, _ int) string {
	if a := attr(n, "kernel_shape"); a != nil && len(a.GetInts()) > maxSpatial {
		return fmt.Sprintf("a kernel of %d spatial axes; one- to three-dimensional convolutions are supported", len(a.GetInts()))
	}
	return ""
}

// checkPool refuses what the poolings do not support: the Indices
// output, windows of more than three axes.
func checkPool(n *onnxpb.NodeProto, _ int) string {
	if o := n.GetOutput(); len(o) > 1 && o[1] != "" {
		return "the Indices output is not supported"
	}
	if a := attr(n, "kernel_shape"); a != nil && len(a.GetInts()) > maxSpatial {
		return fmt.Sprintf("a window of %d spatial axes; one- to three-dimensional poolings are supported", len(a.GetInts()))
	}
	return ""
}

// checkPad refuses the modes other than constant.
func checkPad(n *onnxpb.NodeProto, _ int) string {
	if a := attr(n, "mode"); a != nil && string(a.GetS()) != "constant" {
		return fmt.Sprintf("mode %q is not supported; hofuse pads in constant mode only", a.GetS())
	}
	return ""
}

// spatialInts reads the attribute name, one value per spatial axis of n,
// def for each when it is absent; every value must be at least least.
func (c *ctx) spatialInts(name string, n, def, least int) ([]int, error) {
	v, set, err := c.attrInts(name)
	if err != nil {
		return nil, err
	}
	if !set {
		v = make([]int, n)
		for i := range v {
			v[i] = def
		}
	}
	if len(v) != n {
		return nil, c.errorf("attribute %s %v has %d values for %d spatial axes", name, v, len(v), n)
	}
	for _, x := range v {
		if x < least {
			return nil, c.errorf("attribute %s %v: every value must be at least %d", name, v, least)
		}
	}
	return v, nil
}

// windowArgs reads the attributes ONNX's Conv, MaxPool and AveragePool
// share for an input of the given spatial extents and a kernel of the
// given extents: strides, dilations (from opset 10 for the poolings), and
// the padding, auto_pad resolved into explicit pads before and after each
// axis in layers' order.
func (c *ctx) windowArgs(spatial, kernel []int) (layers.ConvOptions, error) {
	n := len(spatial)
	opt := layers.ConvOptions{Format: layers.ChannelsFirst, Padding: layers.PadExplicit}
	ints := func(name string, def int) ([]int, error) { return c.spatialInts(name, n, def, 1) }
	var err error
	if opt.Strides, err = ints("strides", 1); err != nil {
		return opt, err
	}
	if c.node.GetOpType() == "Conv" || c.opset >= 10 {
		if opt.Dilations, err = ints("dilations", 1); err != nil {
			return opt, err
		}
	}
	auto, err := c.attrString("auto_pad", "NOTSET")
	if err != nil {
		return opt, err
	}
	opt.Pads = make([]int, 2*n)
	switch auto {
	case "NOTSET":
		p, set, err := c.attrInts("pads")
		if err != nil {
			return opt, err
		}
		if set {
			if len(p) != 2*n {
				return opt, c.errorf("attribute pads %v has %d values for %d spatial axes, want %d", p, len(p), n, 2*n)
			}
			for i := range n {
				if p[i] < 0 || p[n+i] < 0 {
					return opt, c.errorf("attribute pads %v: negative padding is not supported", p)
				}
				opt.Pads[2*i], opt.Pads[2*i+1] = p[i], p[n+i]
			}
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		for i := range n {
			span := kernel[i]
			if opt.Dilations != nil {
				span = (kernel[i]-1)*opt.Dilations[i] + 1
			}
			out := (spatial[i] + opt.Strides[i] - 1) / opt.Strides[i]
			total := max((out-1)*opt.Strides[i]+span-spatial[i], 0)
			lo := total / 2
			if auto == "SAME_LOWER" {
				lo = total - total/2
			}
			opt.Pads[2*i], opt.Pads[2*i+1] = lo, total-lo
		}
	default:
		return opt, c.errorf("auto_pad %q is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", auto)
	}
	return opt, nil
}

// convInput returns input 0 of a convolution, X [N, C, D1, …] of one to
// three spatial axes, with its element type and extents; what names the
// operator's kind in the error.
func (c *ctx) convInput(what string) (graph.Node, graph.DType, []int, error) {
	x, err := c.in(0)
	if err != nil {
		return nil, 0, nil, err
	}
	dt, ext, err := nd.Shape(x)
	if err != nil {
		return nil, 0, nil, c.wrap(err, "input X")
	}
	if len(ext) < 3 || len(ext) > 2+maxSpatial {
		return nil, 0, nil, c.errorf("input X has shape %v: one- to three-dimensional %s ([N, C, L] to [N, C, D, H, W]) are supported", ext, what)
	}
	return x, dt, ext, nil
}

// checkKernelShape refuses a kernel_shape attribute that differs from the
// spatial extents of W, of shape wext.
func (c *ctx) checkKernelShape(wext []int) error {
	if ks, set, err := c.attrInts("kernel_shape"); err != nil {
		return err
	} else if set && !slices.Equal(ks, wext[2:]) {
		return c.errorf("kernel_shape %v does not match W's shape %v", ks, wext)
	}
	return nil
}

// convConv: Conv of X [N, C, D1, …] with W [M, C/group, k1, …] (one to
// three spatial axes) and the optional bias B [M], through
// layers.ConvWith (channels first).
func convConv(c *ctx) error {
	x, dt, ext, err := c.convInput("convolutions")
	if err != nil {
		return err
	}
	w, err := c.in(1)
	if err != nil {
		return err
	}
	wext, err := c.shapeOf(1)
	if err != nil {
		return err
	}
	if len(wext) != len(ext) {
		return c.errorf("input W has shape %v, want rank %d like X %v", wext, len(ext), ext)
	}
	kernel := wext[2:]
	if err := c.checkKernelShape(wext); err != nil {
		return err
	}
	var b graph.Node
	if c.has(2) {
		if b, err = c.in(2); err != nil {
			return err
		}
	}
	g, err := c.attrInt("group", 1)
	if err != nil {
		return err
	}
	opt, err := c.windowArgs(ext[2:], kernel)
	if err != nil {
		return err
	}
	opt.Groups = int(g)
	if g >= 1 && ext[1] != int(g)*wext[1] {
		return c.errorf("X has %d channels but W %v takes %d per group in %d groups", ext[1], wext, wext[1], g)
	}
	y, err := layers.ConvWith(c.name, x, w, b, ext[1], wext[0], kernel, dt, opt)
	if err != nil {
		return c.wrap(err, "conv")
	}
	c.out(0, y)
	return nil
}

// convPool converts MaxPool (max) and AveragePool: windows of
// kernel_shape over X [N, C, D1, …] (one to three spatial axes), with the
// strides, dilations, padding and ceil_mode attributes; AveragePool's
// count_include_pad (default 0) says whether padding counts in the
// divisor.
func convPool(isMax bool) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.in(0)
		if err != nil {
			return err
		}
		_, ext, err := nd.Shape(x)
		if err != nil {
			return c.wrap(err, "input X")
		}
		if len(ext) < 3 || len(ext) > 2+maxSpatial {
			return c.errorf("input X has shape %v: one- to three-dimensional poolings ([N, C, L] to [N, C, D, H, W]) are supported", ext)
		}
		kernel, set, err := c.attrInts("kernel_shape")
		if err != nil {
			return err
		}
		if !set || len(kernel) != len(ext)-2 {
			return c.errorf("kernel_shape %v, want one extent per spatial axis of X %v", kernel, ext)
		}
		opt, err := c.windowArgs(ext[2:], kernel)
		if err != nil {
			return err
		}
		ceil, err := c.attrInt("ceil_mode", 0)
		if err != nil {
			return err
		}
		opt.CeilMode = ceil != 0
		var y graph.Node
		if isMax {
			y, err = layers.MaxPool(c.name, x, kernel, opt)
		} else {
			inc, err := c.attrInt("count_include_pad", 0)
			if err != nil {
				return err
			}
			opt.CountIncludePad = inc != 0
			y, err = layers.AvgPool(c.name, x, kernel, opt)
			if err != nil {
				return c.wrap(err, "pool")
			}
		}
		if err != nil {
			return c.wrap(err, "pool")
		}
		c.out(0, y)
		return nil
	}
}

// convGlobalAveragePool: the mean over the spatial axes of X [N, C, ...],
// kept as axes of extent 1: [N, C, 1, ...].
func convGlobalAveragePool(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	_, ext, err := nd.Shape(x)
	if err != nil {
		return c.wrap(err, "input X")
	}
	y, err := layers.GlobalAveragePool(c.name, x, layers.ChannelsFirst)
	if err != nil {
		return c.wrap(err, "pool")
	}
	axes := make([]int, len(ext)-2)
	for i := range axes {
		axes[i] = i + 2
	}
	if y, err = c.ops().Unsqueeze(y, axes); err != nil {
		return c.wrap(err, "keepdims")
	}
	c.out(0, y)
	return nil
}

// convGlobalMaxPool: the largest element over the spatial axes of X [N,
// C, ...], kept as axes of extent 1: [N, C, 1, ...]. NaN propagates.
func convGlobalMaxPool(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	_, ext, err := nd.Shape(x)
	if err != nil {
		return c.wrap(err, "input X")
	}
	if len(ext) < 3 {
		return c.errorf("input X has shape %v, want rank 3 or more ([N, C, D1, …])", ext)
	}
	axes := make([]int, len(ext)-2)
	for i := range axes {
		axes[i] = i + 2
	}
	y, err := c.ops().Reduce(nd.Max, x, axes, true)
	if err != nil {
		return c.wrap(err, "pool")
	}
	c.out(0, y)
	return nil
}

// convLRN: local response normalization across channels of X [N, C, …]:
//
//	square_sum[n, c, …] = Σ x[n, i, …]² for i from max(0, c − ⌊(size−1)/2⌋) to min(C−1, c + ⌈(size−1)/2⌉)
//	Y = X / (bias + alpha/size · square_sum)^beta
//
// (size required, alpha 1e-4, beta 0.75, bias 1). The window sum is
// size shifted views of the squares padded with zeros along the channels.
func convLRN(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	_, ext, err := nd.Shape(x)
	if err != nil {
		return c.wrap(err, "input X")
	}
	if len(ext) < 3 {
		return c.errorf("input X has shape %v, want rank 3 or more ([N, C, D1, …])", ext)
	}
	size, err := c.attrInt("size", 0)
	if err != nil {
		return err
	}
	if size < 1 || size > maxLRNSize {
		return c.errorf("attribute size is %d, want between 1 and %d", size, maxLRNSize)
	}
	alpha, err := c.attrFloat("alpha", 1e-4)
	if err != nil {
		return err
	}
	beta, err := c.attrFloat("beta", 0.75)
	if err != nil {
		return err
	}
	bias, err := c.attrFloat("bias", 1)
	if err != nil {
		return err
	}
	n := int(size)
	lo, hi := (n-1)/2, n/2 // ⌊(size−1)/2⌋ and ⌈(size−1)/2⌉
	sq, err := c.ops().Map(x, func(b *layers.Builder, v graph.Node) graph.Node { return b.Mul(v, v) })
	if err != nil {
		return c.wrap(err, "squares")
	}
	padded, err := c.view(graph.PadView{Axis: 1, Lo: lo, Hi: hi, Fill: graph.FillZero}, sq)
	if err != nil {
		return err
	}
	// Shift j reads channel c − lo + j of the squares: padded cropped by
	// j before and size − 1 − j after.
	args := []graph.Node{x}
	for j := range n {
		s := padded
		if j > 0 || n-1-j > 0 {
			if s, err = c.view(graph.CropView{Axis: 1, Lo: j, Hi: n - 1 - j}, padded); err != nil {
				return err
			}
		}
		args = append(args, s)
	}
	y, err := c.ops().ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node {
		sum := vs[1]
		for _, v := range vs[2:] {
			sum = b.Add(sum, v)
		}
		den := b.Add(b.Const(bias), b.Mul(b.Const(alpha/float64(n)), sum))
		return b.Div(vs[0], b.Call(graph.Pow, den, b.Const(beta)))
	}, args...)
	if err != nil {
		return c.wrap(err, "normalizing")
	}
	c.out(0, y)
	return nil
}

// maxLRNSize bounds LRN's window: the term adds one view per channel of
// it.
const maxLRNSize = 64

// convPad: Pad in constant mode. The pads are [x1_begin, x2_begin, …,
// x1_end, x2_end, …] (an attribute up to opset 10, a known input from 11,
// with optional axes from 18); a negative pad crops. A constant of 0,
// -inf or +inf is a pad view's fill; any other is selected outside the
// input.
func convPad(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	_, ext, err := nd.Shape(x)
	if err != nil {
		return c.wrap(err, "input data")
	}
	r := len(ext)
	mode, err := c.attrString("mode", "constant")
	if err != nil {
		return err
	}
	if mode != "constant" {
		return c.errorf("mode %q is not supported; hofuse pads in constant mode only", mode)
	}
	var pads []int
	value := 0.0
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if c.opset <= 10 {
		var set bool
		if pads, set, err = c.attrInts("pads"); err != nil {
			return err
		}
		if !set {
			return c.errorf("attribute pads is missing")
		}
		if value, err = c.attrFloat("value", 0); err != nil {
			return err
		}
	} else {
		k, err := c.constIn(1, "pads")
		if err != nil {
			return err
		}
		if pads, err = k.ints(); err != nil {
			return c.wrap(err, "input pads")
		}
		if c.has(2) {
			v, err := c.constIn(2, "constant_value")
			if err != nil {
				return err
			}
			if v.size() != 1 {
				return c.errorf("constant_value has %d elements, want 1", v.size())
			}
			value = v.at(0)
		}
		if c.has(3) {
			a, err := c.constIn(3, "axes")
			if err != nil {
				return err
			}
			if axes, err = a.ints(); err != nil {
				return c.wrap(err, "input axes")
			}
			if axes, err = c.normAxesKeepOrder(axes, r); err != nil {
				return err
			}
		}
	}
	if len(pads) != 2*len(axes) {
		return c.errorf("pads %v has %d values for %d axes, want %d", pads, len(pads), len(axes), 2*len(axes))
	}
	n := len(axes)
	y, err := c.ops().Pad(x, axes, pads[:n], pads[n:], value)
	if err != nil {
		return c.wrap(err, "pads %v", pads)
	}
	c.out(0, y)
	return nil
}

// view applies the view v to x, with the node's name as source.
func (c *ctx) view(v graph.View, x graph.Node) (graph.Node, error) {
	n, err := graph.NewView(v, x)
	if err != nil {
		return nil, c.wrap(err, "%s", graph.ViewString(v))
	}
	if _, err := graph.TypeOf(n, nil); err != nil {
		return nil, c.wrap(err, "%s", graph.ViewString(v))
	}
	return graph.WithSource(n, c.name), nil
}
