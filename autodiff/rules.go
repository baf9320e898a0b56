package autodiff

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
)

// A scalarRule gives the cotangents of the operands of the call y = op(a,
// b, ...) from the cotangent c of its result, as scalar terms over the
// operands, y and c. A nil entry means the operand gets nothing (zero).
// argDType(i) is the element type of operand i.
type scalarRule func(y *graph.Call, c graph.Node, argDType func(int) graph.DType) []graph.Node

// scalarRules holds the derivative of every scalar op of graph's op table.
// An op missing here makes Grad fail with an error naming it; the tests
// check that every op of the table has an entry.
var scalarRules = map[graph.Op]scalarRule{
	// d(a+b) = da + db.
	graph.Add: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{c, c}
	},
	// d(a-b) = da - db.
	graph.Sub: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{c, call(graph.Neg, c)}
	},
	// d(a*b) = b da + a db.
	graph.Mul: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		a, b := y.Args[0], y.Args[1]
		return []graph.Node{call(graph.Mul, c, b), call(graph.Mul, c, a)}
	},
	// d(a/b) = da / b - (a/b) db / b.
	graph.Div: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		b := y.Args[1]
		return []graph.Node{call(graph.Div, c, b), call(graph.Neg, call(graph.Div, call(graph.Mul, c, y), b))}
	},
	graph.Neg: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Neg, c)}
	},
	// max and min pass the cotangent to the operand they chose; on a tie
	// (a == b) each operand gets half, so that max x x has derivative 1 in
	// x and the subgradient is the symmetric one. A NaN operand gets
	// nothing (the comparisons are false).
	graph.Max: minMaxRule(graph.Gt),
	graph.Min: minMaxRule(graph.Lt),
	// d pow(a, b) = b pow(a, b-1) da + log(a) pow(a, b) db. The db part is
	// 0 where a == 0 (the limit for b > 0), not 0 * -inf = NaN, as in JAX.
	graph.Pow: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		a, b := y.Args[0], y.Args[1]
		da := call(graph.Mul, c, call(graph.Mul, b, call(graph.Pow, a, call(graph.Sub, b, graph.NewConst(1)))))
		safeA := call(graph.Select, call(graph.Eq, a, graph.NewConst(0)), graph.NewConst(1), a)
		db := call(graph.Select, call(graph.Eq, a, graph.NewConst(0)), graph.NewConst(0),
			call(graph.Mul, c, call(graph.Mul, y, call(graph.Log, safeA))))
		return []graph.Node{da, db}
	},
	// d abs a = sign(a) da, with sign(0) = 0 (as JAX and PyTorch).
	graph.Abs: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		a := y.Args[0]
		return []graph.Node{call(graph.Select, call(graph.Gt, a, graph.NewConst(0)), c,
			call(graph.Select, call(graph.Lt, a, graph.NewConst(0)), call(graph.Neg, c), graph.NewConst(0)))}
	},
	// d exp a = exp a da.
	graph.Exp: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Mul, c, y)}
	},
	// d log a = da / a.
	graph.Log: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Div, c, y.Args[0])}
	},
	// d sqrt a = da / (2 sqrt a).
	graph.Sqrt: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Div, call(graph.Mul, c, graph.NewConst(0.5)), y)}
	},
	// d rsqrt a = -rsqrt(a) / (2a) da.
	graph.Rsqrt: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Neg, call(graph.Div, call(graph.Mul, call(graph.Mul, c, graph.NewConst(0.5)), y), y.Args[0]))}
	},
	// d tanh a = (1 - tanh² a) da.
	graph.Tanh: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Mul, c, call(graph.Sub, graph.NewConst(1), call(graph.Mul, y, y)))}
	},
	// d logistic a = logistic(a) (1 - logistic(a)) da.
	graph.Logistic: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		return []graph.Node{call(graph.Mul, c, call(graph.Mul, y, call(graph.Sub, graph.NewConst(1), y)))}
	},
	// d erf a = 2/sqrt(pi) exp(-a²) da.
	graph.Erf: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		a := y.Args[0]
		return []graph.Node{call(graph.Mul, call(graph.Mul, c, graph.NewConst(2/math.Sqrt(math.Pi))),
			call(graph.Exp, call(graph.Neg, call(graph.Mul, a, a))))}
	},
	// select c a b passes the cotangent to the operand it chose and none to
	// the condition.
	graph.Select: func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		cond := y.Args[0]
		return []graph.Node{nil,
			call(graph.Select, cond, c, graph.NewConst(0)),
			call(graph.Select, cond, graph.NewConst(0), c)}
	},
	// Conversions between f32 and f64 convert the cotangent back to the
	// operand's type; from i32 or bool nothing flows.
	graph.ToF32: convertRule,
	graph.ToF64: convertRule,
	// Comparisons, logic and conversion to i32 have bool or i32 results:
	// piecewise constant, their derivative is zero and nothing flows.
	graph.Lt: noFlow, graph.Le: noFlow, graph.Gt: noFlow, graph.Ge: noFlow,
	graph.Eq: noFlow, graph.Ne: noFlow,
	graph.And: noFlow, graph.Or: noFlow, graph.Not: noFlow,
	graph.ToI32: noFlow,
	// stopgrad is a constant to differentiation by definition (JAX's
	// stop_gradient): nothing flows through it, whatever its operand.
	graph.StopGrad: noFlow,
}

func noFlow(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
	return make([]graph.Node, len(y.Args))
}

func convertRule(y *graph.Call, c graph.Node, argDType func(int) graph.DType) []graph.Node {
	switch dt := argDType(0); dt {
	case graph.Float32:
		return []graph.Node{call(graph.ToF32, c)}
	case graph.Float64:
		return []graph.Node{call(graph.ToF64, c)}
	}
	return []graph.Node{nil}
}

// minMaxRule is the rule of max (wins = Gt) or min (wins = Lt).
func minMaxRule(wins graph.Op) scalarRule {
	return func(y *graph.Call, c graph.Node, _ func(int) graph.DType) []graph.Node {
		a, b := y.Args[0], y.Args[1]
		half := call(graph.Select, call(graph.Eq, a, b), call(graph.Mul, c, graph.NewConst(0.5)), graph.NewConst(0))
		return []graph.Node{
			call(graph.Select, call(wins, a, b), c, half),
			call(graph.Select, call(wins, b, a), c, half),
		}
	}
}

// pushCall applies the scalar rule of n's op.
func (l *level) pushCall(n *graph.Call, c *cot) error {
	rule, ok := scalarRules[n.Op]
	if !ok {
		return fmt.Errorf("autodiff: %s: op %v has no derivative rule; write the term without it or give it one in autodiff's scalarRules", graph.Abbrev(n, 60), n.Op)
	}
	argDType := func(i int) graph.DType { return dtypeOf(l.d.typeOf(n.Args[i])) }
	cs := rule(n, c.whole.n, argDType)
	for i, a := range n.Args {
		if cs[i] == nil {
			continue
		}
		l.contribute(a, term(cs[i], graph.Scalar(argDType(i))))
	}
	return nil
}
