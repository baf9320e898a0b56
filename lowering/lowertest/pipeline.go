package lowertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering"
)

// PipelineOptions set the size of the pipeline law test.
type PipelineOptions struct {
	// Seeds is how many seeds each generator of graphtest is run for;
	// even seeds make f64 programs, odd ones f32, and every third seed
	// turns on special-value inputs and mixed-rank tuple arguments. 0
	// means 30.
	Seeds int
	// Floor is the least number of programs that must compare equal; 0
	// means FloorShare of the programs drawn (each mode counts once).
	Floor int
	// Modes are the cuts each program is compiled in; nil means fused by
	// fusion.Fuse only.
	Modes []Mode
	// ShrinkTries bounds how many smaller programs a failure is shrunk
	// through (each one compiled); 0 means 200.
	ShrinkTries int
}

// PipelineConfig returns the generator configuration of the pipeline law
// test for seed.
func PipelineConfig(seed uint64) graphtest.Config {
	cfg := graphtest.Config{DType: graph.Float64}
	if seed%2 == 1 {
		cfg.DType = graph.Float32
	}
	if seed%3 == 2 {
		cfg.Special, cfg.MixedTuples = 0.05, 0.3
	}
	return cfg
}

// RunPipeline is the pipeline law test: random programs of every
// graphtest generator, fused by fusion.Fuse, compiled with b and run,
// must equal graph.Eval within graph.ToleranceOf the result. A failing
// program is shrunk (graphtest.Shrink) and reported with the small
// program that still fails at the same stage. It fails when fewer
// programs than the floor compared equal.
func RunPipeline(t *testing.T, b lowering.Backend, opt PipelineOptions) {
	seeds := opt.Seeds
	if seeds == 0 {
		seeds = 30
	}
	tries := opt.ShrinkTries
	if tries == 0 {
		tries = 200
	}
	gens := graphtest.Generators()
	modes := opt.Modes
	if modes == nil {
		modes = []Mode{{"fused", Fused}}
	}
	c := &counter{}
	for _, m := range modes {
		for _, gen := range gens {
			for seed := range uint64(seeds) {
				cfg := PipelineConfig(seed)
				r := graphtest.Rand(seed)
				term, ins := gen.Gen(r, cfg)
				inputs := cfg.Inputs(r, ins)
				name := fmt.Sprintf("pipeline/%s/%v/%d", gen.Name, cfg.DType, seed)
				c.planned++
				err := compare(b, m, term, []inputSet{{Dense, inputs}})
				switch {
				case err == nil:
					c.ran++
				default:
					small := graphtest.ShrinkLimit(graphtest.Case{Term: term, Inputs: inputs}, func(s graphtest.Case) bool {
						e := compare(b, m, s.Term, []inputSet{{Dense, s.Inputs}})
						return e != nil && failureKind(e) == failureKind(err)
					}, tries)
					t.Errorf("%s on %s, %s: %v\nshrunk to:\n%v\nwhich gives: %v", name, b.Name(), m.Name, err, small, compare(b, m, small.Term, []inputSet{{Dense, small.Inputs}}))
				}
			}
		}
	}
	floor := opt.Floor
	if floor == 0 {
		floor = int(FloorShare * float64(c.planned))
	}
	c.report(t, floor)
}

func firstLine(err error) string {
	s := err.Error()
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// failureKind is the stage a failure of compare happened at (cut,
// compile, eval, a run's error or a wrong value), so that a shrink stays
// on one failure.
func failureKind(err error) string {
	s := err.Error()
	for _, k := range []string{"cut:", "compile:", "eval:"} {
		if strings.Contains(firstLine(err), k) {
			return k
		}
	}
	if strings.Contains(s, "want ") {
		return "value"
	}
	return "run"
}
