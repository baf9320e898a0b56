package fusion

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/models"
)

// fuseWithin runs Fuse on term and fails the test if it has not finished
// after limit: a rule loop must show up as a failure, not as a hung test.
func fuseWithin(t *testing.T, term graph.Node, limit time.Duration) *Result {
	t.Helper()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Fuse(term, Options{})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		require.NoError(t, o.err, "%s", graph.Print(term))
		return o.res
	case <-time.After(limit):
		t.Fatalf("Fuse did not finish within %v on %s", limit, graph.Print(term))
		return nil
	}
}

// Issue 8, item 2: a cheap zip of two cheap maps, let-bound and used inside
// a lambda, made split-let and inline-let undo each other: split-let named
// the zip's arguments, and inline-let put each name back into its single
// use before the zip itself was inlined. Each program fuses at once now.
// In the program the tuple is dead, and β for products drops it;
// the second keeps the zip alive under the lambda.
func TestFuseCheapZipUnderLambdaTerminates(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`b : f32[6]; c : f32[6]; x : f32[8]; let t = zip (+) (map (*2) b) (map (*2) c) in map (\v -> snd (t, v)) x`,
			`map id x`},
		{`b : f32[6]; c : f32[6]; x : f32[8]; let t = zip (+) (map (*2) b) (map (*2) c) in map (\v -> v + reduce (+) t) x`,
			`map (\v -> v + rnz (+) (\y0 y01 -> y0 * 2 + y01 * 2) b c) x`},
	} {
		prog, err := graph.Parse(c.src)
		require.NoError(t, err)
		res := fuseWithin(t, prog.Body, time.Second)
		assert.Equal(t, c.want, graph.Print(res.Term))
		in := graphtest.Inputs(rand.New(rand.NewPCG(8, 2)), prog.Inputs)
		want, err := graph.Eval(prog.Body, in)
		require.NoError(t, err)
		got, err := res.Graph.Eval(in)
		require.NoError(t, err)
		graphtest.Compare(t, want, got, 0)
	}
}

// undo is a rule built to fight flip-flip: it wraps every input of rank 2
// in two flips, which flip-flip removes again.
type undo struct{}

func (undo) Name() string { return "undo" }

func (undo) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	in, ok := n.(*graph.Input)
	if !ok {
		return nil, ErrNoMatch
	}
	f, err := graph.NewFlip(0, 1, in)
	if err != nil {
		return nil, err
	}
	return graph.NewFlip(0, 1, f)
}

// The engine's step limit turns two rules that undo each other into an
// error that names them, instead of a hang.
func TestEngineReportsRuleLoop(t *testing.T) {
	A := must(graph.NewInput("A", graph.ArrayOf(graph.Float64, 2, 3), false))
	e := newEngine([]Rule{undo{}, FlipFlip{}})
	e.maxSteps = 10
	_, err := e.run(A)
	require.ErrorIs(t, err, ErrRuleLoop)
	assert.EqualError(t, err, "fusion: rules did not terminate after 10 steps; the last steps applied flip-flip, undo: "+
		"one undoes what another does (report the program; Options.Disable, or --disable-rule, switches a rule off)")
}

// TestFuseTerminates runs the pipeline on the 20-block MLP and on random
// programs of every generator of graphtest, in f32 and f64: each reaches a
// normal form (the engine reports a rule loop otherwise), the kernels
// type-check (Graph.Eval checks each), and they compute what the program
// computes on the reference interpreter within graphtest.Tolerance.
func TestFuseTerminates(t *testing.T) {
	for _, mode := range []models.Mode{models.Inference, models.Training} {
		res, err := Fuse(mlp20(t, mode).Output, Options{})
		require.NoError(t, err)
		// 20 dense layers: 19 blocks and the last dense; a training block is
		// three kernels (see TestFuseDenseBatchNormReLUTraining).
		want := map[models.Mode]int{models.Inference: 20, models.Training: 19*3 + 1}[mode]
		require.Equal(t, want, res.Report.KernelsAfter, "mode %v", mode)
	}
	perGen := 40
	if testing.Short() {
		perGen = 8
	}
	for _, ng := range graphtest.Generators() {
		t.Run(ng.Name, func(t *testing.T) {
			for i := range perGen {
				seed := uint64(i)
				dt := graph.Float64
				if seed%2 == 1 {
					dt = graph.Float32
				}
				term, ins := ng.Gen(graphtest.Rand(seed), graphtest.Config{DType: dt})
				what := fmt.Sprintf("%s seed %d: %s", ng.Name, seed, graph.Print(term))
				res := fuseWithin(t, term, 20*time.Second)
				_, err := graph.Check(res.Term)
				require.NoError(t, err, what)
				in := graphtest.Inputs(rand.New(rand.NewPCG(seed, 5)), ins)
				want, err := graph.Eval(term, in)
				require.NoError(t, err, what)
				got, err := res.Graph.Eval(in)
				require.NoError(t, err, what)
				if d := graph.Diff(want, got, graph.Tolerance(dt)); d != nil {
					t.Fatalf("%s\nfused: %s\n%v", what, graph.Print(res.Term), d)
				}
			}
		})
	}
}

// TestFuseDepth4 runs the pipeline on programs of every generator of
// graphtest nested four deep (graphtest.Config.MaxDepth 4), in f32 and
// f64, with random extents, ranks, arities and mixed-rank tuples: each
// must finish within the time limit, and its kernels must compute what
// the program computes on the reference interpreter, within
// graph.ToleranceOf. (A depth-4 program kept Fuse busy in
// engine.findRedexes for minutes; see TestFuseLetChainNearLinear for the
// inlining cost that grew faster than quadratically.)
func TestFuseDepth4(t *testing.T) {
	programs := 300
	if testing.Short() {
		programs = 40
	}
	r := graphtest.Rand(4)
	gens := graphtest.Generators()
	for i := range programs {
		cfg := graphtest.Config{
			MaxDepth:    4,
			MaxExtent:   1 + r.IntN(12),
			MaxRank:     1 + r.IntN(3),
			MaxArgs:     1 + r.IntN(4),
			MixedTuples: float64(r.IntN(3)) / 8,
		}
		if r.IntN(2) == 1 {
			cfg.DType = graph.Float32
		}
		ng := gens[i%len(gens)]
		seed := r.Uint64()
		term, ins := ng.Gen(graphtest.Rand(seed), cfg)
		what := fmt.Sprintf("%s seed %d %+v: %s", ng.Name, seed, cfg, graph.Print(term))
		res := fuseWithin(t, term, 20*time.Second)
		in := cfg.Inputs(rand.New(rand.NewPCG(seed, 4)), ins)
		want, err := graph.Eval(term, in)
		require.NoError(t, err, what)
		got, err := res.Graph.Eval(in)
		require.NoError(t, err, what)
		if d := graph.Diff(want, got, graph.ToleranceOf(want)); d != nil {
			t.Fatalf("%s\nfused: %s\n%v", what, graph.Print(res.Term), d)
		}
	}
}
