package native

import (
	"math"
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
