// Package lowering is what every back end has in common: a back end
// compiles a kernel graph (fusion.Graph) into something it can run, and
// runs it on the same inputs the reference interpreter takes. A back end
// whose programs run on a device (PJRT) can also compile a program as a
// Loop (LoopBackend), whose carried values stay on the device between
// runs: a training step's parameters and optimizer state.
//
// The back ends live in the subpackages: lowering/native compiles kernels
// into Go loop nests and runs them in-process; lowering/xla is the PJRT
// back end, which lowers kernels to StableHLO with lowering/stablehlo and
// runs them through XLA on a PJRT plugin. lowering/lowertest is the
// correctness suite every back end runs.
package lowering
