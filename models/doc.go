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
// The batch extent is static: it is part of the input's type, so a model is
// built for one batch size.
package models
