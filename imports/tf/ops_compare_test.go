package tf

import (
	"testing"

	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// TestCompareOpErrors: Pow, the comparisons, the logical ops, SelectV2
// and IdentityN refuse what they cannot convert with a message naming the
// node and the operand.
func TestCompareOpErrors(t *testing.T) {
	x := placeholder("x", 2, 3)
	k := constI32("k", []int64{3}, 1, 2, 3)
	lt := ndef("c", "Less", "x", "x")
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"pow of ints", []*tfpb.NodeDef{k, ndef("y", "Pow", "k", "k")},
			`g.pb: node "y" (Pow): x has element type i32; the op needs f32 or f64`},
		{"pow types", []*tfpb.NodeDef{x, f64Const("e", []int{3}, []float64{1, 2, 3}), ndef("y", "Pow", "x", "e")},
			`g.pb: node "y" (Pow): x has element type f32 and y f64; Pow needs one type`},
		{"pow broadcast", []*tfpb.NodeDef{x, constF32("e", []int64{2}, 1, 2), ndef("y", "Pow", "x", "e")},
			`g.pb: node "y" (Pow): nd.Binary pow (y): x has extent 3 on axis 1 (1 from the end) and y has 2: they do not broadcast (want equal extents or 1)`},
		{"compare types", []*tfpb.NodeDef{x, k, ndef("y", "Greater", "x", "k")},
			`g.pb: node "y" (Greater): x has element type f32 and y i32; Greater compares operands of one type`},
		{"order of bools", []*tfpb.NodeDef{x, lt, ndef("y", "LessEqual", "c", "c")},
			`g.pb: node "y" (LessEqual): x and y are bool; LessEqual compares numbers`},
		{"and of floats", []*tfpb.NodeDef{x, lt, ndef("y", "LogicalAnd", "c", "x")},
			`g.pb: node "y" (LogicalAnd): y has element type f32; the op needs bool`},
		{"not of ints", []*tfpb.NodeDef{k, ndef("y", "LogicalNot", "k")},
			`g.pb: node "y" (LogicalNot): x has element type i32; the op needs bool`},
		{"select condition", []*tfpb.NodeDef{x, ndef("y", "SelectV2", "x", "x", "x")},
			`g.pb: node "y" (SelectV2): condition has element type f32; the op needs bool`},
		{"select branch types", []*tfpb.NodeDef{x, k, lt, ndef("y", "SelectV2", "c", "x", "k")},
			`g.pb: node "y" (SelectV2): t has element type f32 and e i32; SelectV2 needs one type`},
		{"select broadcast", []*tfpb.NodeDef{x, lt, constF32("e", []int64{2, 1, 2}, 1, 2, 3, 4), ndef("y", "SelectV2", "c", "x", "e")},
			`g.pb: node "y" (SelectV2): nd.ZipWith (y): operand 0 has extent 3 on axis 2 (1 from the end) and operand 2 has 2: they do not broadcast (want equal extents or 1)`},
		{"identityn output past its inputs", []*tfpb.NodeDef{x, ndef("n", "IdentityN", "x", "x"), ndef("y", "Relu", "n:2")},
			`g.pb: 1 unsupported node: Relu at node "y": input 0 reads output 2 of "n" (IdentityN), which has only outputs 0 to 1 hofuse imports`},
		{"identityn of nothing", []*tfpb.NodeDef{x, ndef("y", "IdentityN", "^x")},
			`g.pb: 1 unsupported node: IdentityN at node "y": output y is asked for, but the node has no output hofuse imports`},
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
