package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// convCase is one convolution or pooling, channels last, with the
// geometry spelled out for the reference loops below.
type convCase struct {
	name             string
	n, h, w, c, o    int
	kh, kw           int
	sh, sw, dh, dw   int
	groups           int
	padding          layers.PaddingMode
	pads             []int // explicit: top, bottom, left, right
	countIncludePads bool
}

// resolve returns the output extents and the padding before each axis,
// by the formulas the frameworks document (TensorFlow's SAME: total
// padding max((out-1)*stride + span - in, 0), the odd element after).
func (c convCase) resolve() (oh, ow, top, left int) {
	spanH, spanW := (c.kh-1)*c.dh+1, (c.kw-1)*c.dw+1
	var bottom, right int
	switch c.padding {
	case layers.PadSame:
		oh, ow = (c.h+c.sh-1)/c.sh, (c.w+c.sw-1)/c.sw
		th, tw := max((oh-1)*c.sh+spanH-c.h, 0), max((ow-1)*c.sw+spanW-c.w, 0)
		top, left = th/2, tw/2
		return
	case layers.PadExplicit:
		top, bottom, left, right = c.pads[0], c.pads[1], c.pads[2], c.pads[3]
	}
	oh = (c.h+top+bottom-spanH)/c.sh + 1
	ow = (c.w+left+right-spanW)/c.sw + 1
	return
}

func (c convCase) opts(f layers.DataFormat) layers.ConvOptions {
	return layers.ConvOptions{Format: f, Strides: []int{c.sh, c.sw}, Dilations: []int{c.dh, c.dw},
		Padding: c.padding, Pads: c.pads, Groups: c.groups}
}

// refConv is the convolution by its definition: x [n,h,w,c], k
// [kh,kw,c/g,o], b [o], zero outside x.
func refConv(c convCase, x, k, b []float64) []float64 {
	oh, ow, top, left := c.resolve()
	cg, og := c.c/c.groups, c.o/c.groups
	out := make([]float64, c.n*oh*ow*c.o)
	for n := range c.n {
		for i := range oh {
			for j := range ow {
				for o := range c.o {
					g := o / og
					s := b[o]
					for a := range c.kh {
						for bb := range c.kw {
							y, xx := i*c.sh+a*c.dh-top, j*c.sw+bb*c.dw-left
							if y < 0 || y >= c.h || xx < 0 || xx >= c.w {
								continue
							}
							for ci := range cg {
								s += x[((n*c.h+y)*c.w+xx)*c.c+g*cg+ci] * k[((a*c.kw+bb)*cg+ci)*c.o+o]
							}
						}
					}
					out[((n*oh+i)*ow+j)*c.o+o] = s
				}
			}
		}
	}
	return out
}

// refPool is max or average pooling by its definition.
func refPool(c convCase, x []float64, isMax bool) []float64 {
	oh, ow, top, left := c.resolve()
	out := make([]float64, c.n*oh*ow*c.c)
	for n := range c.n {
		for i := range oh {
			for j := range ow {
				for ch := range c.c {
					m, s, cnt := math.Inf(-1), 0.0, 0
					for a := range c.kh {
						for bb := range c.kw {
							y, xx := i*c.sh+a-top, j*c.sw+bb-left
							if y < 0 || y >= c.h || xx < 0 || xx >= c.w {
								continue
							}
							v := x[((n*c.h+y)*c.w+xx)*c.c+ch]
							m, s, cnt = math.Max(m, v), s+v, cnt+1
						}
					}
					if c.countIncludePads {
						cnt = c.kh * c.kw
					}
					r := m
					if !isMax {
						r = s / float64(cnt)
					}
					out[((n*oh+i)*ow+j)*c.c+ch] = r
				}
			}
		}
	}
	return out
}

// nhwcToNCHW reorders [n,h,w,c] data to [n,c,h,w].
func nhwcToNCHW(v []float64, n, h, w, c int) []float64 {
	out := make([]float64, len(v))
	for a := range n {
		for y := range h {
			for x := range w {
				for ch := range c {
					out[((a*c+ch)*h+y)*w+x] = v[((a*h+y)*w+x)*c+ch]
				}
			}
		}
	}
	return out
}

// hwioToOIHW reorders a [kh,kw,i,o] kernel to [o,i,kh,kw].
func hwioToOIHW(v []float64, kh, kw, i, o int) []float64 {
	out := make([]float64, len(v))
	for a := range kh {
		for b := range kw {
			for ci := range i {
				for co := range o {
					out[((co*i+ci)*kh+a)*kw+b] = v[((a*kw+b)*i+ci)*o+co]
				}
			}
		}
	}
	return out
}

var convCases = []convCase{
	{name: "valid", n: 2, h: 5, w: 6, c: 3, o: 4, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, groups: 1},
	{name: "same-odd", n: 1, h: 7, w: 5, c: 2, o: 3, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, groups: 1, padding: layers.PadSame},
	{name: "same-stride2", n: 2, h: 7, w: 6, c: 2, o: 2, kh: 3, kw: 2, sh: 2, sw: 2, dh: 1, dw: 1, groups: 1, padding: layers.PadSame},
	{name: "explicit-stride-dilation", n: 1, h: 9, w: 8, c: 2, o: 3, kh: 3, kw: 2, sh: 2, sw: 3, dh: 2, dw: 2, groups: 1,
		padding: layers.PadExplicit, pads: []int{1, 2, 0, 1}},
	{name: "groups", n: 2, h: 5, w: 5, c: 4, o: 6, kh: 2, kw: 3, sh: 1, sw: 2, dh: 1, dw: 1, groups: 2, padding: layers.PadSame},
	{name: "depthwise", n: 1, h: 6, w: 5, c: 3, o: 6, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, groups: 3, padding: layers.PadSame},
	{name: "1x1", n: 2, h: 3, w: 4, c: 5, o: 2, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1, groups: 1},
}

// TestConv2D checks Conv2D against refConv, channels last and first, in
// f32 and f64, for every padding mode, strides, dilations, groups and a
// depthwise kernel on odd sizes.
func TestConv2D(t *testing.T) {
	for ci, c := range convCases {
		for _, f := range []layers.DataFormat{layers.ChannelsLast, layers.ChannelsFirst} {
			for _, dt := range dtypes {
				t.Run(fmt.Sprintf("%s/%v/%v", c.name, f == layers.ChannelsFirst, dt), func(t *testing.T) {
					r := rng(uint64(ci))
					xv := uniform(r, dt, c.n*c.h*c.w*c.c, -1, 1)
					kv := uniform(r, dt, c.kh*c.kw*(c.c/c.groups)*c.o, -1, 1)
					bv := uniform(r, dt, c.o, -1, 1)
					want := refConv(c, xv, kv, bv)
					oh, ow, _, _ := c.resolve()
					xe, ye := []int{c.n, c.h, c.w, c.c}, []int{c.n, oh, ow, c.o}
					xd, kd, ke := xv, kv, []int{c.kh, c.kw, c.c / c.groups, c.o}
					if f == layers.ChannelsFirst {
						xe, ye = []int{c.n, c.c, c.h, c.w}, []int{c.n, c.o, oh, ow}
						xd, kd, ke = nhwcToNCHW(xv, c.n, c.h, c.w, c.c), hwioToOIHW(kv, c.kh, c.kw, c.c/c.groups, c.o), []int{c.o, c.c / c.groups, c.kh, c.kw}
						want = nhwcToNCHW(want, c.n, oh, ow, c.o)
					}
					x := input(t, dt, xe...)
					y, p, err := layers.Conv2D("conv1", x, c.c, c.o, [2]int{c.kh, c.kw}, dt, c.opts(f))
					if err != nil {
						t.Fatal(err)
					}
					assertSources(t, y, "conv1")
					if p.K.Name != "conv1.K" || p.B.Name != "conv1.b" || len(p.Params()) != 2 {
						t.Errorf("params %s, %s", p.K.Name, p.B.Name)
					}
					got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xd, xe...),
						"conv1.K": array(t, dt, kd, ke...), "conv1.b": array(t, dt, bv, c.o)}, dt, ye...)
					assertClose(t, dt, got, want)
				})
			}
		}
	}
}

// TestConv1D checks Conv1D as the Conv2D of height 1.
func TestConv1D(t *testing.T) {
	c := convCase{n: 2, h: 1, w: 9, c: 2, o: 3, kh: 1, kw: 3, sh: 1, sw: 2, dh: 1, dw: 2, groups: 1,
		padding: layers.PadExplicit, pads: []int{0, 0, 2, 1}}
	dt := graph.Float64
	r := rng(9)
	xv := uniform(r, dt, c.n*c.w*c.c, -1, 1)
	kv := uniform(r, dt, c.kw*c.c*c.o, -1, 1)
	bv := uniform(r, dt, c.o, -1, 1)
	want := refConv(c, xv, kv, bv)
	_, ow, _, _ := c.resolve()
	x := input(t, dt, c.n, c.w, c.c)
	y, _, err := layers.Conv1D("c1", x, c.c, c.o, c.kw, dt, layers.ConvOptions{Strides: []int{2}, Dilations: []int{2},
		Padding: layers.PadExplicit, Pads: []int{2, 1}})
	if err != nil {
		t.Fatal(err)
	}
	got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, c.n, c.w, c.c),
		"c1.K": array(t, dt, kv, c.kw, c.c, c.o), "c1.b": array(t, dt, bv, c.o)}, dt, c.n, ow, c.o)
	assertClose(t, dt, got, want)
}

var poolCases = []convCase{
	{name: "valid-2x2", n: 2, h: 6, w: 4, c: 3, kh: 2, kw: 2, sh: 2, sw: 2},
	{name: "same-3x3-s2", n: 1, h: 7, w: 6, c: 2, kh: 3, kw: 3, sh: 2, sw: 2, padding: layers.PadSame},
	{name: "explicit-overlap", n: 2, h: 5, w: 5, c: 1, kh: 3, kw: 2, sh: 1, sw: 2, padding: layers.PadExplicit, pads: []int{1, 1, 1, 0}},
	{name: "explicit-include-pad", n: 1, h: 5, w: 4, c: 2, kh: 3, kw: 3, sh: 2, sw: 1, padding: layers.PadExplicit, pads: []int{1, 1, 1, 1}, countIncludePads: true},
}

// TestPools checks MaxPool2D and AvgPool2D against refPool, channels last
// and first.
func TestPools(t *testing.T) {
	for ci, c := range poolCases {
		c.dh, c.dw, c.groups = 1, 1, 1
		for _, isMax := range []bool{true, false} {
			for _, f := range []layers.DataFormat{layers.ChannelsLast, layers.ChannelsFirst} {
				dt := graph.Float64
				if ci%2 == 1 {
					dt = graph.Float32
				}
				t.Run(fmt.Sprintf("%s/max=%v/first=%v", c.name, isMax, f == layers.ChannelsFirst), func(t *testing.T) {
					r := rng(uint64(100 + ci))
					xv := uniform(r, dt, c.n*c.h*c.w*c.c, -1, 1)
					want := refPool(c, xv, isMax)
					oh, ow, _, _ := c.resolve()
					xe, ye := []int{c.n, c.h, c.w, c.c}, []int{c.n, oh, ow, c.c}
					xd := xv
					if f == layers.ChannelsFirst {
						xe, ye = []int{c.n, c.c, c.h, c.w}, []int{c.n, c.c, oh, ow}
						xd, want = nhwcToNCHW(xv, c.n, c.h, c.w, c.c), nhwcToNCHW(want, c.n, oh, ow, c.c)
					}
					opt := layers.ConvOptions{Format: f, Strides: []int{c.sh, c.sw}, Padding: c.padding, Pads: c.pads, CountIncludePad: c.countIncludePads}
					x := input(t, dt, xe...)
					pool := layers.AvgPool2D
					if isMax {
						pool = layers.MaxPool2D
					}
					y, err := pool("pool1", x, [2]int{c.kh, c.kw}, opt)
					if err != nil {
						t.Fatal(err)
					}
					assertSources(t, y, "pool1")
					got := eval(t, y, map[string]graph.Value{"x": array(t, dt, xd, xe...)}, dt, ye...)
					assertClose(t, dt, got, want)
				})
			}
		}
	}
}

// TestGlobalAveragePoolAndFlatten checks both formats of
// GlobalAveragePool and Flatten of a contiguous and a flipped input.
func TestGlobalAveragePoolAndFlatten(t *testing.T) {
	dt := graph.Float64
	xv := uniform(rng(5), dt, 2*3*4*5, -1, 1)
	want := make([]float64, 2*5)
	for n := range 2 {
		for ch := range 5 {
			s := 0.0
			for k := range 12 {
				s += xv[(n*12+k)*5+ch]
			}
			want[n*5+ch] = s / 12
		}
	}
	x := input(t, dt, 2, 3, 4, 5)
	y, err := layers.GlobalAveragePool("gap", x, layers.ChannelsLast)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, dt, eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, 2, 3, 4, 5)}, dt, 2, 5), want)
	xf := input(t, dt, 2, 5, 3, 4)
	y, err = layers.GlobalAveragePool("gap", xf, layers.ChannelsFirst)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, dt, eval(t, y, map[string]graph.Value{"x": array(t, dt, nhwcToNCHW(xv, 2, 3, 4, 5), 2, 5, 3, 4)}, dt, 2, 5), want)

	// Flatten: a view of a row-major input, a copy of a flipped one.
	y, err = layers.Flatten("flat", x)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := y.(graph.ViewNode); !ok {
		t.Errorf("flatten of a row-major input is %s, want a view", graph.Abbrev(y, 40))
	}
	assertClose(t, dt, eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, 2, 3, 4, 5)}, dt, 2, 60), xv)
	fl, err := graph.NewFlip(1, 2, x)
	if err != nil {
		t.Fatal(err)
	}
	y, err = layers.Flatten("flat", fl)
	if err != nil {
		t.Fatal(err)
	}
	wantF := make([]float64, 0, len(xv))
	for n := range 2 {
		for b := range 4 {
			for a := range 3 {
				wantF = append(wantF, xv[((n*3+a)*4+b)*5:((n*3+a)*4+b)*5+5]...)
			}
		}
	}
	assertClose(t, dt, eval(t, y, map[string]graph.Value{"x": array(t, dt, xv, 2, 3, 4, 5)}, dt, 2, 60), wantF)
}

// TestConvErrors: errors name the layer and the numbers.
func TestConvErrors(t *testing.T) {
	dt := graph.Float32
	x := input(t, dt, 2, 5, 5, 6)
	for _, tc := range []struct {
		in, out int
		k       [2]int
		opt     layers.ConvOptions
		want    string
	}{
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Groups: 4}, "conv1 (Conv2D): groups = 4 does not divide the 6 input channels"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Groups: 3}, "conv1 (Conv2D): groups = 3 does not divide the 4 output channels"},
		{4, 4, [2]int{3, 3}, layers.ConvOptions{}, "conv1 (Conv2D): x has type f32[2,5,5,6], want f32[batch,height,width,4]: axis 3 (channels) has extent 6, not 4"},
		{6, 4, [2]int{6, 3}, layers.ConvOptions{}, "conv1 (Conv2D): height window of 6 is larger than the padded height 5 (input 5, padding 0 before and 0 after)"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Dilations: []int{1, 3}},
			"conv1 (Conv2D): width window of 3 at dilation 3, spanning 7, is larger than the padded width 5 (input 5, padding 0 before and 0 after)"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Strides: []int{1, -2}}, "conv1 (Conv2D): width stride = -2, want at least 1"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Dilations: []int{-1, 1}}, "conv1 (Conv2D): height dilation = -1, want at least 1"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 1}}, "conv1 (Conv2D): 2 explicit pads for 2 spatial axes, want 4 (before and after each)"},
		{6, 4, [2]int{0, 3}, layers.ConvOptions{}, "conv1 (Conv2D): kernel height = 0, want at least 1"},
		{6, 4, [2]int{3, 3}, layers.ConvOptions{Format: layers.ChannelsFirst}, "conv1 (Conv2D): x has type f32[2,5,5,6], want f32[batch,6,height,width]: axis 1 (channels) has extent 5, not 6"},
	} {
		_, _, err := layers.Conv2D("conv1", x, tc.in, tc.out, tc.k, dt, tc.opt)
		assertError(t, err, tc.want)
	}
	_, _, err := layers.Conv2D("conv", x, 6, 2, [2]int{2, 2}, dt, layers.ConvOptions{CeilMode: true})
	assertError(t, err, "conv (Conv2D): ceil mode is for poolings; a convolution takes no partial windows")
	_, err = layers.MaxPool("pool", x, []int{2, 2, 2, 2}, layers.ConvOptions{})
	assertError(t, err, "pool (MaxPool): a window of 4 axes [2 2 2 2]; one, two or three spatial axes are supported")
	_, err = layers.AvgPool2D("pool", x, [2]int{2, 2}, layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{2, 0, 0, 0}})
	assertError(t, err, "pool (AvgPool2D): height padding 2 before and 0 after is not smaller than the window of 2: a window would see padding only")
	_, err = layers.MaxPool2D("pool", input(t, dt, 2, 5), [2]int{2, 2}, layers.ConvOptions{})
	assertError(t, err, "pool (MaxPool2D): x has type f32[2,5] of rank 2, want rank 4: f32[batch,height,width,channels]")
}

// TestBatchNormChannels: BatchNorm of a rank-4 input normalises each
// channel (the last axis) over the batch and the image, in training mode
// with the biased variance of those N*H*W values, in inference mode with
// the running statistics; the running statistics term sees the same
// values.
func TestBatchNormChannels(t *testing.T) {
	const n, h, w, c = 2, 3, 2, 3
	dt := graph.Float64
	r := rng(77)
	xv := uniform(r, dt, n*h*w*c, -2, 2)
	scale, shift := uniform(r, dt, c, 0.5, 1.5), uniform(r, dt, c, -1, 1)
	mean, variance := uniform(r, dt, c, -1, 1), uniform(r, dt, c, 0.5, 1.5)
	rows := n * h * w
	for _, training := range []bool{true, false} {
		x := input(t, dt, n, h, w, c)
		y, p, err := layers.BatchNorm("bn", x, c, dt, layers.BatchNormOptions{Training: training})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(xv))
		bm, bv := make([]float64, c), make([]float64, c)
		for ch := range c {
			m, s := mean[ch], variance[ch]
			if training {
				m, s = 0, 0
				for i := range rows {
					m += xv[i*c+ch]
				}
				m /= float64(rows)
				for i := range rows {
					s += (xv[i*c+ch] - m) * (xv[i*c+ch] - m)
				}
				s /= float64(rows)
			}
			bm[ch], bv[ch] = m, s
			for i := range rows {
				want[i*c+ch] = (xv[i*c+ch]-m)/math.Sqrt(s+layers.DefaultBatchNormEps)*scale[ch] + shift[ch]
			}
		}
		bind := map[string]graph.Value{"x": array(t, dt, xv, n, h, w, c), "bn.scale": array(t, dt, scale, c), "bn.shift": array(t, dt, shift, c)}
		if !training {
			bind["bn.mean"], bind["bn.var"] = array(t, dt, mean, c), array(t, dt, variance, c)
		}
		assertClose(t, dt, eval(t, y, bind, dt, n, h, w, c), want)
		if !training {
			continue
		}
		if p.Batch != rows {
			t.Errorf("Batch %d, want %d", p.Batch, rows)
		}
		rs, err := layers.BatchNormRunningStats(p, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Eval(rs, map[string]graph.Value{"x": bind["x"], "bn.mean": array(t, dt, mean, c), "bn.var": array(t, dt, variance, c)})
		if err != nil {
			t.Fatal(err)
		}
		tv := v.(graph.TupleValue)
		wm, wv := make([]float64, c), make([]float64, c)
		for ch := range c {
			wm[ch] = 0.5*mean[ch] + 0.5*bm[ch]
			wv[ch] = 0.5*variance[ch] + 0.5*bv[ch]*float64(rows)/float64(rows-1)
		}
		assertClose(t, dt, tv[0].(*graph.Array).Values(), wm)
		assertClose(t, dt, tv[1].(*graph.Array).Values(), wv)
	}
}
