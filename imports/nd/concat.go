package nd

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Concat joins xs along axis (negative counts from the end), numpy's
// concatenate and ONNX's Concat: the operands have one element type and
// rank (at least 1) and equal extents on every other axis.
//
// The IR has no term that builds an array from pieces, so the result is
// computed, not laid out: the axis is cut into blocks of g elements, g
// the greatest common divisor of the operands' extents along it (so
// operand k has c_k blocks, and the result C = Σ c_k), and block J of the
// result is
//
//	Σ_k rnz (+) (\blk i -> map (\v -> select (i + off_k == J) v (-0)) blk) x_k nd.index.c_k
//
// over the blocks of every operand, mapped over nd.index.C and flattened
// back (the index inputs are bound by BindIndexes). Exactly one block
// contributes and the others add -0, which changes no value (-0 + -0 is
// -0; +0, NaN and ±Inf pass unchanged). Its cost is C additions per
// result element: 2 for two operands of one extent, but up to the
// extent itself for extents without a common divisor, which a concatenation
// term in graph would remove. Operands of bool are refused.
func Concat(axis int, xs ...graph.Node) (graph.Node, error) { return Ops{}.Concat(axis, xs...) }

// Concat is the package's Concat, with o's source name.
func (o Ops) Concat(axis int, xs ...graph.Node) (graph.Node, error) {
	p := o.begin("Concat")
	if len(xs) == 0 {
		return nil, p.errorf("no operands")
	}
	as := make([]arr, len(xs))
	what := make([]string, len(xs))
	for i, x := range xs {
		what[i] = fmt.Sprintf("operand %d", i)
		a, err := p.operand(what[i], x)
		if err != nil {
			return nil, err
		}
		if a.rank() == 0 {
			return nil, p.errorf("%s is a scalar, want an array", what[i])
		}
		if !a.dt.IsNumeric() {
			return nil, p.errorf("%s has element type %v, want f32, f64 or i32", what[i], a.dt)
		}
		as[i] = a
	}
	r := as[0].rank()
	axis, err := p.normAxis("axis", axis, r)
	if err != nil {
		return nil, err
	}
	for i, a := range as[1:] {
		if a.dt != as[0].dt {
			return nil, p.errorf("operand 0 has element type %v and %s %v", as[0].dt, what[i+1], a.dt)
		}
		if a.rank() != r {
			return nil, p.errorf("operand 0 has rank %d and %s rank %d", r, what[i+1], a.rank())
		}
		for d := range r {
			if d != axis && a.lay[d].Extent != as[0].lay[d].Extent {
				return nil, p.errorf("operand 0 %s and %s %s differ on axis %d, which is not the concatenation axis %d",
					shapeString(as[0].extents()), what[i+1], shapeString(a.extents()), d, axis)
			}
		}
	}
	if len(xs) == 1 {
		return xs[0], nil
	}
	g := 0
	total := 0
	for _, a := range as {
		g = gcd(g, a.lay[axis].Extent)
		total += a.lay[axis].Extent
	}
	if total > graph.MaxExtent {
		return nil, p.errorf("the result has extent %d on axis %d, past the cap of %d", total, axis, graph.MaxExtent)
	}
	blocks := make([]int, len(as)) // c_k
	offs := make([]int, len(as))   // off_k
	core := make([]int, len(as))
	c := 0
	for k, a := range as {
		blocks[k] = a.lay[axis].Extent / g
		offs[k] = c
		c += blocks[k]
		if as[k], err = p.view(a, graph.SubdivView{Axis: axis, Block: g}); err != nil {
			return nil, err
		}
		core[k] = r + 1 - axis
	}
	idxC, err := Index(c)
	if err != nil {
		return nil, p.wrap(err, "axis %d", axis)
	}
	idx := make([]graph.Node, len(as))
	for k := range as {
		in, err := Index(blocks[k])
		if err != nil {
			return nil, p.wrap(err, "axis %d", axis)
		}
		idx[k] = in
	}
	q := r - axis // rank of one block: g and the axes after axis
	var ferr error
	y, _, err := p.zipCore(what, as, core, func(b *layers.Builder, ys []graph.Node) graph.Node {
		out := b.Map(b.Lambda1("J", func(j graph.Node) graph.Node {
			parts := make([]graph.Node, len(ys))
			for k, yk := range ys {
				pick := b.Lambda([]string{"blk", "i"}, func(vs []graph.Node) graph.Node {
					pos := vs[1]
					if offs[k] != 0 {
						pos = b.Add(pos, b.Const(float64(offs[k])))
					}
					hit := b.Call(graph.Eq, pos, j)
					return mapLeaves(b, q, []graph.Node{vs[0]}, func(v []graph.Node) graph.Node {
						return b.Call(graph.Select, hit, v[0], b.Const(negZero))
					})
				})
				parts[k] = b.RNZ(lifted(b, q, graph.Add), pick, yk, idx[k])
			}
			return mapLeaves(b, q, parts, func(v []graph.Node) graph.Node {
				s := v[0]
				for _, t := range v[1:] {
					s = b.Add(s, t)
				}
				return s
			})
		}), idxC)
		n, err := graph.NewFlatten(0, out)
		if err != nil {
			ferr = err
			return nil
		}
		return graph.WithSource(n, p.src)
	})
	if err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, p.wrap(ferr, "flattening the blocks")
	}
	return p.done(y)
}

// negZero is -0, the identity of floating-point addition.
var negZero = math.Copysign(0, -1)

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// lifted returns op lifted to arrays of rank q: op, zip op, zip (zip op), …
func lifted(b *layers.Builder, q int, op graph.Op) graph.Node {
	if q == 0 {
		return b.Op(op)
	}
	return b.NZip(lifted(b, q-1, op))
}

// mapLeaves zips xs, arrays of rank q and equal extents, down to their
// elements and applies f to one element of each.
func mapLeaves(b *layers.Builder, q int, xs []graph.Node, f func(vs []graph.Node) graph.Node) graph.Node {
	if q == 0 {
		return f(xs)
	}
	names := make([]string, len(xs))
	for i := range names {
		names[i] = fmt.Sprintf("%c%d", 'p'+i%10, q)
	}
	return b.NZip(b.Lambda(names, func(vs []graph.Node) graph.Node { return mapLeaves(b, q-1, vs, f) }), xs...)
}
