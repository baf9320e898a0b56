// Package pjrt runs StableHLO programs on a PJRT plugin (XLA's plugin
// runtime) through github.com/gomlx/go-xla/pkg/pjrt. It is the only hofuse
// package that uses cgo; lowering/stablehlo writes StableHLO text without
// it, and this package takes that text.
//
// # Finding and opening a plugin
//
// Locate finds a plugin file: an explicit path, else
// $PJRT_PLUGIN_LIBRARY_PATH, else $HOFUSE_PJRT_DIR, else the project folder
// <checkout>/.pjrt (inside a checkout of hofuse) and the user cache folder
// os.UserCacheDir()/hofuse/pjrt (see Places). "hofuse pjrt install" puts the
// XLA CPU plugin from the PyPI wheel xla-cpu-pjrt in DefaultDir: the
// project folder in a checkout, the user cache folder for an installed
// hofuse. This package never downloads anything. Open loads a plugin and creates a client with one
// device (for the CPU plugin, via its cpu_device_count option):
//
//	c, err := pjrt.Open("") // Locate("")
//	if err != nil { ... }   // says where it looked and how to install
//	defer c.Close()
//	e, err := c.Compile(text) // StableHLO text with a func.func @main
//	outs, err := e.Run(x, w, b) // *graph.Array or graph.ScalarValue each
//
// Open checks a file before loading it, since a truncated or corrupt
// shared library kills the process inside dlopen: the ELF header, that the
// header tables and loadable segments lie within the file, and, for a file
// the size of a plugin recorded in plugins.json, its sha256, recomputed
// once per process (package internal/pluginfile). A damaged file gives a
// *DamagedError with the fix. An entry of $PJRT_PLUGIN_LIBRARY_PATH that
// names nothing is an error, not a fall back to the project folder.
//
// Without cgo (CGO_ENABLED=0) the package still builds; Open returns
// ErrNoCgo.
//
// # One client per plugin
//
// Each Open returns a new *Client handle, but every handle on the same
// plugin file (symbolic links resolved) shares one PJRT client and one
// cache of compiled programs: a process never creates two PJRT clients of
// one plugin. (The XLA CPU plugin 0.81 does allow several at once, and a
// new one after the last was destroyed, but each brings its own thread
// pools.) The PJRT client is destroyed when the last handle closes. A
// plugin, once loaded, stays loaded for the life of the process: go-xla
// never unloads it.
//
// # Safety: no use after free
//
// go-xla crashes the process (SIGSEGV in C) when a buffer or compile is used
// after its client was destroyed. Here every call into C holds the shared
// client's lock for reading and checks that it is open; the last Close
// takes the lock for writing, so it waits for runs in flight and no call
// reaches C afterwards. After Close, every method of the handle and of
// its executables and buffers returns an error wrapping ErrClosed; Close
// and Buffer.Destroy may be called again and return nil.
//
// # Checking inputs
//
// PJRT checks only the byte size of an input, not its element type (an
// i32[2] runs as an f32[2] parameter, bits reinterpreted). So Compile reads
// the parameter and result types of @main from the text (it must be the
// pretty MLIR form "func.func [public] @main(%x: tensor<2x3xf32>, ...) ->
// ...", as go-xla's builder and JAX write it, with static shapes of f32,
// f64, i32 or i1), and Run and RunBuffers check the number, element types
// and extents of their inputs against them before calling PJRT; an error
// names the argument by index and SSA name: "argument 1 (%w): got f32[3 2]
// (tensor<3x2xf32>), the program takes tensor<3x4xf32>".
//
// # Values
//
// Host values are graph values: *graph.Array (any strided view; a
// row-major f32 or f64 array is sent from its own buffer, other views are
// copied into row-major order first) and graph.ScalarValue for rank-0
// tensors. Results come back as new row-major arrays (f32 and f64 results
// wrap the read-back buffer) or as ScalarValue for rank-0 results; Bool is
// i1 (one byte per element on the host). A TupleValue is not a tensor: pass
// its elements as separate arguments.
//
// # Caching
//
// Compile caches by the sha256 of the text. The text encodes the shapes, so
// each batch size is its own entry, compiled once. A hit returns the same
// *Executable. Compiled programs live until the last handle on the plugin
// closes; there is no eviction. Compiles are serialised per plugin; runs
// are concurrent.
//
// # Device buffers
//
// ToDevice, Executable.RunBuffers and Buffer.ToHost keep intermediates on
// the device (the unfused baseline times chains of executables this way).
// RunBuffers can donate inputs, whose memory PJRT may then reuse for a
// result; a donated Buffer reports so on later use. Destroy buffers when
// done; a runtime cleanup frees forgotten ones when they are collected.
//
// # Runs without needless copies
//
// InputSlot is a device buffer for one input that a program takes anew on
// each run; on a CPU plugin it is a view of host memory
// (CreateViewOfDeviceBuffer), so Set copies the value there once and PJRT
// reads it in place. Call reruns an executable with its lists kept and
// reads each result into a caller's array (Buffer.CopyTo reads one buffer
// that way); on a CPU plugin a result is copied straight from its memory,
// without PJRT's asynchronous transfer. lowering/xla's Session is built on
// these.
//
// # XLA options and versions
//
// Open adds DefaultXLAFlags to $XLA_FLAGS (those it does not name) before
// the first plugin loads: no fast math and NaN-propagating min/max, for
// correctness first. XLA reads $XLA_FLAGS once per process into the
// DebugOptions every compile starts from (go-xla offers no other setter
// for them); XLAFlags reports what is in force, and hofuse doctor prints
// it. A plugin implementing another major version of the PJRT C API than
// APIMajor is refused by Open before a client is made, naming both
// versions. Errors of a run that ran out of device memory say so and name
// the native back end.
//
// # Logging and testing
//
// Open sets TF_CPP_MIN_LOG_LEVEL=1 when it is unset, which keeps the
// plugin's INFO log lines off stderr. go-xla itself logs a warning line
// (klog) when a file fails to load as a plugin, repeating what Open's error
// says; QuietBinding drops such lines (the hofuse command does, unless
// given --verbose). Open's errors name the plugin file once.
//
// Tests that need a plugin open it with pjrttest.Client, which skips with
// a one-line reason when none is found, or fails when
// HOFUSE_REQUIRE_PJRT=1. go-xla's per-P arena pool is invisible to the race
// detector: run race tests with "go test -race -tags race_mu", go-xla's
// tag for that.
package pjrt
