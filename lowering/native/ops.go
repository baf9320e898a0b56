package native

import "github.com/hofuse/hofuse/graph"

// untyped is the element type of a scalar literal until its context decides
// (graph's convention: graph.Invalid).
const untyped = graph.Invalid

// concrete gives an untyped scalar the default type f64, as graph does for
// values that leave their context: results of nzip and rnz, let-bound
// values, tuple elements.
func concrete(dt graph.DType) graph.DType {
	if dt == untyped {
		return graph.Float64
	}
	return dt
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// accOps are the ops a destination can accumulate with in place: a
// reduction by one of them (or by it lifted through zips) needs no
// temporary.
func isAccOp(op graph.Op) bool {
	switch op {
	case graph.Add, graph.Mul, graph.Max, graph.Min, graph.And, graph.Or:
		return true
	}
	return false
}
