// Command fusemlp is the smallest complete use of hofuse as a library:
// build an MLP as a term of the IR, fuse it, compile the kernels for the
// native executor, and run them on a batch.
package main
