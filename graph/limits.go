package graph

import (
	"fmt"
	"math"
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
	// Go stack's limit: measured on chains of additions, negations and
	// lets this deep, Parse, Check, Eval, Print, Fuse, the native plan and
	// the StableHLO lowering together run within 64 MB of stack, a
	// sixteenth of Go's default 1 GB maximum. A long chain such as
	// x + x + … + x is the usual way to reach the limit; binding parts of
	// it with let keeps each part shallow, since a let adds one level to
	// the deeper of its value and body.
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

// MemoryError reports an allocation past a memory limit: what would be
// allocated, the bytes it needs, the limit, and the option that raises it.
type MemoryError struct {
	What  string // what needs the memory, as "array f32[100000000000]"
	Bytes int64  // the bytes it needs
	Limit int64  // the limit in force
	Raise string // the option that raises the limit, as "graph.EvalOptions.MaxMemory"
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s needs %d bytes, past the memory limit of %d bytes; raise %s", e.What, e.Bytes, e.Limit, e.Raise)
}

// memoryLimit returns limit, or DefaultMemoryLimit when limit is 0 or less.
func memoryLimit(limit int64) int64 {
	if limit <= 0 {
		return DefaultMemoryLimit
	}
	return limit
}

// AddBytes returns a+b for byte counts, saturating at math.MaxInt64
// instead of overflowing. Both must be at least 0.
func AddBytes(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// MulBytes returns a*b for byte counts, saturating at math.MaxInt64
// instead of overflowing. Both must be at least 0.
func MulBytes(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// TypeBytes is the memory a value of type t takes: for an array, its
// elements times the element size (a view's buffer may span more; see
// LayoutBytes); for a scalar, the element size; for a tuple, the sum. It
// saturates at math.MaxInt64, so it is safe on types no one validated.
func TypeBytes(t Type) int64 {
	switch t := t.(type) {
	case *ScalarType:
		return int64(t.DType.Size())
	case *ArrayType:
		n := int64(t.DType.Size())
		for _, a := range t.Layout {
			n = MulBytes(n, int64(max(a.Extent, 0)))
		}
		return n
	case *TupleType:
		var n int64
		for _, e := range t.Elems {
			n = AddBytes(n, TypeBytes(e))
		}
		return n
	}
	return 0
}

// LayoutBytes is the size of the buffer NewArray allocates for an array of
// element type dt and layout l: its Span times the element size. l must be
// valid (Layout.Validate).
func LayoutBytes(dt DType, l Layout) int64 {
	return int64(l.Span()) * int64(dt.Size())
}

// checkArrayMemory refuses an array of element type dt and the valid
// layout l whose buffer would pass limit.
func checkArrayMemory(dt DType, l Layout, limit int64, raise string) error {
	if need := LayoutBytes(dt, l); need > limit {
		return &MemoryError{What: "array " + (&ArrayType{DType: dt, Layout: l}).String(), Bytes: need, Limit: limit, Raise: raise}
	}
	return nil
}

// EvalBytes estimates, from the types Check inferred, the most memory Eval
// of the checked term allocates: the inputs twice (once as generated or
// given, once for a copy into the declared layout), every value term's
// type once (a view counts as if it were a copy), and for every nzip its
// result again plus evalValueOverhead bytes an element, for the results
// it holds before stacking them. It is an upper bound for the interpreter
// in this package, not an exact count; Go's own overheads (garbage not yet
// collected) come on top.
func EvalBytes(info *Info) int64 {
	var n int64
	for _, in := range info.Inputs {
		n = AddBytes(n, MulBytes(2, TypeBytes(in.Type)))
	}
	for node, t := range info.Types {
		if _, ok := node.(*Input); ok {
			continue
		}
		b := TypeBytes(t)
		n = AddBytes(n, b)
		if _, ok := node.(*NZip); ok {
			n = AddBytes(n, b)
			n = AddBytes(n, MulBytes(evalValueOverhead, outerElems(t)))
		}
	}
	return n
}

// evalValueOverhead bounds what the interpreter holds for each element
// result of an nzip besides its data: an interface value and a boxed
// scalar or array header.
const evalValueOverhead = 128

// outerElems is the outer extent of an array type, or the sum of those of
// a tuple's arrays.
func outerElems(t Type) int64 {
	switch t := t.(type) {
	case *ArrayType:
		if len(t.Layout) > 0 {
			return int64(max(t.Layout[0].Extent, 0))
		}
	case *TupleType:
		var n int64
		for _, e := range t.Elems {
			n = AddBytes(n, outerElems(e))
		}
		return n
	}
	return 0
}

// checkEvalMemory refuses a checked term whose evaluation EvalBytes
// estimates past limit, naming the largest value it would hold.
func checkEvalMemory(n Node, info *Info, limit int64) error {
	need := EvalBytes(info)
	if need <= limit {
		return nil
	}
	var big Type
	var bigBytes int64 = -1
	what := ""
	for _, in := range info.Inputs {
		if b := TypeBytes(in.Type); b > bigBytes {
			big, bigBytes, what = in.Type, b, "input "+in.Name
		}
	}
	for m, t := range info.Types {
		if _, ok := m.(*Input); ok {
			continue
		}
		b := TypeBytes(t)
		// Inputs win ties; among values the type that sorts first does, so
		// that the message does not depend on map order.
		if b > bigBytes || b == bigBytes && what == "a value" && t.String() < big.String() {
			big, bigBytes, what = t, b, "a value"
		}
	}
	return &MemoryError{What: fmt.Sprintf("eval of %s (largest: %s %v)", Abbrev(n, 60), what, big),
		Bytes: need, Limit: limit, Raise: "graph.EvalOptions.MaxMemory"}
}
