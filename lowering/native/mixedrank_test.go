package native_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestMixedRankTupleArgument guards issue 8 item 1: an nzip argument that
// is a tuple whose elements have different ranks. The element of the
// higher-rank component is an array read through a register the loop
// sets; it used to count as loop-invariant, so a reduction over it was
// computed once and every row got the first row's value ([6 6 6]).
// Z = 1..9 row-major; the row sums of Z are 6, 15, 24 and of W (= 10*Z)
// 60, 150, 240; a = (1, 2, 3); Y = (100, 200, 300); V = 1..12, whose
// row i is [[4i+1, 4i+2], [4i+3, 4i+4]]: the column maxima of row i are
// 4i+3 and 4i+4. Expected values are
// worked out by hand from those.
func TestMixedRankTupleArgument(t *testing.T) {
	const decls = "a : f64[3]; b : f64[3]; Y : f64[3,1,1]; Z : f64[3,3]; W : f64[3,3]; V : f64[3,2,2]; "
	cases := []struct {
		name, term string
		want       []float64
	}{
		{"zip-snd", `zip (\x p -> reduce (+) (snd p)) a (Y, Z)`, []float64{6, 15, 24}},
		{"zip-fst", `zip (\x p -> reduce (+) (fst p)) a (Z, Y)`, []float64{6, 15, 24}},
		{"zip-snd-uses-x", `zip (\x p -> x * reduce (+) (snd p)) a (Y, Z)`, []float64{6, 30, 72}},
		{"map-snd", `map (\p -> reduce (+) (snd p)) (Y, Z)`, []float64{6, 15, 24}},
		{"map-max", `map (\p -> reduce max (snd p)) (Y, Z)`, []float64{3, 6, 9}},
		{"map-both", `map (\p -> reduce (+) (snd p) + reduce (+) (map (\r -> reduce (+) r) (fst p))) (Y, Z)`,
			[]float64{106, 215, 324}},
		{"tuple-of-three", `map (\p -> reduce (+) (proj 2 p) - reduce (+) (snd p) + fst p) (a, Z, W)`,
			[]float64{1 + 60 - 6, 2 + 150 - 15, 3 + 240 - 24}},
		{"nested-tuples", `zip (\x p -> reduce (+) (snd (fst p)) * snd p) a ((Y, Z), b)`,
			[]float64{6 * 7, 15 * 8, 24 * 9}},
		{"view-of-element", `zip (\x p -> x + reduce (+) (map (\r -> reduce max r) (flip 0 (snd p)))) a (Y, V)`,
			[]float64{1 + 3 + 4, 2 + 7 + 8, 3 + 11 + 12}},
		{"nested-tuples-inner-rank1", `map (\p -> fst (snd p) + reduce (+) (snd (snd p))) (Y, (a, W))`,
			[]float64{1 + 60, 2 + 150, 3 + 240}},
	}
	z := make([]float64, 9)
	w := make([]float64, 9)
	for i := range z {
		z[i] = float64(i + 1)
		w[i] = 10 * float64(i+1)
	}
	inputs := map[string]graph.Value{
		"a": must(graph.FromFloat64([]float64{1, 2, 3}, 3)),
		"b": must(graph.FromFloat64([]float64{7, 8, 9}, 3)),
		"Y": must(graph.FromFloat64([]float64{100, 200, 300}, 3, 1, 1)),
		"Z": must(graph.FromFloat64(z, 3, 3)),
		"W": must(graph.FromFloat64(w, 3, 3)),
		"V": must(graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 2, 2)),
	}
	parts := map[string]func(graph.Node) (*fusion.Graph, error){
		"fused": func(n graph.Node) (*fusion.Graph, error) {
			r, err := fusion.Fuse(n, fusion.Options{})
			if err != nil {
				return nil, err
			}
			return r.Graph, nil
		},
		"unfused": fusion.Unfused,
		"whole":   fusion.Whole,
	}
	for _, c := range cases {
		prog, err := graph.Parse(decls + c.term)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for pname, part := range parts {
			for _, par := range []int{1, 4} {
				t.Run(fmt.Sprintf("%s/%s/par%d", c.name, pname, par), func(t *testing.T) {
					g, err := part(prog.Body)
					if err != nil {
						t.Fatal(err)
					}
					p, err := native.New(native.Options{Parallelism: par}).Plan(g)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					in := map[string]graph.Value{}
					for _, i := range g.Inputs {
						in[i.Name] = inputs[i.Name]
					}
					out, err := p.Run(in)
					if err != nil {
						t.Fatal(err)
					}
					got, ok := out.(*graph.Array)
					if !ok {
						t.Fatalf("result %v is not an array", out)
					}
					for i, want := range c.want {
						if v := got.At(i); v != want {
							t.Errorf("element %d = %v, want %v (got %v)\n%s", i, v, want, got, p.Describe())
						}
					}
				})
			}
		}
	}
}
