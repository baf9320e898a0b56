// Package models builds whole networks from the layers package, as single
// terms of the graph IR with their parameters listed.
//
// MLP builds a multilayer perceptron: dense layers, each but the last
// followed by an optional normalisation and an activation. CNN builds a
// LeNet-like convolutional classifier: blocks of a convolution, BatchNorm,
// an activation and a max pooling, then dense layers, over a flattened
// image. A Model holds
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
// gradients are autodiff.GradAux's (the running statistics are its
// auxiliary results, so they read the layer inputs the forward pass
// computes); the update is an optim.Optimizer's. So forward, backward and
// update fuse together, and both back ends run the step. Package
// models/train compiles it (fused, or unfused for comparison) and runs it
// step after step; it lives apart because fusion's tests import models,
// so models imports neither fusion nor lowering.
//
// The batch extent is static: it is part of the input's type, so a model is
// built for one batch size.
package models
