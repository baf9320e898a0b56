package graphtest_test

import (
	"fmt"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// A law test evaluates a program before and after a rewrite and compares
// within the project's tolerance. Here the rewrite is the whole fusion
// pipeline, fusion.Fuse, on random matrix-vector products: the kernel
// graph it makes must compute what the term computes.
func Example() {
	for seed := range uint64(3) {
		r := graphtest.Rand(seed)
		n, ins := graphtest.MatVec(r, graphtest.Config{MaxExtent: 6, DType: graph.Float32})
		in := graphtest.Inputs(r, ins)
		want, err := graph.Eval(n, in)
		if err != nil {
			panic(err)
		}
		res, err := fusion.Fuse(n, fusion.Options{})
		if err != nil {
			panic(err)
		}
		got, err := res.Graph.Eval(in)
		if err != nil {
			panic(err)
		}
		fmt.Println(graph.Print(n), ins[0].Type, len(res.Graph.Kernels), "kernel(s):", graph.Diff(want, got, graph.Tolerance(graph.Float32)))
	}
	// Output:
	// map (\r -> rnz (+) (*) r x1) x0 f32[5,6] 1 kernel(s): <nil>
	// map (\r -> rnz (+) (*) r x1) (flip 0 x0) f32[6,6] 1 kernel(s): <nil>
	// map (\r -> rnz (+) (\a b -> a * b) r x1) x0 f32[1,3] 1 kernel(s): <nil>
}

// Shrink reduces a failing program to a small one. Here the "bug" is a
// planted one: an evaluator that gets every max reduction wrong. The
// predicate compares it with graph.Eval; the shrunk program is the
// smallest one that still shows the difference.
func ExampleShrink() {
	broken := func(c graphtest.Case) (graph.Value, error) {
		// The planted bug: reduce max is computed as reduce min.
		term, err := graph.Rewrite(c.Term, func(n graph.Node) (graph.Node, error) {
			if op, ok := n.(*graph.OpRef); ok && op.Op == graph.Max {
				return graph.NewOpRef(graph.Min)
			}
			return n, nil
		})
		if err != nil {
			return nil, err
		}
		return graph.Eval(term, c.Inputs)
	}
	fails := func(c graphtest.Case) bool {
		want, err := graph.Eval(c.Term, c.Inputs)
		if err != nil {
			return false
		}
		got, err := broken(c)
		return err == nil && graph.Diff(want, got, 0) != nil
	}
	for seed := uint64(0); ; seed++ {
		r := graphtest.Rand(seed)
		n, ins := graphtest.Program(r, graphtest.Config{})
		c := graphtest.Case{Term: n, Inputs: graphtest.Inputs(r, ins)}
		if !fails(c) {
			continue
		}
		small := graphtest.Shrink(c, fails)
		fmt.Println(graph.Print(small.Term))
		break
	}
	// Output:
	// reduce (zip max) x21
}

// ProductPair's (map f x, rnz r g x) over one shared x, beside another
// term in a tuple.
func ExampleKinds() {
	n, _ := graphtest.ProductPair(graphtest.Rand(30), graphtest.Config{})
	fmt.Println(graph.Print(n))
	fmt.Println(graphtest.Kinds(n))
	// Output:
	// let t1 = map (\x -> x * x) x0 in ((map logistic t1, rnz (\a b -> min a b) (*0.5) t1), rnz (\p q -> (fst p + fst q, snd p + snd q)) (\x y -> (rsqrt (1 + y * y), x)) x1 x1)
	// reduce|tuple-reduce|max-min|tuples|share|section|op-fn|app
}
