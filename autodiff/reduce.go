package autodiff

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// redKind says how a reduction operator combines values of one
// accumulator type: for a scalar or array accumulator, one op (Add, Max,
// Min or Mul) applied elementwise; for a tuple accumulator, one redKind per
// component.
type redKind struct {
	op    graph.Op
	elems []*redKind
}

// classifyRed recognises the reduction operator red for accumulators of
// type t: (+), max, min and (*) as op references or lambdas \a b -> a op b,
// lifted to arrays (zip (+), lift (zip max), \a b -> zip (+) a b), and
// componentwise on tuples (\p q -> (fst p + fst q, max (snd p) (snd q))).
// Anything else is refused: no derivative is defined for it here.
func classifyRed(red graph.Node, t graph.Type) (*redKind, bool) {
	switch f := red.(type) {
	case *graph.OpRef:
		if _, ok := t.(*graph.ScalarType); ok && isRedOp(f.Op) {
			return &redKind{op: f.Op}, true
		}
	case *graph.NZip:
		at, ok := t.(*graph.ArrayType)
		if ok && len(f.Args) == 0 {
			return classifyRed(f.Fn, elemOf(at))
		}
	case *graph.Lambda:
		if len(f.Params) == 2 {
			return classifyBody(f.Body, path{v: f.Params[0]}, path{v: f.Params[1]}, t)
		}
	}
	return nil, false
}

func isRedOp(op graph.Op) bool {
	return op == graph.Add || op == graph.Max || op == graph.Min || op == graph.Mul
}

// path is a variable or a chain of projections of one: proj 1 (proj 0 p).
type path struct {
	v   *graph.Var
	idx []int // outermost projection last
}

func (p path) proj(i int) path {
	return path{v: p.v, idx: append(append([]int(nil), p.idx...), i)}
}

func (p path) matches(n graph.Node) bool {
	for k := len(p.idx) - 1; k >= 0; k-- {
		pr, ok := n.(*graph.Proj)
		if !ok || pr.Index != p.idx[k] {
			return false
		}
		n = pr.X
	}
	return n == graph.Node(p.v)
}

// classifyBody recognises e as the combination of the values at paths a
// and b, of type t.
func classifyBody(e graph.Node, a, b path, t graph.Type) (*redKind, bool) {
	switch e := e.(type) {
	case *graph.Call:
		if _, ok := t.(*graph.ScalarType); !ok || !isRedOp(e.Op) || len(e.Args) != 2 {
			return nil, false
		}
		// Every op recognised is commutative, so b op a is a op b.
		if (a.matches(e.Args[0]) && b.matches(e.Args[1])) || (b.matches(e.Args[0]) && a.matches(e.Args[1])) {
			return &redKind{op: e.Op}, true
		}
	case *graph.NZip:
		at, ok := t.(*graph.ArrayType)
		if !ok || len(e.Args) != 2 || !a.matches(e.Args[0]) || !b.matches(e.Args[1]) {
			return nil, false
		}
		return classifyRed(e.Fn, elemOf(at))
	case *graph.Tuple:
		tt, ok := t.(*graph.TupleType)
		if !ok || len(tt.Elems) != len(e.Elems) {
			return nil, false
		}
		k := &redKind{elems: make([]*redKind, len(e.Elems))}
		for i, x := range e.Elems {
			ki, ok := classifyBody(x, a.proj(i), b.proj(i), tt.Elems[i])
			if !ok {
				return nil, false
			}
			k.elems[i] = ki
		}
		return k, true
	}
	return nil, false
}

// pushRNZ is the rule for rnz r f xs, of result R and cotangent cR. Each
// element y_i = f(xs_i) gets a cotangent c_i, and the backward pass of f's
// body then proceeds as for nzip (see through). Per kind of r, elementwise
// on arrays and componentwise on tuples:
//
//   - (+): c_i = cR, the broadcast of the cotangent.
//   - max and min: c_i = cR / k where y_i == R and 0 elsewhere, k the
//     number of elements equal to R: the cotangent goes to the arg-max
//     positions, ties split equally among the tied elements, as JAX does
//     for reduce_max. k is an rnz (+) over the same arrays.
//   - (*): c_i = cR * prod_{j != i} y_j, computed without dividing by
//     zero: with z the number of zero factors and P the product of the
//     nonzero ones (two more reductions), it is cR * P / y_i where z = 0,
//     cR * P at the one zero factor where z = 1, and 0 otherwise; the
//     division is by y_i != 0 only (a zero divisor is replaced by 1 in
//     the branch that is not chosen). P can overflow where the exclusive
//     products do not.
//
// Any other operator is refused with an error naming the term.
func (l *level) pushRNZ(n *graph.RNZ, c *cot) error {
	f, ok := n.Fn.(*graph.Lambda)
	if !ok {
		return fmt.Errorf("autodiff: %s: cannot differentiate an rnz whose function is %s; write it as a lambda", graph.Abbrev(n, 60), graph.Abbrev(n.Fn, 30))
	}
	rt := l.d.typeOf(n)
	kind, ok := classifyRed(n.Red, rt)
	if !ok {
		return fmt.Errorf("autodiff: %s: cannot differentiate the reduction by %s: only (+), max, min and (*) reductions (lifted to arrays, componentwise on tuples) have derivatives", graph.Abbrev(n, 60), graph.Abbrev(n.Red, 40))
	}
	cR := build(c, n, rt)
	yt := l.d.typeOf(f.Body)
	ce := l.elemCot(kind, n, f, f.Body, yt, n, cR.n, graph.Materialized(rt))
	return l.through(n.Args, f, term(ce, graph.Materialized(yt)), nil, nil, nil)
}

// elemCot builds the cotangent of one element y (of type yt) of the
// reduction red, whose result is r and its cotangent cr, both of the
// materialised type t.
func (l *level) elemCot(k *redKind, red *graph.RNZ, f *graph.Lambda, y graph.Node, yt graph.Type, r, cr graph.Node, t graph.Type) graph.Node {
	if k.elems != nil {
		tt := t.(*graph.TupleType)
		ytt := yt.(*graph.TupleType)
		elems := make([]graph.Node, len(k.elems))
		for i, ki := range k.elems {
			elems[i] = l.elemCot(ki, red, f, proj(i, y), ytt.Elems[i], proj(i, r), proj(i, cr), tt.Elems[i])
		}
		return must(graph.NewTuple(elems...))
	}
	dt := dtypeOf(t)
	zero, one := func() graph.Node { return lit(0, dt) }, func() graph.Node { return lit(1, dt) }
	// over reduces, by op of shape t, the elementwise function g of the
	// element y (and of the operands more, captured values of y's shape)
	// over the arrays the reduction traverses.
	over := func(op graph.Op, g func(x []graph.Node) graph.Node, more ...graph.Node) graph.Node {
		body := mapN(yt, g, append([]graph.Node{y}, more...)...)
		r := l.d.renamer(f.Params)
		return rnz(opFn(op, t), lambda(r.params, r.term(body)), red.Args...)
	}
	switch k.op {
	case graph.Add:
		return cr
	case graph.Max, graph.Min:
		count := over(graph.Add, func(x []graph.Node) graph.Node {
			return call(graph.Select, call(graph.Eq, x[0], x[1]), one(), zero())
		}, r)
		return mapN(t, func(x []graph.Node) graph.Node {
			return call(graph.Select, call(graph.Eq, x[0], x[1]), call(graph.Div, x[2], x[3]), zero())
		}, y, r, cr, count)
	case graph.Mul:
		zeros := over(graph.Add, func(x []graph.Node) graph.Node {
			return call(graph.Select, call(graph.Eq, x[0], zero()), one(), zero())
		})
		prod := over(graph.Mul, func(x []graph.Node) graph.Node {
			return call(graph.Select, call(graph.Eq, x[0], zero()), one(), x[0])
		})
		return mapN(t, func(x []graph.Node) graph.Node {
			y, c, z, p := x[0], x[1], x[2], x[3]
			isZero := call(graph.Eq, y, zero())
			safeY := call(graph.Select, isZero, one(), y)
			atZero := call(graph.Select, call(graph.Eq, z, one()), call(graph.Mul, c, p), zero())
			atNonZero := call(graph.Select, call(graph.Eq, z, zero()), call(graph.Mul, c, call(graph.Div, p, safeY)), zero())
			return call(graph.Select, isZero, atZero, atNonZero)
		}, y, cr, zeros, prod)
	}
	panic(internalError{fmt.Sprintf("reduction kind %v", k.op)})
}

// opFn is the reduction operator op for values of the scalar or array
// type t: \a b -> a op b, elementwise for arrays.
func opFn(op graph.Op, t graph.Type) graph.Node {
	a, b := graph.NewVar("a"), graph.NewVar("b")
	return lambda([]*graph.Var{a, b}, mapN(t, func(x []graph.Node) graph.Node { return call(op, x[0], x[1]) }, a, b))
}
