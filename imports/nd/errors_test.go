package nd_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/layers"
)

func f32In(t *testing.T, name string, extents ...int) graph.Node {
	t.Helper()
	var ty graph.Type = graph.Scalar(graph.Float32)
	if len(extents) > 0 {
		ty = graph.ArrayOf(graph.Float32, extents...)
	}
	in, err := graph.NewInput(name, ty, false)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestErrors checks the message of every refusal: it names the operation,
// the operand, and the axis, extent or rank at fault.
func TestErrors(t *testing.T) {
	x := f32In(t, "x", 2, 3, 4)
	m := f32In(t, "m", 3, 4)
	s := f32In(t, "s")
	d, err := graph.NewInput("d", graph.ArrayOf(graph.Float64, 4), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() (graph.Node, error)
		want string
	}{
		{"binary-mismatch", func() (graph.Node, error) { return nd.Binary(graph.Add, m, f32In(t, "y", 3, 5)) },
			"nd.Binary add: x has extent 4 on axis 1 (1 from the end) and y has 5: they do not broadcast (want equal extents or 1)"},
		{"binary-dtypes", func() (graph.Node, error) { return nd.Binary(graph.Add, m, d) },
			"nd.Binary add: x has element type f32 and y f64: cast one first"},
		{"binary-not-binary", func() (graph.Node, error) { return nd.Binary(graph.Exp, m, m) },
			"nd.Binary: exp is not a binary op"},
		{"zip-three", func() (graph.Node, error) {
			return nd.Ops{Source: "node7"}.ZipWith(nil, m)
		}, "nd.ZipWith (node7): f is nil"},
		{"zip-three-mismatch", func() (graph.Node, error) {
			return nd.Ops{Source: "n"}.ZipWith(func(b *layers.Builder, vs ...graph.Node) graph.Node { return vs[0] }, m, x, f32In(t, "z", 2, 1, 5))
		}, "nd.ZipWith (n): operand 0 has extent 4 on axis 2 (1 from the end) and operand 2 has 5: they do not broadcast (want equal extents or 1)"},
		{"matmul-inner", func() (graph.Node, error) { return nd.MatMul(m, f32In(t, "b", 5, 2)) },
			"nd.MatMul: a [3,4] has 4 columns (axis 1) but b [5,2] has 5 rows (axis 0)"},
		{"matmul-scalar", func() (graph.Node, error) { return nd.MatMul(s, m) },
			"nd.MatMul: a has rank 0 and b rank 2: matmul needs rank 1 or more (use Binary with mul for scalars)"},
		{"matmul-batch", func() (graph.Node, error) { return nd.MatMul(x, f32In(t, "b", 3, 4, 2)) },
			"nd.MatMul: a has extent 2 on batch axis 0 (1 from the end) and b has 3: they do not broadcast (want equal extents or 1)"},
		{"gemm-rank", func() (graph.Node, error) { return nd.Gemm(x, m, nil, 1, 1, false, false) },
			"nd.Gemm: A has rank 3 and B rank 2, want 2 and 2"},
		{"gemm-inner", func() (graph.Node, error) { return nd.Gemm(m, m, nil, 1, 1, false, false) },
			"nd.Gemm: A' is [3,4] and B' [3,4] (transA=false, transB=false): inner extents 4 and 3 differ"},
		{"gemm-c", func() (graph.Node, error) { return nd.Gemm(m, m, f32In(t, "c", 2, 3), 1, 1, false, true) },
			"nd.Gemm: C [2,3] does not broadcast to the result [3,3]"},
		{"transpose-len", func() (graph.Node, error) { return nd.Transpose(x, []int{0, 1}) },
			"nd.Transpose: perm [0 1] has 2 entries for x of rank 3"},
		{"transpose-dup", func() (graph.Node, error) { return nd.Transpose(x, []int{0, 1, -2}) },
			"nd.Transpose: perm entry 1 and -2 name the same axis 1 of rank 3"},
		{"transpose-range", func() (graph.Node, error) { return nd.Transpose(x, []int{0, 1, 3}) },
			"nd.Transpose: perm entry 3 is out of range for rank 3 (want -3..2)"},
		{"reshape-count", func() (graph.Node, error) { return nd.Reshape(x, []int{5, 5}) },
			"nd.Reshape: shape [5,5] has 25 elements, the operand's [2,3,4] has 24"},
		{"reshape-minus-one", func() (graph.Node, error) { return nd.Reshape(x, []int{-1, 4}) },
			"nd.Reshape: extent -1 of axis 0 in [-1,4] is not between 1 and 1099511627776 (resolve 0 and -1 with ResolveShape first)"},
		{"reshape-scalar", func() (graph.Node, error) { return nd.Reshape(s, []int{1}) },
			"nd.Reshape: a scalar cannot become an array of shape [1]: the IR builds arrays only by mapping over arrays (declare a constant of the wanted shape instead)"},
		{"flatten-axis", func() (graph.Node, error) { return nd.Flatten(x, 4) },
			"nd.Flatten: axis 4 is out of range for rank 3 (want -3..3)"},
		{"squeeze-extent", func() (graph.Node, error) { return nd.Squeeze(x, []int{-1}) },
			"nd.Squeeze: axis 2 of x [2,3,4] has extent 4, not 1"},
		{"unsqueeze-range", func() (graph.Node, error) { return nd.Unsqueeze(m, []int{3}) },
			"nd.Unsqueeze: axis 3 is out of range for rank 3 (want -3..2)"},
		{"unsqueeze-scalar", func() (graph.Node, error) { return nd.Unsqueeze(s, []int{0}) },
			"nd.Unsqueeze: x is a scalar: it cannot gain axes (the IR builds arrays only by mapping over arrays; declare a constant with its final shape)"},
		{"reduce-axis", func() (graph.Node, error) { return nd.Reduce(nd.Sum, x, []int{3}, false) },
			"nd.Reduce sum: axis 3 is out of range for rank 3 (want -3..2)"},
		{"reduce-dup", func() (graph.Node, error) { return nd.Reduce(nd.Max, x, []int{2, -1}, false) },
			"nd.Reduce max: axis 2 and -1 name the same axis 2 of rank 3"},
		{"softmax-axis", func() (graph.Node, error) { return nd.Softmax(m, -3) },
			"nd.Softmax: axis -3 is out of range for rank 2 (want -2..1)"},
		{"softmax-scalar", func() (graph.Node, error) { return nd.LogSoftmax(s, 0) },
			"nd.LogSoftmax: x is a scalar, want an array"},
		{"argmax-axis", func() (graph.Node, error) { return nd.Ops{Source: "am"}.ArgMax(m, 2, false, false) },
			"nd.ArgMax (am): axis 2 is out of range for rank 2 (want -2..1)"},
		{"cast-type", func() (graph.Node, error) { return nd.Cast(m, graph.Invalid) },
			"nd.Cast: unknown target element type invalid"},
		{"broadcast-stretch", func() (graph.Node, error) { return nd.Broadcast(f32In(t, "v", 3, 1), []int{2, 3, 4}) },
			"nd.Broadcast: axis 0 of the result [2,3,4] stretches x [3,1] from extent 1 to 2: the IR makes an array only by mapping over one of that extent (use BroadcastLike with such an operand, or ZipWith)"},
		{"broadcast-mismatch", func() (graph.Node, error) { return nd.Broadcast(m, []int{3, 5}) },
			"nd.Broadcast: x has extent 4 on axis 1 (1 from the end) and the target shape has 5: they do not broadcast (want equal extents or 1)"},
		{"concat-none", func() (graph.Node, error) { return nd.Concat(0) }, "nd.Concat: no operands"},
		{"concat-extent", func() (graph.Node, error) { return nd.Concat(1, m, f32In(t, "y", 2, 4)) },
			"nd.Concat: operand 0 [3,4] and operand 1 [2,4] differ on axis 0, which is not the concatenation axis 1"},
		{"concat-rank", func() (graph.Node, error) { return nd.Concat(0, m, x) },
			"nd.Concat: operand 0 has rank 2 and operand 1 rank 3"},
		{"concat-dtype", func() (graph.Node, error) { return nd.Concat(0, f32In(t, "v", 4), d) },
			"nd.Concat: operand 0 has element type f32 and operand 1 f64"},
		{"concat-axis", func() (graph.Node, error) { return nd.Concat(-3, m, m) },
			"nd.Concat: axis -3 is out of range for rank 2 (want -2..1)"},
		{"concat-scalar", func() (graph.Node, error) { return nd.Concat(0, m, s) },
			"nd.Concat: operand 1 is a scalar, want an array"},
		{"nil", func() (graph.Node, error) { return nd.Map(nil, nil) }, "nd.Map: f is nil"},
		{"nil-operand", func() (graph.Node, error) { return nd.Transpose(nil, nil) }, "nd.Transpose: x is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			y, err := c.run()
			if err == nil {
				t.Fatalf("no error; term %s", graph.Print(y))
			}
			if err.Error() != c.want {
				t.Errorf("error\n%s\nwant\n%s", err, c.want)
			}
		})
	}
}

// TestResolveShape checks ONNX Reshape's 0 and -1 against hand-worked
// shapes, and its refusals.
func TestResolveShape(t *testing.T) {
	for _, c := range []struct {
		in, shape []int
		want      string
	}{
		{[]int{2, 3, 4}, []int{0, -1}, "[2 12]"},
		{[]int{2, 3, 4}, []int{-1}, "[24]"},
		{[]int{2, 3, 4}, []int{4, 0, 2}, "[4 3 2]"},
		{[]int{2, 3, 4}, []int{-1, -1}, "nd.ResolveShape: shape [-1 -1] has -1 at entries 0 and 1: at most one may be inferred"},
		{[]int{2, 3, 4}, []int{5, -1}, "nd.ResolveShape: shape [5 -1]: 24 elements of the input [2,3,4] are not a multiple of 5"},
		{[]int{2, 3}, []int{0, 0, 0}, "nd.ResolveShape: entry 2 of shape [0 0 0] is 0 (copy the input's extent) but the input [2,3] has rank 2"},
		{[]int{2, 3}, []int{7}, "nd.ResolveShape: shape [7] has 7 elements, the input [2,3] has 6"},
		{[]int{2, 3}, []int{-2, 3}, "nd.ResolveShape: entry 0 of shape [-2 3] is -2, want -1, 0 or a positive extent"},
	} {
		got, err := nd.ResolveShape(c.in, c.shape, false)
		s := ""
		if err != nil {
			s = err.Error()
		} else {
			s = fmt.Sprint(got)
		}
		if s != c.want {
			t.Errorf("ResolveShape(%v, %v) = %s, want %s", c.in, c.shape, s, c.want)
		}
	}
}

// TestIndex checks the index inputs: one per extent, recognised by
// IndexExtent, valued 0..n-1, and bound by BindIndexes without overwriting
// a binding the caller made.
func TestIndex(t *testing.T) {
	a, err := nd.Index(5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := nd.Index(5)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.Name != "nd.index.5" || !a.Param || a.Type.String() != "i32[5]" {
		t.Errorf("Index(5) = %p %s %v %v, again %p", a, a.Name, a.Param, a.Type, b)
	}
	if n, ok := nd.IndexExtent(a); !ok || n != 5 {
		t.Errorf("IndexExtent = %d, %v", n, ok)
	}
	impostor, err := graph.NewInput("nd.index.5", graph.ArrayOf(graph.Int32, 5), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := nd.IndexExtent(impostor); ok {
		t.Errorf("an input of the same name that Index did not make counts as an index")
	}
	if _, err := nd.Index(0); err == nil || err.Error() != "nd.Index: extent 0 is not between 1 and 1099511627776" {
		t.Errorf("Index(0): %v", err)
	}
	y, err := nd.ArgMax(f32In(t, "x", 2, 5), 1, false, false)
	if err != nil {
		t.Fatal(err)
	}
	bind := map[string]graph.Value{}
	if err := nd.BindIndexes(y, bind); err != nil {
		t.Fatal(err)
	}
	v, ok := bind["nd.index.5"].(*graph.Array)
	if !ok || len(bind) != 1 || fmt.Sprint(v.Values()) != "[0 1 2 3 4]" || v.DType() != graph.Int32 {
		t.Fatalf("bindings %v", bind)
	}
	mine := &graph.Array{}
	bind["nd.index.5"] = mine
	if err := nd.BindIndexes(y, bind); err != nil {
		t.Fatal(err)
	}
	if bind["nd.index.5"] != mine {
		t.Errorf("BindIndexes replaced the caller's binding")
	}
}
