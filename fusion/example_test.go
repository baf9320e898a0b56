package fusion_test

import (
	"fmt"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// Fuse the paper's eq. 2, C_ik = Σ_j A_ij B_jk g_j, written with a scaled
// copy of A: the scaling becomes one more factor in the dot product.
func ExampleFuse() {
	prog, err := graph.Parse(`A : f64[4,6]; B : f64[6,5]; g : f64[6];
		map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) (map (\r -> zip (*) r g) A)`)
	if err != nil {
		panic(err)
	}
	res, err := fusion.Fuse(prog.Body, fusion.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Report.KernelsBefore, "kernels before,", res.Report.KernelsAfter, "after")
	fmt.Println(res.Report.Kernels[0].Term)
	// Output:
	// 2 kernels before, 1 after
	// map (\r -> map (\c -> rnz (+) (\y0 y1 x1 -> y0 * y1 * x1) r g c) (flip 0 B)) A
}

// Enumerate the six loop orders of the naive matrix product (the paper's
// Table 1) by exchanges of neighbouring loops.
func ExampleSearch() {
	prog, err := graph.Parse(`A : f64[4,6]; B : f64[6,5]; map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`)
	if err != nil {
		panic(err)
	}
	scheds, err := fusion.Search(prog.Body, fusion.SearchOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range scheds {
		fmt.Println(s.Key())
	}
	// Output:
	// mapA mapB rnz
	// mapA rnz mapB
	// rnz mapA mapB
	// rnz mapB mapA
	// mapB rnz mapA
	// mapB mapA rnz
}
