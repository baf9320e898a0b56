package onnx

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// The operator sets this package is tested with: 7 to 22, and 6 for the
// old exports of PyTorch that ONNX's conformance data still carries. A
// model importing a newer default-domain set is tried, with a warning in
// the coverage report; an older one is refused.
const (
	MinOpset = 6
	MaxOpset = 22
)

// maxGraphNodes bounds the nodes of one graph, so that the ordering and
// pruning passes stay linear in something the caller can afford.
const maxGraphNodes = 1 << 20

// readFile reads path, refusing a file larger than the options allow
// before reading it.
func readFile(path string, opt imports.Options) ([]byte, error) {
	limit := opt.MaxFileBytesOrDefault()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, &imports.Error{File: path, Msg: fmt.Sprintf("the file has %d bytes, past the limit of %d (Options.MaxFileBytes)", st.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &imports.Error{File: path, Msg: "reading the file", Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &imports.Error{File: path, Msg: fmt.Sprintf("the file has more than %d bytes (Options.MaxFileBytes)", limit)}
	}
	return data, nil
}

// source is where a named value of the graph comes from: a node's
// output, or a data input or initializer.
type source struct {
	node  int // the producing node's index, or -1 for an input or initializer
	index int // which output of the node
}

// loaded is a model decoded and checked: the parts of the file the
// converters read, ordered.
type loaded struct {
	file     string
	model    *onnxpb.ModelProto
	opset    int            // the default domain's version
	opsets   map[string]int // every imported domain's version
	inputs   []*onnxpb.ValueInfoProto
	inits    map[string]*onnxpb.TensorProto
	initList []string // initializer names in file order
	nodes    []*onnxpb.NodeProto
	order    []int // indices of the kept nodes, producers before consumers
	pruned   []int // indices of the nodes only pruned outputs need
	outputs  []string
	outTypes map[string]*onnxpb.ValueInfoProto
	all      []string // every graph output, in file order
}

// nodeName is how errors name node i: its name, or "#i (first output)"
// when the file leaves it unnamed.
func (l *loaded) nodeName(i int) string {
	n := l.nodes[i]
	if n.GetName() != "" {
		return n.GetName()
	}
	out := ""
	if len(n.GetOutput()) > 0 {
		out = n.GetOutput()[0]
	}
	return fmt.Sprintf("#%d %s", i, out)
}

func (l *loaded) errf(i int, format string, args ...any) error {
	if i < 0 {
		return &imports.Error{File: l.file, Msg: fmt.Sprintf(format, args...)}
	}
	return &imports.Error{File: l.file, Node: l.nodeName(i), Op: l.nodes[i].GetOpType(), Msg: fmt.Sprintf(format, args...)}
}

// decode parses data as an ONNX model and checks its structure: a graph,
// a supported default opset, distinct value names, every node input
// produced by something, no cycle. It orders the nodes the kept outputs
// need and sets aside the rest.
func decode(data []byte, file string, opt imports.Options, cov *imports.Coverage) (*loaded, error) {
	m := &onnxpb.ModelProto{}
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, m); err != nil {
		return nil, &imports.Error{File: file, Msg: "not a readable ONNX model (truncated or corrupt protobuf)", Err: err}
	}
	l := &loaded{file: file, model: m, opsets: map[string]int{}, inits: map[string]*onnxpb.TensorProto{}, outTypes: map[string]*onnxpb.ValueInfoProto{}}
	g := m.GetGraph()
	if g == nil {
		return nil, l.errf(-1, "the model has no graph")
	}
	if len(g.GetNode()) > maxGraphNodes {
		return nil, l.errf(-1, "the graph has %d nodes, past the limit of %d", len(g.GetNode()), maxGraphNodes)
	}
	for _, imp := range m.GetOpsetImport() {
		d := imp.GetDomain()
		if d == "ai.onnx" {
			d = ""
		}
		if imp.GetVersion() < 1 || imp.GetVersion() > 1000 {
			return nil, l.errf(-1, "opset_import of domain %q has version %d", d, imp.GetVersion())
		}
		l.opsets[d] = int(imp.GetVersion())
	}
	v, ok := l.opsets[""]
	switch {
	case !ok:
		return nil, l.errf(-1, "the model imports no version of the default operator set (opset_import has no entry for domain \"\"); hofuse reads opsets %d to %d", MinOpset, MaxOpset)
	case v < MinOpset:
		return nil, l.errf(-1, "opset %d is older than the oldest hofuse reads (%d); convert the model with onnx.version_converter.convert_version(model, %d)", v, MinOpset, MaxOpset)
	case v > MaxOpset:
		cov.Warn("opset %d is newer than the opsets hofuse is tested with (%d to %d); tried as if it were %d", v, MinOpset, MaxOpset, MaxOpset)
	}
	l.opset = v
	cov.Opset = v

	// Every value has one producer: a data input, an initializer or a node.
	prod := map[string]source{}
	for _, t := range g.GetInitializer() {
		name := t.GetName()
		if name == "" {
			return nil, l.errf(-1, "an initializer has no name")
		}
		if _, dup := l.inits[name]; dup {
			return nil, l.errf(-1, "two initializers are named %q", name)
		}
		l.inits[name] = t
		l.initList = append(l.initList, name)
		prod[name] = source{node: -1}
	}
	for _, in := range g.GetInput() {
		if _, isInit := l.inits[in.GetName()]; isInit {
			continue // an initializer listed as an input (IR < 4): a parameter
		}
		if in.GetName() == "" {
			return nil, l.errf(-1, "a graph input has no name")
		}
		if _, dup := prod[in.GetName()]; dup {
			return nil, l.errf(-1, "two graph inputs are named %q", in.GetName())
		}
		prod[in.GetName()] = source{node: -1}
		l.inputs = append(l.inputs, in)
	}
	l.nodes = g.GetNode()
	for i, n := range l.nodes {
		if len(n.GetOutput()) == 0 {
			return nil, l.errf(i, "the node has no outputs")
		}
		for k, out := range n.GetOutput() {
			if out == "" {
				continue // an optional output left out
			}
			if p, dup := prod[out]; dup {
				what := "a graph input or initializer"
				if p.node >= 0 {
					what = fmt.Sprintf("node %q", l.nodeName(p.node))
				}
				return nil, l.errf(i, "output %q is also produced by %s", out, what)
			}
			prod[out] = source{node: i, index: k}
		}
	}
	for i, n := range l.nodes {
		for _, in := range n.GetInput() {
			if _, ok := prod[in]; !ok && in != "" {
				return nil, l.errf(i, "input %q is produced by no node, graph input or initializer", in)
			}
		}
	}
	for _, o := range g.GetOutput() {
		if _, ok := prod[o.GetName()]; !ok {
			return nil, l.errf(-1, "graph output %q is produced by no node, graph input or initializer", o.GetName())
		}
		l.all = append(l.all, o.GetName())
		l.outTypes[o.GetName()] = o
	}
	if len(l.all) == 0 {
		return nil, l.errf(-1, "the graph has no outputs")
	}
	// An output asked for may be a graph output or any value a node
	// computes (scikit-learn's probabilities before its ZipMap, say).
	var inner []string
	for _, name := range opt.Outputs {
		if p, ok := prod[name]; ok && p.node >= 0 && !slices.Contains(l.all, name) {
			inner = append(inner, name)
		}
	}
	outs, err := opt.SelectOutputs(append(slices.Clone(l.all), inner...))
	if err != nil {
		return nil, &imports.Error{File: file, Msg: "choosing outputs", Err: err}
	}
	l.outputs = outs
	cov.Outputs = slices.Clone(outs)
	for _, o := range l.all {
		if !slices.Contains(outs, o) {
			cov.PrunedOutputs = append(cov.PrunedOutputs, o)
		}
	}
	if err := l.sortNodes(prod); err != nil {
		return nil, err
	}
	for _, i := range l.pruned {
		cov.Pruned = append(cov.Pruned, imports.PrunedNode{Node: l.nodeName(i), Op: qualifiedOp(l.nodes[i])})
	}
	return l, nil
}

// qualifiedOp is the node's operator, prefixed by its domain outside the
// default one: "Gemm", "ai.onnx.ml:ArgMax".
func qualifiedOp(n *onnxpb.NodeProto) string {
	if d := n.GetDomain(); d != "" && d != "ai.onnx" {
		return d + ":" + n.GetOpType()
	}
	return n.GetOpType()
}

// sortNodes finds the nodes the kept outputs need (walking back from them),
// sorts them so that producers come first (Kahn's algorithm, file order
// among the ready ones), and reports a cycle naming its nodes. Nodes not
// needed go to pruned, in file order.
func (l *loaded) sortNodes(prod map[string]source) error {
	need := make([]bool, len(l.nodes))
	var stack []int
	mark := func(name string) {
		if p, ok := prod[name]; ok && p.node >= 0 && !need[p.node] {
			need[p.node] = true
			stack = append(stack, p.node)
		}
	}
	for _, o := range l.outputs {
		mark(o)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range l.nodes[i].GetInput() {
			mark(in)
		}
	}
	// Kahn: indegree counts inputs produced by needed nodes.
	indeg := make([]int, len(l.nodes))
	users := make(map[int][]int)
	for i, n := range l.nodes {
		if !need[i] {
			l.pruned = append(l.pruned, i)
			continue
		}
		for _, in := range n.GetInput() {
			if p, ok := prod[in]; ok && p.node >= 0 {
				indeg[i]++
				users[p.node] = append(users[p.node], i)
			}
		}
	}
	var ready []int
	for i := range l.nodes {
		if need[i] && indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		i := ready[0]
		ready = ready[1:]
		l.order = append(l.order, i)
		for _, u := range users[i] {
			indeg[u]--
			if indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	kept := 0
	for _, n := range need {
		if n {
			kept++
		}
	}
	if len(l.order) < kept {
		var cyc []string
		for i := range l.nodes {
			if need[i] && indeg[i] > 0 {
				cyc = append(cyc, fmt.Sprintf("%q", l.nodeName(i)))
			}
		}
		first := -1
		for i := range l.nodes {
			if need[i] && indeg[i] > 0 {
				first = i
				break
			}
		}
		return l.errf(first, "the graph has a cycle through nodes %s", strings.Join(cyc, ", "))
	}
	return nil
}

// inputType reads a graph input's tensor type: its element type and
// extents, symbolic ones fixed to batch and returned as SymbolicDims.
func (l *loaded) inputType(vi *onnxpb.ValueInfoProto, batch int) (*graph.ArrayType, []imports.SymbolicDim, error) {
	name := vi.GetName()
	bad := func(format string, args ...any) error {
		return &imports.Error{File: l.file, Node: name, Op: "graph input", Msg: fmt.Sprintf(format, args...)}
	}
	tt := vi.GetType().GetTensorType()
	if tt == nil {
		return nil, nil, bad("not a tensor (sequences, maps and optionals are not supported)")
	}
	dt, ok := dtypeOf(tt.GetElemType())
	if !ok {
		return nil, nil, bad("element type %s is not supported", elemName(tt.GetElemType()))
	}
	if tt.GetShape() == nil {
		return nil, nil, bad("the file gives no shape; hofuse needs every input's rank")
	}
	var extents []int
	var syms []imports.SymbolicDim
	for ax, d := range tt.GetShape().GetDim() {
		switch v := d.GetValue().(type) {
		case *onnxpb.TensorShapeProto_Dimension_DimValue:
			if v.DimValue < 1 || v.DimValue > graph.MaxExtent {
				return nil, nil, bad("dimension %d is %d; extents must be between 1 and %d (graph.MaxExtent)", ax, v.DimValue, graph.MaxExtent)
			}
			extents = append(extents, int(v.DimValue))
		default:
			syms = append(syms, imports.SymbolicDim{Input: name, Axis: ax, Name: d.GetDimParam(), Extent: batch})
			extents = append(extents, batch)
		}
	}
	t := graph.ArrayOf(dt, extents...)
	if err := t.Layout.Validate(); err != nil {
		return nil, nil, bad("%v", err)
	}
	return t, syms, nil
}
