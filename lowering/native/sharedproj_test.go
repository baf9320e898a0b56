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

// A tuple of projections of one node (fst t, snd t, proj 2 t of the same
// tuple-valued map, as fusion leaves a BatchNorm's backward pass) computes
// the map once per row of the reduction around it, not once per
// projection, accumulating its components straight into the reduction's
// accumulators, and the results are graph.Eval's. Rows of 5 run flat
// (flatReduce: one program for all rows); rows longer than half a
// chunk, one at a time (the program compiled twice: the first row, then
// the others).
func TestSharedProjectionsComputedOnce(t *testing.T) {
	for _, c := range []struct {
		cols  int
		want  string
		count int
	}{
		{5, "flat rnz [6] of rows of 5, 6 rows a chunk: 2 loads, 3 ops", 1},
		{native.FlatChunk/2 + 88, fmt.Sprintf("vector loop [%d]: 2 loads, 3 ops", native.FlatChunk/2+88), 2},
	} {
		t.Run(fmt.Sprint(c.cols), func(t *testing.T) {
			const f = `(nzip (\a b -> (a + b, a * b, exp a)) r B)`
			prog, err := graph.Parse(fmt.Sprintf(`A : f32[6, %d]; B : f32[%d];
rnz (\x y -> (zip (+) (fst x) (fst y), zip (+) (snd x) (snd y), zip (+) (proj 2 x) (proj 2 y), zip (+) (proj 3 x) (proj 3 y)))
    (\r -> (proj 2 `, c.cols, c.cols) + f + `, fst ` + f + `, snd ` + f + `, r)) A`)
			if err != nil {
				t.Fatal(err)
			}
			// The parser builds three copies of the map; fusion leaves one node.
			tup := prog.Body.(*graph.RNZ).Fn.(*graph.Lambda).Body.(*graph.Tuple)
			shared := tup.Elems[0].(*graph.Proj).X
			tup.Elems[1].(*graph.Proj).X = shared
			tup.Elems[2].(*graph.Proj).X = shared
			g, err := fusion.Whole(prog.Body)
			if err != nil {
				t.Fatal(err)
			}
			p, err := native.New(native.Options{Parallelism: 1}).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			// Each program computes the map once, not once per
			// projection, straight into the accumulators (each
			// component is projected once), never into scratch that a
			// loop of its own then adds.
			if got := strings.Count(p.Describe(), c.want); got != c.count {
				t.Errorf("%q appears %d times, want %d:\n%s", c.want, got, c.count, p.Describe())
			}
			if strings.Contains(p.Describe(), "materialise") {
				t.Errorf("the shared map is materialised:\n%s", p.Describe())
			}
			a, _ := graph.Zeros(graph.Float32, 6, c.cols)
			b, _ := graph.Zeros(graph.Float32, c.cols)
			for i := range 6 {
				for j := range c.cols {
					a.Set(math.Sin(float64(5*i+j)), i, j)
					b.Set(math.Cos(float64(7*i+j)), j)
				}
			}
			in := map[string]graph.Value{"A": a, "B": b}
			want, err := graph.Eval(prog.Body, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := graph.Diff(want, got, graph.Tolerance(graph.Float32)); diff != nil {
				t.Errorf("differs from graph.Eval: %v", diff)
			}
		})
	}
}

// A vector loop computes an op on the same operands once: the two
// elements of the tuple repeat a*a + b and its rsqrt, and the loop has
// four ops (a*a, + b, rsqrt, * 2), not seven; the results are
// graph.Eval's.
func TestVectorLoopComputesRepeatedOpsOnce(t *testing.T) {
	src := `A : f32[40]; B : f32[40];
nzip (\a b -> (rsqrt (a * a + b), rsqrt (a * a + b) * 2)) A B`
	p, err := planOf(t, src, native.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if d := p.Describe(); !strings.Contains(d, "vector loop [40]: 2 loads, 4 ops") {
		t.Errorf("plan lacks a vector loop of 4 ops:\n%s", d)
	}
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := graph.Zeros(graph.Float32, 40)
	b, _ := graph.Zeros(graph.Float32, 40)
	for i := range 40 {
		a.Set(math.Sin(float64(i)), i)
		b.Set(1+math.Cos(float64(3*i))*0.5, i)
	}
	in := map[string]graph.Value{"A": a, "B": b}
	want, err := graph.Eval(prog.Body, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := graph.Diff(want, got, graph.Tolerance(graph.Float32)); diff != nil {
		t.Errorf("differs from graph.Eval: %v", diff)
	}
}

// A scalar broadcast into a vector register row by row is filled again
// whenever its value changes, a zero's sign included: 1/(x·s) over rows
// of ones with s = 2, 0, -0, 0, -0, 3 is 0.5, +Inf, -Inf, +Inf, -Inf, 1/3.
func TestBroadcastRefilledPerRow(t *testing.T) {
	p, err := planOf(t, `A : f32[6, 40]; c : f32[6]; zip (\r s -> map (\x -> 1 / (x * s)) r) A c`, native.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, _ := graph.Zeros(graph.Float32, 6, 40)
	for i := range 6 {
		for j := range 40 {
			a.Set(1, i, j)
		}
	}
	c, _ := graph.Zeros(graph.Float32, 6)
	s := []float64{2, 0, math.Copysign(0, -1), 0, math.Copysign(0, -1), 3}
	for i, v := range s {
		c.Set(v, i)
	}
	want := []float32{0.5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1.0 / 3}
	for run := range 2 {
		got, err := p.Run(map[string]graph.Value{"A": a, "c": c})
		if err != nil {
			t.Fatal(err)
		}
		g := got.(*graph.Array)
		for i := range 6 {
			for _, j := range []int{0, 39} {
				if v := float32(g.At(i, j)); math.Float32bits(v) != math.Float32bits(want[i]) {
					t.Errorf("run %d: element (%d, %d) = %v, want %v", run+1, i, j, v, want[i])
				}
			}
		}
	}
	if d := p.Describe(); !strings.Contains(d, "vector loop [40]") {
		t.Errorf("no vector loop over the rows' elements:\n%s", d)
	}
}

// A let-bound scalar computed from ready buffers alone is hoisted out of
// the loop over the rows, and so are the terms that use it: with
// s = v / 6 and r = rsqrt (s + 1), per column, r is computed once per
// run (rule 9 of normalisation, s inside it), the row loop is one load
// and one multiply, and the results are graph.Eval's.
func TestLetBoundValuesHoisted(t *testing.T) {
	src := `A : f32[6, 40]; v : f32[40];
map (\row -> zip (\x w -> let s = w / 6 in let r = rsqrt (s + 1) in x * r) row v) A`
	p, err := planOf(t, src, native.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d := p.Describe()
	for _, w := range []string{
		`hoisted $h1 f32[40] = map (\w -> rsqrt (w / 6 + 1)) v`,
		"vector loop [40]: 2 loads, 1 ops",
	} {
		if !strings.Contains(d, w) {
			t.Errorf("plan lacks %q:\n%s", w, d)
		}
	}
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := graph.Zeros(graph.Float32, 6, 40)
	v, _ := graph.Zeros(graph.Float32, 40)
	for j := range 40 {
		v.Set(float64(j)+0.5, j)
		for i := range 6 {
			a.Set(math.Sin(float64(40*i+j)), i, j)
		}
	}
	in := map[string]graph.Value{"A": a, "v": v}
	want, err := graph.Eval(prog.Body, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := graph.Diff(want, got, graph.Tolerance(graph.Float32)); diff != nil {
		t.Errorf("differs from graph.Eval: %v", diff)
	}
}
