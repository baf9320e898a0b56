package fusion

import "github.com/hofuse/hofuse/graph"

// RNZNZip is vertical fusion of a zip into the reduction consuming it:
//
//	rnz r f xs<i (nzip g ys) xs>i  =  rnz r (ncomp i f g) xs<i ys xs>i
//
// Side conditions: as for NZipNZip; and the producer is not a matrix
// product — an nzip whose elements are rows of reductions, as a dense
// layer's map (\r -> map (\c -> rnz (+) (*) r c) C) X. Fused into a
// reduction it would run as one dot product at a time (reading C's
// columns at a stride) inside the reduction's loop; materialised, it runs
// as a GEMM. (A map consumer keeps it: there the consumer becomes the
// GEMM's epilogue.)
type RNZNZip struct{}

// Name implements Rule.
func (RNZNZip) Name() string { return "rnz-nzip" }

// Rewrite implements Rule.
func (r RNZNZip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	z, ok := n.(*graph.RNZ)
	if !ok {
		return nil, ErrNoMatch
	}
	i, p, err := fusableProducer(r, c, n, z.Fn, z.Args, func(p *graph.NZip) error {
		if rowsOfReductions(p) {
			return refuse(r, n, "the producer %s is a matrix product (each element a row of reductions); fused into a reduction it would run one dot product at a time, so it is materialised", graph.Abbrev(p, 40))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	fn, err := ncomp(i, len(z.Args), z.Fn, len(p.Args), p.Fn)
	if err != nil {
		return nil, err
	}
	out, err := graph.NewRNZ(z.Red, fn, splice(z.Args, i, p.Args)...)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}

// rowsOfReductions reports whether each element of the nzip p is computed
// by an nzip that runs a reduction per element: a row of dot products, as
// in a matrix product.
func rowsOfReductions(p *graph.NZip) bool {
	found := false
	graph.Inspect(p.Fn, func(n graph.Node) bool {
		if z, ok := n.(*graph.NZip); ok && !graph.IsFunc(z) {
			found = found || hasReduction(z.Fn)
		}
		return !found
	})
	return found
}
