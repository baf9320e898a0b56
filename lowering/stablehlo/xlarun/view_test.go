package xlarun_test

import (
	"fmt"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering/stablehlo/stablehlotest"
	"github.com/hofuse/hofuse/lowering/stablehlo/xlarun"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestNewViewTypes runs the views of stablehlotest.ViewCases, which graph
// does not define, on PJRT in every mode and compares with graph.Eval.
func TestNewViewTypes(t *testing.T) {
	c := pjrttest.Client(t)
	for _, dt := range stablehlotest.DTypes {
		cases, err := stablehlotest.ViewCases(dt)
		if err != nil {
			t.Fatal(err)
		}
		for ci, vc := range cases {
			inputs, err := stablehlotest.Inputs(graphtest.Rand(uint64(ci)), vc.Term)
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
					x, err := xlarun.New(c, m.opt).CompileGraph(g)
					if err != nil {
						t.Fatal(err)
					}
					defer x.Close()
					got, err := x.Run(inputs)
					if err != nil {
						t.Fatal(err)
					}
					report(t, dt, want, got)
				})
			}
		}
	}
}
