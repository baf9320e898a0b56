package fusion

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// lawCases is how many random programs each law test draws. Every case is
// seeded by its index, so a failure names the seed that reproduces it.
const lawCases = 300

// lawSpecialCases is how many more programs each law test draws with the
// generator's input options on (graphtest.Config.Special and
// MixedTuples), seeded lawCases, lawCases+1, ...
const lawSpecialCases = 100

// exact is the tolerance of a rule that keeps the order of every scalar
// operation: the interpreter must give bit-identical results.
const exact = 0

// regrouped is the tolerance of a rule that regroups or reorders a
// floating-point reduction: graph.Tolerance, 1e-10 for f64 and 1e-4 for
// f32 in |want - got| / (1 + |want|). Reassociating sums is the only
// difference these rules may make.
func regrouped(dt graph.DType) float64 { return graph.Tolerance(dt) }

// lawStats counts what a law test saw.
type lawStats struct {
	applied int
	refused map[string]int // reason -> count
}

// checkLaw draws programs from gen and, at every node where rule applies,
// rewrites that node alone and checks that the interpreter gives the same
// value before and after. prepare, when set, turns each drawn program into
// the one to test (for rules whose redexes other rules create).
func checkLaw(t *testing.T, rule Rule, gen graphtest.Generator, prepare func(graph.Node) (graph.Node, error), tol func(graph.DType) float64) lawStats {
	t.Helper()
	st := lawStats{refused: map[string]int{}}
	for seed := range uint64(lawCases + lawSpecialCases) {
		st.add(lawCase(t, rule, gen, prepare, tol, seed))
	}
	return st
}

func (s *lawStats) add(o lawStats) {
	s.applied += o.applied
	if s.refused == nil {
		s.refused = map[string]int{}
	}
	for k, v := range o.refused {
		s.refused[k] += v
	}
}

// lawCase is one seed of checkLaw; fuzz targets call it with fuzzed seeds.
func lawCase(t *testing.T, rule Rule, gen graphtest.Generator, prepare func(graph.Node) (graph.Node, error), tol func(graph.DType) float64, seed uint64) lawStats {
	t.Helper()
	st := lawStats{refused: map[string]int{}}
	dt := graph.Float64
	if seed%2 == 1 {
		dt = graph.Float32
	}
	r := graphtest.Rand(seed)
	cfg := graphtest.Config{DType: dt}
	if seed >= lawCases {
		// The extra seeds (and most fuzzed ones): NaN, ±Inf and -0 among
		// the inputs, and tuple arguments of mixed rank.
		cfg.Special, cfg.MixedTuples = 0.05, 0.3
	}
	term, ins := gen(r, cfg)
	if prepare != nil {
		var err error
		if term, err = prepare(term); err != nil {
			t.Fatalf("seed %d: preparing %s: %v", seed, graph.Print(term), err)
		}
	}
	in := cfg.Inputs(rand.New(rand.NewPCG(seed, 99)), ins)
	want, err := graph.Eval(term, usedInputs(term, in))
	require.NoError(t, err, "seed %d", seed)
	c, err := newContext(term)
	require.NoError(t, err, "seed %d", seed)
	for n := range graph.All(term) {
		out, err := rule.Rewrite(c, n)
		var ref *Refusal
		switch {
		case errors.Is(err, ErrNoMatch):
			continue
		case errors.As(err, &ref):
			st.refused[ref.Reason]++
			continue
		case err != nil:
			t.Fatalf("seed %d: %s at %s: %v", seed, rule.Name(), graph.Print(n), err)
		}
		st.applied++
		after, err := replace(term, map[graph.Node]graph.Node{n: out})
		require.NoError(t, err)
		got, err := graph.Eval(after, usedInputs(after, in))
		if err != nil {
			t.Fatalf("seed %d: %s made an ill-typed term\nbefore: %s\nafter:  %s\n%v", seed, rule.Name(), graph.Print(term), graph.Print(after), err)
		}
		if d := graph.Diff(want, got, tol(dt)); d != nil {
			t.Fatalf("seed %d: %s changed the value\nbefore: %s\nafter:  %s\n%v", seed, rule.Name(), graph.Print(term), graph.Print(after), d)
		}
	}
	return st
}

// usedInputs keeps the bindings of the inputs term reads: a rewrite may
// drop dead code, and Eval rejects bindings of inputs a term does not have.
func usedInputs(term graph.Node, in map[string]graph.Value) map[string]graph.Value {
	info, err := graph.Check(term)
	if err != nil {
		return in // Eval reports the type error
	}
	out := map[string]graph.Value{}
	for _, i := range info.Inputs {
		out[i.Name] = in[i.Name]
	}
	return out
}

// requireApplied fails unless the rule applied in at least min cases, so
// that a law test cannot pass by never matching.
func requireApplied(t *testing.T, st lawStats, min int) {
	t.Helper()
	require.GreaterOrEqual(t, st.applied, min, "the rule applied %d times; refusals: %v", st.applied, st.refused)
}

// checkRefusal applies rule to n, which must match but be refused with a
// reason containing want.
func checkRefusal(t *testing.T, rule Rule, n graph.Node, want string) {
	t.Helper()
	c, err := newContext(n)
	require.NoError(t, err)
	var last error
	for m := range graph.All(n) {
		_, err := rule.Rewrite(c, m)
		var ref *Refusal
		if errors.As(err, &ref) {
			require.Contains(t, ref.Reason, want, "refusal of %s", graph.Print(m))
			require.Equal(t, rule.Name(), ref.Rule)
			return
		}
		if err != nil && !errors.Is(err, ErrNoMatch) {
			last = err
		}
	}
	t.Fatalf("%s did not refuse anything in %s (last error %v)", rule.Name(), graph.Print(n), last)
}

// parse parses a program for refusal tests.
func parse(t *testing.T, src string) graph.Node {
	t.Helper()
	p, err := graph.Parse(src)
	require.NoError(t, err)
	_, err = graph.Check(p.Body)
	require.NoError(t, err)
	return p.Body
}

// applyOnce rewrites the first node of term, children before parents,
// where rule applies: it makes the redexes of other rules (an inverse, a
// hoist) from programs the generators draw.
func applyOnce(rule Rule) func(graph.Node) (graph.Node, error) {
	return func(term graph.Node) (graph.Node, error) {
		c, err := newContext(term)
		if err != nil {
			return nil, err
		}
		for n := range graph.All(term) {
			out, err := rule.Rewrite(c, n)
			if err != nil {
				continue
			}
			return replace(term, map[graph.Node]graph.Node{n: out})
		}
		return term, nil
	}
}

// fuzzLaw is the body of the rules' fuzz targets: one law case per fuzzed
// seed.
func fuzzLaw(f *testing.F, rule Rule, gen graphtest.Generator, prepare func(graph.Node) (graph.Node, error), tol func(graph.DType) float64) {
	for _, s := range []uint64{0, 1, 2, 3, 17, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		lawCase(t, rule, gen, prepare, tol, seed)
	})
}

func exactTol(graph.DType) float64 { return exact }
