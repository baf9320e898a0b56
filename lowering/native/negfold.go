package native

import "github.com/hofuse/hofuse/graph"

// foldNegs applies foldNeg bottom-up to every floating-point call of n,
// a normal form that info types (rule 10 of normalize).
func foldNegs(n graph.Node, info *graph.Info, memo map[graph.Node]graph.Node) (graph.Node, error) {
	if r, ok := memo[n]; ok {
		return r, nil
	}
	kids := graph.Children(n)
	changed := false
	for i, k := range kids {
		r, err := foldNegs(k, info, memo)
		if err != nil {
			return nil, err
		}
		changed = changed || r != k
		kids[i] = r
	}
	m := n
	if changed {
		var err error
		if m, err = graph.WithChildren(n, kids); err != nil {
			return nil, err
		}
	}
	if t, ok := info.TypeOf(n).(*graph.ScalarType); ok && t.DType.IsFloat() {
		for {
			c, ok := m.(*graph.Call)
			if !ok {
				break
			}
			f, ok := foldNeg(c)
			if !ok {
				break
			}
			m = f
		}
	}
	memo[n] = m
	return m, nil
}

// foldNeg removes a floating-point negation where an exact identity
// allows:
//
//	-(-x) = x
//	x + (-y) = x - y      (-x) + y = y - x      x - (-y) = x + y
//	-(x·c) = x·(-c)       -(c·x) = (-c)·x       -(x/c) = x/(-c)
//	(-x)·c = x·(-c)       c·(-x) = (-c)·x       (-x)/c = x/(-c)
//
// for a literal c. IEEE 754 defines x - y as x + (-y), and each other
// pair rounds the same real number or its negation, which
// round-to-nearest rounds symmetrically: the bits agree, signed zeros
// and infinities included; only the sign of a NaN may differ, which no
// comparison of values observes. A negation is a pass of its own over a
// vector (the other ops chain in registers), and reverse mode writes
// many: a BatchNorm's gradient in the CNN's training step had four per
// element, in a term of 24 ops.
//
// Integer arithmetic keeps its negations: i32 division rounds toward zero
// and gives -1 for x / 0, so -(x/c) and x/(-c) differ there. The
// function returns the folded call, or ok false when no identity applies.
func foldNeg(c *graph.Call) (graph.Node, bool) {
	neg := func(n graph.Node) (graph.Node, bool) {
		if m, ok := n.(*graph.Call); ok && m.Op == graph.Neg {
			return m.Args[0], true
		}
		return nil, false
	}
	lit := func(n graph.Node) (*graph.Const, bool) {
		k, ok := n.(*graph.Const)
		return k, ok
	}
	call := func(op graph.Op, a, b graph.Node) (graph.Node, bool) {
		r, err := graph.NewCall(op, a, b)
		if err != nil {
			return nil, false
		}
		return graph.WithSource(r, c.Source()), true
	}
	minus := func(k *graph.Const) graph.Node { return graph.NewConst(-k.Value) }
	switch c.Op {
	case graph.Neg:
		x := c.Args[0]
		if y, ok := neg(x); ok {
			return y, true
		}
		if m, ok := x.(*graph.Call); ok && (m.Op == graph.Mul || m.Op == graph.Div) {
			if k, ok := lit(m.Args[1]); ok {
				return call(m.Op, m.Args[0], minus(k))
			}
			if k, ok := lit(m.Args[0]); ok && m.Op == graph.Mul {
				return call(m.Op, minus(k), m.Args[1])
			}
		}
	case graph.Add:
		if y, ok := neg(c.Args[1]); ok {
			return call(graph.Sub, c.Args[0], y)
		}
		if x, ok := neg(c.Args[0]); ok {
			return call(graph.Sub, c.Args[1], x)
		}
	case graph.Sub:
		if y, ok := neg(c.Args[1]); ok {
			return call(graph.Add, c.Args[0], y)
		}
	case graph.Mul, graph.Div:
		if x, ok := neg(c.Args[0]); ok {
			if k, ok := lit(c.Args[1]); ok {
				return call(c.Op, x, minus(k))
			}
		}
		if y, ok := neg(c.Args[1]); ok && c.Op == graph.Mul {
			if k, ok := lit(c.Args[0]); ok {
				return call(c.Op, minus(k), y)
			}
		}
	}
	return nil, false
}
