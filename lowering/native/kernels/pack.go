package kernels

import "fmt"

// PackRows writes n elements of each of len(offs) rows of src into dst as
// columns of stride ld ≥ len(offs):
//
//	dst[t·ld + r] = src[offs[r] + t]   (r < len(offs), t < n)
//
// It is the transposition at the heart of packing a GEMM's left operand
// into the micro-kernel's panels (GemmParams.PackA): rows of a matrix, or
// of an implicit one such as the windows of an image, become the mr
// elements of each k step. With AVX2, float32 rows go eight (then four) at
// a time through vector transposes, a few times faster than element by
// element; the rest element by element. It panics if a row or dst is too
// short: the callers compute the offsets, so that is a bug.
func PackRows[T float32 | float64](dst []T, ld int, src []T, offs []int, n int) {
	h := len(offs)
	if n <= 0 || h == 0 {
		return
	}
	if ld < h || len(dst) < (n-1)*ld+h {
		panic(fmt.Sprintf("kernels: PackRows: %d rows of %d into %d elements at stride %d", h, n, len(dst), ld))
	}
	for _, o := range offs {
		if o < 0 || o+n > len(src) {
			panic(fmt.Sprintf("kernels: PackRows: row at %d of %d elements past the %d of src", o, n, len(src)))
		}
	}
	r := 0
	if d32, ok := any(dst).([]float32); ok && hasAVX2 {
		s32 := any(src).([]float32)
		if nv := n &^ 7; nv > 0 {
			for ; r+8 <= h; r += 8 {
				var rows [8]*float32
				for i := range rows {
					rows[i] = &s32[offs[r+i]]
				}
				transpose8F32AVX2(nv, &rows, &d32[r], ld)
				packRowsGo(dst[r:], ld, src, offs[r:r+8], nv, n)
			}
		}
		if nv := n &^ 3; nv > 0 {
			for ; r+4 <= h; r += 4 {
				var rows [4]*float32
				for i := range rows {
					rows[i] = &s32[offs[r+i]]
				}
				transpose4F32AVX2(nv, &rows, &d32[r], ld)
				packRowsGo(dst[r:], ld, src, offs[r:r+4], nv, n)
			}
			// One to three rows left, of four or more: the last four
			// rows again, those before them written twice with the same
			// values (a CNN's seven positions a row into columns).
			if r < h && h >= 4 {
				r = h - 4
				var rows [4]*float32
				for i := range rows {
					rows[i] = &s32[offs[r+i]]
				}
				transpose4F32AVX2(nv, &rows, &d32[r], ld)
				packRowsGo(dst[r:], ld, src, offs[r:h], nv, n)
				r = h
			}
		}
	}
	packRowsGo(dst[r:], ld, src, offs[r:], 0, n)
}

// packRowsGo is PackRows for the elements t0 ≤ t < n, four rows at a time.
func packRowsGo[T float32 | float64](dst []T, ld int, src []T, offs []int, t0, n int) {
	r := 0
	for ; r+4 <= len(offs); r += 4 {
		s0, s1, s2, s3 := src[offs[r]:][:n], src[offs[r+1]:][:n], src[offs[r+2]:][:n], src[offs[r+3]:][:n]
		for t := t0; t < n; t++ {
			q := dst[t*ld+r:][:4]
			q[0], q[1], q[2], q[3] = s0[t], s1[t], s2[t], s3[t]
		}
	}
	for ; r < len(offs); r++ {
		for t, v := range src[offs[r]:][t0:n] {
			dst[(t0+t)*ld+r] = v
		}
	}
}
