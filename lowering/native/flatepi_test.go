package native_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestFlatEpilogue checks the GEMM epilogues that run blocks of short rows
// as flat chunks (a column operand's values repeated once per row): a
// dense layer with bias, BatchNorm and ReLU, and a convolution block, for
// row lengths from 1 to past half a chunk (where the rows run one at a
// time), row counts that leave partial blocks, f32 and f64, on one and on
// all threads, against the interpreter; the plan says which way the rows
// ran, and that the flat chunks are computed in the destination.
func TestFlatEpilogue(t *testing.T) {
	type tc struct {
		rows, in, out int
		dt            graph.DType
	}
	var cases []tc
	for _, out := range []int{1, 3, 5, 17, 64, 100, native.FlatChunk / 2, native.FlatChunk/2 + 1} {
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			cases = append(cases, tc{rows: 37 + out%7*40, in: 13, out: out, dt: dt})
		}
	}
	// One row past the GEMM's blocks of 96 rows (128 without assembly):
	// a last block of one row, whose epilogue runs row by row on the
	// frame whose flat chunks ran in the destination just before.
	for _, rows := range []int{97, 129} {
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			cases = append(cases, tc{rows: rows, in: 13, out: 5, dt: dt})
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("dense-%dx%dx%d-%v", c.rows, c.in, c.out, c.dt), func(t *testing.T) {
			x, err := graph.NewInput("x", graph.ArrayOf(c.dt, c.rows, c.in), false)
			if err != nil {
				t.Fatal(err)
			}
			y, _, err := layers.Dense("dense", x, c.in, c.out, c.dt)
			if err != nil {
				t.Fatal(err)
			}
			if y, _, err = layers.BatchNorm("bn", y, c.out, c.dt, layers.BatchNormOptions{}); err != nil {
				t.Fatal(err)
			}
			if y, err = layers.ReLU("relu", y); err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 5, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			checkFlat(t, y, in, 2*c.out <= native.FlatChunk)
		})
	}
	// An inner argument read per row (a residual's row) runs flat when
	// its rows lie end to end, and it is read only elementwise; a
	// transposed one, or one the epilogue also reduces, keeps the rows
	// one at a time (a tile of it would hold the block's first row). Rows
	// of 64 take several flat chunks a block of the product's rows.
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, rc := range []struct {
			name, res, term string
			flat            bool
		}{
			{"residual", "200,64", `zip (\r q -> nzip (\c bb qq -> max (rnz (+) (*) r c + bb + qq) 0) (flip 0 w) b q) x res`, true},
			{"residual-transposed", "64,200", `zip (\r q -> nzip (\c bb qq -> max (rnz (+) (*) r c + bb + qq) 0) (flip 0 w) b q) x (flip 0 res)`, false},
			{"residual-reduced", "200,64", `zip (\r q -> nzip (\c bb qq -> rnz (+) (*) r c + bb + qq * reduce max q) (flip 0 w) b q) x res`, false},
		} {
			t.Run(fmt.Sprintf("%s-%v", rc.name, dt), func(t *testing.T) {
				var ins []*graph.Input
				for _, d := range []struct {
					name, dims string
				}{{"x", "200,7"}, {"w", "7,64"}, {"b", "64"}, {"res", rc.res}} {
					var dims []int
					for _, f := range strings.Split(d.dims, ",") {
						n, err := strconv.Atoi(f)
						if err != nil {
							t.Fatal(err)
						}
						dims = append(dims, n)
					}
					in, err := graph.NewInput(d.name, graph.ArrayOf(dt, dims...), false)
					if err != nil {
						t.Fatal(err)
					}
					ins = append(ins, in)
				}
				y, err := graph.ParseTerm(rc.term, ins...)
				if err != nil {
					t.Fatal(err)
				}
				in, err := lowertest.Inputs(y, 3, 0, lowertest.Dense)
				if err != nil {
					t.Fatal(err)
				}
				checkFlat(t, y, in, rc.flat)
			})
		}
	}
	for _, out := range []int{6, 64, native.FlatChunk/2 + 88} {
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			t.Run(fmt.Sprintf("conv-block-%d-%v", out, dt), func(t *testing.T) {
				x, err := graph.NewInput("x", graph.ArrayOf(dt, 3, 7, 5, 4), false)
				if err != nil {
					t.Fatal(err)
				}
				y, _, err := layers.Conv2D("conv", x, 4, out, [2]int{3, 3}, dt, layers.ConvOptions{Padding: layers.PadSame})
				if err != nil {
					t.Fatal(err)
				}
				if y, _, err = layers.BatchNorm("bn", y, out, dt, layers.BatchNormOptions{}); err != nil {
					t.Fatal(err)
				}
				if y, err = layers.ReLU("relu", y); err != nil {
					t.Fatal(err)
				}
				in, err := lowertest.Inputs(y, 9, 0, lowertest.Dense)
				if err != nil {
					t.Fatal(err)
				}
				checkFlat(t, y, in, 2*out <= native.FlatChunk)
			})
		}
	}
}

// checkFlat runs term fused on one and on all threads against the
// interpreter and checks that its GEMM epilogue runs flat iff flat.
func checkFlat(t *testing.T, term graph.Node, in map[string]graph.Value, flat bool) {
	t.Helper()
	for _, g := range lowertest.FusedAndUnfused(t, term)[:1] {
		for _, par := range []int{1, 0} {
			d := checkedDescribe(t, par, g, term, in)
			if !strings.Contains(d, "epilogue per row segment") {
				t.Fatalf("no GEMM epilogue in the plan:\n%s", d)
			}
			if got := strings.Contains(d, "flat chunks"); got != flat {
				t.Errorf("parallelism %d: flat epilogue %v, want %v:\n%s", par, got, flat, d)
			}
			// Stored plainly, the flat chunks are computed in the
			// destination.
			for _, l := range strings.Split(d, "\n") {
				if strings.Contains(l, "flat chunks") && !strings.Contains(l, "result computed in place") {
					t.Errorf("parallelism %d: the flat epilogue is not computed in place:\n%s", par, d)
				}
			}
		}
	}
}

// TestFlatEpilogueRebinds runs one plan of a dense layer with bias,
// BatchNorm and ReLU, whose epilogue tiles its column operands once per
// product and frame, on inputs of one seed, another, and the first
// again, on one and on all threads, against the interpreter: the tiles
// of one run must not serve the next.
func TestFlatEpilogueRebinds(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		x, err := graph.NewInput("x", graph.ArrayOf(dt, 300, 40), false)
		if err != nil {
			t.Fatal(err)
		}
		y, _, err := layers.Dense("dense", x, 40, 64, dt)
		if err != nil {
			t.Fatal(err)
		}
		if y, _, err = layers.BatchNorm("bn", y, 64, dt, layers.BatchNormOptions{}); err != nil {
			t.Fatal(err)
		}
		if y, err = layers.ReLU("relu", y); err != nil {
			t.Fatal(err)
		}
		var sets []map[string]graph.Value
		for _, seed := range []uint64{5, 6, 5} {
			in, err := lowertest.Inputs(y, seed, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			sets = append(sets, in)
		}
		g := lowertest.FusedAndUnfused(t, y)[0]
		for _, par := range []int{1, 0} {
			p, err := native.New(native.Options{Parallelism: par}).Plan(g)
			if err != nil {
				t.Fatal(err)
			}
			if d := p.Describe(); !strings.Contains(d, "flat chunks") {
				t.Fatalf("the epilogue does not run flat:\n%s", d)
			}
			for i, in := range sets {
				want, err := graph.Eval(y, in)
				if err != nil {
					t.Fatal(err)
				}
				bound := map[string]graph.Value{}
				for _, gi := range g.Inputs {
					bound[gi.Name] = in[gi.Name]
				}
				got, err := p.Run(bound)
				if err != nil {
					t.Fatal(err)
				}
				if err := graph.Diff(want, got, graph.ToleranceOf(want)); err != nil {
					t.Errorf("%v parallelism %d, inputs %d: %v", dt, par, i, err)
				}
			}
			p.Close()
		}
	}
}
