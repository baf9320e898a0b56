package layers

import (
	"github.com/hofuse/hofuse/graph"
)

// Builder makes terms whose every node carries one source name, the name of
// the layer being built. Its methods mirror the graph constructors but
// return only the node: the first error any of them meets is kept, later
// calls return nil and do nothing, and Done or Err reports it. That lets a
// layer be written as one expression, the way the notation reads, and check
// for errors once at the end.
//
// Variables are the exception to "every node": graph gives a *graph.Var no
// source of its own.
type Builder struct {
	src string
	err error
}

// NewBuilder returns a builder whose nodes carry the source src.
func NewBuilder(src string) *Builder { return &Builder{src: src} }

// Source is the source name the builder gives its nodes.
func (b *Builder) Source() string { return b.src }

// Err returns the first error a construction met, or nil.
func (b *Builder) Err() error { return b.err }

// Done returns n, or the first error a construction met.
func (b *Builder) Done(n graph.Node) (graph.Node, error) {
	if b.err != nil {
		return nil, b.err
	}
	return n, nil
}

// tag gives n the builder's source, or records err. The node is taken as
// graph.Node only after err is checked, so a typed nil pointer never becomes
// a non-nil interface.
func tag[N graph.Node](b *Builder, n N, err error) graph.Node {
	if b.err != nil {
		return nil
	}
	if err != nil {
		b.err = err
		return nil
	}
	return graph.WithSource(n, b.src)
}

// Const returns the untyped literal v; it takes the element type of the
// operand it meets.
func (b *Builder) Const(v float64) graph.Node {
	if b.err != nil {
		return nil
	}
	return graph.WithSource(graph.NewConst(v), b.src)
}

// Call returns op applied to args.
func (b *Builder) Call(op graph.Op, args ...graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewCall(op, args...)
	return tag(b, n, err)
}

// Add returns x + y.
func (b *Builder) Add(x, y graph.Node) graph.Node { return b.Call(graph.Add, x, y) }

// Sub returns x - y.
func (b *Builder) Sub(x, y graph.Node) graph.Node { return b.Call(graph.Sub, x, y) }

// Mul returns x * y.
func (b *Builder) Mul(x, y graph.Node) graph.Node { return b.Call(graph.Mul, x, y) }

// Div returns x / y.
func (b *Builder) Div(x, y graph.Node) graph.Node { return b.Call(graph.Div, x, y) }

// Op returns the scalar op as a function term, as in rnz (+) (*) r c.
func (b *Builder) Op(op graph.Op) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewOpRef(op)
	return tag(b, n, err)
}

// Section returns (op operand), or (operand op) when left is set.
func (b *Builder) Section(op graph.Op, operand graph.Node, left bool) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewSection(op, operand, left)
	return tag(b, n, err)
}

// Ident returns the identity function id.
func (b *Builder) Ident() graph.Node {
	if b.err != nil {
		return nil
	}
	return graph.WithSource(graph.NewIdent(), b.src)
}

// Lambda returns \p0 p1 … -> body, with fresh variables named by names.
// body receives the variables, in order, and returns the lambda's body.
func (b *Builder) Lambda(names []string, body func(vs []graph.Node) graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	params := make([]*graph.Var, len(names))
	vs := make([]graph.Node, len(names))
	for i, name := range names {
		params[i] = graph.NewVar(name)
		vs[i] = params[i]
	}
	bodyNode := body(vs)
	if b.err != nil {
		return nil
	}
	n, err := graph.NewLambda(params, bodyNode)
	return tag(b, n, err)
}

// Lambda1 returns \name -> body(name).
func (b *Builder) Lambda1(name string, body func(v graph.Node) graph.Node) graph.Node {
	return b.Lambda([]string{name}, func(vs []graph.Node) graph.Node { return body(vs[0]) })
}

// Let returns let name = value in body(name).
func (b *Builder) Let(name string, value graph.Node, body func(v graph.Node) graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	v := graph.NewVar(name)
	bodyNode := body(v)
	if b.err != nil {
		return nil
	}
	n, err := graph.NewLet(v, value, bodyNode)
	return tag(b, n, err)
}

// NZip returns nzip fn args. With fewer args than fn takes it is the lifted
// function of the rest, as zip (+) is NZip(Op(Add)).
func (b *Builder) NZip(fn graph.Node, args ...graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewNZip(fn, args...)
	return tag(b, n, err)
}

// Map returns map fn x.
func (b *Builder) Map(fn, x graph.Node) graph.Node { return b.NZip(fn, x) }

// Zip returns zip fn x y.
func (b *Builder) Zip(fn, x, y graph.Node) graph.Node { return b.NZip(fn, x, y) }

// RNZ returns rnz red fn args: red reduces the results of nzip fn args.
func (b *Builder) RNZ(red, fn graph.Node, args ...graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewRNZ(red, fn, args...)
	return tag(b, n, err)
}

// Reduce returns reduce red x, that is rnz red id x.
func (b *Builder) Reduce(red, x graph.Node) graph.Node { return b.RNZ(red, b.Ident(), x) }

// Flip returns flip axis1 axis2 x.
func (b *Builder) Flip(axis1, axis2 int, x graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewFlip(axis1, axis2, x)
	return tag(b, n, err)
}

// View returns the view v of x (first 0 x, subdiv 1 4 x, …).
func (b *Builder) View(v graph.View, x graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewView(v, x)
	return tag(b, n, err)
}

// MapRank returns f mapped over every element of x, an array of the given
// rank: map (\v -> f v) x for rank 1, map (\r -> map (\v -> f v) r) x for
// rank 2, and so on. f builds the scalar body from the element variable v.
func (b *Builder) MapRank(rank int, x graph.Node, f func(b *Builder, v graph.Node) graph.Node) graph.Node {
	return b.mapRows(rank, x, func(r graph.Node) graph.Node {
		return b.Map(b.Lambda1("v", func(v graph.Node) graph.Node { return f(b, v) }), r)
	})
}

// mapRows applies row, which takes an array of rank 1, to every innermost
// row of x, an array of the given rank, by nesting maps over the outer
// rank-1 axes: row x for rank 1, map (\r -> row r) x for rank 2, …
func (b *Builder) mapRows(rank int, x graph.Node, row func(r graph.Node) graph.Node) graph.Node {
	if rank <= 1 {
		return row(x)
	}
	return b.Map(b.Lambda1("r", func(r graph.Node) graph.Node {
		return b.mapRows(rank-1, r, row)
	}), x)
}

// Tuple returns (elems…), at least two of them.
func (b *Builder) Tuple(elems ...graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewTuple(elems...)
	return tag(b, n, err)
}

// Proj returns element index of the tuple x.
func (b *Builder) Proj(index int, x graph.Node) graph.Node {
	if b.err != nil {
		return nil
	}
	n, err := graph.NewProj(index, x)
	return tag(b, n, err)
}
