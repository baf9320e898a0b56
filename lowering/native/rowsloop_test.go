package native_test

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestRowsMap: a nest of zips whose axes do not merge (a flipped
// operand, a window's positions) runs as one vector loop over the rows of
// its inner axis (with the axes above it that merge with it), and equals
// the interpreter exactly, f32 and f64, sequential and parallel: rows that
// cross chunk boundaries in the middle of an outer axis (rows of 5 over
// 6×7×9), merged rows (9×5 as 45), two and three outer axes,
// stores that accumulate by max and + in the program's type (a pooling
// written weight stationary) and in another (f32 rows of an f64 sum), a
// bool result, a copy, a copy into a padded scratch whose rows (image
// rows) are longer than the chunks' (copied whole), and a nest large
// enough to split over goroutines.
func TestRowsMap(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"flipped", `X : T[3,5,7]; Y : T[5,3,7]; zip (zip (zip (\a b -> a * b + 1))) X (flip 0 Y)`, "vector loop [3,5,7] in rows of 7"},
		{"chunk-boundaries", `X : T[6,7,9,5]; Y : T[6,9,7,5]; zip (zip (zip (zip (\a b -> max a b - a / b)))) X (flip 1 Y)`, "vector loop [6,7,9,5] in rows of 5"},
		{"merged-rows", `X : T[6,7,9,5]; Y : T[7,6,9,5]; zip (zip (zip (zip (\a b -> max a b - a / b)))) X (flip 0 Y)`, "vector loop [6,7,45] in rows of 45"},
		{"max-pool-weight-stationary", `x : T[3,8,8,8]; map (\img -> rnz (zip (zip (zip max))) (\ra -> reduce (zip (zip (zip max))) ra) (flip 1 3 (flip 0 2 (flip 1 (window 0 2 2 (window 1 2 2 img)))))) x`, "vector loop [4,4,8] in rows of 8"},
		{"min-pool-overlapping", `x : T[2,9,7,5]; map (\img -> rnz (zip (zip (zip min))) (\ra -> reduce (zip (zip (zip min))) ra) (flip 1 3 (flip 0 2 (flip 1 (window 0 3 2 (window 1 2 1 img)))))) x`, "vector loop [4,30] in rows of 30"},
		{"sum-pool", `x : T[3,6,6,4]; map (\img -> rnz (zip (zip (zip (+)))) (\ra -> reduce (zip (zip (zip (+)))) ra) (flip 1 3 (flip 0 2 (flip 1 (window 0 2 2 (window 1 3 1 img)))))) x`, "in rows of 16"},
		{"f32-into-f64-sum", `x : f32[2,6,6,4]; map (\img -> rnz (zip (zip (zip (+)))) (\ra -> reduce (zip (zip (zip (+)))) ra) (flip 1 3 (flip 0 2 (flip 1 (window 0 2 2 (window 1 2 2 (map (map (map (\v -> f64 v))) img))))))) x`, "in rows of 4"},
		{"bool", `X : T[4,3,6]; Y : T[3,4,6]; zip (zip (zip (\a b -> a < b))) X (flip 0 Y)`, "vector loop [4,3,6] in rows of 6"},
		{"copy", `X : T[5,4,6]; flip 0 X`, "in rows of 6"},
		{"copy-long-rows", `x : T[2,40,30,16]; map (\img -> pad 0 1 1 (pad 1 1 1 img)) x`, "copy [40,480] in rows of 480"},
		{"hoistable-in-a-loop", `X : T[12,10,9]; Y : T[10,12,9]; z : T[2]; map (\w -> zip (zip (zip (\a b -> exp a * b + w))) X (flip 0 Y)) z`, "in rows of 9"},
		{"parallel", `X : T[64,33,24,8]; Y : T[33,64,24,8]; zip (zip (zip (zip (\a b -> a * b - b)))) X (flip 0 Y)`, "in rows of 192"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) { checkNest(t, tc.src, dt, 5, tc.want, "") })
		}
	}
}

// TestRowsStaged: a nest of zips that reads an operand across its
// contiguous axis (an NCHW residual add of an NHWC product) transposes
// that operand into scratch, whole or, when the nest is larger than
// stagedMax, a slice at each index of the first axis, and equals the
// interpreter exactly, f32 and f64, sequential and parallel: the operand
// first or second, of another element type than the result, two such
// operands, three axes (a batch of one, its axis dropped), slices over
// the goroutines, a destination that is itself transposed (the rows path
// instead), and slices past stagedMax (the rows path).
func TestRowsStaged(t *testing.T) {
	cases := []struct{ name, src, want, lack string }{
		{"nchw-residual", `X : T[3,5,6,7]; Y : T[3,6,7,5]; zip (zip (zip (zip (+)))) (flip 2 (flip 1 3 Y)) X`,
			"operand 1 transposed into scratch", "in rows of"},
		{"second-operand", `X : T[4,9,5,6]; Y : T[4,5,6,9]; zip (zip (zip (zip (\a b -> a * b - a)))) X (flip 2 (flip 1 3 Y))`,
			"operand 2 transposed into scratch", "in rows of"},
		{"other-type", `X : f64[3,5,6,7]; Y : f32[3,6,7,5]; zip (zip (zip (zip (\a b -> f64 a + b)))) (flip 2 (flip 1 3 Y)) X`,
			"operand 1 transposed into scratch", "in rows of"},
		{"two-operands", `X : T[2,6,7,5]; Y : T[2,6,7,5]; Z : T[2,5,6,7]; nzip (nzip (nzip (nzip (\a b c -> a - b * c)))) (flip 2 (flip 1 3 X)) (flip 2 (flip 1 3 Y)) Z`,
			"operands 1 and 2 transposed into scratch", "in rows of"},
		{"three-axes", `X : T[5,6,7]; Y : T[6,7,5]; zip (zip (zip (+))) X (flip 1 (flip 0 2 Y))`,
			"operand 2 transposed into scratch", "in rows of"},
		{"slices", `X : T[8,32,32,36]; Y : T[8,32,36,32]; zip (zip (zip (zip (+)))) X (flip 2 (flip 1 3 Y))`,
			"operand 2's slices transposed into scratch", "in rows of"},
		{"destination-transposed", `X : T[3,6,7,5]; flip 2 (flip 1 3 (zip (zip (zip (zip (+)))) X X))`, "", "transposed into scratch"},
		{"slices-too-large", `X : T[2,64,64,80]; Y : T[2,64,80,64]; zip (zip (zip (zip (+)))) X (flip 2 (flip 1 3 Y))`,
			"in rows of", "transposed into scratch"},
	}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, tc := range cases {
			t.Run(tc.name+"-"+dt.String(), func(t *testing.T) { checkNest(t, tc.src, dt, 11, tc.want, tc.lack) })
		}
	}
}
