package nd_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestPJRTFixtures runs every fixture, fused, on the PJRT back end and
// compares with graph.Eval. It needs a PJRT plugin and skips without one
// (fails with HOFUSE_REQUIRE_PJRT=1).
func TestPJRTFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a PJRT executable per case; skipped with -short")
	}
	client := pjrttest.Client(t)
	for _, file := range fixtureFiles {
		for _, c := range loadFixtures(t, file) {
			t.Run(file+"/"+c.Name, func(t *testing.T) {
				xs := make([]graph.Node, len(c.Inputs))
				bind := map[string]graph.Value{}
				for i, in := range c.Inputs {
					name := fmt.Sprintf("x%d", i)
					xs[i], bind[name] = in.input(t, name)
				}
				y, err := build(t, c, xs)
				if err != nil {
					t.Fatal(err)
				}
				if err := nd.BindIndexes(y, bind); err != nil {
					t.Fatal(err)
				}
				want, err := graph.Eval(y, bind)
				if err != nil {
					t.Fatal(err)
				}
				res, err := fusion.Fuse(y, fusion.Options{})
				if err != nil {
					t.Fatal(err)
				}
				unfused, err := fusion.Unfused(y)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range []struct {
					g   *fusion.Graph
					opt xla.Options
				}{{res.Graph, xla.Options{}}, {unfused, xla.Options{PerKernel: true}}} {
					x, err := xla.New(client, m.opt).CompileGraph(m.g)
					if err != nil {
						t.Fatalf("pjrt: %v\nterm: %s", err, graph.Print(y))
					}
					got, err := x.Run(bind)
					if err != nil {
						x.Close()
						t.Fatal(err)
					}
					if err := graph.Diff(want, got, graph.ToleranceOf(want)); err != nil {
						t.Errorf("PJRT (per kernel: %v) differs from Eval: %v\nterm: %s", m.opt.PerKernel, err, graph.Print(y))
					}
					x.Close()
				}
			})
		}
	}
}
