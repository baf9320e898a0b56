//go:build !amd64 || purego

package kernels

// withoutAVX512 runs f: without assembly there are no AVX-512 loops.
func withoutAVX512(f func()) { f() }

// withoutAVX2 runs f: without assembly every loop is scalar.
func withoutAVX2(f func()) { f() }
