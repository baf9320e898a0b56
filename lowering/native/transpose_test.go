package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestTransposeInto: a copy whose destination's contiguous axis is not
// the source's runs as transposed rows (kernels.PackRows) and equals the
// interpreter exactly, f32 and f64, sequential and parallel: a
// channels-first image to channels last (three channels, fewer than a
// vector transpose takes; its two spatial axes merge into one), the same into a padded scratch inside a map
// over the batch (an imported network's first convolution), a matrix of
// 37 rows (eight at a time, then four, then one) whose rows are longer
// than a chunk, an exchange of the outer and inner of three axes with the
// middle one outer, a copy large enough to split over goroutines, and a
// copy written as maps of the identity (as the schedule pass writes one it
// reorders). A copy whose contiguous axes agree keeps the rows path.
func TestTransposeInto(t *testing.T) {
	cases := []struct{ name, src, want, lack string }{
		{"chw-to-hwc", `X : T[3,7,9]; flip 1 (flip 0 X)`, "<(63,1),(3,63)> into <(63,3),(3,1)>: 3 source rows of 63 into columns", ""},
		{"padded-in-a-map", `x : T[2,3,8,8]; map (\img -> pad 0 1 1 (pad 1 1 1 (flip 1 (flip 0 img)))) x`, "3 source rows of 8 into columns", ""},
		{"long-rows", `X : T[37,300]; flip 0 X`, "37 source rows of 300 into columns, in chunks of 256", ""},
		{"outer-inner", `X : T[4,5,6,3]; map (\x -> flip 0 2 x) X`, "5 source rows of 3 into columns", ""},
		{"parallel", `X : T[64,48,40]; flip 0 2 X`, "64 source rows of 40 into columns, in chunks of 256", ""},
		{"zips-of-id", `X : T[4,9,6]; map (map (map id)) (flip 0 2 X)`, "4 source rows of 6 into columns", ""},
		{"rows-agree", `X : T[5,4,6]; flip 0 X`, "in rows of 6", "transpose"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) { checkNest(t, tc.src, dt, 7, tc.want, tc.lack) })
		}
	}
}
