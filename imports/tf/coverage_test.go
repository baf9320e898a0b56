package tf

import (
	"errors"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// TestCoverageListsEverything: the coverage pass lists every kept node it
// cannot convert, at once, before converting anything (the constant c has
// a bad tensor that conversion would refuse first); nodes only a pruned
// output needs are listed as pruned and do not block the import.
func TestCoverageListsEverything(t *testing.T) {
	bn := withAttr(ndef("bn", "FusedBatchNormV3", "conv", "s", "s", "s", "s"), "is_training", boolAttr(true))
	nchw := withAttr(ndef("bias", "BiasAdd", "bn", "s"), "data_format", stringAttr("NCHW"))
	nodes := []*tfpb.NodeDef{
		placeholder("x", -1, 4, 4, 3),
		constF32("c", []int64{2}, 1), // tensor_content too short: never decoded
		ndef("conv", "Conv3D", "x", "c"),
		constF32("s", []int64{3}, 1, 2, 3),
		bn,
		nchw,
		ndef("stats", "Relu", "bn:1"),
		ndef("y", "AddV2", "bias", "stats"),
		ndef("side", "Relu", "x"),
		ndef("label", "ArgMax", "side", "s"),
	}
	_, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{Outputs: []string{"y"}})
	var ce *imports.CoverageError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a *imports.CoverageError", err)
	}
	want := `g.pb: 4 unsupported nodes: ` +
		`Conv3D at node "conv": no converter; ` +
		`FusedBatchNormV3 at node "bn": is_training=true (training mode: batch statistics) is not supported; export the graph for inference (is_training=false, as a frozen Keras model in inference mode has); ` +
		`BiasAdd at node "bias": data_format NCHW is not supported (only NHWC, channels last); ` +
		`Relu at node "stats": input 0 reads output 1 of "bn" (FusedBatchNormV3), which has only output 0 hofuse imports`
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	cov := ce.Coverage
	wantText := `g.pb: tf, 8 nodes, outputs: y
  ops: AddV2 1, BiasAdd 1, Const 2, Conv3D 1, FusedBatchNormV3 1, Placeholder 1, Relu 1
  unsupported (4):
    Conv3D at node "conv": no converter
    FusedBatchNormV3 at node "bn": is_training=true (training mode: batch statistics) is not supported; export the graph for inference (is_training=false, as a frozen Keras model in inference mode has)
    BiasAdd at node "bias": data_format NCHW is not supported (only NHWC, channels last)
    Relu at node "stats": input 0 reads output 1 of "bn" (FusedBatchNormV3), which has only output 0 hofuse imports
  pruned outputs: label
  pruned nodes (2): ArgMax "label", Relu "side"
`
	if got := cov.Text(); got != wantText {
		t.Errorf("report\n%s\nwant\n%s", got, wantText)
	}

	// Asking for the label branch alone: ArgMax is unsupported, the rest
	// pruned.
	_, err = ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{Outputs: []string{"label"}})
	want = `g.pb: 1 unsupported node: ArgMax at node "label": no converter`
	if err == nil || err.Error() != want {
		t.Errorf("label only: error %v, want %q", err, want)
	}
	// And asking for side alone imports it, everything else pruned.
	m, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{Outputs: []string{"side"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Coverage.Pruned); got != 8 {
		t.Errorf("%d pruned nodes, want 8: %+v", got, m.Coverage.Pruned)
	}
	if !m.Coverage.OK() || m.Coverage.Nodes != 2 || strings.Join(m.Coverage.PrunedOutputs, ",") != "y,label" {
		t.Errorf("coverage %+v", m.Coverage)
	}
}

// TestTrainingDefault: FusedBatchNormV3 without is_training is in training
// mode (the op registry's default), and refused.
func TestTrainingDefault(t *testing.T) {
	_, err := ImportBytes(graphBytes(t, placeholder("x", 2, 3), constF32("s", []int64{3}, 1, 2, 3),
		ndef("bn", "FusedBatchNormV3", "x", "s", "s", "s", "s")), "g.pb", imports.Options{})
	want := `g.pb: 1 unsupported node: FusedBatchNormV3 at node "bn": is_training=true (training mode: batch statistics) is not supported; export the graph for inference (is_training=false, as a frozen Keras model in inference mode has)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestConverterErrors: operands a converter cannot take are errors naming
// the file, the node and the operand.
func TestConverterErrors(t *testing.T) {
	x := placeholder("x", -1, 3)
	w := constF32("w", []int64{3, 2}, 1, 2, 3, 4, 5, 6)
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		want  string
	}{
		{"conv transpose computed filter", []*tfpb.NodeDef{placeholder("x", 1, 2, 2, 3), constI32("s", []int64{4}, 1, 4, 4, 2),
			constF32("f", []int64{1, 1, 2, 3}, 1, 2, 3, 4, 5, 6), ndef("g", "Relu", "f"),
			withAttr(withAttr(ndef("y", "Conv2DBackpropInput", "s", "g", "x"), "strides", intsAttr(1, 2, 2, 1)), "padding", stringAttr("SAME"))},
			`g.pb: node "y" (Conv2DBackpropInput): input filter is computed by the graph; hofuse needs it constant at import time (a Const) to reverse its kernel`},
		{"conv transpose channels", []*tfpb.NodeDef{placeholder("x", 1, 2, 2, 3), constI32("s", []int64{4}, 1, 4, 4, 5),
			constF32("f", []int64{1, 1, 2, 3}, 1, 2, 3, 4, 5, 6),
			withAttr(withAttr(ndef("y", "Conv2DBackpropInput", "s", "f", "x"), "strides", intsAttr(1, 2, 2, 1)), "padding", stringAttr("SAME"))},
			`g.pb: node "y" (Conv2DBackpropInput): filter [1 1 2 3] takes 2 channels to 3; out_backprop f32[1,2,2,3] has 3 and input_sizes [1 4 4 5] asks for 5`},
		{"conv transpose same extents", []*tfpb.NodeDef{placeholder("x", 1, 2, 2, 3), constI32("s", []int64{4}, 1, 6, 4, 2),
			constF32("f", []int64{1, 1, 2, 3}, 1, 2, 3, 4, 5, 6),
			withAttr(withAttr(ndef("y", "Conv2DBackpropInput", "s", "f", "x"), "strides", intsAttr(1, 2, 2, 1)), "padding", stringAttr("SAME"))},
			`g.pb: node "y" (Conv2DBackpropInput): input_sizes [1 6 4 2] with SAME padding and strides [2 2] give 3 positions along axis 1; out_backprop f32[1,2,2,3] has 2`},
		{"empty constant as data", []*tfpb.NodeDef{x, constI32("e", []int64{0}), ndef("y", "Mul", "x", "e")},
			`g.pb: node "e" (Const): the constant is empty (shape [0]); hofuse arrays have no empty axes, so it can only be a shape that folds (Reshape's, Tile's)`},
		{"matmul rank", []*tfpb.NodeDef{placeholder("x", 2, 3, 3), w, ndef("y", "MatMul", "x", "w")},
			`g.pb: node "y" (MatMul): a has rank 3 (f32[2,3,3]); MatMul multiplies matrices (BatchMatMul is not supported)`},
		{"matmul inner extents", []*tfpb.NodeDef{x, w, withAttr(ndef("y", "MatMul", "x", "w"), "transpose_b", boolAttr(true))},
			`g.pb: node "y" (MatMul): nd.MatMul (y): a [1,3] has 3 columns (axis 1) but b [2,3] has 2 rows (axis 0)`},
		{"matmul transpose attr", []*tfpb.NodeDef{x, w, withAttr(ndef("y", "MatMul", "x", "w"), "transpose_a", floatAttr(1))},
			`g.pb: node "y" (MatMul): attribute transpose_a is a float, want a bool`},
		{"bias length", []*tfpb.NodeDef{x, constF32("b", []int64{2}, 1, 2), ndef("y", "BiasAdd", "x", "b")},
			`g.pb: node "y" (BiasAdd): bias is f32[2]; it must be a vector of the 3 channels of value's last axis (value is f32[1,3])`},
		{"batch norm channels", []*tfpb.NodeDef{x, constF32("s", []int64{2}, 1, 2),
			withAttr(ndef("y", "FusedBatchNormV3", "x", "s", "s", "s", "s"), "is_training", boolAttr(false))},
			`g.pb: node "y" (FusedBatchNormV3): scale is f32[2]; it must be a vector of the 3 channels of x's last axis (x is f32[1,3])`},
		{"computed reshape shape", []*tfpb.NodeDef{x, ndef("s", "Relu", "x"), ndef("y", "Reshape", "x", "s")},
			`g.pb: node "y" (Reshape): input shape is computed by the graph; hofuse needs it constant at import time (a Const)`},
		{"float reshape shape", []*tfpb.NodeDef{x, constF32("s", []int64{1}, 3), ndef("y", "Reshape", "x", "s")},
			`g.pb: node "y" (Reshape): input shape is a float32 tensor of shape [1]; it must be an int32 or int64 scalar or vector`},
		{"reshape count", []*tfpb.NodeDef{x, constI32("s", []int64{2}, 2, 2), ndef("y", "Reshape", "x", "s")},
			`g.pb: node "y" (Reshape): nd.ResolveShape: shape [2 2] has 4 elements, the input [1,3] has 3`},
		{"reshape zero", []*tfpb.NodeDef{x, constI32("s", []int64{2}, 0, 3), ndef("y", "Reshape", "x", "s")},
			`g.pb: node "y" (Reshape): nd.ResolveShape: entry 0 of shape [0 3] is 0 with allowzero: empty tensors are not supported`},
		{"reduction axis range", []*tfpb.NodeDef{x, constI32("a", []int64{1}, 2), ndef("y", "Sum", "x", "a")},
			`g.pb: node "y" (Sum): reduction_indices [2]: axis 2 is out of range for rank 2`},
		{"reduction keep_dims kind", []*tfpb.NodeDef{x, constI32("a", nil, 1), withAttr(ndef("y", "Mean", "x", "a"), "keep_dims", intsAttr(1))},
			`g.pb: node "y" (Mean): attribute keep_dims is a list, want a bool`},
		{"squeeze extent", []*tfpb.NodeDef{x, withAttr(ndef("y", "Squeeze", "x"), "squeeze_dims", intsAttr(1))},
			`g.pb: node "y" (Squeeze): squeeze_dims [1]: axis 1 of input f32[1,3] has extent 3, not 1`},
		{"expand dims range", []*tfpb.NodeDef{x, constI32("a", nil, 3), ndef("y", "ExpandDims", "x", "a")},
			`g.pb: node "y" (ExpandDims): axis 3 is out of range for an input of rank 2 (from -3 to 2)`},
		{"relu of ints", []*tfpb.NodeDef{constI32("k", []int64{2}, 1, 2), ndef("y", "Relu", "k")},
			`g.pb: node "y" (Relu): features has element type i32; the op needs f32 or f64`},
		{"mixed types", []*tfpb.NodeDef{x, constI32("k", []int64{3}, 1, 2, 3), ndef("y", "Mul", "x", "k")},
			`g.pb: node "y" (Mul): nd.Binary mul (y): x has element type f32 and y i32: cast one first`},
		{"broadcast", []*tfpb.NodeDef{x, constF32("k", []int64{2}, 1, 2), ndef("y", "Sub", "x", "k")},
			`g.pb: node "y" (Sub): nd.Binary sub (y): x has extent 3 on axis 1 (1 from the end) and y has 2: they do not broadcast (want equal extents or 1)`},
		{"softmax of a scalar", []*tfpb.NodeDef{constF32("k", nil, 1), ndef("y", "Softmax", "k")},
			`g.pb: node "y" (Softmax): logits is a scalar; Softmax needs rank 1 or more`},
		{"arity", []*tfpb.NodeDef{x, ndef("y", "MatMul", "x")},
			`g.pb: node "y" (MatMul): 1 data inputs, but MatMul takes 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportBytes(graphBytes(t, tc.nodes...), "g.pb", imports.Options{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

// TestSources: every node a converter builds carries the name of the
// TensorFlow node it came from, and parameters keep their Const's name.
func TestSources(t *testing.T) {
	m, err := Import("testdata/ops/dense_bias_relu.pb", imports.Options{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	sourced(t, m.Term)
	seen := map[string]bool{}
	for n := range graph.All(m.Term) {
		seen[n.Source()] = true
	}
	for _, name := range []string{"x", "w", "b", "mm", "bias", "y"} {
		if !seen[name] {
			t.Errorf("no node of source %q; sources %v", name, seen)
		}
	}
	var params []string
	for _, p := range m.Params {
		params = append(params, p.Name)
	}
	if strings.Join(params, ",") != "w,b" {
		t.Errorf("params %v, want w,b", params)
	}
}

// sourced checks that every node of term carries a source, but variables
// and the tuple of a model's several outputs.
func sourced(t *testing.T, term graph.Node) {
	t.Helper()
	for n := range graph.All(term) {
		if _, ok := n.(*graph.Tuple); ok && n == term {
			continue
		}
		if _, ok := n.(*graph.Var); !ok && n.Source() == "" {
			t.Errorf("node %T %s has no source", n, graph.Print(n))
		}
	}
}
