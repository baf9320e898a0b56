package kernels

import (
	"fmt"
	"strings"
	"testing"
)

// TestCopyRows copies rows of 32, 64, 128 and 256 bytes at positive, negative and
// overlapping-row strides, odd and even counts, and checks every element
// of dst: the rows' copies, and nothing else touched.
func TestCopyRows(t *testing.T) {
	testCopyRows[float32](t, 8)
	testCopyRows[float32](t, 16)
	testCopyRows[float32](t, 32)
	testCopyRows[float32](t, 64)
	testCopyRows[float64](t, 4)
	testCopyRows[float64](t, 8)
	testCopyRows[float64](t, 16)
	testCopyRows[float64](t, 32)
}

func testCopyRows[T float32 | float64](t *testing.T, n int) {
	for _, run := range []int{0, 1, 2, 3, 7} {
		for _, ss := range []int{n, n + 3, -2 * n, 1} { // 1: source rows overlap each other
			for _, ds := range []int{n, 2*n + 1, -n} {
				src := make([]T, 16*n+64)
				for i := range src {
					src[i] = T(i + 1)
				}
				dst := make([]T, 16*n+64)
				so, do := 0, 0
				if ss < 0 {
					so = -ss * (run - 1)
				}
				if ds < 0 {
					do = -ds * (run - 1)
				}
				so, do = max(so, 0)+5, max(do, 0)+3
				want := make([]T, len(dst))
				for r := range run {
					copy(want[do+r*ds:do+r*ds+n], src[so+r*ss:so+r*ss+n])
				}
				took := CopyRows(dst, do, ds, src, so, ss, n, run)
				if took != hasAVX2 {
					t.Fatalf("n %d: took %v, want %v (AVX2)", n, took, hasAVX2)
				}
				if !took {
					t.Skip("CopyRows needs AVX2 (it declined, as it must without)")
				}
				for i := range dst {
					if dst[i] != want[i] {
						t.Fatalf("n %d run %d ss %d ds %d: dst[%d] = %v, want %v", n, run, ss, ds, i, dst[i], want[i])
					}
				}
			}
		}
	}
}

func TestCopyRowsDeclines(t *testing.T) {
	a := make([]float32, 64)
	if CopyRows(a, 0, 9, make([]float32, 64), 0, 9, 9, 2) {
		t.Error("took rows of 9 float32")
	}
	if CopyRows(a[32:], 0, 8, a, 0, 8, 8, 2) {
		t.Error("took dst and src sharing memory")
	}
}

func TestCopyRowsPanics(t *testing.T) {
	if !hasAVX2 {
		t.Skip("CopyRows needs AVX2")
	}
	for _, c := range []struct {
		name               string
		do, ds, so, ss, nr int
	}{
		{"last source row past the end", 0, 8, 0, 20, 4},
		{"negative stride before the start", 0, 8, 8, -8, 3},
		{"last destination row past the end", 0, 30, 0, 8, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "index out of range") {
					t.Errorf("panic %v, want an index out of range", r)
				}
			}()
			CopyRows(make([]float32, 64), c.do, c.ds, make([]float32, 64), c.so, c.ss, 8, c.nr)
		})
	}
}
