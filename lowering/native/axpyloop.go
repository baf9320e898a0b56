package native

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// This file compiles the two loops of axpys that the matrix product's
// fast loop orders are made of into one Go loop calling kernels.Axpy,
// without a closure per iteration:
//
//	rnz (zip (+)) (\a r -> map (\b -> a * b) r) x M   into a row d:  for j: d += x[j] * M[j]
//	map (\a -> map (\b -> a * b) r) x                 into rows D:   for i: D[i] (+)= x[i] * r
//
// (sections (*a) and (a*) and the operands in either order included). The
// first iteration of the reduction, and every row of a map that stores,
// is a scaled copy; the rest accumulate.

// axpyBody matches the body of fn on the elements elems: map (\b -> a * b)
// r and its variants. It returns a (one element) and r (a row).
func (c *compiler) axpyBody(fn *cval, elems []*cval) (a, r *cval, ok bool) {
	l, ok := fn.node.(*graph.Lambda)
	if fn.kind != cvFunc || !ok || len(l.Params) != len(elems) {
		return nil, nil, false
	}
	env := fn.env
	for i, p := range l.Params {
		env = env.bind(p, elems[i])
	}
	m, ok := l.Body.(*graph.NZip)
	if !ok || len(m.Args) != 1 {
		return nil, nil, false
	}
	r, ok = c.viewOf(m.Args[0], env)
	if !ok || r.kind != cvView || len(r.layout) != 1 {
		return nil, nil, false
	}
	var operand graph.Node
	switch f := m.Fn.(type) {
	case *graph.Section:
		if f.Op == graph.Mul {
			operand = f.Operand
		}
	case *graph.Lambda:
		call, ok := f.Body.(*graph.Call)
		if !ok || len(f.Params) != 1 || call.Op != graph.Mul {
			break
		}
		b := f.Params[0]
		switch {
		case call.Args[0] == graph.Node(b) && !usesAny(call.Args[1], f.Params):
			operand = call.Args[1]
		case call.Args[1] == graph.Node(b) && !usesAny(call.Args[0], f.Params):
			operand = call.Args[0]
		}
	}
	if operand == nil {
		return nil, nil, false
	}
	a, ok = c.viewOf(operand, env)
	if !ok || a.kind != cvView || len(a.layout) != 0 || a.dt != r.dt || (a.dt != graph.Float32 && a.dt != graph.Float64) {
		return nil, nil, false
	}
	return a, r, true
}

// A strided source of an axpy loop: at iteration t its data starts at
// ints[reg] + t*outer and steps by inner.
type axSrc struct{ buf, reg, outer, inner int }

// srcOf places v in the loop: an element register of the loop moves with
// it, anything else is fixed.
func srcOf(v *cval, vars []loopVar) axSrc {
	s := axSrc{buf: v.buf, reg: v.reg}
	if len(v.layout) > 0 {
		s.inner = v.layout[0].Stride
	}
	for _, lv := range vars {
		if lv.elem == v.reg {
			s.reg, s.outer = lv.base, lv.stride
		}
	}
	return s
}

// axpyLoop returns the loop over iterations lo..hi-1 of y_t (+)= a_t * x_t
// over vectors of n elements; with first set, iteration 0 stores.
func axpyLoop(dt graph.DType, n int, a, x, y axSrc, first, storeAll bool) rangeFn {
	if dt == graph.Float32 {
		return func(fr *frame, lo, hi int) {
			ab, xb, yb := fr.f32[a.buf], fr.f32[x.buf], fr.f32[y.buf]
			ao, xo, yo := fr.ints[a.reg]+lo*a.outer, fr.ints[x.reg]+lo*x.outer, fr.ints[y.reg]+lo*y.outer
			for t := lo; t < hi; t++ {
				al := ab[ao]
				if storeAll || (first && t == 0) {
					scaleCopy(n, al, xb, xo, x.inner, yb, yo, y.inner)
				} else {
					kernels.AxpyF32(n, al, xb[xo:], x.inner, yb[yo:], y.inner)
				}
				ao, xo, yo = ao+a.outer, xo+x.outer, yo+y.outer
			}
		}
	}
	return func(fr *frame, lo, hi int) {
		ab, xb, yb := fr.f64[a.buf], fr.f64[x.buf], fr.f64[y.buf]
		ao, xo, yo := fr.ints[a.reg]+lo*a.outer, fr.ints[x.reg]+lo*x.outer, fr.ints[y.reg]+lo*y.outer
		for t := lo; t < hi; t++ {
			al := ab[ao]
			if storeAll || (first && t == 0) {
				scaleCopy(n, al, xb, xo, x.inner, yb, yo, y.inner)
			} else {
				kernels.AxpyF64(n, al, xb[xo:], x.inner, yb[yo:], y.inner)
			}
			ao, xo, yo = ao+a.outer, xo+x.outer, yo+y.outer
		}
	}
}

// scaleCopy stores y = a * x, with the product computed and rounded in T
// as the interpreter does (a * b, the map's body).
func scaleCopy[T float32 | float64](n int, a T, x []T, xo, xs int, y []T, yo, ys int) {
	if xs == 1 && ys == 1 {
		x, y = x[xo:xo+n], y[yo:yo+n]
		for k, v := range x {
			y[k] = v * a
		}
		return
	}
	for range n {
		y[yo] = x[xo] * a
		xo += xs
		yo += ys
	}
}

// axpyReduce compiles rnz (zip (+)) (\a r -> map (*a) r) x M into the
// row dst. ok is false when the reduction is not of that form; an error
// in the arguments is returned.
func (c *compiler) axpyReduce(fn *cval, args []*cval, dst *cval, n int) (code, bool, error) {
	if dst.kind != cvView || len(dst.layout) != 1 || (dst.acc != graph.OpInvalid && dst.acc != graph.Add) {
		return nil, false, nil
	}
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, false, err
	}
	a, r, ok := c.axpyBody(fn, elems)
	if !ok || r.dt != dst.dt || r.layout[0].Extent != dst.layout[0].Extent {
		return nil, false, nil
	}
	as, xs, ys := srcOf(a, vars), srcOf(r, vars), srcOf(dst, nil)
	if as.outer == 0 || xs.inner == 0 || ys.inner == 0 {
		return nil, false, nil // a fixed a, or a broadcast row: not this loop
	}
	m := dst.layout[0].Extent
	c.note("loop rnz [%d] of axpy [%d] (kernels.Axpy)", n, m)
	body := axpyLoop(dst.dt, m, as, xs, ys, dst.acc == graph.OpInvalid, false)
	return func(fr *frame) { body(fr, 0, n) }, true, nil
}

// axpyMap compiles map (\a -> map (*a) r) x into the rows of dst. ok is
// false when the map is not of that form; an error in the arguments or the
// destination is returned.
func (c *compiler) axpyMap(fn *cval, args []*cval, dst *cval, n int) (rangeFn, bool, error) {
	if dst.kind != cvView || len(dst.layout) != 2 || (dst.acc != graph.OpInvalid && dst.acc != graph.Add) {
		return nil, false, nil
	}
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, false, err
	}
	delem, dvars, err := c.elemOf(dst, nil)
	if err != nil {
		return nil, false, err
	}
	a, r, ok := c.axpyBody(fn, elems)
	if !ok || r.dt != dst.dt || r.layout[0].Extent != delem.layout[0].Extent {
		return nil, false, nil
	}
	as, xs, ys := srcOf(a, vars), srcOf(r, vars), srcOf(delem, dvars)
	if as.outer == 0 || xs.inner == 0 || ys.inner == 0 || ys.outer == 0 {
		return nil, false, nil
	}
	m := delem.layout[0].Extent
	c.note("loop nzip [%d] of axpy [%d] (kernels.Axpy)", n, m)
	return axpyLoop(dst.dt, m, as, xs, ys, false, dst.acc == graph.OpInvalid), true, nil
}
