package stablehlo_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// partitions are the kernel graphs every case is lowered from.
var partitions = []struct {
	name string
	part func(graph.Node) (*fusion.Graph, error)
}{{"whole", fusion.Whole}, {"unfused", fusion.Unfused}}

// unsupported lists the suite's instances the StableHLO lowering rejects,
// with the error: reduce needs an associative operator it can apply as a
// tree, and a non-associative fold has no lowering (a while loop would
// give it one).
// The same list is in package xla's tests.
var unsupported = map[string]string{
	"reduce/general":        "unsupported: reduction operator",
	"reduce/general-arrays": "unsupported: reduction operator",
}

// TestLowerAllCases lowers every case of the table, fused and unfused, as
// one module and as one module per kernel, and checks the calling
// convention against the graph. (Package xla runs them.)
func TestLowerAllCases(t *testing.T) {
	insts, err := lowertest.Instances()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range insts {
		{
			term := c.Term
			for _, p := range partitions {
				t.Run(fmt.Sprintf("%s/%s", c.Name, p.name), func(t *testing.T) {
					g, err := p.part(term)
					if err != nil {
						t.Fatalf("partition: %v", err)
					}
					low, err := stablehlo.LowerGraph(g)
					if want, ok := unsupported[c.Name]; ok {
						if err == nil || !errors.Is(err, stablehlo.ErrUnsupported) || !strings.Contains(err.Error(), want) {
							t.Fatalf("lowered with error %v, want ErrUnsupported with %q", err, want)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if n := countLeaves(g.Inputs); len(low.Params) != n {
						t.Errorf("%d parameters for %d input leaves", len(low.Params), n)
					}
					if got, want := strings.Count(low.Text, "func.func @"), len(g.Kernels)+1; got != want {
						t.Errorf("%d functions for %d kernels and main", got, len(g.Kernels))
					}
					for _, k := range g.Kernels {
						kl, err := stablehlo.LowerKernel(k)
						if err != nil {
							t.Fatalf("kernel %s: %v", k.Name, err)
						}
						if !strings.Contains(kl.Text, "func.func @main(") {
							t.Errorf("kernel %s: no @main", k.Name)
						}
					}
				})
			}
		}
	}
}

func countLeaves(ins []*graph.Input) int {
	n := 0
	var walk func(t graph.Type)
	walk = func(t graph.Type) {
		if tt, ok := t.(*graph.TupleType); ok {
			for _, e := range tt.Elems {
				walk(e)
			}
			return
		}
		n++
	}
	for _, in := range ins {
		walk(in.Type)
	}
	return n
}

// TestUnsupported: constructs the lowering does not translate are errors
// that name the term and say why, wrapping ErrUnsupported.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
	}{
		{`v : f32[5]; rnz (-) id v`,
			`stablehlo: kernel k1_kernel: (-): unsupported: reduction with sub: StableHLO reduce needs an associative, commutative operator with an identity`},
		{`v : f32[5]; rnz (\a b -> a * 0.5 + b) id v`,
			`stablehlo: kernel k1_kernel: \a b -> a * 0.5 + b: unsupported: reduction operator: StableHLO reduce needs a scalar op (possibly lifted with zip), or a lambda that applies one to its two parameters or, for a tuple, one op per element`},
		{`v : f32[5]; rnz (\a b -> (fst a + fst b, fst a * snd b)) (\x -> (x, x)) v`,
			`unsupported: reduction operator: StableHLO reduce needs a scalar op`},
		{`v : f64[5]; rnz pow id v`,
			`unsupported: reduction with pow: StableHLO reduce needs an associative, commutative operator with an identity`},
	} {
		prog, err := graph.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := fusion.Whole(prog.Body)
		if err != nil {
			t.Fatal(err)
		}
		_, err = stablehlo.Module(g)
		if err == nil {
			t.Errorf("%s: lowered, want an error", tc.src)
			continue
		}
		if !errors.Is(err, stablehlo.ErrUnsupported) {
			t.Errorf("%s: error %v does not wrap ErrUnsupported", tc.src, err)
		}
		var e *stablehlo.Error
		if !errors.As(err, &e) || e.Node == nil {
			t.Errorf("%s: error %v is not an *Error naming a term", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.src, err, tc.want)
		}
	}
}

// TestIllTyped: an ill-typed kernel body returns graph.Check's error.
func TestIllTyped(t *testing.T) {
	u, _ := graph.NewInput("u", graph.ArrayOf(graph.Float32, 3), false)
	v, _ := graph.NewInput("v", graph.ArrayOf(graph.Float32, 4), false)
	add, _ := graph.NewOpRef(graph.Add)
	body, _ := graph.NewNZip(add, u, v)
	k := &fusion.Kernel{Name: "k1", Inputs: []*graph.Input{u, v}, Body: body, Output: u}
	_, err := stablehlo.KernelModule(k)
	var ce *graph.Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "different outer extents") {
		t.Errorf("got %v, want graph.Check's error about outer extents", err)
	}
	if _, err := stablehlo.KernelModule(nil); err == nil {
		t.Error("nil kernel lowered")
	}
	if _, err := stablehlo.Module(&fusion.Graph{}); err == nil {
		t.Error("empty graph lowered")
	}
}

// TestLocations: operations carry the layer they came from as an MLIR
// location, and kernels become functions named after them.
func TestLocations(t *testing.T) {
	for _, g := range lowertest.Goldens() {
		if g.File != "dense_bn_relu_unfused_f32.mlir" {
			continue
		}
		text, err := goldenModule(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`func.func @k1_dense1(`, `func.func @k2_bn1(`, `func.func @k3_relu1(`,
			`"stablehlo.dot_general"`, `loc("dense1")`, `"stablehlo.rsqrt"`, `loc("bn1")`,
			`"stablehlo.select"`, `loc("relu1")`, `{callee = @k2_bn1}`, // relu's NaN-propagating max
		} {
			if !strings.Contains(text, want) {
				t.Errorf("module lacks %s", want)
			}
		}
		return
	}
	t.Fatal("golden dense_bn_relu_unfused_f32.mlir not in the table")
}

// TestTranslationShapes pins how the main constructs translate, by the
// operations the module contains.
func TestTranslationShapes(t *testing.T) {
	for _, tc := range []struct {
		src        string
		want, lack []string
	}{
		// A row-form matrix-vector product is one dot_general, no reduce.
		{`A : f32[5,6]; u : f32[6]; map (\r -> rnz (+) (*) r u) A`,
			[]string{`"stablehlo.dot_general"`, `lhs_contracting_dimensions = [1]`}, []string{`"stablehlo.reduce"`, `"stablehlo.transpose"`}},
		// Σ_j A_ij B_jk g_j: g is multiplied into one operand, then one dot.
		{`A : f32[4,6]; B : f32[6,5]; g : f32[6]; map (\a -> map (\b -> rnz (+) (\x y z -> x * y * z) a b g) (flip 0 B)) A`,
			[]string{`"stablehlo.dot_general"`, `"stablehlo.multiply"`}, []string{`"stablehlo.reduce"`}},
		// max reduction: a reduce whose region is graph's NaN-propagating
		// max (compare, select, and the sum of equal zeros), initial -inf;
		// no bits (CUDA's XLA miscompiles an "and" of bitcast floats).
		{`A : f32[4,7]; map (\r -> reduce max r) A`,
			[]string{`"stablehlo.reduce"`, `"stablehlo.subtract"`, `comparison_direction GT`, `dense<0xff800000>`, `dimensions = array<i64: 1>`},
			[]string{`"stablehlo.bitcast_convert"`}},
		// max of two values: the sum of two zeros decides between -0 and +0.
		{`u : f64[4]; v : f64[4]; zip max u v`,
			[]string{`"stablehlo.subtract"`, `"stablehlo.add"`, `comparison_direction NE`, `"stablehlo.select"`},
			[]string{`"stablehlo.maximum"`, `"stablehlo.bitcast_convert"`}},
		// relu (max v 0), min v -0, max v 2.5: comparing with the literal
		// suffices.
		{`v : f32[4]; map (\x -> (max x 0, min x (-0), max 2.5 x)) v`,
			[]string{`comparison_direction GT`, `comparison_direction LT`, `comparison_direction NE`, `"stablehlo.select"`},
			[]string{`"stablehlo.bitcast_convert"`, `"stablehlo.maximum"`, `"stablehlo.minimum"`}},
		// max v -0 and min v 0 are the cases where it does not: v = +0 must
		// give +0, v = -0 must give -0.
		{`v : f32[4]; map (\x -> max x (-0)) v`, []string{`"stablehlo.subtract"`, `"stablehlo.add"`}, []string{`"stablehlo.bitcast_convert"`}},
		{`v : f32[4]; map (\x -> min 0 x) v`, []string{`"stablehlo.subtract"`, `"stablehlo.negate"`}, []string{`"stablehlo.bitcast_convert"`}},
		// sum and sum of squares: one variadic reduce.
		{`v : f64[9]; rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x -> (x, x * x)) v`,
			[]string{`%5, %6 = "stablehlo.reduce"(%v, %0, %1, %2)`}, []string{`"stablehlo.dot_general"`}},
		// views: reshape, transpose.
		{`A : f32[6,4]; flatten 0 (map (\c -> map (\x -> x * 2) c) (flip 0 A))`,
			[]string{`"stablehlo.transpose"`, `"stablehlo.reshape"`}, nil},
		{`A : f32[6,4]; map (\r -> reduce (zip (+)) r) (subdiv 0 2 A)`,
			[]string{`"stablehlo.reshape"`, `-> tensor<3x2x4xf32>`}, nil},
		// erf is chlo.erf; conversions are convert; compares and select.
		{`v : f32[4]; map (\x -> select (x > 0) (erf x) (f32 (i32 x))) v`,
			[]string{`"chlo.erf"`, `"stablehlo.convert"`, `"stablehlo.compare"`, `comparison_direction = #stablehlo<comparison_direction GT>`, `"stablehlo.select"`}, nil},
		// literal arithmetic is folded, and takes its partner's type.
		{`v : f32[4]; map (\x -> x * (1 / 4 + 1)) v`,
			[]string{`dense<1.25> : tensor<f32>`}, []string{`"stablehlo.divide"`, `f64`}},
		// an invariant term is computed once, outside the loop axes.
		{`A : f32[3,5]; v : f32[5]; let s = reduce (+) v in map (\r -> map (\x -> x - s) r) A`,
			[]string{`(tensor<5xf32>, tensor<f32>) -> tensor<f32>`}, nil},
	} {
		prog, err := graph.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := fusion.Whole(prog.Body)
		if err != nil {
			t.Fatal(err)
		}
		text, err := stablehlo.Module(g)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: module lacks %s:\n%s", tc.src, w, text)
			}
		}
		for _, w := range tc.lack {
			if strings.Contains(text, w) {
				t.Errorf("%s: module has %s:\n%s", tc.src, w, text)
			}
		}
	}
}
