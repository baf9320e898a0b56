package tf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// TestImportErrors: every malformed graph is an error naming the file and,
// where the problem is a node's, the node.
func TestImportErrors(t *testing.T) {
	relu := func(name string, in ...string) *tfpb.NodeDef { return ndef(name, "Relu", in...) }
	for _, tc := range []struct {
		name  string
		nodes []*tfpb.NodeDef
		opt   imports.Options
		want  string
	}{
		{"no nodes", nil, imports.Options{},
			`g.pb: the GraphDef has no nodes; is this a frozen TensorFlow graph (a SavedModel's saved_model.pb is not one: freeze it first)?`},
		{"missing input", []*tfpb.NodeDef{placeholder("x", 2), relu("y", "nope")}, imports.Options{},
			`g.pb: node "y" (Relu): input 0 reads "nope", which no node of the graph produces`},
		{"missing input with index", []*tfpb.NodeDef{placeholder("x", 2), ndef("y", "AddV2", "x", "z:1")}, imports.Options{},
			`g.pb: node "y" (AddV2): input 1 reads "z:1", which no node of the graph produces`},
		{"missing control input", []*tfpb.NodeDef{placeholder("x", 2), ndef("y", "Identity", "x", "^init")}, imports.Options{},
			`g.pb: node "y" (Identity): control input 1 reads "^init", which no node of the graph produces`},
		{"bad output index", []*tfpb.NodeDef{placeholder("x", 2), relu("y", "x:one")}, imports.Options{},
			`g.pb: node "y" (Relu): input 0: input "x:one": the output index after ':' is not a non-negative integer`},
		{"negative output index", []*tfpb.NodeDef{placeholder("x", 2), relu("y", "x:-1")}, imports.Options{},
			`g.pb: node "y" (Relu): input 0: input "x:-1": the output index after ':' is not a non-negative integer`},
		{"data after control", []*tfpb.NodeDef{placeholder("x", 2), ndef("n", "NoOp"), ndef("y", "AddV2", "x", "^n", "x")}, imports.Options{},
			`g.pb: node "y" (AddV2): data input 2 ("x") follows a control input; TensorFlow lists control inputs last`},
		{"duplicate name", []*tfpb.NodeDef{placeholder("x", 2), relu("x", "x")}, imports.Options{},
			`g.pb: node "x" (Relu): a second node of this name (the first is a Placeholder); node names must be unique`},
		{"nameless node", []*tfpb.NodeDef{placeholder("x", 2), relu("", "x")}, imports.Options{},
			`g.pb: node 1 (op "Relu") has no name`},
		{"opless node", []*tfpb.NodeDef{placeholder("x", 2), ndef("y", "", "x")}, imports.Options{},
			`g.pb: node "y": the node has no op type`},
		{"cycle", []*tfpb.NodeDef{placeholder("x", 2), ndef("a", "AddV2", "x", "c"), relu("b", "a"), relu("c", "b"), relu("y", "c")}, imports.Options{},
			`g.pb: node "c" (Relu): the graph has a cycle through this node: c -> a -> b -> c; a frozen graph for import has none (control flow such as while loops is not supported)`},
		{"self loop", []*tfpb.NodeDef{relu("a", "a"), relu("y", "a")}, imports.Options{},
			`g.pb: node "a" (Relu): the graph has a cycle through this node: a -> a; a frozen graph for import has none (control flow such as while loops is not supported)`},
		{"unknown output", []*tfpb.NodeDef{placeholder("x", 2), relu("y", "x")}, imports.Options{Outputs: []string{"z"}},
			`g.pb: output "z" names no node of the graph; nodes nothing reads: y`},
		{"no outputs", []*tfpb.NodeDef{placeholder("x", 2), constF32("c", []int64{1}, 1)}, imports.Options{},
			`g.pb: no node produces a value nothing else reads, so there is no output to import; name the outputs (Options.Outputs, --out NAME=FILE)`},
		{"bad batch", []*tfpb.NodeDef{placeholder("x", 2)}, imports.Options{Batch: -2},
			`g.pb: bad options: batch -2: a batch size must be between 1 and 1099511627776`},

		{"placeholder dim 0", []*tfpb.NodeDef{placeholder("x", -1, 0), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): dimension 1 of the placeholder's shape is 0; it must be -1 (unknown) or from 1 to 1099511627776 (graph.MaxExtent)`},
		{"placeholder dim -5", []*tfpb.NodeDef{placeholder("x", -5), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): dimension 0 of the placeholder's shape is -5; it must be -1 (unknown) or from 1 to 1099511627776 (graph.MaxExtent)`},
		{"placeholder dim past cap", []*tfpb.NodeDef{placeholder("x", 1<<41), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): dimension 0 of the placeholder's shape is 2199023255552; it must be -1 (unknown) or from 1 to 1099511627776 (graph.MaxExtent)`},
		{"placeholder too many elements", []*tfpb.NodeDef{placeholder("x", 1<<30, 1<<30), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): the placeholder's shape [1073741824 1073741824]: layout: more than 1099511627776 elements (graph.MaxElements) by axis 1 in layout <(1073741824,1073741824),(1073741824,1)>`},
		{"placeholder without shape", []*tfpb.NodeDef{withAttr(ndef("x", "Placeholder"), "dtype", typeAttr(tfpb.DataType_DT_FLOAT)), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): the placeholder's shape is unknown; hofuse needs its rank and extents (give the input a shape when exporting, with -1 for the batch)`},
		{"placeholder of strings", []*tfpb.NodeDef{withAttr(placeholder("x", 2), "dtype", typeAttr(tfpb.DataType_DT_STRING)), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): element type string is not supported (hofuse computes in float, double, int32 and bool)`},
		{"placeholder dtype a shape", []*tfpb.NodeDef{withAttr(placeholder("x", 2), "dtype", intsAttr(1)), ndef("y", "Identity", "x")}, imports.Options{},
			`g.pb: node "x" (Placeholder): attribute dtype is a list, want a type`},

		{"const dim 0", []*tfpb.NodeDef{constF32("c", []int64{2, 0}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: dimension 1 of the tensor's shape is 0; hofuse arrays have no empty axes`},
		{"const dim past cap", []*tfpb.NodeDef{constF32("c", []int64{1 << 41}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: dimension 0 of the tensor's shape is 2199023255552, past the cap of 1099511627776 (graph.MaxExtent)`},
		{"const unknown dim", []*tfpb.NodeDef{constF32("c", []int64{-1}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: dimension 0 of the tensor's shape is unknown (-1)`},
		{"const too many elements", []*tfpb.NodeDef{constF32("c", []int64{1 << 21, 1 << 21}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: the tensor's shape has more than 1099511627776 elements (graph.MaxElements) by dimension 1`},
		{"tensor_content too short", []*tfpb.NodeDef{constF32("c", []int64{2, 3}, 1, 2, 3, 4, 5), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: tensor_content holds 20 bytes, but shape [2 3] of float32 needs 24`},
		{"tensor_content too long", []*tfpb.NodeDef{constF32("c", []int64{2}, 1, 2, 3), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: tensor_content holds 12 bytes, but shape [2] of float32 needs 8`},
		{"typed values too many", []*tfpb.NodeDef{constI32("c", []int64{2}, 1, 2, 3), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: int_val holds 3 values, more than the 2 elements for shape [2]`},
		{"splat past the memory cap", []*tfpb.NodeDef{constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(1<<20, 1<<20), FloatVal: []float32{1}}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: the tensor's shape [1048576 1048576] holds 4398046511104 bytes, past the limit of 4294967296 bytes left for the graph's constants (graph.DefaultMemoryLimit)`},
		{"const of strings", []*tfpb.NodeDef{constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_STRING, TensorShape: shapeProto(1), StringVal: [][]byte{[]byte("a")}}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: element type string is not supported (hofuse computes in float, double, int32 and bool)`},
		{"const of halves", []*tfpb.NodeDef{constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_HALF, TensorShape: shapeProto(1), HalfVal: []int32{1}}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: element type float16 is not supported (hofuse computes in float, double, int32 and bool)`},
		{"const dtype disagrees", []*tfpb.NodeDef{withAttr(constF32("c", []int64{1}, 1), "dtype", typeAttr(tfpb.DataType_DT_DOUBLE)), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): attribute dtype is float64 but the value is a float32 tensor`},
		{"const without value", []*tfpb.NodeDef{ndef("c", "Const"), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): attribute value is missing`},
		{"const unknown rank", []*tfpb.NodeDef{constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: &tfpb.TensorShapeProto{UnknownRank: true}}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the value: the tensor's shape has unknown rank`},
		{"int64 parameter out of i32 range", []*tfpb.NodeDef{constTensor("c", &tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shapeProto(2), Int64Val: []int64{1, 1 << 40}}), ndef("y", "Identity", "c")}, imports.Options{},
			`g.pb: node "c" (Const): the int64 value 1099511627776 at flat index 1 does not fit the i32 hofuse computes integers in`},
		{"identity arity", []*tfpb.NodeDef{placeholder("x", 2), ndef("y", "Identity", "x", "x")}, imports.Options{},
			`g.pb: node "y" (Identity): 2 data inputs, but Identity takes 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ImportBytes(graphBytes(t, tc.nodes...), "g.pb", tc.opt)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n%s\nwant\n%s", err, tc.want)
			}
			var ie *imports.Error
			if !errors.As(err, &ie) {
				t.Errorf("error is a %T, want an *imports.Error", err)
			}
		})
	}
}

// TestImportCorrupt: bytes that are not a GraphDef, cut short or garbled,
// are refused with the file's name. (The protobuf library's own wording
// after the colon is not stable, so only the prefix is pinned.)
func TestImportCorrupt(t *testing.T) {
	good := graphBytes(t, placeholder("x", -1, 3), ndef("y", "Identity", "x"))
	const prefix = "g.pb: not a TensorFlow GraphDef (a frozen graph .pb): "
	for name, data := range map[string][]byte{
		"truncated":        good[:len(good)-3],
		"truncated header": good[:1],
		"garbage":          []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"),
		"text":             []byte("node { name: \"x\" op: \"Placeholder\" }"),
	} {
		_, err := ImportBytes(data, "g.pb", imports.Options{})
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s: error %v, want one starting %q", name, err, prefix)
		}
	}
}

func TestImportFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pb")
	data := graphBytes(t, placeholder("x", -1, 3), ndef("y", "Identity", "x"))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Import(path, imports.Options{MaxFileBytes: 10})
	want := path + ": the file holds " + itoa(len(data)) + " bytes, past the limit of 10 (Options.MaxFileBytes)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := Import(path, imports.Options{}); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	_, err = ImportBytes(data, "m.pb", imports.Options{MaxFileBytes: 10})
	want = "m.pb: the model holds " + itoa(len(data)) + " bytes, past the limit of 10 (Options.MaxFileBytes)"
	if err == nil || err.Error() != want {
		t.Errorf("ImportBytes: error %v, want %q", err, want)
	}
	_, err = Import(filepath.Join(dir, "none.pb"), imports.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "none.pb")+": cannot open the model: ") {
		t.Errorf("missing file: %v", err)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// TestPlaceholderBatch: -1 dimensions take Options.Batch (1 by default) and
// are recorded; an Identity of a Const becomes a parameter named after the
// Const; inputs keep the file's order.
func TestPlaceholderBatch(t *testing.T) {
	data := graphBytes(t,
		placeholder("b", 2),
		placeholder("a", -1, 3, -1),
		ndef("ya", "Identity", "a"),
		ndef("yb", "Identity", "b"),
		constF32("k", []int64{2}, 1.5, -2),
		ndef("yk", "Identity", "k"),
	)
	m, err := ImportBytes(data, "g.pb", imports.Options{Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range m.Inputs {
		got = append(got, in.Name+":"+in.Type.String())
	}
	if want := "b:f32[2] a:f32[4,3,4]"; strings.Join(got, " ") != want {
		t.Errorf("inputs %v, want %s", got, want)
	}
	if len(m.Symbolic) != 2 || m.Symbolic[0] != (imports.SymbolicDim{Input: "a", Axis: 0, Extent: 4}) || m.Symbolic[1] != (imports.SymbolicDim{Input: "a", Axis: 2, Extent: 4}) {
		t.Errorf("symbolic %+v", m.Symbolic)
	}
	if len(m.Params) != 1 || m.Params[0].Name != "k" || !m.Params[0].Param {
		t.Fatalf("params %v", m.Params)
	}
	if k := m.Values["k"].(*graph.Array); k.At(0) != 1.5 || k.At(1) != -2 {
		t.Errorf("k = %v", k)
	}
	var outs []string
	for _, o := range m.Outputs {
		outs = append(outs, o.Name+":"+o.Type.String())
	}
	if want := "ya:f32[4,3,4] yb:f32[2] yk:f32[2]"; strings.Join(outs, " ") != want {
		t.Errorf("outputs %v, want %s", outs, want)
	}
	m, err = ImportBytes(data, "g.pb", imports.Options{Outputs: []string{"ya:0"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Inputs[0].Type.String() != "f32[1,3,1]" || m.Outputs[0].Name != "ya:0" || m.Term != graph.Node(m.Inputs[0]) {
		t.Errorf("default batch: inputs %v outputs %+v", m.Inputs, m.Outputs)
	}
	if got := strings.Join(m.Coverage.PrunedOutputs, ","); got != "yb,yk" {
		t.Errorf("pruned outputs %s, want yb,yk", got)
	}
}

// TestTypedFill: a typed field shorter than the shape repeats its last
// value, and an empty one gives zeros, as TensorFlow reads them.
func TestTypedFill(t *testing.T) {
	for _, tc := range []struct {
		p    *tfpb.TensorProto
		want []float64
	}{
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(2, 2), FloatVal: []float32{7}}, []float64{7, 7, 7, 7}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: shapeProto(3), FloatVal: []float32{1, 2}}, []float64{1, 2, 2}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_DOUBLE, TensorShape: shapeProto(2)}, []float64{0, 0}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shapeProto(3), Int64Val: []int64{-4, 5}}, []float64{-4, 5, 5}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_BOOL, TensorShape: shapeProto(2), BoolVal: []bool{true, false}}, []float64{1, 0}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT32, TensorShape: shapeProto(), IntVal: []int32{-9}}, []float64{-9}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_DOUBLE, TensorShape: shapeProto(2),
			TensorContent: []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0}}, []float64{1, -2}},
		{&tfpb.TensorProto{Dtype: tfpb.DataType_DT_INT64, TensorShape: shapeProto(1),
			TensorContent: []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, []float64{-2}},
	} {
		tt, err := decodeTensor(tc.p, 1<<20)
		if err != nil {
			t.Errorf("%v: %v", tc.p, err)
			continue
		}
		var got []float64
		for i := range tt.size() {
			got = append(got, tt.at(i))
		}
		if !equalFloats(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.p, got, tc.want)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDeepChain: a chain of nodes deeper than the IR allows is an error
// naming the node where the term passes graph.MaxDepth (and converting the
// chain costs each converter only its own nodes: the 10,000 before it
// convert in about a second).
func TestDeepChain(t *testing.T) {
	nodes := []*tfpb.NodeDef{placeholder("x", 2, 3)}
	prev := "x"
	for i := range 10000 {
		name := "n" + itoa(i)
		nodes = append(nodes, ndef(name, "AddV2", prev, "x"))
		prev = name
	}
	_, err := ImportBytes(graphBytes(t, nodes...), "g.pb", imports.Options{})
	want := `g.pb: node "n9995" (AddV2): nzip: the term would nest 10001 deep, past the limit of 10000 (graph.MaxDepth); bind parts of it with let`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
