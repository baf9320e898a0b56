package autodiff

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

func gradErr(t *testing.T, src string, names ...string) error {
	t.Helper()
	p := parse(t, src)
	wrt := make([]*graph.Input, len(names))
	for i, n := range names {
		wrt[i] = input(t, p, n)
	}
	_, err := Grad(p.Body, wrt)
	if err == nil {
		t.Fatalf("Grad of %s: no error", src)
	}
	return err
}

func TestGradErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		wrt  []string
		want string
	}{
		{"n : i32[3]; x : f64[3]; rnz (+) (\\a b -> a * f64 b) x n", []string{"x", "n"},
			"autodiff: cannot differentiate with respect to input n of type i32[3]: only f32 and f64 inputs have gradients"},
		{"x : f64[3]; map (\\a -> a * 2) x", []string{"x"},
			"autodiff: the loss map (\\a -> a * 2) x has type f64[3]; it must be an f32 or f64 scalar (reduce an array loss with rnz (+) first)"},
		{"x : f64[3]; rnz (-) id x", []string{"x"},
			"autodiff: rnz (-) (\\x0 -> x0) x: cannot differentiate the reduction by (-): only (+), max, min and (*) reductions (lifted to arrays, componentwise on tuples) have derivatives"},
		{"x : f64[3]; rnz (\\a b -> a + 2 * b) id x", []string{"x"},
			"autodiff: rnz (\\a b -> a + 2 * b) (\\x0 -> x0) x: cannot differentiate the reduction by \\a b -> a + 2 * b: only (+), max, min and (*) reductions (lifted to arrays, componentwise on tuples) have derivatives"},
		{"x : f64[3]; rnz (+) id x", nil,
			"autodiff: no inputs to differentiate against; name at least one"},
		{"x : f64[3]; rnz (+) id x", []string{"x", "x"},
			"autodiff: input x is named twice among the inputs to differentiate against"},
	} {
		err := gradErr(t, tc.src, tc.wrt...)
		if err.Error() != tc.want {
			t.Errorf("Grad of %s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// An input of the same name that is not the one the loss reads is refused.
func TestGradErrorOtherInput(t *testing.T) {
	p := parse(t, "x : f64[3]; rnz (+) id x")
	other, err := graph.NewInput("x", graph.ArrayOf(graph.Float64, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Grad(p.Body, []*graph.Input{other})
	want := "autodiff: input x to differentiate against is not the input of that name the loss reads"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// An op without a derivative rule is an error naming the op and the term.
// Every op of graph's table has one today (TestEveryOpHasARule), so the
// test takes erf's rule away for its duration.
func TestGradErrorOpWithoutRule(t *testing.T) {
	saved := scalarRules[graph.Erf]
	delete(scalarRules, graph.Erf)
	defer func() { scalarRules[graph.Erf] = saved }()
	err := gradErr(t, "x : f64[3]; rnz (+) (\\a -> erf a) x", "x")
	want := "autodiff: erf a: op erf has no derivative rule; write the term without it or give it one in autodiff's scalarRules"
	if err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// Every op of graph's op table has a derivative rule (zero for the ops
// with bool or i32 results), so a new op fails here until it gets one.
func TestEveryOpHasARule(t *testing.T) {
	n := 0
	for op := graph.Op(1); !strings.HasPrefix(op.String(), "op("); op++ {
		n++
		if _, ok := scalarRules[op]; !ok {
			t.Errorf("op %v has no derivative rule", op)
		}
	}
	if n < 29 {
		t.Errorf("found %d ops; graph's table has at least 29", n)
	}
}
