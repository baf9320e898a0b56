package graph_test

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// ExampleParse reads the matrix-vector product, checks it, evaluates it
// and prints it back.
func ExampleParse() {
	prog, err := graph.Parse(`
		A : f64[2,3];   -- a matrix of 2 rows
		u : f64[3];
		map (\r -> rnz (+) (*) r u) A`)
	if err != nil {
		fmt.Println(err)
		return
	}
	info, err := graph.Check(prog.Body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("type:", info.TypeOf(prog.Body))

	A, _ := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	u, _ := graph.FromFloat64([]float64{1, 0, -1}, 3)
	w, err := graph.Eval(prog.Body, map[string]graph.Value{"A": A, "u": u})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("value:", w)
	fmt.Println("term:", graph.Print(prog.Body))
	fmt.Println("program:", prog)

	_, err = graph.Parse("A : f64[2,3];\nmap (\\r -> rnz (+) (*) r v) A")
	fmt.Println("error:", err)
	// Output:
	// type: f64[2]
	// value: f64[2][-2 -2]
	// term: map (\r -> rnz (+) (*) r u) A
	// program: A : f64[2,3]; u : f64[3]; map (\r -> rnz (+) (*) r u) A
	// error: 2:26: undefined: v (declare it before the term, as in v : f64[...];)
}
