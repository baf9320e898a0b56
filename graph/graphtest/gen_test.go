package graphtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seeds is how many seeds each generator is tested on; even seeds make f64
// programs, odd ones f32.
const seeds = 500

var dtypes = []graph.DType{graph.Float64, graph.Float32}

// checkProgram checks what every generated term must satisfy: it checks,
// its inputs are exactly the inputs it reads, uniquely named data inputs,
// its type's element type is dt, and it evaluates on Inputs to finite
// values. It returns the value.
func checkProgram(t *testing.T, what string, n graph.Node, ins []*graph.Input, dt graph.DType, seed uint64) graph.Value {
	t.Helper()
	info, err := graph.Check(n)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, graph.Print(n))
	}
	names := map[string]bool{}
	for _, in := range ins {
		if names[in.Name] {
			t.Fatalf("%s: two inputs named %s", what, in.Name)
		}
		names[in.Name] = true
		if in.Param {
			t.Fatalf("%s: input %s is a parameter", what, in.Name)
		}
	}
	if len(ins) != len(info.Inputs) {
		t.Fatalf("%s: %d inputs returned, the term reads %d\n%s", what, len(ins), len(info.Inputs), graph.Print(n))
	}
	for _, in := range info.Inputs {
		if !slices.Contains(ins, in) {
			t.Fatalf("%s: input %s not returned", what, in.Name)
		}
	}
	if got := dtypesOf(info.TypeOf(n)); !slices.Equal(got, []graph.DType{dt}) {
		t.Fatalf("%s: type %v has element types %v, want %v\n%s", what, info.TypeOf(n), got, dt, graph.Print(n))
	}
	v, err := graph.Eval(n, Inputs(Rand(seed), ins))
	if err != nil {
		t.Fatalf("%s: eval: %v\n%s", what, err, graph.Print(n))
	}
	if err := graph.Finite(v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, graph.Print(n))
	}
	return v
}

// dtypesOf returns the distinct element types in t.
func dtypesOf(t graph.Type) []graph.DType {
	switch t := t.(type) {
	case *graph.ScalarType:
		return []graph.DType{t.DType}
	case *graph.ArrayType:
		return []graph.DType{t.DType}
	case *graph.TupleType:
		var out []graph.DType
		for _, e := range t.Elems {
			for _, d := range dtypesOf(e) {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
			}
		}
		return out
	}
	return nil
}

func TestGeneratorsMakeWellTypedFinitePrograms(t *testing.T) {
	for _, ng := range Generators() {
		t.Run(ng.Name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(seeds) {
				dt := dtypes[seed%2]
				n, ins := ng.Gen(Rand(seed), Config{DType: dt})
				checkProgram(t, fmt.Sprintf("%s %v seed %d", ng.Name, dt, seed), n, ins, dt, seed)
			}
		})
	}
}

func TestGeneratorsAreDeterministic(t *testing.T) {
	for _, ng := range Generators() {
		t.Run(ng.Name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(100) {
				n1, ins1 := ng.Gen(Rand(seed), Config{})
				n2, ins2 := ng.Gen(Rand(seed), Config{})
				require.Equal(t, graph.Print(n1), graph.Print(n2), "seed %d", seed)
				require.Equal(t, len(ins1), len(ins2))
				for i := range ins1 {
					require.Equal(t, ins1[i].Name, ins2[i].Name)
					require.True(t, graph.Identical(ins1[i].Type, ins2[i].Type))
				}
				v1, v2 := Inputs(Rand(seed), ins1), Inputs(Rand(seed), ins2)
				for name, v := range v1 {
					require.NoError(t, graph.Diff(v, v2[name], 0), "input %s, seed %d", name, seed)
				}
			}
		})
	}
}

// TestProgramVariety checks that over the seeds every kind of term
// appears, and a few shapes the rules care about in particular.
func TestProgramVariety(t *testing.T) {
	counts := map[Kind]int{}
	var union Kind
	special := map[string]int{}
	checks := map[string]func(graph.Node) bool{
		"nested map":         func(n graph.Node) bool { return nestedIn(n, isMap, isMap) },
		"map of a reduction": func(n graph.Node) bool { return nestedIn(n, isMap, isRNZ) },
		"reduce (+)":         func(n graph.Node) bool { return anyNode(n, reduceBy(graph.Add)) },
		"reduce max":         func(n graph.Node) bool { return anyNode(n, reduceBy(graph.Max)) },
		"reduce min":         func(n graph.Node) bool { return anyNode(n, reduceBy(graph.Min)) },
		"rnz (zip (+))":      func(n graph.Node) bool { return anyNode(n, reduceByZip(graph.Add)) },
		"dot product":        func(n graph.Node) bool { return anyNode(n, isDot) },
		"shared nzip or rnz": sharesTraversal,
		"flip of an input":   func(n graph.Node) bool { return anyNode(n, layoutOfInput[*graph.Flip]) },
		"subdiv of an input": func(n graph.Node) bool { return anyNode(n, layoutOfInput[*graph.Subdiv]) },
		"nzip over a tuple":  func(n graph.Node) bool { return anyNode(n, nzipOverTuple) },
		"projection": func(n graph.Node) bool {
			return anyNode(n, func(m graph.Node) bool { _, ok := m.(*graph.Proj); return ok })
		},
		"three-argument nzip": func(n graph.Node) bool {
			return anyNode(n, func(m graph.Node) bool { z, ok := m.(*graph.NZip); return ok && len(z.Args) == 3 })
		},
	}
	for seed := range uint64(seeds) {
		n, _ := Program(Rand(seed), Config{})
		k := Kinds(n)
		union |= k
		for _, each := range Each() {
			if k&each != 0 {
				counts[each]++
			}
		}
		for name, f := range checks {
			if f(n) {
				special[name]++
			}
		}
	}
	for _, each := range Each() {
		t.Logf("%-15v in %3d of %d programs", each, counts[each], seeds)
	}
	for name := range checks {
		t.Logf("%-19s in %3d of %d programs", name, special[name], seeds)
		assert.Positive(t, special[name], "no program has a %s", name)
	}
	assert.Equal(t, AllKinds, union, "missing: %v", AllKinds&^union)
}

// TestDisableLeavesKindsOut checks every knob: a disabled kind never
// appears in Program's output, and the programs stay well typed.
func TestDisableLeavesKindsOut(t *testing.T) {
	for _, k := range Each() {
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(60) {
				n, ins := Program(Rand(seed), Config{Disable: k})
				checkProgram(t, fmt.Sprintf("seed %d", seed), n, ins, graph.Float64, seed)
				if got := Kinds(n); got&k != 0 {
					t.Fatalf("seed %d: %v disabled, but found\n%s", seed, k, graph.Print(n))
				}
			}
		})
	}
}

// TestConfigs runs every generator under random configurations.
func TestConfigs(t *testing.T) {
	r := Rand(99)
	for i := range 400 {
		cfg := Config{
			DType:     dtypes[r.IntN(2)],
			MaxDepth:  1 + r.IntN(4),
			MaxExtent: 1 + r.IntN(12),
			MaxRank:   1 + r.IntN(3),
			MaxArgs:   1 + r.IntN(4),
			MaxWork:   16 << r.IntN(7),
			Disable:   Kind(r.Uint32()) & AllKinds & Kind(r.Uint32()),
		}
		ng := Generators()[i%len(Generators())]
		seed := uint64(i)
		n, ins := ng.Gen(Rand(seed), cfg)
		checkProgram(t, fmt.Sprintf("%s seed %d %+v", ng.Name, seed, cfg), n, ins, cfg.DType, seed)
	}
}

func TestProgramOfType(t *testing.T) {
	f32, f64 := graph.Float32, graph.Float64
	flipped := &graph.ArrayType{DType: f64, Layout: must(graph.RowMajor(3, 4).Flip(0, 1))}
	types := []graph.Type{
		graph.Scalar(f64),
		graph.Scalar(f32),
		graph.ArrayOf(f64, 5),
		graph.ArrayOf(f32, 4, 6),
		graph.ArrayOf(f64, 2, 3, 4),
		flipped,
		&graph.TupleType{Elems: []graph.Type{graph.Scalar(f32), graph.ArrayOf(f32, 3)}},
		&graph.TupleType{Elems: []graph.Type{graph.ArrayOf(f64, 6), graph.ArrayOf(f64, 6, 2), graph.Scalar(f64)}},
		&graph.TupleType{Elems: []graph.Type{graph.Scalar(f64), &graph.TupleType{Elems: []graph.Type{graph.ArrayOf(f64, 2), graph.Scalar(f64)}}}},
	}
	for i, want := range types {
		for seed := range uint64(60) {
			n, ins, err := ProgramOfType(Rand(seed), Config{}, want)
			require.NoError(t, err)
			what := fmt.Sprintf("type %d (%v) seed %d", i, want, seed)
			checkProgram(t, what, n, ins, dtypesOf(want)[0], seed)
			got := must(graph.Check(n)).TypeOf(n)
			require.True(t, graph.SameShape(want, got), "%s: got %v\n%s", what, got, graph.Print(n))
		}
	}
	for _, bad := range []graph.Type{
		graph.Scalar(graph.Bool),
		graph.ArrayOf(graph.Int32, 3),
		&graph.TupleType{Elems: []graph.Type{graph.Scalar(f32), graph.Scalar(f64)}},
		&graph.TupleType{Elems: []graph.Type{graph.Scalar(f32)}},
		graph.ArrayOf(f64, 0),
		nil,
	} {
		_, _, err := ProgramOfType(Rand(1), Config{}, bad)
		assert.Error(t, err, "type %v", bad)
	}
	_, _, err := ProgramOfType(Rand(1), Config{}, graph.Scalar(graph.Bool))
	assert.EqualError(t, err, "graphtest: program of type bool: element type bool is not f32 or f64")
}

func TestScalarExpr(t *testing.T) {
	for _, dt := range dtypes {
		x := must(graph.NewInput("x", graph.Scalar(dt), false))
		y := must(graph.NewInput("y", graph.Scalar(dt), false))
		for seed := range uint64(1000) {
			r := Rand(seed)
			vars := [][]graph.Node{nil, {x}, {x, y}}[seed%3]
			e := ScalarExpr(r, vars, dt, int(seed%5))
			info, err := graph.Check(e)
			require.NoError(t, err, "seed %d: %s", seed, graph.Print(e))
			require.Equal(t, graph.Scalar(dt), info.TypeOf(e), "seed %d: %s", seed, graph.Print(e))
			// Finite even for operands well outside [-1, 1).
			in := map[string]graph.Value{}
			for _, v := range info.Inputs {
				in[v.Name] = graph.ScalarValue{DType: dt, V: dt.Round(40*r.Float64() - 20)}
			}
			v, err := graph.Eval(e, in)
			require.NoError(t, err)
			require.NoError(t, graph.Finite(v), "seed %d: %s with %v", seed, graph.Print(e), in)
		}
	}
}

func TestInputs(t *testing.T) {
	a := must(graph.NewInput("A", graph.ArrayOf(graph.Float32, 3, 4), false))
	s := must(graph.NewInput("s", graph.Scalar(graph.Float64), false))
	in := Inputs(Rand(7), []*graph.Input{a, s})
	require.Len(t, in, 2)
	arr := in["A"].(*graph.Array)
	assert.Equal(t, graph.Float32, arr.DType())
	assert.Equal(t, []int{3, 4}, arr.Extents())
	for _, x := range arr.Values() {
		assert.True(t, -1 <= x && x < 1, "%v out of [-1, 1)", x)
	}
	sv := in["s"].(graph.ScalarValue)
	assert.Equal(t, graph.Float64, sv.DType)
	again := Inputs(Rand(7), []*graph.Input{a, s})
	assert.NoError(t, graph.Diff(in["A"], again["A"], 0))
	assert.Equal(t, in["s"], again["s"])
}

// Helpers that look for shapes in terms.

func anyNode(n graph.Node, f func(graph.Node) bool) bool {
	for m := range graph.All(n) {
		if f(m) {
			return true
		}
	}
	return false
}

func isMap(n graph.Node) bool { z, ok := n.(*graph.NZip); return ok && len(z.Args) > 0 }
func isRNZ(n graph.Node) bool { _, ok := n.(*graph.RNZ); return ok }

// nestedIn reports whether a node satisfying outer has a lambda function
// whose body is a node satisfying inner.
func nestedIn(n graph.Node, outer, inner func(graph.Node) bool) bool {
	return anyNode(n, func(m graph.Node) bool {
		if !outer(m) {
			return false
		}
		var fn graph.Node
		switch m := m.(type) {
		case *graph.NZip:
			fn = m.Fn
		case *graph.RNZ:
			fn = m.Fn
		}
		lam, ok := fn.(*graph.Lambda)
		return ok && inner(lam.Body)
	})
}

// reduceBy returns a predicate for an rnz with a scalar operator op.
func reduceBy(op graph.Op) func(graph.Node) bool {
	return func(n graph.Node) bool {
		r, ok := n.(*graph.RNZ)
		if !ok {
			return false
		}
		o, ok := r.Red.(*graph.OpRef)
		return ok && o.Op == op
	}
}

// reduceByZip returns a predicate for an rnz with the lifted operator zip op.
func reduceByZip(op graph.Op) func(graph.Node) bool {
	return func(n graph.Node) bool {
		r, ok := n.(*graph.RNZ)
		if !ok {
			return false
		}
		z, ok := r.Red.(*graph.NZip)
		if !ok || len(z.Args) != 0 {
			return false
		}
		o, ok := z.Fn.(*graph.OpRef)
		return ok && o.Op == op
	}
}

func isDot(n graph.Node) bool {
	r, ok := n.(*graph.RNZ)
	if !ok || len(r.Args) != 2 || !reduceBy(graph.Add)(n) {
		return false
	}
	o, ok := r.Fn.(*graph.OpRef)
	return ok && o.Op == graph.Mul
}

func sharesTraversal(n graph.Node) bool {
	parents := map[graph.Node]int{}
	for m := range graph.All(n) {
		for _, c := range graph.Children(m) {
			parents[c]++
		}
	}
	for m, p := range parents {
		if p > 1 && (isMap(m) || isRNZ(m)) {
			return true
		}
	}
	return false
}

func layoutOfInput[T graph.Node](n graph.Node) bool {
	var x graph.Node
	switch m := any(n).(type) {
	case *graph.Flip:
		x = m.X
	case *graph.Subdiv:
		x = m.X
	default:
		return false
	}
	if _, ok := n.(T); !ok {
		return false
	}
	_, ok := x.(*graph.Input)
	return ok
}

func nzipOverTuple(n graph.Node) bool {
	z, ok := n.(*graph.NZip)
	if !ok {
		return false
	}
	for _, a := range z.Args {
		switch a := a.(type) {
		case *graph.Tuple:
			return true
		case *graph.NZip:
			if lam, ok := a.Fn.(*graph.Lambda); ok {
				if _, ok := lam.Body.(*graph.Tuple); ok {
					return true
				}
			}
		}
	}
	return false
}
