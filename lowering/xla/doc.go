// Package xla is the PJRT back end: a lowering.Backend that lowers
// kernel graphs with package stablehlo and compiles and runs them on a PJRT
// plugin through package pjrt (cgo).
//
// Two modes, so that fusion can be timed honestly:
//
//   - fused (the default): one executable for the whole graph, the module
//     of stablehlo.Module. XLA inlines the kernel functions and fuses
//     across them as it likes, so use it for graphs that fusion.Whole or the
//     fusion passes made. The kernels' intermediates never leave XLA's
//     executable. When the plugin's compiler rejects the whole module
//     (and the graph has several kernels), the graph is compiled as one
//     executable per kernel instead, as in the other mode; Stats.Whole and
//     Describe give the plugin's reason.
//   - per kernel (Options.PerKernel): one executable per kernel, from
//     stablehlo.KernelModule; the kernels run one after another, and their
//     outputs stay on the device as PJRT buffers until the last kernel that
//     reads them has run. With fusion.Unfused this is the layer-by-layer
//     baseline: XLA cannot fuse across executables.
//
// # Loops: values that stay on the device
//
// CompileLoop (lowering.LoopBackend) compiles a graph whose result is a
// tuple, some of whose elements replace some of its inputs on the next
// run (a training step's parameters and optimizer state). The Loop it
// returns keeps those carried values on the device as PJRT buffers: Bind
// uploads them once, Run uploads only the other inputs and downloads only
// the results not carried, and Value copies one carried value to the host
// on demand. In fused mode the module aliases each carried parameter to
// the result that replaces it (stablehlo.LowerLoop, tf.aliasing_output)
// and Run donates the carried buffers, so XLA writes the new values into
// the old ones' memory; a donation is final, so a run that fails loses the
// carried values (Bind again). In per-kernel mode nothing is donated: the
// carried results replace the old buffers, which are then freed. With
// LoopSpec.CheckFinite, each run also computes on the device one flag per
// floating-point carried value but those LoopSpec.Implied names, true
// when every element is finite (in the same module in fused mode, in an
// executable of its own per kernel), and downloads the flags with the
// results.
//
// Lowering time (text generation) and compile time (PJRT's, per
// executable) are recorded separately in Stats.
//
// # Sessions: parameters that stay on the device
//
// Executable.Run copies every input to the device and the result back on
// each call. For inference, BindSession (lowering.Binder's Bind) copies the
// parameters once and returns a Session whose Run takes only the data
// inputs: on a CPU plugin they are written into input buffers made once
// and reused (pjrt.InputSlot, a view of host memory, so no upload), and the
// result is read into host arrays the session reuses (valid until its next
// Run). SetParams copies changed parameters again. A steady-state fused run
// allocates on the Go side only what go-xla allocates to execute
// (BenchmarkSessionMLP, TestSessionAllocs). Session.Timing (and
// Loop.Timing) splits the last run into copying in, executing and copying
// out; hofuse bench prints the split.
//
// Each batch size is its own program: the pjrt client caches compiled
// programs by their text, so a batch size compiled before is not compiled
// again (in this process; go-xla v0.1.4 binds no executable serialisation,
// so there is no on-disk cache).
//
// Errors of the plugin's compiler name the kernel, the plugin and its PJRT
// C API version, and the native back end as the way around it.
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
