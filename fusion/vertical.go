package fusion

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// fusableProducer returns the first argument of args that is a fully
// applied nzip the policy lets the consumer n (applying fn) fuse, and its
// index. A producer the policy refuses does not hide the ones after it (a
// shared matrix product first, a cheap broadcast of a statistic third).
// It returns ErrNoMatch when no argument is an nzip, and the first
// producer's refusal when the policy refuses them all. A rule with a side
// condition of its own passes it as also (nil for none), checked first.
func fusableProducer(rule Rule, c *Context, n, fn graph.Node, args []graph.Node, also func(*graph.NZip) error) (int, *graph.NZip, error) {
	var first error
	for i, a := range args {
		z, ok := a.(*graph.NZip)
		if !ok || graph.IsFunc(z) {
			continue
		}
		var err error
		if also != nil {
			err = also(z)
		}
		if err == nil {
			err = guardProducer(rule, c, n, fn, i, z)
		}
		if err == nil {
			return i, z, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = ErrNoMatch
	}
	return -1, nil, first
}

// guardProducer checks the fusion policy for composing the producer nzip p,
// argument i of a consumer applying fn, into the consumer:
//
//   - A producer with several consumers is fused only when recomputing it
//     costs no more than materialising it: its function is a short scalar
//     expression (no inner higher-order function), and the extra operations
//     do not exceed the bytes a materialised copy would write and read.
//   - A producer whose elements are arrays is fused when the consumer's
//     function uses the element once and not inside an inner lambda, or when
//     the producer is cheap (see cheapProducer); otherwise every iteration
//     of that inner function would recompute it. (This is what keeps a dense
//     layer's GEMM out of the next layer's inner loop: the row it produces
//     is read by every column of the next weight matrix.)
//   - A consumer that reads its element through a window view (a
//     convolution or a pooling of each image) takes a producer with a
//     reduction never, and one that is not cheap only when the windows do
//     not overlap (a pooling of stride its width reads each element
//     once). Fused, the image a convolution computes would be computed
//     inside its consumer's loops over the windows, a whole stack of
//     convolutions and poolings inside the last one's; materialised, each
//     convolution is a GEMM of its own, its epilogue (bias, BatchNorm,
//     activation) fused, and the pooling reads it once. Likewise a
//     consumer that reduces its element (a global average pooling of each
//     image) takes no producer with a reduction: inside the reduction,
//     the convolution would run one dot product at a time.
func guardProducer(rule Rule, c *Context, consumer graph.Node, fn graph.Node, i int, p *graph.NZip) error {
	t := c.TypeOf(p)
	if t == nil {
		return fmt.Errorf("%s: no type for %s", rule.Name(), graph.Abbrev(p, 40))
	}
	elem, extent, err := graph.ElemType(t)
	if err != nil {
		return err
	}
	if u := c.Uses(p); u > 1 {
		ops, hofs := workPerElement(p.Fn)
		recompute := (u - 1) * ops * extent
		materialise := (1 + u) * graph.Bytes(t)
		if hofs > 0 || recompute > materialise {
			return refuse(rule, consumer, "the producer %s has %d consumers; recomputing it (%s) costs more than materialising %d bytes",
				graph.Abbrev(p, 40), u, describeWork(ops, hofs, extent), graph.Bytes(t))
		}
	}
	if _, isScalar := elem.(*graph.ScalarType); isScalar {
		return nil
	}
	l, ok := fn.(*graph.Lambda)
	if !ok {
		return nil // an op, a section or a partial nzip uses each argument once, directly
	}
	count, under := occurrences(l.Body, l.Params[i])
	if count > 1 && !under && !rowsOfReductions(p) {
		// Read several times, but each time whole, by the consumer's
		// own higher-order functions (the sum and the quotient of a
		// softmax row): composed, the element is bound by a let
		// (betaReduce) and computed once per iteration, into a row the
		// consumer rereads from cache instead of from memory.
		return nil
	}
	if win, overlap := readsWindows(l.Body, l.Params[i]); win && !cheapProducer(p) {
		switch {
		case hasReduction(p.Fn):
			return refuse(rule, consumer, "the consumer reads the producer's element (%v) through a window view, and computing it takes a reduction; fused, it would be computed inside the loops over the windows, so it is materialised", elem)
		case overlap:
			return refuse(rule, consumer, "the consumer reads the producer's element (%v) through overlapping windows, each element once per window that covers it, and computing it takes more than %d operations; fusing would recompute it, so it is materialised", elem, maxInnerOps)
		}
	}
	if (count > 1 || under) && !cheapProducer(p) {
		where := ""
		if under {
			where = " inside an inner higher-order function"
		}
		return refuse(rule, consumer, "the consumer reads the producer's element (%v) %s%s, and computing it takes a reduction or costly operations; fusing would recompute it, so it is materialised",
			elem, times(count), where)
	}
	if hasReduction(p.Fn) && reducesParam(l.Body, l.Params[i]) {
		return refuse(rule, consumer, "the consumer reduces the producer's element (%v), and computing it takes a reduction; fused, the producer's reductions would run inside the consumer's, one at a time, so it is materialised", elem)
	}
	return nil
}

// cheapProducer reports whether recomputing an element of the nzip p
// wherever it is used costs less than a pass over memory: it reads only
// inputs or views of them (not another computation, which it should fuse
// with first), and its function runs no reduction and at most maxInnerOps
// arithmetic operations (add, sub, mul, div, neg, min, max, abs, select,
// comparisons). Such a producer is fused even into the inner loop of a
// contraction, as in the paper's C_ik = Σ_j A_ij B_jk g_j, where scaling by
// g_j becomes one more multiply in the dot product instead of a scaled copy
// of A.
func cheapProducer(p *graph.NZip) bool {
	for _, a := range p.Args {
		if !trivial(a) {
			return false
		}
	}
	ops, cheap := 0, true
	graph.Inspect(p.Fn, func(n graph.Node) bool {
		switch n := n.(type) {
		case *graph.RNZ:
			cheap = false
		case *graph.Call:
			ops++
			cheap = cheap && arithmetic(n.Op)
		case *graph.OpRef:
			ops++
			cheap = cheap && arithmetic(n.Op)
		case *graph.Section:
			ops++
			cheap = cheap && arithmetic(n.Op)
		}
		return cheap && ops <= maxInnerOps // past that, no need to look further
	})
	return cheap && ops <= maxInnerOps
}

// maxInnerOps bounds the arithmetic a producer may add to every iteration of
// a consumer's inner loop.
const maxInnerOps = 2

func arithmetic(op graph.Op) bool {
	switch op {
	case graph.Add, graph.Sub, graph.Mul, graph.Div, graph.Neg, graph.Min, graph.Max, graph.Abs, graph.Select, graph.StopGrad,
		graph.Lt, graph.Le, graph.Gt, graph.Ge, graph.Eq, graph.Ne:
		return true
	}
	return false
}

// times says "once", "twice" or "N times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// workPerElement counts the scalar operations a function term performs per
// application, and the higher-order functions it runs. A subterm shared on
// several paths counts once per path, but is looked at once: the counts
// saturate at maxWork.
func workPerElement(fn graph.Node) (ops, hofs int) {
	type work struct{ ops, hofs int }
	const maxWork = 1 << 30
	memo := map[graph.Node]work{}
	var count func(graph.Node) work
	count = func(n graph.Node) work {
		if w, ok := memo[n]; ok {
			return w
		}
		var w work
		switch n.(type) {
		case *graph.Call, *graph.OpRef, *graph.Section:
			w.ops = 1
		case *graph.NZip, *graph.RNZ:
			w.hofs = 1
		}
		for _, c := range graph.Children(n) {
			k := count(c)
			w.ops, w.hofs = min(w.ops+k.ops, maxWork), min(w.hofs+k.hofs, maxWork)
		}
		memo[n] = w
		return w
	}
	w := count(fn)
	return w.ops, w.hofs
}

func describeWork(ops, hofs, extent int) string {
	if hofs > 0 {
		return fmt.Sprintf("%d inner higher-order functions per element", hofs)
	}
	return fmt.Sprintf("%d operations per element over %d elements", ops, extent)
}

// splice returns args with args[i] replaced by with.
func splice(args []graph.Node, i int, with []graph.Node) []graph.Node {
	out := make([]graph.Node, 0, len(args)-1+len(with))
	out = append(out, args[:i]...)
	out = append(out, with...)
	return append(out, args[i+1:]...)
}

// readsWindows reports whether body reads p through a window view, and
// whether one of those views may show an element of p in several windows
// (one wider than its stride, or dilated).
func readsWindows(body graph.Node, p *graph.Var) (windowed, overlapping bool) {
	graph.Inspect(body, func(n graph.Node) bool {
		v, ok := n.(*graph.ViewOp)
		if !ok {
			return true
		}
		if w, ok := v.V.(graph.WindowView); ok && rootedAt(n, p) {
			windowed = true
			overlapping = overlapping || w.Width > 1 && (w.Dilation != 1 || w.Stride < w.Width)
		}
		return true
	})
	return windowed, overlapping
}

// hasReduction reports whether fn runs an rnz.
func hasReduction(fn graph.Node) bool {
	found := false
	graph.Inspect(fn, func(n graph.Node) bool {
		found = found || isRNZ(n)
		return !found
	})
	return found
}

// reducesParam reports whether body reads p inside the arrays an rnz
// traverses: p, a view of it, or a traversal of it.
func reducesParam(body graph.Node, p *graph.Var) bool {
	found := false
	graph.Inspect(body, func(n graph.Node) bool {
		if z, ok := n.(*graph.RNZ); ok && !found {
			found = slices.ContainsFunc(z.Args, func(a graph.Node) bool {
				k, _ := occurrences(a, p)
				return k > 0
			})
		}
		return !found
	})
	return found
}
