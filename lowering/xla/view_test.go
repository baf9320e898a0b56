package xla_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestNewViewTypes runs the views of lowertest.ViewCases, which graph
// does not define, on PJRT in every mode and compares with graph.Eval.
func TestNewViewTypes(t *testing.T) {
	c := pjrttest.Client(t)
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		cases, err := lowertest.ViewCases(dt)
		if err != nil {
			t.Fatal(err)
		}
		for ci, vc := range cases {
			inputs, err := lowertest.Inputs(vc.Term, uint64(ci), 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			want, err := graph.Eval(vc.Term, inputs)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range modes {
				t.Run(fmt.Sprintf("%s/%v/%s", vc.Name, dt, m.name), func(t *testing.T) {
					g, err := m.partition(vc.Term)
					if err != nil {
						t.Fatal(err)
					}
					x, err := xla.New(c, m.opt).CompileGraph(g)
					if err != nil {
						t.Fatal(err)
					}
					defer x.Close()
					got, err := x.Run(inputs)
					if err != nil {
						t.Fatal(err)
					}
					report(t, want, got)
				})
			}
		}
	}
}
