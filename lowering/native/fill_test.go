package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fill sets every element, at every length around the doubling copies'
// steps, and leaves what lies past x alone.
func TestFill(t *testing.T) {
	for n := range 300 {
		buf := make([]float32, n+1)
		buf[n] = -1
		fill(buf[:n], 2.5)
		for i, v := range buf[:n] {
			if v != 2.5 {
				t.Fatalf("n=%d: x[%d] = %v", n, i, v)
			}
		}
		if buf[n] != -1 {
			t.Fatalf("n=%d: wrote past x", n)
		}
	}
	x := make([]float64, 1024)
	fill(x, math.Inf(-1))
	for i, v := range x {
		if !math.IsInf(v, -1) {
			t.Fatalf("x[%d] = %v", i, v)
		}
	}
}

// TestFillBorder checks fillBorder, on the box borderBox merges, against
// the definition: an element is filled exactly when one of its indices
// lies outside the box.
func TestFillBorder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		rank := 1 + rng.IntN(4)
		ext, lo, in := make([]int, rank), make([]int, rank), make([]int, rank)
		size := 1
		for a := range rank {
			in[a] = 1 + rng.IntN(4)
			ext[a] = in[a]
			if rng.IntN(2) == 0 {
				lo[a] = rng.IntN(3)
				ext[a] += lo[a] + rng.IntN(3)
			}
			size *= ext[a]
		}
		buf := make([]float32, size)
		e2, l2, i2 := borderBox(ext, lo, in)
		fillBorder(buf, e2, l2, i2, 1)
		for k := range size {
			outside, r := false, k
			for a := rank - 1; a >= 0; a-- {
				i := r % ext[a]
				r /= ext[a]
				outside = outside || i < lo[a] || i >= lo[a]+in[a]
			}
			if (buf[k] == 1) != outside {
				t.Fatalf("trial %d: extents %v, box %v at %v: element %d filled %v, outside the box %v",
					trial, ext, in, lo, k, buf[k] == 1, outside)
			}
		}
	}
}
