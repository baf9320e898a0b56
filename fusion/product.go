package fusion

import (
	"github.com/hofuse/hofuse/graph"
)

// Product is horizontal (multi-output) fusion of the elements of a tuple
// that traverse arrays of the same outer extent, the paper's product rules:
//
//	(nzip f xs, nzip g ys)   =  nzip (\xs' ys' -> (f xs', g ys')) xs ys
//	(rnz r f xs, rnz q g ys) =  rnz (\a b -> (r (fst a) (fst b), q (snd a) (snd b)))
//	                                (\xs' ys' -> (f xs', g ys')) xs ys
//
// so that one traversal yields several results; a mean and a sum of
// squares become one reduction with a tuple accumulator. An nzip of tuple
// results is a tuple of arrays, so the first law changes no type. Elements
// that are not fused stay in the tuple; fused ones become projections of the
// shared product. Side condition: the outer extents agree (otherwise the
// rule refuses and says which differ). Both sides reduce in the same order,
// so the law is exact.
type Product struct{}

// Name implements Rule.
func (Product) Name() string { return "product" }

// Rewrite implements Rule.
func (r Product) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	t, ok := n.(*graph.Tuple)
	if !ok {
		return nil, ErrNoMatch
	}
	// Group the nzips and the rnzs by outer extent; fuse the first group
	// with two members.
	type member struct {
		index int
		node  graph.Node
	}
	groups := map[[2]int][]member{} // (kind, extent)
	var order [][2]int
	var refusal error
	for i, e := range t.Elems {
		kind, args := -1, []graph.Node(nil)
		switch e := e.(type) {
		case *graph.NZip:
			if graph.IsFunc(e) {
				continue
			}
			kind, args = 0, e.Args
		case *graph.RNZ:
			kind, args = 1, e.Args
		default:
			continue
		}
		at := c.TypeOf(args[0])
		if at == nil {
			continue
		}
		_, extent, err := graph.ElemType(at)
		if err != nil {
			continue
		}
		key := [2]int{kind, extent}
		if len(groups[key]) == 0 {
			order = append(order, key)
		}
		groups[key] = append(groups[key], member{i, e})
	}
	for _, key := range order {
		ms := groups[key]
		if len(ms) < 2 {
			continue
		}
		nodes := make([]graph.Node, len(ms))
		for k, m := range ms {
			nodes[k] = m.node
		}
		var fused graph.Node
		var err error
		if key[0] == 0 {
			fused, err = productNZip(nodes)
		} else {
			fused, err = productRNZ(nodes)
		}
		if err != nil {
			return nil, err
		}
		fused = keepSource(n, fused)
		if len(ms) == len(t.Elems) {
			return fused, nil
		}
		elems := append([]graph.Node(nil), t.Elems...)
		for k, m := range ms {
			p, err := graph.NewProj(k, fused)
			if err != nil {
				return nil, err
			}
			elems[m.index] = p
		}
		return graph.NewTuple(elems...)
	}
	// Same kind, different extents: say so, once per kind.
	for _, kind := range []int{0, 1} {
		var extents []int
		for _, key := range order {
			if key[0] == kind {
				extents = append(extents, key[1])
			}
		}
		if len(extents) > 1 {
			refusal = refuse(r, n, "the %s elements traverse different outer extents %v", map[int]string{0: "nzip", 1: "rnz"}[kind], extents)
		}
	}
	if refusal != nil {
		return nil, refusal
	}
	return nil, ErrNoMatch
}

// productFn returns \xs0' xs1' .. -> (f0 xs0', f1 xs1', ..) for the
// functions fns taking counts[k] arguments each.
func productFn(fns []graph.Node, counts []int) (graph.Node, error) {
	var params []*graph.Var
	elems := make([]graph.Node, len(fns))
	for k, f := range fns {
		args := make([]graph.Node, counts[k])
		for j := range args {
			v := graph.NewVar(paramName(f, j, "x"))
			params = append(params, v)
			args[j] = v
		}
		e, err := apply(f, args)
		if err != nil {
			return nil, err
		}
		elems[k] = e
	}
	body, err := graph.NewTuple(elems...)
	if err != nil {
		return nil, err
	}
	return graph.NewLambda(params, body)
}

func productNZip(nodes []graph.Node) (graph.Node, error) {
	fns := make([]graph.Node, len(nodes))
	counts := make([]int, len(nodes))
	var args []graph.Node
	for k, n := range nodes {
		z := n.(*graph.NZip)
		fns[k], counts[k] = z.Fn, len(z.Args)
		args = append(args, z.Args...)
	}
	fn, err := productFn(fns, counts)
	if err != nil {
		return nil, err
	}
	return graph.NewNZip(fn, args...)
}

func productRNZ(nodes []graph.Node) (graph.Node, error) {
	fns := make([]graph.Node, len(nodes))
	counts := make([]int, len(nodes))
	var args []graph.Node
	a, b := graph.NewVar("a"), graph.NewVar("b")
	reds := make([]graph.Node, len(nodes))
	for k, n := range nodes {
		z := n.(*graph.RNZ)
		fns[k], counts[k] = z.Fn, len(z.Args)
		args = append(args, z.Args...)
		pa, err := graph.NewProj(k, a)
		if err != nil {
			return nil, err
		}
		pb, err := graph.NewProj(k, b)
		if err != nil {
			return nil, err
		}
		if reds[k], err = apply(z.Red, []graph.Node{pa, pb}); err != nil {
			return nil, err
		}
	}
	fn, err := productFn(fns, counts)
	if err != nil {
		return nil, err
	}
	redBody, err := graph.NewTuple(reds...)
	if err != nil {
		return nil, err
	}
	red, err := graph.NewLambda([]*graph.Var{a, b}, redBody)
	if err != nil {
		return nil, err
	}
	return graph.NewRNZ(red, fn, args...)
}
