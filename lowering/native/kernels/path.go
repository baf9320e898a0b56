package kernels

// Path names the inner loops this process runs: "avx512" (AVX-512 GEMM
// tiles with AVX2 vector loops), "avx2" (AVX2 and FMA), or "portable" (the
// register-blocked pure-Go loops, chosen by the purego build tag, on other
// architectures, or on CPUs without AVX2 and FMA).
func Path() string {
	switch {
	case hasAVX512:
		return "avx512"
	case hasAVX2:
		return "avx2"
	}
	return "portable"
}
