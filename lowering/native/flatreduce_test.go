package native_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestFlatReduce checks per-channel sums over the pixels of NHWC arrays,
// the shape of BatchNorm's statistics and gradients: the nest of sums over
// images, rows and columns merges into one (collapseReduce), which runs
// flat (flatReduce), for channel counts from 1 to past half a chunk (where
// the rows run one at a time), odd pixel counts, a column operand, a
// tuple of sums with a row itself among them, f32 and f64, on one and on
// all threads, against graph.Eval.
func TestFlatReduce(t *testing.T) {
	const body = `(\a b -> (zip (+) (fst a) (fst b), zip (+) (snd a) (snd b), zip (+) (proj 2 a) (proj 2 b)))`
	for _, c := range []int{1, 3, 8, 17, 512, 513} {
		for _, dt := range []string{"f32", "f64"} {
			for _, par := range []int{1, 0} {
				t.Run(fmt.Sprintf("c%d-%s-par%d", c, dt, par), func(t *testing.T) {
					n, h, w := 3, 5, 7
					src := fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; G : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; M : %[1]s[%[5]d];
rnz %[6]s (\x g -> rnz %[6]s (\x1 g1 -> rnz %[6]s (\x2 g2 ->
    (nzip (\v m -> (v - m) * (v - m)) x2 M, nzip (\v u m -> u * (v - m)) x2 g2 M, g2)) x1 g1) x g) X G`,
						dt, n, h, w, c, body)
					prog, err := graph.Parse(src)
					if err != nil {
						t.Fatal(err)
					}
					g, err := fusion.Whole(prog.Body)
					if err != nil {
						t.Fatal(err)
					}
					p, err := native.New(native.Options{Parallelism: par}).Plan(g)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					d := p.Describe()
					if !strings.Contains(d, fmt.Sprintf("loop rnz [%d]", n*h*w)) {
						t.Errorf("the nest of sums is not merged into one over %d pixels:\n%s", n*h*w, d)
					}
					if flat := 2*c <= 1024; strings.Contains(d, "flat rnz") != flat {
						t.Errorf("flat reduction %v, want %v:\n%s", !flat, flat, d)
					}
					in := map[string]graph.Value{}
					for k, name := range []string{"X", "G", "M"} {
						typ := prog.Inputs[k].Type.(*graph.ArrayType)
						a, err := graph.Zeros(typ.DType, typ.Layout.Extents()...)
						if err != nil {
							t.Fatal(err)
						}
						fillFlat(a, func(i int) float64 { return math.Sin(float64(7*i + 3*k + 1)) })
						in[name] = a
					}
					want, err := graph.Eval(prog.Body, in)
					if err != nil {
						t.Fatal(err)
					}
					got, err := p.Run(in)
					if err != nil {
						t.Fatal(err)
					}
					if diff := graph.Diff(want, got, graph.Tolerance(prog.Inputs[0].Type.(*graph.ArrayType).DType)); diff != nil {
						t.Errorf("differs from graph.Eval: %v", diff)
					}
				})
			}
		}
	}
}

// TestFlatReduceSignedZero: the partial sums start at -0, (+)'s identity,
// so a sum of -0s stays -0, as graph.Eval's does.
func TestFlatReduceSignedZero(t *testing.T) {
	p, err := planOf(t, `X : f32[9, 4]; rnz (zip (+)) (\x -> nzip (\v -> v * 0) x) X`, native.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.Contains(p.Describe(), "flat rnz") {
		t.Fatalf("not a flat reduction:\n%s", p.Describe())
	}
	x, _ := graph.Zeros(graph.Float32, 9, 4)
	fillFlat(x, func(int) float64 { return -1 })
	got, err := p.Run(map[string]graph.Value{"X": x})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got.(*graph.Array).Values() {
		if v != 0 || !math.Signbit(v) {
			t.Errorf("sum %d = %v, want -0", i, v)
		}
	}
}

// fillFlat sets element i of the fresh row-major array a to f(i).
func fillFlat(a *graph.Array, f func(i int) float64) {
	for i := range a.Float32s() {
		a.Float32s()[i] = float32(f(i))
	}
	for i := range a.Float64s() {
		a.Float64s()[i] = f(i)
	}
}
