package layers

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// MaxPool2D returns the maximum of every window of window[0] × window[1]
// elements of x, channel by channel: x is dt[batch, height, width,
// channels] channels last or dt[batch, channels, height, width] channels
// first, opt gives the strides (nil: 1, not the window as in Keras's
// default; pass them), the dilations, the padding and ceil mode. Padding
// reads as -Inf, the identity of max, so it never wins. The term is
//
//	map (\img -> map (\row -> map (\win -> rnz (zip max) (\r -> reduce (zip max) r) win) row)
//	  (flip 1 2 (window 0 kh sh (window 1 kw sw (padninf 0 .. (padninf 1 .. img)))))) x
//
// NaN propagates as graph's max says; differentiated, the cotangent goes to
// each window's maximum, split equally on a tie, and overlapping windows
// add theirs.
func MaxPool2D(name string, x graph.Node, window [2]int, opt ConvOptions) (graph.Node, error) {
	return pool("MaxPool2D", name, x, window[:], opt, true)
}

// AvgPool2D returns the mean of every window of x, as MaxPool2D takes
// them. Padding is read as zero, and the sum of a window is divided by the
// number of its elements inside the input (ONNX's count_include_pad = 0
// and TensorFlow's SAME), or by the whole window with
// opt.CountIncludePad (PyTorch's default).
func AvgPool2D(name string, x graph.Node, window [2]int, opt ConvOptions) (graph.Node, error) {
	return pool("AvgPool2D", name, x, window[:], opt, false)
}

// MaxPool is MaxPool2D with one, two or three spatial axes, by
// len(window): x is dt[batch, length, channels] (or channels first) for
// one, dt[batch, depth, height, width, channels] for three.
func MaxPool(name string, x graph.Node, window []int, opt ConvOptions) (graph.Node, error) {
	return pool(poolKind("MaxPool", window), name, x, window, opt, true)
}

// AvgPool is AvgPool2D with one, two or three spatial axes, by
// len(window).
func AvgPool(name string, x graph.Node, window []int, opt ConvOptions) (graph.Node, error) {
	return pool(poolKind("AvgPool", window), name, x, window, opt, false)
}

func poolKind(kind string, window []int) string {
	if len(window) >= 1 && len(window) <= 3 {
		return fmt.Sprintf("%s%dD", kind, len(window))
	}
	return kind
}

func pool(kind, name string, x graph.Node, window []int, opt ConvOptions, isMax bool) (graph.Node, error) {
	l := newLayer(kind, name)
	if l.name == "" {
		return nil, &Error{Kind: kind, Msg: "empty layer name"}
	}
	if len(window) < 1 || len(window) > 3 {
		return nil, l.errorf("a window of %d axes %v; one, two or three spatial axes are supported", len(window), window)
	}
	if opt.Groups != 0 || opt.NoBias {
		return nil, l.errorf("a pooling takes no groups and no bias")
	}
	if opt.Format > ChannelsFirst {
		return nil, l.errorf("unknown data format %d", opt.Format)
	}
	n := len(window)
	xt, err := l.floatArray(x)
	if err != nil {
		return nil, err
	}
	if err := l.validate(xt.DType); err != nil {
		return nil, err
	}
	if xt.Rank() != n+2 {
		return nil, l.errorf("x has type %v of rank %d, want rank %d: %s", xt, xt.Rank(), n+2, wantString(xt.DType, inputAxes(opt.Format, spatialNames(n), 0)))
	}
	ss, err := l.geometry(spatialExtents(xt, opt.Format, n), window, opt, true)
	if err != nil {
		return nil, err
	}
	fill := graph.FillZero
	if isMax {
		fill = graph.FillNegInf
	}
	red := graph.Add
	if isMax {
		red = graph.Max
	}
	// reduceWindow reduces a window [k1, ..., kn, C] to [C].
	var reduceWindow func(rank int, w graph.Node) graph.Node
	reduceWindow = func(rank int, w graph.Node) graph.Node {
		if rank == 1 {
			return l.Reduce(l.NZip(l.Op(red)), w)
		}
		return l.RNZ(l.NZip(l.Op(red)), l.Lambda1("r", func(r graph.Node) graph.Node { return reduceWindow(rank-1, r) }), w)
	}
	// The divisors of an average: the elements of each window inside the
	// input, a product of one count per spatial axis, or the window size.
	// Without CountIncludePad an average counts the elements inside the
	// input; with it, those inside the padded input, which is the whole
	// window unless ceil mode adds a partial one.
	varies := false
	for _, s := range ss {
		if opt.CountIncludePad {
			varies = varies || s.ceilHi > 0
		} else {
			varies = varies || s.lo > 0 || s.hi+s.ceilHi > 0
		}
	}
	size := 1
	for _, s := range ss {
		size *= s.size
	}
	var counts []graph.Node // per spatial axis, [positions], when they vary
	if !isMax && varies {
		counts = make([]graph.Node, n)
		for i, s := range ss {
			counts[i] = l.axisCounts(x, xt, opt.Format, n, i, s, opt.CountIncludePad)
		}
	}
	xl := l.channelsLast(x, opt.Format, n)
	y := l.Map(l.Lambda1("img", func(img graph.Node) graph.Node {
		wins := l.windows(img, ss, fill)
		if counts == nil {
			return l.overPositions(n, wins, func(win graph.Node) graph.Node {
				r := reduceWindow(n, win)
				if isMax {
					return r
				}
				return l.Map(l.Section(graph.Mul, l.Const(1/float64(size)), false), r)
			})
		}
		// Average with per-position divisors: zip each level of positions
		// with its axis's counts, and divide by their product.
		var nest func(i int, w graph.Node, div graph.Node) graph.Node
		nest = func(i int, w graph.Node, div graph.Node) graph.Node {
			if i == n {
				return l.Map(l.Lambda1("v", func(v graph.Node) graph.Node { return l.Div(v, div) }), reduceWindow(n, w))
			}
			return l.Zip(l.Lambda([]string{"p", "c"}, func(vs []graph.Node) graph.Node {
				d := vs[1]
				if div != nil {
					d = l.Mul(div, vs[1])
				}
				return nest(i+1, vs[0], d)
			}), w, counts[i])
		}
		return nest(0, wins, nil)
	}), xl)
	if opt.Format == ChannelsFirst {
		y = l.moveAxis(y, n+1, 1)
	}
	return l.done(y)
}

// axisCounts returns, for spatial axis i of x, how many elements of each
// window position lie inside the input (or, withPad, inside the padded
// input): the window sums of ones over the zero-padded axis. The ones are
// made from one line of x along the axis (a conversion of the literal 1
// per element: x's values are not read).
func (l *layer) axisCounts(x graph.Node, xt *graph.ArrayType, f DataFormat, n, i int, s spatial, withPad bool) graph.Node {
	// A line along axis i: drop every other axis with first.
	line := x
	axis := 1 + i
	if f == ChannelsFirst {
		axis = 2 + i
	}
	for d := xt.Rank() - 1; d >= 0; d-- {
		// Dropping the axes from the last keeps the numbers of those
		// before d.
		if d != axis {
			line = l.View(graph.FirstView{Axis: d}, line)
		}
	}
	one := graph.ToF32
	if xt.DType == graph.Float64 {
		one = graph.ToF64
	}
	lo, hi := s.lo, s.hi+s.ceilHi
	if withPad && (s.lo > 0 || s.hi > 0) {
		// Ones over the padded extent: the padded line, read as ones.
		line = l.View(graph.PadView{Axis: 0, Lo: s.lo, Hi: s.hi}, line)
		lo, hi = 0, s.ceilHi
	}
	ones := l.Map(l.Lambda1("v", func(graph.Node) graph.Node { return l.Call(one, l.Const(1)) }), line)
	padded := ones
	if lo > 0 || hi > 0 {
		padded = l.View(graph.PadView{Axis: 0, Lo: lo, Hi: hi}, ones)
	}
	w := l.View(graph.WindowView{Axis: 0, Width: s.size, Stride: s.stride, Dilation: s.dil}, padded)
	return l.Map(l.Lambda1("w", func(w graph.Node) graph.Node { return l.Reduce(l.Op(graph.Add), w) }), w)
}

// GlobalAveragePool returns the mean over every spatial axis of x,
// dt[batch, spatial..., channels] channels last or dt[batch, channels,
// spatial...] channels first, with at least one spatial axis: a
// dt[batch, channels] array.
func GlobalAveragePool(name string, x graph.Node, f DataFormat) (graph.Node, error) {
	l := newLayer("GlobalAveragePool", name)
	if l.name == "" {
		return nil, &Error{Kind: "GlobalAveragePool", Msg: "empty layer name"}
	}
	xt, err := l.floatArray(x)
	if err != nil {
		return nil, err
	}
	if xt.Rank() < 3 {
		return nil, l.errorf("x has type %v of rank %d, want rank 3 or more: batch, channels and spatial axes", xt, xt.Rank())
	}
	if f > ChannelsFirst {
		return nil, l.errorf("unknown data format %d", f)
	}
	n := xt.Rank() - 2
	count := 1
	for _, e := range spatialExtents(xt, f, n) {
		count *= e
	}
	xl := l.channelsLast(x, f, n)
	// Sum [s1, ..., sn, C] to [C] with lifted additions.
	var sum func(rank int, v graph.Node) graph.Node
	sum = func(rank int, v graph.Node) graph.Node {
		if rank == 1 {
			return l.Reduce(l.NZip(l.Op(graph.Add)), v)
		}
		return l.RNZ(l.NZip(l.Op(graph.Add)), l.Lambda1("r", func(r graph.Node) graph.Node { return sum(rank-1, r) }), v)
	}
	y := l.Map(l.Lambda1("img", func(img graph.Node) graph.Node {
		return l.Map(l.Section(graph.Mul, l.Const(1/float64(count)), false), sum(n, img))
	}), xl)
	return l.done(y)
}

// Flatten returns x, dt[batch, d1, ..., dn], as dt[batch, d1*...*dn], row
// by row in row-major order of the inner axes (channels first stays
// channels first: flatten what the framework flattens). It is a view when
// the inner axes are contiguous, and a copy otherwise (a flipped input).
func Flatten(name string, x graph.Node) (graph.Node, error) {
	l := newLayer("Flatten", name)
	if l.name == "" {
		return nil, &Error{Kind: "Flatten", Msg: "empty layer name"}
	}
	xt, err := l.floatArray(x)
	if err != nil {
		return nil, err
	}
	if xt.Rank() < 2 {
		return nil, l.errorf("x has type %v of rank %d, want rank 2 or more: a batch axis and the axes to flatten", xt, xt.Rank())
	}
	lay := xt.Layout
	for lay.Rank() > 2 {
		if lay, err = lay.Flatten(lay.Rank() - 2); err != nil {
			break
		}
	}
	y := x
	if err != nil {
		y = l.MapRank(xt.Rank(), x, func(b *Builder, v graph.Node) graph.Node { return v })
	}
	for r := xt.Rank(); r > 2; r-- {
		y = l.View(graph.FlattenView{Axis: r - 2}, y)
	}
	return l.done(y)
}
