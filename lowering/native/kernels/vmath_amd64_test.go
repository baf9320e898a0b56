//go:build amd64 && !purego

package kernels

// withoutAVX512 runs f with the AVX-512 loops turned off, so that a test
// reaches the AVX2 ones on a machine that has both.
func withoutAVX512(f func()) {
	defer func(v bool) { hasAVX512 = v }(hasAVX512)
	hasAVX512 = false
	f()
}
