// Package models builds whole networks from the layers package, as single
// terms of the graph IR with their parameters listed.
//
// MLP builds a multilayer perceptron: dense layers, each but the last
// followed by an optional normalisation and an activation. A Model holds
// the term (Output), its data input "x", its parameters in layer order,
// and the names of its layers, which are also the sources its nodes carry.
// RandomParams, RandomInput and Bindings make deterministic values for the
// reference interpreter, graph.Eval, and for benchmarks.
//
// # Training
//
// Model.TrainStep builds one training step as ONE term: from the batch,
// its labels, the parameters, the optimizer's state and per-step scalars
// and the BatchNorm running statistics, the tuple (loss, new parameters,
// new state, new running statistics). The loss is layers'
// SoftmaxCrossEntropy (integer labels, i32[batch], compared with the class
// indices, an input, since the IR has no iota) or MeanSquaredError; the
// gradients are autodiff.Grad's; the update is an optim.Optimizer's. So
// forward, backward and update fuse together, and both back ends run the
// step. Step.Kernels gives the fused kernels (fusion.Fuse with
// TrainConfig.Fusion) or the unfused ones (fusion.Unfused) for
// comparison. A Trainer compiles the step once on a lowering.Backend and
// runs it again and again, feeding each step's new parameters, state and
// statistics back in as the next step's inputs; it checks the labels
// before running (an out-of-range label is an error naming its row) and
// every value after (a NaN or infinity is an error naming the step and the
// first parameter or state array that went non-finite, and the step is
// not taken). The fusion pass terminates quickly on the steps of the
// MLPs tested (each norm, SGD and Adam), so TrainConfig.Fusion disables no
// rule by default.
//
// The batch extent is static: it is part of the input's type, so a model is
// built for one batch size.
package models
