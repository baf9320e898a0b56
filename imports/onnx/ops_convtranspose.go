package onnx

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	register(&converter{op: "ConvTranspose", since: 1, check: checkConv, needKnown: []int{1}, convert: convConvTranspose})
}

// convConvTranspose: ConvTranspose of X [N, C, D1, …] with W [C,
// M/group, k1, …] (one to three spatial axes) and the optional bias B
// [M]: the gradient of a convolution with respect to its input, computed
// as the convolution it is equivalent to. Along each spatial axis, with
// stride s, dilation d, kernel extent k, pads pb and pe and output
// padding op, X is spread out by s−1 zeros between its elements (a pad's
// interior) and padded by d·(k−1)−pb before and d·(k−1)−pe+op after
// (cropped where that is negative); the result is convolved, stride 1,
// dilation d, with W's channels exchanged within each group and its
// kernel reversed along every spatial axis:
//
//	W'[g·(M/group)+m, c, j…] = W[g·(C/group)+c, m, k−1−j…]
//
// W must be known when the model is imported (an initializer, as
// exporters write it): the exchange and the reversal are done once, on
// its values, and W' is the model's parameter. Its output extents are
// s·(e−1) + op + d·(k−1) + 1 − pb − pe, or output_shape when given, with
// the pads then chosen as ONNX says (auto_pad SAME_UPPER puts the odd
// element at the end, anything else at the start).
func convConvTranspose(c *ctx) error {
	x, dt, ext, err := c.convInput("transposed convolutions")
	if err != nil {
		return err
	}
	w, err := c.constIn(1, "W")
	if err != nil {
		return err
	}
	n := len(ext) - 2
	if len(w.dims) != len(ext) {
		return c.errorf("input W has shape %v, want rank %d like X %v", w.dims, len(ext), ext)
	}
	kernel := w.dims[2:]
	if err := c.checkKernelShape(w.dims); err != nil {
		return err
	}
	g64, err := c.attrInt("group", 1)
	if err != nil {
		return err
	}
	g := int(g64)
	if g < 1 || ext[1] != w.dims[0] || w.dims[0]%g != 0 {
		return c.errorf("X has %d channels, W %v takes %d in %d groups: W's first extent must be X's channels, a multiple of group", ext[1], w.dims, w.dims[0], g)
	}
	out := g * w.dims[1]
	strides, err := c.spatialInts("strides", n, 1, 1)
	if err != nil {
		return err
	}
	dils, err := c.spatialInts("dilations", n, 1, 1)
	if err != nil {
		return err
	}
	outPad, err := c.spatialInts("output_padding", n, 0, 0)
	if err != nil {
		return err
	}
	for i := range n {
		if outPad[i] >= max(strides[i], dils[i]) {
			return c.errorf("output_padding %v: each value must be at least 0 and less than its axis's stride or dilation (strides %v, dilations %v)", outPad, strides, dils)
		}
	}
	pb, pe, err := c.transposePads(ext[2:], kernel, strides, dils, outPad)
	if err != nil {
		return err
	}
	// X spread out and padded; a negative pad is a crop.
	for i := range n {
		span := dils[i] * (kernel[i] - 1)
		lo, hi := span-pb[i], span-pe[i]+outPad[i]
		if x, err = c.view(graph.PadView{Axis: 2 + i, Lo: max(lo, 0), Hi: max(hi, 0), Interior: strides[i] - 1}, x); err != nil {
			return err
		}
		if lo < 0 || hi < 0 {
			spread := (ext[2+i]-1)*strides[i] + 1 + max(lo, 0) + max(hi, 0)
			if -min(lo, 0)-min(hi, 0) >= spread {
				return c.errorf("pads %v leave no output along spatial axis %d", append(slices.Clone(pb), pe...), i)
			}
			if x, err = c.view(graph.CropView{Axis: 2 + i, Lo: -min(lo, 0), Hi: -min(hi, 0)}, x); err != nil {
				return err
			}
		}
	}
	k, err := c.paramFrom(transposeKernel(w, g), "_transposed")
	if err != nil {
		return err
	}
	var b graph.Node
	if c.has(2) {
		if b, err = c.in(2); err != nil {
			return err
		}
	}
	opt := layers.ConvOptions{Format: layers.ChannelsFirst, Padding: layers.PadExplicit, Pads: make([]int, 2*n),
		Strides: ones(n), Dilations: dils, Groups: g}
	y, err := layers.ConvWith(c.name, x, k, b, ext[1], out, kernel, dt, opt)
	if err != nil {
		return c.wrap(err, "conv")
	}
	c.out(0, y)
	return nil
}

// transposePads returns the pads before and after each spatial axis of a
// ConvTranspose: from pads, or from output_shape or auto_pad as ONNX
// computes them.
func (c *ctx) transposePads(spatial, kernel, strides, dils, outPad []int) (pb, pe []int, err error) {
	n := len(spatial)
	pb, pe = make([]int, n), make([]int, n)
	auto, err := c.attrString("auto_pad", "NOTSET")
	if err != nil {
		return nil, nil, err
	}
	shape, shapeSet, err := c.attrInts("output_shape")
	if err != nil {
		return nil, nil, err
	}
	if shapeSet && len(shape) == n+2 {
		shape = shape[2:] // a full shape, as some exporters write it
	}
	if shapeSet && len(shape) != n {
		return nil, nil, c.errorf("attribute output_shape %v has %d values for %d spatial axes", shape, len(shape), n)
	}
	switch auto {
	case "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER":
	default:
		return nil, nil, c.errorf("auto_pad %q is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", auto)
	}
	if !shapeSet && (auto == "SAME_UPPER" || auto == "SAME_LOWER") {
		shape, shapeSet = make([]int, n), true
		for i := range n {
			shape[i] = spatial[i] * strides[i]
		}
	}
	if shapeSet {
		for i := range n {
			if shape[i] < 1 {
				return nil, nil, c.errorf("output_shape %v: every extent must be at least 1", shape)
			}
			// A negative total (an output longer than the input, kernel
			// and strides give) pads with negative pads: the output goes
			// on past the last window, as output_padding would, with
			// half rounded down as ONNX's reference does.
			total := strides[i]*(spatial[i]-1) + outPad[i] + (kernel[i]-1)*dils[i] + 1 - shape[i]
			half := total / 2
			if total < 0 && total%2 != 0 {
				half--
			}
			if auto == "SAME_UPPER" {
				pb[i], pe[i] = half, total-half
			} else {
				pb[i], pe[i] = total-half, half
			}
		}
		return pb, pe, nil
	}
	if auto == "VALID" {
		return pb, pe, nil
	}
	p, set, err := c.attrInts("pads")
	if err != nil || !set {
		return pb, pe, err
	}
	if len(p) != 2*n {
		return nil, nil, c.errorf("attribute pads %v has %d values for %d spatial axes, want %d", p, len(p), n, 2*n)
	}
	for i := range n {
		if p[i] < 0 || p[n+i] < 0 {
			return nil, nil, c.errorf("attribute pads %v: negative padding is not supported", p)
		}
		pb[i], pe[i] = p[i], p[n+i]
	}
	return pb, pe, nil
}

// transposeKernel returns ConvTranspose's W [C, M/g, k…] as the kernel of
// the equivalent convolution, [M, C/g, k…]: channels exchanged within
// each of the g groups, and every spatial axis reversed.
func transposeKernel(w *tensor, g int) *tensor {
	cin, mg := w.dims[0], w.dims[1]
	cg := cin / g
	kernel := w.dims[2:]
	ks := 1
	for _, e := range kernel {
		ks *= e
	}
	out := &tensor{elem: w.elem, dims: slices.Concat([]int{g * mg, cg}, kernel), f: make([]float64, len(w.f))}
	// rev maps a kernel position to its reversal along every axis.
	rev := func(j int) int {
		r, stride := 0, 1
		for a := len(kernel) - 1; a >= 0; a-- {
			e := kernel[a]
			r += (e - 1 - j%e) * stride
			j /= e
			stride *= e
		}
		return r
	}
	for gi := range g {
		for c := range cg {
			for m := range mg {
				src := ((gi*cg+c)*mg + m) * ks
				dst := ((gi*mg+m)*cg + c) * ks
				for j := range ks {
					out.f[dst+rev(j)] = w.f[src+j]
				}
			}
		}
	}
	return out
}

// paramFrom makes the tensor t, derived at import time from the node's
// inputs, a parameter of the model named after the node and suffix.
func (c *ctx) paramFrom(t *tensor, suffix string) (graph.Node, error) {
	if !isFloatElem(t.elem) {
		return nil, fmt.Errorf("onnx: internal error: paramFrom of %s", elemName(t.elem))
	}
	v := &value{name: c.name + suffix, k: t}
	if err := c.imp.materialize(v); err != nil {
		return nil, c.wrap(err, "%s", v.name)
	}
	return v.term, nil
}
