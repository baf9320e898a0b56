package fusion

import "github.com/hofuse/hofuse/graph"

// NZipNZip is vertical fusion of a pipeline of zips:
//
//	nzip f xs<i (nzip g ys) xs>i  =  nzip (ncomp i f g) xs<i ys xs>i
//
// Side conditions: see guardProducer — a shared producer is fused only when
// recomputing it is cheaper than materialising it, and an array-valued
// element only when the consumer reads it once, outside inner lambdas.
type NZipNZip struct{}

// Name implements Rule.
func (NZipNZip) Name() string { return "nzip-nzip" }

// Rewrite implements Rule.
func (r NZipNZip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	z, ok := n.(*graph.NZip)
	if !ok || graph.IsFunc(z) {
		return nil, ErrNoMatch
	}
	i, p, err := fusableProducer(r, c, n, z.Fn, z.Args, nil)
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
