package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// TestFoldRows folds 2 to MaxFold operands of rows of 1 to 100 elements
// (whole vectors, pairs of them, a masked last one) at positive,
// negative and overlapping-row strides, with NaN, ±0 and ±Inf among the
// values, and checks every element of dst against Go's + max and min
// applied in order: the rows' folds, bit for bit (any NaN for a NaN), and
// nothing else touched.
func TestFoldRows(t *testing.T) {
	if !hasAVX512 {
		if FoldRows(Max, make([]float32, 8), 0, 4, []FoldSrc[float32]{{make([]float32, 8), 0, 4}, {make([]float32, 8), 0, 4}}, 4, 2) {
			t.Fatal("FoldRows took a fold without AVX-512")
		}
		t.Skip("FoldRows needs AVX-512 (it declined, as it must without)")
	}
	testFoldRows[float32](t)
	testFoldRows[float64](t)
}

func testFoldRows[T float32 | float64](t *testing.T) {
	special := []T{T(math.NaN()), T(math.Copysign(0, -1)), 0, T(math.Inf(1)), T(math.Inf(-1)), 1, -1}
	rng := rand.New(rand.NewPCG(1, 2))
	value := func() T {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return T(rng.NormFloat64())
	}
	ops := []struct {
		op ArithOp
		f  func(a, b T) T
	}{{Add, func(a, b T) T { return a + b }}, {Max, func(a, b T) T { return max(a, b) }}, {Min, func(a, b T) T { return min(a, b) }}}
	for _, o := range ops {
		for _, n := range []int{1, 7, 8, 16, 17, 31, 32, 33, 64, 100} {
			for _, k := range []int{2, 3, 4, 9, MaxFold} {
				for _, run := range []int{0, 1, 2, 5} {
					for _, ss := range []int{n, 2*n + 3, -n, 1} { // 1: an operand's rows overlap
						srcs := make([]FoldSrc[T], k)
						for j := range srcs {
							st := ss + j%2 // operands of different strides
							src := make([]T, 3+k+max(st, -st)*max(run, 1)+n+8)
							for i := range src {
								src[i] = value()
							}
							off := 3 + j
							if st < 0 {
								off -= st * (run - 1)
							}
							off = max(off, 0)
							srcs[j] = FoldSrc[T]{src, off, st}
						}
						ds := n + 2
						dst := make([]T, run*ds+n+8)
						for i := range dst {
							dst[i] = -7
						}
						do := 5
						want := slices.Clone(dst)
						for r := range run {
							for c := range n {
								acc := srcs[0].Src[srcs[0].Off+r*srcs[0].Stride+c]
								for _, s := range srcs[1:] {
									acc = o.f(acc, s.Src[s.Off+r*s.Stride+c])
								}
								want[do+r*ds+c] = acc
							}
						}
						if !FoldRows(o.op, dst, do, ds, srcs, n, run) {
							t.Fatalf("%T op %v n %d k %d: declined", dst, o.op, n, k)
						}
						for i := range dst {
							g, w := float64(dst[i]), float64(want[i])
							if g != w && !(g != g && w != w) || g == 0 && math.Signbit(g) != math.Signbit(w) {
								t.Fatalf("%T op %v n %d k %d run %d ss %d: dst[%d] = %v, want %v", dst, o.op, n, k, run, ss, i, dst[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

func TestFoldRowsDeclines(t *testing.T) {
	a := make([]float32, 64)
	src := []FoldSrc[float32]{{make([]float32, 64), 0, 8}, {make([]float32, 64), 0, 8}}
	if FoldRows(Mul, a, 0, 8, src, 8, 2) {
		t.Error("took a fold by ×")
	}
	if FoldRows(Max, a, 0, 8, src[:1], 8, 2) {
		t.Error("took a fold of one operand")
	}
	if FoldRows(Max, a, 0, 8, make([]FoldSrc[float32], MaxFold+1), 8, 2) {
		t.Error("took a fold of more than MaxFold operands")
	}
	if FoldRows(Max, a[32:], 0, 8, []FoldSrc[float32]{src[0], {a, 0, 8}}, 8, 2) {
		t.Error("took dst and an operand sharing memory")
	}
}

func TestFoldRowsPanics(t *testing.T) {
	if !hasAVX512 {
		t.Skip("FoldRows needs AVX-512")
	}
	for _, c := range []struct {
		name           string
		do, so, ss, nr int
	}{
		{"last operand row past the end", 0, 0, 20, 4},
		{"negative stride before the start", 0, 8, -8, 3},
		{"last destination row past the end", 60, 0, 8, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			dst := make([]float32, 64)
			src := []FoldSrc[float32]{{make([]float32, 64), 0, 8}, {make([]float32, 64), c.so, c.ss}}
			FoldRows(Max, dst, c.do, 8, src, 8, c.nr)
		})
	}
}
