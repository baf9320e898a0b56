package fusion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// A Kernel is one fused higher-order-function nest: it reads buffers and
// writes one result, possibly a tuple, with no materialised temporaries
// inside.
type Kernel struct {
	Name    string         // unique within its graph, deterministic: k1_dense1, ...
	Inputs  []*graph.Input // buffers the body reads, in order of first use
	Body    graph.Node     // a closed term over Inputs
	Output  *graph.Input   // the buffer the kernel writes, of the body's materialised type
	Sources []string       // the distinct source names of the body's nodes, innermost computation first
	// Schedule is the order of the body's loops the schedule pass chose,
	// with what it cost and pruned; nil for a kernel it did not schedule
	// (Fuse with ScheduleOptions.Off, Unfused, Whole, Partition).
	Schedule *KernelSchedule
}

// Graph is a program split into kernels that run one after another, each
// reading program inputs and the outputs of kernels before it.
type Graph struct {
	Inputs  []*graph.Input // the program's inputs and parameters, in order of first use
	Kernels []*Kernel      // in dependency order
	Result  *graph.Input   // the buffer that holds the program's result: the last kernel's output
}

// Temporaries returns the kernel outputs that later kernels read: the
// buffers materialised between kernels.
func (g *Graph) Temporaries() []*graph.Input {
	var out []*graph.Input
	for _, k := range g.Kernels {
		if k.Output != g.Result {
			out = append(out, k.Output)
		}
	}
	return out
}

// TemporaryBytes is the storage the temporaries occupy.
func (g *Graph) TemporaryBytes() int {
	n := 0
	for _, t := range g.Temporaries() {
		n += graph.Bytes(t.Type)
	}
	return n
}

// String prints one line per kernel: output = body.
func (g *Graph) String() string {
	var sb strings.Builder
	for _, k := range g.Kernels {
		fmt.Fprintf(&sb, "%s : %v = %s\n", k.Output.Name, k.Output.Type, graph.Print(k.Body))
	}
	return sb.String()
}

// Eval runs the kernels one after another on the reference interpreter,
// binding each output for the kernels after it, and returns the result.
func (g *Graph) Eval(inputs map[string]graph.Value) (graph.Value, error) {
	env := make(map[string]graph.Value, len(inputs)+len(g.Kernels))
	for k, v := range inputs {
		env[k] = v
	}
	var last graph.Value
	for _, k := range g.Kernels {
		in := make(map[string]graph.Value, len(k.Inputs))
		for _, i := range k.Inputs {
			v, ok := env[i.Name]
			if !ok {
				return nil, fmt.Errorf("kernel %s: input %s is not bound", k.Name, i.Name)
			}
			in[i.Name] = v
		}
		v, err := graph.Eval(k.Body, in)
		if err != nil {
			return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
		}
		env[k.Output.Name] = v
		last = v
	}
	return last, nil
}

// Whole returns the graph of one kernel that computes all of term.
func Whole(term graph.Node) (*Graph, error) {
	return Partition(term, func(graph.Node) bool { return false })
}

// Unfused splits term the way a layer-by-layer library runs it: one kernel
// per original operation. A closed term is materialised when its source
// differs from that of a term using it, when several terms use it (a value
// a let binds for several uses, such as a batch statistic, included), when
// it is the array argument of a higher-order function, or when a lambda
// reads it (a loop-invariant value). Layout operations on buffers are views
// and never become kernels of their own. This is the honest baseline that
// fused graphs are compared with.
//
// Each kernel is then scheduled as Fuse schedules its own: the contract
// pass (dead-arg, drop-copy, eta, flip-flip, contract) runs inside it,
// so that a contraction — a dense layer's gradients — runs as the matrix
// product a layer-by-layer library would call; a kernel without one stays
// as it was. That is scheduling, not
// fusion: it reorders one kernel's loops and drops arguments it never
// reads, and never merges two kernels.
func Unfused(term graph.Node) (*Graph, error) {
	g, err := unfused(term)
	if err != nil {
		return nil, err
	}
	for _, k := range g.Kernels {
		e := newEngine(contractRules)
		body, err := e.run(k.Body)
		if err != nil {
			return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
		}
		if e.applied[Contract{}.Name()] == 0 {
			continue // no contraction: the kernel stays as the layer wrote it
		}
		info, err := graph.Check(body)
		if err != nil {
			return nil, fmt.Errorf("kernel %s: scheduling made an ill-typed term (a bug): %w", k.Name, err)
		}
		k.Body, k.Inputs = body, info.Inputs
	}
	return g, nil
}

// unfused is Unfused without the scheduling of each kernel.
func unfused(term graph.Node) (*Graph, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	if term, err = letsToDAG(term); err != nil {
		return nil, err
	}
	parents := parentSources(term)
	operation := fusedCut(term)
	g, err := Partition(term, func(n graph.Node) bool {
		ps := parents[n]
		return operation(n) || (len(ps) == 1 && ps[0] != n.Source())
	})
	if err != nil {
		return nil, err
	}
	g.Inputs = info.Inputs // every input of the program, dead code's too
	return g, nil
}

// parentSources lists, for every node, the source of each use of it.
func parentSources(term graph.Node) map[graph.Node][]string {
	out := map[graph.Node][]string{}
	for n := range graph.All(term) {
		for _, c := range graph.Children(n) {
			out[c] = append(out[c], n.Source())
		}
	}
	return out
}

// Partition splits term into kernels. A closed, computing subterm (one that
// is neither an input, a literal, a function, nor layout operations and
// projections over buffers) becomes a kernel of its own when cut says so;
// the root always does. Each kernel reads the outputs of the kernels it
// contains as buffers named t1_source, t2_source, ...
func Partition(term graph.Node, cut func(graph.Node) bool) (*Graph, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	p := &partitioner{info: info, buffer: map[graph.Node]*graph.Input{}, closed: map[graph.Node]bool{}, reads: map[graph.Node]bool{}}
	p.closed = info.Closed
	p.names = map[string]bool{}
	for _, in := range info.Inputs {
		p.names[in.Name] = true
	}
	g := &Graph{Inputs: info.Inputs}
	// A cut at a view or projection of a computation is a cut at the
	// computation: the kernel writes the computation's result, and the
	// terms that read the view read it from that buffer, through the view.
	// A kernel whose whole body is a view of a buffer would only copy it;
	// so would one whose body is a tuple of views and projections (two of
	// the sums of one tuple reduction, read together): each computation
	// under it is cut instead, and the tuple is built where it is read.
	kernelAt := map[graph.Node]bool{}
	for n := range graph.All(term) {
		if n == term || !p.computes(n) || !cut(n) {
			continue
		}
		if t, ok := n.(*graph.Tuple); ok && onlyViews(t) {
			for _, e := range t.Elems {
				if p.computes(e) {
					kernelAt[viewBase(e)] = true
				}
			}
			continue
		}
		kernelAt[viewBase(n)] = true
	}
	for n := range graph.All(term) { // children first: kernels come out in dependency order
		if n != term && !kernelAt[n] {
			continue
		}
		k, err := p.kernel(n, len(g.Kernels)+1)
		if err != nil {
			return nil, err
		}
		g.Kernels = append(g.Kernels, k)
	}
	g.Result = g.Kernels[len(g.Kernels)-1].Output
	return g, nil
}

// onlyViews reports whether every element of t is a view or a projection
// of another term.
func onlyViews(t *graph.Tuple) bool {
	for _, e := range t.Elems {
		if viewBase(e) == e {
			return false
		}
	}
	return true
}

// viewBase returns the operand under the views and projections that n
// applies: the term whose buffer a view of it reads.
func viewBase(n graph.Node) graph.Node {
	for {
		switch m := n.(type) {
		case graph.ViewNode:
			n = m.Operand()
		case *graph.Proj:
			n = m.X
		default:
			return n
		}
	}
}

// readsInput reports whether n reads an input or a buffer.
func (p *partitioner) readsInput(n graph.Node) bool {
	if r, ok := p.reads[n]; ok {
		return r
	}
	r := false
	if _, ok := n.(*graph.Input); ok {
		r = true
	}
	for _, c := range graph.Children(n) {
		r = p.readsInput(c) || r
	}
	p.reads[n] = r
	return r
}

type partitioner struct {
	reads  map[graph.Node]bool // memo of readsInput
	info   *graph.Info
	closed map[graph.Node]bool
	buffer map[graph.Node]*graph.Input // the output buffer of each kernel root
	names  map[string]bool
}

// computes reports whether n is a closed value term that does arithmetic
// on buffers (not merely a view of them, and not arithmetic on literals
// alone, whose type its context decides).
func (p *partitioner) computes(n graph.Node) bool {
	if !p.closed[n] || graph.IsFunc(n) || !p.readsInput(n) || graph.Untyped(p.info.TypeOf(n)) {
		return false
	}
	switch n := n.(type) {
	case *graph.Input, *graph.Const, *graph.Var:
		return false
	case graph.ViewNode:
		// A view of a kernel's buffer is read in place, like a view of an
		// input: copying it would be a kernel that only transposes.
		if _, ok := p.buffer[n.Operand()]; ok {
			return false
		}
		return p.computes(n.Operand())
	case *graph.Proj:
		return p.computes(n.X)
	case *graph.Tuple:
		for _, e := range n.Elems {
			if p.computes(e) {
				return true
			}
		}
		return false
	}
	return true
}

func (p *partitioner) kernel(root graph.Node, index int) (*Kernel, error) {
	// The kernels inside root are read from their buffers: the rewrite
	// stops there.
	body, err := graph.Rewriter{Pre: func(n graph.Node) (graph.Node, bool, error) {
		if b, ok := p.buffer[n]; ok && n != root {
			return b, false, nil
		}
		return n, true, nil
	}}.Rewrite(root)
	if err != nil {
		return nil, err
	}
	info, err := graph.Check(body)
	if err != nil {
		return nil, fmt.Errorf("kernel %d: %w", index, err)
	}
	sources := kernelSources(body)
	label := "kernel"
	if len(sources) > 0 {
		label = sources[0]
		if len(sources) > 1 {
			label += "_" + sources[len(sources)-1]
		}
	}
	name := p.fresh(fmt.Sprintf("t%d_%s", index, sanitize(label)))
	out, err := graph.NewInput(name, graph.Materialized(info.TypeOf(body)), false)
	if err != nil {
		return nil, err
	}
	p.buffer[root] = out
	return &Kernel{
		Name:    fmt.Sprintf("k%d_%s", index, sanitize(label)),
		Inputs:  info.Inputs,
		Body:    body,
		Output:  out,
		Sources: sources,
	}, nil
}

func (p *partitioner) fresh(name string) string {
	base := name
	for i := 2; p.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	p.names[name] = true
	return name
}

// kernelSources returns the distinct source names of the computing nodes of
// body (inputs name themselves and are left out), in the order a post-order
// walk meets them: the computation that runs first comes first.
func kernelSources(body graph.Node) []string {
	var out []string
	for n := range graph.All(body) {
		if _, isInput := n.(*graph.Input); isInput {
			continue
		}
		if s := n.Source(); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// sanitize keeps letters, digits and underscores, so that names derived
// from sources are identifiers in every back end.
func sanitize(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	return sb.String()
}
