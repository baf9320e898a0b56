package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// flipSandwichProgram is a chain of flips around an elementwise map of
// arrays under flip chains, the shape an imported channels-first network
// leaves between two layers:
//
//	P (nzip (nzip .. f) (Q A) (Q' B))
//
// with A and B random programs or inputs, Q a random chain, Q' the same
// chain (or, now and then, another one, or none), the map as deep as the
// rank (each level partially applied or a lambda), and P, half the time, Q undone, otherwise random. Now
// and then a second elementwise map sits between P and the first.
func flipSandwichProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	if cfg.DType == graph.Invalid {
		cfg.DType = graph.Float64
	}
	rank := 2 + r.IntN(3)
	src := make([]int, rank)
	for i := range src {
		src[i] = 1 + r.IntN(4)
	}
	flips := func(n int) [][2]int {
		out := make([][2]int, n)
		for i := range out {
			out[i] = [2]int{r.IntN(rank), r.IntN(rank)}
		}
		return out
	}
	apply := func(x graph.Node, fs [][2]int) graph.Node {
		for _, f := range fs {
			x = must(graph.NewFlip(f[0], f[1], x))
		}
		return x
	}
	q := flips(1 + r.IntN(3))
	a := apply(operand(r, cfg, "a", src...), q)
	args := []graph.Node{a}
	if r.IntN(2) == 0 {
		qb := q
		switch r.IntN(4) {
		case 0:
			qb = nil
		case 1:
			qb = flips(1 + r.IntN(2))
		}
		// B's source extents are those that qb takes to A's shape.
		ext := must(graph.Check(a)).TypeOf(a).(*graph.ArrayType).Layout.Extents()
		perm := make([]int, rank)
		for i := range perm {
			perm[i] = i
		}
		for _, f := range qb { // innermost first
			perm[f[0]], perm[f[1]] = perm[f[1]], perm[f[0]]
		}
		bsrc := make([]int, rank)
		for i, p := range perm {
			bsrc[p] = ext[i]
		}
		args = append(args, apply(operand(r, cfg, "b", bsrc...), qb))
	}
	elementwise := func(args ...graph.Node) graph.Node {
		var fn graph.Node = cheapFunction(r)
		if len(args) == 2 {
			fn = must(graph.NewOpRef([]graph.Op{graph.Add, graph.Sub, graph.Mul, graph.Max}[r.IntN(4)]))
		}
		for range rank - 1 {
			if r.IntN(3) > 0 {
				fn = must(graph.NewNZip(fn))
				continue
			}
			// In lambda form: \ps -> nzip fn ps.
			ps := make([]*graph.Var, len(args))
			vs := make([]graph.Node, len(args))
			for i := range ps {
				ps[i] = graph.NewVar("p")
				vs[i] = ps[i]
			}
			fn = must(graph.NewLambda(ps, must(graph.NewNZip(fn, vs...))))
		}
		return must(graph.NewNZip(fn, args...))
	}
	m := elementwise(args...)
	if r.IntN(4) == 0 {
		m = elementwise(m)
	}
	var p [][2]int
	if r.IntN(2) == 0 {
		for k := len(q) - 1; k >= 0; k-- {
			p = append(p, q[k])
		}
	} else {
		p = flips(1 + r.IntN(3))
	}
	out := apply(m, p)
	ins := must(graph.Check(out)).Inputs
	return out, ins
}

func TestFlipNZipLaw(t *testing.T) {
	st := checkLaw(t, FlipNZip{}, flipSandwichProgram, nil, exactTol)
	requireApplied(t, st, lawCases/4)
}

func FuzzFlipNZipLaw(f *testing.F) { fuzzLaw(f, FlipNZip{}, flipSandwichProgram, nil, exactTol) }

// TestFlipNZipCancels: between two channels-first layers, the flips
// around an activation move in and cancel, and those that help nothing
// stay.
func TestFlipNZipCancels(t *testing.T) {
	for _, tc := range []struct{ decl, src, want string }{
		// NCHW -> NHWC of a ReLU of NHWC -> NCHW: no flips left.
		{`y : f32[2,5,6,3];`, `flip 2 (flip 1 (map (map (map (map (\v -> max v 0)))) (flip 1 (flip 2 y))))`,
			`map (map (map (map (\v -> max v 0)))) y`},
		// A residual add of two views in the same order, then a ReLU.
		{`y : f32[2,5,6,3]; z : f32[2,5,6,3];`, `flip 2 (flip 1 (map (map (map (map (\v -> max v 0)))) (zip (zip (zip (zip (+)))) (flip 1 (flip 2 y)) (flip 1 (flip 2 z)))))`,
			`map (map (map (map (\v -> max v 0)))) (zip (zip (zip (zip (+)))) y z)`},
		// The map is one level deep (its function flips its row): flipping
		// axes 1 and 2 would need it to be three, so nothing moves.
		{`y : f32[2,5,6];`, `flip 1 2 (map (\r -> map (\v -> map (\w -> w * 2) v) (flip 0 r)) (flip 1 2 y))`,
			`flip 1 2 (map (\r -> map (map (\w -> w * 2)) (flip 0 r)) (flip 1 2 y))`},
		// Nothing below to cancel: the flip stays outside.
		{`y : f32[4,3];`, `flip 0 (map (map (\v -> max v 0)) y)`,
			`flip 0 (map (map (\v -> max v 0)) y)`},
	} {
		term := parse(t, tc.decl+tc.src)
		e := newEngine([]Rule{FlipNZip{}, FlipFlip{}, Eta{}})
		out, err := e.run(term)
		require.NoError(t, err, tc.src)
		want := parse(t, tc.decl+tc.want)
		assert.Equal(t, graph.Print(want), graph.Print(out), tc.src)
	}
}

// TestFlipNZipKeepsShared: a map with another consumer is not moved into,
// which would compute it twice.
func TestFlipNZipKeepsShared(t *testing.T) {
	m := parse(t, `y : f32[4,3]; map (map (\v -> max v 0)) (flip 0 y)`)
	add := must(graph.NewNZip(must(graph.NewOpRef(graph.Add))))
	term := must(graph.NewNZip(add, must(graph.NewFlip(0, 1, m)), must(graph.NewFlip(1, 0, m))))
	e := newEngine([]Rule{FlipNZip{}, FlipFlip{}})
	out, err := e.run(term)
	require.NoError(t, err)
	assert.Zero(t, e.applied["flip-nzip"], graph.Print(out))
	// With one consumer, the same flip moves in and cancels.
	out, err = e.run(must(graph.NewFlip(0, 1, m)))
	require.NoError(t, err)
	assert.Equal(t, `map (map (\v -> max v 0)) y`, graph.Print(out))
}
