package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomLegalView returns a subdiv, flatten or flip that is legal on l, or false
// when the drawn kind is not (a flatten of non-contiguous axes).
func randomLegalView(r *rand.Rand, l Layout) (View, bool) {
	d := r.IntN(len(l))
	switch r.IntN(3) {
	case 0:
		return SubdivView{Axis: d, Block: divisor(r, l[d].Extent)}, true
	case 1:
		if d+1 >= len(l) || l[d].Stride != l[d+1].Extent*l[d+1].Stride {
			return nil, false
		}
		return FlattenView{Axis: d}, true
	}
	return FlipView{A: d, B: r.IntN(len(l))}, true
}

// TestViewInverse checks the law every invertible view keeps: the inverse
// applied to the view's layout gives the original layout back, strides
// included.
func TestViewInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	tried := 0
	for range 2000 {
		l := randomLayout(r)
		v, ok := randomLegalView(r, l)
		if !ok {
			continue
		}
		tried++
		m, err := v.Apply(l)
		require.NoError(t, err, "%s on %v", ViewString(v), l)
		inv, ok := v.Inverse(l)
		require.True(t, ok, "%s has an inverse", ViewString(v))
		back, err := inv.Apply(m)
		require.NoError(t, err, "%s on %v", ViewString(inv), m)
		assert.Equal(t, l, back, "%s then %s", ViewString(v), ViewString(inv))
	}
	assert.Greater(t, tried, 1000)
}

// TestViewLift checks that the lifted view of an array applies the view to
// each element: Lift applied to (n,S) ++ l is (n,S) ++ Apply(l).
func TestViewLift(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2))
	for range 1000 {
		l := randomLayout(r)
		v, ok := randomLegalView(r, l)
		if !ok {
			continue
		}
		outer := Axis{Extent: 1 + r.IntN(4), Stride: l.Span() + r.IntN(3)}
		want, err := v.Apply(l)
		require.NoError(t, err)
		got, err := v.Lift().Apply(append(Layout{outer}, l...))
		require.NoError(t, err, "%s", ViewString(v.Lift()))
		assert.Equal(t, append(Layout{outer}, want...), got, "%s lifted", ViewString(v))
	}
}

// TestViewNodes checks that the three view node kinds report their view and
// operand, and that NewView gives back the same kind of node.
func TestViewNodes(t *testing.T) {
	A := input("A", Float64, 4, 6)
	for _, tc := range []struct {
		n    ViewNode
		view View
		text string
	}{
		{must(NewSubdiv(1, 3, A)), SubdivView{Axis: 1, Block: 3}, "subdiv 1 3"},
		{must(NewFlatten(0, A)), FlattenView{Axis: 0}, "flatten 0"},
		{must(NewFlip(0, 1, A)), FlipView{A: 0, B: 1}, "flip 0"},
		{must(NewFlip(2, 0, A)), FlipView{A: 2, B: 0}, "flip 2 0"},
	} {
		assert.Equal(t, tc.view, tc.n.View())
		assert.Same(t, A, tc.n.Operand())
		assert.Equal(t, tc.text, ViewString(tc.n.View()))
		again, err := NewView(tc.n.View(), A)
		require.NoError(t, err)
		assert.IsType(t, tc.n, again)
		assert.Equal(t, tc.n.View(), again.View())
	}
	_, err := NewView(SubdivView{Axis: 0, Block: 0}, A)
	assert.EqualError(t, err, "subdiv: block 0 of axis 0 is less than 1")
	_, err = NewView(nil, A)
	assert.EqualError(t, err, "view: nil node")
}
