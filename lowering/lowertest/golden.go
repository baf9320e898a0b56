package lowertest

import (
	"fmt"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// Golden is one golden StableHLO file of package stablehlo: a case, an
// element type and a mode.
type Golden struct {
	File    string // file name under testdata: <case>[_unfused]_<dtype>.mlir
	Case    Case
	DType   graph.DType
	Unfused bool // the module of fusion.Unfused rather than of fusion.Whole
}

// Goldens lists the golden files: the cases marked Golden or
// GoldenUnfused, in each of their element types.
func Goldens() []Golden {
	var out []Golden
	for _, c := range Cases() {
		for _, dt := range c.DTypes {
			if c.Golden {
				out = append(out, Golden{File: fmt.Sprintf("%s_%v.mlir", c.Name, dt), Case: c, DType: dt})
			}
			if c.GoldenUnfused {
				out = append(out, Golden{File: fmt.Sprintf("%s_unfused_%v.mlir", c.Name, dt), Case: c, DType: dt, Unfused: true})
			}
		}
	}
	return out
}

// Graph returns the golden's term and kernel graph.
func (g Golden) Graph() (graph.Node, *fusion.Graph, error) {
	term, err := g.Case.Term(g.DType)
	if err != nil {
		return nil, nil, err
	}
	part := fusion.Whole
	if g.Unfused {
		part = fusion.Unfused
	}
	kg, err := part(term)
	return term, kg, err
}
