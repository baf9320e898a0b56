package native_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
)

// TestPadChain checks chains of pads against the interpreter: a chain of
// one fill without interior padding is materialised once with only its
// border filled ("filling its border" in the plan, one materialisation);
// a change of fill or an interior pad ends the chain, and each part keeps
// its own fill.
func TestPadChain(t *testing.T) {
	type pad struct {
		axis, lo, hi, interior int
		fill                   graph.Fill
	}
	cases := []struct {
		name   string
		dt     graph.DType
		ext    []int
		pads   []pad // innermost first
		boxes  int   // materialisations with a border fill
		others int   // materialisations of one pad, fully filled
	}{
		{"conv-same", graph.Float32, []int{2, 5, 7, 3}, []pad{{1, 1, 1, 0, graph.FillZero}, {2, 1, 1, 0, graph.FillZero}}, 1, 0},
		{"uneven-f64", graph.Float64, []int{3, 4, 6}, []pad{{1, 2, 0, 0, graph.FillZero}, {2, 0, 3, 0, graph.FillZero}, {0, 1, 1, 0, graph.FillZero}}, 1, 0},
		{"same-axis-twice", graph.Float32, []int{4, 5}, []pad{{1, 1, 2, 0, graph.FillNegInf}, {1, 3, 0, 0, graph.FillNegInf}}, 1, 0},
		{"fills-differ", graph.Float32, []int{3, 4, 2}, []pad{{0, 1, 1, 0, graph.FillZero}, {1, 2, 1, 0, graph.FillNegInf}}, 2, 0},
		{"interior-inside", graph.Float64, []int{3, 5}, []pad{{1, 1, 1, 2, graph.FillZero}, {0, 1, 2, 0, graph.FillZero}}, 1, 1},
	}
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) {
			x, err := graph.NewInput("x", graph.ArrayOf(cc.dt, cc.ext...), false)
			if err != nil {
				t.Fatal(err)
			}
			var y graph.Node = x
			for _, p := range cc.pads {
				if y, err = graph.NewView(graph.PadView{Axis: p.axis, Lo: p.lo, Hi: p.hi, Interior: p.interior, Fill: p.fill}, y); err != nil {
					t.Fatal(err)
				}
			}
			in, err := lowertest.Inputs(y, 3, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			g, err := fusion.Unfused(y)
			if err != nil {
				t.Fatal(err)
			}
			for _, par := range []int{1, 0} {
				d := checkedDescribe(t, par, g, y, in)
				boxes := strings.Count(d, "filling its border")
				if others := strings.Count(d, "materialise") - boxes; boxes != cc.boxes || others != cc.others {
					t.Errorf("parallelism %d: %d border-filled and %d other materialisations, want %d and %d:\n%s", par, boxes, others, cc.boxes, cc.others, d)
				}
			}
		})
	}
}
