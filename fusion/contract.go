package fusion

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// Contract brings a contraction into the matrix-product normal form:
// maps over the result's axes, in the result's order, around one scalar
// dot product,
//
//	map (\a -> map (\b -> rnz (+) (*) a b) B) A
//
// which the back ends run as a GEMM (lowering/native's gemm.go). A
// contraction is a nest of nzips and rnzs whose reduction operators are
// sums, lifted or not (+, zip (+), zip (zip (+)), ..), and whose innermost
// body multiplies two different parameters of the nest. It is a sum of
// products over an axis, written in any nesting order: the weight
// gradient of a dense layer, Xᵀ·dY, comes out of reverse mode as a sum
// over the batch of outer products,
//
//	rnz (zip (zip (+))) (\x g -> map (\gj -> map (\xi -> gj * xi) x) g) X dY
//
// and the input gradient dY·Wᵀ as a map of sums of scaled rows.
//
// Each application is one exchange of the package's laws (exchange.go),
// so the result is equal to n, each element combined in the same order:
//
//   - rnz-map at the deepest rnz of the nest whose result is an array (its
//     function is then a map): the sum of arrays becomes a map of sums,
//     one lift fewer. Repeated, every rnz of the nest sums scalars and the
//     maps are outside.
//   - map-map under a flip: flip 0 (map (\a -> map (\b -> h) B) A) becomes
//     map (\b -> map (\a -> h) A) B (the exchange's own flip cancels this
//     one), so the result is written in the layout its consumer reads
//     instead of transposed by a copy.
//
// The order is chosen by one criterion: the maps follow the result's axes
// (the result is written in its own layout, no transpose copy), the
// reduction goes innermost (each output element is one dot product, which
// a GEMM blocks for the caches). The operands may come out as transposed
// views (flip 0 X), which the GEMM packs. Contract applies only where the
// result has rank 2 or more: a matrix–vector contraction (rank 1) keeps
// its sum of scaled rows, which reads the matrix row by row, where the dot
// products would read its columns at a stride.
type Contract struct{}

// Name implements Rule.
func (Contract) Name() string { return "contract" }

// Rewrite implements Rule.
func (r Contract) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	if f, ok := n.(*graph.Flip); ok && f.Axis1 == 0 && f.Axis2 == 1 {
		return r.unflip(c, n, f)
	}
	levels, ok := contraction(n)
	if !ok {
		return nil, ErrNoMatch
	}
	if t, ok := c.TypeOf(n).(*graph.ArrayType); !ok || t.Rank() < 2 {
		return nil, ErrNoMatch
	}
	// The deepest rnz that sums arrays.
	var at *hof
	for _, h := range levels {
		if h.isRNZ() {
			if t, ok := c.TypeOf(h.node).(*graph.ArrayType); ok && t.Rank() > 0 {
				at = h
			}
		}
	}
	if at == nil {
		return nil, ErrNoMatch // normal form
	}
	if _, ok := asHOF(at.body); !ok {
		return nil, ErrNoMatch
	}
	ex, err := exchange(r, at.node)
	if err != nil {
		return nil, err
	}
	out := keepSource(at.node, ex)
	if at.node != n {
		if out, err = replace(n, map[graph.Node]graph.Node{at.node: out}); err != nil {
			return nil, err
		}
	}
	return keepSource(n, withNestSource(levels, out)), nil
}

// withNestSource gives out, when it has no source, that of a view the nest
// traverses (the layer's weight, whose flips the exchanges may cancel).
func withNestSource(levels []*hof, out graph.Node) graph.Node {
	if out.Source() != "" {
		return out
	}
	for _, h := range levels {
		for _, a := range h.args {
			if _, view := a.(graph.ViewNode); view && a.Source() != "" {
				return graph.WithSource(out, a.Source())
			}
		}
	}
	return out
}

// unflip exchanges the two outer maps of a contraction under flip 0, so
// that the flip cancels.
func (r Contract) unflip(c *Context, n graph.Node, f *graph.Flip) (graph.Node, error) {
	levels, ok := contraction(f.X)
	if !ok || len(levels) < 2 || levels[0].isRNZ() || levels[1].isRNZ() {
		return nil, ErrNoMatch
	}
	// The inner map's arrays must not depend on the outer element: then
	// the exchange adds no view, and the term only loses the flip.
	for _, a := range levels[1].args {
		for _, v := range graph.FreeVars(a) {
			for _, p := range levels[0].params {
				if v == p {
					return nil, ErrNoMatch
				}
			}
		}
	}
	ex, err := exchange(r, f.X)
	if err != nil {
		return nil, err
	}
	g, ok := ex.(*graph.Flip)
	if !ok {
		return nil, ErrNoMatch // exchange flips every map/map result
	}
	return keepSource(n, g.X), nil
}

// contraction takes apart the nest of a contraction (see Contract),
// outermost level first.
func contraction(n graph.Node) ([]*hof, bool) {
	var levels []*hof
	bound := map[*graph.Var]bool{}
	sums := false
	for {
		h, ok := asHOF(n)
		if !ok {
			break
		}
		if h.isRNZ() {
			red, ok := graph.Reducer(h.red, nil)
			if !ok || len(red.Ops) != 1 || red.Ops[0] != graph.Add {
				return nil, false
			}
			sums = true
		}
		for _, p := range h.params {
			bound[p] = true
		}
		levels = append(levels, h)
		n = h.body
	}
	call, ok := n.(*graph.Call)
	if !ok || call.Op != graph.Mul || !sums {
		return nil, false
	}
	a, aok := call.Args[0].(*graph.Var)
	b, bok := call.Args[1].(*graph.Var)
	if !aok || !bok || a == b || !bound[a] || !bound[b] {
		return nil, false
	}
	// A level whose body reads none of its elements broadcasts a value
	// computed without them (map (\a -> t) X): it is no level of a
	// contraction. t is a node of its own, which other terms may share,
	// and is contracted, if at all, there: exchanged here, this use of t
	// would take a form its other uses do not, t would be computed twice,
	// and the two would differ by rounding (t >= t false).
	for _, h := range levels {
		if !readsAny(h.body, h.params) {
			return nil, false
		}
	}
	return levels, true
}

// readsAny reports whether any of vars is free in n.
func readsAny(n graph.Node, vars []*graph.Var) bool {
	for _, v := range graph.FreeVars(n) {
		if slices.Contains(vars, v) {
			return true
		}
	}
	return false
}

// contractRules are the rules of the contract pass, which Fuse runs after
// vertical fusion and Unfused runs inside each kernel (a schedule step:
// it fuses nothing). dead-arg and drop-copy strip what reverse mode
// leaves around a contraction, eta and flip-flip tidy what the exchanges
// build.
var contractRules = []Rule{DeadArg{}, DropCopy{}, Eta{}, FlipFlip{}, Contract{}}
