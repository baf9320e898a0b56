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
