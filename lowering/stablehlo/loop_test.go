package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// LowerLoop writes main for a loop: the aliased parameter carries
// tf.aliasing_output naming its result, the check is a function of its
// own called on the results it covers, and main returns its flags after
// the results. Aliases and checks that do not fit main are errors that
// name them.
func TestLowerLoop(t *testing.T) {
	prog, err := graph.Parse(`w : f32[4]; i : i32[4]; g : f32[4];
		(rnz (+) (*) w w, nzip (\a b -> a - b) w g, i)`)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Whole(prog.Body)
	if err != nil {
		t.Fatal(err)
	}
	low, err := stablehlo.LowerLoop(g, stablehlo.Loop{Aliases: map[int]int{0: 1}, Finite: []int{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func.func @main(%w: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %g: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xi32>, tensor<3xi1>)",
		"func.func @finite_check(%r0: tensor<f32>, %r1: tensor<4xf32>, %r2: tensor<4xi32>) -> tensor<3xi1>",
		`{callee = @finite_check} : (tensor<f32>, tensor<4xf32>, tensor<4xi32>) -> tensor<3xi1> loc("finite_check")`,
	} {
		if !strings.Contains(low.Text, want) {
			t.Errorf("the module lacks %s:\n%s", want, low.Text)
		}
	}
	if len(low.Finite) != 3 || len(low.Results) != 3 {
		t.Errorf("Finite %v, %d results; want [0 1 2], 3", low.Finite, len(low.Results))
	}
	plain, err := stablehlo.LowerGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Text, "aliasing") || strings.Contains(plain.Text, "finite") || plain.Finite != nil {
		t.Errorf("LowerGraph writes a loop's attributes:\n%s", plain.Text)
	}
	for _, c := range []struct {
		loop stablehlo.Loop
		want string
	}{
		{stablehlo.Loop{Aliases: map[int]int{3: 1}}, "stablehlo: alias of parameter 3 to result 1: main has 3 parameters and 3 results"},
		{stablehlo.Loop{Aliases: map[int]int{2: 1}}, "stablehlo: alias of parameter 2 (i32[4]) to result 1 (f32[4]): the types differ"},
		{stablehlo.Loop{Finite: []int{3}}, "stablehlo: finiteness check of result 3: main has 3 results"},
	} {
		_, err := stablehlo.LowerLoop(g, c.loop)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v, want %s", c.loop, err, c.want)
		}
	}
}

// The finiteness check reads the arguments of one type and extents
// together: one variadic reduce per stage for each such group, and one
// comparison for all of them, so that XLA fuses the check into a few
// loops rather than a few per argument. (lowering/xla's TestFiniteCheck
// runs such a check.)
func TestFiniteCheckGroups(t *testing.T) {
	ts := []graph.Type{
		graph.ArrayOf(graph.Float32, 64, 8),
		graph.ArrayOf(graph.Float32, 10),
		graph.ArrayOf(graph.Float32, 64, 8),
		graph.ArrayOf(graph.Int32, 3),
		graph.ArrayOf(graph.Float64, 10),
		graph.ArrayOf(graph.Float32, 64, 8),
		graph.Scalar(graph.Float32),
	}
	text, err := stablehlo.FiniteCheckModule(ts)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// the three f32[64,8]: block sums, then their product
		`"stablehlo.reduce"(%`,
		`(tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)`,
		`(tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)`,
		// f64 sums compared as f32: ±0 and NaN stay so
		`"stablehlo.convert"`,
		`-> tensor<7xf32>`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the check lacks %q:\n%s", want, text)
		}
	}
	// two stages for each of the three float groups of more than one
	// element (f32[64,8], f32[10], f64[10]); the scalar needs none
	if got := strings.Count(text, `"stablehlo.reduce"`); got != 6 {
		t.Errorf("%d reduces, want 6:\n%s", got, text)
	}
	if got := strings.Count(text, `"stablehlo.compare"`); got != 1 {
		t.Errorf("%d comparisons, want 1:\n%s", got, text)
	}
}
