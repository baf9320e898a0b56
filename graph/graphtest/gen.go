package graphtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// must unwraps the result of a graph constructor. The generator only builds
// terms it knows to be well formed, so an error here is a bug in this
// package.
func must[T any](v T, err error) T {
	if err != nil {
		panic("graphtest: internal error: " + err.Error())
	}
	return v
}

// entry is a value term and its type: a variable in scope, an input, or a
// closed term that later terms may share.
type entry struct {
	n     graph.Node
	t     graph.Type
	cheap bool // an input or a layout view of one: cheap to use under a lambda
}

// scope lists the value variables visible at a point, innermost last.
type scope []entry

func (sc scope) with(es ...entry) scope { return append(slices.Clip(sc), es...) }

// gen is the state of one generation: the random source, the inputs made so
// far and the closed terms that may be shared.
type gen struct {
	r    *rand.Rand
	cfg  Config
	ins  []*graph.Input
	pool []entry // closed terms, inputs among them, in order of creation
	work int     // product of the extents of the traversals being generated inside
	fuel int     // compound terms that are not higher-order functions left to make
}

func newGen(r *rand.Rand, cfg Config) *gen {
	cfg = cfg.withDefaults()
	return &gen{r: r, cfg: cfg, work: 1, fuel: 4 + 2*cfg.MaxDepth}
}

func (g *gen) on(k Kind) bool               { return g.cfg.Disable&k == 0 }
func (g *gen) coin(p float64) bool          { return g.r.Float64() < p }
func (g *gen) intn(n int) int               { return g.r.IntN(n) }
func pick[T any](g *gen, xs []T) T          { return xs[g.intn(len(xs))] }
func (g *gen) room() int                    { return max(1, g.cfg.MaxWork/g.work) }
func (g *gen) scalarType() graph.Type       { return graph.Scalar(g.cfg.DType) }
func (g *gen) opRef(op graph.Op) graph.Node { return must(graph.NewOpRef(op)) }

// weighted returns an index drawn with the given weights; a zero weight is
// never drawn. At least one weight must be positive.
func (g *gen) weighted(ws ...int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	x := g.intn(total)
	for i, w := range ws {
		if x < w {
			return i
		}
		x -= w
	}
	panic("graphtest: internal error: no positive weight")
}

// finish returns the inputs n reads, in the order they were made. Inputs made
// for terms that were later dropped are left out, so that the bindings of
// Inputs are exactly those Eval wants.
func (g *gen) finish(n graph.Node) (graph.Node, []*graph.Input) {
	used := map[*graph.Input]bool{}
	for m := range graph.All(n) {
		if in, ok := m.(*graph.Input); ok {
			used[in] = true
		}
	}
	var ins []*graph.Input
	for _, in := range g.ins {
		if used[in] {
			ins = append(ins, in)
		}
	}
	return n, ins
}

// extent draws an extent in 1..min(limit, MaxExtent), often a composite one.
func (g *gen) extent(limit int) int {
	hi := max(1, min(limit, g.cfg.MaxExtent))
	if g.coin(0.5) {
		var comps []int
		for _, c := range []int{4, 6, 8, 9, 10, 12, 16} {
			if c <= hi {
				comps = append(comps, c)
			}
		}
		if len(comps) > 0 {
			return pick(g, comps)
		}
	}
	return 1 + g.intn(hi)
}

// arrayType draws a row-major array type of outer extent n and rank at most
// maxRank, within the work budget.
func (g *gen) arrayType(n, maxRank int) *graph.ArrayType {
	maxRank = max(1, min(maxRank, g.cfg.MaxRank))
	rank := 1 + g.intn(maxRank)
	ext := []int{n}
	budget := g.room() / n
	for len(ext) < rank && budget >= 2 {
		e := g.extent(budget)
		ext = append(ext, e)
		budget /= e
	}
	return graph.ArrayOf(g.cfg.DType, ext...)
}

// anyType draws the type of a value: a scalar, an array or a pair.
func (g *gen) anyType(depth int) graph.Type {
	x := g.r.Float64()
	switch {
	case x < 0.35:
		return g.scalarType()
	case x < 0.88 || !g.on(Tuples):
		return g.arrayType(g.extent(g.room()), depth+1)
	}
	elems := make([]graph.Type, 2)
	for i := range elems {
		if g.coin(0.5) {
			elems[i] = g.scalarType()
		} else {
			elems[i] = g.arrayType(g.extent(g.room()), depth+1)
		}
	}
	return &graph.TupleType{Elems: elems}
}

// outerOf returns the extent a traversal of a value of type t has, or 0 when
// t cannot be traversed.
func outerOf(t graph.Type) int {
	if _, ok := t.(*graph.ScalarType); ok {
		return 0
	}
	_, n, err := graph.ElemType(t)
	if err != nil {
		return 0
	}
	return n
}

func elemOf(t graph.Type) graph.Type {
	et, _, err := graph.ElemType(t)
	return must(et, err)
}

func rankOf(t graph.Type) int {
	if a, ok := t.(*graph.ArrayType); ok {
		return a.Rank()
	}
	return 0
}

func isScalar(t graph.Type) bool { _, ok := t.(*graph.ScalarType); return ok }

// input makes a fresh input of the shape of t, named x0, x1, ...
func (g *gen) input(t graph.Type) *graph.Input {
	switch tt := t.(type) {
	case *graph.ArrayType:
		t = graph.ArrayOf(g.cfg.DType, tt.Layout.Extents()...)
	default:
		t = g.scalarType()
	}
	in := must(graph.NewInput(fmt.Sprintf("x%d", len(g.ins)), t, false))
	g.ins = append(g.ins, in)
	g.pool = append(g.pool, entry{n: in, t: t, cheap: true})
	return in
}

// visible returns the value terms of scope sc whose type satisfies ok: the
// variables, and the projections of tuple-typed ones.
func (g *gen) visible(sc scope, ok func(graph.Type) bool) []entry {
	var out []entry
	for _, e := range sc {
		if ok(e.t) {
			out = append(out, e)
		}
		if tt, isTuple := e.t.(*graph.TupleType); isTuple && g.on(Tuples) {
			for i, et := range tt.Elems {
				if ok(et) {
					out = append(out, entry{n: must(graph.NewProj(i, e.n)), t: et})
				}
			}
		}
	}
	return out
}

// shared returns the closed terms made so far whose type satisfies ok and
// that may be used here: inputs always, other terms when Share is on, and
// under a lambda only cheap ones (a shared term under a lambda is
// re-evaluated at every call).
func (g *gen) shared(ok func(graph.Type) bool) []entry {
	var out []entry
	for _, e := range g.pool {
		_, isInput := e.n.(*graph.Input)
		if !isInput && !g.on(Share) {
			continue
		}
		if !e.cheap && g.work > 1 {
			continue
		}
		if ok(e.t) {
			out = append(out, e)
		}
	}
	return out
}

// remember adds n to the pool of shareable terms when it is closed and not
// trivial.
func (g *gen) remember(n graph.Node, t graph.Type) {
	switch n.(type) {
	case *graph.NZip, *graph.RNZ, graph.ViewNode, *graph.Tuple:
	default:
		return
	}
	if len(graph.FreeVars(n)) == 0 {
		g.pool = append(g.pool, entry{n: n, t: t, cheap: isView(n)})
	}
}

// isView reports whether n is an input seen through layout operations.
func isView(n graph.Node) bool {
	for {
		switch m := n.(type) {
		case *graph.Input:
			return true
		case graph.ViewNode:
			n = m.Operand()
		default:
			return false
		}
	}
}

func varName(t graph.Type, i int) string {
	switch t.(type) {
	case *graph.ScalarType:
		return string(rune('x' + i%3))
	case *graph.TupleType:
		return string(rune('p' + i%3))
	}
	return string(rune('a' + i%4))
}

// value makes a term of the shape of t (SameShape; strides may differ) at
// HoF depth depth, using the variables of sc.
func (g *gen) value(t graph.Type, depth int, sc scope) graph.Node {
	if g.fuel > 0 && depth > 0 {
		x := g.r.Float64()
		switch {
		case x < 0.07 && g.on(Let):
			g.fuel--
			return g.let(t, depth, sc, false)
		case x < 0.11 && g.on(App):
			g.fuel--
			return g.let(t, depth, sc, true)
		case x < 0.15 && g.on(Tuples):
			g.fuel--
			return g.proj(t, depth, sc)
		}
	}
	var n graph.Node
	switch t := t.(type) {
	case *graph.ScalarType:
		n = g.scalar(depth, sc)
	case *graph.ArrayType:
		n = g.array(t, depth, sc)
	case *graph.TupleType:
		n = g.tuple(t, depth, sc)
	default:
		panic(fmt.Sprintf("graphtest: internal error: value of type %T", t))
	}
	g.remember(n, t)
	return n
}

// let binds a value to a fresh variable around a term of type t that may use
// it: let v = value in body or, with app, (\v -> body) value.
func (g *gen) let(t graph.Type, depth int, sc scope, app bool) graph.Node {
	vt := t
	if g.coin(0.6) {
		vt = g.anyType(depth - 1)
	}
	v := graph.NewVar("v")
	if app {
		v = graph.NewVar(varName(vt, 0))
	}
	val := g.value(vt, depth-1, sc)
	body := g.value(t, depth, sc.with(entry{n: v, t: vt}))
	if app {
		return must(graph.NewApp(must(graph.NewLambda([]*graph.Var{v}, body)), val))
	}
	return must(graph.NewLet(v, val, body))
}

// proj makes a pair with an element of type t and projects it out.
func (g *gen) proj(t graph.Type, depth int, sc scope) graph.Node {
	i := g.intn(2)
	elems := []graph.Type{t, g.anyType(depth - 1)}
	if i == 1 {
		elems[0], elems[1] = elems[1], elems[0]
	}
	return must(graph.NewProj(i, g.tuple(&graph.TupleType{Elems: elems}, depth, sc)))
}

// scalar makes a scalar term: an expression over the scalars in scope, with
// reductions mixed in.
func (g *gen) scalar(depth int, sc scope) graph.Node {
	var leaves []graph.Node
	for _, e := range g.visible(sc, isScalar) {
		leaves = append(leaves, e.n)
	}
	if g.on(ScalarInput) && g.coin(0.12) {
		if c := g.shared(isScalar); len(c) > 0 && g.coin(0.5) {
			leaves = append(leaves, pick(g, c).n)
		} else {
			leaves = append(leaves, g.input(g.scalarType()))
		}
	}
	subs := 0
	if depth > 0 && g.on(Reduce) {
		switch {
		case len(leaves) == 0:
			subs = 1 + g.weighted(4, 1)
		case g.coin(0.3):
			subs = 1
		}
	}
	var e graph.Node
	if len(leaves) > 0 {
		e = g.expr(leaves, 1+g.intn(2))
		if !slices.ContainsFunc(leaves, func(l graph.Node) bool { return contains(e, l) }) {
			// Use a leaf, most likely a parameter of the innermost lambda.
			l := leaves[len(leaves)-1-min(g.weighted(6, 2, 1), len(leaves)-1)]
			e = g.combine(e, l)
		}
	}
	for range subs {
		e = g.combine(e, g.scalarHoF(depth, sc))
	}
	if e == nil {
		// Nothing to compute from: a typed literal.
		e = g.expr(nil, 1)
	}
	return e
}

// scalarHoF makes a scalar term rooted at a reduction.
func (g *gen) scalarHoF(depth int, sc scope) graph.Node {
	if g.on(Tuples|TupleReduce) && g.coin(0.12) {
		i := g.intn(2)
		elems := []graph.Type{g.scalarType(), g.scalarType()}
		if g.coin(0.3) {
			elems[1-i] = g.arrayType(g.extent(g.room()), depth)
		}
		return must(graph.NewProj(i, g.rnz(&graph.TupleType{Elems: elems}, depth, sc, nil)))
	}
	return g.rnz(g.scalarType(), depth, sc, nil)
}

// array makes a term of the shape of t.
func (g *gen) array(t *graph.ArrayType, depth int, sc scope) graph.Node {
	if depth <= 0 {
		return g.arrayLeaf(t, sc)
	}
	wRNZ, wLayout := 0, 0
	if g.on(Reduce) && g.on(LiftedReduce) {
		wRNZ = 2
	}
	if g.fuel > 0 && g.cfg.Disable&(Flip|Subdiv|FlattenSubdiv) != Flip|Subdiv|FlattenSubdiv {
		wLayout = 1
	}
	switch g.weighted(3, 7, wRNZ, wLayout) {
	case 0:
		return g.arrayLeaf(t, sc)
	case 1:
		return g.nzipTerm(t, depth, sc)
	case 2:
		return g.rnz(t, depth, sc, nil)
	}
	g.fuel--
	return g.layoutOf(t, func(src graph.Type) graph.Node { return g.value(src, depth, sc) })
}

// arrayLeaf makes a term of the shape of t without higher-order functions:
// a variable in scope, a shared term, or an input seen through a layout.
func (g *gen) arrayLeaf(t *graph.ArrayType, sc scope) graph.Node {
	same := func(u graph.Type) bool { return graph.SameShape(t, u) }
	if c := g.visible(sc, same); len(c) > 0 && g.coin(0.75) {
		return pick(g, c).n
	}
	if v := g.viewOfVisible(t, sc); v != nil && g.coin(0.6) {
		return v
	}
	if c := g.shared(same); len(c) > 0 && g.coin(0.4) {
		return pick(g, c).n
	}
	return g.inputView(t, 0.45)
}

// viewOfVisible returns flip 0 1 v or subdiv d b v for a visible v whose
// shape makes it of the shape of t, or nil when there is none.
func (g *gen) viewOfVisible(t *graph.ArrayType, sc scope) graph.Node {
	ext := t.Layout.Extents()
	if len(ext) < 2 {
		return nil
	}
	var views []graph.Node
	if g.on(Flip) {
		flipped := graph.ArrayOf(t.DType, slices.Concat([]int{ext[1], ext[0]}, ext[2:])...)
		for _, e := range g.visible(sc, func(u graph.Type) bool { return graph.SameShape(flipped, u) }) {
			views = append(views, must(graph.NewFlip(0, 1, e.n)))
		}
	}
	if g.on(Subdiv) {
		for d := range len(ext) - 1 {
			merged := graph.ArrayOf(t.DType, slices.Concat(ext[:d], []int{ext[d] * ext[d+1]}, ext[d+2:])...)
			for _, e := range g.visible(sc, func(u graph.Type) bool { return graph.SameShape(merged, u) }) {
				views = append(views, must(graph.NewSubdiv(d, ext[d+1], e.n)))
			}
		}
	}
	if len(views) == 0 {
		return nil
	}
	return pick(g, views)
}

// contains reports whether the term n contains the node m.
func contains(n, m graph.Node) bool {
	for x := range graph.All(n) {
		if x == m {
			return true
		}
	}
	return false
}

// inputView makes a fresh input seen as an array of the shape of t, through
// a layout operation with probability p (and compositions of them, less
// often).
func (g *gen) inputView(t *graph.ArrayType, p float64) graph.Node {
	if !g.coin(p) {
		return g.input(t)
	}
	n := g.layoutOf(t, func(src graph.Type) graph.Node {
		return g.inputView(src.(*graph.ArrayType), p/3)
	})
	g.remember(n, t)
	return n
}

// layoutOf makes a layout operation whose result has the shape of t, over a
// term that src makes of the shape the operation needs: flip d1 d2 x,
// subdiv d b x, or flatten d (subdiv d b x).
func (g *gen) layoutOf(t *graph.ArrayType, src func(graph.Type) graph.Node) graph.Node {
	ext := t.Layout.Extents()
	rank := len(ext)
	wFlip, wSub, wFlat := 0, 0, 0
	if rank >= 2 && g.on(Flip) {
		wFlip = 3
	}
	if rank >= 2 && g.on(Subdiv) {
		wSub = 2
	}
	var divisible []int
	for d, e := range ext {
		if len(divisors(e)) > 0 {
			divisible = append(divisible, d)
		}
	}
	if len(divisible) > 0 && g.on(Subdiv|FlattenSubdiv) {
		wFlat = 2
	}
	wWin := 0
	if g.cfg.Windows {
		wWin = 4
	}
	if wFlip+wSub+wFlat+wWin == 0 {
		return src(t)
	}
	dt := t.DType
	switch g.weighted(wFlip, wSub, wFlat, wWin) {
	case 0:
		d1 := g.intn(rank - 1)
		d2 := d1 + 1
		if g.coin(0.3) {
			d2 = d1 + 1 + g.intn(rank-d1-1)
		}
		se := slices.Clone(ext)
		se[d1], se[d2] = se[d2], se[d1]
		return must(graph.NewFlip(d1, d2, src(graph.ArrayOf(dt, se...))))
	case 1:
		d := g.intn(rank - 1)
		se := slices.Concat(ext[:d], []int{ext[d] * ext[d+1]}, ext[d+2:])
		return must(graph.NewSubdiv(d, ext[d+1], src(graph.ArrayOf(dt, se...))))
	case 3:
		return g.windowOf(t, src)
	}
	d := pick(g, divisible)
	b := pick(g, divisors(ext[d]))
	return must(graph.NewFlatten(d, must(graph.NewSubdiv(d, b, src(t)))))
}

// windowOf makes a window, pad or crop view whose result has the shape of
// t, over a term that src makes of the shape the view needs.
func (g *gen) windowOf(t *graph.ArrayType, src func(graph.Type) graph.Node) graph.Node {
	ext := t.Layout.Extents()
	rank := len(ext)
	dt := t.DType
	d := g.intn(rank)
	var v graph.View
	se := slices.Clone(ext)
	switch g.weighted(3*btoi(rank >= 2), 2, 1) {
	case 0: // window: axes d and d+1 are positions and elements
		d = g.intn(rank - 1)
		w := graph.WindowView{Axis: d, Width: ext[d+1], Stride: 1 + g.intn(2), Dilation: 1 + g.intn(2)}
		e := (ext[d]-1)*w.Stride + w.Span() + g.intn(w.Stride)
		se = slices.Concat(ext[:d], []int{e}, ext[d+2:])
		v = w
	case 1: // pad
		p := graph.PadView{Axis: d, Lo: g.intn(3), Hi: g.intn(3)}
		if g.coin(0.25) {
			p.Interior = 1
		}
		rest := ext[d] - p.Lo - p.Hi - 1
		if rest < 0 || rest%(p.Interior+1) != 0 {
			p.Lo, p.Hi, p.Interior = 0, 0, 0
			rest = ext[d] - 1
		}
		se[d] = rest/(p.Interior+1) + 1
		v = p
	default: // crop
		c := graph.CropView{Axis: d, Lo: g.intn(3), Hi: g.intn(3)}
		se[d] = ext[d] + c.Lo + c.Hi
		v = c
	}
	return must(graph.NewView(v, src(graph.ArrayOf(dt, se...))))
}

// divisors returns the blocks b with 1 < b < e that divide e.
func divisors(e int) []int {
	var out []int
	for b := 2; b < e; b++ {
		if e%b == 0 {
			out = append(out, b)
		}
	}
	return out
}

// tuple makes a term of the tuple type t.
func (g *gen) tuple(t *graph.TupleType, depth int, sc scope) graph.Node {
	same := func(u graph.Type) bool { return graph.SameShape(t, u) }
	if c := g.visible(sc, same); len(c) > 0 && g.coin(0.5) {
		return pick(g, c).n
	}
	if depth > 0 {
		if outerOf(t) > 0 && g.coin(0.35) {
			return g.nzipTerm(t, depth, sc)
		}
		if g.on(Reduce|TupleReduce) && g.coin(0.35) {
			return g.rnz(t, depth, sc, nil)
		}
	}
	elems := make([]graph.Node, len(t.Elems))
	for i, et := range t.Elems {
		elems[i] = g.value(et, depth, sc)
	}
	return must(graph.NewTuple(elems...))
}

// argType draws the type of an array a traversal of extent n at depth depth
// reads: its elements have rank below depth, so that the function can
// consume them.
func (g *gen) argType(n, depth int) graph.Type {
	if g.on(Tuples) && g.cfg.MaxRank >= 2 && g.cfg.MixedTuples > 0 && g.coin(g.cfg.MixedTuples) {
		return g.mixedTuple(n)
	}
	if g.on(Tuples) && g.coin(0.06) {
		return &graph.TupleType{Elems: []graph.Type{g.arrayType(n, depth), g.arrayType(n, depth)}}
	}
	return g.arrayType(n, depth)
}

// mixedTuple draws a pair of arrays of outer extent n and two different
// ranks, such as ([n,1,1], [n,3]), for Config.MixedTuples. Inner extents
// are 1 a third of the time, so that size-1 axes meet longer ones.
func (g *gen) mixedTuple(n int) *graph.TupleType {
	ranks := []int{1 + g.intn(g.cfg.MaxRank), 0}
	ranks[1] = 1 + g.intn(g.cfg.MaxRank-1)
	if ranks[1] >= ranks[0] {
		ranks[1]++
	}
	elems := make([]graph.Type, 2)
	for i, rank := range ranks {
		ext := []int{n}
		budget := max(1, g.room()/n)
		for len(ext) < rank {
			e := 1
			if !g.coin(1.0/3) && budget >= 2 {
				e = g.extent(budget)
			}
			ext = append(ext, e)
			budget = max(1, budget/e)
		}
		elems[i] = graph.ArrayOf(g.cfg.DType, ext...)
	}
	return &graph.TupleType{Elems: elems}
}

// args makes k arrays of outer extent n for a traversal at depth depth,
// preferring what is visible (the rows of enclosing maps, let-bound values,
// inputs and shared terms).
func (g *gen) args(n, k, depth int, sc scope) ([]graph.Node, []graph.Type) {
	nodes := make([]graph.Node, k)
	types := make([]graph.Type, k)
	outer := func(t graph.Type) bool { return outerOf(t) == n && maxRank(t) <= max(depth, 1) }
	for i := range k {
		c := g.visible(sc, outer)
		if g.coin(0.3) {
			c = append(c, g.shared(outer)...)
		}
		if len(c) > 0 && g.coin(0.6) {
			e := pick(g, c)
			nodes[i], types[i] = e.n, e.t
			continue
		}
		types[i] = g.argType(n, depth)
		nodes[i] = g.value(types[i], depth-1, sc)
	}
	return nodes, types
}

func maxRank(t graph.Type) int {
	switch t := t.(type) {
	case *graph.ArrayType:
		return t.Rank()
	case *graph.TupleType:
		r := 0
		for _, e := range t.Elems {
			r = max(r, maxRank(e))
		}
		return r
	}
	return 0
}

// arity draws how many arrays a traversal reads: one or two mostly.
func (g *gen) arity() int {
	ws := make([]int, g.cfg.MaxArgs)
	for i := range ws {
		ws[i] = max(1, 5-2*i)
	}
	return 1 + g.weighted(ws...)
}

// sameShapeArgs decides whether a traversal whose function returns want
// reads arrays of its result's own shape, so that an op, section or id can
// be its function, or a lambda can return one of its parameters. Near the
// bottom of the nesting, where a lambda could not build an array, it is
// the rule for array results.
func (g *gen) sameShapeArgs(want graph.Type, depth int) bool {
	switch {
	case isTuple(want):
		return false
	case rankOf(want) > 0 && depth <= 1:
		return g.coin(0.85)
	}
	return g.coin(0.3)
}

// nzipTerm makes an nzip whose result has the shape of t (an array, or a
// tuple of arrays with one outer extent), sometimes with its function bound
// by a let.
func (g *gen) nzipTerm(t graph.Type, depth int, sc scope) graph.Node {
	z := g.nzip(t, depth, sc, nil)
	if lam, ok := z.Fn.(*graph.Lambda); ok && g.on(Let|LetFn) && g.coin(0.08) {
		f := graph.NewVar("f")
		return must(graph.NewLet(f, lam, must(graph.NewNZip(f, z.Args...))))
	}
	return z
}

// nzip makes nzip f xs with a result of the shape of t. When fixed is not
// nil it is called to make the arguments instead of args.
func (g *gen) nzip(t graph.Type, depth int, sc scope, fixed func(n int) ([]graph.Node, []graph.Type)) *graph.NZip {
	n := outerOf(t)
	want := elemOf(t)
	var xs []graph.Node
	var xts []graph.Type
	switch {
	case fixed != nil:
		xs, xts = fixed(n)
	case g.sameShapeArgs(want, depth):
		// Arguments of the result's own shape, so that an op, a section or
		// id (lifted when the elements are arrays) can be the function.
		k := 1 + g.intn(2)
		xs, xts = make([]graph.Node, k), make([]graph.Type, k)
		for i := range xs {
			xts[i] = t
			xs[i] = g.value(t, depth-1, sc)
		}
	default:
		xs, xts = g.args(n, g.arity(), depth, sc)
	}
	elems := make([]graph.Type, len(xts))
	for i, xt := range xts {
		elems[i] = elemOf(xt)
	}
	return must(graph.NewNZip(g.fn(elems, want, depth, sc, n, nil), xs...))
}

func isTuple(t graph.Type) bool { _, ok := t.(*graph.TupleType); return ok }

// fn makes the function of a traversal of extent n at depth depth: it takes
// elements of the types elems and returns a value of the shape of want. It
// is an op, section or id (lifted to arrays by partial nzips) where the
// types allow, or a lambda. post, when not nil, rewrites the lambda's body.
func (g *gen) fn(elems []graph.Type, want graph.Type, depth int, sc scope, n int, post func(graph.Node, graph.Type) graph.Node) graph.Node {
	if post == nil && g.coin(0.65) {
		if f := g.opFn(elems, want, sc); f != nil {
			return f
		}
	}
	return g.lambda(elems, want, depth, sc, n, post)
}

// lambda makes \p0 p1 ... -> body, the body at depth depth-1 with the
// parameters in scope.
func (g *gen) lambda(elems []graph.Type, want graph.Type, depth int, sc scope, n int, post func(graph.Node, graph.Type) graph.Node) *graph.Lambda {
	params := make([]*graph.Var, len(elems))
	inner := sc
	for i, et := range elems {
		params[i] = graph.NewVar(varName(et, i))
		inner = inner.with(entry{n: params[i], t: et})
	}
	bodyDepth := depth - 1
	if !g.on(Nest) {
		bodyDepth = 0
	}
	g.work *= max(1, n)
	body := g.value(want, bodyDepth, inner)
	g.work /= max(1, n)
	if post != nil {
		body = post(body, want)
	}
	return must(graph.NewLambda(params, body))
}

// opFn returns an op, section or id of the right type, lifted by partial
// nzips to the rank of want, or nil when none fits.
func (g *gen) opFn(elems []graph.Type, want graph.Type, sc scope) graph.Node {
	if !g.on(OpFn) || isTuple(want) {
		return nil
	}
	r := rankOf(want)
	if r > 0 && !g.on(PartialNZip) {
		return nil
	}
	for _, e := range elems {
		if !graph.SameShape(e, want) {
			return nil
		}
	}
	switch len(elems) {
	case 1:
		switch g.weighted(1, 2, btoi(g.on(Section))*3) {
		case 0:
			return graph.NewIdent()
		case 1:
			return g.lift(g.opRef(pick(g, []graph.Op{graph.Neg, graph.Abs, graph.Tanh, graph.Logistic, graph.Erf})), r)
		}
		return g.lift(g.section(sc), r)
	case 2:
		return g.lift(g.opRef(pick(g, []graph.Op{graph.Add, graph.Add, graph.Sub, graph.Mul, graph.Mul, graph.Max, graph.Min})), r)
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lift makes the scalar function f apply elementwise to arrays of rank r:
// with r partial nzips (lift (+) 1 is zip (+)), or, when PartialNZip is
// disabled, with lambdas (\a b -> nzip (+) a b).
func (g *gen) lift(f graph.Node, r int) graph.Node {
	if r == 0 {
		return f
	}
	inner := g.lift(f, r-1)
	if g.on(PartialNZip) {
		return must(graph.NewNZip(inner))
	}
	k, ok := graph.FuncArity(f)
	if !ok {
		panic("graphtest: internal error: lift of a function of unknown arity")
	}
	params := make([]*graph.Var, k)
	args := make([]graph.Node, k)
	for i := range params {
		params[i] = graph.NewVar(string(rune('a' + i)))
		args[i] = params[i]
	}
	return must(graph.NewLambda(params, must(graph.NewNZip(inner, args...))))
}

// section makes a tame section: (*c), (c+), (max 0), (/ 2), (- x) with x a
// scalar in scope, ...
func (g *gen) section(sc scope) graph.Node {
	var operand graph.Node = graph.NewConst(pick(g, literals))
	if c := g.visible(sc, isScalar); len(c) > 0 && g.coin(0.3) {
		operand = pick(g, c).n
	}
	op := pick(g, []graph.Op{graph.Add, graph.Sub, graph.Mul, graph.Mul, graph.Max, graph.Min, graph.Div})
	left := g.coin(0.5)
	if op == graph.Div {
		// x / c with a literal c away from zero; never c / x.
		operand, left = graph.NewConst(pick(g, []float64{2, 4, -2, 0.5})), false
	}
	if op == graph.Max || op == graph.Min {
		if g.coin(0.5) {
			operand = graph.NewConst(0)
		}
	}
	return must(graph.NewSection(op, operand, left))
}

// rnz makes rnz r f xs with an accumulator of the shape of t: a scalar, an
// array (r lifted) or a tuple (r combines componentwise). When fixed is not
// nil it makes the arguments, which decide the extent of the traversal.
func (g *gen) rnz(t graph.Type, depth int, sc scope, fixed func() ([]graph.Node, []graph.Type)) *graph.RNZ {
	// (*) over arrays squashes with a nested map, which is nesting.
	red, op := g.reducer(t, isScalar(t) || g.on(Nest))
	var post func(graph.Node, graph.Type) graph.Node
	if op == graph.Mul {
		// Products of many values stay finite when every factor is
		// squashed into (-1, 1).
		post = g.squash
	}
	var xs []graph.Node
	var xts []graph.Type
	m := 0
	if fixed != nil {
		xs, xts = fixed()
		m = outerOf(xts[0])
	} else {
		// The first array decides the extent of the traversal; prefer one
		// in scope, such as the row a map binds.
		traversable := func(u graph.Type) bool { return outerOf(u) > 0 && maxRank(u) <= max(depth, 1) }
		var first *entry
		if c := g.visible(sc, traversable); len(c) > 0 && g.coin(0.6) {
			e := pick(g, c)
			first = &e
			m = outerOf(first.t)
		} else {
			m = g.extent(g.room())
		}
		stacked := graph.Stacked(m, t)
		if g.sameShapeArgs(t, depth) {
			// reduce r x, or rnz r (*) x y (a dot product when r is (+)).
			k := 1 + g.intn(2)
			for i := range k {
				var x graph.Node
				if i == 0 && first != nil && graph.SameShape(first.t, stacked) {
					x = first.n
				} else {
					x = g.value(stacked, depth-1, sc)
				}
				xs, xts = append(xs, x), append(xts, stacked)
			}
		} else {
			k := g.arity()
			if first != nil {
				xs, xts = []graph.Node{first.n}, []graph.Type{first.t}
				k--
			}
			more, moreT := g.args(m, k, depth, sc)
			xs, xts = append(xs, more...), append(xts, moreT...)
		}
	}
	elems := make([]graph.Type, len(xts))
	for i, xt := range xts {
		elems[i] = elemOf(xt)
	}
	return must(graph.NewRNZ(red, g.fn(elems, t, depth, sc, m, post), xs...))
}

// squash bounds the value n of type t into (-1, 1), elementwise.
func (g *gen) squash(n graph.Node, t graph.Type) graph.Node {
	switch t := t.(type) {
	case *graph.ScalarType:
		return must(graph.NewCall(graph.Tanh, n))
	case *graph.ArrayType:
		if g.on(OpFn) {
			return must(graph.NewNZip(g.lift(g.opRef(graph.Tanh), t.Rank()-1), n))
		}
		x := graph.NewVar("e")
		return must(graph.NewNZip(must(graph.NewLambda([]*graph.Var{x}, g.squash(x, elemOf(t)))), n))
	}
	panic("graphtest: internal error: squash of a tuple")
}

// redOp draws a reduction operator: (+) mostly, max, min and (*) when
// enabled.
func (g *gen) redOp(mul bool) graph.Op {
	ops := []graph.Op{graph.Add, graph.Add, graph.Add}
	if g.on(MaxMin) {
		ops = append(ops, graph.Max, graph.Min)
	}
	if mul && g.on(MulReduce) && g.coin(0.5) {
		ops = append(ops, graph.Mul)
	}
	return pick(g, ops)
}

// reducer makes a reduction operator for accumulators of the shape of t and
// returns the op it applies (for a tuple, Add when every component adds).
// mul allows (*).
func (g *gen) reducer(t graph.Type, mul bool) (graph.Node, graph.Op) {
	switch t := t.(type) {
	case *graph.ScalarType:
		op := g.redOp(mul)
		switch g.weighted(7, 2, 2*btoi(g.on(App))) {
		case 0:
			return g.opRef(op), op
		case 1:
			a, b := graph.NewVar("a"), graph.NewVar("b")
			return must(graph.NewLambda([]*graph.Var{a, b}, must(graph.NewCall(op, a, b)))), op
		}
		a, b := graph.NewVar("a"), graph.NewVar("b")
		return must(graph.NewLambda([]*graph.Var{a, b}, must(graph.NewApp(g.opRef(op), a, b)))), op
	case *graph.ArrayType:
		op := g.redOp(mul)
		if g.coin(0.8) {
			return g.lift(g.opRef(op), t.Rank()), op
		}
		a, b := graph.NewVar("a"), graph.NewVar("b")
		return must(graph.NewLambda([]*graph.Var{a, b}, must(graph.NewNZip(g.lift(g.opRef(op), t.Rank()-1), a, b)))), op
	case *graph.TupleType:
		a, b := graph.NewVar("p"), graph.NewVar("q")
		body, op := g.combineTuple(t, a, b)
		return must(graph.NewLambda([]*graph.Var{a, b}, body)), op
	}
	panic(fmt.Sprintf("graphtest: internal error: reducer for %T", t))
}

// combineTuple combines the tuples a and b of type t componentwise, each
// component with its own op.
func (g *gen) combineTuple(t *graph.TupleType, a, b graph.Node) (graph.Node, graph.Op) {
	elems := make([]graph.Node, len(t.Elems))
	all := graph.Add
	for i, et := range t.Elems {
		pa, pb := must(graph.NewProj(i, a)), must(graph.NewProj(i, b))
		var op graph.Op
		switch et := et.(type) {
		case *graph.ScalarType:
			op = g.redOp(false)
			elems[i] = must(graph.NewCall(op, pa, pb))
		case *graph.ArrayType:
			op = g.redOp(false)
			elems[i] = must(graph.NewNZip(g.lift(g.opRef(op), et.Rank()-1), pa, pb))
		case *graph.TupleType:
			elems[i], op = g.combineTuple(et, pa, pb)
		}
		if op != graph.Add {
			all = op
		}
	}
	return must(graph.NewTuple(elems...)), all
}
