package native

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// sharedDest returns where to compute a term x that several elements of
// the tuple t project (fst x, snd x, ... of one node, as fusion leaves a
// tuple-valued map), t being written into dst: a tuple destination whose
// component j is dst's element i when t's element i is the only
// projection j of x (direct[i] is then set: x's component lands there,
// accumulated when dst accumulates, and needs no copy), and scratch for
// the other components. A reduction whose body is such a tuple (the
// sums of a BatchNorm's backward pass) then accumulates x's components
// straight into its accumulators instead of materialising x at every
// step and adding each component in a loop of its own.
func (c *compiler) sharedDest(t *graph.Tuple, x graph.Node, env *cenv, dst *cval) (*cval, map[int]bool, error) {
	typ, err := c.typeOf(x, env)
	if err != nil {
		return nil, nil, err
	}
	tt, ok := typ.(*graph.TupleType)
	if !ok {
		return nil, nil, fmt.Errorf("projection of a non-tuple")
	}
	count, at := make([]int, len(tt.Elems)), make([]int, len(tt.Elems))
	for i, e := range t.Elems {
		if p, ok := e.(*graph.Proj); ok && p.X == x && p.Index < len(count) {
			count[p.Index]++
			at[p.Index] = i
		}
	}
	d := &cval{kind: cvTuple}
	direct := map[int]bool{}
	for j, et := range tt.Elems {
		if count[j] == 1 && dst.elems[at[j]].kind == cvView && dst.elems[at[j]].vary == nil {
			d.elems = append(d.elems, dst.elems[at[j]])
			direct[at[j]] = true
			continue
		}
		s, err := c.scratch(et)
		if err != nil {
			return nil, nil, err
		}
		d.elems = append(d.elems, s)
	}
	return d, direct, nil
}
