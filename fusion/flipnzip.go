package fusion

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// FlipNZip moves a flip into an elementwise traversal when a flip chain
// below it then gets shorter:
//
//	flip a b (nzip f X1 .. Xn)  =  nzip f (flip a b X1) .. (flip a b Xn)
//
// The law holds when the traversal is a map at every level down to below
// max(a, b) (its depth, mapDepth): level after level, the function is an
// nzip over the parameters of the level above, each once, reading them
// nowhere else. A map of that depth computes each element from the
// elements at the same index of its arrays, so permuting axes of the
// result is permuting the same axes of every array.
//
// An imported NCHW network needs it. Each layer of a channels-first
// convolution or pooling reads flip 2 (flip 1 x), its image channels last,
// and gives flip 1 (flip 2 y), its result channels first; an activation
// between two layers maps over the channels-first view:
//
//	flip 2 (flip 1 (map (map (map (map relu))) (flip 1 (flip 2 y))))
//
// Moved in, the flips meet and flip-flip removes them all: the activation
// maps over y itself, and vertical fusion makes it the convolution's
// epilogue instead of a kernel that transposes y twice.
//
// Side conditions, so that the rule only shortens chains and never
// recomputes: the traversal has one consumer (the flip), a != b, and some
// array is helped (flipHelps): a flip chain whose permutation composed
// with flip a b takes fewer flips than the chain, or an elementwise
// traversal with one consumer, deep enough, one of whose arrays is helped.
// Each step moves a flip strictly inward, so the rule terminates.
type FlipNZip struct{}

// Name implements Rule.
func (FlipNZip) Name() string { return "flip-nzip" }

// Rewrite implements Rule.
func (FlipNZip) Rewrite(c *Context, n graph.Node) (graph.Node, error) {
	f, ok := n.(*graph.Flip)
	if !ok || f.Axis1 == f.Axis2 {
		return nil, ErrNoMatch
	}
	z, ok := flipsInto(c, f.Axis1, f.Axis2, f.X)
	if !ok {
		return nil, ErrNoMatch
	}
	if !slices.ContainsFunc(z.Args, func(x graph.Node) bool { return flipHelps(c, f.Axis1, f.Axis2, x) }) {
		return nil, ErrNoMatch
	}
	args := make([]graph.Node, len(z.Args))
	for i, x := range z.Args {
		nf, err := graph.NewFlip(f.Axis1, f.Axis2, x)
		if err != nil {
			return nil, err
		}
		args[i] = keepSource(n, nf)
	}
	out, err := graph.NewNZip(z.Fn, args...)
	if err != nil {
		return nil, err
	}
	return keepSource(z, out), nil
}

// mapDepth returns how many levels of n are maps in FlipNZip's sense:
// 0 for anything but a fully applied nzip; otherwise 1, plus the depth of
// its body when the body is an nzip over the parameters, each once, whose
// function does not read them.
func mapDepth(c *Context, n graph.Node) int {
	h, ok := asHOF(n)
	if !ok || h.isRNZ() {
		return 0
	}
	in, ok := asHOF(h.body)
	if !ok || in.isRNZ() || len(in.args) != len(h.params) {
		return 1
	}
	seen := make(map[*graph.Var]bool, len(h.params))
	for _, a := range in.args {
		v, ok := a.(*graph.Var)
		if !ok || !slices.Contains(h.params, v) || seen[v] {
			return 1
		}
		seen[v] = true
	}
	for _, p := range h.params {
		if k, _ := c.occurrences(in.body, p); k > 0 {
			return 1
		}
	}
	return 1 + mapDepth(c, h.body)
}

// flipHelps reports whether flip a b applied to x shortens a flip chain:
// x is a chain whose permutation composed with the flip takes fewer flips
// than x's chain, or an elementwise traversal with one consumer, at least
// max(a, b)+1 levels deep, one of whose arrays the flip helps.
func flipHelps(c *Context, a, b int, x graph.Node) bool {
	if f, ok := x.(*graph.Flip); ok {
		chain, _ := flipChain(f)
		perm := chainPerm(chain, max(a, b)+1)
		perm[a], perm[b] = perm[b], perm[a]
		return len(transpositions(perm)) < len(chain)
	}
	z, ok := flipsInto(c, a, b, x)
	return ok && slices.ContainsFunc(z.Args, func(y graph.Node) bool { return flipHelps(c, a, b, y) })
}

// flipsInto returns x as an nzip that flip a b may move into: fully
// applied, with one consumer, a map deeper than max(a, b).
func flipsInto(c *Context, a, b int, x graph.Node) (*graph.NZip, bool) {
	z, ok := x.(*graph.NZip)
	if !ok || graph.IsFunc(z) || c.Uses(z) != 1 || mapDepth(c, z) <= max(a, b) {
		return nil, false
	}
	return z, true
}
