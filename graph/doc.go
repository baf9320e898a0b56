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
// # Views
//
// subdiv, flatten and flip are values of one interface, View: a view says
// what layout it gives an array (Apply), which view undoes it on a given
// layout (Inverse; none for a view that shows an element twice), and what
// it becomes one axis deeper (Lift: a view of the result of an nzip's
// function is the lifted view of the nzip's result, and a view of a lambda
// parameter is the lifted view of the array the parameter ranges over). Its
// Name and Params are how the notation writes it. SubdivView, FlattenView
// and FlipView are the three the notation started with.
//
// FirstView (first d) reads element 0 of axis d: it drops the axis and
// keeps the offset, so first 0 X is the first row of X. It shows part of
// its operand and has no inverse.
//
// WindowView (window d w st dil) sees axis d as overlapping windows, an
// axis of window positions and one of window elements, with a stride
// between positions and a dilation between elements: the view
// convolutions and poolings traverse. Its strides overlap, so it shows
// elements at several places and has no inverse (but where the windows
// tile the axis). PadView (pad, padninf, padpinf) pads an axis with a
// fill, and CropView (crop) keeps a range of one; pad.go says why a pad
// is a fresh array rather than a layout (a FreshView) and crop a strided
// view that starts past its operand's first element (a ShiftedView).
// IsStrided tells the back ends which views they may read off a layout.
//
// The term that applies a view is a ViewNode: *Subdiv, *Flatten and *Flip
// for those three (their structs and constructors stay), *ViewOp for every
// other. NewView builds the right one; AsView takes one apart. Every pass
// that handles views asks for a ViewNode and uses its View, never a list of
// node kinds: Check and Eval apply it, Print writes its Name and Params,
// Children, WithChildren and so Rewrite, Substitute and Freshen rebuild it
// with NewView, fusion moves it across an nzip with Lift, the native back
// end addresses it through the layout Apply gives (and writes through it
// with Inverse), and the StableHLO back end reads a reshape and a transpose
// off the layout it gives a row-major operand.
//
// To add a view:
//
//  1. Define a type that implements View. Apply returns a *LayoutError
//     naming the axis and size that make it illegal; Inverse must satisfy
//     Inverse(l).Apply(v.Apply(l)) == l, strides included, or report false.
//  2. Add its ViewSyntax to viewSyntaxes in view.go (or call RegisterView
//     from an init function, outside this package) so that Parse reads it;
//     printing needs nothing.
//  3. Give it a per-view answer only where a back end cannot read it off a
//     layout: StableHLO lowers views that reorder or regroup axes, but a
//     view that shows an element at several places (overlapping windows)
//     reports stablehlo.ErrUnsupported there until the lowering learns it (as
//     reduce_window or a gather). The native back end needs nothing: it
//     reads every view through its strides, and computes the operand first
//     when the view has no inverse to write through.
//
// A fusion rule that is a law about one view (flip-flip composes flips) may
// still match its node kind; a rule about views in general must not.
// view_extend_test.go defines a window view in a test file and runs it
// through Parse, Check, Eval, Print and Rewrite with no other change.
//
// # Terms
//
// Node is a closed set of immutable term kinds built by checked
// constructors: inputs and parameters (*Input), untyped scalar literals
// (*Const), variables, lambdas and application, scalar operations (*Call,
// *OpRef, *Section), the higher-order functions nzip (*NZip; map and zip are
// its one- and two-argument cases) and rnz (*RNZ; reduce is rnz with id), the
// views (*Subdiv, *Flatten, *Flip, *ViewOp), tuples and projections, and
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
// scalar operation computed as "Scalar semantics" says. It is slow on
// purpose.
//
// # Scalar semantics
//
// Every back end computes the scalar ops as defined here; Op.Resolve (types)
// and Op.Eval, Op.Unary and Op.Binary (values) implement the definitions, and
// graphtest.EdgeCases is the table of exact results every back end runs.
//
// Types. An untyped literal takes the type of its typed partners (for
// select, its two branches; an untyped condition is bool); arithmetic on
// literals only stays untyped and is computed in float64; an untyped value
// that leaves its context (the result of nzip or rnz, a let, a tuple
// element) is f64. A let-bound untyped value is f64 at every use, so
// let t = 1.5 in map (\c -> c * t) x does not check for an f32 x (write
// f32 1.5, or the literal at each use); a literal term the term shares
// (one node on several paths) stays untyped, each use typed by its
// context, and Print writes such a term, which reads no input, at each
// use rather than binding it with let, so that the printed form checks as
// the term does. A literal is converted to its type as DType.Round says.
//
// Floating point (f32, f64). Operations are IEEE 754 in round-to-nearest:
// +, -, *, /, sqrt, neg, abs and the comparisons are correctly rounded in
// the operands' type (f32 ops equal the f64 op rounded once to f32); exp,
// log, rsqrt, tanh, logistic, erf and pow are computed in float64 and
// rounded to the type, so back ends with other libraries agree within a few
// ulps, not bit for bit. Subnormals are kept, in inputs and results. The
// one exception: XLA's CPU plugin runs with subnormals flushed to zero (a
// subnormal input reads as 0, a subnormal result becomes 0, signs kept),
// which the lowering cannot undo without emulating the arithmetic; PJRT on
// CPU differs from the definition there and only there
// (graphtest.EdgeCase.WantFlushed records what it gives).
//
//   - max and min are IEEE 754-2019 maximum and minimum, as numpy.maximum
//     and PyTorch's: max(NaN, x) = max(x, NaN) = NaN for every x, +Inf
//     included; max(-0, +0) = max(+0, -0) = +0 and min(-0, +0) = -0. So
//     relu v = max v 0 gives +0 for -0 and NaN for NaN. A reduction by max
//     or min (reduce max x, rnz (zip max) …) of elements one of which is NaN
//     is NaN; the identities, -Inf for max and +Inf for min, change nothing.
//     (XLA's CPU back end does neither by default; the StableHLO lowering
//     emits the definition explicitly.)
//   - Comparisons with NaN are false, except != which is true.
//
// Integers (i32). Values are two's-complement int32; arithmetic wraps as Go
// int32 and XLA do: add, sub, mul and neg are exact modulo 2^32 (so
// 2^31-1 + 1 = -2^31 and neg (-2^31) = abs (-2^31) = -2^31); max, min and
// the comparisons are exact. Division rounds toward zero; x / 0 = -1 for
// every x (0 included), and -2^31 / -1 = -2^31. These are XLA's answers,
// so a StableHLO divide needs nothing added. Reductions of i32 wrap at
// every step, so their result does not depend on the grouping.
//
// Conversions. f32 x and f64 x round to nearest (f32 of a value beyond
// float32's range is ±Inf; f32 of an i32 beyond 2^24 rounds). i32 x rounds
// toward zero; NaN gives 0, and values beyond int32's range, infinities
// included, give the nearest end of it, -2^31 or 2^31-1 (XLA's CPU convert
// saturates the same way). DType.Round converts the same way, so a literal
// 3e9 meeting an i32 operand is 2^31-1.
//
// Bool. The logical ops work on bool; select picks its second operand
// where the condition holds, else its third.
//
// stopgrad x is x, in every type; it exists for differentiation, which
// treats it as a constant (JAX's stop_gradient): a term that reads a value
// only for its numerics, as BatchNorm's shift reads a row of the batch,
// marks it so.
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
