package xla

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// A Fallback is a kernel of the graph given to Compile that the StableHLO
// lowering could not take whole, and what replaced it: the kernels of its
// unfused form (fusion.Unfused of its body), each lowered and compiled on
// its own.
type Fallback struct {
	Kernel string   // the fused kernel's name
	Reason string   // why the lowering rejected it: the lowering's error
	Pieces []string // the names of the kernels that replace it, in order
}

func (f Fallback) String() string {
	return fmt.Sprintf("kernel %s fell back to %d unfused kernels (%s): %s", f.Kernel, len(f.Pieces), strings.Join(f.Pieces, ", "), f.Reason)
}

// withFallbacks returns g with every kernel the StableHLO lowering rejects
// (stablehlo.ErrUnsupported) replaced by its unfused form, and the
// fallbacks it made. A kernel whose unfused form the lowering rejects too
// is an error that names the kernel and both reasons.
func withFallbacks(g *fusion.Graph) (*fusion.Graph, []Fallback, error) {
	var kernels []*fusion.Kernel
	var fbs []Fallback
	for _, k := range g.Kernels {
		_, err := stablehlo.LowerKernel(k)
		if err == nil {
			kernels = append(kernels, k)
			continue
		}
		if !errors.Is(err, stablehlo.ErrUnsupported) {
			return nil, nil, fmt.Errorf("xla: kernel %s: %w", k.Name, err)
		}
		pieces, perr := unfuse(k)
		if perr != nil {
			return nil, nil, fmt.Errorf("xla: kernel %s: %w; falling back to its unfused form failed too: %v", k.Name, err, perr)
		}
		fb := Fallback{Kernel: k.Name, Reason: err.Error()}
		for _, p := range pieces {
			fb.Pieces = append(fb.Pieces, p.Name)
		}
		kernels = append(kernels, pieces...)
		fbs = append(fbs, fb)
	}
	if fbs == nil {
		return g, nil, nil
	}
	return &fusion.Graph{Inputs: g.Inputs, Kernels: kernels, Result: g.Result}, fbs, nil
}

// unfuse returns the unfused form of k: the kernels of fusion.Unfused of
// its body, with the reduction operators the product rule paired split
// back into one per component, named after k, the last one writing k's
// output. Every piece must lower.
func unfuse(k *fusion.Kernel) ([]*fusion.Kernel, error) {
	body, err := splitReducers(k.Body)
	if err != nil {
		return nil, err
	}
	sub, err := fusion.Unfused(body)
	if err != nil {
		return nil, err
	}
	last := sub.Kernels[len(sub.Kernels)-1]
	if !graph.SameShape(last.Output.Type, k.Output.Type) {
		return nil, fmt.Errorf("the unfused form writes %v, the kernel %v", last.Output.Type, k.Output.Type)
	}
	var out []*fusion.Kernel
	for i, p := range sub.Kernels {
		piece := *p
		piece.Name = fmt.Sprintf("%s_%d_%s", k.Name, i+1, p.Name)
		if i == len(sub.Kernels)-1 {
			piece.Output = k.Output
		}
		if _, err := stablehlo.LowerKernel(&piece); err != nil {
			return nil, fmt.Errorf("piece %s: %w", piece.Name, err)
		}
		out = append(out, &piece)
	}
	if len(out) == 1 && graph.Print(out[0].Body) == graph.Print(k.Body) {
		return nil, errors.New("its unfused form is the kernel itself")
	}
	return out, nil
}

// splitReducers rewrites, in every reduction operator of n, a traversal
// that computes a tuple from projections of the two accumulators,
//
//	\p q -> nzip (\a b c d -> (f a b, g c d)) (fst p) (fst q) (snd p) (snd q)
//
// (the form the product rule gives a pair of lifted operators), into the
// tuple of one traversal per component,
//
//	\p q -> (nzip (\a b -> f a b) (fst p) (fst q), nzip (\c d -> g c d) (snd p) (snd q)),
//
// which is what the StableHLO lowering reads as one operator per
// component. The two are equal by the definition of nzip over tuples.
func splitReducers(n graph.Node) (graph.Node, error) {
	inRed := map[graph.Node]bool{}
	for m := range graph.All(n) {
		if r, ok := m.(*graph.RNZ); ok {
			for x := range graph.All(r.Red) {
				inRed[x] = true
			}
		}
	}
	if len(inRed) == 0 {
		return n, nil
	}
	split := map[graph.Node]graph.Node{}
	for m := range inRed {
		if s, ok := splitTupleNZip(m); ok {
			split[m] = s
		}
	}
	if len(split) == 0 {
		return n, nil
	}
	return graph.Rewrite(n, func(m graph.Node) (graph.Node, error) {
		// Rewrite rebuilds parents, so look the node up by what it was
		// built from: a split nzip has no changed children.
		if s, ok := split[m]; ok {
			return s, nil
		}
		return m, nil
	})
}

// splitTupleNZip splits nzip (\xs -> (e1, ..., ek)) args into
// (nzip (\xs1 -> e1) args1, ..., nzip (\xsk -> ek) argsk), each component
// over the parameters it uses, when every component uses one.
func splitTupleNZip(m graph.Node) (graph.Node, bool) {
	z, ok := m.(*graph.NZip)
	if !ok || len(z.Args) == 0 {
		return nil, false
	}
	lam, ok := z.Fn.(*graph.Lambda)
	if !ok || len(lam.Params) != len(z.Args) {
		return nil, false
	}
	tup, ok := lam.Body.(*graph.Tuple)
	if !ok || len(tup.Elems) < 2 {
		return nil, false
	}
	free := graph.FreeVarSets(lam.Body)
	elems := make([]graph.Node, len(tup.Elems))
	for i, e := range tup.Elems {
		var params []*graph.Var
		var args []graph.Node
		for j, p := range lam.Params {
			if slices.Contains(free[e], p) {
				params, args = append(params, p), append(args, z.Args[j])
			}
		}
		if len(params) == 0 {
			return nil, false
		}
		var f graph.Node = etaReduce(params, e)
		if f == nil {
			lam, err := graph.NewLambda(params, e)
			if err != nil {
				return nil, false
			}
			f = lam
		}
		var err error
		if elems[i], err = graph.NewNZip(f, args...); err != nil {
			return nil, false
		}
		// A component may pair components in turn (the product rule
		// applied to a nested tuple accumulator).
		if inner, ok := splitTupleNZip(elems[i]); ok {
			elems[i] = inner
		}
	}
	t, err := graph.NewTuple(elems...)
	if err != nil {
		return nil, false
	}
	// Each new lambda binds its own copies of the parameters.
	fresh, err := graph.Freshen(t)
	if err != nil {
		return nil, false
	}
	return fresh, true
}

// etaReduce returns the function g when body applies g to params in order
// and g uses none of them: an op (x + y is (+)) or a lifted op
// (zip (+) a b is zip (+)); otherwise nil. The lowering reads a lifted
// operator in that form.
func etaReduce(params []*graph.Var, body graph.Node) graph.Node {
	var fn graph.Node
	var args []graph.Node
	switch b := body.(type) {
	case *graph.Call:
		f, err := graph.NewOpRef(b.Op)
		if err != nil {
			return nil
		}
		fn, args = f, b.Args
	case *graph.NZip:
		if len(b.Args) == 0 {
			return nil
		}
		for _, v := range graph.FreeVars(b.Fn) {
			if slices.Contains(params, v) {
				return nil
			}
		}
		f, err := graph.NewNZip(b.Fn)
		if err != nil {
			return nil
		}
		fn, args = f, b.Args
	default:
		return nil
	}
	if len(args) != len(params) {
		return nil
	}
	for i, a := range args {
		if a != graph.Node(params[i]) {
			return nil
		}
	}
	return fn
}
