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
// # Limits
//
// No input, however large or hostile, overflows the stack, an int or
// memory; each limit is an error that names the thing at fault:
//
//   - Terms nest at most MaxDepth (10000) levels. The constructors record
//     every node's depth and refuse a deeper one with a *DepthError; the
//     parser reports the position and says to split the expression with
//     let; Check measures a term built by hand without recursion. Every
//     recursive pass over a term, here and in fusion and the back ends,
//     relies on this bound.
//   - Extents are at most MaxExtent, and an array has at most MaxElements
//     elements and spans at most that many (both 2^40), so byte sizes never
//     overflow. Layout.Validate enforces the caps, and with it every type,
//     input, array and declaration, so what the printer prints parses back.
//   - NewArray, RandomArray and Eval refuse, with a *MemoryError, to
//     allocate past DefaultMemoryLimit (4 GiB); NewArrayLimit,
//     RandomArrayLimit and EvalOptions.MaxMemory take another limit.
//     EvalBytes estimates, before evaluating, what Eval allocates.
//
// # Aliasing
//
// Values returned by Eval may share buffers with its inputs (flip 0 A is a
// view of A). Nothing in this package writes into an input.
package graph
