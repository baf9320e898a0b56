package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// The compiler needs the type of a subterm under bound variables (to size
// a scratch buffer, to estimate work); graph's typing service types such
// open terms with the checker's own rules, through the compiler's
// environment. The kernel was checked as a whole before compilation, so
// errors here are internal.

// Lookup makes the compiler's environment a graph.Env: a variable bound
// to a function term stands for that term and its environment, any other
// for the type of its value.
func (e *cenv) Lookup(v *graph.Var) (graph.Binding, bool) {
	val := e.lookup(v)
	if val == nil {
		return graph.Binding{}, false
	}
	if val.kind == cvFunc {
		return graph.Binding{Fn: val.node, FnEnv: val.env}, true
	}
	t, err := val.typeOf()
	if err != nil {
		return graph.Binding{}, false
	}
	return graph.Binding{Type: t}, true
}

// typer returns the plan's typer, which remembers the closed subterms it
// has typed.
func (c *compiler) typer() *graph.Typer {
	if c.types == nil {
		c.types = graph.NewTyper()
	}
	return c.types
}

// typeOf returns the type of the value term n with variables bound by env.
func (c *compiler) typeOf(n graph.Node, env *cenv) (graph.Type, error) {
	return c.typer().TypeOf(n, env)
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

// applyType returns the type of fn applied to arguments of the given types.
func (c *compiler) applyType(fn *cval, args []graph.Type) (graph.Type, error) {
	if fn.kind != cvFunc {
		return nil, fmt.Errorf("not a function")
	}
	return c.typer().ApplyType(fn.node, args, fn.env)
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

// elemTypes returns the element types of array arguments and their shared
// outer extent.
func elemTypes(args []graph.Type) ([]graph.Type, int, error) {
	out := make([]graph.Type, len(args))
	n := -1
	for i, a := range args {
		et, e, err := graph.ElemType(a)
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

// estimate returns roughly how many scalar operations evaluating n takes:
// enough to tell a loop worth splitting over goroutines from one that is
// not. A subterm it cannot type counts as costly (1e12) rather than
// failing: the estimate only chooses a schedule, and compiling the subterm
// reports the error with the kernel's name.
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
		return c.estimate(n.Value, env) + c.estimate(n.Body, env.bind(n.Var, typeVal(graph.Concrete(t))))
	case *graph.Tuple:
		s := 0.0
		for _, e := range n.Elems {
			s += c.estimate(e, env)
		}
		return s
	case graph.ViewNode, *graph.Proj:
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
