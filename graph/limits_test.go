package graph_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// chainProgram is u : f64[3]; map (\x -> x + x + … + x) u with adds
// additions.
func chainProgram(adds int) string {
	var sb strings.Builder
	sb.WriteString(`u : f64[3]; map (\x -> x`)
	for range adds {
		sb.WriteString(" + x")
	}
	sb.WriteString(") u")
	return sb.String()
}

// A 10 MB chain of additions, the program that overflowed the checker's
// stack, is a parse error at the addition that passes the limit.
func TestParseDeepChainIsAnError(t *testing.T) {
	src := chainProgram(10 << 20 / 4)
	require.Greater(t, len(src), 10<<20)
	_, err := graph.Parse(src)
	require.Error(t, err)
	var pe *graph.ParseError
	require.True(t, errors.As(err, &pe), "%T is not a *ParseError", err)
	// The first x is at column 24 and each " + x" adds 4 columns; the
	// call that adds the 10000th x nests 10001 deep.
	assert.Equal(t, "1:40024: the expression nests deeper than 10000 levels (graph.MaxDepth); split it with let", err.Error())
}

// A chain whose map is exactly MaxDepth deep parses, checks, evaluates and
// prints back to the same text.
func TestDeepChainAtTheLimit(t *testing.T) {
	adds := graph.MaxDepth - 3 // calls adds+1 deep, the lambda one more, the map one more
	prog, err := graph.Parse(chainProgram(adds))
	require.NoError(t, err)
	assert.Equal(t, graph.MaxDepth, graph.Depth(prog.Body))
	info, err := graph.Check(prog.Body)
	require.NoError(t, err)
	assert.Equal(t, "f64[3]", info.TypeOf(prog.Body).String())
	u, err := graph.FromFloat64([]float64{1, 2, 3}, 3)
	require.NoError(t, err)
	v, err := graph.Eval(prog.Body, map[string]graph.Value{"u": u})
	require.NoError(t, err)
	k := float64(adds + 1)
	assert.Equal(t, []float64{k, 2 * k, 3 * k}, v.(*graph.Array).Float64s())
	text := graph.Print(prog.Body)
	back, err := graph.ParseTerm(text, prog.Inputs...)
	require.NoError(t, err)
	assert.Equal(t, text, graph.Print(back))

	// One addition more is too deep.
	_, err = graph.Parse(chainProgram(adds + 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), ": the expression nests deeper than 10000 levels (graph.MaxDepth); split it with let")
}

// Splitting the chain with let keeps every part under the limit.
func TestDeepChainSplitWithLet(t *testing.T) {
	half := strings.TrimPrefix(chainProgram(6000), `u : f64[3]; map (\x -> `)
	half = strings.TrimSuffix(half, ") u")
	src := `u : f64[3]; map (\x -> let a = ` + half + ` in a + ` + half + `) u`
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	u, err := graph.FromFloat64([]float64{1, 2, 3}, 3)
	require.NoError(t, err)
	v, err := graph.Eval(prog.Body, map[string]graph.Value{"u": u})
	require.NoError(t, err)
	assert.Equal(t, []float64{12002, 24004, 36006}, v.(*graph.Array).Float64s())
}

func mustInput(t *testing.T, name string, typ graph.Type) *graph.Input {
	t.Helper()
	in, err := graph.NewInput(name, typ, false)
	require.NoError(t, err)
	return in
}

// Every constructor refuses a node past MaxDepth, whichever child is deep.
func TestConstructorsRefusePastMaxDepth(t *testing.T) {
	x := graph.NewVar("x")
	u := mustInput(t, "u", graph.ArrayOf(graph.Float64, 3))
	deep := func(t *testing.T, step func(graph.Node) (graph.Node, error)) graph.Node {
		var n graph.Node = x
		for range graph.MaxDepth - 1 {
			var err error
			n, err = step(n)
			require.NoError(t, err)
		}
		require.Equal(t, graph.MaxDepth, graph.Depth(n))
		return n
	}
	cases := []struct {
		name string
		step func(graph.Node) (graph.Node, error)
		want string
	}{
		{"call", func(n graph.Node) (graph.Node, error) { return graph.NewCall(graph.Add, n, x) }, "call add"},
		{"neg", func(n graph.Node) (graph.Node, error) { return graph.NewCall(graph.Neg, n) }, "call neg"},
		{"lambda", func(n graph.Node) (graph.Node, error) { return graph.NewLambda([]*graph.Var{graph.NewVar("y")}, n) }, "lambda"},
		{"tuple", func(n graph.Node) (graph.Node, error) { return graph.NewTuple(x, n) }, "tuple"},
		{"let", func(n graph.Node) (graph.Node, error) { return graph.NewLet(graph.NewVar("a"), x, n) }, "let a"},
		{"let value", func(n graph.Node) (graph.Node, error) { return graph.NewLet(graph.NewVar("a"), n, x) }, "let a"},
		{"proj", func(n graph.Node) (graph.Node, error) { return graph.NewProj(0, n) }, "proj"},
		{"app", func(n graph.Node) (graph.Node, error) { return graph.NewApp(n, x) }, "app"},
		{"nzip", func(n graph.Node) (graph.Node, error) { return graph.NewNZip(n, u) }, "nzip"},
		{"rnz", func(n graph.Node) (graph.Node, error) { return graph.NewRNZ(graph.NewIdent(), graph.NewIdent(), n) }, "rnz"},
		{"subdiv", func(n graph.Node) (graph.Node, error) { return graph.NewSubdiv(0, 1, n) }, "subdiv"},
		{"flatten", func(n graph.Node) (graph.Node, error) { return graph.NewFlatten(0, n) }, "flatten"},
		{"flip", func(n graph.Node) (graph.Node, error) { return graph.NewFlip(0, 1, n) }, "flip"},
		{"section", func(n graph.Node) (graph.Node, error) { return graph.NewSection(graph.Mul, n, false) }, "section mul"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := deep(t, c.step)
			_, err := c.step(n)
			require.Error(t, err)
			assert.Equal(t, c.want+": the term would nest 10001 deep, past the limit of 10000 (graph.MaxDepth); bind parts of it with let", err.Error())
			var de *graph.DepthError
			require.True(t, errors.As(err, &de))
			assert.Equal(t, graph.MaxDepth+1, de.Depth)
		})
	}
}

// A term built by hand, without the constructors, does not know its depth;
// Check measures it without recursion and refuses it instead of
// overflowing the stack.
func TestCheckRefusesHandBuiltDeepTerm(t *testing.T) {
	u := mustInput(t, "u", graph.Scalar(graph.Float64))
	var n graph.Node = u
	for range 200_000 {
		n = &graph.Call{Op: graph.Neg, Args: []graph.Node{n}}
	}
	assert.Equal(t, 200_001, graph.Depth(n))
	_, err := graph.Check(n)
	require.Error(t, err)
	assert.Equal(t, "term: the term would nest 200001 deep, past the limit of 10000 (graph.MaxDepth); bind parts of it with let", err.Error())

	// A shallow hand-built term is measured and checked as usual.
	m := &graph.Call{Op: graph.Neg, Args: []graph.Node{&graph.Call{Op: graph.Neg, Args: []graph.Node{u}}}}
	assert.Equal(t, 3, graph.Depth(m))
	_, err = graph.Check(m)
	require.NoError(t, err)
}

// Nesting through lambdas, lets and tuples in the notation is refused with
// a position, never a crash.
func TestParseDeepNestingIsAnError(t *testing.T) {
	n := graph.MaxDepth + 10
	lets := `x : f64; ` + strings.Repeat("let a = x in ", n) + "a"
	lambdas := `x : f64; ` + strings.Repeat(`(\a -> `, n) + "x" + strings.Repeat(") x", n)
	tuples := `x : f64; ` + strings.Repeat("(x, ", n) + "x" + strings.Repeat(")", n)
	for name, src := range map[string]string{"lets": lets, "lambdas": lambdas, "tuples": tuples} {
		t.Run(name, func(t *testing.T) {
			_, err := graph.Parse(src)
			require.Error(t, err)
			var pe *graph.ParseError
			require.True(t, errors.As(err, &pe), "%T is not a *ParseError", err)
			msg := err.Error()
			assert.True(t, strings.HasSuffix(msg, "the expression nests deeper than 10000 levels (graph.MaxDepth); split it with let") ||
				strings.HasSuffix(msg, "expression nested too deeply"), msg)
		})
	}
	// A let chain under the limit parses, checks and evaluates.
	src := `x : f64; ` + strings.Repeat("let a = x + 1 in ", 5000) + "a"
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	v, err := graph.Eval(prog.Body, map[string]graph.Value{"x": graph.ScalarValue{DType: graph.Float64, V: 2}})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(graph.ScalarValue{DType: graph.Float64, V: 3}), fmt.Sprint(v))
}
