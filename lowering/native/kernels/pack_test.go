package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackRows checks PackRows against its definition for every row count
// around the vector transposes' 4 and 8, lengths around their blocks,
// strides above the row count, and rows that overlap in src (as the
// windows of an image do); the elements of dst between columns stay as
// they were.
func TestPackRows(t *testing.T) {
	testPackRows[float32](t)
	testPackRows[float64](t)
}

func testPackRows[T float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	src := randSlice[T](rng, 1000)
	for h := 1; h <= 19; h++ {
		for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 64, 67} {
			for _, ld := range []int{h, h + 3, 32} {
				if ld < h {
					continue
				}
				offs := make([]int, h)
				for i := range offs {
					offs[i] = rng.IntN(len(src) - n + 1)
				}
				dst := make([]T, (n-1)*ld+h+2)
				for i := range dst {
					dst[i] = -1
				}
				PackRows(dst, ld, src, offs, n)
				for i, v := range dst {
					want := T(-1)
					if t0, r := i/ld, i%ld; r < h && t0 < n {
						want = src[offs[r]+t0]
					}
					if v != want {
						t.Fatalf("h=%d n=%d ld=%d: dst[%d] = %v, want %v", h, n, ld, i, v, want)
					}
				}
			}
		}
	}
}

// TestCopyPanelRows checks the deal of a row of B over panels for every
// piece size it copies as a fixed-size array (64 and 128 bytes, the asm
// kernels' nr) and for others (copy), against element-by-element copies.
func TestCopyPanelRows(t *testing.T) {
	testCopyPanelRows[float32](t)
	testCopyPanelRows[float64](t)
}

func testCopyPanelRows[T float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, nr := range []int{2, 4, 8, 16, 32} {
		for _, np := range []int{0, 1, 3} {
			stride := nr*5 + 3
			src := randSlice[T](rng, np*nr+7)
			got := randSlice[T](rng, np*stride+nr)
			want := append([]T(nil), got...)
			for jp := range np {
				for j := range nr {
					want[jp*stride+j] = src[jp*nr+j]
				}
			}
			copyPanelRows(got, stride, src, nr, np)
			if !slices.Equal(got, want) {
				t.Errorf("%T nr=%d np=%d: got %v, want %v", src[0], nr, np, got, want)
			}
		}
	}
}

// BenchmarkPackRows times PackRows on rows of 64 float32 into columns of
// stride 49: seven rows (a CNN's 7×7×64 pooled image flattened channels
// first, one row of positions at a time) and eight.
func BenchmarkPackRows(b *testing.B) {
	for _, h := range []int{7, 8} {
		b.Run(fmt.Sprintf("rows=%d", h), func(b *testing.B) {
			src := make([]float32, h*64)
			dst := make([]float32, 64*49)
			offs := make([]int, h)
			for i := range offs {
				offs[i] = 64 * i
			}
			for b.Loop() {
				PackRows(dst, 49, src, offs, 64)
			}
		})
	}
}
