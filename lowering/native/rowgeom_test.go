package native

import (
	"math/rand/v2"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestNewRowGeom walks the rows of random outer layouts (merged, and with
// axes of one element, by newRowGeom) with a cursor, in runs, and checks
// every row's offset against the unmerged layout's.
func TestNewRowGeom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		rank := 1 + rng.IntN(maxRowAxes)
		ext := make([]int, rank)
		for a := range ext {
			ext[a] = 1 + rng.IntN(4)
		}
		l := graph.RowMajor(ext...)
		for a := range l {
			switch rng.IntN(4) {
			case 0: // a gap after the axis's elements
				l[a].Stride += rng.IntN(3)
				for b := a - 1; b >= 0; b-- {
					l[b].Stride = l[b+1].Stride * l[b+1].Extent
				}
			case 1: // broadcast
				l[a].Stride = 0
			}
		}
		g := newRowGeom(3, l)
		rows := l.Size()
		cur := g.at(0)
		for r := 0; r < rows; {
			k, st := cur.run(1 + rng.IntN(4))
			for j := range k {
				want := 0
				for a, i := len(l)-1, r+j; a >= 0; a-- {
					want += (i % l[a].Extent) * l[a].Stride
					i /= l[a].Extent
				}
				if got := cur.off + j*st; got != want {
					t.Fatalf("trial %d: layout %v merged to %v: row %d at %d, want %d", trial, l, g.outer, r+j, got, want)
				}
			}
			if at := g.at(r); at.off != cur.off {
				t.Fatalf("trial %d: layout %v: at(%d) is %d, the walk's %d", trial, l, r, at.off, cur.off)
			}
			cur.skip(k)
			r += k
		}
	}
}
