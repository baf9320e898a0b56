// Package graph is hofuse's intermediate representation: array types and
// strided layouts, terms built from higher-order functions, type inference,
// a printer and parser for the paper's notation, and the reference
// interpreter that every rewrite and back end is tested against.
//
// # Arrays and layouts
//
// An array is a flat buffer, an offset and a Layout: a list of
// (extent, stride) axes. Axis 0 is the outermost, as in NumPy, and every
// higher-order function consumes the outermost axis of its array arguments.
// The layout operations subdiv, flatten and flip never copy; they return a
// new view of the same buffer, and they check their side conditions (a
// block that divides the extent; two axes contiguous enough to merge; axes in
// range), returning a *LayoutError that names the axis, extent, block or
// stride otherwise. The paper writes layouts innermost-first; this package's
// convention is the one the tests pin.
//
// # Terms
//
// Node is a closed set of immutable term kinds built by checked
// constructors: inputs and parameters (*Input), untyped scalar literals
// (*Const), variables, lambdas and application, scalar operations (*Call,
// *OpRef, *Section), the higher-order functions nzip (*NZip; map and zip are
// its one- and two-argument cases) and rnz (*RNZ; reduce is rnz with id), the
// layout operations (*Subdiv, *Flatten, *Flip), tuples and projections, and
// let. Variables are identified by pointer, so substitution cannot capture.
// Every node can carry a source name (the layer or imported node it came
// from) that rewriting preserves.
//
// Products are kept as tuples of arrays: an nzip whose function returns a
// tuple yields a tuple of arrays, and an nzip over a tuple of arrays sees
// tuples of their elements.
//
// # Checking and evaluation
//
// Check infers the type of every value term (element type, nesting, extents
// and strides) into an Info side table and rejects ill-formed terms with an
// *Error that names the term. Function terms are checked where they are
// applied, against their arguments' types. Eval is the reference
// interpreter: literal, element by element, left-to-right reductions, every
// scalar operation computed in float64 and rounded to its element type. It
// is slow on purpose.
//
// # Services the rules and back ends share
//
// What a rewrite rule or a back end needs to know about a term is decided
// here, once. TypeOf, ApplyType and a Typer type open terms (under
// variables an Env binds) by Check's own rules. Reducer recognises a
// reduction operator as one scalar op per accumulator leaf, lifted through
// zips, and its Algebra says which laws it obeys. CheckInputs and
// BindInputs check the values bound to a program's inputs by name, type
// and extents, with errors that name the input.
//
// # Aliasing
//
// Values returned by Eval may share buffers with its inputs (flip 0 A is a
// view of A). Nothing in this package writes into an input.
package graph
