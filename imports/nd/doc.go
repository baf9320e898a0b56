// Package nd builds rank-N tensor operations with NumPy and ONNX semantics
// as terms of the HoF IR (package graph), for the importers of ONNX and
// TensorFlow models. A tensor is a graph.Node of array type (nested nzip
// and rnz over its axes, axis 0 outermost) or, for rank 0, of scalar type.
//
// Every operation returns (graph.Node, error). An error is an *Error that
// names the operation and what is wrong: the operand, the axis, the extent
// or the rank. The package-level functions build nodes without a source
// name; the same functions as methods of Ops{Source: name} give every node
// the source name (the imported node's name), which travels through fusion
// into kernel names and reports:
//
//	types := nd.NewTypes() // one per model
//	…
//	o := nd.Ops{Source: node.Name, Types: types}
//	y, err := o.MatMul(a, b)
//
// Each operation types its operands and checks the term it builds. Types
// remembers what it has typed, so that converting a model costs time
// linear in its size; without it every operand's whole term is typed
// again, which is quadratic (BenchmarkChain: a chain of 400 dense layers
// builds in 10 ms with one Types, 100 layers take 1.4 s without).
//
// # The operations
//
//   - Shape(x) → (dtype, extents, err); a scalar has rank 0.
//   - Map(x, f), Unary(op, x): f or op on every element, any rank.
//   - ZipWith(f, xs...), Binary(op, x, y): elementwise with NumPy's
//     multidirectional broadcasting (ranks aligned on the right, extent 1
//     stretched, rank 0 everywhere). f builds the scalar body from one
//     element of each operand with a *layers.Builder.
//   - ChannelsLast(x, f): f, an elementwise function of arrays (an
//     activation layer), on a convolution's result with the channels
//     last (see How the terms look).
//   - MatMul(a, b): numpy.matmul for any ranks ≥ 1 (batch axes broadcast);
//     Gemm(a, b, c, alpha, beta, transA, transB): ONNX Gemm;
//     Einsum(equation, xs...): numpy.einsum without diagonals, each pair
//     of operands contracted as one MatMul.
//   - Transpose(x, perm), Reshape(x, extents) with ResolveShape for ONNX's
//     0 and -1, Flatten(x, axis) (ONNX, to 2-D), Squeeze(x, axes),
//     Unsqueeze(x, axes).
//   - Reduce(kind, x, axes, keepDims) for Sum, Mean, Max, Min, Prod,
//     SumSquare, L1, L2, LogSum and LogSumExp.
//   - Softmax(x, axis), LogSoftmax(x, axis), numerically stable.
//   - ArgMax, ArgMin(x, axis, keepDims, selectLastIndex) to i32.
//   - Concat(axis, xs...): numpy.concatenate, ONNX Concat, on any axis.
//   - SoftmaxFlattened(x, axis, log): ONNX Softmax and LogSoftmax before
//     opset 13.
//   - Broadcast(x, extents), BroadcastLike(x, like): ONNX Expand.
//   - Cast(x, dtype) between f32, f64, i32 (and to bool).
//   - Param(name, dtype, extents) declares a constant tensor;
//     Literal(dtype, v) is a typed scalar literal.
//   - Index(n), BindIndexes(term, bindings): the index inputs ArgMax and
//     Concat read (see below).
//
// Axes are ints; a negative axis counts from the end, as in NumPy and
// ONNX. Extents are at least 1: tensors with an extent 0 are not
// representable.
//
// # How the terms look
//
// Elementwise operations are one nzip per axis of the result; an operand
// that lacks an axis, or has extent 1 there, is captured by the lambda
// instead of zipped, so broadcasting copies nothing:
//
//	Binary(Add, x [3,4], y [4]):   map (\a -> zip (\a1 b1 -> a1 + b1) a y) x
//
// A product of matrices is the form the native back end compiles to its
// GEMM kernel (lowering/native/gemm.go), and Gemm adds its epilogue inside
// the inner nzip, which the kernel applies per row segment:
//
//	map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 B)) A
//
// Transpose, Squeeze, Unsqueeze, Reshape and Flatten are views (flip,
// flatten, subdiv) and copy nothing, except that Reshape (and Squeeze of an
// axis whose stride forbids a flatten) first copies an operand whose
// strides cannot be regrouped (a transposed one, say) into row-major order
// with a map of the identity, which fusion folds into its reader. A view
// that undoes the view its operand was made by is not built: the operand
// is used instead, so Unsqueeze of a [C] parameter to [C,1,1] read by a
// broadcasting Binary zips the parameter itself. Reductions move the reduced axes innermost (flips), merge them where the
// strides allow and reduce each row with rnz; Softmax moves its axis
// innermost and back.
//
// A convolution of an imported channels-first network computes its
// result channels last and returns it seen channels first, flip 1 (flip 2
// y) for [N, C, H, W]. An elementwise operation on such an array (Map,
// ZipWith, Binary; an activation layer through ChannelsLast), with
// operands of its shape or per-channel ones ([C, 1, 1], a
// BatchNormalization's vectors), runs over y with the channels last and
// permutes its result back: the flips cancel against the operand's and,
// in fusion, against the next convolution's, so the operation becomes the
// convolution's epilogue instead of a kernel that transposes.
//
//	Binary(Add, flip 1 (flip 2 y), b [C,1,1]):
//	    flip 2 (flip 1 3 (map (\a -> map (\a1 -> map (\a2 -> zip (+) a2 b') a1) a) y))
//
// with b' the [C] vector under b's extents of 1 (the flips on top make the
// same permutation as the convolution's).
//
// # Constants
//
// The IR has no array literals. A constant tensor enters a term as a
// parameter input, graph.NewInput(name, type, true), which Param declares;
// its value is bound by name when the term runs (the inputs map of
// graph.Eval or of a back end's Run). A scalar constant can instead be a
// typed literal (Literal), or an untyped graph.NewConst that takes the type
// of what it meets.
//
// # Index inputs
//
// The higher-order functions treat every element alike: no term knows its
// position. ArgMax, ArgMin and Concat need positions, so they zip with an
// index input, the parameter "nd.index.<n>" of type i32[n] holding 0, 1,
// …, n-1 (Index returns it; one per extent, shared by all terms). Whoever
// runs a term binds these as it binds the other parameters:
//
//	bind := map[string]graph.Value{ /* data and parameters */ }
//	if err := nd.BindIndexes(term, bind); err != nil { … }
//	out, err := graph.Eval(term, bind) // or a back end's Run
//
// A missing one is reported as a missing input named nd.index.<n>.
//
// # What the IR cannot express
//
// The IR builds an array only by mapping over another array, so a scalar
// cannot become an array (Unsqueeze and Reshape of a rank-0 operand are
// refused: declare such a constant with its final shape), and a tensor
// cannot be stretched to extents no operand has: Broadcast(x, extents)
// adds leading axes of extent 1 only, and BroadcastLike stretches to the
// shape of an operand. Concatenation has no term of its own: Concat
// computes each result block as a sum of selects over the operands'
// blocks, exact but costing up to the concatenated extent per element
// when the extents share no divisor (see Concat).
package nd
