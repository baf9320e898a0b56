package tf

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// i64Const is an int64 Const with its values in int64_val.
func i64Const(name string, shape []int64, vals ...int64) *tfpb.NodeDef {
	return constTensor(name, &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shapeProto(shape...), Int64Val: vals})
}

// TestBatchOpErrors: BatchMatMul and its versions, SpaceToBatchND and
// BatchToSpaceND refuse bad operands and hostile block shapes, paddings
// and crops with a message naming the node and the numbers, never a
// panic or an allocation sized by them.
func TestBatchOpErrors(t *testing.T) {
	x := placeholder("x", 2, 3, 4)
	img := placeholder("x", 2, 5, 4, 3)
	s2b := func(block, pads *tfpb.NodeDef) []*tfpb.NodeDef {
		return []*tfpb.NodeDef{img, block, pads, ndef("y", "SpaceToBatchND", "x", "b", "p")}
	}
	b2s := func(block, crops *tfpb.NodeDef) []*tfpb.NodeDef {
		return []*tfpb.NodeDef{img, block, crops, ndef("y", "BatchToSpaceND", "x", "b", "p")}
	}
	const big = int64(1) << 40
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"matmul rank", []*tfpb.NodeDef{x, placeholder("v", 4), ndef("y", "BatchMatMulV2", "x", "v")},
			`g.pb: node "y" (BatchMatMulV2): y is f32[4]; BatchMatMulV2 multiplies stacks of matrices, of rank 2 or more`},
		{"matmul inner", []*tfpb.NodeDef{x, placeholder("v", 3, 5), withAttr(ndef("y", "BatchMatMulV2", "x", "v"), "adj_y", boolAttr(true))},
			`g.pb: node "y" (BatchMatMulV2): x f32[2,3,4] has 4 columns and y f32[3,5] 5 rows (after adj_x and adj_y); they must agree`},
		{"matmul v1 batch", []*tfpb.NodeDef{x, placeholder("v", 1, 4, 5), ndef("y", "BatchMatMul", "x", "v")},
			`g.pb: node "y" (BatchMatMul): x f32[2,3,4] and y f32[1,4,5] have batch shapes [2] and [1]; BatchMatMul (unlike BatchMatMulV2) needs them equal`},
		{"matmul v2 batch", []*tfpb.NodeDef{x, placeholder("v", 3, 4, 5), ndef("y", "BatchMatMulV2", "x", "v")},
			`g.pb: node "y" (BatchMatMulV2): nd.MatMul (y): a has extent 2 on batch axis 0 (1 from the end) and b has 3: they do not broadcast (want equal extents or 1)`},
		{"matmul v3 types", []*tfpb.NodeDef{x, withAttr(withAttr(ndef("y", "BatchMatMulV3", "x", "x"), "Ta", typeAttr(tfpb.DataType_DT_FLOAT)), "Tout", typeAttr(tfpb.DataType_DT_DOUBLE))},
			`g.pb: 1 unsupported node: BatchMatMulV3 at node "y": Tout is float64 where the other types are float32; hofuse multiplies operands of one type into that type`},
		{"matmul adj kind", []*tfpb.NodeDef{x, withAttr(ndef("y", "BatchMatMulV2", "x", "x"), "adj_x", intsAttr(1))},
			`g.pb: node "y" (BatchMatMulV2): attribute adj_x is a list, want a bool`},

		{"block computed", []*tfpb.NodeDef{img, placeholder("b", 2), constI32("p", []int64{2, 2}, 0, 0, 0, 0), ndef("y", "SpaceToBatchND", "x", "b", "p")},
			`g.pb: node "y" (SpaceToBatchND): input block_shape is computed by the graph; hofuse needs it constant at import time (a Const)`},
		{"paddings computed", []*tfpb.NodeDef{img, constI32("b", []int64{2}, 1, 1), placeholder("p", 2, 2), ndef("y", "SpaceToBatchND", "x", "b", "p")},
			`g.pb: node "y" (SpaceToBatchND): input paddings is computed by the graph; hofuse needs it constant at import time (a Const)`},
		{"block zero", s2b(constI32("b", []int64{2}, 0, 1), constI32("p", []int64{2, 2}, 0, 0, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): block_shape [0 1]: entry 0 is 0; want an extent from 1 to 1099511627776`},
		{"block negative", s2b(constI32("b", []int64{1}, -2), constI32("p", []int64{1, 2}, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): block_shape [-2]: entry 0 is -2; want an extent from 1 to 1099511627776`},
		{"block empty", s2b(constI32("b", []int64{0}), constI32("p", []int64{1, 2}, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): block_shape []: want a vector of M ≥ 1 block extents, M at most 3 for an input of rank 4`},
		{"block too long", s2b(constI32("b", []int64{4}, 1, 1, 1, 1), constI32("p", []int64{4, 2}, 0, 0, 0, 0, 0, 0, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): block_shape [1 1 1 1]: want a vector of M ≥ 1 block extents, M at most 3 for an input of rank 4`},
		{"block matrix", s2b(constI32("b", []int64{1, 1}, 2), constI32("p", []int64{1, 2}, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): input block_shape is a int32 tensor of shape [1 1]; it must be an int32 or int64 scalar or vector`},
		{"paddings shape", s2b(constI32("b", []int64{2}, 1, 1), constI32("p", []int64{2}, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): input paddings is a int32 tensor of shape [2]; want int32 or int64 of shape [2 2] for a block_shape of 2 entries`},
		{"paddings negative", s2b(constI32("b", []int64{2}, 1, 1), constI32("p", []int64{2, 2}, 0, -1, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): paddings [0 -1 0 0]: spatial axis 0 has 0 and -1; want amounts from 0 to 1099511627776`},
		{"paddings huge", s2b(i64Const("b", []int64{1}, 1), i64Const("p", []int64{1, 2}, 1<<62, 1<<62)),
			`g.pb: node "y" (SpaceToBatchND): paddings [4611686018427387904 4611686018427387904]: spatial axis 0 has 4611686018427387904 and 4611686018427387904; want amounts from 0 to 1099511627776`},
		{"not a multiple", s2b(constI32("b", []int64{2}, 2, 3), constI32("p", []int64{2, 2}, 0, 0, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): spatial axis 0 of input f32[2,5,4,3] padded by 0 and 0 has extent 5, which is not a multiple of block_shape entry 2 (or past 1099511627776)`},
		{"padded past the elements", s2b(i64Const("b", []int64{2}, 1, 1), i64Const("p", []int64{2, 2}, big-5, 0, big-4, 0)),
			`g.pb: node "y" (SpaceToBatchND): the padded input [2 1099511627776 1 1099511627776 1 3] has more than 1099511627776 elements (graph.MaxElements)`},
		{"batch past the extents", s2b(i64Const("b", []int64{2}, big/2, 4), i64Const("p", []int64{2, 2}, big/2-5, 0, 0, 0)),
			`g.pb: node "y" (SpaceToBatchND): the batch 2 times block_shape [549755813888 4] is past 1099511627776 (graph.MaxExtent)`},

		{"batch not a multiple", b2s(constI32("b", []int64{2}, 2, 3), constI32("p", []int64{2, 2}, 0, 0, 0, 0)),
			`g.pb: node "y" (BatchToSpaceND): the batch 2 of input f32[2,5,4,3] is not a multiple of the product of block_shape [2 3]`},
		{"blocks past the batch", b2s(i64Const("b", []int64{3}, big, big, big), i64Const("p", []int64{3, 2}, 0, 0, 0, 0, 0, 0)),
			`g.pb: node "y" (BatchToSpaceND): the batch 2 of input f32[2,5,4,3] is not a multiple of the product of block_shape [1099511627776 1099511627776 1099511627776]`},
		{"crops everything", b2s(constI32("b", []int64{1}, 2), constI32("p", []int64{1, 2}, 4, 6)),
			`g.pb: node "y" (BatchToSpaceND): crops 4 and 6 of spatial axis 0 remove all its 10 elements (input f32[2,5,4,3], block 2)`},
		{"crops negative", b2s(constI32("b", []int64{1}, 2), constI32("p", []int64{1, 2}, -1, 0)),
			`g.pb: node "y" (BatchToSpaceND): crops [-1 0]: spatial axis 0 has -1 and 0; want amounts from 0 to 1099511627776`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportBytes(graphBytes(t, tc.nodes...), "g.pb", imports.Options{})
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}

// TestSpaceToBatchByHand pins SpaceToBatchND and BatchToSpaceND on a
// counting input to TensorFlow's documented example: [1, 4, 4, 1] with
// block [2, 2] and no padding gives [4, 2, 2, 1], batch b holding the
// pixels at offset (b/2, b%2) of each 2×2 block; BatchToSpaceND undoes it.
func TestSpaceToBatchByHand(t *testing.T) {
	vals := make([]float32, 16)
	for i := range vals {
		vals[i] = float32(i + 1)
	}
	nodes := []*tfpb.NodeDef{constF32("x", []int64{1, 4, 4, 1}, vals...), constI32("b", []int64{2}, 2, 2),
		constI32("p", []int64{2, 2}, 0, 0, 0, 0), ndef("s", "SpaceToBatchND", "x", "b", "p"), ndef("y", "BatchToSpaceND", "s", "b", "p")}
	for _, tc := range []struct {
		out  string
		want []float64
	}{
		{"s", []float64{1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}},
		{"y", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
	} {
		m, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{Outputs: []string{tc.out}})
		if err != nil {
			t.Fatal(err)
		}
		bind, err := m.Bindings(nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Eval(m.Term, bind)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.(*graph.Array).Values(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s = %v, want %v", tc.out, got, tc.want)
		}
	}
}
