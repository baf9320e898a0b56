// Package xla is the PJRT back end: a lowering.Backend that lowers
// kernel graphs with package stablehlo and compiles and runs them on a PJRT
// plugin through package pjrt (cgo).
//
// Two modes, so that fusion can be timed honestly:
//
//   - fused (the default): one executable for the whole graph, the module
//     of stablehlo.Module. XLA inlines the kernel functions and fuses
//     across them as it likes, so use it for graphs that fusion.Whole or the
//     fusion passes made.
//   - per kernel (Options.PerKernel): one executable per kernel, from
//     stablehlo.KernelModule; the kernels run one after another, and their
//     outputs stay on the device as PJRT buffers until the last kernel that
//     reads them has run. With fusion.Unfused this is the layer-by-layer
//     baseline: XLA cannot fuse across executables.
//
// Lowering time (text generation) and compile time (PJRT's, per
// executable) are recorded separately in Stats.
//
// # Per-kernel fallback
//
// When the StableHLO lowering cannot take a kernel of the graph
// (stablehlo.ErrUnsupported), the back end does not fail the whole graph:
// it replaces that kernel by its unfused form (fusion.Unfused of the
// kernel's body, reduction operators that the product rule paired split
// back into one per component), lowers each piece on its own and compiles
// the result, in either mode. Stats.Fallbacks and Describe say which
// kernels fell back and why. Only when a piece is rejected too does
// Compile fail, naming the kernel and both reasons.
package xla
