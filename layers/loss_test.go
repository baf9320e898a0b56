package layers_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// scalarOf evaluates a scalar term.
func scalarOf(t *testing.T, y graph.Node, bind map[string]graph.Value) float64 {
	t.Helper()
	v, err := graph.Eval(y, bind)
	if err != nil {
		t.Fatalf("eval: %v\nterm: %s", err, graph.Print(y))
	}
	s, ok := v.(graph.ScalarValue)
	if !ok {
		t.Fatalf("eval returned %T, want a scalar", v)
	}
	return s.V
}

// crossEntropyLoop is the mean softmax cross-entropy of rows z against
// labels, in f64 with log-sum-exp, written as plain loops.
func crossEntropyLoop(z []float64, labels []int, classes int) float64 {
	total := 0.0
	for i, y := range labels {
		row := z[i*classes : (i+1)*classes]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(v - m)
		}
		picked := 0.0
		if y >= 0 && y < classes {
			picked = row[y]
		}
		total += math.Log(s) + m - picked
	}
	return total / float64(len(labels))
}

// SoftmaxCrossEntropy agrees with a plain loop, also on logits of ±80 to
// 1000 where exp without the max shift overflows f32 (and f64 at 1000),
// and its gradient is (softmax(z) - onehot(y)) / batch, the textbook
// derivative, computed here by loops.
func TestSoftmaxCrossEntropy(t *testing.T) {
	const batch, classes = 5, 4
	labels := []int{0, 3, 1, 2, 3}
	for _, dt := range dtypes {
		for _, scale := range []float64{1, 80, 1000} {
			z := uniform(rng(7), dt, batch*classes, -scale, scale)
			x := input(t, dt, batch, classes)
			loss, p, err := layers.SoftmaxCrossEntropy("ce", x, "labels")
			if err != nil {
				t.Fatal(err)
			}
			if got := check(t, loss); got.String() != dt.String() {
				t.Fatalf("loss has type %v, want %v", got, dt)
			}
			assertSources(t, loss, "ce")
			ys := make([]float64, batch)
			for i, y := range labels {
				ys[i] = float64(y)
			}
			classIdx, err := layers.ClassIndices(classes)
			if err != nil {
				t.Fatal(err)
			}
			bind := map[string]graph.Value{"x": array(t, dt, z, batch, classes), p.Labels.Name: array(t, graph.Int32, ys, batch), layers.ClassesInput: classIdx}
			got := scalarOf(t, loss, bind)
			assertClose(t, dt, []float64{got}, []float64{crossEntropyLoop(z, labels, classes)})

			g, err := autodiff.Grad(loss, []*graph.Input{x})
			if err != nil {
				t.Fatal(err)
			}
			gv, err := graph.Eval(g, bind)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, batch*classes)
			for i, y := range labels {
				row := z[i*classes : (i+1)*classes]
				m := math.Inf(-1)
				for _, v := range row {
					m = math.Max(m, v)
				}
				s := 0.0
				for _, v := range row {
					s += math.Exp(v - m)
				}
				for k, v := range row {
					want[i*classes+k] = math.Exp(v-m) / s / batch
					if k == y {
						want[i*classes+k] -= 1.0 / batch
					}
				}
			}
			assertClose(t, dt, gv.(graph.TupleValue)[1].(*graph.Array).Values(), want)
		}
	}
}

// A label outside [0, classes) matches no class: its row's picked logit
// is 0, so the row contributes log Σ exp z, as documented.
func TestSoftmaxCrossEntropyLabelOutOfRange(t *testing.T) {
	z := []float64{1, 2, 3, 0.5, -1, 2}
	x := input(t, graph.Float64, 2, 3)
	loss, p, err := layers.SoftmaxCrossEntropy("ce", x, "y")
	if err != nil {
		t.Fatal(err)
	}
	classIdx, _ := layers.ClassIndices(3)
	bind := map[string]graph.Value{"x": array(t, graph.Float64, z, 2, 3), p.Labels.Name: array(t, graph.Int32, []float64{7, -1}, 2), layers.ClassesInput: classIdx}
	lse := func(a, b, c float64) float64 { return math.Log(math.Exp(a) + math.Exp(b) + math.Exp(c)) }
	want := (lse(1, 2, 3) + lse(0.5, -1, 2)) / 2
	if got := scalarOf(t, loss, bind); math.Abs(got-want) > 1e-15 {
		t.Errorf("loss with labels 7 and -1 = %v, want %v", got, want)
	}
}

// MeanSquaredError agrees with a plain loop for ranks 1 to 3.
func TestMeanSquaredError(t *testing.T) {
	for _, dt := range dtypes {
		for _, extents := range [][]int{{7}, {5, 3}, {2, 3, 4}} {
			n := 1
			for _, e := range extents {
				n *= e
			}
			pv := uniform(rng(1), dt, n, -2, 2)
			tv := uniform(rng(2), dt, n, -2, 2)
			pred := input(t, dt, extents...)
			target, err := graph.NewInput("t", graph.ArrayOf(dt, extents...), false)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := layers.MeanSquaredError("mse", pred, target)
			if err != nil {
				t.Fatal(err)
			}
			assertSources(t, loss, "mse")
			want := 0.0
			for i := range pv {
				want += (pv[i] - tv[i]) * (pv[i] - tv[i])
			}
			want /= float64(n)
			got := scalarOf(t, loss, map[string]graph.Value{"x": array(t, dt, pv, extents...), "t": array(t, dt, tv, extents...)})
			assertClose(t, dt, []float64{got}, []float64{want})
		}
	}
}

// The losses refuse arguments that do not fit, naming the layer.
func TestLossErrors(t *testing.T) {
	_, _, err := layers.SoftmaxCrossEntropy("ce", input(t, graph.Float64, 4), "labels")
	assertError(t, err, "ce (SoftmaxCrossEntropy): logits have type f64[4], want rank 2: f64[batch,classes]")
	_, _, err = layers.SoftmaxCrossEntropy("ce", input(t, graph.Float64, 4, 3), "classes")
	assertError(t, err, `ce (SoftmaxCrossEntropy): labels input named "classes", want a name other than "classes"`)
	target, _ := graph.NewInput("t", graph.ArrayOf(graph.Float64, 4, 2), false)
	_, err = layers.MeanSquaredError("mse", input(t, graph.Float64, 4, 3), target)
	assertError(t, err, "mse (MeanSquaredError): target has type f64[4,2], want the extents and element type of pred, f64[4,3]")
	if _, err := layers.ClassIndices(0); err == nil || err.Error() != "layers: 0 classes, want 1 to "+strconv.Itoa(graph.MaxExtent) {
		t.Errorf("layers.ClassIndices(0): %v", err)
	}
}
