package native

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestScatterGatherMatrix checks gatherMatrix and scatterMatrix, which
// move a convolution's filters and product between scratch and their
// strided homes, against the offsets element by element: columns
// contiguous (runs copied whole), columns apart (blocks of rows, more
// rows than a block), and one column.
func TestScatterGatherMatrix(t *testing.T) {
	for _, l := range []graph.Layout{
		{{Extent: 3, Stride: 40}, {Extent: 7, Stride: 1}},
		{{Extent: 300, Stride: 1}, {Extent: 5, Stride: 311}},
		{{Extent: 4, Stride: 9}, {Extent: 2, Stride: 3}, {Extent: 3, Stride: 100}},
		{{Extent: 6, Stride: 2}, {Extent: 1, Stride: 1}},
	} {
		rows, cols := offsets(l[:len(l)-1]), offsets(l[len(l)-1:])
		base := 5
		span := base + rows[len(rows)-1] + cols[len(cols)-1] + 1
		m := make([]float64, len(rows)*len(cols))
		for i := range m {
			m[i] = float64(i + 1)
		}
		d := make([]float64, span)
		scatterMatrix(d, base, m, rows, cols)
		back := make([]float64, len(m))
		gatherMatrix(back, d, base, rows, cols)
		for i, r := range rows {
			for j, c := range cols {
				if got, want := d[base+r+c], m[i*len(cols)+j]; got != want {
					t.Fatalf("%v: scattered element (%d, %d) is %v, want %v", l, i, j, got, want)
				}
				if back[i*len(cols)+j] != m[i*len(cols)+j] {
					t.Fatalf("%v: gathered element (%d, %d) is %v, want %v", l, i, j, back[i*len(cols)+j], m[i*len(cols)+j])
				}
			}
		}
	}
}
