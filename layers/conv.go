package layers

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// DataFormat says where the channel axis of a convolution's or pooling's
// input and output lies.
type DataFormat uint8

// The data formats. Keras and TensorFlow default to channels last, PyTorch
// and ONNX to channels first.
const (
	ChannelsLast  DataFormat = iota // NHWC, NWC: [batch, spatial..., channels]
	ChannelsFirst                   // NCHW, NCW: [batch, channels, spatial...]
)

func (f DataFormat) String() string {
	if f == ChannelsFirst {
		return "channels first (NCHW)"
	}
	return "channels last (NHWC)"
}

// PaddingMode is how a convolution or pooling pads its spatial axes.
type PaddingMode uint8

// The padding modes.
const (
	// PadValid pads nothing: windows that do not fit are dropped.
	PadValid PaddingMode = iota
	// PadSame pads so that the output has ceil(input/stride) positions,
	// the total padding max((out-1)*stride + span - input, 0) split with
	// the odd element at the end (TensorFlow's SAME, ONNX's SAME_UPPER).
	PadSame
	// PadExplicit pads by ConvOptions.Pads.
	PadExplicit
)

// ConvOptions configure Conv1D, Conv2D, MaxPool2D and AvgPool2D. The zero
// value is channels last, stride 1, dilation 1, no padding, one group,
// with a bias.
type ConvOptions struct {
	// Format is where the channels are, in the input and the output.
	Format DataFormat
	// Strides between window positions, one per spatial axis (height
	// first); nil or 0 means 1.
	Strides []int
	// Dilations between window elements, one per spatial axis; nil or 0
	// means 1.
	Dilations []int
	// Padding is the padding mode.
	Padding PaddingMode
	// Pads are the explicit paddings with PadExplicit: before and after
	// each spatial axis, [top, bottom, left, right] for two (ONNX writes
	// all the befores first: [top, left, bottom, right]; convert).
	Pads []int
	// Groups splits the channels into groups convolved separately (input
	// channel group g feeds output channel group g); 0 means 1. Groups
	// equal to the input channels is a depthwise convolution. Both channel
	// counts must be multiples of it.
	Groups int
	// NoBias leaves out the bias (before a BatchNorm, which subtracts it
	// again).
	NoBias bool
	// CountIncludePad makes AvgPool2D divide by the whole window, padding
	// included (PyTorch's default), not by the elements inside the input
	// (ONNX's and TensorFlow's default, and this package's).
	CountIncludePad bool
	// CeilMode (poolings only) adds a last, partial window on an axis
	// whose windows leave elements over, as ONNX's and PyTorch's
	// ceil_mode: ceil((padded - span)/stride) + 1 positions, less one when
	// the last would start in the padding after the input. The partial
	// window reads the pooling's fill past the padding; an average
	// divides by its elements inside the input, or with CountIncludePad
	// inside the padded input.
	CeilMode bool
}

// ConvParams are the parameters of a convolution.
type ConvParams struct {
	// K is the kernel, "<layer>.K". Channels last it is laid out
	// [k1, ..., kn, in/groups, out] (Keras and TensorFlow's HWIO), channels
	// first [out, in/groups, k1, ..., kn] (PyTorch and ONNX's OIHW).
	K *graph.Input
	// B is the bias, "<layer>.b": dt[out]; nil with NoBias.
	B *graph.Input
}

// Params lists the parameters, K first.
func (p *ConvParams) Params() []*graph.Input {
	if p.B == nil {
		return []*graph.Input{p.K}
	}
	return []*graph.Input{p.K, p.B}
}

// Conv2D returns the two-dimensional convolution (cross-correlation, as in
// every framework) of x, dt[batch, height, width, in] channels last or
// dt[batch, in, height, width] channels first, with a kernel of kernel[0]
// × kernel[1] windows and out output channels; see ConvParams for the
// kernel's layout. Element (n, i, j, o) of the result, channels last, is
//
//	sum over a < kh, b < kw, c < in/groups of
//	  xpad[n, i*sh + a*dh, j*sw + b*dw, g*in/groups + c] * K[a, b, c, o] + bias[o]
//
// with g = o / (out/groups) and xpad the zero-padded input. The term pads
// x with pad views, sees it through window views (no copy), and reduces
// each window against each kernel with nested rnz (+):
//
//	map (\img -> map (\row -> map (\win -> zip (+) (map (\f -> rnz (+) (\a k -> rnz (+) (\c d -> rnz (+) (*) c d) a k) win f) Kt) b) row)
//	  (flip 1 2 (window 0 kh sh dh (window 1 kw sw dw (pad 0 .. (pad 1 .. img)))))) x
//
// where Kt is the kernel seen as [out, kh, kw, in]. Channels first, the
// input, kernel and output are seen channels last through flips. Errors
// name the layer and the numbers: groups that do not divide the channels,
// a window larger than the padded input, an input whose channels are not
// in.
func Conv2D(name string, x graph.Node, in, out int, kernel [2]int, dt graph.DType, opt ConvOptions) (graph.Node, *ConvParams, error) {
	return conv("Conv2D", name, x, in, out, kernel[:], dt, opt)
}

// Conv1D is Conv2D with one spatial axis: x is dt[batch, length, in]
// channels last or dt[batch, in, length] channels first, the kernel
// [k, in/groups, out] or [out, in/groups, k].
func Conv1D(name string, x graph.Node, in, out, kernel int, dt graph.DType, opt ConvOptions) (graph.Node, *ConvParams, error) {
	return conv("Conv1D", name, x, in, out, []int{kernel}, dt, opt)
}

// Conv3D is Conv2D over three spatial axes: x is dt[batch, depth, height,
// width, in] channels last or dt[batch, in, depth, height, width] channels
// first, with a kernel of kernel[0] × kernel[1] × kernel[2].
func Conv3D(name string, x graph.Node, in, out int, kernel [3]int, dt graph.DType, opt ConvOptions) (graph.Node, *ConvParams, error) {
	return conv("Conv3D", name, x, in, out, kernel[:], dt, opt)
}

// spatial is one spatial axis of a convolution or pooling: its window and
// the padding that makes it fit.
type spatial struct {
	name         string // "height", "width", "length"
	extent       int    // of the input
	size         int    // the window's width
	stride, dil  int
	lo, hi       int // padding
	ceilHi       int // more padding after, reaching ceil mode's partial last window (poolings)
	positions    int // of the output
	paddedExtent int
	windowSpan   int
}

func spatialNames(n int) []string {
	switch n {
	case 1:
		return []string{"length"}
	case 2:
		return []string{"height", "width"}
	case 3:
		return []string{"depth", "height", "width"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("spatial axis %d", i)
	}
	return names
}

// geometry checks the sizes, strides, dilations and padding of the
// spatial axes of an input of the given spatial extents, and resolves the
// padding.
func (l *layer) geometry(extents, kernel []int, opt ConvOptions, pooling bool) ([]spatial, error) {
	n := len(extents)
	names := spatialNames(n)
	get := func(what string, vs []int, i int) (int, error) {
		if vs == nil {
			return 1, nil
		}
		if len(vs) != n {
			return 0, l.errorf("%d %s for %d spatial axes", len(vs), what, n)
		}
		if vs[i] == 0 {
			return 1, nil
		}
		if vs[i] < 0 {
			return 0, l.errorf("%s %s = %d, want at least 1", names[i], what[:len(what)-1], vs[i])
		}
		return vs[i], nil
	}
	if opt.CeilMode && !pooling {
		return nil, l.errorf("ceil mode is for poolings; a convolution takes no partial windows")
	}
	if opt.Padding == PadExplicit && len(opt.Pads) != 2*n {
		return nil, l.errorf("%d explicit pads for %d spatial axes, want %d (before and after each)", len(opt.Pads), n, 2*n)
	}
	if opt.Padding > PadExplicit {
		return nil, l.errorf("unknown padding mode %d", opt.Padding)
	}
	out := make([]spatial, n)
	for i := range n {
		s := spatial{name: names[i], extent: extents[i], size: kernel[i]}
		var err error
		if s.stride, err = get("strides", opt.Strides, i); err != nil {
			return nil, err
		}
		if s.dil, err = get("dilations", opt.Dilations, i); err != nil {
			return nil, err
		}
		if err := l.positive("kernel "+s.name, s.size); err != nil {
			return nil, err
		}
		if s.stride > graph.MaxExtent || s.dil > graph.MaxExtent {
			return nil, l.errorf("%s stride %d or dilation %d is past the cap of %d (graph.MaxExtent)", s.name, s.stride, s.dil, graph.MaxExtent)
		}
		s.windowSpan = (s.size-1)*s.dil + 1
		switch opt.Padding {
		case PadSame:
			o := (s.extent + s.stride - 1) / s.stride
			total := max((o-1)*s.stride+s.windowSpan-s.extent, 0)
			s.lo, s.hi = total/2, total-total/2
		case PadExplicit:
			s.lo, s.hi = opt.Pads[2*i], opt.Pads[2*i+1]
			if s.lo < 0 || s.hi < 0 {
				return nil, l.errorf("%s padding %d before and %d after, want at least 0", s.name, s.lo, s.hi)
			}
		}
		s.paddedExtent = s.extent + s.lo + s.hi
		if s.windowSpan > s.paddedExtent {
			what := fmt.Sprintf("window of %d", s.size)
			if s.dil > 1 {
				what += fmt.Sprintf(" at dilation %d, spanning %d,", s.dil, s.windowSpan)
			}
			return nil, l.errorf("%s %s is larger than the padded %s %d (input %d, padding %d before and %d after)",
				s.name, what, s.name, s.paddedExtent, s.extent, s.lo, s.hi)
		}
		if pooling && (s.lo >= s.windowSpan || s.hi >= s.windowSpan) {
			return nil, l.errorf("%s padding %d before and %d after is not smaller than the window of %d: a window would see padding only",
				s.name, s.lo, s.hi, s.windowSpan)
		}
		s.positions = (s.paddedExtent-s.windowSpan)/s.stride + 1
		if opt.CeilMode {
			// One more position when windows are left over, unless it
			// would start in the padding after the input.
			p := (s.paddedExtent-s.windowSpan+s.stride-1)/s.stride + 1
			if (p-1)*s.stride >= s.extent+s.lo {
				p--
			}
			s.positions = p
			s.ceilHi = max((p-1)*s.stride+s.windowSpan-s.paddedExtent, 0)
		}
		out[i] = s
	}
	return out, nil
}

// moveAxis returns x, of the given rank, with axis from moved to to, the
// axes between shifting by one: a chain of flips of neighbours.
func (l *layer) moveAxis(x graph.Node, from, to int) graph.Node {
	for from < to {
		x = l.Flip(from, from+1, x)
		from++
	}
	for from > to {
		x = l.Flip(from-1, from, x)
		from--
	}
	return x
}

// windows returns the windows of img, [s1, ..., sn, C] channels last, for
// the spatial axes ss: [p1, ..., pn, k1, ..., kn, C], padded with fill.
func (l *layer) windows(img graph.Node, ss []spatial, fill graph.Fill) graph.Node {
	for i, s := range ss {
		if hi := s.hi + s.ceilHi; s.lo > 0 || hi > 0 {
			img = l.View(graph.PadView{Axis: i, Lo: s.lo, Hi: hi, Fill: fill}, img)
		}
	}
	// Window the last spatial axis first, so that the axes before it keep
	// their numbers: [.., s_i, ..] becomes [.., p_i, k_i, ..].
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		img = l.View(graph.WindowView{Axis: i, Width: s.size, Stride: s.stride, Dilation: s.dil}, img)
	}
	// Now [p1, k1, p2, k2, ..., C]: bring the positions out.
	for i := 1; i < len(ss); i++ {
		img = l.moveAxis(img, 2*i, i)
	}
	return img
}

// overPositions applies f to every window of wins, [p1, ..., pn, ...],
// nesting one map per spatial axis.
func (l *layer) overPositions(n int, wins graph.Node, f func(win graph.Node) graph.Node) graph.Node {
	if n == 0 {
		return f(wins)
	}
	return l.Map(l.Lambda1("p", func(p graph.Node) graph.Node { return l.overPositions(n-1, p, f) }), wins)
}

// dot is the full contraction of two arrays of the same shape and the
// given rank: rnz (+) (\a b -> ... rnz (+) (*) a b) x y.
func (l *layer) dot(rank int, x, y graph.Node) graph.Node {
	if rank == 1 {
		return l.RNZ(l.Op(graph.Add), l.Op(graph.Mul), x, y)
	}
	return l.RNZ(l.Op(graph.Add), l.Lambda([]string{"a", "k"}, func(vs []graph.Node) graph.Node {
		return l.dot(rank-1, vs[0], vs[1])
	}), x, y)
}

// channelsLast returns x seen channels last, for a layout of the given
// format with n spatial axes after the batch: [N, C, s...] -> [N, s..., C].
func (l *layer) channelsLast(x graph.Node, f DataFormat, n int) graph.Node {
	if f == ChannelsFirst {
		return l.moveAxis(x, 1, n+1)
	}
	return x
}

// inputAxes returns the axes of an input of the format with the given
// spatial names and channels.
func inputAxes(f DataFormat, names []string, channels int) []axis {
	axes := []axis{{"batch", 0}}
	sp := make([]axis, len(names))
	for i, nm := range names {
		sp[i] = axis{nm, 0}
	}
	if f == ChannelsFirst {
		return append(append(axes, axis{"channels", channels}), sp...)
	}
	return append(append(axes, sp...), axis{"channels", channels})
}

// spatialExtents returns the spatial extents of an input of the format.
func spatialExtents(xt *graph.ArrayType, f DataFormat, n int) []int {
	e := xt.Layout.Extents()
	if f == ChannelsFirst {
		return e[2 : 2+n]
	}
	return e[1 : 1+n]
}

func conv(kind, name string, x graph.Node, in, out int, kernel []int, dt graph.DType, opt ConvOptions) (graph.Node, *ConvParams, error) {
	l := newLayer(kind, name)
	if err := l.validate(dt); err != nil {
		return nil, nil, err
	}
	if err := l.positive("in", in); err != nil {
		return nil, nil, err
	}
	if err := l.positive("out", out); err != nil {
		return nil, nil, err
	}
	for i, e := range kernel {
		if err := l.positive("kernel "+spatialNames(len(kernel))[i], e); err != nil {
			return nil, nil, err
		}
	}
	groups := max(opt.Groups, 1)
	if opt.Groups < 0 || in%groups != 0 {
		// convTerm names the problem.
		y, err := l.convTerm(x, nil, nil, in, out, kernel, dt, opt)
		return y, nil, err
	}
	k, err := l.param("K", dt, kernelExtents(opt.Format, kernel, in/groups, out)...)
	if err != nil {
		return nil, nil, err
	}
	var bias *graph.Input
	var b graph.Node
	if !opt.NoBias {
		if bias, err = l.param("b", dt, out); err != nil {
			return nil, nil, err
		}
		b = bias
	}
	y, err := l.convTerm(x, k, b, in, out, kernel, dt, opt)
	if err != nil {
		return nil, nil, err
	}
	return y, &ConvParams{K: k, B: bias}, nil
}

// kernelExtents is the layout of a kernel: [k..., in/groups, out] channels
// last, [out, in/groups, k...] channels first.
func kernelExtents(f DataFormat, kernel []int, cg, out int) []int {
	if f == ChannelsFirst {
		return slices.Concat([]int{out, cg}, kernel)
	}
	return slices.Concat(kernel, []int{cg, out})
}

// ConvWith is the convolution of Conv1D (one kernel extent) or Conv2D
// (two) with the kernel k and the bias b given as terms, a model's own
// weights, instead of new parameters: k laid out as ConvParams.K says for
// opt.Format, b of dt[out], or nil for none (opt.NoBias is then implied).
// The importers build their convolutions with it. A k or b of another
// type is an error naming the layer and the extents.
func ConvWith(name string, x, k, b graph.Node, in, out int, kernel []int, dt graph.DType, opt ConvOptions) (graph.Node, error) {
	kind := "Conv2D"
	if len(kernel) == 1 || len(kernel) == 3 {
		kind = fmt.Sprintf("Conv%dD", len(kernel))
	}
	l := newLayer(kind, name)
	if err := l.validate(dt); err != nil {
		return nil, err
	}
	if len(kernel) < 1 || len(kernel) > 3 {
		return nil, l.errorf("%d kernel extents %v, want 1, 2 or 3", len(kernel), kernel)
	}
	if err := l.positive("in", in); err != nil {
		return nil, err
	}
	if err := l.positive("out", out); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, l.errorf("the kernel is nil")
	}
	return l.convTerm(x, k, b, in, out, kernel, dt, opt)
}

// convTerm builds the convolution of x with the kernel term k and the
// bias term b (nil for none), checking every argument.
func (l *layer) convTerm(x, k, b graph.Node, in, out int, kernel []int, dt graph.DType, opt ConvOptions) (graph.Node, error) {
	if opt.Format > ChannelsFirst {
		return nil, l.errorf("unknown data format %d", opt.Format)
	}
	groups := opt.Groups
	if groups == 0 {
		groups = 1
	}
	switch {
	case groups < 0:
		return nil, l.errorf("groups = %d, want at least 1", groups)
	case in%groups != 0:
		return nil, l.errorf("groups = %d does not divide the %d input channels", groups, in)
	case out%groups != 0:
		return nil, l.errorf("groups = %d does not divide the %d output channels", groups, out)
	}
	n := len(kernel)
	xt, err := l.input(x, dt, inputAxes(opt.Format, spatialNames(n), in)...)
	if err != nil {
		return nil, err
	}
	ss, err := l.geometry(spatialExtents(xt, opt.Format, n), kernel, opt, false)
	if err != nil {
		return nil, err
	}
	cg, og := in/groups, out/groups
	wantK := kernelExtents(opt.Format, kernel, cg, out)
	if kt, ok := typeOfArray(k); !ok || !slices.Equal(kt.Layout.Extents(), wantK) {
		got := "no array"
		if ok {
			got = fmt.Sprint(kt.Layout.Extents())
		}
		return nil, l.errorf("the kernel has extents %s, want %v (%s with %d input channels in %d groups and %d output channels)",
			got, wantK, opt.Format, in, groups, out)
	}
	if b != nil {
		if bt, ok := typeOfArray(b); !ok || !slices.Equal(bt.Layout.Extents(), []int{out}) {
			return nil, l.errorf("the bias is not an array of the %d output channels", out)
		}
	}
	// The kernel, seen as [out, k1, ..., kn, in/groups].
	var kt graph.Node
	if opt.Format == ChannelsFirst {
		kt = l.moveAxis(k, 1, n+1)
	} else {
		kt = l.moveAxis(k, n+1, 0)
	}
	// With groups, the kernel is [G, out/G, k..., in/G] and each window
	// [G, k..., in/G].
	if groups > 1 {
		kt = l.View(graph.SubdivView{Axis: 0, Block: og}, kt)
	}
	xl := l.channelsLast(x, opt.Format, n)
	y := l.Map(l.Lambda1("img", func(img graph.Node) graph.Node {
		wins := l.windows(img, ss, graph.FillZero)
		return l.overPositions(n, wins, func(win graph.Node) graph.Node {
			var dots graph.Node
			if groups == 1 {
				dots = l.Map(l.Lambda1("f", func(f graph.Node) graph.Node { return l.dot(n+1, win, f) }), kt)
			} else {
				wg := l.moveAxis(l.View(graph.SubdivView{Axis: n, Block: cg}, win), n, 0)
				dots = l.View(graph.FlattenView{Axis: 0}, l.Zip(l.Lambda([]string{"wg", "kg"}, func(vs []graph.Node) graph.Node {
					return l.Map(l.Lambda1("f", func(f graph.Node) graph.Node { return l.dot(n+1, vs[0], f) }), vs[1])
				}), wg, kt))
			}
			if b != nil {
				dots = l.Zip(l.Op(graph.Add), dots, b)
			}
			return dots
		})
	}), xl)
	if opt.Format == ChannelsFirst {
		y = l.moveAxis(y, n+1, 1)
	}
	return l.done(y)
}
