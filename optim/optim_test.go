package optim

import (
	"math"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// vec returns the f64 vector vs.
func vec(t *testing.T, vs ...float64) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(append([]float64(nil), vs...), len(vs))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run builds o's update of a parameter "p" with gradient "g", state and
// scalar inputs, all bound from vals (state and scalars by the names Slots
// and Scalars give), and checks that the interpreter and the native back
// end (the update fused into one kernel) give want: the tuple (p', s'…),
// or p' alone.
func run(t *testing.T, o Optimizer, extents []int, vals map[string]graph.Value, want graph.Value) {
	t.Helper()
	in := func(name string, typ graph.Type) *graph.Input {
		i, err := graph.NewInput(name, typ, false)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	at := graph.ArrayOf(graph.Float64, extents...)
	var state, scalars []graph.Node
	for _, s := range o.Slots() {
		state = append(state, in(s, at))
	}
	for _, s := range o.Scalars() {
		scalars = append(scalars, in(s, graph.Scalar(graph.Float64)))
	}
	u, err := o.Update(in("p", at), in("g", at), state, scalars)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graph.Eval(u, vals)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Diff(want, got, 1e-15); err != nil {
		t.Errorf("%s: interpreter: %v\nterm: %s", o.Name(), err, graph.Print(u))
	}
	res, err := fusion.Fuse(u, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Graph.Kernels); n != 1 {
		t.Errorf("%s: the update fused into %d kernels, want 1:\n%v", o.Name(), n, res.Graph)
	}
	exe, err := native.New(native.Options{}).Compile(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	got, err = exe.Run(vals)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Diff(want, got, 1e-15); err != nil {
		t.Errorf("%s: native: %v", o.Name(), err)
	}
}

// SGD's updates, by hand from torch.optim.SGD's formulas, with p = (1, -2),
// g = (0.5, 1), v = (0.1, -0.2), LR 0.1:
//
//	momentum 0.9: v' = 0.9·v + g = (0.59, 0.82); p' = p - 0.1·v' = (0.941, -2.082)
//	Nesterov:     p' = p - 0.1·(g + 0.9·v') = (1 - 0.1031, -2 - 0.1738) = (0.8969, -2.1738)
//	plain, weight decay 0.01: g' = g + 0.01·p = (0.51, 0.98); p' = (0.949, -2.098)
func TestSGD(t *testing.T) {
	vals := map[string]graph.Value{"p": vec(t, 1, -2), "g": vec(t, 0.5, 1), "momentum": vec(t, 0.1, -0.2)}
	run(t, SGD{LR: 0.1, Momentum: 0.9}, []int{2}, vals, graph.TupleValue{vec(t, 0.941, -2.082), vec(t, 0.59, 0.82)})
	run(t, SGD{LR: 0.1, Momentum: 0.9, Nesterov: true}, []int{2}, vals, graph.TupleValue{vec(t, 0.8969, -2.1738), vec(t, 0.59, 0.82)})
	delete(vals, "momentum")
	run(t, SGD{LR: 0.1, WeightDecay: 0.01}, []int{2}, vals, vec(t, 0.949, -2.098))
}

// The update of a matrix parameter is the same numbers, nested one level
// deeper: p = [[1, -2], [0, 3]], g = [[0.5, 1], [1, -1]], v = 0, momentum
// 0.9, LR 0.1: v' = g, p' = p - 0.1·g = [[0.95, -2.1], [-0.1, 3.1]].
func TestSGDMatrix(t *testing.T) {
	mat := func(vs ...float64) *graph.Array {
		a, err := graph.FromFloat64(vs, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	vals := map[string]graph.Value{"p": mat(1, -2, 0, 3), "g": mat(0.5, 1, 1, -1), "momentum": mat(0, 0, 0, 0)}
	run(t, SGD{LR: 0.1, Momentum: 0.9}, []int{2, 2}, vals, graph.TupleValue{mat(0.95, -2.1, -0.1, 3.1), mat(0.5, 1, 1, -1)})
}

// Adam's updates, by hand from torch.optim.Adam's and AdamW's formulas,
// LR 0.1, β 0.9 and 0.999, eps 1e-8, p = (1, -2):
//
// Step 2 from m = (0.05, 0.1), v = (0.00025, 0.001) with g = (-0.5, 2):
// bc1 = 1 - 0.9² = 0.19, bc2 = 1 - 0.999² = 0.001999;
// m' = 0.9·m + 0.1·g = (-0.005, 0.29);
// v' = 0.999·v + 0.001·g² = (0.00049975, 0.004999);
// p' = p - 0.1·(m'/0.19) / (sqrt(v'/0.001999) + 1e-8), and v'/bc2 is 0.25
// for the first element, so p'_0 = 1 + 0.1·(0.005/0.19)/(0.5 + 1e-8).
//
// Step 1 of AdamW, weight decay 0.01, from zero state with g = (0.5, 1):
// p is first decayed to p·(1 - 0.1·0.01) = (0.999, -1.998); m' = 0.1·g =
// (0.05, 0.1), v' = 0.001·g² = (0.00025, 0.001); m'/bc1 = g and
// sqrt(v'/bc2) = |g|, so p' = (0.999 - 0.1·0.5/(0.5 + 1e-8), -1.998 -
// 0.1/(1 + 1e-8)).
//
// Step 1 of Adam with L2 weight decay 0.01, same g: g' = g + 0.01·p =
// (0.51, 0.98), m' = 0.1·g' = (0.051, 0.098), v' = 0.001·g'² = (0.0002601,
// 0.0009604), p' = (1 - 0.1·0.51/(0.51 + 1e-8), -2 - 0.1·0.98/(0.98 + 1e-8)).
func TestAdam(t *testing.T) {
	adam := NewAdam(0.1)
	sc, err := adam.ScalarValues(2, graph.Float64)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc["adam.bc1"].(graph.ScalarValue).V; math.Abs(got-0.19) > 1e-16 {
		t.Errorf("bc1 at step 2 = %v, want 0.19", got)
	}
	if got := sc["adam.bc2"].(graph.ScalarValue).V; math.Abs(got-0.001999) > 1e-16 {
		t.Errorf("bc2 at step 2 = %v, want 0.001999", got)
	}
	vals := map[string]graph.Value{"p": vec(t, 1, -2), "g": vec(t, -0.5, 2), "m": vec(t, 0.05, 0.1), "v": vec(t, 0.00025, 0.001),
		"adam.bc1": graph.ScalarValue{DType: graph.Float64, V: 0.19}, "adam.bc2": graph.ScalarValue{DType: graph.Float64, V: 0.001999}}
	run(t, adam, []int{2}, vals, graph.TupleValue{
		vec(t, 1+0.1*(0.005/0.19)/(0.5+1e-8), -2-0.1*(0.29/0.19)/(math.Sqrt(0.004999/0.001999)+1e-8)),
		vec(t, -0.005, 0.29), vec(t, 0.00049975, 0.004999)})

	one := map[string]graph.Value{"p": vec(t, 1, -2), "g": vec(t, 0.5, 1), "m": vec(t, 0, 0), "v": vec(t, 0, 0),
		"adam.bc1": graph.ScalarValue{DType: graph.Float64, V: 0.1}, "adam.bc2": graph.ScalarValue{DType: graph.Float64, V: 0.001}}
	run(t, NewAdamW(0.1), []int{2}, one, graph.TupleValue{
		vec(t, 0.999-0.1*0.5/(0.5+1e-8), -1.998-0.1/(1+1e-8)),
		vec(t, 0.05, 0.1), vec(t, 0.00025, 0.001)})
	l2 := NewAdam(0.1)
	l2.WeightDecay = 0.01
	run(t, l2, []int{2}, one, graph.TupleValue{
		vec(t, 1-0.1*0.51/(0.51+1e-8), -2-0.1*0.98/(0.98+1e-8)),
		vec(t, 0.051, 0.098), vec(t, 0.0002601, 0.0009604)})
}

// Hyperparameters out of range are refused, naming the field.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o    Optimizer
		want string
	}{
		{SGD{LR: 0}, "optim.sgd: LR: 0, want a positive learning rate"},
		{SGD{LR: 0.1, Momentum: 1}, "optim.sgd: Momentum: 1, want a number in [0, 1)"},
		{SGD{LR: 0.1, Nesterov: true}, "optim.sgd: Nesterov: Nesterov momentum needs Momentum > 0, as in PyTorch"},
		{SGD{LR: 0.1, WeightDecay: -1}, "optim.sgd: WeightDecay: -1, want a number >= 0"},
		{Adam{LR: 0.1, Beta1: 1, Beta2: 0.999}, "optim.adam: Beta1: 1, want a number in [0, 1) (PyTorch's default is 0.9)"},
		{Adam{LR: 0.1, Beta1: 0.9, Beta2: math.NaN()}, "optim.adam: Beta2: NaN, want a number in [0, 1) (PyTorch's default is 0.999)"},
		{Adam{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: -1, Decoupled: true}, "optim.adamw: Eps: -1, want a number >= 0 (PyTorch's default is 1e-8)"},
	} {
		err := c.o.Validate()
		if err == nil || err.Error() != c.want {
			t.Errorf("%#v: got %v, want %s", c.o, err, c.want)
		}
	}
	if _, err := NewAdam(0.1).ScalarValues(0, graph.Float64); err == nil || err.Error() != "optim.adam: step 0, want a step count of at least 1" {
		t.Errorf("step 0: got %v", err)
	}
}

// An update whose gradient does not have the parameter's extents is
// refused, naming both types.
func TestUpdateShapeMismatch(t *testing.T) {
	p, _ := graph.NewInput("p", graph.ArrayOf(graph.Float64, 2), false)
	g, _ := graph.NewInput("g", graph.ArrayOf(graph.Float64, 3), false)
	_, err := SGD{LR: 0.1}.Update(p, g, nil, nil)
	want := "optim.sgd: gradient has type f64[3], want the parameter's f64[2]"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
