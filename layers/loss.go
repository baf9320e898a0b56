package layers

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// ClassesInput is the name of the input SoftmaxCrossEntropy makes for the
// class indices 0, 1, …, classes-1; ClassIndices fills it.
const ClassesInput = "classes"

// ClassIndices returns the value of the input ClassesInput for a loss over
// n classes: the i32 array 0, 1, …, n-1. The graph IR has no iota, so the
// indices a label is compared with come in as an input.
func ClassIndices(n int) (*graph.Array, error) {
	if n < 1 || n > graph.MaxExtent {
		return nil, fmt.Errorf("layers: %d classes, want 1 to %d", n, graph.MaxExtent)
	}
	a, err := graph.Zeros(graph.Int32, n)
	if err != nil {
		return nil, err
	}
	for i := range n {
		a.Set(float64(i), i)
	}
	return a, nil
}

// CrossEntropyParams are the inputs SoftmaxCrossEntropy reads besides the
// logits.
type CrossEntropyParams struct {
	Labels  *graph.Input // the labels: i32[batch], each in [0, classes)
	Classes *graph.Input // ClassesInput: i32[classes], bound to ClassIndices(classes)
}

// SoftmaxCrossEntropy returns the mean over the batch of the softmax
// cross-entropy of logits, of type dt[batch, classes], against integer
// labels: the input labels, i32[batch], that the caller names. Row by row
// it is log Σ_k exp z_k - z_y, computed from the row's maximum m so that
// exp never overflows (log-sum-exp):
//
//	rnz (+) (\r y -> let m = reduce max r in
//	                 log (rnz (+) (\v -> exp (v - m)) r) + m
//	                 - rnz (+) (\v k -> select (k == y) v 0) r classes) z labels / batch
//
// The logit of the label is picked by comparing the label with the class
// indices, the input ClassesInput (i32[classes], 0 … classes-1, which
// ClassIndices makes): the graph IR has no iota and no gather, and a
// select against an index array is an ordinary nzip that fuses with the
// rest and that autodiff differentiates (the cotangent goes to the picked
// logit only). This is PyTorch's nn.CrossEntropyLoss with reduction
// "mean" and Keras's SparseCategoricalCrossentropy(from_logits=True).
//
// A label outside [0, classes) is not an error the term can raise: it
// matches no class, so its row's picked logit is 0 and the row contributes
// log Σ exp z_k, with the gradient of a label-less row (the softmax).
// PyTorch raises at run time instead; here the caller checks the labels
// before running (models' training runner does, naming the row and the
// label).
func SoftmaxCrossEntropy(name string, logits graph.Node, labels string) (graph.Node, *CrossEntropyParams, error) {
	l := newLayer("SoftmaxCrossEntropy", name)
	if l.name == "" {
		return nil, nil, &Error{Kind: l.kind, Msg: "empty layer name"}
	}
	xt, err := l.floatArray(logits)
	if err != nil {
		return nil, nil, err
	}
	if xt.Rank() != 2 {
		return nil, nil, l.errorf("logits have type %v, want rank 2: %v[batch,classes]", xt, xt.DType)
	}
	if labels == "" || labels == ClassesInput {
		return nil, nil, l.errorf("labels input named %q, want a name other than %q", labels, ClassesInput)
	}
	batch, classes := xt.Layout[0].Extent, xt.Layout[1].Extent
	p := &CrossEntropyParams{}
	if p.Labels, err = graph.NewInput(labels, graph.ArrayOf(graph.Int32, batch), false); err != nil {
		return nil, nil, l.wrap(err, "labels")
	}
	if p.Classes, err = graph.NewInput(ClassesInput, graph.ArrayOf(graph.Int32, classes), false); err != nil {
		return nil, nil, l.wrap(err, "classes")
	}
	row := l.Lambda([]string{"r", "y"}, func(vs []graph.Node) graph.Node {
		r, y := vs[0], vs[1]
		return l.Let("m", l.Reduce(l.Op(graph.Max), r), func(m graph.Node) graph.Node {
			sum := l.RNZ(l.Op(graph.Add), l.Lambda1("v", func(v graph.Node) graph.Node {
				return l.Call(graph.Exp, l.Sub(v, m))
			}), r)
			picked := l.RNZ(l.Op(graph.Add), l.Lambda([]string{"v", "k"}, func(vk []graph.Node) graph.Node {
				return l.Call(graph.Select, l.Call(graph.Eq, vk[1], y), vk[0], l.Const(0))
			}), r, p.Classes)
			return l.Sub(l.Add(l.Call(graph.Log, sum), m), picked)
		})
	})
	loss := l.Div(l.RNZ(l.Op(graph.Add), row, logits, p.Labels), l.Const(float64(batch)))
	if loss, err = l.done(loss); err != nil {
		return nil, nil, err
	}
	return loss, p, nil
}

// MeanSquaredError returns the mean over all elements of (pred - target)²,
// for pred and target f32 or f64 arrays of one type and any rank: PyTorch's
// nn.MSELoss with reduction "mean" (Keras's MeanSquaredError averages over
// the last axis, then over the batch, which is the same number). For rank 2
// the term is
//
//	rnz (+) (\p t -> rnz (+) (\a b -> (a - b) * (a - b)) p t) pred target / n
//
// with n the number of elements.
func MeanSquaredError(name string, pred, target graph.Node) (graph.Node, error) {
	l := newLayer("MeanSquaredError", name)
	if l.name == "" {
		return nil, &Error{Kind: l.kind, Msg: "empty layer name"}
	}
	pt, err := l.floatArray(pred)
	if err != nil {
		return nil, err
	}
	tinfo, err := graph.Check(target)
	if err != nil {
		return nil, l.wrap(err, "target is ill-typed")
	}
	tt, ok := tinfo.TypeOf(target).(*graph.ArrayType)
	if !ok || tt.DType != pt.DType || !sameExtents(tt, pt) {
		return nil, l.errorf("target has type %v, want the extents and element type of pred, %v", tinfo.TypeOf(target), pt)
	}
	var sq func(rank int) graph.Node
	sq = func(rank int) graph.Node {
		if rank == 1 {
			return l.Lambda([]string{"a", "b"}, func(vs []graph.Node) graph.Node {
				d := l.Sub(vs[0], vs[1])
				return l.Mul(d, d)
			})
		}
		return l.Lambda([]string{"p", "t"}, func(vs []graph.Node) graph.Node {
			return l.RNZ(l.Op(graph.Add), sq(rank-1), vs[0], vs[1])
		})
	}
	loss := l.Div(l.RNZ(l.Op(graph.Add), sq(pt.Rank()), pred, target), l.Const(float64(pt.Layout.Size())))
	return l.done(loss)
}

// sameExtents reports whether a and b have the same extents.
func sameExtents(a, b *graph.ArrayType) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	for i := range a.Layout {
		if a.Layout[i].Extent != b.Layout[i].Extent {
			return false
		}
	}
	return true
}
