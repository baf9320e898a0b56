package tf

import (
	"testing"

	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// TestLayoutOpErrors: Pad, PadV2, MirrorPad, Transpose and Cast refuse
// what they cannot convert with a message naming the node, the input or
// attribute, and the numbers.
func TestLayoutOpErrors(t *testing.T) {
	x := placeholder("x", 2, 3)
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"mirror pad", []*tfpb.NodeDef{x, constI32("p", []int64{2, 2}, 1, 1, 1, 1),
			withAttr(ndef("y", "MirrorPad", "x", "p"), "mode", stringAttr("REFLECT"))},
			`g.pb: 1 unsupported node: MirrorPad at node "y": mode REFLECT is not supported: hofuse pads with a constant only (Pad, PadV2), the IR having no reversed view to mirror an axis with`},
		{"paddings of the wrong shape", []*tfpb.NodeDef{x, constI32("p", []int64{2}, 1, 1), ndef("y", "Pad", "x", "p")},
			`g.pb: node "y" (Pad): input paddings is a int32 tensor of shape [2]; want int32 or int64 of shape [2 2] for an input of rank 2`},
		{"paddings computed", []*tfpb.NodeDef{x, placeholder("p", 2, 2), ndef("y", "Pad", "x", "p")},
			`g.pb: node "y" (Pad): input paddings is computed by the graph; hofuse needs it constant at import time (a Const)`},
		{"negative padding", []*tfpb.NodeDef{x, constI32("p", []int64{2, 2}, 0, 0, -1, 2), ndef("y", "Pad", "x", "p")},
			`g.pb: node "y" (Pad): paddings [0 0 -1 2]: TensorFlow pads by amounts of at least 0; axis 1 has -1 and 2`},
		{"constant_values not scalar", []*tfpb.NodeDef{x, constI32("p", []int64{2, 2}, 0, 0, 1, 2), constF32("v", []int64{2}, 1, 2), ndef("y", "PadV2", "x", "p", "v")},
			`g.pb: node "y" (PadV2): input constant_values must be a constant scalar (a Const)`},
		{"perm too short", []*tfpb.NodeDef{x, constI32("p", []int64{1}, 0), ndef("y", "Transpose", "x", "p")},
			`g.pb: node "y" (Transpose): nd.Transpose (y): perm [0] has 1 entries for x of rank 2`},
		{"cast to string", []*tfpb.NodeDef{x, withAttr(ndef("y", "Cast", "x"), "DstT", typeAttr(tfpb.DataType_DT_STRING))},
			`g.pb: 1 unsupported node: Cast at node "y": DstT: element type string is not supported (hofuse computes in float, double, int32 and bool)`},
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
