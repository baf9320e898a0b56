package graphtest_test

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// A law test evaluates a program before and after a rewrite and compares.
// Here the "rewrite" is the identity rewrite of graph.Rewrite, which must
// leave the value alone.
func Example() {
	for seed := range uint64(3) {
		r := graphtest.Rand(seed)
		n, ins := graphtest.MatVec(r, graphtest.Config{MaxExtent: 6})
		in := graphtest.Inputs(r, ins)
		want, err := graph.Eval(n, in)
		if err != nil {
			panic(err)
		}
		after, err := graph.Rewrite(n, func(m graph.Node) (graph.Node, error) { return m, nil })
		if err != nil {
			panic(err)
		}
		got, err := graph.Eval(after, in)
		if err != nil {
			panic(err)
		}
		fmt.Println(graph.Print(n), ins[0].Type, graph.Diff(want, got, 0))
	}
	// Output:
	// map (\r -> rnz (+) (*) r x1) x0 f64[5,6] <nil>
	// map (\r -> rnz (+) (*) r x1) (flip 0 x0) f64[6,6] <nil>
	// map (\r -> rnz (+) (\a b -> a * b) r x1) x0 f64[1,3] <nil>
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
