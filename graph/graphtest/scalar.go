package graphtest

import (
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
)

// literals are the constants scalar expressions use: small, away from the
// values where the guarded operations misbehave.
var literals = []float64{0.5, 2, -1, 1.5, 0.25, 3, -0.5, 1}

// ScalarExpr returns a random scalar expression of nesting depth at most
// depth over vars, which must be scalar value terms (variables, or any
// scalar terms) of element type dt, or untyped. It mixes arithmetic (+ - *),
// max and min, guarded division a / (1 + b*b), exp of a bounded argument
// (exp (tanh a)), log (1 + a*a), sqrt, rsqrt and pow of 1 + a*a, tanh,
// logistic, erf, abs, negation, select of comparisons, sections, op
// application, beta-redexes and literals. The guards keep values finite
// for finite inputs of moderate size. The result has type dt even when
// vars is empty (a literal is then converted to dt).
func ScalarExpr(r *rand.Rand, vars []graph.Node, dt graph.DType, depth int) graph.Node {
	g := newGen(r, Config{DType: dt})
	return g.expr(vars, depth)
}

// expr makes a scalar expression over leaves, typed with the configured
// element type.
func (g *gen) expr(leaves []graph.Node, depth int) graph.Node {
	e, typed := g.expr1(leaves, depth)
	if !typed {
		e = g.convert(e)
	}
	return e
}

// convert converts e to the configured element type: it gives an untyped
// expression a type.
func (g *gen) convert(e graph.Node) graph.Node {
	conv := graph.ToF64
	if g.cfg.DType == graph.Float32 {
		conv = graph.ToF32
	}
	return must(graph.NewCall(conv, e))
}

func (g *gen) call(op graph.Op, args ...graph.Node) graph.Node {
	return must(graph.NewCall(op, args...))
}

// onePlusSquare is 1 + a*a, at least 1. It uses a twice; when sharing is
// disabled and a is not a leaf it is 1 + abs a instead.
func (g *gen) onePlusSquare(a graph.Node) graph.Node {
	switch a.(type) {
	case *graph.Var, *graph.Const, *graph.Input:
	default:
		if !g.on(Share) {
			return g.call(graph.Add, graph.NewConst(1), g.call(graph.Abs, a))
		}
	}
	return g.call(graph.Add, graph.NewConst(1), g.call(graph.Mul, a, a))
}

// expr1 makes an expression and reports whether it is typed (uses a leaf).
func (g *gen) expr1(leaves []graph.Node, depth int) (graph.Node, bool) {
	if depth <= 0 || g.coin(0.25) {
		if len(leaves) > 0 && g.coin(0.85) {
			return pick(g, leaves), true
		}
		return graph.NewConst(pick(g, literals)), false
	}
	sub := func() (graph.Node, bool) { return g.expr1(leaves, depth-1) }
	a, ta := sub()
	switch g.weighted(6, 2, 2, 1, 1, 1, 1, 1, 1, 3*btoi(g.on(Select)), 2*btoi(g.on(Section|App)), 2*btoi(g.on(App))) {
	case 0: // + - *
		b, tb := sub()
		return g.call(pick(g, []graph.Op{graph.Add, graph.Add, graph.Sub, graph.Mul, graph.Mul}), a, b), ta || tb
	case 1: // max, min
		b, tb := sub()
		return g.call(pick(g, []graph.Op{graph.Max, graph.Min}), a, b), ta || tb
	case 2: // a / (1 + b*b)
		b, tb := sub()
		return g.call(graph.Div, a, g.onePlusSquare(b)), ta || tb
	case 3:
		return g.call(pick(g, []graph.Op{graph.Tanh, graph.Logistic, graph.Erf}), a), ta
	case 4: // exp (tanh a)
		return g.call(graph.Exp, g.call(graph.Tanh, a)), ta
	case 5: // log (1 + a*a)
		return g.call(graph.Log, g.onePlusSquare(a)), ta
	case 6: // sqrt or rsqrt (1 + a*a)
		return g.call(pick(g, []graph.Op{graph.Sqrt, graph.Rsqrt}), g.onePlusSquare(a)), ta
	case 7: // pow (1 + a*a) c
		return g.call(graph.Pow, g.onePlusSquare(a), graph.NewConst(pick(g, []float64{0.5, -0.5, 1.5, -1}))), ta
	case 8:
		return g.call(pick(g, []graph.Op{graph.Abs, graph.Neg}), a), ta
	case 9: // select (a < b) c d
		b, _ := sub()
		c, tc := sub()
		d, td := sub()
		cmp := g.call(pick(g, []graph.Op{graph.Lt, graph.Le, graph.Gt, graph.Ge}), a, b)
		if !tc && !td {
			// select of two literals is f64, not untyped: convert one.
			c = g.convert(c)
		}
		return g.call(graph.Select, cmp, c, d), true
	case 10: // (op e) a
		return must(graph.NewApp(g.section(nil), a)), ta
	}
	// Application: (op) a b, or (\y -> e) a.
	if g.coin(0.5) {
		b, tb := sub()
		return must(graph.NewApp(g.opRef(pick(g, []graph.Op{graph.Add, graph.Mul, graph.Max, graph.Min})), a, b)), ta || tb
	}
	y := graph.NewVar("y")
	body, tb := g.expr1(append(leaves[:len(leaves):len(leaves)], y), depth-1)
	// The result is typed for sure only when the body uses a leaf and y is
	// typed; otherwise expr converts it, which costs nothing.
	return must(graph.NewApp(must(graph.NewLambda([]*graph.Var{y}, body)), a)), ta && tb
}

// combine joins the expression e (or nil) and the scalar term s into one
// expression that uses both.
func (g *gen) combine(e, s graph.Node) graph.Node {
	if e == nil {
		if g.coin(0.3) {
			return g.call(graph.Tanh, s)
		}
		return s
	}
	switch g.intn(5) {
	case 0:
		return g.call(graph.Add, e, s)
	case 1:
		return g.call(graph.Mul, g.call(graph.Tanh, e), s)
	case 2:
		return g.call(pick(g, []graph.Op{graph.Max, graph.Min}), e, s)
	case 3:
		return g.call(graph.Sub, s, e)
	}
	return g.call(graph.Div, s, g.onePlusSquare(e))
}
