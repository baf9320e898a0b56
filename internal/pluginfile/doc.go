// Package pluginfile knows which PJRT plugin files hofuse trusts and checks
// a file before anything loads it.
//
// plugins.json, embedded from this folder, records each plugin that
// "hofuse pjrt install" may install (package pjrtinstall reads it through
// Recorded). Check is what package pjrt runs on every plugin before
// dlopen: a truncated or corrupt shared library makes the dynamic loader
// die of SIGBUS or SIGSEGV when it maps pages past the end of the file, and
// no Go error can be returned after that. Check therefore reads the file's
// ELF header and program and section header tables and refuses a file
// whose tables or loadable segments lie past its end, a file that is not
// ELF, is 32-bit, or is for another machine; and for a file the size of a
// recorded plugin it recomputes the sha256 and compares it with the record
// (no stamp file is trusted: a size and a time can both be kept while the
// bytes change). Hashes are cached for the life of the process, keyed by
// the file's identity, size and modification time.
//
// Package pjrt imports this package; pjrtinstall imports pjrt in its tests,
// so the record cannot live in pjrtinstall without an import cycle.
package pluginfile
