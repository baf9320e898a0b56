package tf

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// evalNoInputs imports nodes (with output "y") and evaluates the model,
// which reads no data input.
func evalNoInputs(t *testing.T, nodes ...*tfpb.NodeDef) ([]float64, error) {
	t.Helper()
	m, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{Outputs: []string{"y"}})
	if err != nil {
		return nil, err
	}
	bind, err := m.Bindings(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := graph.Eval(m.Term, bind)
	if err != nil {
		t.Fatal(err)
	}
	switch v := v.(type) {
	case *graph.Array:
		return v.Values(), nil
	case graph.ScalarValue:
		return []float64{v.V}, nil
	}
	t.Fatalf("value %v", v)
	return nil, nil
}

// TestStridedSlice pins the folding of StridedSlice on a constant vector
// to Python's slicing of [10, 20, 30, 40, 50], computed by hand.
func TestStridedSlice(t *testing.T) {
	vec := constI32("v", []int64{5}, 10, 20, 30, 40, 50)
	slice := func(b, e, s int64, masks map[string]int64) []*tfpb.NodeDef {
		n := ndef("y", "StridedSlice", "v", "b", "e", "s")
		for k, m := range masks {
			withAttr(n, k, &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: m}})
		}
		return []*tfpb.NodeDef{vec, constI32("b", []int64{1}, int32(b)), constI32("e", []int64{1}, int32(e)), constI32("s", []int64{1}, int32(s)), n}
	}
	for _, tc := range []struct {
		what    string
		b, e, s int64
		masks   map[string]int64
		want    string
	}{
		{"[1:4]", 1, 4, 1, nil, "[20 30 40]"},
		{"[-2:]", -2, 0, 1, map[string]int64{"end_mask": 1}, "[40 50]"},
		{"[:2]", 9, 2, 1, map[string]int64{"begin_mask": 1}, "[10 20]"},
		{"[4:0:-2]", 4, 0, -2, nil, "[50 30]"},
		{"[::-1]", 0, 0, -1, map[string]int64{"begin_mask": 1, "end_mask": 1}, "[50 40 30 20 10]"},
		{"[-100:100]", -100, 100, 1, nil, "[10 20 30 40 50]"},
		{"[100:-100:-1]", 100, -100, -1, nil, "[50 40 30 20 10]"},
		{"[-1] shrink", -1, 0, 1, map[string]int64{"shrink_axis_mask": 1}, "[50]"},
		{"[1:5:MaxInt32]", 1, 5, math.MaxInt32, nil, "[20]"},
		{"[3:1] empty", 3, 1, 1, nil, `g.pb: node "y" (StridedSlice): the slice [3:1:1] of a vector of 5 elements is empty, which hofuse cannot hold`},
		{"stride 0", 0, 2, 0, nil, `g.pb: node "y" (StridedSlice): strides [0]: a stride must not be 0`},
		{"shrink out of range", 5, 0, 1, map[string]int64{"shrink_axis_mask": 1}, `g.pb: node "y" (StridedSlice): begin [5] is out of range for shrinking a vector of 5 elements`},
		{"[...]", 0, 1, 1, map[string]int64{"ellipsis_mask": 1}, "[10 20 30 40 50]"},
		{"[newaxis]", 0, 1, 1, map[string]int64{"new_axis_mask": 1}, "[10 20 30 40 50]"}, // shape [1,5]: TestOpsAgainstTensorFlow checks shapes
		{"[1:5:MaxInt32] as data", 1, 5, math.MaxInt32, map[string]int64{"new_axis_mask": 2}, "[20]"},
		{"[-2:] as data", -2, 0, 1, map[string]int64{"end_mask": 1, "new_axis_mask": 2}, "[40 50]"},
		{"[4:0:-2] as data", 4, 0, -2, map[string]int64{"new_axis_mask": 2}, `g.pb: node "y" (StridedSlice): nd.Slice (y): step -2 on axis 0 is not supported: the IR has no view that reverses an axis (only a negative step that keeps one element is)`},
	} {
		got, err := evalNoInputs(t, slice(tc.b, tc.e, tc.s, tc.masks)...)
		s := fmt.Sprint(got)
		if err != nil {
			s = err.Error()
		}
		if s != tc.want {
			t.Errorf("%s: got %s, want %s", tc.what, s, tc.want)
		}
	}
}

// TestStridedSliceHugeStride: an int64 stride near the ends of int64
// takes the first element (begin + stride must not wrap around).
func TestStridedSliceHugeStride(t *testing.T) {
	i64 := func(name string, v int64) *tfpb.NodeDef {
		return constTensor(name, &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shapeProto(1), Int64Val: []int64{v}})
	}
	for _, tc := range []struct {
		b, e, s int64
		want    string
	}{
		{1, 5, math.MaxInt64, "[20]"},
		{3, 0, math.MinInt64, "[40]"},
		{0, math.MaxInt64, math.MaxInt64 - 1, "[10]"},
	} {
		got, err := evalNoInputs(t, constI32("v", []int64{5}, 10, 20, 30, 40, 50),
			i64("b", tc.b), i64("e", tc.e), i64("s", tc.s), ndef("y", "StridedSlice", "v", "b", "e", "s"))
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("[%d:%d:%d]: got %v, %v; want %s", tc.b, tc.e, tc.s, got, err, tc.want)
		}
	}
}

// TestFoldErrors: the folded ops refuse operands the graph computes, and
// what they cannot hold, naming the node.
func TestFoldErrors(t *testing.T) {
	x := placeholder("x", 2, 3)
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"slice of data", []*tfpb.NodeDef{x, constI32("b", []int64{1}, 0), ndef("y", "StridedSlice", "x", "b", "b", "b")},
			`g.pb: node "y" (StridedSlice): strides[0] is 0; a stride must not be 0`},
		{"pack shapes", []*tfpb.NodeDef{constI32("a", []int64{2}, 1, 2), constI32("b", []int64{3}, 1, 2, 3), ndef("y", "Pack", "a", "b")},
			`g.pb: node "y" (Pack): values 0 has shape [2] and values 1 [3]`},
		{"pack data shapes", []*tfpb.NodeDef{x, constF32("b", []int64{3}, 1, 2, 3), ndef("y", "Pack", "x", "b")},
			`g.pb: node "y" (Pack): values 1 is f32[3] and values 0 f32[2,3]; Pack stacks values of one shape`},
		{"pack axis", []*tfpb.NodeDef{constI32("a", []int64{2}, 1, 2), withAttr(ndef("y", "Pack", "a", "a"), "axis", &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: 3}})},
			`g.pb: node "y" (Pack): axis 3 is out of range for values of rank 1 (want -2..1)`},
		{"concat types", []*tfpb.NodeDef{constI32("a", []int64{2}, 1, 2), constF32("b", []int64{1}, 3), constI32("ax", nil, 0), ndef("y", "ConcatV2", "a", "b", "ax")},
			`g.pb: node "y" (ConcatV2): values 0 is int32 and values 1 float32`},
		{"concat axis", []*tfpb.NodeDef{constI32("a", []int64{1, 2}, 1, 2), constI32("ax", nil, 2), ndef("y", "ConcatV2", "a", "a", "ax")},
			`g.pb: node "y" (ConcatV2): axis 2 is out of range for values of rank 2`},
		{"concat extents", []*tfpb.NodeDef{x, constF32("k", []int64{1, 2}, 1, 2), constI32("ax", nil, 1), ndef("y", "ConcatV2", "x", "k", "ax")},
			`g.pb: node "y" (ConcatV2): nd.Concat (y): operand 0 [2,3] and operand 1 [1,2] differ on axis 0, which is not the concatenation axis 1`},
		{"shape of a scalar", []*tfpb.NodeDef{constF32("c", nil, 1), ndef("y", "Shape", "c")},
			`g.pb: node "y" (Shape): input is a scalar: its shape is an empty vector, which hofuse cannot hold (extents are at least 1)`},
	} {
		_, err := evalNoInputs(t, tc.nodes...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error\n%v\nwant\n%s", tc.name, err, tc.want)
		}
	}
	// The index a concatenation reads counts against the constants'
	// budget before it is made.
	old := maxConstBytes
	maxConstBytes = 1 << 20
	_, err := ImportBytes(graphBytes(t, placeholder("a", 1<<19, 1), placeholder("b", 1, 1), constI32("ax", nil, 0), ndef("y", "ConcatV2", "a", "b", "ax")), "g.pb", imports.Options{})
	maxConstBytes = old
	want := "g.pb: the index input nd.index.524289 of a concatenation holds 2097156 bytes, past the limit of 1048572 bytes left for the graph's constants (graph.DefaultMemoryLimit)"
	if err == nil || err.Error() != want {
		t.Errorf("concat index: error %v, want %q", err, want)
	}
	// Folded results count against it too: one constant of 64 KiB named
	// 20 times by a Pack would make 1.25 MiB.
	maxConstBytes = 1 << 20
	names := []string{}
	for range 20 {
		names = append(names, "big")
	}
	_, err = ImportBytes(graphBytes(t, constTensor("big", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(1 << 14), IntVal: []int32{1}}), ndef("y", "Pack", names...)), "g.pb", imports.Options{})
	maxConstBytes = old
	want = `g.pb: node "y" (Pack): the folded result holds 1310720 bytes, past the limit of 983040 bytes left for the graph's constants (graph.DefaultMemoryLimit)`
	if err == nil || err.Error() != want {
		t.Errorf("pack: error %v, want %q", err, want)
	}
	// Pack of scalars and ConcatV2 of vectors fold to the vector a
	// reshape reads; Shape gives the extents.
	got, err := evalNoInputs(t, constI32("a", nil, 4), constI32("b", nil, -1), ndef("y", "Pack", "a", "b"))
	if err != nil || fmt.Sprint(got) != "[4 -1]" {
		t.Errorf("pack: %v %v", got, err)
	}
	got, err = evalNoInputs(t, constI32("a", []int64{1}, 4), constI32("b", []int64{2}, 5, 6), constI32("ax", nil, -1), ndef("y", "ConcatV2", "a", "b", "ax"))
	if err != nil || fmt.Sprint(got) != "[4 5 6]" {
		t.Errorf("concat: %v %v", got, err)
	}
	got, err = evalNoInputs(t, constF32("c", []int64{2, 3, 1}, 1, 2, 3, 4, 5, 6), ndef("y", "Shape", "c"))
	if err != nil || fmt.Sprint(got) != "[2 3 1]" {
		t.Errorf("shape: %v %v", got, err)
	}
}

// TestGatherProdFold pins GatherV2 and Prod on known tensors to values
// computed by hand, and their refusals: a GatherV2 of computed values (an
// Embedding's lookup) names the missing gather, indices out of range and
// results past the folding cap are errors naming the numbers.
func TestGatherProdFold(t *testing.T) {
	m := constI32("m", []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	zero := constI32("zero", nil, 0)
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"gather rows", []*tfpb.NodeDef{m, constI32("i", []int64{3}, 1, 0, 1), zero, ndef("y", "GatherV2", "m", "i", "zero")},
			"[4 5 6 1 2 3 4 5 6]"},
		{"gather negative axis, rank-2 indices", []*tfpb.NodeDef{m, constI32("i", []int64{2, 2}, 2, 0, 1, 1), constI32("a", nil, -1), ndef("y", "GatherV2", "m", "i", "a")},
			"[3 1 2 2 6 4 5 5]"},
		{"gather a scalar", []*tfpb.NodeDef{m, constI32("i", nil, 2), constI32("a", nil, 1), ndef("g", "GatherV2", "m", "i", "a"), constI32("r", []int64{1}, 0), ndef("y", "Prod", "g", "r")},
			"[18]"},
		{"prod keep_dims", []*tfpb.NodeDef{m, constI32("r", []int64{1}, -1), withAttr(ndef("y", "Prod", "m", "r"), "keep_dims", boolAttr(true))},
			"[6 120]"},
		{"prod of an empty vector", []*tfpb.NodeDef{m, constI32("v", []int64{3}, 4, 5, 6), constI32("e", []int64{0}), ndef("g", "GatherV2", "v", "e", "zero"), zero,
			ndef("p", "Prod", "g", "zero"), ndef("y", "Mul", "p", "m")},
			"[1 2 3 4 5 6]"},
	} {
		got, err := evalNoInputs(t, tc.nodes...)
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, got, err, tc.want)
		}
	}
	// An overflowing product is left to the term, which computes it in
	// i32 as TensorFlow does.
	if got, err := evalNoInputs(t, constI32("b", []int64{2}, 1<<20, 1<<12), zero, ndef("y", "Prod", "b", "zero")); err != nil || fmt.Sprint(got) != "[0]" {
		t.Errorf("overflow: %v %v, want [0] (2^32 wrapped)", got, err)
	}

	embed := []*tfpb.NodeDef{constF32("table", []int64{4, 2}, 1, 2, 3, 4, 5, 6, 7, 8), placeholder("x", 2, 3), ndef("idx", "Cast", "x"), zero}
	embed[3] = withAttr(embed[3], "dtype", typeAttr(tfpb.DataType_DT_INT32))
	embed[2] = withAttr(embed[2], "DstT", typeAttr(tfpb.DataType_DT_INT32))
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"embedding lookup", append(embed, ndef("y", "GatherV2", "table", "idx", "zero")),
			`g.pb: node "y" (GatherV2): GatherV2 of values computed from the model's inputs is not supported (the IR has no gather); GatherV2 folds only on known tensors (shapes, constants)`},
		{"gather of data", []*tfpb.NodeDef{placeholder("x", 2, 3), constI32("i", []int64{1}, 0), zero, ndef("y", "GatherV2", "x", "i", "zero")},
			`g.pb: node "y" (GatherV2): GatherV2 of values computed from the model's inputs is not supported (the IR has no gather); GatherV2 folds only on known tensors (shapes, constants)`},
		{"batch_dims", []*tfpb.NodeDef{m, zero, withAttr(ndef("y", "GatherV2", "m", "m", "zero"), "batch_dims", &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: 1}})},
			`g.pb: 1 unsupported node: GatherV2 at node "y": batch_dims=1 is not supported (only 0)`},
		{"index out of range", []*tfpb.NodeDef{m, constI32("i", []int64{2}, 0, 2), zero, ndef("y", "GatherV2", "m", "i", "zero")},
			`g.pb: node "y" (GatherV2): index 2 (element 1 of indices) is out of range for axis 0 of params [2 3] (from 0 to 1)`},
		{"negative index", []*tfpb.NodeDef{m, constI32("i", nil, -1), zero, ndef("y", "GatherV2", "m", "i", "zero")},
			`g.pb: node "y" (GatherV2): index -1 (element 0 of indices) is out of range for axis 0 of params [2 3] (from 0 to 1)`},
		{"axis out of range", []*tfpb.NodeDef{m, zero, constI32("a", nil, 2), ndef("y", "GatherV2", "m", "zero", "a")},
			`g.pb: node "y" (GatherV2): axis 2 is out of range for params of rank 2`},
		{"axis vector", []*tfpb.NodeDef{m, zero, constI32("a", []int64{2}, 0, 1), ndef("y", "GatherV2", "m", "zero", "a")},
			`g.pb: node "y" (GatherV2): axis [0 1]: want one axis, a scalar`},
		{"float indices", []*tfpb.NodeDef{m, constF32("i", nil, 0), zero, ndef("y", "GatherV2", "m", "i", "zero")},
			`g.pb: node "y" (GatherV2): indices is a float32 tensor; want int32 or int64`},
		{"result past the cap", []*tfpb.NodeDef{constTensor("big", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(1<<10, 2), IntVal: []int32{1}}),
			constTensor("i", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(1<<10, 1<<10), IntVal: []int32{0}}), zero, ndef("y", "GatherV2", "big", "i", "zero")},
			`g.pb: node "y" (GatherV2): the result has 1×1048576×2 elements, more than the 1048576 hofuse folds at import time`},
		{"prod axes", []*tfpb.NodeDef{m, constI32("r", nil, 2), ndef("y", "Prod", "m", "r")},
			`g.pb: node "y" (Prod): reduction_indices [2]: axis 2 is out of range for rank 2`},
	} {
		_, err := evalNoInputs(t, tc.nodes...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error\n%v\nwant\n%s", tc.name, err, tc.want)
		}
	}
}
