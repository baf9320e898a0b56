package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
	"github.com/hofuse/hofuse/layers"
)

func init() {
	ops["Conv2DBackpropInput"] = opDef{arity: 3, outputs: 1, check: checkWindowed, convert: convConv2DBackpropInput}
}

// convConv2DBackpropInput converts Conv2DBackpropInput(input_sizes,
// filter [kh, kw, C, M], out_backprop [N, H, W, M]), which Keras's
// Conv2DTranspose writes: the gradient, with respect to its input of
// shape input_sizes [N, H', W', C], of the convolution of that input
// with filter (strides, dilations, padding SAME, VALID or EXPLICIT as
// that convolution's). It is computed as the convolution it equals:
// out_backprop spread out by strides−1 zeros between its elements (a
// pad's interior), padded by d·(k−1)−pb before and H'+pb−(H−1)·s−1 after
// along each spatial axis (cropped where negative), and convolved at
// stride 1 and dilation d with the filter's channels exchanged and its
// spatial axes reversed. The filter must be a Const: it is rearranged
// once, and the result is the model's parameter.
func convConv2DBackpropInput(c *converter, n *node, in []value) ([]value, error) {
	sizes, err := constInts(in[0], "input_sizes")
	if err != nil {
		return nil, err
	}
	if len(sizes) != 4 {
		return nil, fmt.Errorf("input_sizes %v: want 4 values [N, H, W, C]", sizes)
	}
	fv := in[1]
	if fv.konst == nil {
		return nil, fmt.Errorf("input filter is computed by the graph; hofuse needs it constant at import time (a Const) to reverse its kernel")
	}
	dy, err := c.floatData(in[2], "out_backprop")
	if err != nil {
		return nil, err
	}
	ye, fe := extentsOf(in[2].typ), fv.konst.shape
	if len(ye) != 4 || len(fe) != 4 {
		return nil, fmt.Errorf("out_backprop %v and filter %v: want rank 4, [N, H, W, M] and [kh, kw, C, M]", in[2].typ, fe)
	}
	dt := elemOf(in[2].typ)
	if fdt, err := elemType(fv.konst.dtype); err != nil || fdt != dt {
		return nil, fmt.Errorf("filter of %s, out_backprop of %v: want the same float type", dtypeName(fv.konst.dtype), dt)
	}
	outC := int(sizes[3])
	if fe[3] != ye[3] || fe[2] != outC {
		return nil, fmt.Errorf("filter %v takes %d channels to %d; out_backprop %v has %d and input_sizes %v asks for %d", fe, fe[2], fe[3], in[2].typ, ye[3], sizes, outC)
	}
	if sizes[0] != -1 && int(sizes[0]) != ye[0] {
		// The batch of input_sizes is often computed (Shape of the input);
		// a constant one must agree with out_backprop's.
		return nil, fmt.Errorf("input_sizes %v: batch %d, but out_backprop %v has %d", sizes, sizes[0], in[2].typ, ye[0])
	}
	opt, err := windowOpts(n, false)
	if err != nil {
		return nil, err
	}
	kernel := fe[:2]
	for a := range 2 {
		e, p, k := int(sizes[1+a]), ye[1+a], kernel[a]
		s, d := opt.Strides[a], opt.Dilations[a]
		if e < 1 {
			return nil, fmt.Errorf("input_sizes %v: spatial extent %d", sizes, e)
		}
		var pb int
		switch opt.Padding {
		case layers.PadSame:
			want := (e + s - 1) / s
			if want != p {
				return nil, fmt.Errorf("input_sizes %v with SAME padding and strides %v give %d positions along axis %d; out_backprop %v has %d", sizes, opt.Strides, want, 1+a, in[2].typ, p)
			}
			total := max((p-1)*s+(k-1)*d+1-e, 0)
			pb = total / 2
		case layers.PadExplicit:
			pb = opt.Pads[2*a]
		}
		// The spread rows padded to e+d·(k−1), so that the windows of
		// the convolution give e outputs.
		lo, hi := d*(k-1)-pb, e+pb-(p-1)*s-1
		if dy, err = view(n, graph.PadView{Axis: 1 + a, Lo: max(lo, 0), Hi: max(hi, 0), Interior: s - 1}, dy); err != nil {
			return nil, err
		}
		if lo < 0 || hi < 0 {
			if dy, err = view(n, graph.CropView{Axis: 1 + a, Lo: -min(lo, 0), Hi: -min(hi, 0)}, dy); err != nil {
				return nil, fmt.Errorf("input_sizes %v, out_backprop %v: %v", sizes, in[2].typ, err)
			}
		}
	}
	k, err := c.constParam(n.name+"/transposed_filter", dt, transposeFilter(fv.konst))
	if err != nil {
		return nil, err
	}
	conv := layers.ConvOptions{Format: layers.ChannelsLast, Padding: layers.PadValid, Strides: []int{1, 1}, Dilations: opt.Dilations}
	return c.result(layers.ConvWith(n.name, dy, k, nil, ye[3], outC, kernel, dt, conv))
}

// transposeFilter returns filter [kh, kw, C, M] as the kernel of the
// convolution a transposed one equals, [kh, kw, M, C]: channels exchanged
// and both spatial axes reversed.
func transposeFilter(f *tensor) *tensor {
	kh, kw, ci, co := f.shape[0], f.shape[1], f.shape[2], f.shape[3]
	out := &tensor{dtype: f.dtype, shape: []int{kh, kw, co, ci}}
	src := func(a, b, m, c int) int { return ((a*kw+b)*ci+c)*co + m }
	dst := func(a, b, m, c int) int { return ((a*kw+b)*co+m)*ci + c }
	switch f.dtype {
	case tfpb.DataType_DT_FLOAT:
		out.f32 = make([]float32, len(f.f32))
	default:
		out.f64 = make([]float64, len(f.f64))
	}
	for a := range kh {
		for b := range kw {
			for c := range ci {
				for m := range co {
					i, j := src(kh-1-a, kw-1-b, m, c), dst(a, b, m, c)
					if out.f32 != nil {
						out.f32[j] = f.f32[i]
					} else {
						out.f64[j] = f.f64[i]
					}
				}
			}
		}
	}
	return out
}

// constParam makes t, derived at import time from a node's constants, a
// parameter of the model named name.
func (c *converter) constParam(name string, dt graph.DType, t *tensor) (graph.Node, error) {
	val, err := t.value()
	if err != nil {
		return nil, err
	}
	if _, taken := c.model.Values[name]; taken {
		return nil, fmt.Errorf("a parameter named %q exists already", name)
	}
	in, err := nd.Param(name, dt, t.shape)
	if err != nil {
		return nil, err
	}
	c.model.Params = append(c.model.Params, in)
	c.model.Values[name] = val
	return in, nil
}

// view applies the view v to x, with node n's name as source.
func view(n *node, v graph.View, x graph.Node) (graph.Node, error) {
	t, err := graph.NewView(v, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", graph.ViewString(v), err)
	}
	if _, err := graph.TypeOf(t, nil); err != nil {
		return nil, fmt.Errorf("%s: %v", graph.ViewString(v), err)
	}
	return graph.WithSource(t, n.name), nil
}
