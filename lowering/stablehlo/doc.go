// Package stablehlo lowers kernel graphs (fusion.Graph) to StableHLO text
// for XLA's PJRT runtime, with the builder of github.com/gomlx/go-xla. It
// is pure Go and builds without cgo; the PJRT back end, lowering/xla,
// compiles and runs the text through PJRT.
//
// # The vectorising translation
//
// The IR nests higher-order functions over scalar lambdas; StableHLO works
// on whole arrays. The lowering translates a term inside k enclosing nzip
// or rnz bodies once, as a tensor with up to k extra leading "loop" axes,
// as JAX's vmap does:
//
//   - an input, or any term that does not depend on a loop, has no loop
//     axis; it is broadcast only where it meets a value that has one;
//   - the parameters of nzip f xs (and rnz) are the xs themselves: their
//     outer axis becomes the loop's axis, innermost after the enclosing
//     loops' axes, so entering a loop emits nothing;
//   - scalar operations become elementwise ops (add, compare, select,
//     logistic, chlo.erf, rsqrt, convert, ...) on operands brought by
//     broadcast_in_dim to the union of their loop axes; an untyped literal
//     becomes a constant of the type graph.Op.Resolve gives it, and
//     literal-only arithmetic is folded as the interpreter does. The ops
//     compute graph's "Scalar semantics": float max and min, in elementwise
//     ops and in reduce bodies, are emitted as compare and select (XLA's
//     maximum drops NaN on CPU and does not order -0 below +0), while i32
//     divide and float-to-i32 convert are XLA's own, which the semantics
//     adopt; graphtest.EdgeCases checks the results on PJRT bit for bit.
//     The one difference left: XLA's CPU plugin flushes subnormals to
//     zero, which graph's doc records;
//   - nzip f xs ends its loop: the loop axis becomes the result's outer
//     axis, with no transpose, since loop axes are kept outermost first;
//   - rnz r f xs reduces over its loop axis: a sum of a product whose
//     factors vary with the loop becomes dot_general (extra factors are
//     multiplied into the operand whose axes cover theirs, so
//     Σ_j A_ij B_jk g_j is dot_general(A, B*g), at precision HIGHEST so that
//     GPUs do not compute f32 in TF32), except a dot product in every batch
//     position (batch dimensions and no free ones, BatchNorm's Σ_b x_bf·y_bf
//     per feature), which is faster as a product and a reduce; any other
//     reduction is one
//     stablehlo.reduce whose region applies r's scalar op (r may be lifted:
//     zip (+), nzip (zip max)), and a tuple accumulator whose lambda combines
//     element by element, (fst a + fst b, snd a + snd b), becomes one
//     variadic reduce (one per group of elements of equal extents; nested
//     tuples too); initial values are the ops' identities
//     (graph.Op.Algebra), so only associative, commutative ops with an
//     identity reduce;
//   - subdiv, flatten and flip become reshape, reshape and transpose: values
//     are logical (dense, row-major), and inputs are passed densely in the
//     logical order of their axes, whatever their strides;
//   - pad becomes stablehlo.pad with its fill, crop a slice, and a window
//     one strided slice per window element concatenated on a new axis (the
//     im2col, window.go); a convolution over windows — maps over the
//     window positions of a full contraction of each window with each
//     filter, under an elementwise epilogue — is recognised first (by
//     lowering/conv, which the native back end shares) and becomes one
//     stablehlo.convolution, pads, strides and dilations as its
//     attributes (conv.go), grouped and depthwise ones — a flatten of the
//     groups of each window contracted with the groups of filters — with
//     a feature_group_count; a pooling over windows —
//     maps over the window positions of a reduction of each whole window
//     by max, min or +, lifted over the channels, with pads of its
//     identity — becomes one stablehlo.reduce_window (pool.go); dilated
//     poolings and the max-pool's gradient (which compares each window
//     element with its maximum) keep the im2col;
//   - tuples are kept apart element by element, a kernel with a tuple
//     result returns several results, and a tuple-typed input buffer is
//     passed as several parameters (see Leaf);
//   - let binds a translated value (or a function term) and reuses it;
//     lambdas, sections and partial nzips are applied at translation time.
//
// Multiplication is kept lazy (a val is a product of factors, each with the
// loop axes and logical axes it has) until an operation needs the product,
// so that a sum over a loop can still see the factors.
//
// # Names
//
// Every kernel becomes a function named after it (k1_dense1), preceded by a
// comment with the kernel's term and sources; every top-level operation
// carries the source of the innermost term it came from as its MLIR
// location, loc("dense1"), which XLA keeps as op metadata. Operations
// inside reduce regions carry none (go-xla writes regions itself).
//
// # Modes
//
// Module (fused mode) writes one module for a whole kernel graph: one
// function per kernel and a main that calls them; XLA compiles it into one
// executable. KernelModule writes a module whose main is one kernel: the
// unfused baseline compiles one executable per kernel of fusion.Unfused and
// keeps the temporaries between them as device buffers. LowerLoop writes
// the module of a program run in a loop: each parameter a result replaces
// carries tf.aliasing_output (so PJRT updates a donated buffer in place),
// and main may end with a finiteness check of chosen results, one i1 per
// result: sums of x·0, which are 0 exactly when every element is finite,
// compared with 0, in one read of x (see allFinite). FiniteCheckModule is
// that check alone, for the per-kernel mode.
//
// # Errors
//
// A construct the lowering does not translate returns an *Error that names
// the kernel and the term (graph.Abbrev) and wraps ErrUnsupported: a
// reduction whose operator is not associative and commutative with an
// identity (rnz (-), rnz pow), or is a lambda that is not a recognised
// elementwise combination (\a b -> a * 0.5 + b, or a tuple accumulator
// whose elements are not combined element by element). The lowering never
// panics on a well-typed term; an ill-typed one returns graph.Check's
// error.
//
// The emitted text stays within StableHLO 1.13 (what the XLA CPU plugin of
// PyPI's xla-cpu-pjrt 0.0.1 parses) and uses only the stablehlo, chlo and
// func dialects.
package stablehlo
