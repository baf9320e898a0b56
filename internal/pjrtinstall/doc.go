// Package pjrtinstall installs PJRT plugins from PyPI wheels into a plugin
// folder (pjrt.DefaultDir: <checkout>/.pjrt, or the user cache folder for an
// installed hofuse); the command "hofuse pjrt install" drives it. It is
// pure Go and never loads a plugin (the command does, with package pjrt,
// after installing).
//
// # What is trusted
//
// plugins.json (in internal/pluginfile, which package pjrt shares to check
// a plugin before loading it) records each plugin that may be
// installed: the PyPI package and exact version, the wheel's file name and
// sha256, the path of the shared library inside the wheel with its sha256
// and size, and the name it is installed under (pjrt_c_api_cpu_plugin.so
// for the CPU plugin, the name go-xla's search expects). Install downloads
// with "python3 -m pip download --no-deps --only-binary=:all: PKG==VERSION",
// refuses a wheel or library whose hash differs, checks that the library
// exports GetPjrtApi (reading its ELF dynamic symbols), and only then
// renames it into place, so a failed install never leaves a half-written
// plugin under the final name.
//
// The candidates of each kind are tried in order: for the CPU,
// xla-cpu-pjrt (recorded), cyxla-pjrt-cpu (not on PyPI when checked) and
// fastatomstruct-xla-cpu (on PyPI, not checked); for CUDA, jax-cuda13-pjrt
// and jax-cuda12-pjrt (both recorded by hash, not yet loaded on a GPU),
// the driver's CUDA major first. A candidate without a record is tried only
// with Options.Unverified; its hashes are then printed so they can be
// checked and recorded.
//
// # Idempotence
//
// Beside the library a stamp file (NAME.stamp.json) records the verified
// hash with the file's size and modification time. A second install that
// finds both unchanged returns at once; Options.Recheck hashes again,
// Options.Force reinstalls.
//
// Nothing else in hofuse downloads anything: the library only looks for
// installed plugins (pjrt.Locate).
package pjrtinstall
