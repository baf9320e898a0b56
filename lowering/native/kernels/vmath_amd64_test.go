//go:build amd64 && !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withoutAVX512 runs f with the AVX-512 loops turned off, so that a test
// reaches the AVX2 ones on a machine that has both.
func withoutAVX512(f func()) {
	defer func(v bool) { hasAVX512 = v }(hasAVX512)
	hasAVX512 = false
	f()
}

// withoutAVX2 runs f with the AVX2 and AVX-512 loops turned off, so that
// a test reaches the scalar ones.
func withoutAVX2(f func()) {
	defer func(v, w bool) { hasAVX2, hasAVX512 = v, w }(hasAVX2, hasAVX512)
	hasAVX2, hasAVX512 = false, false
	f()
}

// TestExpF32AVX2Bits checks the AVX2 exp loops (four vectors a turn, then
// one turn of two) against expPoly32 bit for bit, on lengths that end in
// either turn, over every 211th float32 of both signs and the edges, and
// on turns that mix one lane that needs the two-product scaling among
// lanes that do not.
func TestExpF32AVX2Bits(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 here")
	}
	xs := expEdges32()
	for b := uint32(0); b < 0x7f800000; b += 211 {
		xs = append(xs, math.Float32frombits(b), -math.Float32frombits(b))
	}
	if testing.Short() {
		xs = xs[:len(xs)/8]
	}
	// Blocks of the loop's iteration (four vectors) in which one lane's
	// result is subnormal, overflows or is NaN, among lanes whose 2**n is
	// normal: the loop scales such a block by two products, the others
	// by one (expScaleAVX2 in gen_vmath.go); both must give expPoly32's
	// bits.
	r := rand.New(rand.NewPCG(21, 22))
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, odd := range []float32{-87.5, -88, -95, -104, -200, 88.1, 88.7, 89, 100, inf, -inf, nan} {
		for j := range 32 {
			for k := range 32 {
				v := float32(r.NormFloat64() * 20)
				if k == j {
					v = odd
				}
				xs = append(xs, v)
			}
		}
	}
	for _, n := range []int{16, 32, 48, 80, len(xs) &^ 15} {
		z, zs := make([]float32, n), make([]float32, n)
		expF32AVX2(n, &xs[0], &z[0])
		expSubF32AVX2(n, &xs[0], 0, &zs[0], &xs[0])
		for i := range z {
			want := expPoly32(xs[i])
			if math.Float32bits(z[i]) != math.Float32bits(want) || math.Float32bits(zs[i]) != math.Float32bits(want) {
				t.Fatalf("n=%d: exp(%v): expF32AVX2 %v, expSubF32AVX2 %v, expPoly32 %v", n, xs[i], z[i], zs[i], want)
			}
		}
	}
}

// TestGatherGemmAVX2 runs the gather kernels' tests on the AVX2 kernels
// where GatherGemm would take the AVX-512 ones.
func TestGatherGemmAVX2(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 here: TestGatherGemmF32 and TestGatherGemmF64 run the AVX2 kernels")
	}
	withoutAVX512(func() {
		testGatherGemm[float32](t)
		testGatherGemm[float64](t)
	})
}
