// Package tf imports frozen TensorFlow graphs: a GraphDef (.pb) whose
// variables are constants, as tf.compat.v1.graph_util or
// convert_variables_to_constants_v2 write it. Import and ImportBytes return an
// imports.Model: one term of the graph IR over the graph's Placeholders (the
// data inputs) and its constant arrays (parameters named after their Const
// nodes, with their values; scalar constants are literals in the term).
//
// # The order of work
//
//  1. Read, with limits: the file is refused past Options.MaxFileBytes
//     before it is read; a constant's bytes are computed from its shape
//     (every dimension from 1 to graph.MaxExtent) and checked against what
//     is left of a budget of graph.DefaultMemoryLimit for all constants
//     before anything is allocated, and its data must fit the shape
//     (tensor_content exactly; a typed field at most, shorter ones
//     repeating their last value as TensorFlow fills them).
//  2. Resolve inputs: "node" and "node:k" read output k of a node, "^node"
//     is a control input (it orders side effects, which an imported term has
//     none of, so it is checked and otherwise ignored). A name no node has
//     is an error naming the reader.
//  3. Choose the outputs (Options.Outputs, "node" or "node:k"; by default
//     every node whose output nothing reads, apart from Const, Placeholder
//     and NoOp) and order the nodes they need, refusing a cycle with the
//     nodes on it. Nodes only other outputs need are pruned.
//  4. The coverage pass: every kept node whose op has no converter, whose
//     attributes its converter refuses (training mode, NCHW) or that reads
//     an output the converter does not give is listed, all at once, in an
//     *imports.CoverageError. Nothing has been converted yet.
//  5. Convert node by node. Every error from here on names the file and
//     the node, and every term a converter builds carries the node's name
//     as its source, so kernel names and fusion reports say which
//     TensorFlow node they hold.
//
// # Operators
//
// Placeholder (a -1 dimension takes Options.Batch, recorded in
// Model.Symbolic), Const, Identity, IdentityN (its N inputs as its N
// outputs, node:k; Keras 3 writes it around every tf.custom_gradient),
// StopGradient, NoOp, MatMul (transpose_a, transpose_b), BatchMatMul,
// BatchMatMulV2 and BatchMatMulV3 (adj_x, adj_y; V2's and V3's batch axes
// broadcast, V1's must be equal), Einsum (numpy's, through nd.Einsum:
// Keras's MultiHeadAttention and EinsumDense), BiasAdd (NHWC), Add, AddV2, Sub, Mul,
// RealDiv, Maximum, Minimum, SquaredDifference, Pow (floats), Less,
// LessEqual, Greater, GreaterEqual, Equal, NotEqual (bool results),
// LogicalAnd, LogicalOr, LogicalNot and SelectV2 (NumPy broadcasting), Relu,
// Relu6, LeakyRelu, Elu, Selu, Sigmoid, Tanh, Neg, Abs, Exp, Log, Rsqrt,
// Sqrt, Square, Erf, Erfc, Softplus (TensorFlow's thresholds), Softsign,
// Softmax and LogSoftmax (last axis),
// FusedBatchNormV3 and its older FusedBatchNorm and FusedBatchNormV2
// (inference; is_training is refused), Mean, Sum, Max and Prod
// (constant reduction_indices, keep_dims), Reshape (constant shape, one
// -1), Squeeze (squeeze_dims) and ExpandDims (constant axis), Transpose
// (constant perm, a view), Pad and PadV2 (constant paddings and
// constant_values, through nd.Pad; MirrorPad is refused, the IR having no
// reversed view), Cast (to a type hofuse computes in; a constant is cast
// when the graph is read), and Conv2D, DepthwiseConv2dNative, MaxPool and
// AvgPool (NHWC, through the layers of the same name), and
// Conv2DBackpropInput (Keras's Conv2DTranspose: the convolution it equals,
// its input spread out by a pad's interior, its Const filter's channels
// exchanged and kernel reversed once when the graph is read),
// ResizeNearestNeighbor by whole scales without align_corners and Tile
// (axes of the repeat counts inserted, stretched by nd.Stretch, merged),
// SpaceToBatchND and BatchToSpaceND (known block_shape, paddings and
// crops; pad, reshape, transpose, reshape and its inverse, as TensorFlow
// defines them, which is how it writes a dilated convolution).
// Each
// converter's doc comment states the TensorFlow semantics it implements;
// the terms are built with imports/nd, and with layers where a layer
// exists (ReLU, LeakyReLU, Sigmoid, Tanh).
//
// Shape operands (Reshape's shape, the reductions' axes, ExpandDims' axis)
// must be known at import time. Besides Consts, the ops that compute them
// are folded there: Shape (extents are static), and StridedSlice (of a
// vector), Pack and ConcatV2 (along the outer axis) of constants, which is
// what Keras's Flatten and dynamic-batch reshapes write, Add, Sub and
// Mul of small integer constants (Keras's UpSampling2D multiplies an
// extent by its repeat count), and GatherV2 (batch_dims 0) and Prod of
// known tensors (Keras's Tensordot, a Dense on a rank-3 input, gathers
// extents of a Shape and multiplies them). Prod of computed values is a
// term (nd.Reduce); GatherV2 of computed values (an Embedding's lookup) is
// refused, the IR having no gather. StridedSlice of anything else (a
// computed tensor: Keras's Cropping layers and TimeDistributed) is views,
// every mask included (nd.Slice per axis, then the shrunk axes squeezed
// and the new ones inserted); a negative stride keeping more than one
// element is refused, the IR having no reversed view. Pack of computed
// tensors, along any axis, is nd.Concat of them each with the new axis
// inserted. An empty integer Const (shape [0], the
// shape of a scalar) is kept for that folding only. ConcatV2 of
// computed tensors, on any axis, is a term (nd.Concat); the index inputs it
// reads are parameters of the model with their values. Reshape, Squeeze
// and ExpandDims of a constant reshape it at import: the result is a
// constant of its own, named after the reshaping node when it is read as
// data.
//
// # Element types
//
// float32, float64, int32 and bool map to f32, f64, i32 and bool. int64
// constants serve as shapes and axes; read as data they must fit an i32.
// Other types (float16, strings, resources) are refused with the node's
// name.
//
// # Schema
//
// The protobuf types are in tfpb, generated from the subset of
// TensorFlow's schema that this package reads (tfpb/graph.proto, with the
// published field numbers). Fields it leaves out are skipped when a file
// is decoded.
package tf
