package lowertest

import (
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// ConvBlock builds the convolution benchmark block the back ends are
// timed on: a k×k convolution of ch→ch channels over batch×size×size
// images, channels last, stride 1, "same" padding, with a bias, then
// BatchNorm (inference, over the channels) and ReLU; cut fused (mode
// "fused": the fusion pass) or unfused (one kernel per layer operation).
// The inputs are seeded uniform values, the variances positive.
func ConvBlock(tb testing.TB, batch, size, ch, k int, dt graph.DType, mode string) (*fusion.Graph, map[string]graph.Value) {
	tb.Helper()
	x, err := graph.NewInput("x", graph.ArrayOf(dt, batch, size, size, ch), false)
	if err != nil {
		tb.Fatal(err)
	}
	y, cp, err := layers.Conv2D("conv", x, ch, ch, [2]int{k, k}, dt, layers.ConvOptions{Padding: layers.PadSame})
	if err != nil {
		tb.Fatal(err)
	}
	z, bp, err := layers.BatchNorm("bn", y, ch, dt, layers.BatchNormOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	out, err := layers.ReLU("relu", z)
	if err != nil {
		tb.Fatal(err)
	}
	var g *fusion.Graph
	switch mode {
	case "fused":
		res, err := fusion.Fuse(out, fusion.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		g = res.Graph
	case "unfused":
		if g, err = fusion.Unfused(out); err != nil {
			tb.Fatal(err)
		}
	default:
		tb.Fatalf("unknown mode %q", mode)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	in := map[string]graph.Value{}
	fill := func(name string, lo, hi float64, ext ...int) {
		n := 1
		for _, e := range ext {
			n *= e
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = lo + (hi-lo)*rng.Float64()
		}
		var a *graph.Array
		var err error
		if dt == graph.Float32 {
			v32 := make([]float32, n)
			for i, x := range v {
				v32[i] = float32(x)
			}
			a, err = graph.FromFloat32(v32, ext...)
		} else {
			a, err = graph.FromFloat64(v, ext...)
		}
		if err != nil {
			tb.Fatal(err)
		}
		in[name] = a
	}
	bound := 1 / float64(k*k*ch)
	fill(x.Name, -1, 1, batch, size, size, ch)
	fill(cp.K.Name, -bound, bound, k, k, ch, ch)
	fill(cp.B.Name, -0.1, 0.1, ch)
	fill(bp.Mean.Name, -0.1, 0.1, ch)
	fill(bp.Var.Name, 0.5, 1.5, ch)
	fill(bp.Scale.Name, 0.75, 1.25, ch)
	fill(bp.Shift.Name, -0.1, 0.1, ch)
	return g, in
}
