// Package layers builds neural-network layers as terms of the graph IR.
//
// A layer is not an opaque operation: Dense, BatchNorm, LayerNorm, the
// activations and Softmax each return a term made of the IR's higher-order
// functions (nzip, rnz, flip, …) over scalar lambdas, which the fusion rules
// can take apart and fuse with their neighbours. For example Dense is
//
//	map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) x
//
// # Convolutions and poolings
//
// Conv1D and Conv2D (channels last or first, strides, "valid", "same" or
// explicit padding, dilations, groups and depthwise), MaxPool2D,
// AvgPool2D, GlobalAveragePool and Flatten are terms too: the input is
// padded with pad views (graph.PadView), seen through window views
// (graph.WindowView: overlapping strides, no copy), and each window is
// reduced against each kernel by nested rnz (+), or by max or + for a
// pooling. A convolution, the BatchNorm of its channels (BatchNorm takes
// an input of any rank and normalises its last axis) and an activation
// fuse into one kernel. ConvWith builds a convolution from a model's own
// kernel and bias, as the importers do. The doc comments say where the
// frameworks differ: kernel layouts (HWIO channels last, as Keras; OIHW
// channels first, as PyTorch and ONNX), "same" with the odd padding
// element after (TensorFlow, ONNX's SAME_UPPER), the average's divisor
// (padding excluded, as ONNX and TensorFlow; PyTorch's default includes
// it, CountIncludePad).
//
// # Losses
//
// SoftmaxCrossEntropy (integer labels, numerically stable through
// log-sum-exp) and MeanSquaredError return scalar terms, means over the
// batch (over every element for the squared error), for autodiff.Grad to
// differentiate. The labels are an i32[batch] input compared with the
// class indices 0 … classes-1, the input ClassesInput that ClassIndices
// fills: the IR has no iota and no gather. A label out of range is not an
// error the term can raise (see SoftmaxCrossEntropy); the caller checks.
//
// # Names and sources
//
// Every layer has a name ("dense1", "bn1", …). Each node the layer creates
// carries that name as its source (graph.Node.Source), so that a fused kernel
// can tell which layers it holds. The exceptions are the ones graph imposes:
// an input's source is its own name, and a variable (*graph.Var) has no
// source. The layer's parameters are graph inputs with Param set, named
// "<layer>.<param>": "dense1.W", "dense1.b", "bn1.mean", "bn1.var",
// "bn1.scale", "bn1.shift", "ln1.scale", "ln1.shift".
//
// # Shapes
//
// Axis 0 is the outermost, and every higher-order function consumes it.
// Dense, BatchNorm and LayerNorm take x of type dt[batch, features]: the
// batch extent is static, part of the type, and the layers map over it.
// The activations take arrays of any rank; Softmax works on the innermost
// axis. dt is f32 or f64. x is a closed value term: an input, or the
// output of another layer. A layer checks x with graph.Check and returns an
// *Error naming the layer and the problem when its rank, extents or element
// type do not fit; layers never panic on user input.
//
// # Defaults that differ between frameworks
//
// Where Keras, PyTorch and ONNX disagree, the doc comment of the layer says
// which one this package follows (mostly PyTorch): BatchNorm and LayerNorm
// epsilon (1e-5 here and in PyTorch and ONNX; 1e-3 in Keras), the variance
// BatchNorm normalises with in training (biased) and the one its running
// statistics keep (unbiased, as in PyTorch), the momentum convention, and
// LeakyReLU's slope (0.01 here, in PyTorch and in ONNX; 0.3 in Keras).
//
// # Sharing
//
// A value needed more than once is computed once and bound with let: the
// batch mean in BatchNorm training, which the variance and the
// normalisation both read (and the layer's input, read three times there);
// LayerNorm's per-row mean and reciprocal deviation; Softmax's row maximum
// and sum. No layer uses one node in several places under a lambda: the
// reference interpreter caches a shared node only where it is evaluated
// outside every lambda and let body and recomputes it at every element
// otherwise, which made stacked training-mode BatchNorm layers cost
// exponentially in their number.
//
// # Building your own layers
//
// Builder is the helper the layers use: it makes every node with the
// layer's source and keeps the first construction error, so a layer body
// reads like the notation and checks errors once at the end.
package layers
