package nd_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// TestTerms pins the terms the operations build, in the notation: the
// shapes the back ends and fusion are meant to see.
func TestTerms(t *testing.T) {
	x := f32In(t, "x", 3, 4)
	v := f32In(t, "v", 3)
	u := f32In(t, "u", 4)
	x3 := f32In(t, "t", 2, 3, 4)
	must := func(y graph.Node, err error) graph.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	for _, c := range []struct {
		name string
		y    graph.Node
		want string
	}{
		{"bias-row", must(nd.Binary(graph.Add, x, u)), `map (\a -> zip (\a1 b1 -> a1 + b1) a u) x`},
		// The column's unsqueeze (subdiv) and the broadcast's squeeze
		// (flatten) cancel: v is zipped with the rows as it is.
		{"unsqueeze-then-broadcast", must(nd.Binary(graph.Mul, x, must(nd.Unsqueeze(v, []int{1})))),
			`zip (\a b -> map (\a1 -> a1 * b) a) x v`},
		{"transpose-twice", must(nd.Transpose(must(nd.Transpose(x3, []int{1, 0, 2})), []int{1, 0, 2})), `t`},
		{"reduce-last", must(nd.Reduce(nd.Sum, x, []int{-1}, false)), `map (\e1 -> reduce (+) e1) x`},
		{"reduce-merged", must(nd.Reduce(nd.Max, x3, []int{1, 2}, false)), `map (\e1 -> reduce max e1) (flatten 1 t)`},
		{"matvec", must(nd.MatMul(x, u)), `map (\r -> rnz (+) (*) r u) x`},
		{"gemm-bias", must(nd.Gemm(x, f32In(t, "w", 4, 5), f32In(t, "b", 5), 1, 1, false, false)),
			`map (\r -> zip (\c p -> rnz (+) (*) r c + p) (flip 0 w) b) x`},
		{"argmax", must(nd.ArgMax(x, 1, false, false)),
			`map (\e1 -> let m = reduce max e1 in rnz min (\v i -> select (or (v == m) (v != v)) i 4) e1 nd.index.4) x`},
	} {
		if got := graph.Print(c.y); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
