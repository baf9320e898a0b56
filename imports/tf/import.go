package tf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/nd"
)

// Format is the name the coverage report and imports.Model give this
// importer's files.
const Format = "tf"

// maxConstBytes caps the bytes of all constants of one graph together:
// graph.DefaultMemoryLimit. tensor_content is bounded by the file's size,
// but a typed field of one value fills a shape of any size, so the shape's
// bytes are checked against what is left of the cap before anything is
// allocated. (A variable so that the fuzz test can lower it.)
var maxConstBytes = graph.DefaultMemoryLimit

// Import reads the frozen TensorFlow GraphDef at path (a .pb whose variables
// are constants) and converts it into an imports.Model. The file is refused
// past opt.MaxFileBytes before it is read. See ImportBytes for the rest.
func Import(path string, opt imports.Options) (*imports.Model, error) {
	max := opt.MaxFileBytesOrDefault()
	f, err := os.Open(path)
	if err != nil {
		return nil, &imports.Error{File: path, Msg: "cannot open the model", Err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, fileError(path, "the file holds %d bytes, past the limit of %d (Options.MaxFileBytes)", st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &imports.Error{File: path, Msg: "cannot read the model", Err: err}
	}
	return ImportBytes(data, path, opt)
}

// ImportBytes converts a frozen TensorFlow GraphDef held in data; file names it
// in errors and in the model.
//
// It decodes the graph and resolves every node's inputs ("node", "node:1",
// control inputs "^node"), refusing a node that reads a name no node has;
// keeps the outputs opt.Outputs names (a node, or "node:k"), or by default
// every node whose output nothing reads; orders the nodes they need,
// refusing a cycle; and runs the coverage pass, which lists every kept node
// it cannot convert, at once, in a *imports.CoverageError. Only then does
// it convert, node by node: Placeholders become the data inputs (a -1
// dimension takes opt.Batch), constant arrays read as data become
// parameters named after their Const node, with their values in
// Model.Values, scalar constants typed literals, and every other op becomes
// terms that carry the node's name as their source.
//
// Every error is an *imports.Error naming the file and, where the problem
// is a node's, the node, or an *imports.CoverageError.
func ImportBytes(data []byte, file string, opt imports.Options) (*imports.Model, error) {
	if err := opt.Validate(); err != nil {
		return nil, &imports.Error{File: file, Msg: "bad options", Err: err}
	}
	if max := opt.MaxFileBytesOrDefault(); int64(len(data)) > max {
		return nil, fileError(file, "the model holds %d bytes, past the limit of %d (Options.MaxFileBytes)", len(data), max)
	}
	g, err := decodeGraph(file, data)
	if err != nil {
		return nil, err
	}
	outs, err := g.outputs(opt.Outputs)
	if err != nil {
		return nil, err
	}
	order, err := g.order(outs)
	if err != nil {
		return nil, err
	}
	cov := g.coverage(order, outs, opt)
	if err := cov.Err(); err != nil {
		return nil, err
	}
	c := &converter{g: g, opt: opt, budget: maxConstBytes, vals: map[*node][]value{},
		model: &imports.Model{Source: file, Format: Format, Values: map[string]graph.Value{}, Coverage: cov}}
	if g.producer != 0 {
		c.model.Producer = fmt.Sprintf("TensorFlow (GraphDef version %d)", g.producer)
	}
	for _, n := range order {
		if err := c.convert(n); err != nil {
			return nil, err
		}
	}
	return c.finish(outs)
}

// coverage counts the kept nodes per op and lists every one that cannot be
// converted: an op without a converter, attributes a converter refuses
// (training mode, a layout other than NHWC), or an output index past what
// the converter gives.
func (g *graphDef) coverage(order []*node, outs []edge, opt imports.Options) *imports.Coverage {
	cov := imports.NewCoverage(g.file, Format)
	for _, n := range order {
		cov.Count("", n.op)
		op, ok := ops[n.op]
		if !ok {
			cov.Refuse(imports.Unsupported{Op: n.op, Node: n.name, Reason: "no converter"})
			continue
		}
		if op.check != nil {
			if reason := op.check(n); reason != "" {
				cov.Refuse(imports.Unsupported{Op: n.op, Node: n.name, Reason: reason})
				continue
			}
		}
		// Reading an output past those a converter gives is the reader's
		// problem (a producer without a converter is listed already).
		for i, e := range n.inputs {
			if op, ok := ops[e.node.op]; ok && e.out >= outputsOf(op, e.node) {
				cov.Refuse(imports.Unsupported{Op: n.op, Node: n.name,
					Reason: fmt.Sprintf("input %d reads output %d of %q (%s), which has %s hofuse imports", i, e.out, e.node.name, e.node.op, outputCount(outputsOf(op, e.node)))})
			}
		}
	}
	for _, e := range outs {
		if op, ok := ops[e.node.op]; ok && e.out >= outputsOf(op, e.node) {
			cov.Refuse(imports.Unsupported{Op: e.node.op, Node: e.node.name,
				Reason: fmt.Sprintf("output %s is asked for, but the node has %s hofuse imports", e, outputCount(outputsOf(op, e.node)))})
		}
		cov.Outputs = append(cov.Outputs, outputName(e, opt))
	}
	if len(opt.Outputs) > 0 {
		kept := make(map[*node]bool, len(outs))
		for _, e := range outs {
			kept[e.node] = true
		}
		for _, e := range g.defaultOutputs() {
			if !kept[e.node] {
				cov.PrunedOutputs = append(cov.PrunedOutputs, e.String())
			}
		}
	}
	for _, n := range g.pruned(order) {
		cov.Pruned = append(cov.Pruned, imports.PrunedNode{Node: n.name, Op: n.op})
	}
	return cov
}

func outputCount(k int) string {
	switch k {
	case 0:
		return "no output"
	case 1:
		return "only output 0"
	}
	return fmt.Sprintf("only outputs 0 to %d", k-1)
}

// outputName is the name a kept output has in the model: the name the
// caller asked for it by, or the node's name ("node:k" past output 0).
func outputName(e edge, opt imports.Options) string {
	for _, name := range opt.Outputs {
		if nn, k, err := splitInput(name); err == nil && nn == e.node.name && k == e.out {
			return name
		}
	}
	return e.String()
}

// value is what one output of a converted node is: a term with its type,
// or a constant known at import time, which becomes a parameter only when
// some converter reads it as data.
//
// A computed value's term is a stand-in: an input of the value's type that
// the converters build the next terms over, so that each converter types
// only the few nodes it builds, not the whole graph above it (which made a
// chain of n nodes cost n² typings). finish puts the terms together.
type value struct {
	term  graph.Node // a stand-in, an input, a parameter or a literal; nil for a constant not yet read as data
	typ   graph.Type // *graph.ArrayType or *graph.ScalarType
	konst *tensor    // the value, when known at import time
	from  *node      // the Const node a constant came from
}

// converter holds the state of one conversion.
type converter struct {
	g        *graphDef
	opt      imports.Options
	model    *imports.Model
	vals     map[*node][]value           // the outputs of every converted node
	budget   int64                       // constant bytes still allowed
	current  *node                       // the node being converted
	standIns []standIn                   // in the order made, so each reads only earlier ones
	built    map[*graph.Input]graph.Node // what each stand-in stands for, put together
}

// standIn is the term a stand-in stands for, built over earlier stand-ins,
// and the node that built it.
type standIn struct {
	in   *graph.Input
	term graph.Node
	node *node
}

// errorf returns an *imports.Error about node n.
func (c *converter) errorf(n *node, format string, args ...any) *imports.Error {
	return c.g.errorf(n, format, args...)
}

// convert converts one node whose inputs are converted.
func (c *converter) convert(n *node) error {
	op := ops[n.op] // the coverage pass saw it exists
	if op.arity >= 0 && len(n.inputs) != op.arity {
		return c.errorf(n, "%d data inputs, but %s takes %d", len(n.inputs), n.op, op.arity)
	}
	ins := make([]value, len(n.inputs))
	for i, e := range n.inputs {
		ins[i] = c.vals[e.node][e.out]
	}
	c.current = n
	outs, err := op.convert(c, n, ins)
	if err != nil {
		var ie *imports.Error
		if errors.As(err, &ie) {
			return err
		}
		return c.errorf(n, "%v", err)
	}
	if want := outputsOf(op, n); len(outs) != want {
		return c.errorf(n, "the converter gave %d outputs, want %d (an importer bug; please report it with the file)", len(outs), want)
	}
	c.vals[n] = outs
	return nil
}

// data returns v as a term: a constant array read as data becomes a
// parameter named after its Const node (or the node that reshaped it), its
// value recorded in the model; a scalar number becomes a typed literal
// (f32 0.001) carrying that name as its source.
func (c *converter) data(v value) (graph.Node, error) {
	if v.term != nil {
		return v.term, nil
	}
	if made := c.vals[v.from][0].term; made != nil {
		return made, nil
	}
	name := v.from.name
	if v.konst.size() == 0 {
		return nil, c.errorf(v.from, "the constant is empty (shape %v); hofuse arrays have no empty axes, so it can only be a shape that folds (Reshape's, Tile's)", v.konst.shape)
	}
	val, err := v.konst.value()
	if err != nil {
		return nil, c.errorf(v.from, "%v", err)
	}
	var term graph.Node
	if sv, ok := val.(graph.ScalarValue); ok && sv.DType != graph.Bool {
		// A number is written into the term, where fusion sees it.
		lit, err := nd.Literal(sv.DType, sv.V)
		if err != nil {
			return nil, c.errorf(v.from, "%v", err)
		}
		if term, err = graph.Rewrite(lit, func(n graph.Node) (graph.Node, error) {
			return graph.WithSource(n, name), nil
		}); err != nil {
			return nil, c.errorf(v.from, "%v", err)
		}
	} else {
		in, err := nd.Param(name, elemOf(v.typ), extentsOf(v.typ))
		if err != nil {
			return nil, c.errorf(v.from, "%v", err)
		}
		c.model.Params = append(c.model.Params, in)
		c.model.Values[name] = val
		term = in
	}
	// Every reader of this constant gets the same term.
	for i := range c.vals[v.from] {
		c.vals[v.from][i].term = term
	}
	return term, nil
}

// standIn returns a stand-in for t, of type typ, built for node n. It is
// named after n, so that a message about a term built over it reads as the
// graph does; no other input of a term has that name, since Placeholders
// and Consts, whose names inputs and parameters take, never get one.
func (c *converter) standIn(n *node, t graph.Node, typ graph.Type) (*graph.Input, error) {
	in, err := graph.NewInput(n.name, typ, false)
	if err != nil {
		return nil, err
	}
	c.standIns = append(c.standIns, standIn{in: in, term: t, node: n})
	return in, nil
}

// compose replaces every stand-in by the term it stands for, each built
// once, in the order made (producers first), so the whole graph is
// rebuilt once and shared values stay shared.
func (c *converter) compose() error {
	c.built = make(map[*graph.Input]graph.Node, len(c.standIns))
	for _, s := range c.standIns {
		t, err := c.substitute(s.term)
		if err != nil {
			return c.errorf(s.node, "%v", err)
		}
		c.built[s.in] = t
	}
	return nil
}

// substitute replaces the stand-ins in t by their built terms.
func (c *converter) substitute(t graph.Node) (graph.Node, error) {
	return graph.Rewriter{Pre: func(n graph.Node) (graph.Node, bool, error) {
		if in, ok := n.(*graph.Input); ok {
			if b, ok := c.built[in]; ok {
				return b, false, nil // built already: used as it is
			}
		}
		return n, true, nil
	}}.Rewrite(t)
}

// finish assembles the model from the converted outputs.
func (c *converter) finish(outs []edge) (*imports.Model, error) {
	m := c.model
	if err := c.compose(); err != nil {
		return nil, err
	}
	terms := make([]graph.Node, len(outs))
	for i, e := range outs {
		v := c.vals[e.node][e.out]
		t, err := c.data(v)
		if err != nil {
			return nil, err
		}
		if t, err = c.substitute(t); err != nil {
			return nil, c.errorf(e.node, "%v", err)
		}
		terms[i] = t
		typ := v.typ
		m.Outputs = append(m.Outputs, imports.Output{Name: outputName(e, c.opt), Term: t, Type: typ})
	}
	if len(terms) == 1 {
		m.Term = terms[0]
	} else {
		tup, err := graph.NewTuple(terms...)
		if err != nil {
			return nil, fileError(c.g.file, "the outputs cannot form a tuple: %v", err)
		}
		m.Term = tup
	}
	info, err := graph.Check(m.Term)
	if err != nil {
		return nil, fileError(c.g.file, "the imported term does not check (an importer bug; please report it with the file): %v", err)
	}
	// The positions nd.Concat reads are parameters with known values,
	// counted against the constants' budget before they are made.
	for _, in := range info.Inputs {
		if ext, ok := nd.IndexExtent(in); ok {
			if int64(ext) > c.budget/4 {
				return nil, fileError(c.g.file, "the index input %s of a concatenation holds %d bytes, past the limit of %d bytes left for the graph's constants (graph.DefaultMemoryLimit)", in.Name, int64(ext)*4, c.budget)
			}
			c.budget -= int64(ext) * 4
			v, err := nd.IndexValue(ext)
			if err != nil {
				return nil, fileError(c.g.file, "%v", err)
			}
			m.Params = append(m.Params, in)
			m.Values[in.Name] = v
		}
	}
	slices.SortStableFunc(m.Inputs, func(a, b *graph.Input) int { return c.g.byName[a.Name].index - c.g.byName[b.Name].index })
	return m, nil
}
