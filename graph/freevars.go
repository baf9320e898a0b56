package graph

import "slices"

// FreeVarCache answers FreeVars for many subterms of one or more terms,
// computing each node's set once: asking about every node of a term costs
// time linear in the term, where calling FreeVars for each would be
// quadratic. Nodes are immutable, so a set never goes stale. The zero
// value is ready to use; a cache is not safe for concurrent use.
type FreeVarCache struct {
	sets map[Node][]*Var
}

// Of returns the free variables of n, as FreeVars does. The caller must
// not modify the slice.
func (c *FreeVarCache) Of(n Node) []*Var {
	if fv, ok := c.sets[n]; ok {
		return fv
	}
	if c.sets == nil {
		c.sets = map[Node][]*Var{}
	}
	// The recursion is as deep as the term, which the constructors bound
	// by MaxDepth.
	fv := freeOf(n, c.Of)
	c.sets[n] = fv
	return fv
}

// freeOf returns the free variables of n given those of its children, in
// order of first use.
func freeOf(n Node, of func(Node) []*Var) []*Var {
	var fv []*Var
	// in indexes fv once it is long, so that a node with many free
	// variables (the body of a lambda of many parameters) costs time linear
	// in their number, not quadratic.
	var in map[*Var]bool
	add := func(vs []*Var, bound ...*Var) {
		var isBound map[*Var]bool
		if len(bound) > 16 {
			isBound = make(map[*Var]bool, len(bound))
			for _, b := range bound {
				isBound[b] = true
			}
		}
		for _, v := range vs {
			if isBound != nil && isBound[v] || isBound == nil && slices.Contains(bound, v) {
				continue
			}
			if in == nil && len(fv) >= 16 {
				in = make(map[*Var]bool, 2*len(fv))
				for _, w := range fv {
					in[w] = true
				}
			}
			if in != nil {
				if !in[v] {
					in[v] = true
					fv = append(fv, v)
				}
			} else if !slices.Contains(fv, v) {
				fv = append(fv, v)
			}
		}
	}
	switch n := n.(type) {
	case *Var:
		fv = []*Var{n}
	case *Lambda:
		add(of(n.Body), n.Params...)
	case *Let:
		add(of(n.Value))
		add(of(n.Body), n.Var)
	default:
		for _, c := range Children(n) {
			add(of(c))
		}
	}
	return fv
}
