// Command hofuse fuses neural-network graphs written in a functional IR of
// higher-order functions with proven rewrite rules, and runs them on the
// native executor or on XLA through PJRT.
//
// Usage:
//
//	hofuse COMMAND [flags] [arguments]
//
// The commands:
//
//	demo     fuse an MLP, run it fused and unfused, check they agree, and time them
//	doctor   report which back ends can run here and how to fix what is missing
//	eval     evaluate a program in the notation, on the interpreter or a back end
//	fuse     fuse a model or a program and report kernels, temporaries and rules
//	paper    rerun the paper's loop-order experiment on the native executor
//	pjrt     install a PJRT plugin from PyPI, or print the one hofuse finds
//	show     print the IR of a model in the paper's notation
//
// "hofuse help" (or "hofuse" alone) lists them and "hofuse COMMAND --help"
// gives a command's flags; testdata/help holds golden copies of each,
// refreshed by "go test ./cmd/hofuse -update". Exit status 0 is success, 1
// a failure of the work, 2 a usage error, which is printed once followed by
// one line of usage: the flag's at fault, or the command's.
//
// Each command lives in its own file and registers itself in init; the
// flags shared by the commands that run a model live in modelflags.go and
// backend.go.
package main
