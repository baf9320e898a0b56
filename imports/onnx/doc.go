// Package onnx imports ONNX models (.onnx files) into hofuse's graph IR.
//
// Import reads the file with limits (Options.MaxFileBytes; every tensor's
// data checked against its shape before anything is allocated; extents at
// most graph.MaxExtent; tensors kept in external files refused with a
// message saying how to save the model whole), checks its structure (one
// producer per value, every input produced, no cycle, which it names),
// orders the nodes, prunes those only unrequested outputs need, and runs
// the coverage pass, which lists every node it cannot convert at once (as
// an *imports.CoverageError). Only then does it convert, node by node.
//
// # Operator sets
//
// The default domain's version comes from opset_import. Versions 6 to 22
// (MinOpset to MaxOpset) are read; a newer one is tried as 22 with a
// warning in the coverage report. Each converter covers an operator over a
// range of versions and follows the semantics of that range: Softmax and
// LogSoftmax up to 12 flatten the input from axis into rows, from 13 they
// run along one axis; Squeeze, Unsqueeze and ReduceSum take axes as an
// attribute before 13 and as an input from it (ReduceMean, ReduceMax and
// ReduceMin from 18); opset 6's arithmetic broadcasts only with its
// broadcast attribute; PRelu's slope of shape [C] applies per channel in
// opset 6 and broadcasts from 7; Split takes its sizes as an attribute
// before 13, as an input from it, and cuts unevenly with num_outputs from
// 18. The converters' doc comments state the semantics.
//
// # Operators
//
// Elementwise: Add, Sub, Mul, Div, Pow, Max, Min, Sum, Mean (broadcast;
// Pow by an initializer or Constant that holds 2 is the product x·x);
// Neg, Abs, Reciprocal, Exp, Log, Sqrt, Erf, Floor, Ceil, Round, Sign and the
// activations Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Sigmoid,
// HardSigmoid, HardSwish, Tanh, Softplus, Softsign, Mish, Gelu,
// ThresholdedRelu, Shrink, Clip; the comparisons Greater, Less,
// GreaterOrEqual, LessOrEqual, Equal, the logical Not, And, Or, Xor, and
// Where, on bool tensors. The IR has no floor: Floor, Ceil and Round
// (half to even) truncate through i32 in two parts and adjust, exact for
// every float (a zero result may lose its sign). Linear
// algebra and normalisation: Gemm, MatMul, Einsum (no diagonals), Softmax, LogSoftmax,
// BatchNormalization (inference), LayerNormalization,
// InstanceNormalization, LRN (a sum of shifted views of the padded
// squares). Reductions: every Reduce*, ArgMax, ArgMin. Windows: Conv,
// ConvTranspose (the equivalent convolution of the input spread out by
// interior padding, its W, which must be known, exchanged and reversed
// once at import), MaxPool, AveragePool, GlobalAveragePool,
// GlobalMaxPool, Pad (constant), and Resize and Upsample in nearest mode
// by whole scales (each element repeated: an axis of the scale inserted,
// stretched and merged).
// Views: Identity, Dropout (inference), Flatten, Reshape, Transpose,
// Squeeze, Unsqueeze, Concat, Split (crops), Slice (a crop; a step s > 1
// splits the axis into blocks of s and keeps the first of each; a
// negative step is refused unless it keeps one element, since no view
// reverses an axis), Expand and Tile (an axis stretched from extent 1 is
// zipped with the index input of its extent, the IR making arrays only by
// mapping over arrays). Constant, Cast, Shape, Gather, ConstantOfShape
// and Range (a position index over a known length) serve the shape
// computations below.
//
// From the ai.onnx.ml domain, the linear operators scikit-learn pipelines
// export through skl2onnx, as onnxruntime computes them: Scaler,
// Normalizer, LinearRegressor, LinearClassifier (NONE, LOGISTIC and
// SOFTMAX post-transforms; the label output from classlabels_ints) and
// ArrayFeatureExtractor over a known vector (ops_ml.go). ZipMap, whose
// output is a sequence of maps, is refused with how to export without it.
//
// # What folds at import time
//
// Values known when the model is read are tensors, not terms:
// initializers, Constant outputs, Shape (the IR's extents are static), and
// ConstantOfShape of a known shape, and every node whose inputs are all
// known (Gather, Slice, Concat, Unsqueeze, Cast and arithmetic on shape
// vectors, the subgraphs exporters write for x.view(x.size(0), -1)).
// Inputs that must be known — Reshape's, Expand's and Tile's shape
// inputs, the axes inputs, Slice's starts, ends, axes and steps, Split's
// sizes, Clip's bounds — are checked by the coverage pass. A known
// tensor that a term reads becomes a parameter input named as the file
// names it, with its value in the Model.
//
// # Names
//
// Every term a converter builds carries the node's name as its source (an
// unnamed node is "#index first-output"), so fusion reports and kernel
// names say which nodes a kernel holds.
//
// # Conformance
//
// TestConformance runs every case directory under testdata (ONNX's own
// node tests, the PyTorch cases of the onnx wheel, exported models: a
// model.onnx and test_data_set_N folders of input_N.pb and output_N.pb)
// on the reference interpreter, the native back end and PJRT when a plugin
// is found, and prints "onnx node tests: N passed, M failed, K
// unsupported". Cases the coverage pass refuses are unsupported with its
// reason; others that cannot run are listed with a reason in the test.
// Where a node test feeds a shape, axes or clip bound as a graph input,
// the runner gives that input as an initializer holding the test's value,
// since hofuse fixes shapes when it imports; data inputs are never fixed.
package onnx
