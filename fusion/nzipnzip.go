package fusion

import "github.com/hofuse/hofuse/graph"

// NZipNZip is vertical fusion of a pipeline of zips:
//
//	nzip f xs<i (nzip g ys) xs>i  =  nzip (ncomp i f g) xs<i ys xs>i
//
// Side conditions: see guardProducer — a shared producer is fused only when
// recomputing it is cheaper than materialising it, and an array-valued
// element only when the consumer reads it once, outside inner lambdas.
// A matrix product (a producer whose elements are rows of reductions) is
// fused only into a consumer with one result: the back ends run it as a
// GEMM whose epilogue writes one array, and a consumer with a tuple of
// results (an optimizer's update of a weight and its moments, reading the
// weight gradient) would leave the product running one dot product at a
// time; materialised, it runs as a GEMM and the consumer reads it. Nor is
// a convolution fused into a consumer that traverses other arrays beside
// it (a residual connection's add): the back ends give a convolution an
// epilogue of per-channel operands (bias, BatchNorm, activation), and the
// fused nest of several images would leave it to the generic loops.
type NZipNZip struct{}

// Name implements Rule.
func (NZipNZip) Name() string { return "nzip-nzip" }

// Rewrite implements Rule.
func (r NZipNZip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	z, ok := n.(*graph.NZip)
	if !ok || graph.IsFunc(z) {
		return nil, ErrNoMatch
	}
	i, p, err := fusableProducer(r, c, n, z.Fn, z.Args, func(p *graph.NZip) error {
		if _, tuple := c.TypeOf(n).(*graph.TupleType); tuple && rowsOfReductions(p) {
			return refuse(r, n, "the producer %s is a matrix product and the consumer has a tuple of results; a matrix product runs as a GEMM with one result, so it is materialised", graph.Abbrev(p, 40))
		}
		if len(z.Args) > 1 && isConvolution(p) {
			return refuse(r, n, "the producer %s is a convolution and the consumer traverses %d arrays beside it (a residual added); the back ends run a convolution's epilogue on per-channel operands only, so it is materialised", graph.Abbrev(p, 40), len(z.Args)-1)
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
	out, err := graph.NewNZip(fn, splice(z.Args, i, p.Args)...)
	if err != nil {
		return nil, err
	}
	return keepSource(n, out), nil
}

// isConvolution reports whether p's function reads its element through a
// window view and runs a reduction: a convolution over each image.
func isConvolution(p *graph.NZip) bool {
	h, ok := asHOF(p)
	if !ok || !hasReduction(p.Fn) {
		return false
	}
	for _, q := range h.params {
		if win, _ := readsWindows(h.body, q); win {
			return true
		}
	}
	return false
}
