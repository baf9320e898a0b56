package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomLayout returns a layout of rank 1..4 with small extents, either
// row-major or with its axes shuffled (a transposed view), sometimes with a
// gap between axes (a sliced view).
func randomLayout(r *rand.Rand) Layout {
	rank := 1 + r.IntN(4)
	ext := make([]int, rank)
	for i := range ext {
		ext[i] = 1 + r.IntN(6)
	}
	l := RowMajor(ext...)
	if r.IntN(3) == 0 { // a view into a larger buffer: scale every stride
		k := 2 + r.IntN(2)
		for i := range l {
			l[i].Stride *= k
		}
	}
	r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	return l
}

// divisor returns a random divisor of n.
func divisor(r *rand.Rand, n int) int {
	var ds []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds[r.IntN(len(ds))]
}

// indices calls f with every index of the extents, row-major.
func indices(ext []int, f func(idx []int)) {
	idx := make([]int, len(ext))
	var rec func(d int)
	rec = func(d int) {
		if d == len(ext) {
			f(idx)
			return
		}
		for i := 0; i < ext[d]; i++ {
			idx[d] = i
			rec(d + 1)
		}
	}
	rec(0)
}

// randomView returns an array of the layout over a buffer of distinct values.
func randomView(r *rand.Rand, l Layout) *Array {
	a, err := NewArray(Float64, l)
	if err != nil {
		panic(err)
	}
	for i := range a.f64 {
		a.f64[i] = float64(i) + r.Float64()/2
	}
	return a
}

const layoutCases = 500

func TestLayoutFlattenUndoesSubdiv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for c := range layoutCases {
		l := randomLayout(r)
		d := r.IntN(len(l))
		b := divisor(r, l[d].Extent)
		s, err := l.Subdiv(d, b)
		require.NoError(t, err, "case %d: subdiv %d %d of %v", c, d, b, l)
		require.Len(t, s, len(l)+1)
		assert.Equal(t, Axis{l[d].Extent / b, b * l[d].Stride}, s[d], "case %d: outer axis", c)
		assert.Equal(t, Axis{b, l[d].Stride}, s[d+1], "case %d: inner axis", c)
		f, err := s.Flatten(d)
		require.NoError(t, err, "case %d: flatten %d of %v", c, d, s)
		assert.True(t, f.Equal(l), "case %d: flatten %d (subdiv %d %d %v) = %v", c, d, d, b, l, f)
	}
}

func TestLayoutFlipIsInvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for c := range layoutCases {
		l := randomLayout(r)
		d1, d2 := r.IntN(len(l)), r.IntN(len(l))
		f, err := l.Flip(d1, d2)
		require.NoError(t, err)
		g, err := f.Flip(d1, d2)
		require.NoError(t, err)
		assert.True(t, g.Equal(l), "case %d: flip twice of %v gave %v", c, l, g)
		h, err := l.Flip(d2, d1)
		require.NoError(t, err)
		assert.True(t, h.Equal(f), "case %d: flip is not symmetric on %v", c, l)
	}
}

// TestViewAccess checks element access through subdivided, flattened and
// flipped views against access into the original array.
func TestViewAccess(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for c := range layoutCases {
		l := randomLayout(r)
		a := randomView(r, l)
		d := r.IntN(len(l))
		b := divisor(r, l[d].Extent)

		s, err := a.Subdiv(d, b)
		require.NoError(t, err)
		indices(s.Extents(), func(idx []int) {
			// (i_d, j) in the subdivided view is i_d*b + j in the original.
			orig := append(append(append([]int{}, idx[:d]...), idx[d]*b+idx[d+1]), idx[d+2:]...)
			require.Equal(t, a.At(orig...), s.At(idx...), "case %d: subdiv %d %d of %v at %v", c, d, b, l, idx)
		})

		d1, d2 := r.IntN(len(l)), r.IntN(len(l))
		f, err := a.Flip(d1, d2)
		require.NoError(t, err)
		indices(f.Extents(), func(idx []int) {
			orig := append([]int{}, idx...)
			orig[d1], orig[d2] = idx[d2], idx[d1]
			require.Equal(t, a.At(orig...), f.At(idx...), "case %d: flip %d %d of %v at %v", c, d1, d2, l, idx)
		})

		// Views share the buffer: a write through one is seen by the other.
		idx := make([]int, s.Rank())
		s.Set(-7, idx...)
		assert.Equal(t, -7.0, a.At(make([]int, a.Rank())...), "case %d: subdiv copied", c)
	}
}

func TestLayoutErrors(t *testing.T) {
	l := RowMajor(4, 6) // <(4,6),(6,1)>
	tests := []struct {
		name string
		op   func() (Layout, error)
		want string
	}{
		{"block does not divide", func() (Layout, error) { return l.Subdiv(1, 4) },
			"subdiv: block 4 does not divide extent 6 of axis 1 in layout <(4,6),(6,1)>"},
		{"zero block", func() (Layout, error) { return l.Subdiv(0, 0) },
			"subdiv: block 0 does not divide extent 4 of axis 0 in layout <(4,6),(6,1)>"},
		{"subdiv axis out of range", func() (Layout, error) { return l.Subdiv(2, 2) },
			"subdiv: axis 2 out of range for rank 2 in layout <(4,6),(6,1)>"},
		{"negative axis", func() (Layout, error) { return l.Subdiv(-1, 2) },
			"subdiv: axis -1 out of range for rank 2 in layout <(4,6),(6,1)>"},
		{"flatten innermost", func() (Layout, error) { return l.Flatten(1) },
			"flatten: axis 1 has no inner axis to merge with (rank 2) in layout <(4,6),(6,1)>"},
		{"flatten transposed", func() (Layout, error) { return Layout{{6, 1}, {4, 6}}.Flatten(0) },
			"flatten: axes 0 and 1 are not contiguous: stride 1 of axis 0 is not extent 4 times stride 6 of axis 1 in layout <(6,1),(4,6)>"},
		{"flatten sliced", func() (Layout, error) { return Layout{{4, 12}, {6, 1}}.Flatten(0) },
			"flatten: axes 0 and 1 are not contiguous: stride 12 of axis 0 is not extent 6 times stride 1 of axis 1 in layout <(4,12),(6,1)>"},
		{"flip out of range", func() (Layout, error) { return l.Flip(0, 3) },
			"flip: axis 3 out of range for rank 2 in layout <(4,6),(6,1)>"},
		{"zero extent", func() (Layout, error) { return Layout{{0, 1}}, Layout{{0, 1}}.Validate() },
			"layout: extent 0 of axis 0 is less than 1 in layout <(0,1)>"},
		{"negative stride", func() (Layout, error) { return nil, Layout{{2, 1}, {3, -1}}.Validate() },
			"layout: stride -1 of axis 1 is negative in layout <(2,1),(3,-1)>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.op()
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var le *LayoutError
			assert.ErrorAs(t, err, &le)
		})
	}
}

// TestLayoutRejectsEveryInvalidCase enumerates, for random layouts, every
// axis and block and checks that exactly the legal operations succeed.
func TestLayoutRejectsEveryInvalidCase(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		l := randomLayout(r)
		for d := -1; d <= len(l); d++ {
			for b := 0; b <= 7; b++ {
				_, err := l.Subdiv(d, b)
				legal := d >= 0 && d < len(l) && b >= 1 && l[d].Extent%b == 0
				assert.Equal(t, legal, err == nil, "subdiv %d %d of %v: %v", d, b, l, err)
			}
			_, err := l.Flatten(d)
			legal := d >= 0 && d+1 < len(l) && l[d].Stride == l[d+1].Extent*l[d+1].Stride
			assert.Equal(t, legal, err == nil, "flatten %d of %v: %v", d, l, err)
		}
	}
}

func TestRowMajor(t *testing.T) {
	assert.Equal(t, Layout{{2, 12}, {3, 4}, {4, 1}}, RowMajor(2, 3, 4))
	assert.Equal(t, 24, RowMajor(2, 3, 4).Size())
	assert.Equal(t, 24, RowMajor(2, 3, 4).Span())
	assert.True(t, RowMajor(5).IsRowMajor())
	assert.False(t, Layout{{3, 1}, {2, 3}}.IsRowMajor())
	assert.Equal(t, "<(2,3),(3,1)>", RowMajor(2, 3).String())
}

func TestArrayConstructors(t *testing.T) {
	_, err := FromFloat32(make([]float32, 5), 2, 3)
	assert.EqualError(t, err, "array: 5 values for extents [2 3], which need 6")
	_, err = FromFloat64(nil, 0)
	assert.EqualError(t, err, "layout: extent 0 of axis 0 is less than 1 in layout <(0,1)>")
	a, err := FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	_, err = a.Index(2)
	assert.EqualError(t, err, "index: 2 out of range for extent 2 of axis 0")
	assert.PanicsWithError(t, "array: index 3 out of range for extent 3 of axis 1", func() { a.At(0, 3) })
	f, err := a.Flip(0, 1)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 4, 2, 5, 3, 6}, f.Values())
	assert.Equal(t, []float64{1, 4, 2, 5, 3, 6}, f.Copy().Float64s())
}
