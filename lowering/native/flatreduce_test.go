package native_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
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
	for _, c := range []int{1, 3, 8, 17, native.FlatChunk / 2, native.FlatChunk/2 + 1} {
		for _, dt := range []string{"f32", "f64"} {
			for _, par := range []int{1, 0} {
				t.Run(fmt.Sprintf("c%d-%s-par%d", c, dt, par), func(t *testing.T) {
					n, h, w := 3, 5, 7
					src := fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; G : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; M : %[1]s[%[5]d];
rnz %[6]s (\x g -> rnz %[6]s (\x1 g1 -> rnz %[6]s (\x2 g2 ->
    (nzip (\v m -> (v - m) * (v - m)) x2 M, nzip (\v u m -> u * (v - m)) x2 g2 M, g2)) x1 g1) x g) X G`,
						dt, n, h, w, c, body)
					d := wholeAgainstEval(t, src, par, func(i, k int) float64 { return math.Sin(float64(7*i + 3*k + 1)) })
					if !strings.Contains(d, fmt.Sprintf("loop rnz [%d]", n*h*w)) {
						t.Errorf("the nest of sums is not merged into one over %d pixels:\n%s", n*h*w, d)
					}
					if flat := 2*c <= native.FlatChunk; strings.Contains(d, "flat rnz") != flat {
						t.Errorf("flat reduction %v, want %v:\n%s", !flat, flat, d)
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

// TestFlatMap checks flatMap: a map over the rows of NHWC arrays whose
// body maps each row's channels with per-channel operands (BatchNorm's
// normalisation and its gradient) runs as one flat span of rows, for
// channel counts up to the longest row it takes and past it (where the
// rows run one at a time), with columns that are let-bound values of one
// name (each its own column) or a pair of vectors, f32 and f64, on one
// and on all threads, equal to graph.Eval bit for bit; and that a flat
// sum takes rows whose map builds a pair (BatchNorm's sums of deviations
// and of their squares).
func TestFlatMap(t *testing.T) {
	for _, c := range []int{1, 3, 8, 16, 32, 33} {
		for _, dt := range []string{"f32", "f64"} {
			for _, par := range []int{1, 0} {
				t.Run(fmt.Sprintf("c%d-%s-par%d", c, dt, par), func(t *testing.T) {
					n, h, w := 3, 5, 9 // w ≥ flatMapMinRows: the second program maps rows of w
					srcs := []string{
						fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; G : %[1]s[%[5]d]; B : %[1]s[%[5]d];
map (map (map (\r -> nzip (\v g b -> (v - b) * rsqrt (g * g + 1e-5) * g + b) r G B))) X`, dt, n, h, w, c),
						// Two values named s (u is renamed below): a column each.
						fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d];
map (\p -> let s = reduce (zip max) p in let u = (let s = reduce (zip (+)) p in map (\e -> e * 2) s) in
    map (\r -> nzip (\a b c -> select (a == b) (a - c) c) r s u) p) (flatten 0 X)`, dt, n, h, w, c),
						// A column that is a pair of vectors.
						fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; S : %[1]s[%[5]d]; T : %[1]s[%[5]d];
map (map (map (\r -> nzip (\v p -> fst p + snd p * v + snd p * v) r (S, T)))) X`, dt, n, h, w, c),
						// A sum whose rows' map builds a pair: a projection per sum.
						fmt.Sprintf(`X : %[1]s[%[2]d, %[3]d, %[4]d, %[5]d]; M : %[1]s[%[5]d];
rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q)))
    (\r -> zip (\v k -> let s0 = v - k in (s0, s0 * s0)) r M) (flatten 0 (flatten 0 X))`, dt, n, h, w, c),
					}
					for k, src := range srcs {
						prog, err := graph.Parse(src)
						if err != nil {
							t.Fatal(err)
						}
						renameLet(prog.Body, "u", "s")
						g, err := fusion.Whole(prog.Body)
						if err != nil {
							t.Fatal(err)
						}
						p, err := native.New(native.Options{Parallelism: par}).Plan(g)
						if err != nil {
							t.Fatal(err)
						}
						d := p.Describe()
						p.Close()
						form, rows := "map", n*h*w
						switch k {
						case 1:
							rows = w
						case 3:
							form = "rnz"
						}
						want := fmt.Sprintf("flat %s [%d] of rows of %d", form, rows, c)
						if flat := c <= 32 || k == 3; strings.Contains(d, want) != flat {
							t.Errorf("program %d: %q %v, want %v:\n%s", k, want, !flat, flat, d)
						}
						in := waveInputs(t, prog, func(i, j int) float64 { return math.Round(4*math.Sin(float64(7*i+3*j+1))) / 4 })
						lowertest.Check(t, native.New(native.Options{Parallelism: par}), g, prog.Body, in, 0)
					}
				})
			}
		}
	}
}

// waveInputs returns an array for each of prog's inputs, element i (in
// row-major order) of input k set to f(i, k).
func waveInputs(t *testing.T, prog *graph.Program, f func(i, k int) float64) map[string]graph.Value {
	t.Helper()
	in := map[string]graph.Value{}
	for k, input := range prog.Inputs {
		typ := input.Type.(*graph.ArrayType)
		a, err := graph.Zeros(typ.DType, typ.Layout.Extents()...)
		if err != nil {
			t.Fatal(err)
		}
		fillFlat(a, func(i int) float64 { return f(i, k) })
		in[input.Name] = a
	}
	return in
}

// renameLet renames the variables that lets named from bind to to, as
// terms built in Go (by autodiff, say) may name two values alike: a
// variable is its node, not its name.
func renameLet(n graph.Node, from, to string) {
	if l, ok := n.(*graph.Let); ok && l.Var.Name == from {
		l.Var.Name = to
	}
	for _, c := range graph.Children(n) {
		renameLet(c, from, to)
	}
}

// TestFlatReduceNestedTuple: a sum whose rows' map builds a nested tuple
// (three sums from a pair of pairs' leaves) has no projection per sum;
// the flat form leaves it to the general reduction, and the plan
// computes it, equal to graph.Eval.
func TestFlatReduceNestedTuple(t *testing.T) {
	src := `X : f32[40, 8];
rnz (\p q -> ((zip (+) (fst (fst p)) (fst (fst q)), zip (+) (snd (fst p)) (snd (fst q))), zip (+) (snd p) (snd q)))
    (\r -> zip (\v -> ((v, v * v), v * 2)) r) X`
	prog, g := parseWhole(t, src)
	in, err := lowertest.Inputs(prog.Body, 1, 0, lowertest.Dense)
	if err != nil {
		t.Fatal(err)
	}
	lowertest.Check(t, native.New(native.Options{}), g, prog.Body, in, 0)
}

// TestFlatReducePooling: a global average pooling's sum over the
// positions, the element function written without a lambda — the
// identity (the layer alone) or nzip g of two images (after a residual
// add and a ReLU) — runs flat as the lambda form does, f32 and f64, on
// one and on all threads, against graph.Eval.
func TestFlatReducePooling(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"identity", `X : T[2, 7, 9, 24]; map (\img -> map (\s -> s / 63) (rnz (zip (+)) (\r -> reduce (zip (+)) r) img)) X`},
		{"nzip", `X : T[2, 7, 9, 24]; Y : T[2, 7, 9, 24]; zip (\x y -> map (\s -> s / 63) (rnz (zip (+)) (\x1 y1 -> rnz (zip (+)) (zip (\u v -> max (u + v) 0)) x1 y1) x y)) X Y`},
	} {
		for _, dt := range []string{"f32", "f64"} {
			for _, par := range []int{1, 0} {
				t.Run(fmt.Sprintf("%s-%s-par%d", c.name, dt, par), func(t *testing.T) {
					d := wholeAgainstEval(t, strings.ReplaceAll(c.src, "T[", dt+"["), par, func(i, k int) float64 { return math.Sin(float64(5*i + 2*k + 1)) })
					if !strings.Contains(d, "flat rnz") {
						t.Errorf("the sum over the positions does not run flat:\n%s", d)
					}
				})
			}
		}
	}
}

// wholeAgainstEval plans the program src as one kernel (fusion.Whole) on
// the native back end with parallelism par, checks it on inputs of values
// wave(i, k) (element k of input i) against graph.Eval within the element
// type's tolerance (checkedDescribe) and returns the plan's description.
func wholeAgainstEval(t *testing.T, src string, par int, wave func(i, k int) float64) string {
	t.Helper()
	prog, g := parseWhole(t, src)
	return checkedDescribe(t, par, g, prog.Body, waveInputs(t, prog, wave))
}
