package onnx

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

func init() {
	register(
		&converter{op: "Upsample", since: 7, until: 8, check: checkResize, convert: convResize},
		&converter{op: "Upsample", since: 9, until: 9, check: checkResize, needKnown: []int{1}, convert: convResize},
		&converter{op: "Resize", since: 10, until: 10, check: checkResize, needKnown: []int{1}, convert: convResize},
		&converter{op: "Resize", since: 11, check: checkResize, needKnown: []int{2, 3}, convert: convResize},
	)
}

// checkResize refuses the Resize and Upsample settings whose output is
// not every input element repeated a whole number of times: modes other
// than nearest, and coordinate transformations under which nearest
// neighbours are not floor(i / scale) for a whole scale. With
// half_pixel (the default) and pytorch_half_pixel, output i maps to
// (i + 0.5)/s − 0.5 = q + (2r + 1 − s)/(2s) for i = q·s + r, whose
// fraction lies strictly between −0.5 and 0.5: both round modes give q,
// floor and ceil do not. With asymmetric and tf_half_pixel_for_nn, i maps
// to q + r/s or q + (r + 0.5)/s, which floor alone takes to q.
func checkResize(n *onnxpb.NodeProto, _ int) string {
	str := func(name, def string) string {
		if a := attr(n, name); a != nil {
			return string(a.GetS())
		}
		return def
	}
	if m := str("mode", "nearest"); m != "nearest" {
		return fmt.Sprintf("mode %q is not supported; hofuse resizes in nearest mode, by whole scales", m)
	}
	if a := attr(n, "antialias"); a != nil && a.GetI() != 0 {
		return "antialias is not supported"
	}
	if p := str("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
		return fmt.Sprintf("keep_aspect_ratio_policy %q is not supported (stretch only)", p)
	}
	ct, nm := str("coordinate_transformation_mode", "half_pixel"), str("nearest_mode", "round_prefer_floor")
	if n.GetOpType() == "Upsample" {
		return "" // Upsample's nearest is floor(i / scale)
	}
	switch {
	case (ct == "half_pixel" || ct == "pytorch_half_pixel") && (nm == "round_prefer_floor" || nm == "round_prefer_ceil"):
	case (ct == "asymmetric" || ct == "tf_half_pixel_for_nn") && nm == "floor":
	default:
		return fmt.Sprintf("coordinate_transformation_mode %q with nearest_mode %q is not supported: hofuse resizes where the nearest element is floor(i / scale) (half_pixel or pytorch_half_pixel with a round mode, asymmetric or tf_half_pixel_for_nn with floor)", ct, nm)
	}
	return ""
}

// convResize converts Resize (opsets 10 and later) and Upsample in
// nearest mode where every scale is a whole number s ≥ 1, given by the
// scales (an input, or Upsample 7's attribute) or by sizes that are whole
// multiples of the input's extents, over every axis or, from opset 18,
// over the axes attribute's: each element is repeated s times along each
// axis, output i reading input floor(i / s) (checkResize keeps the
// coordinate modes under which that is the nearest neighbour), by
// nd.Repeat. Downsampling and fractional scales are refused.
func convResize(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	_, ext, err := nd.Shape(x)
	if err != nil {
		return c.wrap(err, "input X")
	}
	r := len(ext)
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a, set, err := c.attrInts("axes"); err != nil {
		return err
	} else if set {
		if axes, err = c.normAxesKeepOrder(a, r); err != nil {
			return err
		}
	}
	scaleIn, sizeIn := -1, -1
	switch {
	case c.node.GetOpType() == "Upsample" && c.opset <= 8:
	case c.node.GetOpType() == "Upsample" || c.opset == 10:
		scaleIn = 1
	default:
		scaleIn, sizeIn = 2, 3
	}
	var scales []float64
	var known *tensor
	if scaleIn >= 0 && c.has(scaleIn) {
		known = c.known(scaleIn)
	}
	switch {
	case scaleIn < 0:
		a := attr(c.node, "scales")
		if a == nil {
			return c.errorf("attribute scales is missing")
		}
		for _, f := range a.GetFloats() {
			scales = append(scales, float64(f))
		}
	case known != nil && known.size() > 0:
		for i := range known.size() {
			scales = append(scales, known.at(i))
		}
	case sizeIn >= 0 && c.has(sizeIn):
		k, err := c.constIn(sizeIn, "sizes")
		if err != nil {
			return err
		}
		sizes, err := k.ints()
		if err != nil {
			return c.wrap(err, "input sizes")
		}
		if len(sizes) != len(axes) {
			return c.errorf("sizes %v has %d values for %d axes", sizes, len(sizes), len(axes))
		}
		for i, a := range axes {
			if sizes[i] < ext[a] || sizes[i]%ext[a] != 0 {
				return c.errorf("sizes %v: axis %d of extent %d to %d is not a whole upsampling; hofuse resizes in nearest mode by whole scales (1, 2, 3, …) only", sizes, a, ext[a], sizes[i])
			}
			scales = append(scales, float64(sizes[i]/ext[a]))
		}
	default:
		return c.errorf("neither scales nor sizes is given")
	}
	if len(scales) != len(axes) {
		return c.errorf("scales %v has %d values for %d axes", scales, len(scales), len(axes))
	}
	whole := make([]int, r)
	for i := range whole {
		whole[i] = 1
	}
	for i, a := range axes {
		s := scales[i]
		if s < 1 || s != math.Trunc(s) || s*float64(ext[a]) > float64(1<<40) {
			return c.errorf("scales %v: %v along axis %d is not a whole upsampling; hofuse resizes in nearest mode by whole scales (1, 2, 3, …) only", scales, s, a)
		}
		whole[a] = int(s)
	}
	y, err := c.ops().Repeat(x, whole)
	if err != nil {
		return c.wrap(err, "resize")
	}
	c.out(0, y)
	return nil
}
