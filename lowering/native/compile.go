package native

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// parThreshold is the estimated number of scalar operations below which a
// loop is not worth splitting over goroutines: waking a parked worker costs
// a few microseconds, about this much work.
const parThreshold = 1 << 15

// A compiler turns the terms of one plan into code. It allocates registers
// and buffers from the plan builder and records what it chose in the plan's
// description.
type compiler struct {
	opts    Options
	free    graph.FreeVarCache // free variables of the terms compiled, each node once
	workers int
	b       *builder
	// par is set while compiling code that runs inside a parallel region:
	// scratch it allocates is private to each frame, and loops it makes
	// stay sequential.
	par    bool
	inputs map[*graph.Input]*cval
	// loopDepth counts the loops around the code being compiled: a vector
	// loop inside one runs many times per run, and what it computes from
	// ready buffers alone is hoisted into pre.
	loopDepth int
	// pre is code that runs before the current kernel body: the hoisted
	// loop-invariant vectors.
	pre []code
	// ready holds the buffers filled before any kernel body runs (inputs,
	// earlier kernels' outputs, hoisted values), by [dtype, index].
	ready  map[[2]int]bool
	desc   *strings.Builder
	depth  int
	kernel string
	types  *graph.Typer // see typer
	// kernelOuts holds the array leaves of the kernels' outputs compiled
	// so far, and aliased those that a later kernel's output took as its
	// own (see output).
	kernelOuts, aliased map[*cval]bool
	// pads holds the padded boxes compiled so far (padSite).
	pads []*padSite
}

// note records a line of the plan's description at the current depth.
func (c *compiler) note(format string, args ...any) {
	if c.desc == nil {
		return
	}
	c.desc.WriteString(strings.Repeat("  ", c.depth+1))
	fmt.Fprintf(c.desc, format, args...)
	c.desc.WriteByte('\n')
}

// markReady records that v's buffers are filled before kernel bodies run.
func (c *compiler) markReady(v *cval) {
	for _, l := range v.leaves() {
		if l.kind == cvView {
			c.ready[[2]int{int(l.dt), l.buf}] = true
		}
	}
}

func (c *compiler) newInt() int {
	c.b.nInts++
	return c.b.nInts - 1
}

func (c *compiler) newFlt() int {
	c.b.nFlts++
	return c.b.nFlts - 1
}

// scratch allocates storage for a materialised value of type t and
// returns it as a destination: row-major arrays, one element for a scalar,
// a tuple of those for a tuple. Inside a parallel region every frame gets
// its own.
func (c *compiler) scratch(t graph.Type) (*cval, error) {
	switch t := t.(type) {
	case *graph.ArrayType:
		ext := t.Layout.Extents()
		return &cval{kind: cvView, dt: t.DType, buf: c.b.alloc(t.DType, t.Layout.Size(), c.par),
			layout: graph.RowMajor(ext...), reg: 0}, nil
	case *graph.ScalarType:
		dt := concrete(t.DType)
		return &cval{kind: cvView, dt: dt, buf: c.b.alloc(dt, 1, c.par), reg: 0}, nil
	case *graph.TupleType:
		out := &cval{kind: cvTuple}
		for _, e := range t.Elems {
			s, err := c.scratch(e)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot store a value of type %v", t)
}

// output allocates the buffers of a kernel's output of type t, computed
// by body, but for the elements of a tuple that are whole outputs of
// earlier kernels: those are the earlier buffers themselves, not copies (a
// training step's result, the updated parameters and optimizer state
// beside the loss, is otherwise one copy of every parameter per step). An
// element is aliased when body's element is a plain view (an earlier
// kernel's output, or an element of one; not a program input) laid out
// as its own buffer would be, and that buffer is not aliased already (two
// results never share memory). Kernel outputs are written once, by their
// kernel, so the buffer holds the element's value from there to the end
// of the run; the Tuple case of into skips the copy of a buffer onto
// itself. It also returns how many elements it aliased.
func (c *compiler) output(t graph.Type, body graph.Node) (*cval, int, error) {
	tt, ok := t.(*graph.TupleType)
	tb, ok2 := body.(*graph.Tuple)
	if !ok || !ok2 || len(tt.Elems) != len(tb.Elems) {
		v, err := c.scratch(t)
		return v, 0, err
	}
	out, n := &cval{kind: cvTuple}, 0
	for i, et := range tt.Elems {
		e := tb.Elems[i]
		if at, ok := et.(*graph.ArrayType); ok {
			if v, ok := c.viewOf(e, nil); ok && c.kernelOuts[v] && !c.aliased[v] && v.dt == at.DType && v.reg == 0 &&
				slices.Equal(v.layout, graph.RowMajor(at.Layout.Extents()...)) {
				c.aliased[v] = true
				out.elems = append(out.elems, v)
				n++
				continue
			}
		}
		v, k, err := c.output(et, e)
		if err != nil {
			return nil, 0, err
		}
		out.elems = append(out.elems, v)
		n += k
	}
	return out, n, nil
}

// viewOf returns n as a view when it is one without computing anything:
// an input, a variable bound to a view, layout operations and projections
// of those.
func (c *compiler) viewOf(n graph.Node, env *cenv) (*cval, bool) {
	switch n := n.(type) {
	case *graph.Input:
		v, ok := c.inputs[n]
		return v, ok
	case *graph.Var:
		v := env.lookup(n)
		if v == nil || !isViewTree(v) {
			return nil, false
		}
		markPadShared(v)
		return v, true
	case graph.ViewNode:
		if isFresh(n) {
			return nil, false
		}
		x, ok := c.viewOf(n.Operand(), env)
		if !ok || x.kind != cvView {
			return nil, false
		}
		l, err := n.View().Apply(x.layout)
		if err != nil {
			return nil, false
		}
		v := *x
		v.layout, v.acc, v.vary = l, graph.OpInvalid, nil
		return &v, true
	case *graph.Proj:
		x, ok := c.viewOf(n.X, env)
		if !ok || x.kind != cvTuple || n.Index >= len(x.elems) {
			return nil, false
		}
		return x.elems[n.Index], true
	}
	return nil, false
}

func isViewTree(v *cval) bool {
	switch v.kind {
	case cvView:
		return true
	case cvTuple:
		for _, e := range v.elems {
			if !isViewTree(e) {
				return false
			}
		}
		return true
	}
	return false
}

// value compiles n into a compile-time value: views stay views, scalars
// become lazily computed scalars, functions stay terms, and computed arrays
// are materialised into scratch by the returned setup code, which must run
// before the value is used.
func (c *compiler) value(n graph.Node, env *cenv) (*cval, code, error) {
	if v, ok := c.viewOf(n, env); ok {
		return v, nil, nil
	}
	switch n := n.(type) {
	case *graph.Var:
		v := env.lookup(n)
		if v == nil {
			return nil, nil, fmt.Errorf("variable %s is not bound", n.Name)
		}
		markPadShared(v)
		return v, nil, nil
	case *graph.Input:
		return nil, nil, fmt.Errorf("input %s is not bound", n.Name)
	case *graph.Const:
		return constVal(untyped, n.Value), nil, nil
	case *graph.Lambda, *graph.OpRef, *graph.Section, *graph.Ident:
		return c.fnOf(n, env), nil, nil
	case *graph.NZip:
		if graph.IsFunc(n) {
			return c.fnOf(n, env), nil, nil
		}
	case graph.ViewNode:
		if v, setup, ok, err := c.unstridedValue(n, env); ok {
			return v, setup, err
		}
		x, setup, err := c.value(n.Operand(), env)
		if err != nil {
			return nil, nil, err
		}
		if x.kind != cvView {
			return nil, nil, fmt.Errorf("layout operation on a non-array")
		}
		l, err := n.View().Apply(x.layout)
		if err != nil {
			return nil, nil, err
		}
		v := *x
		v.layout, v.acc, v.vary = l, graph.OpInvalid, nil
		return &v, setup, nil
	case *graph.Proj:
		if t, ok := n.X.(*graph.Tuple); ok && n.Index < len(t.Elems) {
			return c.value(t.Elems[n.Index], env)
		}
		x, setup, err := c.value(n.X, env)
		if err != nil {
			return nil, nil, err
		}
		if x.kind != cvTuple || n.Index >= len(x.elems) {
			return nil, nil, fmt.Errorf("projection %d of a non-tuple", n.Index)
		}
		return x.elems[n.Index], setup, nil
	case *graph.Tuple:
		out := &cval{kind: cvTuple}
		var setups []code
		for _, e := range n.Elems {
			v, setup, err := c.value(e, env)
			if err != nil {
				return nil, nil, err
			}
			v, ev := c.eager(v)
			out.elems = append(out.elems, v)
			setups = append(setups, setup, ev)
		}
		return out, seq(setups...), nil
	case *graph.Let:
		env2, setup, err := c.bindLet(n, env)
		if err != nil {
			return nil, nil, err
		}
		v, body, err := c.value(n.Body, env2)
		if err != nil {
			return nil, nil, err
		}
		return v, seq(setup, body), nil
	}
	t, err := c.typeOf(n, env)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := t.(*graph.ScalarType); ok {
		s, err := c.scalar(n, env)
		return s, nil, err
	}
	dst, err := c.scratch(graph.Materialized(t))
	if err != nil {
		return nil, nil, err
	}
	c.note("materialise %v into scratch", t)
	code, err := c.into(n, env, dst)
	if err != nil {
		return nil, nil, err
	}
	return dst, code, nil
}

// values compiles the arguments of a higher-order function.
func (c *compiler) values(ns []graph.Node, env *cenv) ([]*cval, code, error) {
	out := make([]*cval, len(ns))
	var setups []code
	for i, a := range ns {
		v, setup, err := c.value(a, env)
		if err != nil {
			return nil, nil, err
		}
		out[i] = v
		setups = append(setups, setup)
	}
	return out, seq(setups...), nil
}

// argValues compiles the arguments of an application: like values, but a
// scalar computed by an expression is evaluated once, into a register,
// before the function's body runs, however often the body uses it.
func (c *compiler) argValues(ns []graph.Node, env *cenv) ([]*cval, code, error) {
	vs, setup, err := c.values(ns, env)
	if err != nil {
		return nil, nil, err
	}
	setups := []code{setup}
	for i, v := range vs {
		var ev code
		vs[i], ev = c.eager(v)
		setups = append(setups, ev)
	}
	return vs, seq(setups...), nil
}

// eager moves a computed scalar into a register and returns the value
// that reads it, with the code that fills it.
func (c *compiler) eager(v *cval) (*cval, code) {
	switch v.kind {
	case cvScalar:
		if v.konst || v.freg >= 0 {
			return v, nil
		}
		r := c.newFlt()
		fn := v.fn
		return regVal(v.dt, r), func(fr *frame) { fr.flts[r] = fn(fr) }
	case cvTuple:
		out := &cval{kind: cvTuple, elems: make([]*cval, len(v.elems))}
		var setups []code
		for i, e := range v.elems {
			var s code
			out.elems[i], s = c.eager(e)
			setups = append(setups, s)
		}
		return out, seq(setups...)
	}
	return v, nil
}

// regVal is the scalar held in register r.
func regVal(dt graph.DType, r int) *cval {
	return &cval{kind: cvScalar, dt: dt, freg: r, fn: func(fr *frame) float64 { return fr.flts[r] }}
}

// bindLet binds a let's variable: a function stays a term, a scalar is
// computed into a register, an array is a view or is materialised.
func (c *compiler) bindLet(n *graph.Let, env *cenv) (*cenv, code, error) {
	if graph.IsFunc(n.Value) {
		return env.bind(n.Var, c.fnOf(n.Value, env)), nil, nil
	}
	v, setup, err := c.value(n.Value, env)
	if err != nil {
		return nil, nil, err
	}
	if v.kind == cvFunc {
		return env.bind(n.Var, v), setup, nil
	}
	v, ev := c.eager(concreteVal(v))
	return env.bind(n.Var, v), seq(setup, ev), nil
}

// concreteVal gives an untyped scalar value the type f64, as a let or a
// tuple does.
func concreteVal(v *cval) *cval {
	if v.kind == cvScalar && v.dt == untyped {
		w := *v
		w.dt = graph.Float64
		return &w
	}
	return v
}

// into compiles n so that the code writes n's value into dst, or
// accumulates it there with the op each leaf of dst names.
func (c *compiler) into(n graph.Node, env *cenv, dst *cval) (code, error) {
	switch n := n.(type) {
	case *graph.NZip:
		if !graph.IsFunc(n) {
			args, setup, err := c.values(n.Args, env)
			if err != nil {
				return nil, err
			}
			body, err := c.nzipInto(c.fnOf(n.Fn, env), args, dst)
			if err != nil {
				return nil, err
			}
			return seq(setup, body), nil
		}
	case *graph.RNZ:
		args, setup, err := c.values(n.Args, env)
		if err != nil {
			return nil, err
		}
		body, err := c.rnzInto(c.fnOf(n.Red, env), c.fnOf(n.Fn, env), args, dst)
		if err != nil {
			return nil, err
		}
		return seq(setup, body), nil
	case *graph.App:
		args, setup, err := c.argValues(n.Args, env)
		if err != nil {
			return nil, err
		}
		body, err := c.applyInto(c.fnOf(n.Fn, env), args, dst)
		if err != nil {
			return nil, err
		}
		return seq(setup, body), nil
	case *graph.Let:
		if cd, ok, err := c.sharedElemLet(n, env, dst); err != nil || ok {
			return cd, err
		}
		if cd, ok, err := c.destLet(n, env, dst); err != nil || ok {
			return cd, err
		}
		env2, setup, err := c.bindLet(n, env)
		if err != nil {
			return nil, err
		}
		body, err := c.into(n.Body, env2, dst)
		if err != nil {
			return nil, err
		}
		return seq(setup, body), nil
	case *graph.Tuple:
		if dst.kind == cvTuple && len(dst.elems) == len(n.Elems) {
			// Projections of one term (fst t, snd t, ... of the same
			// node) compute the term once, into scratch, and copy
			// each its element.
			shared := sharedProjections(n)
			computed := map[graph.Node]*cval{}
			direct := map[int]bool{} // elements x's components land in (sharedDest)
			var parts []code
			for i, e := range n.Elems {
				if p, ok := e.(*graph.Proj); ok && shared[p.X] {
					x := computed[p.X]
					if v, ok := c.viewOf(p.X, env); x == nil && ok {
						if v.kind != cvTuple {
							return nil, fmt.Errorf("projection %d of a non-tuple", p.Index)
						}
						x = v // a tuple of views: nothing to compute
						computed[p.X] = x
					}
					if x == nil {
						d, dir, err := c.sharedDest(n, p.X, env, dst)
						if err != nil {
							return nil, err
						}
						setup, err := c.into(p.X, env, d)
						if err != nil {
							return nil, err
						}
						for k := range dir {
							direct[k] = true
						}
						x = d
						computed[p.X] = x
						parts = append(parts, setup)
					}
					if p.Index >= len(x.elems) {
						return nil, fmt.Errorf("projection %d of a tuple of %d", p.Index, len(x.elems))
					}
					if direct[i] || x.elems[p.Index] == dst.elems[i] { // see output
						continue
					}
					cp, err := c.copyInto(x.elems[p.Index], dst.elems[i])
					if err != nil {
						return nil, err
					}
					parts = append(parts, cp)
					continue
				}
				if v, ok := c.viewOf(e, env); ok && v == dst.elems[i] {
					continue // the element is the buffer it reads (see output)
				}
				p, err := c.into(e, env, dst.elems[i])
				if err != nil {
					return nil, err
				}
				parts = append(parts, p)
			}
			return seq(parts...), nil
		}
	case graph.ViewNode:
		if _, ok := c.viewOf(n, env); !ok && dst.kind == cvView {
			// Write the operand through the inverse view of the
			// destination: flip (f x) into d is f x into flip d.
			d2, ok, err := c.invertLayout(n, env, dst)
			if err != nil {
				return nil, err
			}
			if ok {
				return c.into(n.Operand(), env, d2)
			}
		}
	case *graph.Proj:
		if t, ok := n.X.(*graph.Tuple); ok && n.Index < len(t.Elems) {
			return c.into(t.Elems[n.Index], env, dst)
		}
	}
	v, setup, err := c.value(n, env)
	if err != nil {
		return nil, err
	}
	cp, err := c.copyInto(v, dst)
	if err != nil {
		return nil, err
	}
	return seq(setup, cp), nil
}

// sharedProjections returns the terms, other than tuples written out,
// that more than one element of t projects (the same node, as fusion
// leaves fst t and snd t of a tuple-valued map).
func sharedProjections(t *graph.Tuple) map[graph.Node]bool {
	var out map[graph.Node]bool
	seen := map[graph.Node]bool{}
	for _, e := range t.Elems {
		p, ok := e.(*graph.Proj)
		if !ok {
			continue
		}
		if _, ok := p.X.(*graph.Tuple); ok {
			continue
		}
		if seen[p.X] {
			if out == nil {
				out = map[graph.Node]bool{}
			}
			out[p.X] = true
		}
		seen[p.X] = true
	}
	return out
}

// invertLayout returns the destination that the operand of the view n must
// be written to so that n's value lands in dst: dst seen through the view's
// inverse. It reports false when the view has no inverse or dst's strides
// do not allow it (a flatten of axes dst does not keep contiguous). An
// operand that does not type-check is an error.
func (c *compiler) invertLayout(n graph.ViewNode, env *cenv, dst *cval) (*cval, bool, error) {
	t, err := c.typeOf(n.Operand(), env)
	if err != nil {
		return nil, false, err
	}
	at, ok := t.(*graph.ArrayType)
	if !ok {
		return nil, false, fmt.Errorf("layout operation on a non-array of type %v", t)
	}
	inv, ok := n.View().Inverse(at.Layout)
	if !ok {
		return nil, false, nil
	}
	// The inverse view need not fit dst's strides: no inverse then.
	l, err := inv.Apply(dst.layout)
	if err != nil {
		return nil, false, nil
	}
	if back, err := n.View().Apply(l); err != nil || !back.Equal(dst.layout) {
		return nil, false, nil
	}
	d := *dst
	d.layout = l
	return &d, true, nil
}

// applyInto compiles fn applied to args into dst.
func (c *compiler) applyInto(fn *cval, args []*cval, dst *cval) (code, error) {
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
		return c.into(f.Body, env, dst)
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("id applied to %d arguments", len(args))
		}
		return c.copyInto(args[0], dst)
	case *graph.NZip:
		given, setup, err := c.values(f.Args, fn.env)
		if err != nil {
			return nil, err
		}
		body, err := c.nzipInto(c.fnOf(f.Fn, fn.env), append(given, args...), dst)
		if err != nil {
			return nil, err
		}
		return seq(setup, body), nil
	case *graph.Var:
		b := fn.env.lookup(f)
		if b == nil || b.kind != cvFunc {
			return nil, fmt.Errorf("%s is not a function", f.Name)
		}
		return c.applyInto(b, args, dst)
	}
	s, err := c.scalarApply(fn, args)
	if err != nil {
		return nil, err
	}
	return c.copyInto(s, dst)
}

// copyInto compiles the copy of the value v into dst (with dst's
// accumulation ops).
func (c *compiler) copyInto(v *cval, dst *cval) (code, error) {
	if dst.kind == cvTuple {
		if v.kind != cvTuple || len(v.elems) != len(dst.elems) {
			return nil, fmt.Errorf("storing a non-tuple into a tuple")
		}
		var parts []code
		for i := range dst.elems {
			p, err := c.copyInto(v.elems[i], dst.elems[i])
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
		return seq(parts...), nil
	}
	if dst.kind != cvView {
		return nil, fmt.Errorf("destination is not a buffer")
	}
	if len(dst.layout) == 0 {
		s, err := c.asScalar(v)
		if err != nil {
			return nil, err
		}
		return storeScalar(dst, s)
	}
	if v.kind != cvView || len(v.layout) != len(dst.layout) {
		return nil, fmt.Errorf("storing a value of the wrong rank")
	}
	if !v.layout.SameExtents(dst.layout) {
		return nil, fmt.Errorf("storing %v into %v", v.layout, dst.layout)
	}
	return c.nzipInto(&cval{kind: cvFunc, node: graph.NewIdent()}, []*cval{v}, dst)
}

// storeScalar returns code that stores (or accumulates) s into the one
// element dst. A dst of no buffer type, or an accumulating op its type
// has not, is an internal error.
func storeScalar(dst *cval, s *cval) (code, error) {
	b, r, fn := dst.buf, dst.reg, s.fn
	op := dst.acc
	if op == graph.OpInvalid {
		switch dst.dt {
		case graph.Float32:
			return func(fr *frame) { fr.f32[b][fr.ints[r]] = float32(fn(fr)) }, nil
		case graph.Float64:
			return func(fr *frame) { fr.f64[b][fr.ints[r]] = fn(fr) }, nil
		case graph.Bool:
			return func(fr *frame) { fr.bl[b][fr.ints[r]] = fn(fr) != 0 }, nil
		case graph.Int32:
			return func(fr *frame) { fr.i32[b][fr.ints[r]] = int32(fn(fr)) }, nil
		}
		return nil, fmt.Errorf("internal: no buffer holds elements of type %v", dst.dt)
	}
	f := op.Binary(dst.dt)
	if f == nil {
		return nil, fmt.Errorf("internal: %v cannot accumulate into %v", op, dst.dt)
	}
	switch dst.dt {
	case graph.Float32:
		if op == graph.Add {
			return func(fr *frame) {
				p := &fr.f32[b][fr.ints[r]]
				*p = float32(float64(*p) + fn(fr))
			}, nil
		}
		return func(fr *frame) {
			p := &fr.f32[b][fr.ints[r]]
			*p = float32(f(float64(*p), fn(fr)))
		}, nil
	case graph.Float64:
		if op == graph.Add {
			return func(fr *frame) { fr.f64[b][fr.ints[r]] += fn(fr) }, nil
		}
		return func(fr *frame) {
			p := &fr.f64[b][fr.ints[r]]
			*p = f(*p, fn(fr))
		}, nil
	case graph.Bool:
		return func(fr *frame) {
			p := &fr.bl[b][fr.ints[r]]
			*p = f(b2f(*p), fn(fr)) != 0
		}, nil
	case graph.Int32:
		return func(fr *frame) {
			p := &fr.i32[b][fr.ints[r]]
			*p = int32(f(float64(*p), fn(fr)))
		}, nil
	}
	return nil, fmt.Errorf("internal: no buffer holds elements of type %v", dst.dt)
}

// elemsOf binds the elements of the arguments of a loop: each argument
// view gets an element register, which the loop sets to its offset plus i
// times its outer stride. With vl set the scalar elements are marked as
// the elements of that vector loop.
func (c *compiler) elemsOf(args []*cval, vl *vloop) ([]*cval, []loopVar, error) {
	out := make([]*cval, len(args))
	var vars []loopVar
	for i, a := range args {
		e, vs, err := c.elemOf(a, vl)
		if err != nil {
			return nil, nil, err
		}
		out[i] = e
		vars = append(vars, vs...)
	}
	return out, vars, nil
}

func (c *compiler) elemOf(a *cval, vl *vloop) (*cval, []loopVar, error) {
	switch a.kind {
	case cvTuple:
		out := &cval{kind: cvTuple}
		var vars []loopVar
		for _, e := range a.elems {
			x, vs, err := c.elemOf(e, vl)
			if err != nil {
				return nil, nil, err
			}
			out.elems = append(out.elems, x)
			vars = append(vars, vs...)
		}
		return out, vars, nil
	case cvView:
		if len(a.layout) == 0 {
			return nil, nil, fmt.Errorf("a scalar has no elements to traverse")
		}
		r := c.newInt()
		e := &cval{kind: cvView, dt: a.dt, buf: a.buf, layout: a.layout[1:], reg: r, acc: a.acc}
		lv := loopVar{elem: r, base: a.reg, stride: a.layout[0].Stride}
		if vl != nil && len(e.layout) == 0 {
			e.vary = &vsource{loop: vl, base: a.reg, stride: lv.stride}
		}
		return e, []loopVar{lv}, nil
	}
	return nil, nil, fmt.Errorf("traversing a value that is not an array")
}

// outerExtent returns the extent of the outer axis every argument shares.
func outerExtent(args []*cval) (int, error) {
	n := -1
	for _, a := range args {
		for _, l := range a.leaves() {
			if l.kind != cvView || len(l.layout) == 0 {
				return 0, fmt.Errorf("traversing a value that is not an array")
			}
			if n >= 0 && l.layout[0].Extent != n {
				return 0, fmt.Errorf("arguments have outer extents %d and %d", n, l.layout[0].Extent)
			}
			n = l.layout[0].Extent
		}
	}
	if n < 0 {
		return 0, fmt.Errorf("no arrays to traverse")
	}
	return n, nil
}

// elemRank returns the rank of the elements of the leaves of v (all equal
// to rank, or -1 when they differ).
func leafRank(v *cval) int {
	r := -2
	for _, l := range v.leaves() {
		if l.kind != cvView {
			return -1
		}
		if r == -2 {
			r = len(l.layout)
		} else if r != len(l.layout) {
			return -1
		}
	}
	return r
}

// loopVar is an element register that a loop sets at each iteration i:
// ints[elem] = ints[base] + i*stride.
type loopVar struct{ elem, base, stride int }

// genLoop returns the loop over iterations lo..hi-1 that sets vars and
// runs first at iteration lo (when first is not nil) and rest at every
// other.
func genLoop(vars []loopVar, first, rest code) rangeFn {
	switch {
	case len(vars) == 1 && first == nil:
		v := vars[0]
		return func(fr *frame, lo, hi int) {
			ints := fr.ints
			off := ints[v.base] + lo*v.stride
			for i := lo; i < hi; i++ {
				ints[v.elem] = off
				rest(fr)
				off += v.stride
			}
		}
	case len(vars) == 2 && first == nil:
		v, w := vars[0], vars[1]
		return func(fr *frame, lo, hi int) {
			ints := fr.ints
			o1 := ints[v.base] + lo*v.stride
			o2 := ints[w.base] + lo*w.stride
			for i := lo; i < hi; i++ {
				ints[v.elem], ints[w.elem] = o1, o2
				rest(fr)
				o1 += v.stride
				o2 += w.stride
			}
		}
	}
	return func(fr *frame, lo, hi int) {
		ints := fr.ints
		for i := lo; i < hi; i++ {
			for _, v := range vars {
				ints[v.elem] = ints[v.base] + i*v.stride
			}
			if i == lo && first != nil {
				first(fr)
			} else {
				rest(fr)
			}
		}
	}
}

// loop turns a range function over n iterations into code: run
// sequentially, or split over the plan's goroutines when par is set.
func (c *compiler) loop(n int, body rangeFn, par bool) code {
	return c.loopGrains(n, c.grain(n, 1), body, par)
}

// loopGrains is loop with grains of grain iterations.
func (c *compiler) loopGrains(n, grain int, body rangeFn, par bool) code {
	if par {
		return func(fr *frame) { fr.rt.parallelFor(fr, n, grain, body) }
	}
	return func(fr *frame) { body(fr, 0, n) }
}

// grain is the grain of a parallel loop of n iterations that its body
// takes unit at a time (a vector program's chunk): about eight grains a
// goroutine, so that a goroutine slowed by the machine's other work takes
// fewer, but not less than a unit when the goroutines get one each. A
// vector program pays each instruction's dispatch once a call: a 4096
// element update in grains of 256 took longer on two goroutines than on
// one.
func (c *compiler) grain(n, unit int) int {
	return max(1, n/(8*c.workers), min(unit, (n+c.workers-1)/c.workers))
}

// wantParallel reports whether a loop of n iterations, each estimated at
// per operations, is worth splitting: only outside other parallel loops.
func (c *compiler) wantParallel(n int, per float64) bool {
	return !c.par && c.workers > 1 && n >= 2 && float64(n)*(per+1) >= parThreshold
}

// nzipInto compiles nzip fn args into dst.
func (c *compiler) nzipInto(fn *cval, args []*cval, dst *cval) (code, error) {
	n, err := outerExtent(args)
	if err != nil {
		return nil, err
	}
	if code, ok, err := c.gemmInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if code, ok, err := c.convInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if code, ok, err := c.depthwiseInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if code, ok, err := c.groupedInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if code, ok, err := c.contractInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if fn2, args2, dst2, ok := collapseNest(fn, args, dst); ok {
		return c.nzipInto(fn2, args2, dst2)
	}
	if code, ok, err := c.transposeInto(fn, args, dst); ok || err != nil {
		return code, err
	}
	if body, per, ok, err := c.flatMap(fn, args, dst, n); err != nil || ok {
		if err != nil {
			return nil, err
		}
		par := c.wantParallel(n, c.perElement(fn, args))
		grain := c.grain(n, per)
		if par {
			c.note("  split over goroutines in grains of %d rows", grain)
		}
		return c.loopGrains(n, grain, body, par), nil
	}
	argRank, dstRank := -1, leafRank(dst)
	for i, a := range args {
		r := leafRank(a)
		if i == 0 || r > argRank {
			argRank = r
		}
	}
	per := c.perElement(fn, args)
	par := c.wantParallel(n, per)
	if dstRank == 1 && argRank == 1 {
		// Scalar elements in, scalar elements out: a vector loop.
		saved := c.par
		c.par = c.par || par
		body, ok, err := c.vectorMap(fn, args, dst)
		c.par = saved
		if err != nil {
			return nil, err
		}
		if ok {
			grain := c.grain(n, chunk)
			if par {
				c.note("  split over goroutines in grains of %d", grain)
			}
			return c.loopGrains(n, grain, body, par), nil
		}
	}
	if dstRank == 1 && argRank == 2 {
		if body, ok := c.dotMap(fn, args, dst); ok {
			return c.loop(n, body, par), nil
		}
	}
	if dstRank == 2 {
		body, ok, err := c.axpyMap(fn, args, dst, n)
		if err != nil {
			return nil, err
		}
		if ok {
			return c.loop(n, body, par), nil
		}
	}
	if code, ok, err := c.rowsMap(fn, args, dst); ok || err != nil {
		return code, err
	}
	c.note("loop nzip [%d]%s", n, parNote(par))
	c.depth++
	defer func() { c.depth-- }()
	saved := c.par
	c.par = c.par || par
	defer func() { c.par = saved }()
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, err
	}
	delem, dvars, err := c.elemOf(dst, nil)
	if err != nil {
		return nil, err
	}
	c.loopDepth++
	body, err := c.applyInto(fn, elems, delem)
	c.loopDepth--
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, nil
	}
	return c.loop(n, genLoop(append(vars, dvars...), nil, body), par), nil
}

func parNote(par bool) string {
	if par {
		return " parallel"
	}
	return ""
}

// perElement estimates the work of one application of fn to elements of
// args.
func (c *compiler) perElement(fn *cval, args []*cval) float64 {
	ts := make([]graph.Type, len(args))
	for i, a := range args {
		t, err := a.typeOf()
		if err != nil {
			return 1e12
		}
		ts[i] = t
	}
	elems, _, err := elemTypes(ts)
	if err != nil {
		return 1e12
	}
	est := c.estimateApply(fn, elems)
	// Producing a result costs at least its size, even a copy.
	if r, err := c.applyType(fn, elems); err == nil {
		est = max(est, float64(graph.Bytes(graph.Materialized(graph.Concrete(r))))/8)
	}
	return est
}

// rnzInto compiles rnz red fn args into dst.
func (c *compiler) rnzInto(red, fn *cval, args []*cval, dst *cval) (code, error) {
	if fn2, args2, ok := collapseReduce(red, fn, args); ok {
		fn, args = fn2, args2
	}
	n, err := outerExtent(args)
	if err != nil {
		return nil, err
	}
	if dst.kind == cvView && len(dst.layout) == 0 {
		s, err := c.rnzScalar(red, fn, args)
		if err != nil {
			return nil, err
		}
		return storeScalar(dst, s)
	}
	ops, lifted := c.liftedOps(red, dst)
	accs := dst.accs()
	if lifted && ops[0] == graph.Add && (allStore(dst) || slices.Equal(accs, ops)) {
		code, ok, err := c.axpyReduce(fn, args, dst, n)
		if err != nil {
			return nil, err
		}
		if ok {
			return code, nil
		}
	}
	switch {
	case lifted && slices.Equal(accs, ops):
		// The destination already accumulates with the reduction's op:
		// every element is added in place.
		c.note("loop rnz [%d] accumulating in place (%v)", n, ops)
		return c.reduceLoop(n, fn, args, dst, nil, dst, ops)
	case lifted && allStore(dst):
		// Initialise with the first element, combine the rest in place.
		c.note("loop rnz [%d] in place (%v)", n, ops)
		return c.reduceLoop(n, fn, args, dst, dst, dst.withAccs(ops), ops)
	}
	if !allStore(dst) {
		// A reduction by another op inside an accumulation: reduce into
		// scratch, then accumulate that.
		t, err := c.scratchOf(dst)
		if err != nil {
			return nil, err
		}
		c.note("rnz [%d] into scratch, then accumulate", n)
		inner, err := c.rnzInto(red, fn, args, t)
		if err != nil {
			return nil, err
		}
		acc, err := c.copyInto(t, dst)
		if err != nil {
			return nil, err
		}
		return seq(inner, acc), nil
	}
	return c.generalReduce(n, red, fn, args, dst)
}

// scratchOf allocates scratch shaped like the destination dst.
func (c *compiler) scratchOf(dst *cval) (*cval, error) {
	t, err := dst.typeOf()
	if err != nil {
		return nil, err
	}
	return c.scratch(graph.Materialized(t))
}

// reduceLoop compiles a reduction whose combining op works in place: the
// first element goes to first (nil: accumulate it too) and the others
// accumulate into rest. A large reduction outside any parallel loop whose
// ops are associative and commutative is split: each goroutine reduces a
// contiguous part into its own accumulator and the parts are combined in
// order, so the result does not depend on scheduling.
func (c *compiler) reduceLoop(n int, fn *cval, args []*cval, dst, first, rest *cval, ops []graph.Op) (code, error) {
	per := c.perElement(fn, args)
	split := c.wantParallel(n, per) && n >= 2*c.workers && first != nil && commutes(ops)
	if !split {
		c.depth++
		defer func() { c.depth-- }()
		return c.reducePart(fn, args, first, rest, 0, n)
	}
	c.note("split over %d goroutines, parts combined in order", c.workers)
	c.depth++
	defer func() { c.depth-- }()
	saved := c.par
	c.par = true
	parts := make([]code, c.workers)
	var combine []code
	for w := range c.workers {
		lo, hi := n*w/c.workers, n*(w+1)/c.workers
		f, r := first, rest
		if w > 0 {
			acc, err := c.scratchShared(dst)
			if err != nil {
				return nil, err
			}
			f, r = acc, acc.withAccs(ops)
			cb, err := c.copyInto(acc, dst.withAccs(ops))
			if err != nil {
				return nil, err
			}
			combine = append(combine, cb)
		}
		p, err := c.reducePart(fn, args, f, r, lo, hi)
		if err != nil {
			return nil, err
		}
		parts[w] = p
	}
	c.par = saved
	return seq(func(fr *frame) { fr.rt.parallelParts(fr, parts) }, seq(combine...)), nil
}

// scratchShared allocates scratch shaped like dst that every frame sees:
// the per-part accumulators of a split reduction, written by one goroutine
// and read by the caller.
func (c *compiler) scratchShared(dst *cval) (*cval, error) {
	saved := c.par
	c.par = false
	defer func() { c.par = saved }()
	return c.scratchOf(dst)
}

// commutes reports whether reducing with ops may regroup and reorder.
func commutes(ops []graph.Op) bool {
	alg := graph.Reduction{Ops: ops}.Algebra()
	return alg.Associative && alg.Commutative
}

// reducePart compiles the reduction of elements lo..hi-1: the first
// goes to first (when not nil), the others accumulate into rest. The
// accumulator does not move while the loop runs.
func (c *compiler) reducePart(fn *cval, args []*cval, first, rest *cval, lo, hi int) (code, error) {
	if code, ok, err := c.flatReduce(fn, args, first, rest, lo, hi); err != nil || ok {
		return code, err
	}
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, err
	}
	c.loopDepth++
	defer func() { c.loopDepth-- }()
	var firstCode code
	if first != nil {
		if firstCode, err = c.applyInto(fn, elems, first); err != nil {
			return nil, err
		}
	}
	restCode, err := c.applyInto(fn, elems, rest)
	if err != nil {
		return nil, err
	}
	if restCode == nil {
		return nil, fmt.Errorf("empty reduction body")
	}
	body := genLoop(vars, firstCode, restCode)
	return func(fr *frame) { body(fr, lo, hi) }, nil
}

// generalReduce compiles a reduction by an arbitrary function r: each
// element is computed into scratch, then r of the accumulator and it into
// more scratch, which is copied back.
func (c *compiler) generalReduce(n int, red, fn *cval, args []*cval, dst *cval) (code, error) {
	c.note("loop rnz [%d] general reduction through scratch", n)
	c.depth++
	defer func() { c.depth-- }()
	tmp, err := c.scratchOf(dst)
	if err != nil {
		return nil, err
	}
	tmp2, err := c.scratchOf(dst)
	if err != nil {
		return nil, err
	}
	elems, vars, err := c.elemsOf(args, nil)
	if err != nil {
		return nil, err
	}
	c.loopDepth++
	defer func() { c.loopDepth-- }()
	first, err := c.applyInto(fn, elems, dst)
	if err != nil {
		return nil, err
	}
	elemCode, err := c.applyInto(fn, elems, tmp)
	if err != nil {
		return nil, err
	}
	combine, err := c.applyInto(red, []*cval{dst, tmp}, tmp2)
	if err != nil {
		return nil, err
	}
	back, err := c.copyInto(tmp2, dst)
	if err != nil {
		return nil, err
	}
	body := genLoop(vars, first, seq(elemCode, combine, back))
	return func(fr *frame) { body(fr, 0, n) }, nil
}

// liftedOps recognises a reduction function that combines in place: one
// accumulating op (+, *, max, min, and, or) per leaf of the accumulator,
// lifted through zips to that leaf's rank, in any form graph.Reducer
// recognises. A tuple accumulator must be a flat tuple of views.
func (c *compiler) liftedOps(red *cval, dst *cval) ([]graph.Op, bool) {
	if red.kind != cvFunc {
		return nil, false
	}
	r, ok := graph.Reducer(red.node, red.env)
	if !ok {
		return nil, false
	}
	leaves := []*cval{dst}
	if dst.kind == cvTuple {
		leaves = dst.elems
	}
	if len(r.Ops) != len(leaves) {
		return nil, false
	}
	for i, l := range leaves {
		if l.kind != cvView || !isAccOp(r.Ops[i]) || r.Lifts[i] != len(l.layout) {
			return nil, false
		}
	}
	return r.Ops, true
}

// liftedOp recognises a reduction function of one leaf that combines in
// place (see liftedOps), returning its op and how many zips lift it.
func (c *compiler) liftedOp(red *cval) (graph.Op, int, bool) {
	if red.kind != cvFunc {
		return graph.OpInvalid, 0, false
	}
	r, ok := graph.Reducer(red.node, red.env)
	if !ok || len(r.Ops) != 1 || !isAccOp(r.Ops[0]) {
		return graph.OpInvalid, 0, false
	}
	return r.Ops[0], r.Lifts[0], true
}
