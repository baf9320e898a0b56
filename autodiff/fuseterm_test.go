package autodiff

import (
	"fmt"
	"testing"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// Fusion terminates on gradient terms, which carry lets under lambdas that
// the forward programs do not (split-let and inline-let once undid each
// other on some of them, and Fuse stopped only at its step limit after
// about 90 s), and the fused graph computes what the gradient term does.
func TestGradTermsFuse(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	fused := 0
	for _, gen := range graphtest.Generators() {
		for seed := range uint64(seeds) {
			name := fmt.Sprintf("%s seed %d", gen.Name, seed)
			r := graphtest.Rand(seed)
			prog, ins := gen.Gen(r, graphtest.Config{DType: graph.Float64})
			if len(ins) == 0 {
				continue
			}
			g, err := Grad(sumOfSquares(t, prog), ins)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			type result struct {
				res *fusion.Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := fusion.Fuse(g, fusion.Options{})
				done <- result{res, err}
			}()
			var res *fusion.Result
			select {
			case out := <-done:
				if out.err != nil {
					t.Fatalf("%s: fuse: %v", name, out.err)
				}
				res = out.res
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: fusion.Fuse did not finish in 30 s", name)
			}
			in := graphtest.Inputs(r, ins)
			want, err := graph.Eval(g, in)
			if err != nil {
				t.Fatalf("%s: eval: %v", name, err)
			}
			got, err := res.Graph.Eval(in)
			if err != nil {
				t.Fatalf("%s: eval of the fused graph: %v", name, err)
			}
			if err := graph.Diff(want, got, graph.ToleranceOf(want)); err != nil {
				t.Errorf("%s: fused gradient differs from the gradient term: %v", name, err)
			}
			fused++
		}
	}
	if min := seeds * len(graphtest.Generators()) * 8 / 10; fused < min {
		t.Errorf("only %d gradient terms fused and compared, want at least %d", fused, min)
	}
	t.Logf("%d gradient terms fused and equal to their unfused evaluation", fused)
}
