package fusion

import (
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// Generators of the shapes some rules need that graphtest's general
// programs draw too rarely. Each wraps a random program of graphtest in the
// shape, so the surrounding terms stay random.

// vectorProgram draws a random program whose value is a vector of n
// elements.
func vectorProgram(r *rand.Rand, cfg graphtest.Config, n int) (graph.Node, []*graph.Input) {
	dt := cfg.DType
	if dt == graph.Invalid {
		dt = graph.Float64
	}
	p, ins, err := graphtest.ProgramOfType(r, cfg, graph.ArrayOf(dt, n))
	if err != nil {
		panic(err)
	}
	return p, ins
}

// cheapFunction returns a random scalar function of at most two operations.
func cheapFunction(r *rand.Rand) graph.Node {
	v := graph.NewVar("v")
	var body graph.Node
	switch r.IntN(4) {
	case 0:
		body = must(graph.NewCall(graph.Mul, v, graph.NewConst(2)))
	case 1:
		body = must(graph.NewCall(graph.Add, must(graph.NewCall(graph.Mul, v, v)), graph.NewConst(1)))
	case 2:
		body = must(graph.NewCall(graph.Max, v, graph.NewConst(0)))
	default:
		body = must(graph.NewCall(graph.Sub, graph.NewConst(1), v))
	}
	return must(graph.NewLambda([]*graph.Var{v}, body))
}

// splitLetProgram is let m = map cheap P in zip (op) m m: a cheap map over
// a costly array, used twice.
func splitLetProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	n := 1 + r.IntN(6)
	p, ins := vectorProgram(r, cfg, n)
	m := graph.NewVar("m")
	body := must(graph.NewNZip(must(graph.NewOpRef([]graph.Op{graph.Add, graph.Mul, graph.Max}[r.IntN(3)])), m, m))
	return must(graph.NewLet(m, must(graph.NewNZip(cheapFunction(r), p)), body)), ins
}

// floatLetProgram is map cheap (let y = P in zip (op) y y).
func floatLetProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	n := 1 + r.IntN(6)
	p, ins := vectorProgram(r, cfg, n)
	y := graph.NewVar("y")
	inner := must(graph.NewLet(y, p, must(graph.NewNZip(must(graph.NewOpRef(graph.Mul)), y, y))))
	if r.IntN(2) == 0 {
		return must(graph.NewReduce(must(graph.NewOpRef(graph.Add)), inner)), ins
	}
	return must(graph.NewNZip(cheapFunction(r), inner)), ins
}

// flipChainProgram applies a random chain of flips to a random array.
func flipChainProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	dt := cfg.DType
	if dt == graph.Invalid {
		dt = graph.Float64
	}
	rank := 2 + r.IntN(3)
	ext := make([]int, rank)
	for i := range ext {
		ext[i] = 1 + r.IntN(4)
	}
	p, ins, err := graphtest.ProgramOfType(r, cfg, graph.ArrayOf(dt, ext...))
	if err != nil {
		panic(err)
	}
	for range 1 + r.IntN(5) {
		p = must(graph.NewFlip(r.IntN(rank), r.IntN(rank), p))
	}
	return p, ins
}
