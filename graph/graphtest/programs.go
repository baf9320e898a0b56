package graphtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// A Generator makes a random well-typed closed term and the inputs it reads,
// deterministically for the state of r.
type Generator func(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input)

// NamedGenerator is a Generator and the name tests report it by.
type NamedGenerator struct {
	Name string
	Gen  Generator
}

// Generators returns every generator of this package, for tests that run
// them all.
func Generators() []NamedGenerator {
	return []NamedGenerator{
		{"Program", Program},
		{"NZipOfNZip", NZipOfNZip},
		{"RNZOfNZip", RNZOfNZip},
		{"MapOfRNZ", MapOfRNZ},
		{"RNZOfRNZ", RNZOfRNZ},
		{"MapOfMap", MapOfMap},
		{"ProductPair", ProductPair},
		{"MatVec", MatVec},
		{"MatMul", MatMul},
		{"Dense", Dense},
	}
}

// Program returns a random well-typed closed term over fresh inputs, and the
// inputs it reads. Its type is a scalar, an array or a tuple, and it uses
// every kind of term that cfg does not disable.
func Program(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	var t graph.Type
	switch g.weighted(2, 5, 3*btoi(g.on(Tuples))) {
	case 0:
		t = g.scalarType()
	case 1:
		t = g.arrayType(g.extent(g.room()), g.cfg.MaxDepth)
	default:
		n := g.extent(g.room())
		elems := make([]graph.Type, 2+g.weighted(4, 1))
		common := g.coin(0.5)
		for i := range elems {
			switch {
			case common:
				elems[i] = g.arrayType(n, g.cfg.MaxDepth)
			case g.coin(0.4):
				elems[i] = g.scalarType()
			default:
				elems[i] = g.arrayType(g.extent(g.room()), g.cfg.MaxDepth)
			}
		}
		t = &graph.TupleType{Elems: elems}
	}
	return g.finish(g.value(t, g.cfg.MaxDepth, nil))
}

// ProgramOfType returns a random closed term whose type has the shape of t
// (graph.SameShape: the same structure, element type and extents; strides
// may differ), and the inputs it reads. The element type is t's, which
// must be f32 or f64 throughout; cfg.DType is ignored.
func ProgramOfType(r *rand.Rand, cfg Config, t graph.Type) (graph.Node, []*graph.Input, error) {
	dt, err := floatDType(t)
	if err != nil {
		return nil, nil, fmt.Errorf("graphtest: program of type %v: %w", t, err)
	}
	cfg.DType = dt
	g := newGen(r, cfg)
	n, ins := g.finish(g.value(t, g.cfg.MaxDepth, nil))
	return n, ins, nil
}

// floatDType returns the one floating-point element type of t.
func floatDType(t graph.Type) (graph.DType, error) {
	switch t := t.(type) {
	case *graph.ScalarType:
		if !t.DType.IsFloat() {
			return graph.Invalid, fmt.Errorf("element type %v is not f32 or f64", t.DType)
		}
		return t.DType, nil
	case *graph.ArrayType:
		if t.Rank() == 0 {
			return graph.Invalid, fmt.Errorf("array of rank 0")
		}
		if err := t.Layout.Validate(); err != nil {
			return graph.Invalid, err
		}
		return floatDType(graph.Scalar(t.DType))
	case *graph.TupleType:
		if len(t.Elems) < 2 {
			return graph.Invalid, fmt.Errorf("tuple of %d elements", len(t.Elems))
		}
		dt := graph.Invalid
		for _, e := range t.Elems {
			d, err := floatDType(e)
			if err != nil {
				return graph.Invalid, err
			}
			if dt != graph.Invalid && d != dt {
				return graph.Invalid, fmt.Errorf("element types %v and %v differ", dt, d)
			}
			dt = d
		}
		return dt, nil
	}
	return graph.Invalid, fmt.Errorf("%T is not a value type", t)
}

// core makes the term a pattern generator is about, in scope sc, and
// returns its type.
type core func(sc scope) (graph.Node, graph.Type)

// around puts the pattern that build makes into a random context: alone;
// in the function of a map or a reduction over an array whose rows the
// pattern may read; consumed by a further term; or beside another term in a
// tuple.
func (g *gen) around(build core) graph.Node {
	switch g.weighted(4, 3, 1*btoi(g.on(Reduce)), 2, 1*btoi(g.on(Tuples))) {
	case 0:
		n, _ := build(nil)
		return n
	case 1, 2:
		m := g.extent(max(1, g.room()/8))
		at := g.arrayType(m, g.cfg.MaxRank)
		A := g.arrayLeaf(at, nil)
		row := graph.NewVar("r")
		g.work *= m
		n, t := build(scope{{n: row, t: elemOf(at)}})
		g.work /= m
		lam := must(graph.NewLambda([]*graph.Var{row}, n))
		if g.coin(0.6) {
			return must(graph.NewNZip(lam, A))
		}
		red, _ := g.reducer(t, false)
		return must(graph.NewRNZ(red, lam, A))
	case 3:
		n, t := build(nil)
		return g.consume(n, t)
	}
	n, _ := build(nil)
	other := g.value(g.anyType(1), 1, nil)
	if g.coin(0.5) {
		return must(graph.NewTuple(n, other))
	}
	return must(graph.NewTuple(other, n))
}

// consume makes a term that uses n, of type t.
func (g *gen) consume(n graph.Node, t graph.Type) graph.Node {
	switch t := t.(type) {
	case *graph.ScalarType:
		if g.on(Let) && g.coin(0.5) {
			v := graph.NewVar("v")
			return must(graph.NewLet(v, n, g.combine(g.expr([]graph.Node{v}, 2), v)))
		}
		return g.combine(nil, n)
	case *graph.ArrayType:
		switch g.weighted(2, 3, 1*btoi(t.Rank() >= 2 && g.on(Flip)), 2*btoi(g.on(Reduce|OpFn))) {
		case 0:
			// map over it, to a scalar per element.
			return must(graph.NewNZip(g.lambda([]graph.Type{elemOf(t)}, g.scalarType(), 2, nil, t.Layout[0].Extent, nil), n))
		case 1:
			// map over it, to elements of the same shape.
			return must(graph.NewNZip(g.fn([]graph.Type{elemOf(t)}, elemOf(t), 2, nil, t.Layout[0].Extent, nil), n))
		case 2:
			return must(graph.NewFlip(0, 1, n))
		}
		red, _ := g.reducer(elemOf(t), false)
		return must(graph.NewReduce(red, n))
	case *graph.TupleType:
		if g.on(Let) && g.coin(0.5) {
			v := graph.NewVar("p")
			i := g.intn(len(t.Elems))
			return must(graph.NewLet(v, n, must(graph.NewTuple(must(graph.NewProj(i, v)), v))))
		}
		return must(graph.NewProj(g.intn(len(t.Elems)), n))
	}
	panic(fmt.Sprintf("graphtest: internal error: consume %T", t))
}

// outerFrom draws the extent of a traversal: often the outer extent of an
// array in scope, so that the pattern reads it.
func (g *gen) outerFrom(sc scope) int {
	if c := g.visible(sc, func(t graph.Type) bool { return outerOf(t) > 0 }); len(c) > 0 && g.coin(0.6) {
		return outerOf(pick(g, c).t)
	}
	return g.extent(g.room())
}

// elemType draws the type of what a function of a traversal at depth depth
// returns: mostly a scalar, sometimes an array or a pair.
func (g *gen) elemType(depth int) graph.Type {
	switch g.weighted(6, 3*btoi(depth >= 1 && g.cfg.MaxRank >= 2), btoi(g.on(Tuples))) {
	case 0:
		return g.scalarType()
	case 1:
		return g.arrayType(g.extent(max(1, g.room()/4)), min(depth, g.cfg.MaxRank-1))
	}
	return &graph.TupleType{Elems: []graph.Type{g.scalarType(), g.elemType(depth - 1)}}
}

// wantFor draws what a function over elements of type elem returns: often
// elem's own shape (so that an op or id can be the function, and a lambda
// near the bottom of the nesting can return its parameter), else elemType.
func (g *gen) wantFor(elem graph.Type, depth int) graph.Type {
	if !isTuple(elem) && g.coin(0.4) {
		return elem
	}
	return g.elemType(depth)
}

// operand returns a term of the shape of t for a pattern: something visible
// of that shape, or a new term at depth depth.
func (g *gen) operand(t graph.Type, depth int, sc scope) graph.Node {
	same := func(u graph.Type) bool { return graph.SameShape(t, u) }
	if c := g.visible(sc, same); len(c) > 0 && g.coin(0.7) {
		return pick(g, c).n
	}
	return g.value(t, depth, sc)
}

// insert returns xs with x inserted at i.
func insert[T any](xs []T, i int, x T) []T {
	out := append([]T(nil), xs[:i]...)
	out = append(out, x)
	return append(out, xs[i:]...)
}

// NZipOfNZip returns, in a random context, a term
//
//	nzip f xs<i (nzip g ys) xs>i
//
// the pattern of vertical fusion of two nzips: the inner nzip is argument i
// of the outer one. f and g are lambdas, ops, sections or id (lifted by
// partial nzips); the inner result's elements may be scalars, arrays or
// tuples.
func NZipOfNZip(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		n := g.outerFrom(sc)
		innerT := graph.Stacked(n, g.elemType(depth-1))
		inner := g.nzip(innerT, depth-1, sc, nil)
		t := graph.Stacked(n, g.wantFor(elemOf(innerT), depth-1))
		outer := g.nzip(t, depth, sc, func(n int) ([]graph.Node, []graph.Type) {
			k := g.arity()
			xs, xts := g.args(n, k-1, depth, sc)
			i := g.intn(k)
			return insert(xs, i, graph.Node(inner)), insert(xts, i, innerT)
		})
		return outer, t
	}))
}

// RNZOfNZip returns, in a random context, a term
//
//	rnz r f xs<i (nzip g ys) xs>i
//
// the pattern of vertical fusion of an nzip into a reduction. The
// accumulator may be a scalar, an array (r lifted) or a tuple.
func RNZOfNZip(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		n := g.outerFrom(sc)
		innerT := graph.Stacked(n, g.elemType(depth-1))
		inner := g.nzip(innerT, depth-1, sc, nil)
		t := g.wantFor(elemOf(innerT), depth-1)
		outer := g.rnz(t, depth, sc, func() ([]graph.Node, []graph.Type) {
			k := g.arity()
			xs, xts := g.args(n, k-1, depth, sc)
			i := g.intn(k)
			return insert(xs, i, graph.Node(inner)), insert(xts, i, innerT)
		})
		return outer, t
	}))
}

// assocReducer makes an associative and commutative reduction operator for
// accumulators of the shape of t, (+), max, min or (*) lifted to t's rank,
// and returns its op and whether it is opaque. One time in ten it is instead the opaque lambda
// \a b -> a + b, whose algebra a rule cannot see, so that law tests also
// exercise the refusals.
func (g *gen) assocReducer(t graph.Type) (red graph.Node, op graph.Op, opaque bool) {
	op = g.redOp(true)
	if g.coin(0.1) {
		a, b := graph.NewVar("a"), graph.NewVar("b")
		var body graph.Node
		if rankOf(t) == 0 {
			body = must(graph.NewCall(graph.Add, a, b))
		} else {
			body = must(graph.NewNZip(g.lift(g.opRef(graph.Add), rankOf(t)-1), a, b))
		}
		return must(graph.NewLambda([]*graph.Var{a, b}, body)), graph.Add, true
	}
	return g.lift(g.opRef(op), rankOf(t)), op, false
}

// mulPost returns squash when op is (*), so that products stay finite.
func (g *gen) mulPost(op graph.Op) func(graph.Node, graph.Type) graph.Node {
	if op == graph.Mul {
		return g.squash
	}
	return nil
}

// scalarOrVector draws a scalar mostly, a short vector sometimes.
func (g *gen) scalarOrVector(p float64, limit int) graph.Type {
	if g.cfg.MaxRank >= 2 && g.coin(p) {
		return graph.ArrayOf(g.cfg.DType, g.extent(max(1, limit)))
	}
	return g.scalarType()
}

// MapOfRNZ returns, in a random context, a term
//
//	map (\a -> rnz r m a u) A
//
// the pattern of exchanging a map with a reduction: r is associative and
// commutative ((+), max, min, (*), lifted when m returns arrays, or now and
// then an opaque lambda), a is the first argument of the rnz (sometimes a
// later one), and u (one or two arrays) does not depend on a.
func MapOfRNZ(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		var A graph.Node
		var n, k int
		var alpha graph.Type
		rank2 := func(t graph.Type) bool { return rankOf(t) >= 2 && rankOf(t) <= 3 }
		if c := g.visible(sc, rank2); len(c) > 0 && g.coin(0.5) {
			e := pick(g, c)
			A, n = e.n, outerOf(e.t)
			row := elemOf(e.t)
			k, alpha = outerOf(row), elemOf(row)
		} else {
			n = g.extent(g.room())
			k = g.extent(max(1, g.room()/n))
			alpha = g.scalarOrVector(0.15, g.room()/(n*k))
			A = g.operand(graph.Stacked(n, graph.Stacked(k, alpha)), depth-1, sc)
		}
		us, uts := g.args(k, 1+g.weighted(3, 1), depth-1, sc)
		M := g.scalarOrVector(0.15, g.room()/(n*k))
		red, op, _ := g.assocReducer(M)
		elems := []graph.Type{alpha}
		for _, ut := range uts {
			elems = append(elems, elemOf(ut))
		}
		a := graph.NewVar("a")
		g.work *= n
		m := g.fn(elems, M, depth-1, sc, k, g.mulPost(op))
		g.work /= n
		args := append([]graph.Node{a}, us...)
		if g.coin(0.2) {
			// a in another position, with m's parameters to match.
			i := g.intn(len(args))
			args[0], args[i] = args[i], args[0]
			elems[0], elems[i] = elems[i], elems[0]
			g.work *= n
			m = g.lambda(elems, M, depth-1, sc, k, g.mulPost(op))
			g.work /= n
		}
		body := must(graph.NewRNZ(red, m, args...))
		return must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{a}, body)), A)), graph.Stacked(n, M)
	}))
}

// RNZOfRNZ returns, in a random context, a term
//
//	rnz r (\a1 a2 -> rnz r m a1 a2 B) A1 A2
//
// the pattern of exchanging two reductions: r is associative and
// commutative (or now and then an opaque lambda, which a rule must refuse);
// the outer reduction reads one or two arrays, the inner one their rows and
// zero to two arrays B that do not depend on them. Half of the time both
// reductions share one r node, half of the time they have equal but
// distinct ones.
func RNZOfRNZ(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		n := g.outerFrom(sc)
		k := g.extent(max(1, g.room()/n))
		j := 1 + g.weighted(1, 3)
		As := make([]graph.Node, j)
		as := make([]*graph.Var, j)
		var elems []graph.Type
		for i := range As {
			alpha := g.scalarOrVector(0.1, g.room()/(n*k))
			As[i] = g.operand(graph.Stacked(n, graph.Stacked(k, alpha)), depth-1, sc)
			as[i] = graph.NewVar(fmt.Sprintf("a%d", i+1))
			elems = append(elems, alpha)
		}
		Bs, bts := g.args(k, g.weighted(1, 4, 1), depth-1, sc)
		for _, bt := range bts {
			elems = append(elems, elemOf(bt))
		}
		M := g.scalarOrVector(0.15, g.room()/(n*k))
		red, op, opaque := g.assocReducer(M)
		outerRed := red
		if !opaque && g.coin(0.5) {
			outerRed = g.lift(g.opRef(op), rankOf(M))
		}
		g.work *= n
		m := g.fn(elems, M, depth-1, sc, k, g.mulPost(op))
		g.work /= n
		innerArgs := make([]graph.Node, 0, j+len(Bs))
		for _, a := range as {
			innerArgs = append(innerArgs, a)
		}
		innerArgs = append(innerArgs, Bs...)
		inner := must(graph.NewRNZ(red, m, innerArgs...))
		return must(graph.NewRNZ(outerRed, must(graph.NewLambda(as, inner)), As...)), M
	}))
}

// MapOfMap returns, in a random context, a term
//
//	map (\a -> map (\b -> h a b) v) u
//
// the pattern of exchanging two maps (either may be a zip of two arrays);
// h uses both a and b, and v does not depend on a.
func MapOfMap(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		n := g.outerFrom(sc)
		m := g.extent(max(1, g.room()/n))
		for attempt := 0; ; attempt++ {
			// After a few bodies that ignore a, settle for scalar elements,
			// which an expression surely uses.
			scalars := attempt >= 3
			us, uts := g.mapArgs(n, depth-1, sc, scalars)
			vs, vts := g.mapArgs(m, depth-1, sc, scalars)
			H := g.scalarType()
			if !scalars {
				H = g.scalarOrVector(0.15, g.room()/(n*m))
			}
			as := make([]*graph.Var, len(us))
			bs := make([]*graph.Var, len(vs))
			inner := sc
			var aLeaves, bLeaves []graph.Node
			for i, ut := range uts {
				as[i] = graph.NewVar(varName(elemOf(ut), i))
				inner = inner.with(entry{n: as[i], t: elemOf(ut)})
				aLeaves = append(aLeaves, g.scalarsOf(as[i], elemOf(ut))...)
			}
			for i, vt := range vts {
				bs[i] = graph.NewVar(string(rune('b' + i)))
				inner = inner.with(entry{n: bs[i], t: elemOf(vt)})
				bLeaves = append(bLeaves, g.scalarsOf(bs[i], elemOf(vt))...)
			}
			g.work *= n * m
			var body graph.Node
			if isScalar(H) && len(aLeaves) > 0 && len(bLeaves) > 0 && (scalars || g.coin(0.8)) {
				body = g.combine(g.exprUsing(aLeaves), g.exprUsing(bLeaves))
			} else {
				body = g.value(H, depth-2, inner)
			}
			g.work /= n * m
			free := graph.FreeVars(body)
			if !slices.ContainsFunc(as, func(a *graph.Var) bool { return slices.Contains(free, a) }) {
				continue
			}
			mapB := must(graph.NewNZip(must(graph.NewLambda(bs, body)), vs...))
			return must(graph.NewNZip(must(graph.NewLambda(as, mapB)), us...)), graph.Stacked(n, graph.Stacked(m, H))
		}
	}))
}

// mapArgs makes the one or two arrays of outer extent n a map of MapOfMap
// reads; with scalars, arrays of rank 1.
func (g *gen) mapArgs(n, depth int, sc scope, scalars bool) ([]graph.Node, []graph.Type) {
	k := 1 + g.weighted(4, 1)
	if !scalars {
		return g.args(n, k, depth, sc)
	}
	t := graph.ArrayOf(g.cfg.DType, n)
	xs, xts := make([]graph.Node, k), make([]graph.Type, k)
	for i := range xs {
		xs[i], xts[i] = g.operand(t, depth, sc), t
	}
	return xs, xts
}

// exprUsing makes an expression over leaves that surely uses one of them.
func (g *gen) exprUsing(leaves []graph.Node) graph.Node {
	e := g.expr(leaves, 2)
	if len(graph.FreeVars(e)) == 0 {
		e = g.call(graph.Add, e, pick(g, leaves))
	}
	return e
}

// scalarsOf returns the scalar terms that the variable v of type t offers
// directly: v itself, or its scalar components.
func (g *gen) scalarsOf(v graph.Node, t graph.Type) []graph.Node {
	switch t := t.(type) {
	case *graph.ScalarType:
		return []graph.Node{v}
	case *graph.TupleType:
		var out []graph.Node
		for i, e := range t.Elems {
			if isScalar(e) {
				out = append(out, must(graph.NewProj(i, v)))
			}
		}
		return out
	}
	return nil
}

// ProductPair returns, in a random context, a tuple of traversals that
// horizontal fusion merges into one: (map f x, map g y), (map f x, map g x)
// with x one shared node, (zip f x y, zip g x z), (rnz r f x, rnz s g y),
// (rnz r f x, rnz s g x) such as a sum and a sum of squares, or a map and a
// reduction of the same x; now and then three of them. The traversals have
// one outer extent.
func ProductPair(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	depth := g.cfg.MaxDepth
	return g.finish(g.around(func(sc scope) (graph.Node, graph.Type) {
		n := g.outerFrom(sc)
		shared, sharedT := g.args(n, 1, depth, sc)
		variant := g.intn(6)
		count := 2 + g.weighted(5, 1)
		elems := make([]graph.Node, count)
		types := make([]graph.Type, count)
		for i := range elems {
			argsFor := func(n int) ([]graph.Node, []graph.Type) {
				switch variant {
				case 0, 3: // distinct arguments
					return g.args(n, 1, depth, sc)
				case 2: // zips sharing their first argument
					xs, xts := g.args(n, 1, depth, sc)
					return append([]graph.Node{shared[0]}, xs...), append([]graph.Type{sharedT[0]}, xts...)
				}
				return shared, sharedT // the same node
			}
			reduce := variant >= 3
			if variant == 5 {
				reduce = i%2 == 1
			}
			if reduce {
				t := g.wantFor(elemOf(sharedT[0]), depth-1)
				if variant == 4 && i < 2 && isScalar(elemOf(sharedT[0])) && g.coin(0.5) {
					// A sum and a sum of squares.
					t = g.scalarType()
					elems[i] = g.sumOf(shared[0], i == 1)
				} else {
					elems[i] = g.rnz(t, depth, sc, func() ([]graph.Node, []graph.Type) { return argsFor(n) })
				}
				types[i] = t
				continue
			}
			t := graph.Stacked(n, g.wantFor(elemOf(sharedT[0]), depth-1))
			elems[i] = g.nzip(t, depth, sc, argsFor)
			types[i] = t
		}
		return must(graph.NewTuple(elems...)), &graph.TupleType{Elems: types}
	}))
}

// sumOf makes reduce (+) x or, with squares, rnz (+) (\e -> e * e) x.
func (g *gen) sumOf(x graph.Node, squares bool) graph.Node {
	if !squares {
		return must(graph.NewReduce(g.opRef(graph.Add), x))
	}
	e := graph.NewVar("e")
	sq := must(graph.NewLambda([]*graph.Var{e}, g.call(graph.Mul, e, e)))
	return must(graph.NewRNZ(g.opRef(graph.Add), sq, x))
}

// matrix returns an input seen as an n×k matrix: row-major, or now and
// then the flip of a k×n input.
func (g *gen) matrix(n, k int) graph.Node {
	if g.on(Flip) && g.coin(0.3) {
		return must(graph.NewFlip(0, 1, g.input(graph.ArrayOf(g.cfg.DType, k, n))))
	}
	return g.input(graph.ArrayOf(g.cfg.DType, n, k))
}

// mul returns (*), or now and then \a b -> a * b.
func (g *gen) mul() graph.Node {
	if g.coin(0.2) {
		a, b := graph.NewVar("a"), graph.NewVar("b")
		return must(graph.NewLambda([]*graph.Var{a, b}, g.call(graph.Mul, a, b)))
	}
	return g.opRef(graph.Mul)
}

// dot returns rnz (+) (*) r c.
func (g *gen) dot(r, c graph.Node) graph.Node {
	return must(graph.NewRNZ(g.opRef(graph.Add), g.mul(), r, c))
}

// MatVec returns the paper's matrix-vector product
//
//	map (\r -> rnz (+) (*) r u) A
//
// with random extents; A is sometimes the flip of a stored transpose.
func MatVec(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	n, k := g.extent(g.cfg.MaxWork), g.extent(g.cfg.MaxWork)
	A := g.matrix(n, k)
	u := g.input(graph.ArrayOf(g.cfg.DType, k))
	row := graph.NewVar("r")
	return g.finish(must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{row}, g.dot(row, u))), A)))
}

// MatMul returns the paper's matrix product
//
//	map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A
//
// with random extents; B is sometimes stored transposed, without the flip.
func MatMul(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	n := g.extent(g.cfg.MaxWork)
	k := g.extent(g.cfg.MaxWork / n)
	m := g.extent(g.cfg.MaxWork / (n * k))
	return g.finish(g.matmul(g.matrix(n, k), k, m))
}

// matmul returns map (\r -> map (\c -> rnz (+) (*) r c) Bt) A for a new
// k×m matrix B, with Bt its m×k transpose.
func (g *gen) matmul(A graph.Node, k, m int) graph.Node {
	var Bt graph.Node
	if g.on(Flip) && g.coin(0.7) {
		Bt = must(graph.NewFlip(0, 1, g.input(graph.ArrayOf(g.cfg.DType, k, m))))
	} else {
		Bt = g.input(graph.ArrayOf(g.cfg.DType, m, k))
	}
	row, col := graph.NewVar("r"), graph.NewVar("c")
	inner := must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{col}, g.dot(row, col))), Bt))
	return must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{row}, inner)), A))
}

// Dense returns a dense layer over a batch,
//
//	map (\y -> zip (\s b -> act (s + b)) y bias) (matmul X W)
//
// with act one of max 0 (a section), tanh, logistic or the identity, and
// random extents.
func Dense(r *rand.Rand, cfg Config) (graph.Node, []*graph.Input) {
	g := newGen(r, cfg)
	n := g.extent(g.cfg.MaxWork)
	k := g.extent(g.cfg.MaxWork / n)
	m := g.extent(g.cfg.MaxWork / (n * k))
	X := g.matrix(n, k)
	mm := g.matmul(X, k, m)
	bias := g.input(graph.ArrayOf(g.cfg.DType, m))
	s, b, y := graph.NewVar("s"), graph.NewVar("b"), graph.NewVar("y")
	var act graph.Node = g.call(graph.Add, s, b)
	switch g.intn(4) {
	case 0:
		act = must(graph.NewApp(must(graph.NewSection(graph.Max, graph.NewConst(0), true)), act))
	case 1:
		act = g.call(graph.Tanh, act)
	case 2:
		act = g.call(graph.Logistic, act)
	}
	addBias := must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{s, b}, act)), y, bias))
	return g.finish(must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{y}, addBias)), mm)))
}
