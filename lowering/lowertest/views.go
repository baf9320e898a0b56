package lowertest

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// The views below are not graph's: they exist to show that the back ends
// handle any graph.View through its layout, with no case of their own.

// MoveLastView moves axis Axis to the end, or with Back the last axis to
// Axis: a permutation no single flip makes. Each direction inverts the
// other. It lowers to a transpose.
type MoveLastView struct {
	Axis int
	Back bool
}

// Name implements graph.View.
func (MoveLastView) Name() string { return "movelast" }

// Params implements graph.View.
func (v MoveLastView) Params() []int {
	if v.Back {
		return []int{v.Axis, 1}
	}
	return []int{v.Axis, 0}
}

// Apply implements graph.View.
func (v MoveLastView) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) {
		return nil, &graph.LayoutError{Op: "movelast", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("axis %d out of range for rank %d", v.Axis, len(l))}
	}
	out := append(graph.Layout(nil), l...)
	if v.Back {
		last := out[len(out)-1]
		copy(out[v.Axis+1:], out[v.Axis:len(out)-1])
		out[v.Axis] = last
	} else {
		a := out[v.Axis]
		copy(out[v.Axis:], out[v.Axis+1:])
		out[len(out)-1] = a
	}
	return out, nil
}

// Inverse implements graph.View.
func (v MoveLastView) Inverse(graph.Layout) (graph.View, bool) {
	return MoveLastView{Axis: v.Axis, Back: !v.Back}, true
}

// Lift implements graph.View.
func (v MoveLastView) Lift() graph.View { return MoveLastView{Axis: v.Axis + 1, Back: v.Back} }

// BlockMajorView splits axis Axis (e, s) into blocks of Block and puts the
// position within a block outside: (Block, s), (e/Block, Block*s), the
// flip of a subdiv in one view. It lowers to a reshape and a transpose.
type BlockMajorView struct{ Axis, Block int }

// Name implements graph.View.
func (BlockMajorView) Name() string { return "blockmajor" }

// Params implements graph.View.
func (v BlockMajorView) Params() []int { return []int{v.Axis, v.Block} }

// Apply implements graph.View.
func (v BlockMajorView) Apply(l graph.Layout) (graph.Layout, error) {
	s, err := l.Subdiv(v.Axis, v.Block)
	if err != nil {
		return nil, err
	}
	return s.Flip(v.Axis, v.Axis+1)
}

// Inverse implements graph.View: none is needed by these tests.
func (BlockMajorView) Inverse(graph.Layout) (graph.View, bool) { return nil, false }

// Lift implements graph.View.
func (v BlockMajorView) Lift() graph.View { return BlockMajorView{Axis: v.Axis + 1, Block: v.Block} }

// WindowView sees axis Axis (e, s) as e-Width+1 overlapping windows:
// (e-Width+1, s), (Width, s). It shows elements at several places, so it
// has no reshape-and-transpose lowering.
type WindowView struct{ Axis, Width int }

// Name implements graph.View.
func (WindowView) Name() string { return "window" }

// Params implements graph.View.
func (v WindowView) Params() []int { return []int{v.Axis, v.Width} }

// Apply implements graph.View.
func (v WindowView) Apply(l graph.Layout) (graph.Layout, error) {
	if v.Axis < 0 || v.Axis >= len(l) || v.Width < 1 || v.Width > l[v.Axis].Extent {
		return nil, &graph.LayoutError{Op: "window", Axis: v.Axis, Layout: l,
			Msg: fmt.Sprintf("width %d does not fit axis %d", v.Width, v.Axis)}
	}
	a := l[v.Axis]
	out := append(graph.Layout(nil), l[:v.Axis]...)
	out = append(out, graph.Axis{Extent: a.Extent - v.Width + 1, Stride: a.Stride}, graph.Axis{Extent: v.Width, Stride: a.Stride})
	return append(out, l[v.Axis+1:]...), nil
}

// Inverse implements graph.View: windows overlap, so there is none.
func (WindowView) Inverse(graph.Layout) (graph.View, bool) { return nil, false }

// Lift implements graph.View.
func (v WindowView) Lift() graph.View { return WindowView{Axis: v.Axis + 1, Width: v.Width} }

// ViewCase is a term built with one of the views above.
type ViewCase struct {
	Name string
	Term graph.Node
	// Ops are operations the module must contain; Lacks, ones it must
	// not.
	Ops, Lacks []string
}

// ViewCases returns terms of element type dt that apply MoveLastView and
// BlockMajorView, to inputs and to computed arrays.
func ViewCases(dt graph.DType) ([]ViewCase, error) {
	A, err := graph.NewInput("A", graph.ArrayOf(dt, 2, 3, 4), false)
	if err != nil {
		return nil, err
	}
	B, err := graph.NewInput("B", graph.ArrayOf(dt, 6, 4), false)
	if err != nil {
		return nil, err
	}
	build := func(fn string, args ...graph.Node) (graph.Node, error) {
		f, err := graph.ParseTerm(fn)
		if err != nil {
			return nil, err
		}
		return graph.NewNZip(f, args...)
	}
	doubled, err := build(`\r -> map (\c -> map (*2) c) r`, A)
	if err != nil {
		return nil, err
	}
	moved, err := graph.NewView(MoveLastView{Axis: 0}, doubled)
	if err != nil {
		return nil, err
	}
	blocks, err := graph.NewView(BlockMajorView{Axis: 0, Block: 2}, B)
	if err != nil {
		return nil, err
	}
	sums, err := build(`\p -> map (\r -> reduce (+) r) p`, blocks)
	if err != nil {
		return nil, err
	}
	back, err := graph.NewView(MoveLastView{Axis: 0, Back: true}, A)
	if err != nil {
		return nil, err
	}
	return []ViewCase{
		{Name: "movelast of a map", Term: moved,
			Ops: []string{`"stablehlo.transpose"`, `-> tensor<3x4x2x`}, Lacks: []string{`"stablehlo.reshape"`}},
		{Name: "blockmajor of an input", Term: sums,
			Ops: []string{`"stablehlo.reshape"`, `-> tensor<3x2x4x`, `"stablehlo.transpose"`, `-> tensor<2x3x4x`}},
		{Name: "movelast back of an input", Term: back,
			Ops: []string{`"stablehlo.transpose"`, `-> tensor<4x2x3x`}, Lacks: []string{`"stablehlo.reshape"`}},
	}, nil
}
