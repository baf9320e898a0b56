// Package lowering is what every back end has in common: a back end
// compiles a kernel graph (fusion.Graph) into something it can run, and
// runs it on the same inputs the reference interpreter takes.
//
// The back ends live in the subpackages: lowering/native compiles kernels
// into Go loop nests and runs them in-process; lowering/xla is the PJRT
// back end, which lowers kernels to StableHLO with lowering/stablehlo and
// runs them through XLA on a PJRT plugin. lowering/lowertest is the
// correctness suite every back end runs.
package lowering
