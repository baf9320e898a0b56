package xla_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestPooling checks max and average poolings built by layers (valid and
// same padding, strides 1 and 2, odd sizes, f32 and f64, channels last and
// first, one and two spatial axes) on PJRT against the interpreter, fused
// and unfused, and that each lowers to stablehlo.reduce_window.
func TestPooling(t *testing.T) {
	client := pjrttest.Client(t)
	type pool struct {
		name        string
		max         bool
		dt          graph.DType
		batch, h, w int // w = 0: one spatial axis
		c           int
		win         []int
		opt         layers.ConvOptions
	}
	same := layers.ConvOptions{Padding: layers.PadSame}
	s2 := func(o layers.ConvOptions, n int) layers.ConvOptions {
		o.Strides = make([]int, n)
		for i := range o.Strides {
			o.Strides[i] = 2
		}
		return o
	}
	cases := []pool{
		{"max-valid-s1", true, graph.Float32, 2, 7, 5, 3, []int{3, 3}, layers.ConvOptions{}},
		{"max-valid-s2", true, graph.Float32, 3, 9, 7, 2, []int{2, 2}, s2(layers.ConvOptions{}, 2)},
		{"max-same-s1-f64", true, graph.Float64, 2, 5, 6, 3, []int{3, 2}, same},
		{"max-same-s2", true, graph.Float32, 2, 7, 5, 4, []int{3, 3}, s2(same, 2)},
		{"max-explicit-f64", true, graph.Float64, 1, 6, 7, 2, []int{3, 3},
			layers.ConvOptions{Padding: layers.PadExplicit, Pads: []int{1, 0, 2, 1}}},
		{"max-channels-first", true, graph.Float32, 2, 5, 7, 3, []int{2, 3},
			layers.ConvOptions{Padding: layers.PadSame, Format: layers.ChannelsFirst}},
		{"max-1d-same-s2", true, graph.Float32, 2, 11, 0, 3, []int{3}, s2(same, 1)},
		{"avg-valid-s1", false, graph.Float32, 2, 7, 5, 3, []int{3, 3}, layers.ConvOptions{}},
		{"avg-valid-s2-f64", false, graph.Float64, 3, 9, 7, 2, []int{2, 3}, s2(layers.ConvOptions{}, 2)},
		{"avg-same-s1", false, graph.Float32, 2, 5, 6, 3, []int{3, 3}, same},
		{"avg-same-s2-f64", false, graph.Float64, 2, 7, 5, 4, []int{3, 2}, s2(same, 2)},
		{"avg-same-count-pad", false, graph.Float32, 2, 7, 5, 2, []int{3, 3},
			layers.ConvOptions{Padding: layers.PadSame, CountIncludePad: true}},
		{"avg-1d-valid", false, graph.Float64, 2, 9, 0, 3, []int{4}, layers.ConvOptions{}},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) {
			var ext []int
			switch {
			case cc.w == 0:
				ext = []int{cc.batch, cc.h, cc.c}
			case cc.opt.Format == layers.ChannelsFirst:
				ext = []int{cc.batch, cc.c, cc.h, cc.w}
			default:
				ext = []int{cc.batch, cc.h, cc.w, cc.c}
			}
			x, err := graph.NewInput("x", graph.ArrayOf(cc.dt, ext...), false)
			if err != nil {
				t.Fatal(err)
			}
			var y graph.Node
			if cc.max {
				y, err = layers.MaxPool("pool", x, cc.win, cc.opt)
			} else {
				y, err = layers.AvgPool("pool", x, cc.win, cc.opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 11, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range lowertest.FusedAndUnfused(t, y) {
				lowertest.Check(t, xla.New(client, xla.Options{}), g, y, in, 0)
				m, err := stablehlo.Module(g)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(m, "stablehlo.reduce_window") {
					t.Errorf("no stablehlo.reduce_window in the module:\n%s", m)
				}
			}
		})
	}
}

// TestPoolingGrad checks the gradient that autodiff gives of sum(y * c)
// for max and average poolings with respect to x on PJRT against the
// interpreter, with x drawn from {0, 1, 2} so that windows tie and the
// max-pool's cotangent follows the interpreter's tie rule (split equally
// among a window's maxima). The value of the loss reads the forward
// pooling, which lowers to stablehlo.reduce_window there too.
func TestPoolingGrad(t *testing.T) {
	client := pjrttest.Client(t)
	for _, cc := range []struct {
		name string
		max  bool
		dt   graph.DType
		opt  layers.ConvOptions
	}{
		{"max-same-s2", true, graph.Float64, layers.ConvOptions{Padding: layers.PadSame, Strides: []int{2, 2}}},
		{"max-valid-s1", true, graph.Float32, layers.ConvOptions{}},
		{"avg-same-s1", false, graph.Float64, layers.ConvOptions{Padding: layers.PadSame}},
		{"avg-valid-s2", false, graph.Float32, layers.ConvOptions{Strides: []int{2, 2}}},
	} {
		t.Run(cc.name, func(t *testing.T) {
			x, err := graph.NewInput("x", graph.ArrayOf(cc.dt, 2, 7, 5, 3), false)
			if err != nil {
				t.Fatal(err)
			}
			pool := layers.AvgPool2D
			if cc.max {
				pool = layers.MaxPool2D
			}
			y, err := pool("pool", x, [2]int{3, 3}, cc.opt)
			if err != nil {
				t.Fatal(err)
			}
			yt, err := graph.Check(y)
			if err != nil {
				t.Fatal(err)
			}
			c, err := graph.NewInput("c", graph.ArrayOf(cc.dt, yt.Types[y].(*graph.ArrayType).Layout.Extents()...), false)
			if err != nil {
				t.Fatal(err)
			}
			fn, err := graph.ParseTerm(`\a b -> rnz (+) (\a b -> rnz (+) (\a b -> rnz (+) (\a b -> rnz (+) (*) a b) a b) a b) a b`)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := graph.NewApp(fn, y, c)
			if err != nil {
				t.Fatal(err)
			}
			g, err := autodiff.Grad(loss, []*graph.Input{x})
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(g, 5, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			xa := in["x"].(*graph.Array)
			e := xa.Layout().Extents()
			ties := 0
			for i := range e[0] {
				for j := range e[1] {
					for k := range e[2] {
						for l := range e[3] {
							v := float64((i + 2*j + 3*k + l) % 3)
							xa.Set(v, i, j, k, l)
							if v == 2 {
								ties++
							}
						}
					}
				}
			}
			if ties == 0 {
				t.Fatal("no ties drawn")
			}
			res, err := fusion.Fuse(g, fusion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			unf, err := fusion.Unfused(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, fg := range []*fusion.Graph{res.Graph, unf} {
				lowertest.Check(t, xla.New(client, xla.Options{}), fg, g, in, 0)
				m, err := stablehlo.Module(fg)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(m, "stablehlo.reduce_window") {
					t.Errorf("no stablehlo.reduce_window in the module")
				}
			}
		})
	}
}

// TestReduceWindowTerms checks window reductions written as terms that no
// layer builds — min with +Inf padding, windows without a channel axis,
// a dilated window — on PJRT against the interpreter, fused and unfused,
// and whether each lowers to stablehlo.reduce_window: not the dilated one
// (go-xla would write its window dilations as base dilations too), nor a
// max over zero padding (the pads are not max's identity).
func TestReduceWindowTerms(t *testing.T) {
	client := pjrttest.Client(t)
	for _, cc := range []struct {
		name, src string
		want      bool
	}{
		{"min-padpinf-channels", `x : f32[2, 9, 3]; map (\img -> map (\w -> rnz (zip min) (\r -> r) w) (window 0 3 2 (padpinf 0 1 1 img))) x`, true},
		{"min-no-channels-f64", `x : f64[3, 9]; map (\img -> map (\w -> reduce min w) (window 0 3 2 (padpinf 0 2 1 img))) x`, true},
		{"max-2d-no-channels", `x : f32[2, 6, 5]; map (\img -> map (map (\w -> rnz max (\r -> reduce max r) w)) (flip 1 (window 0 3 (window 1 2 2 img)))) x`, true},
		{"sum-2d-flipped-base", `x : f64[2, 4, 6, 5]; map (\img -> map (map (\w -> rnz (zip (+)) (\r -> reduce (zip (+)) r) w)) (flip 1 (window 0 2 (window 1 3 2 (flip 0 2 img))))) x`, true},
		{"max-dilated", `x : f32[2, 9, 3]; map (\img -> map (\w -> reduce (zip max) w) (window 0 3 1 2 img)) x`, false},
		{"max-zero-pad", `x : f32[2, 9, 3]; map (\img -> map (\w -> reduce (zip max) w) (window 0 3 2 (pad 0 1 1 img))) x`, false},
	} {
		t.Run(cc.name, func(t *testing.T) { checkModuleOp(t, client, cc.src, 3, "stablehlo.reduce_window", cc.want) })
	}
}

// TestTilingWindow: windows that tile their axis (stride = width, no
// dilation), with or without a tail no window reaches, lower to a reshape
// (no stablehlo.concatenate in the module) and agree with the interpreter
// on PJRT, fused and unfused; an overlapping window keeps the
// concatenated slices.
func TestTilingWindow(t *testing.T) {
	client := pjrttest.Client(t)
	for _, cc := range []struct {
		name, src string
		concat    bool
	}{
		{"exact", `x : f32[2, 8, 3]; map (\img -> window 0 2 2 img) x`, false},
		{"tails-2d", `x : f64[2, 9, 7, 3]; map (\img -> window 2 3 3 (window 0 2 2 img)) x`, false},
		{"width-1-dilated", `x : f32[5, 4]; window 0 1 1 3 x`, false},
		{"sum-of-squares", `x : f32[3, 7, 2]; map (\img -> map (\w -> rnz (zip (+)) (\r -> zip (*) r r) w) (window 0 3 3 img)) x`, false},
		{"overlapping", `x : f32[2, 9, 3]; map (\img -> window 0 3 2 img) x`, true},
	} {
		t.Run(cc.name, func(t *testing.T) { checkModuleOp(t, client, cc.src, 5, "stablehlo.concatenate", cc.concat) })
	}
}

// checkModuleOp runs the program src fused and unfused on PJRT against
// the interpreter (inputs drawn with seed) and checks that its module
// contains op exactly when want.
func checkModuleOp(t *testing.T, client *pjrt.Client, src string, seed uint64, op string, want bool) {
	t.Helper()
	p, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	y := p.Body
	in, err := lowertest.Inputs(y, seed, 0, lowertest.Dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range lowertest.FusedAndUnfused(t, y) {
		lowertest.Check(t, xla.New(client, xla.Options{}), g, y, in, 0)
		m, err := stablehlo.Module(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(m, op); got != want {
			t.Errorf("%s in the module: %v, want %v:\n%s", op, got, want, m)
		}
	}
}
