package layers_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
)

// nativePads says whether the native back end lowers pad views. While it
// does not, the fixture cases that pad are checked to be refused with
// native.ErrUnsupported; set it when the lowering arrives, and they are
// compared like the others.
const nativePads = true

// convFixture is one case of testdata/conv_jax.json (see
// testdata/make_conv_fixtures.py).
type convFixture struct {
	Name      string    `json:"name"`
	Kind      string    `json:"kind"` // pools: "max" or "avg"
	Format    string    `json:"format"`
	Batch     int       `json:"batch"`
	Spatial   []int     `json:"spatial"`
	In        int       `json:"in"`
	Out       int       `json:"out"`
	Channels  int       `json:"channels"`
	Kernel    []int     `json:"kernel"`
	Window    []int     `json:"window"`
	Strides   []int     `json:"strides"`
	Dilations []int     `json:"dilations"`
	Groups    int       `json:"groups"`
	Padding   string    `json:"padding"`
	Pads      []int     `json:"pads"`
	Include   bool      `json:"count_include_pad"`
	Ceil      bool      `json:"ceil_mode"`
	X         []float64 `json:"x"`
	K         []float64 `json:"K"`
	B         []float64 `json:"b"`
	C         []float64 `json:"c"`
	Y         []float64 `json:"y"`
	YShape    []int     `json:"y_shape"`
	DX        []float64 `json:"dx"`
	DK        []float64 `json:"dK"`
	DB        []float64 `json:"db"`
}

func (f convFixture) opts() layers.ConvOptions {
	o := layers.ConvOptions{Strides: f.Strides, Dilations: f.Dilations, Groups: f.Groups, Pads: f.Pads, CountIncludePad: f.Include, CeilMode: f.Ceil}
	if f.Format == "first" {
		o.Format = layers.ChannelsFirst
	}
	switch f.Padding {
	case "same":
		o.Padding = layers.PadSame
	case "explicit":
		o.Padding = layers.PadExplicit
	}
	return o
}

// xExtents are the input's extents in its format.
func (f convFixture) xExtents(channels int) []int {
	if f.Format == "first" {
		return append([]int{f.Batch, channels}, f.Spatial...)
	}
	return append(append([]int{f.Batch}, f.Spatial...), channels)
}

func readConvFixtures(t *testing.T) (convs, pools []convFixture) {
	t.Helper()
	data, err := os.ReadFile("testdata/conv_jax.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Convs []convFixture `json:"convs"`
		Pools []convFixture `json:"pools"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Convs) < 10 || len(file.Pools) < 5 {
		t.Fatalf("%d convolutions and %d poolings in the fixtures, want 10 and 5 at least", len(file.Convs), len(file.Pools))
	}
	return file.Convs, file.Pools
}

// dotLoss returns sum(y * c) for arrays y and c of the given rank.
func dotLoss(t *testing.T, y, c graph.Node, rank int) graph.Node {
	t.Helper()
	body := "rnz (+) (*) a b"
	for range rank - 1 {
		body = `rnz (+) (\a b -> ` + body + `) a b`
	}
	fn, err := graph.ParseTerm(`\a b -> ` + body)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := graph.NewApp(fn, y, c)
	if err != nil {
		t.Fatal(err)
	}
	return loss
}

// fixtureTolerance: JAX and the interpreter compute in float64 in other
// orders; the sums have at most a few hundred terms of magnitude 1.
const fixtureTolerance = 1e-12

// TestConvAgainstJAX checks Conv1D and Conv2D, and the gradients of
// sum(y * c) with respect to x, the kernel and the bias that
// autodiff.Grad gives, against jax.lax.conv_general_dilated and jax.grad,
// for every case of testdata/conv_jax.json: the interpreter, and the
// native back end (fused) where it lowers the case.
func TestConvAgainstJAX(t *testing.T) {
	convs, _ := readConvFixtures(t)
	dt := graph.Float64
	for _, f := range convs {
		t.Run(f.Name, func(t *testing.T) {
			x := input(t, dt, f.xExtents(f.In)...)
			var y graph.Node
			var p *layers.ConvParams
			var err error
			switch len(f.Spatial) {
			case 1:
				y, p, err = layers.Conv1D("conv", x, f.In, f.Out, f.Kernel[0], dt, f.opts())
			case 2:
				y, p, err = layers.Conv2D("conv", x, f.In, f.Out, [2]int{f.Kernel[0], f.Kernel[1]}, dt, f.opts())
			default:
				y, p, err = layers.Conv3D("conv", x, f.In, f.Out, [3]int{f.Kernel[0], f.Kernel[1], f.Kernel[2]}, dt, f.opts())
			}
			if err != nil {
				t.Fatal(err)
			}
			kExt := p.K.Type.(*graph.ArrayType).Layout.Extents()
			c, err := graph.NewInput("c", graph.ArrayOf(dt, f.YShape...), false)
			if err != nil {
				t.Fatal(err)
			}
			bind := map[string]graph.Value{"x": array(t, dt, f.X, f.xExtents(f.In)...), "conv.K": array(t, dt, f.K, kExt...),
				"conv.b": array(t, dt, f.B, f.Out), "c": array(t, dt, f.C, f.YShape...)}
			got := eval(t, y, without(bind, "c"), dt, f.YShape...)
			assertNear(t, "y", got, f.Y, fixtureTolerance)

			loss := dotLoss(t, y, c, len(f.YShape))
			g, err := autodiff.Grad(loss, []*graph.Input{x, p.K, p.B})
			if err != nil {
				t.Fatal(err)
			}
			gv, err := graph.Eval(g, bind)
			if err != nil {
				t.Fatal(err)
			}
			tv := gv.(graph.TupleValue)
			for i, want := range [][]float64{f.DX, f.DK, f.DB} {
				assertNear(t, []string{"dx", "dK", "db"}[i], tv[i+1].(*graph.Array).Values(), want, fixtureTolerance)
			}
			checkNative(t, f, y, bind)
		})
	}
}

// TestPoolsAgainstJAX checks MaxPool and AvgPool (one to three spatial
// axes, dilated, ceil mode) and their gradients against
// jax.lax.reduce_window and jax.grad.
func TestPoolsAgainstJAX(t *testing.T) {
	_, pools := readConvFixtures(t)
	dt := graph.Float64
	for _, f := range pools {
		t.Run(f.Name, func(t *testing.T) {
			x := input(t, dt, f.xExtents(f.Channels)...)
			pool := layers.AvgPool
			if f.Kind == "max" {
				pool = layers.MaxPool
			}
			y, err := pool("pool", x, f.Window, f.opts())
			if err != nil {
				t.Fatal(err)
			}
			c, err := graph.NewInput("c", graph.ArrayOf(dt, f.YShape...), false)
			if err != nil {
				t.Fatal(err)
			}
			bind := map[string]graph.Value{"x": array(t, dt, f.X, f.xExtents(f.Channels)...), "c": array(t, dt, f.C, f.YShape...)}
			assertNear(t, "y", eval(t, y, without(bind, "c"), dt, f.YShape...), f.Y, fixtureTolerance)
			g, err := autodiff.Grad(dotLoss(t, y, c, len(f.YShape)), []*graph.Input{x})
			if err != nil {
				t.Fatal(err)
			}
			gv, err := graph.Eval(g, bind)
			if err != nil {
				t.Fatal(err)
			}
			assertNear(t, "dx", gv.(graph.TupleValue)[1].(*graph.Array).Values(), f.DX, fixtureTolerance)
			checkNative(t, f, y, bind)
		})
	}
}

// checkNative runs y fused on the native back end and compares it with
// the fixture's output, or, for a padded case while nativePads is false,
// checks that native refuses it as unsupported.
func checkNative(t *testing.T, f convFixture, y graph.Node, bind map[string]graph.Value) {
	t.Helper()
	res, err := fusion.Fuse(y, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := native.New(native.Options{}).Compile(res.Graph)
	padded := f.Padding == "same" || f.Padding == "explicit"
	if padded && !nativePads {
		if err == nil {
			exe.Close()
			t.Fatalf("native compiled a padded case: set nativePads")
		}
		if !errors.Is(err, native.ErrUnsupported) || !strings.Contains(err.Error(), "pad") {
			t.Fatalf("native: %v, want ErrUnsupported naming the pad view", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in := map[string]graph.Value{}
	for _, i := range res.Graph.Inputs {
		in[i.Name] = bind[i.Name]
	}
	v, err := exe.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "native y", v.(*graph.Array).Values(), f.Y, fixtureTolerance)
}

// assertNear compares got with want: |got - want| <= tol * max(1, |want|).
func assertNear(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		d := got[i] - want[i]
		if d < 0 {
			d = -d
		}
		s := want[i]
		if s < 0 {
			s = -s
		}
		if !(d <= tol*max(1, s)) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, JAX gives %v", what, i, got[i], want[i])
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(got))
	}
}

// without returns m without the key k.
func without(m map[string]graph.Value, k string) map[string]graph.Value {
	out := make(map[string]graph.Value, len(m))
	for n, v := range m {
		if n != k {
			out[n] = v
		}
	}
	return out
}
