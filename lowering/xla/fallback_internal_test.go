package xla

import (
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// pairedReducer is a kernel the StableHLO lowering rejects: its reduction
// operator is one traversal computing both components of the tuple
// accumulator (what the product rule makes of two lifted operators).
const pairedReducer = `x : f64[5,3]; y : f64[5,3];
	rnz (\p q -> nzip (\a b c d -> (a + b, max c d)) (fst p) (fst q) (snd p) (snd q)) (\a b -> (a, b)) x y`

func wholeGraph(t *testing.T, src string) (graph.Node, *fusion.Graph) {
	t.Helper()
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	return prog.Body, g
}

// TestWithFallbacks: the rejected kernel is replaced by its unfused form,
// which lowers, computes the same value and writes the kernel's output;
// the fallback names the kernel and the reason.
func TestWithFallbacks(t *testing.T) {
	term, g := wholeGraph(t, pairedReducer)
	if _, err := stablehlo.LowerKernel(g.Kernels[0]); !errors.Is(err, stablehlo.ErrUnsupported) {
		t.Fatalf("the kernel lowers (error %v): the test needs one the lowering rejects", err)
	}
	out, fbs, err := withFallbacks(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(fbs) != 1 || fbs[0].Kernel != "k1_kernel" || !strings.Contains(fbs[0].Reason, "unsupported: reduction operator") {
		t.Fatalf("fallbacks %v, want one for k1_kernel naming the reduction operator", fbs)
	}
	if len(out.Kernels) == 0 || out.Kernels[len(out.Kernels)-1].Output != g.Result {
		t.Fatalf("the unfused form does not write the graph's result")
	}
	for _, k := range out.Kernels {
		if _, err := stablehlo.LowerKernel(k); err != nil {
			t.Errorf("piece %s does not lower: %v", k.Name, err)
		}
	}
	if _, err := stablehlo.LowerGraph(out); err != nil {
		t.Errorf("the graph with the fallback does not lower as one module: %v", err)
	}
	x, _ := graph.FromFloat64([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 5, 3)
	y, _ := graph.FromFloat64([]float64{3, -1, 0, 9, 2, 1, -5, 7, 4, 0, 0, 8, 1, 1, 1}, 5, 3)
	in := map[string]graph.Value{"x": x, "y": y}
	got, err := out.Eval(in)
	if err != nil {
		t.Fatal(err)
	}
	// Column sums of x and column maxima of y, by hand.
	sums, _ := graph.FromFloat64([]float64{35, 40, 45}, 3)
	maxs, _ := graph.FromFloat64([]float64{9, 7, 8}, 3)
	if err := graph.Diff(graph.TupleValue{sums, maxs}, got, 0); err != nil {
		t.Error(err)
	}
	want, _ := graph.Eval(term, in)
	if err := graph.Diff(want, got, 0); err != nil {
		t.Error(err)
	}
	if _, fbs, _ := withFallbacks(out); fbs != nil {
		t.Errorf("a graph that lowers fell back: %v", fbs)
	}
}

// TestFallbackFails: a kernel whose unfused form the lowering rejects too
// is an error that names the kernel and both reasons.
func TestFallbackFails(t *testing.T) {
	_, g := wholeGraph(t, `u : f64[6]; rnz (\a b -> a * 0.5 + b) id (map exp u)`)
	_, _, err := withFallbacks(g)
	if err == nil {
		t.Fatal("a non-associative fold compiled")
	}
	for _, want := range []string{"xla: kernel k1_kernel:", "unsupported: reduction operator", "falling back to its unfused form failed too: piece k1_kernel_2_"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestWithFallbacksLifted: a paired reducer whose components are a
// lifted operator (zip (zip (+)) c d) and a pair in turn (a nested tuple
// accumulator) splits into operators the lowering reads, and the graph
// computes what the term does.
func TestWithFallbacksLifted(t *testing.T) {
	term, g := wholeGraph(t, `x : f64[5,3]; y : f64[5,3,2,2];
		rnz (\p q -> nzip (\a b c d e f g h -> (a + b, zip (zip (+)) c d, (e + f, max g h))) (fst p) (fst q) (snd p) (snd q) (fst (proj 2 p)) (fst (proj 2 q)) (snd (proj 2 p)) (snd (proj 2 q)))
			(\a b -> (a, b, (a, a))) x y`)
	out, fbs, err := withFallbacks(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(fbs) != 1 {
		t.Fatalf("fallbacks %v, want one", fbs)
	}
	in := map[string]graph.Value{}
	for i, name := range []string{"x", "y"} {
		ext := []int{5, 3}
		if name == "y" {
			ext = []int{5, 3, 2, 2}
		}
		a, _ := graph.Zeros(graph.Float64, ext...)
		for k := range a.Size() {
			idx := make([]int, len(ext))
			rem := k
			for d := len(ext) - 1; d >= 0; d-- {
				idx[d], rem = rem%ext[d], rem/ext[d]
			}
			a.Set(float64(k*(i+1)%7), idx...)
		}
		in[name] = a
	}
	want, err := graph.Eval(term, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := out.Eval(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Diff(want, got, 0); err != nil {
		t.Error(err)
	}
}
