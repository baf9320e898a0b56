package tf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
	"google.golang.org/protobuf/proto"
)

// node is one NodeDef with its input names resolved.
type node struct {
	def     *tfpb.NodeDef
	name    string
	op      string
	inputs  []edge  // data inputs, in order
	control []*node // control inputs (^name): ordering only
	index   int     // position in the file
}

// edge is a data input: output out of node.
type edge struct {
	node *node
	out  int
}

func (e edge) String() string {
	if e.out == 0 {
		return e.node.name
	}
	return fmt.Sprintf("%s:%d", e.node.name, e.out)
}

// graphDef is a decoded GraphDef whose every input names a node of it.
type graphDef struct {
	file     string
	nodes    []*node // in file order
	byName   map[string]*node
	producer int32 // versions.producer: the GraphDef version of the TensorFlow that wrote it, 0 if unset
}

// errorf returns an *imports.Error about node n.
func (g *graphDef) errorf(n *node, format string, args ...any) *imports.Error {
	return &imports.Error{File: g.file, Node: n.name, Op: n.op, Msg: fmt.Sprintf(format, args...)}
}

// decodeGraph decodes data as a GraphDef and resolves every node's inputs.
// It refuses a node without a name or op, two nodes of one name, and an
// input naming no node, each with an error naming the file and the node.
func decodeGraph(file string, data []byte) (*graphDef, error) {
	var gd tfpb.GraphDef
	if err := proto.Unmarshal(data, &gd); err != nil {
		return nil, fileError(file, "not a TensorFlow GraphDef (a frozen graph .pb): %v", err)
	}
	if len(gd.Node) == 0 {
		return nil, fileError(file, "the GraphDef has no nodes; is this a frozen TensorFlow graph (a SavedModel's saved_model.pb is not one: freeze it first)?")
	}
	g := &graphDef{file: file, byName: make(map[string]*node, len(gd.Node)), producer: gd.GetVersions().GetProducer()}
	for i, def := range gd.Node {
		n := &node{def: def, name: def.GetName(), op: def.GetOp(), index: i}
		if n.name == "" {
			return nil, fileError(file, "node %d (op %q) has no name", i, n.op)
		}
		if n.op == "" {
			return nil, g.errorf(n, "the node has no op type")
		}
		if prev, dup := g.byName[n.name]; dup {
			return nil, g.errorf(n, "a second node of this name (the first is a %s); node names must be unique", prev.op)
		}
		g.byName[n.name] = n
		g.nodes = append(g.nodes, n)
	}
	for _, n := range g.nodes {
		for i, in := range n.def.GetInput() {
			if ctl, ok := strings.CutPrefix(in, "^"); ok {
				src, found := g.byName[ctl]
				if !found {
					return nil, g.errorf(n, "control input %d reads %q, which no node of the graph produces", i, in)
				}
				n.control = append(n.control, src)
				continue
			}
			if len(n.control) > 0 {
				return nil, g.errorf(n, "data input %d (%q) follows a control input; TensorFlow lists control inputs last", i, in)
			}
			name, out, err := splitInput(in)
			if err != nil {
				return nil, g.errorf(n, "input %d: %v", i, err)
			}
			src, found := g.byName[name]
			if !found {
				return nil, g.errorf(n, "input %d reads %q, which no node of the graph produces", i, in)
			}
			n.inputs = append(n.inputs, edge{node: src, out: out})
		}
	}
	return g, nil
}

// splitInput splits an input name "node" or "node:k" into the node and the
// output index (0 for "node").
func splitInput(in string) (string, int, error) {
	if in == "" {
		return "", 0, fmt.Errorf("an empty input name")
	}
	i := strings.LastIndexByte(in, ':')
	if i < 0 {
		return in, 0, nil
	}
	k, err := strconv.Atoi(in[i+1:])
	if err != nil || k < 0 || in[i+1] == '+' || in[i+1] == '-' {
		return "", 0, fmt.Errorf("input %q: the output index after ':' is not a non-negative integer", in)
	}
	if i == 0 {
		return "", 0, fmt.Errorf("input %q names no node before ':'", in)
	}
	return in[:i], k, nil
}

// producesData reports whether a node of op can be a default output: ops
// with no outputs (NoOp), and Const and Placeholder nodes that nothing
// reads (a graph's unused constants, a Keras learning-phase flag) are not.
func producesData(op string) bool {
	switch op {
	case "NoOp", "Const", "Placeholder", "PlaceholderWithDefault":
		return false
	}
	return true
}

// defaultOutputs returns the nodes whose outputs no node reads, in file
// order, leaving out the ops producesData refuses.
func (g *graphDef) defaultOutputs() []edge {
	read := make(map[*node]bool, len(g.nodes))
	for _, n := range g.nodes {
		for _, e := range n.inputs {
			read[e.node] = true
		}
	}
	var outs []edge
	for _, n := range g.nodes {
		if !read[n] && producesData(n.op) {
			outs = append(outs, edge{node: n})
		}
	}
	return outs
}

// outputs resolves the output names the caller asked for ("node" or
// "node:k"), or returns the default outputs when names is empty.
func (g *graphDef) outputs(names []string) ([]edge, error) {
	if len(names) == 0 {
		outs := g.defaultOutputs()
		if len(outs) == 0 {
			return nil, fileError(g.file, "no node produces a value nothing else reads, so there is no output to import; name the outputs (Options.Outputs, --out NAME=FILE)")
		}
		return outs, nil
	}
	outs := make([]edge, 0, len(names))
	for _, name := range names {
		nn, k, err := splitInput(name)
		if err != nil {
			return nil, fileError(g.file, "output %v", err)
		}
		n, ok := g.byName[nn]
		if !ok {
			return nil, fileError(g.file, "output %q names no node of the graph; %s", name, g.outputHint())
		}
		outs = append(outs, edge{node: n, out: k})
	}
	return outs, nil
}

// outputHint lists the default outputs, for an error about an output name.
func (g *graphDef) outputHint() string {
	var names []string
	for _, e := range g.defaultOutputs() {
		names = append(names, e.String())
	}
	if len(names) == 0 {
		return "the graph has no node that nothing reads"
	}
	if len(names) > 10 {
		names = append(names[:10], "…")
	}
	return "nodes nothing reads: " + strings.Join(names, ", ")
}

// order returns the nodes the outputs depend on through data inputs, each
// after every node it reads, and refuses a cycle with an error naming the
// nodes on it. Control inputs are not followed: they order side effects,
// and an imported term has none. It walks with an explicit stack, so a
// chain of any length cannot overflow the Go stack.
func (g *graphDef) order(outs []edge) ([]*node, error) {
	const (
		unseen = iota
		open   // on the current path
		done
	)
	state := make(map[*node]uint8, len(g.nodes))
	var sorted []*node
	type frame struct {
		n    *node
		next int // the next input to visit
	}
	for _, out := range outs {
		if state[out.node] == done {
			continue
		}
		stack := []frame{{n: out.node}}
		state[out.node] = open
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.n.inputs) {
				state[top.n] = done
				sorted = append(sorted, top.n)
				stack = stack[:len(stack)-1]
				continue
			}
			in := top.n.inputs[top.next].node
			top.next++
			switch state[in] {
			case done:
			case open:
				// The stack from in upwards holds in, a node in reads, a node
				// that one reads, …, and the reader of in on top; data flows
				// the other way.
				j := len(stack) - 1
				for stack[j].n != in {
					j--
				}
				cycle := []string{in.name}
				for i := len(stack) - 1; i > j; i-- {
					cycle = append(cycle, stack[i].n.name)
				}
				cycle = append(cycle, in.name)
				return nil, g.errorf(in, "the graph has a cycle through this node: %s; a frozen graph for import has none (control flow such as while loops is not supported)",
					strings.Join(cycle, " -> "))
			default:
				state[in] = open
				stack = append(stack, frame{n: in})
			}
		}
	}
	return sorted, nil
}

// pruned returns, sorted by name, the nodes not in kept that the import
// leaves out (apart from NoOp nodes, which compute nothing).
func (g *graphDef) pruned(kept []*node) []*node {
	in := make(map[*node]bool, len(kept))
	for _, n := range kept {
		in[n] = true
	}
	var out []*node
	for _, n := range g.nodes {
		if !in[n] && n.op != "NoOp" {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
