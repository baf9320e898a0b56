package fusion

import "github.com/hofuse/hofuse/graph"

// RNZNZip is vertical fusion of a zip into the reduction consuming it:
//
//	rnz r f xs<i (nzip g ys) xs>i  =  rnz r (ncomp i f g) xs<i ys xs>i
//
// Side conditions: as for NZipNZip.
type RNZNZip struct{}

// Name implements Rule.
func (RNZNZip) Name() string { return "rnz-nzip" }

// Rewrite implements Rule.
func (r RNZNZip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	z, ok := n.(*graph.RNZ)
	if !ok {
		return nil, ErrNoMatch
	}
	i, p, err := fusableProducer(r, c, n, z.Fn, z.Args)
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
