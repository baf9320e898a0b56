package lowering

import (
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// A Backend compiles kernel graphs.
type Backend interface {
	// Name identifies the back end in reports: "native", "pjrt-cpu", ...
	Name() string
	// Compile prepares g to run. Compilation errors name the kernel.
	Compile(g *fusion.Graph) (Executable, error)
}

// An Executable is a compiled kernel graph.
type Executable interface {
	// Run binds the program's inputs by name, as graph.Eval does, runs every
	// kernel and returns the result. A wrong, missing or extra input is an
	// error that names it. The result may live in storage the executable
	// reuses: it stays valid until the next Run or Close.
	Run(inputs map[string]graph.Value) (graph.Value, error)
	// Close releases what the executable holds. Run after Close is an error.
	Close() error
}

// LoopSpec says how a program runs in a loop: which elements of its result
// replace which of its inputs for the next run (a training step's new
// parameters and optimizer state replace the old ones).
type LoopSpec struct {
	// Carried has one entry per element of the program's result, which
	// must be a tuple: Carried[i] names the input that element i replaces
	// in the next run, or is "" for an element that comes back to the
	// host (a loss). A carried input is an array or scalar of its
	// element's type, named once.
	Carried []string
	// CheckFinite asks the back end to check, on each run, that every
	// element of every floating-point carried result is finite, where the
	// results are (so that no carried value is copied to the host for
	// it); LoopResult.NonFinite reports the first that is not.
	CheckFinite bool
	// Implied names carried inputs whose new values CheckFinite leaves
	// unchecked because a NaN or an infinity in one of them always shows
	// in a checked value that Carried lists before it (Adam's first moment
	// in its parameter), so that NonFinite names the same input either
	// way and the check reads less. Each must be carried.
	Implied []string
}

// A LoopBackend is a Backend that can keep a loop's carried values where
// its programs run (PJRT device buffers) from one run to the next, so
// that only the per-run inputs go in and only the results not carried
// come out.
type LoopBackend interface {
	Backend
	// CompileLoop compiles g to run in a loop as spec says. A spec that
	// does not fit g (an unknown input, a type that differs from its
	// result's, an input carried twice) is an error naming it.
	CompileLoop(g *fusion.Graph, spec LoopSpec) (Loop, error)
}

// A Loop is a program compiled to run again and again, its carried values
// kept by the back end between runs.
type Loop interface {
	// Bind sets the carried values, by input name, every one of them; the
	// host values are copied to the back end and stay the caller's.
	Bind(values map[string]graph.Value) error
	// Run runs the program once. inputs binds the inputs that are not
	// carried, by name; the carried results replace the carried values;
	// the results that are not carried are copied to the host and
	// returned in order.
	Run(inputs map[string]graph.Value) (LoopResult, error)
	// Value copies the current value of the carried input name to the host,
	// into a new row-major array or a scalar.
	Value(name string) (graph.Value, error)
	// Close releases the loop and its carried values.
	Close() error
}

// LoopResult is what a Loop's Run returns.
type LoopResult struct {
	// Results are the elements of the program's result that are not
	// carried, in order, on the host.
	Results []graph.Value
	// NonFinite, with LoopSpec.CheckFinite, names the first carried input
	// (in the order of LoopSpec.Carried) whose new value has a NaN or an
	// infinity; "" when every one is finite or nothing was checked. The
	// new values have replaced the old ones all the same.
	NonFinite string
}

// A Binder is an Executable that can keep the values of some of its inputs
// (a model's parameters) where its programs run, so that each run sends
// only the other inputs (the data) and brings back only the result: a PJRT
// executable keeps them in device buffers.
type Binder interface {
	// Bind copies params, values of some of the program's inputs, to
	// where the program runs, once, and returns the program with them
	// bound. A name that is not an input is an error.
	Bind(params map[string]graph.Value) (Bound, error)
}

// Bound is an executable with some inputs bound (Binder).
type Bound interface {
	// Run takes every input that is not bound, and nothing else, and
	// returns the result, which may live in storage reused by the next Run.
	Run(inputs map[string]graph.Value) (graph.Value, error)
	// SetParams copies new values of bound inputs (changed parameters);
	// the others keep theirs.
	SetParams(params map[string]graph.Value) error
	// Close frees the bound values; the executable stays usable.
	Close() error
}
