package autodiff

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

func TestZZPrint(t *testing.T) {
	p := parse(t, `X : f64[8,6]; W : f64[6,4]; b : f64[4]; T : f64[8,4];
		rnz (+) (\y t -> rnz (+) (\a c -> (a - c) * (a - c)) y t)
		  (map (\x -> zip (\c bj -> max (rnz (+) (*) x c + bj) 0) (flip 0 W) b) X) T`)
	g, err := Grad(p.Body, []*graph.Input{input(t, p, "W"), input(t, p, "b"), input(t, p, "X")})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(graph.Print(g))
	res, err := fusion.Fuse(g, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(res.Report)
	fmt.Println(res.Graph)
}
