package main

import (
	"fmt"
	"io"

	"github.com/hofuse/hofuse/graph"
)

// slowInterpOps is the estimated number of scalar operations above which
// eval on the interpreter says it is the slow oracle: the interpreter does
// a few million a second, so above this a run takes a noticeable time.
const slowInterpOps = 1e6

// estimateOps estimates the scalar operations the interpreter performs to
// evaluate n: each scalar op, section and reducer step counted once per
// time it runs, a function given to nzip or rnz running once per element of
// the outer axis of its first array. It is a rough count (a function value
// applied elsewhere counts once), enough to tell a large program.
func estimateOps(n graph.Node, types map[graph.Node]graph.Type) float64 {
	var walk func(n graph.Node, mult float64) float64
	outer := func(args []graph.Node) float64 {
		if len(args) == 0 {
			return 1
		}
		if t, ok := types[args[0]].(*graph.ArrayType); ok {
			if ext := t.Layout.Extents(); len(ext) > 0 {
				return float64(ext[0])
			}
		}
		return 1
	}
	walk = func(n graph.Node, mult float64) float64 {
		var sum float64
		switch n := n.(type) {
		case *graph.NZip:
			for _, a := range n.Args {
				sum += walk(a, mult)
			}
			return sum + walk(n.Fn, mult*outer(n.Args))
		case *graph.RNZ:
			for _, a := range n.Args {
				sum += walk(a, mult)
			}
			k := mult * outer(n.Args)
			return sum + walk(n.Fn, k) + max(1, walk(n.Red, k))
		case *graph.Call:
			sum = mult
		case *graph.OpRef, *graph.Section:
			return mult
		}
		for _, c := range graph.Children(n) {
			sum += walk(c, mult)
		}
		return sum
	}
	return walk(n, 1)
}

// noteSlowInterp writes, when the program is large, a one-line note that
// the interpreter is the slow oracle and how to run the program fast.
func noteSlowInterp(stderr io.Writer, body graph.Node, types map[graph.Node]graph.Type) {
	if ops := estimateOps(body, types); ops > slowInterpOps {
		fmt.Fprintf(stderr, "note: about %.2g scalar operations on the reference interpreter, the slow oracle; "+
			"add --backend native to run the same program fused on the native back end, fast\n", ops)
	}
}
