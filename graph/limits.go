package graph

import (
	"fmt"
)

// Limits that keep any input, however large or hostile, from overflowing
// the stack, overflowing an int or exhausting memory. Each is enforced where
// the thing it limits is made: term depth by the node constructors and the
// parser, extents and element counts by Layout.Validate (and so by every
// type, input, array and declaration), memory by Eval, NewArray and the back
// ends' plans.
const (
	// MaxDepth is the deepest a term may nest: the number of nodes on the
	// longest path from a term down to a leaf (an input, literal, variable,
	// op or id has depth 1). The constructors refuse a node past it, and so
	// does the parser, so that every recursive pass over a term (Check,
	// Eval, Print, Rewrite, fusion and the back ends) stays far from the
	// Go stack's limit: measured, Check, Eval, Print, Parse and Fuse each
	// take 100,000 levels with Go's default 1 GB maximum stack, ten times
	// this limit. A long chain such as x + x + … + x is the usual way to
	// reach it; binding parts of it with let keeps each part shallow, since
	// a let adds one level to the deeper of its value and body.
	MaxDepth = 10000

	// MaxExtent is the largest extent of an array axis. It equals
	// MaxElements, so that flatten, which multiplies two extents of one
	// array, cannot leave the cap while the array stays within it.
	MaxExtent = MaxElements

	// MaxElements is the most elements an array may have, and the most a
	// layout's buffer may span (Layout.Span): 2^40. A byte count of such an
	// array (at most 8 bytes an element) fits an int64 with room to spare,
	// so sizes computed from a valid layout never overflow. Strides are
	// capped by it too.
	MaxElements = 1 << 40

	// DefaultMemoryLimit is the default cap, in bytes, on what one
	// evaluation or one compiled plan may allocate: 4 GiB. Eval uses it;
	// EvalLimit, NewArrayLimit and the back ends' options take another
	// (a command-line flag can raise it).
	DefaultMemoryLimit int64 = 4 << 30
)

// DepthError reports a term that nests deeper than MaxDepth.
type DepthError struct {
	What  string // the node being built, as "call +" or "lambda"
	Depth int    // the depth it would have
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("%s: the term would nest %d deep, past the limit of %d (graph.MaxDepth); bind parts of it with let",
		e.What, e.Depth, MaxDepth)
}

// Depth returns the depth of the term n: 1 for a leaf, one more than its
// deepest child otherwise. Terms made by the New* constructors know their
// depth, so Depth is constant time for them.
func Depth(n Node) int {
	if n == nil || isNilPtr(n) {
		return 0
	}
	if d := n.depthOf(); d > 0 {
		return int(d)
	}
	// A node made without its constructor (a struct literal) does not know
	// its depth: compute it, without recursion, from its children.
	return literalDepth(n)
}

// literalDepth computes the depth of a term whose nodes may lack a stored
// depth, with an explicit stack so that even a hand-built chain deeper
// than MaxDepth cannot overflow the Go stack.
func literalDepth(n Node) int {
	if len(Children(n)) == 0 {
		return 1
	}
	memo := map[Node]int{}
	type frame struct {
		n    Node
		kids []Node
		i    int
		max  int
	}
	stack := []*frame{{n: n, kids: Children(n)}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		if f.i < len(f.kids) {
			c := f.kids[f.i]
			f.i++
			if c == nil || isNilPtr(c) {
				continue
			}
			if d := c.depthOf(); d > 0 {
				f.max = max(f.max, int(d))
				continue
			}
			if d, ok := memo[c]; ok {
				f.max = max(f.max, d)
				continue
			}
			stack = append(stack, &frame{n: c, kids: Children(c)})
			continue
		}
		d := f.max + 1
		memo[f.n] = d
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			p := stack[len(stack)-1]
			p.max = max(p.max, d)
		}
	}
	return memo[n]
}

// CheckDepth returns a *DepthError when n nests deeper than MaxDepth. Terms
// made by the constructors never do; a caller that accepts terms built by
// hand calls it before walking one recursively.
func CheckDepth(n Node) error {
	if d := Depth(n); d > MaxDepth {
		return &DepthError{What: "term", Depth: d}
	}
	return nil
}

// depth1 returns the depth of a node over the given children, or a
// *DepthError naming the node when it would pass MaxDepth.
func depth1(what string, kids ...Node) (int32, error) {
	d := 0
	for _, k := range kids {
		d = max(d, Depth(k))
	}
	if d+1 > MaxDepth {
		return 0, &DepthError{What: what, Depth: d + 1}
	}
	return int32(d + 1), nil
}
