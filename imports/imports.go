package imports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// DefaultBatch is the extent a symbolic dimension takes when Options.Batch
// is 0.
const DefaultBatch = 1

// DefaultMaxFileBytes is the largest model file an importer reads when
// Options.MaxFileBytes is 0: 1 GiB.
const DefaultMaxFileBytes = 1 << 30

// Options are the choices an importer takes from its caller.
type Options struct {
	// Batch is the extent every symbolic dimension of the file's inputs
	// takes (a batch axis written "N" or left unknown); 0 means
	// DefaultBatch. It must not be negative.
	Batch int
	// Outputs names the graph outputs to keep, in the order wanted;
	// empty keeps all of them in the file's order. The nodes only other
	// outputs need are pruned before the coverage pass. An importer may
	// also take the name of a value computed inside the graph (ONNX's
	// does).
	Outputs []string
	// MaxFileBytes is the largest file the importer reads; 0 means
	// DefaultMaxFileBytes. Larger files are refused before they are read.
	MaxFileBytes int64
}

// BatchOrDefault is Batch, or DefaultBatch when Batch is 0.
func (o Options) BatchOrDefault() int {
	if o.Batch == 0 {
		return DefaultBatch
	}
	return o.Batch
}

// MaxFileBytesOrDefault is MaxFileBytes, or DefaultMaxFileBytes when it is
// 0.
func (o Options) MaxFileBytesOrDefault() int64 {
	if o.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

// Validate checks the options themselves: a batch of at least 1 (or 0 for
// the default) and within graph.MaxExtent, and output names given at most
// once.
func (o Options) Validate() error {
	if o.Batch < 0 || o.Batch > graph.MaxExtent {
		return fmt.Errorf("batch %d: a batch size must be between 1 and %d", o.Batch, graph.MaxExtent)
	}
	seen := map[string]bool{}
	for _, name := range o.Outputs {
		if seen[name] {
			return fmt.Errorf("output %q asked for twice", name)
		}
		seen[name] = true
	}
	return nil
}

// SelectOutputs returns the outputs to keep among all, the file's output
// names in order: all of them when Outputs is empty, else Outputs in the
// order given. An output name the file does not have is an error that
// lists the ones it has.
func (o Options) SelectOutputs(all []string) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if len(o.Outputs) == 0 {
		return slices.Clone(all), nil
	}
	for _, name := range o.Outputs {
		if !slices.Contains(all, name) {
			return nil, fmt.Errorf("no output named %q; the model's outputs are %s", name, strings.Join(all, ", "))
		}
	}
	return slices.Clone(o.Outputs), nil
}

// Output is one result of an imported model.
type Output struct {
	Name string     // the file's name for it
	Term graph.Node // the term that computes it, over the model's inputs
	Type graph.Type // the term's type (graph.Check's)
}

// SymbolicDim is a dimension of a data input that the file leaves
// symbolic, and the extent the importer gave it.
type SymbolicDim struct {
	Input  string // the data input
	Axis   int    // the axis, 0 the outermost
	Name   string // the file's name for it ("N", "batch_size"), or "" when unnamed
	Extent int    // the extent it took (Options.Batch)
}

// Model is a network read from a file, as one term of the graph IR.
type Model struct {
	Source   string // the file it came from
	Format   string // "onnx" or "tf"
	Opset    int    // the default domain's operator set version (ONNX); 0 where the format has none
	Producer string // the program that wrote the file, with its version, when the file says

	// Inputs are the data inputs, in the file's order: what a caller
	// binds on every run.
	Inputs []*graph.Input
	// Params are the parameters (initializers, constants the converters
	// keep as named values), in the order first read; each has Param set.
	Params []*graph.Input
	// Values holds every parameter's value by name.
	Values map[string]graph.Value
	// Outputs are the kept outputs, in the order asked for.
	Outputs []Output
	// Term computes the outputs: the one output's term, or a tuple of
	// them in order when there are several.
	Term graph.Node
	// Symbolic lists the symbolic dimensions that were fixed.
	Symbolic []SymbolicDim
	// Coverage is the report of the coverage pass (nothing unsupported,
	// when the import succeeded).
	Coverage *Coverage
}

// AllInputs returns the data inputs followed by the parameters: every
// input Term reads.
func (m *Model) AllInputs() []*graph.Input {
	return append(slices.Clone(m.Inputs), m.Params...)
}

// Bindings returns data merged with the parameters' values: the bindings
// graph.Eval and the back ends need for Term. It checks them against
// AllInputs (graph.CheckInputs), so an input data lacks, or a value of the
// wrong type, is an error naming the input.
func (m *Model) Bindings(data map[string]graph.Value) (map[string]graph.Value, error) {
	out := make(map[string]graph.Value, len(data)+len(m.Values))
	for k, v := range m.Values {
		out[k] = v
	}
	for k, v := range data {
		if _, ok := m.Values[k]; ok {
			return nil, fmt.Errorf("%s is a parameter of the model, not a data input", k)
		}
		out[k] = v
	}
	if err := graph.CheckInputs(m.AllInputs(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// Output returns the kept output named name.
func (m *Model) Output(name string) (Output, bool) {
	for _, o := range m.Outputs {
		if o.Name == name {
			return o, true
		}
	}
	return Output{}, false
}

// OutputValues splits a value of Term into the outputs' values by name:
// the value itself for one output, the tuple's elements for several.
func (m *Model) OutputValues(v graph.Value) (map[string]graph.Value, error) {
	if len(m.Outputs) == 1 {
		return map[string]graph.Value{m.Outputs[0].Name: v}, nil
	}
	tv, ok := v.(graph.TupleValue)
	if !ok || len(tv) != len(m.Outputs) {
		return nil, fmt.Errorf("the model has %d outputs, the value is %s", len(m.Outputs), graph.DescribeValue(v))
	}
	out := make(map[string]graph.Value, len(tv))
	for i, o := range m.Outputs {
		out[o.Name] = tv[i]
	}
	return out, nil
}

// Error is a problem with a model file: the file, the node it is about
// (empty when it is about the file as a whole), its operator, and what is
// wrong. Importers return it, wrapped around the underlying error where
// there is one.
type Error struct {
	File string // the model file
	Node string // the node's name, or "" for the file as a whole
	Op   string // the node's operator ("Gemm"), or ""
	Msg  string // what is wrong
	Err  error  // the underlying error, or nil
}

// Error writes "file: node "name" (Op): message: underlying error".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Node != "" || e.Op != "" {
		fmt.Fprintf(&b, ": node %q", e.Node)
		if e.Op != "" {
			fmt.Fprintf(&b, " (%s)", e.Op)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
