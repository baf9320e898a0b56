package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// This file types open terms: the compiler needs the type of a subterm
// under bound variables (to size a scratch buffer, to estimate work) and
// graph.Check only types closed terms. The rules are graph's checker's; the
// kernel was checked as a whole before compilation, so errors here are
// internal.

// typeOf returns the type of the value term n with variables bound by env.
func (c *compiler) typeOf(n graph.Node, env *cenv) (graph.Type, error) {
	switch n := n.(type) {
	case *graph.Input:
		return n.Type, nil
	case *graph.Const:
		return graph.Scalar(untyped), nil
	case *graph.Var:
		v := env.lookup(n)
		if v == nil {
			return nil, fmt.Errorf("variable %s is not bound", n.Name)
		}
		return v.typeOf()
	case *graph.Call:
		dts := make([]graph.DType, len(n.Args))
		for i, a := range n.Args {
			t, err := c.typeOf(a, env)
			if err != nil {
				return nil, err
			}
			st, ok := t.(*graph.ScalarType)
			if !ok {
				return nil, fmt.Errorf("%v: operand %d is not a scalar", n.Op, i)
			}
			dts[i] = st.DType
		}
		_, dt, err := n.Op.Resolve(dts)
		if err != nil {
			return nil, err
		}
		return graph.Scalar(dt), nil
	case *graph.App:
		args, err := c.typesOf(n.Args, env)
		if err != nil {
			return nil, err
		}
		return c.applyType(c.fnOf(n.Fn, env), args)
	case *graph.NZip:
		args, err := c.typesOf(n.Args, env)
		if err != nil {
			return nil, err
		}
		return c.nzipType(c.fnOf(n.Fn, env), args)
	case *graph.RNZ:
		args, err := c.typesOf(n.Args, env)
		if err != nil {
			return nil, err
		}
		elems, _, err := elemTypes(args)
		if err != nil {
			return nil, err
		}
		r, err := c.applyType(c.fnOf(n.Fn, env), elems)
		if err != nil {
			return nil, err
		}
		return graph.Materialized(concreteType(r)), nil
	case *graph.Subdiv, *graph.Flatten, *graph.Flip:
		x := graph.Children(n)[0]
		t, err := c.typeOf(x, env)
		if err != nil {
			return nil, err
		}
		at, ok := t.(*graph.ArrayType)
		if !ok {
			return nil, fmt.Errorf("layout operation on %v", t)
		}
		l, err := layoutOp(n, at.Layout)
		if err != nil {
			return nil, err
		}
		return &graph.ArrayType{DType: at.DType, Layout: l}, nil
	case *graph.Tuple:
		ts, err := c.typesOf(n.Elems, env)
		if err != nil {
			return nil, err
		}
		for i := range ts {
			ts[i] = concreteType(ts[i])
		}
		return &graph.TupleType{Elems: ts}, nil
	case *graph.Proj:
		t, err := c.typeOf(n.X, env)
		if err != nil {
			return nil, err
		}
		tt, ok := t.(*graph.TupleType)
		if !ok || n.Index >= len(tt.Elems) {
			return nil, fmt.Errorf("projection %d of %v", n.Index, t)
		}
		return tt.Elems[n.Index], nil
	case *graph.Let:
		if graph.IsFunc(n.Value) {
			return c.typeOf(n.Body, env.bind(n.Var, c.fnOf(n.Value, env)))
		}
		t, err := c.typeOf(n.Value, env)
		if err != nil {
			return nil, err
		}
		return c.typeOf(n.Body, env.bind(n.Var, typeVal(concreteType(t))))
	}
	return nil, fmt.Errorf("%T is not a value", n)
}

func (c *compiler) typesOf(ns []graph.Node, env *cenv) ([]graph.Type, error) {
	out := make([]graph.Type, len(ns))
	for i, a := range ns {
		t, err := c.typeOf(a, env)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// layoutOp applies the layout operation n (a Subdiv, Flatten or Flip) to l.
func layoutOp(n graph.Node, l graph.Layout) (graph.Layout, error) {
	switch n := n.(type) {
	case *graph.Subdiv:
		return l.Subdiv(n.Axis, n.Block)
	case *graph.Flatten:
		return l.Flatten(n.Axis)
	case *graph.Flip:
		return l.Flip(n.Axis1, n.Axis2)
	}
	return nil, fmt.Errorf("%T is not a layout operation", n)
}

func elemTypes(args []graph.Type) ([]graph.Type, int, error) {
	out := make([]graph.Type, len(args))
	n := -1
	for i, a := range args {
		et, e, err := elemType(a)
		if err != nil {
			return nil, 0, err
		}
		if n >= 0 && e != n {
			return nil, 0, fmt.Errorf("arguments have outer extents %d and %d", n, e)
		}
		out[i], n = et, e
	}
	return out, n, nil
}

func (c *compiler) nzipType(fn *cval, args []graph.Type) (graph.Type, error) {
	elems, n, err := elemTypes(args)
	if err != nil {
		return nil, err
	}
	r, err := c.applyType(fn, elems)
	if err != nil {
		return nil, err
	}
	return graph.Stacked(n, concreteType(r)), nil
}

// fnOf returns the function value of the function term n: the term and
// the environment it closes over, or what a variable is bound to.
func (c *compiler) fnOf(n graph.Node, env *cenv) *cval {
	if v, ok := n.(*graph.Var); ok {
		if b := env.lookup(v); b != nil && b.kind == cvFunc {
			return b
		}
	}
	return &cval{kind: cvFunc, node: n, env: env}
}

// applyType returns the type of fn applied to arguments of the given types.
func (c *compiler) applyType(fn *cval, args []graph.Type) (graph.Type, error) {
	if fn.kind != cvFunc {
		return nil, fmt.Errorf("not a function")
	}
	env := fn.env
	switch f := fn.node.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return nil, fmt.Errorf("function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		for i, p := range f.Params {
			env = env.bind(p, typeVal(args[i]))
		}
		return c.typeOf(f.Body, env)
	case *graph.OpRef:
		return callType(f.Op, args)
	case *graph.Section:
		t, err := c.typeOf(f.Operand, env)
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("section applied to %d arguments", len(args))
		}
		if f.Left {
			return callType(f.Op, []graph.Type{t, args[0]})
		}
		return callType(f.Op, []graph.Type{args[0], t})
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("id applied to %d arguments", len(args))
		}
		return args[0], nil
	case *graph.NZip:
		given, err := c.typesOf(f.Args, env)
		if err != nil {
			return nil, err
		}
		return c.nzipType(c.fnOf(f.Fn, env), append(given, args...))
	case *graph.Var:
		b := env.lookup(f)
		if b == nil || b.kind != cvFunc {
			return nil, fmt.Errorf("%s is not a function", f.Name)
		}
		return c.applyType(b, args)
	}
	return nil, fmt.Errorf("%T is not a function", fn.node)
}

func callType(op graph.Op, args []graph.Type) (graph.Type, error) {
	dts := make([]graph.DType, len(args))
	for i, a := range args {
		st, ok := a.(*graph.ScalarType)
		if !ok {
			return nil, fmt.Errorf("%v: operand %d has type %v, not a scalar", op, i, a)
		}
		dts[i] = st.DType
	}
	_, dt, err := op.Resolve(dts)
	if err != nil {
		return nil, err
	}
	return graph.Scalar(dt), nil
}

// estimate returns roughly how many scalar operations evaluating n takes:
// enough to tell a loop worth splitting over goroutines from one that is
// not.
func (c *compiler) estimate(n graph.Node, env *cenv) float64 {
	switch n := n.(type) {
	case *graph.Call:
		s := 1.0
		for _, a := range n.Args {
			s += c.estimate(a, env)
		}
		return s
	case *graph.App:
		s := 0.0
		for _, a := range n.Args {
			s += c.estimate(a, env)
		}
		args, err := c.typesOf(n.Args, env)
		if err != nil {
			return 1e12
		}
		return s + c.estimateApply(c.fnOf(n.Fn, env), args)
	case *graph.NZip, *graph.RNZ:
		var fn graph.Node
		var argNodes []graph.Node
		if z, ok := n.(*graph.NZip); ok {
			fn, argNodes = z.Fn, z.Args
		} else {
			r := n.(*graph.RNZ)
			fn, argNodes = r.Fn, r.Args
		}
		s := 0.0
		for _, a := range argNodes {
			s += c.estimate(a, env)
		}
		args, err := c.typesOf(argNodes, env)
		if err != nil {
			return 1e12
		}
		elems, ext, err := elemTypes(args)
		if err != nil {
			return 1e12
		}
		return s + float64(ext)*(1+c.estimateApply(c.fnOf(fn, env), elems))
	case *graph.Let:
		if graph.IsFunc(n.Value) {
			return c.estimate(n.Body, env.bind(n.Var, c.fnOf(n.Value, env)))
		}
		t, err := c.typeOf(n.Value, env)
		if err != nil {
			return 1e12
		}
		return c.estimate(n.Value, env) + c.estimate(n.Body, env.bind(n.Var, typeVal(concreteType(t))))
	case *graph.Tuple:
		s := 0.0
		for _, e := range n.Elems {
			s += c.estimate(e, env)
		}
		return s
	case *graph.Subdiv, *graph.Flatten, *graph.Flip, *graph.Proj:
		return c.estimate(graph.Children(n)[0], env)
	}
	return 0
}

func (c *compiler) estimateApply(fn *cval, args []graph.Type) float64 {
	env := fn.env
	switch f := fn.node.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return 1e12
		}
		for i, p := range f.Params {
			env = env.bind(p, typeVal(args[i]))
		}
		return c.estimate(f.Body, env)
	case *graph.OpRef, *graph.Section:
		return 1
	case *graph.NZip:
		given, err := c.typesOf(f.Args, env)
		if err != nil {
			return 1e12
		}
		all := append(given, args...)
		elems, ext, err := elemTypes(all)
		if err != nil {
			return 1e12
		}
		return float64(ext) * (1 + c.estimateApply(c.fnOf(f.Fn, env), elems))
	case *graph.Var:
		if b := env.lookup(f); b != nil && b.kind == cvFunc {
			return c.estimateApply(b, args)
		}
	}
	return 0
}
