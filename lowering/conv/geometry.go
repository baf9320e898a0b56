package conv

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// AxisKind is what an axis of a window view chain ranges over.
type AxisKind int

// The axis kinds of a window view chain.
const (
	Channel  AxisKind = iota // an axis of the base array not windowed (the channels)
	Position                 // the window positions of a base axis
	Element                  // the elements of the windows of a base axis
)

// Axis is an axis of a window view chain.
type Axis struct {
	Kind AxisKind
	Base int // the base array's axis
}

// Geometry is what WindowGeometry reads off a view chain.
type Geometry struct {
	Positions []Axis                   // the leading axes: window positions
	Inner     []Axis                   // the rest: window elements and the channels
	Channel   int                      // the base axis not windowed, or -1
	Windows   map[int]graph.WindowView // the window of each windowed base axis
	Pads      map[int][2]int           // the padding (low, high) of each padded base axis
}

// Extent is the extent of an inner axis a over a base array of extents x.
func (g *Geometry) Extent(a Axis, x []int) int {
	if a.Kind == Element {
		return g.Windows[a.Base].Width
	}
	return x[a.Base]
}

// WindowGeometry follows views (innermost first) over a base array of
// the given rank: pads of the given fill without interior padding, then
// at most one window per axis, and flips; every axis windowed but at most
// one. The error, wrapping ErrNotConv, says why another chain is not
// read, or that the positions do not lead.
func WindowGeometry(views []graph.View, rank int, fill graph.Fill) (Geometry, error) {
	g := Geometry{Channel: -1, Windows: map[int]graph.WindowView{}, Pads: map[int][2]int{}}
	axes := make([]Axis, rank)
	for i := range axes {
		axes[i] = Axis{Kind: Channel, Base: i}
	}
	for _, v := range views {
		switch v := v.(type) {
		case graph.PadView:
			if v.Axis >= len(axes) || axes[v.Axis].Kind != Channel {
				return g, notConv("a pad of axis %d, not an axis of the base array", v.Axis)
			}
			if v.Fill != fill || v.Interior != 0 {
				return g, notConv("a pad of axis %d with another fill or interior padding", v.Axis)
			}
			a := axes[v.Axis].Base
			if _, done := g.Windows[a]; done {
				return g, notConv("a pad of axis %d after its window", v.Axis)
			}
			p := g.Pads[a]
			g.Pads[a] = [2]int{p[0] + v.Lo, p[1] + v.Hi}
		case graph.WindowView:
			if v.Axis >= len(axes) || axes[v.Axis].Kind != Channel {
				return g, notConv("a window of axis %d, not an axis of the base array", v.Axis)
			}
			a := axes[v.Axis].Base
			g.Windows[a] = v
			axes = slices.Insert(axes, v.Axis+1, Axis{Kind: Element, Base: a})
			axes[v.Axis] = Axis{Kind: Position, Base: a}
		case graph.FlipView:
			if v.A < 0 || v.B < 0 || v.A >= len(axes) || v.B >= len(axes) {
				return g, notConv("a flip of axes %d and %d out of range", v.A, v.B)
			}
			axes[v.A], axes[v.B] = axes[v.B], axes[v.A]
		default:
			return g, notConv("a %T in the window chain", v)
		}
	}
	npos := len(g.Windows)
	if npos == 0 || npos < rank-1 {
		return g, notConv("%d of the %d axes windowed", npos, rank)
	}
	for i, a := range axes {
		if (i < npos) != (a.Kind == Position) {
			return g, notConv("the window positions do not lead")
		}
		if a.Kind == Channel {
			g.Channel = a.Base
		}
	}
	g.Positions, g.Inner = axes[:npos], axes[npos:]
	return g, nil
}
