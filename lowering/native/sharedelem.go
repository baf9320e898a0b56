package native

import (
	"math"
	"slices"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// A row of a softmax computes each element's exponential twice:
//
//	let s = rnz (+) (\v -> exp (v - m)) r in map (\w -> exp (w - m) / s) r
//
// once for the sum and once for the quotient. When the map writes a
// vector destination of the sum's type, sharedElemLet computes the
// element function once, into the destination, and lets the sum and the
// map read it back from there:
//
//	d := map (\v -> exp (v - m)) r
//	let s = reduce (+) d in map (\w e -> e / s) r d    (into d, in place)
//
// The values are the same bit for bit: the element function is computed
// by the same kind of vector program, the sum folds the same values in
// the same order, and the map reads element k of d before it stores
// element k. On a softmax over 256×32768 float32 it halves the
// exponentials, the most costly part of the loop.

// sharedElemLet compiles the let n into dst that way when it has that
// shape, and reports whether it did.
func (c *compiler) sharedElemLet(n *graph.Let, env *cenv, dst *cval) (code, bool, error) {
	red, ok := n.Value.(*graph.RNZ)
	if !ok || len(red.Args) != 1 || dst.kind != cvView || dst.acc != graph.OpInvalid || len(dst.layout) != 1 ||
		(dst.dt != graph.Float32 && dst.dt != graph.Float64) {
		return nil, false, nil
	}
	body, ok := n.Body.(*graph.NZip)
	if !ok || len(body.Args) != 1 || body.Args[0] != red.Args[0] {
		return nil, false, nil
	}
	f, ok := red.Fn.(*graph.Lambda)
	if !ok || len(f.Params) != 1 || !binderFree(f.Body) {
		return nil, false, nil
	}
	g, ok := body.Fn.(*graph.Lambda)
	if !ok || len(g.Params) != 1 {
		return nil, false, nil
	}
	if _, lifts, ok := c.liftedOp(c.fnOf(red.Red, env)); !ok || lifts != 0 {
		return nil, false, nil
	}
	if t, err := c.typeOf(n.Value, env); err != nil {
		return nil, false, err
	} else if st, ok := t.(*graph.ScalarType); !ok || st.DType != dst.dt {
		return nil, false, nil
	}
	r, ok := c.viewOf(red.Args[0], env)
	if !ok || r.kind != cvView || len(r.layout) != 1 || r.layout[0].Extent != dst.layout[0].Extent ||
		(r.dt == dst.dt && r.buf == dst.buf) {
		return nil, false, nil
	}
	// The map's body with every copy of the element function's body (over
	// the map's parameter) replaced by the element read back.
	e, w := graph.NewVar("e"), g.Params[0]
	found := false
	g2, err := graph.Rewrite(g.Body, func(m graph.Node) (graph.Node, error) {
		if sameScalarTerm(m, f.Body, w, f.Params[0]) {
			found = true
			return e, nil
		}
		return m, nil
	})
	if err != nil || !found {
		return nil, false, err
	}
	first, err := graph.NewNZip(f, red.Args[0])
	if err != nil {
		return nil, false, err
	}
	// The row the element function fills: the destination, or, when the
	// destination is streamed, a scratch row.
	hold, out, err := c.letRow(dst)
	if err != nil {
		return nil, false, err
	}
	d := graph.NewVar("d")
	lam, err := graph.NewLambda([]*graph.Var{w, e}, g2)
	if err != nil {
		return nil, false, err
	}
	mp, err := graph.NewNZip(lam, red.Args[0], d)
	if err != nil {
		return nil, false, err
	}
	sum, err := graph.NewReduce(red.Red, d)
	if err != nil {
		return nil, false, err
	}
	let, err := graph.NewLet(n.Var, sum, mp)
	if err != nil {
		return nil, false, err
	}
	cd, err := c.fillThen(first, d, let, env, hold, out)
	if err != nil {
		return nil, false, err
	}
	if out.stream {
		c.note("element function shared by a reduction and a map, computed once into scratch, the map streamed to the destination")
	} else {
		c.note("element function shared by a reduction and a map, computed once into the destination")
	}
	return cd, true, nil
}

// binderFree reports whether n is built of variables, inputs, constants
// and scalar op calls only: terms that sameScalarTerm compares.
func binderFree(n graph.Node) bool {
	switch n := n.(type) {
	case *graph.Var, *graph.Input, *graph.Const:
		return true
	case *graph.Call:
		for _, a := range n.Args {
			if !binderFree(a) {
				return false
			}
		}
		return true
	}
	return false
}

// sameScalarTerm reports whether a equals b with b's variable bv read as
// a's av: the same ops on the same variables, inputs and constants.
func sameScalarTerm(a, b graph.Node, av, bv *graph.Var) bool {
	switch b := b.(type) {
	case *graph.Var:
		if b == bv {
			return a == av
		}
		return a == b
	case *graph.Input:
		return a == b
	case *graph.Const:
		ac, ok := a.(*graph.Const)
		return ok && math.Float64bits(ac.Value) == math.Float64bits(b.Value)
	case *graph.Call:
		ac, ok := a.(*graph.Call)
		if !ok || ac.Op != b.Op || len(ac.Args) != len(b.Args) {
			return false
		}
		for i := range b.Args {
			if !sameScalarTerm(ac.Args[i], b.Args[i], av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// A let whose array value is read by the map that ends its body,
//
//	let v = E in let s = reduce (+) v in map (\e -> e / s) v
//
// (the softmax Fuse makes from an exporter's five operators: ReduceMax,
// Sub, Exp, ReduceSum and Div), would materialise E into scratch and have
// the map read it from there while it writes the destination: a pass
// that reads one buffer and writes another. When v has the destination's
// type, destLet computes E into the destination itself and runs the map
// there in place, as sharedElemLet does: the scratch goes, and the last
// pass reads and writes lines already in cache. On the softmax over
// 256×32768 float32 that makes the five operators as fast as
// layers.Softmax.
//
// The destination holds v while the body runs, so the body may read v
// only where that is safe:
//   - in the values of the lets between (the sum above), which must be
//     scalars or tuples of scalars, computed before the map starts;
//   - as an argument of the map itself, whole and unviewed, so that the
//     map reads element k of v just before it writes element k.
//
// The map's function must not read v, and its other arguments must not
// depend on v.

// destLet compiles the let n into dst that way when it has that shape,
// and reports whether it did.
func (c *compiler) destLet(n *graph.Let, env *cenv, dst *cval) (code, bool, error) {
	if dst.kind != cvView || dst.acc != graph.OpInvalid || len(dst.layout) != 1 || graph.IsFunc(n.Value) {
		return nil, false, nil
	}
	if _, ok := c.viewOf(n.Value, env); ok {
		return nil, false, nil // a view costs no scratch
	}
	t, err := c.typeOf(n.Value, env)
	if err != nil {
		return nil, false, err
	}
	at, ok := t.(*graph.ArrayType)
	if !ok || at.DType != dst.dt || len(at.Layout) != 1 || at.Layout[0].Extent != dst.layout[0].Extent {
		return nil, false, nil
	}
	v := n.Var
	body, tenv := n.Body, env.bind(v, typeVal(t))
	for {
		l, ok := body.(*graph.Let)
		if !ok {
			break
		}
		if graph.IsFunc(l.Value) {
			return nil, false, nil
		}
		// A let the typer refuses is left to the general path, which
		// reports it.
		lt, err := c.typeOf(l.Value, tenv)
		if err != nil || !scalarsOnly(lt) {
			return nil, false, nil
		}
		body, tenv = l.Body, tenv.bind(l.Var, typeVal(lt))
	}
	mp, ok := body.(*graph.NZip)
	if !ok || graph.IsFunc(mp) || slices.Contains(c.free.Of(mp.Fn), v) {
		return nil, false, nil
	}
	reads := false
	for _, a := range mp.Args {
		if a == graph.Node(v) {
			reads = true
		} else if slices.Contains(c.free.Of(a), v) {
			return nil, false, nil
		}
	}
	if !reads {
		return nil, false, nil
	}
	hold, out, err := c.letRow(dst)
	if err != nil {
		return nil, false, err
	}
	cd, err := c.fillThen(n.Value, v, n.Body, env, hold, out)
	if err != nil {
		return nil, false, err
	}
	if out.stream {
		c.note("let computed into scratch, the map after it streamed to the destination")
	} else {
		c.note("let computed into the destination, the map after it in place")
	}
	return cd, true, nil
}

// fillThen compiles value into hold, the row v, and then body, with v
// bound to hold, into out: sharedElemLet's and destLet's two passes. A
// body that starts by reducing v whole takes the reduction as the fill
// writes the row (fillFold).
func (c *compiler) fillThen(value graph.Node, v *graph.Var, body graph.Node, env *cenv, hold, out *cval) (code, error) {
	dv := *hold
	dv.vary = nil
	benv := env.bind(v, &dv)
	if l, op, ok := c.rowReduce(body, v, benv, hold.dt); ok {
		fill, s, ok, err := c.fillFold(value, env, hold, op)
		if err != nil {
			return nil, err
		}
		if ok {
			rest, err := c.into(l.Body, benv.bind(l.Var, s), out)
			if err != nil {
				return nil, err
			}
			return seq(fill, rest), nil
		}
	}
	fill, err := c.into(value, env, hold)
	if err != nil {
		return nil, err
	}
	rest, err := c.into(body, benv, out)
	if err != nil {
		return nil, err
	}
	return seq(fill, rest), nil
}

// letRow returns where sharedElemLet and destLet compute their row (hold)
// and the destination of the map after it (out). Mostly hold is dst
// itself, and out dst: the map runs in place over lines already in cache.
// But then the row's first pass writes dst, which reads each line from
// memory before writing it, and the lines go back to memory later: a
// destination too large to stay in cache moves twice. So when dst is a
// row of at least streamMinRow bytes, of a buffer (a kernel's output, in
// practice) at least half the last cache's size, hold is a scratch row,
// which stays in cache
// from row to row, and the map streams dst: stores that write whole
// lines without reading them (a chain's ChainProg.RunStream, any other
// map's chunks by kernels.Stream), fenced once per row. A softmax over
// 256×32768 float32 then moves 64 MiB instead of 96: the five operators
// fused took 5.55 ms against 6.37, layers.Softmax 5.66 against 6.40
// (BenchmarkStack, medians of 7 alternating rounds, two threads, Zen 3).
// Streaming the chunks by copies after the chain instead gained nothing:
// the copies cost what the exponentials saved.
func (c *compiler) letRow(dst *cval) (hold, out *cval, err error) {
	if !c.streams(dst) {
		return dst, dst, nil
	}
	hold, err = c.scratch(graph.ArrayOf(dst.dt, dst.layout[0].Extent))
	if err != nil {
		return nil, nil, err
	}
	o := *dst
	o.stream = true
	return hold, &o, nil
}

// streamMinRow is the shortest row, in bytes, that letRow streams: a
// shorter one pays the scratch's extra pass for little.
const streamMinRow = 16 << 10

// noStream turns streaming off, for the tests that compare the two.
var noStream bool

// lastCacheTest, when positive, stands for the size of the last cache in
// streams' rule, for the tests whose plans stream on every machine.
var lastCacheTest int

// streams reports whether letRow streams dst.
func (c *compiler) streams(dst *cval) bool {
	if noStream || !kernels.HasStream() || dst.kind != cvView || dst.acc != graph.OpInvalid || len(dst.layout) != 1 ||
		dst.layout[0].Stride != 1 || (dst.dt != graph.Float32 && dst.dt != graph.Float64) {
		return false
	}
	spec := c.b.bufs[dst.dt][dst.buf]
	if spec.slot || spec.perFrame {
		return false
	}
	size := dst.dt.Size()
	return dst.layout[0].Extent*size >= streamMinRow && spec.n*size >= lastCacheBytes()/2
}

// lastCacheBytes is the size of the machine's last cache
// (fusion.DetectMachine), or lastCacheTest when a test sets it.
func lastCacheBytes() int {
	if lastCacheTest > 0 {
		return lastCacheTest
	}
	m := fusion.DetectMachine()
	if len(m.Caches) == 0 {
		return 32 << 20
	}
	return m.Caches[len(m.Caches)-1].Bytes
}

// scalarsOnly reports whether t is a scalar or a tuple of them, nested
// or not.
func scalarsOnly(t graph.Type) bool {
	switch t := t.(type) {
	case *graph.ScalarType:
		return true
	case *graph.TupleType:
		for _, e := range t.Elems {
			if !scalarsOnly(e) {
				return false
			}
		}
		return true
	}
	return false
}

// sharedElemLet and destLet fill a row (a softmax's exponentials, into
// the destination or a scratch row) and then reduce it whole:
//
//	d := map (\v -> exp (v - m)) r;  s := reduce (+) d;  map (\e -> e / s) d
//
// Reduced after the fill, the row is read back from the L2 cache (a row
// of 32768 float32 is 128 KiB, four times the L1 cache). fillFold runs the
// fill and the reduction chunk by chunk instead: each chunk of the row is
// folded just after the fill wrote it, while it is still in the L1 cache.
// The chunks are the vector programs' (chunk elements), folded as
// vectorReduce folds them — the first chunk's first element, then its
// other elements by foldChunk, then each chunk — so the result has the
// bits of the reduction's own loop over the row. BenchmarkStack's softmax
// over 256×32768 float32 took 4.87 against 5.03 ms (the five operators,
// fused) and 4.93 against 5.10 ms (layers.Softmax), medians of 9 rounds
// alternating with the build before, two goroutines, Zen 3.

// rowReduce recognises a body that starts by reducing the row v whole
// with an accumulating op: let s = reduce op v in rest, with s a scalar of
// v's element type. It returns the let and the op.
func (c *compiler) rowReduce(body graph.Node, v *graph.Var, env *cenv, dt graph.DType) (*graph.Let, graph.Op, bool) {
	l, ok := body.(*graph.Let)
	if !ok {
		return nil, 0, false
	}
	red, ok := l.Value.(*graph.RNZ)
	if !ok || len(red.Args) != 1 || red.Args[0] != graph.Node(v) || !isIdentity(red.Fn) {
		return nil, 0, false
	}
	op, lifts, ok := c.liftedOp(c.fnOf(red.Red, env))
	if !ok || lifts != 0 {
		return nil, 0, false
	}
	if !foldable(op) {
		return nil, 0, false
	}
	if t, err := c.typeOf(l.Value, env); err != nil {
		return nil, 0, false
	} else if st, ok := t.(*graph.ScalarType); !ok || st.DType != dt {
		return nil, 0, false
	}
	return l, op, true
}

// foldable reports whether foldChunk folds with op.
func foldable(op graph.Op) bool {
	return op == graph.Add || op == graph.Mul || op == graph.Max || op == graph.Min
}

// isIdentity reports whether fn is the identity: id, or \x -> x.
func isIdentity(fn graph.Node) bool {
	switch fn := fn.(type) {
	case *graph.Ident:
		return true
	case *graph.Lambda:
		return len(fn.Params) == 1 && fn.Body == graph.Node(fn.Params[0])
	}
	return false
}

// fillFold compiles value, a map over rows (under lets of scalars), into
// hold, a unit-stride row of floats, and reduces the row with op as the
// map fills it, chunk by chunk (see above). It returns the code and the
// reduction's value, a scalar register the code sets. ok is false, with
// nothing compiled, when value or hold has another shape, when the map
// makes no vector loop, or when the row's loops could be split over
// goroutines (the compiler is not inside a parallel loop already), which
// a fold in order cannot follow.
func (c *compiler) fillFold(value graph.Node, env *cenv, hold *cval, op graph.Op) (code, *cval, bool, error) {
	if noFold || hold.kind != cvView || hold.acc != graph.OpInvalid || len(hold.layout) != 1 || hold.layout[0].Stride != 1 ||
		hold.layout[0].Extent < 1 || (hold.dt != graph.Float32 && hold.dt != graph.Float64) || !c.par && c.workers > 1 {
		return nil, nil, false, nil
	}
	// The lets of scalars down to the map, each typed before anything is
	// compiled.
	var lets []*graph.Let
	tenv := env
	for {
		l, ok := value.(*graph.Let)
		if !ok {
			break
		}
		if graph.IsFunc(l.Value) {
			return nil, nil, false, nil
		}
		t, err := c.typeOf(l.Value, tenv)
		if err != nil || !scalarsOnly(t) {
			return nil, nil, false, nil
		}
		lets, value, tenv = append(lets, l), l.Body, tenv.bind(l.Var, typeVal(t))
	}
	mp, ok := value.(*graph.NZip)
	if !ok || graph.IsFunc(mp) {
		return nil, nil, false, nil
	}
	for _, a := range mp.Args {
		t, err := c.typeOf(a, tenv)
		if err != nil {
			return nil, nil, false, nil
		}
		if at, ok := t.(*graph.ArrayType); !ok || len(at.Layout) != 1 {
			return nil, nil, false, nil
		}
	}
	mark := c.vmark()
	var setups []code
	for _, l := range lets {
		env2, setup, err := c.bindLet(l, env)
		if err != nil {
			return nil, nil, false, err
		}
		env, setups = env2, append(setups, setup)
	}
	args, setup, err := c.values(mp.Args, env)
	if err != nil {
		return nil, nil, false, err
	}
	setups = append(setups, setup)
	// The map's vector loop over the row, run a chunk at a time. A map
	// that makes none is left to the general path, what was compiled for
	// it taken back.
	fill, vec, err := c.vectorMap(c.fnOf(mp.Fn, env), args, hold)
	if err != nil {
		return nil, nil, false, err
	}
	if !vec {
		c.rollback(mark)
		return nil, nil, false, nil
	}
	r := c.newFlt()
	n := hold.layout[0].Extent
	c.note("vector rnz [%d] (%v) of the row the loop before fills, chunk by chunk as it writes it", n, op)
	var fold code
	if hold.dt == graph.Float32 {
		fold = foldRow(fill, func(fr *frame) [][]float32 { return fr.f32 }, hold, op, r)
	} else {
		fold = foldRow(fill, func(fr *frame) [][]float64 { return fr.f64 }, hold, op, r)
	}
	return seq(append(setups, fold)...), regVal(hold.dt, r), true, nil
}

// noFold turns fillFold off, for the tests that compare the two.
var noFold bool

// foldRow is fillFold's loop: for each chunk of the row hold, it runs
// fill over the chunk and folds the chunk into the accumulator as
// vectorReduce does; at the end it leaves the accumulator in scalar
// register r.
func foldRow[T float32 | float64](fill rangeFn, bufs func(*frame) [][]T, hold *cval, op graph.Op, r int) code {
	n, buf, base, dt := hold.layout[0].Extent, hold.buf, hold.reg, hold.dt
	return func(fr *frame) {
		var acc T
		for i0 := 0; i0 < n; i0 += chunk {
			m := min(chunk, n-i0)
			fill(fr, i0, i0+m)
			off := fr.ints[base] + i0
			res := bufs(fr)[buf][off : off+m]
			if i0 == 0 {
				acc = foldChunk(firstFold(res, op, dt))
			} else {
				acc = foldChunk(acc, res, op, dt)
			}
		}
		fr.flts[r] = float64(acc)
	}
}
