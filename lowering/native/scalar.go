package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// scalar compiles the scalar-valued term n into a closure computing it.
// The closures are built once, specialised per operation and type; the
// term is never looked at again at run time.
func (c *compiler) scalar(n graph.Node, env *cenv) (*cval, error) {
	if v, ok := c.viewOf(n, env); ok {
		return c.asScalar(v)
	}
	switch n := n.(type) {
	case *graph.Const:
		return constVal(untyped, n.Value), nil
	case *graph.Var:
		v := env.lookup(n)
		if v == nil {
			return nil, fmt.Errorf("variable %s is not bound", n.Name)
		}
		return c.asScalar(v)
	case *graph.Call:
		args := make([]*cval, len(n.Args))
		for i, a := range n.Args {
			s, err := c.scalar(a, env)
			if err != nil {
				return nil, err
			}
			args[i] = s
		}
		return c.call(n.Op, args)
	case *graph.App:
		args, setup, err := c.argValues(n.Args, env)
		if err != nil {
			return nil, err
		}
		s, err := c.scalarApply(c.fnOf(n.Fn, env), args)
		if err != nil {
			return nil, err
		}
		return withSetup(setup, s), nil
	case *graph.Let:
		env2, setup, err := c.bindLet(n, env)
		if err != nil {
			return nil, err
		}
		s, err := c.scalar(n.Body, env2)
		if err != nil {
			return nil, err
		}
		return withSetup(setup, s), nil
	case *graph.RNZ:
		args, setup, err := c.values(n.Args, env)
		if err != nil {
			return nil, err
		}
		s, err := c.rnzScalar(c.fnOf(n.Red, env), c.fnOf(n.Fn, env), args)
		if err != nil {
			return nil, err
		}
		return withSetup(setup, s), nil
	case *graph.Proj:
		if t, ok := n.X.(*graph.Tuple); ok && n.Index < len(t.Elems) {
			return c.scalar(t.Elems[n.Index], env)
		}
		x, setup, err := c.value(n.X, env)
		if err != nil {
			return nil, err
		}
		if x.kind != cvTuple || n.Index >= len(x.elems) {
			return nil, fmt.Errorf("projection %d of a non-tuple", n.Index)
		}
		s, err := c.asScalar(x.elems[n.Index])
		if err != nil {
			return nil, err
		}
		return withSetup(setup, s), nil
	}
	return nil, fmt.Errorf("%T is not a scalar here", n)
}

// withSetup returns s computed after setup has run.
func withSetup(setup code, s *cval) *cval {
	if setup == nil {
		return s
	}
	fn := s.fn
	return &cval{kind: cvScalar, dt: s.dt, freg: -1, fn: func(fr *frame) float64 {
		setup(fr)
		return fn(fr)
	}}
}

// asScalar returns the scalar value v as a closure.
func (c *compiler) asScalar(v *cval) (*cval, error) {
	switch v.kind {
	case cvScalar:
		return v, nil
	case cvVReg:
		return regVal(v.dt, v.freg), nil
	case cvView:
		if len(v.layout) != 0 {
			return nil, fmt.Errorf("an array of shape %v is used as a scalar", v.layout.Extents())
		}
		fn, err := loadFn(v)
		if err != nil {
			return nil, err
		}
		return &cval{kind: cvScalar, dt: v.dt, freg: -1, fn: fn}, nil
	}
	return nil, fmt.Errorf("%v is used as a scalar", v.kind)
}

// loadFn reads the one element v views. A v of no buffer type is an
// internal error.
func loadFn(v *cval) (sfn, error) {
	b, r := v.buf, v.reg
	switch v.dt {
	case graph.Float32:
		return func(fr *frame) float64 { return float64(fr.f32[b][fr.ints[r]]) }, nil
	case graph.Float64:
		return func(fr *frame) float64 { return fr.f64[b][fr.ints[r]] }, nil
	case graph.Bool:
		return func(fr *frame) float64 { return b2f(fr.bl[b][fr.ints[r]]) }, nil
	case graph.Int32:
		return func(fr *frame) float64 { return float64(fr.i32[b][fr.ints[r]]) }, nil
	}
	return nil, fmt.Errorf("internal: no buffer holds elements of type %v", v.dt)
}

// scalarApply compiles a function with a scalar result applied to args.
func (c *compiler) scalarApply(fn *cval, args []*cval) (*cval, error) {
	if fn.kind != cvFunc {
		return nil, fmt.Errorf("applying a value that is not a function")
	}
	switch f := fn.node.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return nil, fmt.Errorf("function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		env := fn.env
		for i, p := range f.Params {
			env = env.bind(p, args[i])
		}
		return c.scalar(f.Body, env)
	case *graph.OpRef:
		ss, err := c.asScalars(args)
		if err != nil {
			return nil, err
		}
		return c.call(f.Op, ss)
	case *graph.Section:
		if len(args) != 1 {
			return nil, fmt.Errorf("section applied to %d arguments", len(args))
		}
		x, err := c.asScalar(args[0])
		if err != nil {
			return nil, err
		}
		k, err := c.scalar(f.Operand, fn.env)
		if err != nil {
			return nil, err
		}
		if f.Left {
			return c.call(f.Op, []*cval{k, x})
		}
		return c.call(f.Op, []*cval{x, k})
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("id applied to %d arguments", len(args))
		}
		return c.asScalar(args[0])
	case *graph.Var:
		b := fn.env.lookup(f)
		if b == nil || b.kind != cvFunc {
			return nil, fmt.Errorf("%s is not a function", f.Name)
		}
		return c.scalarApply(b, args)
	}
	return nil, fmt.Errorf("%s does not compute a scalar", graph.Abbrev(fn.node, 40))
}

func (c *compiler) asScalars(vs []*cval) ([]*cval, error) {
	out := make([]*cval, len(vs))
	for i, v := range vs {
		s, err := c.asScalar(v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// call compiles op applied to scalar operands. Literals meeting a typed
// operand are rounded to its type first, operations on literals only are
// folded, and the result is rounded to the op's type, as in the
// interpreter.
func (c *compiler) call(op graph.Op, args []*cval) (*cval, error) {
	dts := make([]graph.DType, len(args))
	for i, a := range args {
		dts[i] = a.dt
	}
	rs, dt, err := op.Resolve(dts)
	if err != nil {
		return nil, err
	}
	allConst := true
	for i, a := range args {
		if a.dt == untyped && rs[i] != untyped {
			args[i] = roundVal(a, rs[i])
		}
		allConst = allConst && args[i].konst
	}
	if allConst {
		ks := make([]float64, len(args))
		for i, a := range args {
			ks[i] = a.k
		}
		v, err := op.Eval(dt, ks...)
		if err != nil {
			return nil, err
		}
		return constVal(dt, v), nil
	}
	return &cval{kind: cvScalar, dt: dt, freg: -1, fn: mkCall(op, dt, args)}, nil
}

// roundVal returns the untyped scalar v rounded to dt.
func roundVal(v *cval, dt graph.DType) *cval {
	if v.konst {
		return constVal(dt, dt.Round(v.k))
	}
	fn := v.fn
	return &cval{kind: cvScalar, dt: dt, freg: -1, fn: func(fr *frame) float64 { return dt.Round(fn(fr)) }}
}

// mkCall builds the closure for op with result type dt. The common
// arithmetic gets closures of its own; the rest calls the op's function.
func mkCall(op graph.Op, dt graph.DType, args []*cval) sfn {
	switch len(args) {
	case 1:
		a := args[0].fn
		if op == graph.StopGrad {
			return a
		}
		if op == graph.Neg && dt == graph.Float64 {
			return func(fr *frame) float64 { return -a(fr) }
		}
		f := op.Unary(dt)
		return func(fr *frame) float64 { return f(a(fr)) }
	case 2:
		a, b := args[0].fn, args[1].fn
		if args[1].konst {
			k := args[1].k
			switch {
			case op == graph.Mul && dt == graph.Float64:
				return func(fr *frame) float64 { return a(fr) * k }
			case op == graph.Add && dt == graph.Float64:
				return func(fr *frame) float64 { return a(fr) + k }
			case op == graph.Max && dt == graph.Float64:
				return func(fr *frame) float64 { return max(a(fr), k) }
			case op == graph.Mul && dt == graph.Float32:
				return func(fr *frame) float64 { return float64(float32(a(fr) * k)) }
			case op == graph.Add && dt == graph.Float32:
				return func(fr *frame) float64 { return float64(float32(a(fr) + k)) }
			case op == graph.Max && dt == graph.Float32:
				return func(fr *frame) float64 { return max(a(fr), k) }
			}
		}
		if dt == graph.Float64 {
			switch op {
			case graph.Add:
				return func(fr *frame) float64 { return a(fr) + b(fr) }
			case graph.Sub:
				return func(fr *frame) float64 { return a(fr) - b(fr) }
			case graph.Mul:
				return func(fr *frame) float64 { return a(fr) * b(fr) }
			case graph.Div:
				return func(fr *frame) float64 { return a(fr) / b(fr) }
			case graph.Max:
				return func(fr *frame) float64 { return max(a(fr), b(fr)) }
			case graph.Min:
				return func(fr *frame) float64 { return min(a(fr), b(fr)) }
			}
		}
		if dt == graph.Float32 {
			switch op {
			case graph.Add:
				return func(fr *frame) float64 { return float64(float32(a(fr) + b(fr))) }
			case graph.Sub:
				return func(fr *frame) float64 { return float64(float32(a(fr) - b(fr))) }
			case graph.Mul:
				return func(fr *frame) float64 { return float64(float32(a(fr) * b(fr))) }
			case graph.Div:
				return func(fr *frame) float64 { return float64(float32(a(fr) / b(fr))) }
			case graph.Max:
				return func(fr *frame) float64 { return max(a(fr), b(fr)) }
			case graph.Min:
				return func(fr *frame) float64 { return min(a(fr), b(fr)) }
			}
		}
		f := op.Binary(dt)
		return func(fr *frame) float64 { return f(a(fr), b(fr)) }
	}
	cnd, x, y := args[0].fn, args[1].fn, args[2].fn
	return func(fr *frame) float64 {
		if cnd(fr) != 0 {
			return x(fr)
		}
		return y(fr)
	}
}

// rnzScalar compiles a reduction with a scalar result into a closure that
// runs the loop with the accumulator in a local variable.
func (c *compiler) rnzScalar(red, fn *cval, args []*cval) (*cval, error) {
	n, err := outerExtent(args)
	if err != nil {
		return nil, err
	}
	if d, ok := c.dot(red, fn, args); ok {
		c.note("dot [%d] (kernels.Dot)", n)
		return d, nil
	}
	op, depth, lifted := c.liftedOp(red)
	lifted = lifted && depth == 0
	rank := -1
	for _, a := range args {
		if r := leafRank(a); r > rank {
			rank = r
		}
	}
	split := lifted && c.wantParallel(n, c.perElement(fn, args)) && n >= 2*c.workers && commutes([]graph.Op{op})
	saved := c.par
	c.par = c.par || split
	defer func() { c.par = saved }()
	if split {
		c.note("split over %d goroutines, parts combined in order", c.workers)
	}
	if lifted && rank == 1 {
		part, dt, ok, err := c.vectorReduce(op, fn, args, n)
		if err != nil {
			return nil, err
		}
		if ok {
			return c.reduceParts(part, op, dt, n, split), nil
		}
	}
	// Elements are arrays (or the body defeats the vector loop): a loop
	// that calls the element's closure.
	c.note("loop rnz [%d] scalar", n)
	c.depth++
	defer func() { c.depth-- }()
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, err
	}
	c.loopDepth++
	f, err := c.scalarApply(fn, elems)
	c.loopDepth--
	if err != nil {
		return nil, err
	}
	dt := concrete(f.dt)
	fv := f.fn
	if lifted {
		comb := op.Binary(dt)
		part := func(fr *frame, lo, hi int) float64 {
			ints := fr.ints
			var acc float64
			for i := lo; i < hi; i++ {
				for _, v := range vars {
					ints[v.elem] = ints[v.base] + i*v.stride
				}
				x := fv(fr)
				if i == lo {
					acc = x
				} else {
					acc = comb(acc, x)
				}
			}
			return acc
		}
		return c.reduceParts(part, op, dt, n, split), nil
	}
	// A general reduction: r sees the accumulator and the element in
	// registers.
	ra, rx := c.newFlt(), c.newFlt()
	r, err := c.scalarApply(red, []*cval{regVal(dt, ra), regVal(dt, rx)})
	if err != nil {
		return nil, err
	}
	rf := r.fn
	return &cval{kind: cvScalar, dt: dt, freg: -1, fn: func(fr *frame) float64 {
		ints := fr.ints
		for i := range n {
			for _, v := range vars {
				ints[v.elem] = ints[v.base] + i*v.stride
			}
			x := fv(fr)
			if i == 0 {
				fr.flts[ra] = x
			} else {
				fr.flts[rx] = x
				fr.flts[ra] = dt.Round(rf(fr))
			}
		}
		return fr.flts[ra]
	}}, nil
}

// reduceParts turns the reduction of a range into the scalar: the whole
// range on the caller, or with split one contiguous part per goroutine,
// combined in order.
func (c *compiler) reduceParts(part func(fr *frame, lo, hi int) float64, op graph.Op, dt graph.DType, n int, split bool) *cval {
	if !split {
		return &cval{kind: cvScalar, dt: dt, freg: -1, fn: func(fr *frame) float64 { return part(fr, 0, n) }}
	}
	w := c.workers
	partials := make([]float64, w)
	parts := make([]code, w)
	for i := range w {
		lo, hi := n*i/w, n*(i+1)/w
		parts[i] = func(fr *frame) { partials[i] = part(fr, lo, hi) }
	}
	comb := op.Binary(dt)
	return &cval{kind: cvScalar, dt: dt, freg: -1, fn: func(fr *frame) float64 {
		fr.rt.parallelParts(fr, parts)
		acc := partials[0]
		for _, x := range partials[1:] {
			acc = comb(acc, x)
		}
		return acc
	}}
}

// dot recognises rnz (+) (*) x y over two float vectors of one type (the
// multiplication as an op, a section-free lambda \a b -> a * b, or b * a)
// and compiles it to kernels.Dot.
func (c *compiler) dot(red, fn *cval, args []*cval) (*cval, bool) {
	if len(args) != 2 {
		return nil, false
	}
	op, depth, ok := c.liftedOp(red)
	if !ok || op != graph.Add || depth != 0 || !c.isMul(fn) {
		return nil, false
	}
	x, y := args[0], args[1]
	if x.kind != cvView || y.kind != cvView || len(x.layout) != 1 || len(y.layout) != 1 || x.dt != y.dt {
		return nil, false
	}
	n := x.layout[0].Extent
	sx, sy := x.layout[0].Stride, y.layout[0].Stride
	if sx == 0 || sy == 0 {
		return nil, false // the kernels take no zero increments
	}
	bx, by, rx, ry := x.buf, y.buf, x.reg, y.reg
	switch x.dt {
	case graph.Float32:
		return &cval{kind: cvScalar, dt: graph.Float32, freg: -1, fn: func(fr *frame) float64 {
			return float64(kernels.DotF32(n, fr.f32[bx][fr.ints[rx]:], sx, fr.f32[by][fr.ints[ry]:], sy))
		}}, true
	case graph.Float64:
		return &cval{kind: cvScalar, dt: graph.Float64, freg: -1, fn: func(fr *frame) float64 {
			return kernels.DotF64(n, fr.f64[bx][fr.ints[rx]:], sx, fr.f64[by][fr.ints[ry]:], sy)
		}}, true
	}
	return nil, false
}

// isMul recognises the function (*), \a b -> a * b, \a b -> b * a and
// the other forms of one multiplication graph.Reducer recognises.
func (c *compiler) isMul(fn *cval) bool {
	if fn.kind != cvFunc {
		return false
	}
	r, ok := graph.Reducer(fn.node, fn.env)
	return ok && len(r.Ops) == 1 && r.Ops[0] == graph.Mul && r.Lifts[0] == 0
}
