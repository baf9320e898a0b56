// Package imports holds what every model importer shares: the imported
// Model (one term of the graph IR with its data inputs, named parameters
// and their values, and named outputs), the Coverage report an importer
// writes before it converts anything, the Options that fix symbolic
// dimensions and choose outputs, and the Error type that names the file and
// the node at fault.
//
// The importers themselves live below it, one package per format
// (imports/onnx, imports/tf); the folder is named for the design's
// "import", which Go does not allow as a package name.
//
// # The order of work
//
// An importer reads the file with limits (file size, tensor bytes checked
// against the declared shape before anything is allocated, extents at most
// graph.MaxExtent), orders the graph and prunes it to the outputs asked for
// (Options.Outputs), and only then looks at operators: the coverage pass
// lists every node it cannot convert, all at once, in a Coverage report.
// Conversion starts only when that list is empty; otherwise the importer
// returns a *CoverageError carrying the report. Nodes that only feed
// outputs nobody asked for are pruned before the coverage pass, so an
// unsupported operator there does not block the rest; the report lists
// them as pruned.
//
// # Names
//
// Data inputs keep the names the file gives them; parameters (ONNX
// initializers, TensorFlow constants) keep theirs as well, and the Model
// holds their values, so Bindings(data) is what graph.Eval or a back end
// needs. Every node a converter builds carries the name of the file's node
// as its source (graph.WithSource), so kernel names and fusion reports say
// which imported node they hold.
//
// # Symbolic dimensions
//
// The IR's extents are static. A dimension the file leaves symbolic (a
// batch of "N", or an unknown -1) takes Options.Batch, 1 when that is 0;
// Model.Symbolic records each one so the caller can say what was fixed.
package imports
