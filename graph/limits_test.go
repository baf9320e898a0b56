package graph_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

func TestLayoutValidateCaps(t *testing.T) {
	cases := []struct {
		l    graph.Layout
		want string // "" for valid
	}{
		{graph.RowMajor(1 << 40), ""},
		{graph.RowMajor(1<<20, 1<<20), ""},
		{graph.Layout{{Extent: 2, Stride: 1<<40 - 1}}, ""},
		{graph.Layout{{Extent: 1, Stride: 1 << 40}}, ""},
		{graph.Layout{{Extent: 1<<40 + 1, Stride: 1}},
			"layout: extent 1099511627777 of axis 0 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(1099511627777,1)>"},
		{graph.RowMajor(9223372036854775807, 2),
			"layout: extent 9223372036854775807 of axis 0 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(9223372036854775807,2),(2,1)>"},
		{graph.RowMajor(1<<20, 1<<20, 2),
			"layout: more than 1099511627776 elements (graph.MaxElements) by axis 2 in layout <(1048576,2097152),(1048576,2),(2,1)>"},
		{graph.Layout{{Extent: 1, Stride: 1<<40 + 1}},
			"layout: stride 1099511627777 of axis 0 is past the cap of 1099511627776 (graph.MaxElements) in layout <(1,1099511627777)>"},
		{graph.Layout{{Extent: 2, Stride: 1 << 40}},
			"layout: the buffer spans more than 1099511627776 elements (graph.MaxElements) by axis 0 in layout <(2,1099511627776)>"},
		{graph.Layout{{Extent: 1 << 20, Stride: 1 << 20}, {Extent: 1 << 20, Stride: 1}}, ""}, // spans exactly 2^40
		{graph.Layout{{Extent: 1 << 20, Stride: 1<<20 + 1}, {Extent: 1 << 20, Stride: 1}},
			"layout: the buffer spans more than 1099511627776 elements (graph.MaxElements) by axis 1 in layout <(1048576,1048577),(1048576,1)>"},
	}
	for _, c := range cases {
		err := c.l.Validate()
		if c.want == "" {
			assert.NoError(t, err, "%v", c.l)
			continue
		}
		require.Error(t, err, "%v", c.l)
		assert.Equal(t, c.want, err.Error())
		// The same type is refused as an input's.
		_, err = graph.NewInput("x", &graph.ArrayType{DType: graph.Float32, Layout: c.l}, false)
		require.Error(t, err)
		assert.Equal(t, "input x: "+c.want, err.Error())
	}
}

func TestParseTypeCaps(t *testing.T) {
	cases := map[string]string{
		"x : f32[1099511627777]; x":           "1:9: extent 1099511627777 of axis 0 of x is past the cap of 1099511627776 (graph.MaxExtent)",
		"x : f32[9223372036854775807,2]; x":   "1:9: extent 9223372036854775807 of axis 0 of x is past the cap of 1099511627776 (graph.MaxExtent)",
		"x : f32[99999999999999999999]; x":    "1:9: extent 99999999999999999999 is too large",
		"x : f32[1048576,1048576,2]; x":       "1:25: type of x has more than 1099511627776 elements (graph.MaxElements)",
		"x : f32<(1,1099511627777)>; x":       "1:12: stride 1099511627777 of axis 0 of x is past the cap of 1099511627776 (graph.MaxElements)",
		"x : f32<(2,1099511627776)>; x":       "1:12: layout of x spans more than 1099511627776 elements (graph.MaxElements)",
		"x : f32<(3,4611686018427387904)>; x": "1:12: stride 4611686018427387904 of axis 0 of x is past the cap of 1099511627776 (graph.MaxElements)",
	}
	for src, want := range cases {
		_, err := graph.Parse(src)
		require.Error(t, err, src)
		assert.Equal(t, want, err.Error(), src)
	}
	prog, err := graph.Parse("x : f32[1099511627776]; x")
	require.NoError(t, err)
	assert.Equal(t, "f32[1099511627776]", prog.Inputs[0].Type.String())
}

// Whatever type the printer prints parses back, and a layout Validate
// refuses is refused by the parser too: random layouts with extents and
// strides near the caps.
func TestTypePrintParsesBackNearTheCaps(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	near := []int{0, 1, 2, 3, 1 << 20, 1<<20 + 1, 1<<40 - 1, 1 << 40, 1<<40 + 1, 1 << 62}
	pick := func() int {
		if r.IntN(3) == 0 {
			return 1 + r.IntN(1000)
		}
		return near[r.IntN(len(near))]
	}
	valid := 0
	for range 5000 {
		rank := 1 + r.IntN(3)
		l := make(graph.Layout, rank)
		for i := range l {
			l[i] = graph.Axis{Extent: pick(), Stride: pick()}
		}
		if r.IntN(3) == 0 {
			l = graph.RowMajor(l.Extents()...)
		}
		typ := &graph.ArrayType{DType: graph.Float32, Layout: l}
		src := "x : " + typ.String() + "; x"
		prog, err := graph.Parse(src)
		if verr := l.Validate(); verr != nil {
			assert.Error(t, err, "%s parses, but Validate says %v", src, verr)
			continue
		}
		valid++
		require.NoError(t, err, src)
		got := prog.Inputs[0].Type.(*graph.ArrayType)
		assert.True(t, got.Layout.Equal(l), "%s parses as %v", src, got)
		assert.Equal(t, typ.String(), got.String())
	}
	assert.Greater(t, valid, 500, "too few valid layouts to mean anything")
}

func TestArrayMemoryLimit(t *testing.T) {
	_, err := graph.Zeros(graph.Float32, 100000000000)
	require.Error(t, err)
	assert.Equal(t, "array f32[100000000000] needs 400000000000 bytes, past the memory limit of 4294967296 bytes; raise the limit with graph.NewArrayLimit", err.Error())
	var me *graph.MemoryError
	require.True(t, errors.As(err, &me))
	assert.Equal(t, int64(400000000000), me.Bytes)

	_, err = graph.NewArrayLimit(graph.Float64, graph.RowMajor(10, 100), 7999)
	require.Error(t, err)
	assert.Equal(t, "array f64[10,100] needs 8000 bytes, past the memory limit of 7999 bytes; raise the limit passed to graph.NewArrayLimit", err.Error())
	a, err := graph.NewArrayLimit(graph.Float64, graph.RowMajor(10, 100), 8000)
	require.NoError(t, err)
	assert.Equal(t, 1000, a.Size())

	// A strided view's buffer spans more than its elements.
	_, err = graph.NewArrayLimit(graph.Float32, graph.Layout{{Extent: 2, Stride: 1000}}, 4000)
	require.Error(t, err)
	assert.Equal(t, "array f32<(2,1000)> needs 4004 bytes, past the memory limit of 4000 bytes; raise the limit passed to graph.NewArrayLimit", err.Error())

	r := rand.New(rand.NewPCG(1, 2))
	_, err = graph.RandomArray(r, graph.Float64, 1<<20, 1<<10)
	require.Error(t, err)
	assert.Equal(t, "array f64[1048576,1024] needs 8589934592 bytes, past the memory limit of 4294967296 bytes; raise the limit with graph.RandomArrayLimit", err.Error())
	_, err = graph.RandomArrayLimit(r, 1000, graph.Int32, 251)
	require.Error(t, err)
	assert.Equal(t, "array i32[251] needs 1004 bytes, past the memory limit of 1000 bytes; raise the limit passed to graph.RandomArrayLimit", err.Error())
	b, err := graph.RandomArrayLimit(r, 1000, graph.Int32, 250)
	require.NoError(t, err)
	assert.Equal(t, 250, b.Size())
	_, err = graph.RandomArray(r, graph.Float32, 9223372036854775807, 2)
	require.Error(t, err)
	assert.Equal(t, "layout: extent 9223372036854775807 of axis 0 is past the cap of 1099511627776 (graph.MaxExtent) in layout <(9223372036854775807,2),(2,1)>", err.Error())
}

func TestEvalMemoryLimit(t *testing.T) {
	prog, err := graph.Parse("A : f32[100000000000]; reduce (+) A")
	require.NoError(t, err)
	_, err = graph.Eval(prog.Body, nil)
	require.Error(t, err)
	// The input twice (given, and a copy into its layout) and the f32
	// result: 2*4e11 + 4 bytes.
	assert.Equal(t, "eval of reduce (+) A (largest: input A f32[100000000000]) needs 800000000004 bytes, past the memory limit of 4294967296 bytes; raise graph.EvalOptions.MaxMemory", err.Error())

	// map (\x -> x * 2) u over f64[3]: u twice (48), the map's result,
	// its element results and their overhead (24 + 24 + 3*128), and the
	// scalars x and x * 2 (8 each; the literal 2 has no type of its own).
	prog, err = graph.Parse(`u : f64[3]; map (\x -> x * 2) u`)
	require.NoError(t, err)
	info, err := graph.Check(prog.Body)
	require.NoError(t, err)
	need := graph.EvalBytes(info)
	assert.Equal(t, int64(48+24+24+3*128+2*8), need)
	u, err := graph.FromFloat64([]float64{1, 2, 3}, 3)
	require.NoError(t, err)
	in := map[string]graph.Value{"u": u}
	_, err = graph.EvalWith(prog.Body, in, graph.EvalOptions{MaxMemory: need - 1})
	require.Error(t, err)
	assert.Equal(t, `eval of map (\x -> x * 2) u (largest: input u f64[3]) needs 496 bytes, past the memory limit of 495 bytes; raise graph.EvalOptions.MaxMemory`, err.Error())
	v, err := graph.EvalWith(prog.Body, in, graph.EvalOptions{MaxMemory: need})
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 4, 6}, v.(*graph.Array).Float64s())
}

// FreeVarCache answers as FreeVars does, for every node of a term with
// lambdas and lets that bind and shadow.
func TestFreeVarCache(t *testing.T) {
	a := mustInput(t, "A", graph.ArrayOf(graph.Float64, 3, 2))
	term, err := graph.ParseTerm(`let s = 2 in map (\r -> let m = reduce max r in map (\x -> (x - m) * s) r) A`, a)
	require.NoError(t, err)
	var c graph.FreeVarCache
	nodes := 0
	for n := range graph.All(term) {
		assert.Equal(t, graph.FreeVars(n), c.Of(n), "%s", graph.Print(n))
		nodes++
	}
	assert.Greater(t, nodes, 10)
	// Asked again, from the cache.
	for n := range graph.All(term) {
		assert.Equal(t, graph.FreeVars(n), c.Of(n))
	}
}

// Abbrev stops printing at its budget: a term that shares an open subterm
// 60 times over prints 2^60 leaves without let, but abbreviates at once.
func TestAbbrevOfSharedTerm(t *testing.T) {
	x := graph.NewVar("x")
	var body graph.Node = x
	for range 60 {
		var err error
		body, err = graph.NewCall(graph.Add, body, body)
		require.NoError(t, err)
	}
	l, err := graph.NewLambda([]*graph.Var{x}, body)
	require.NoError(t, err)
	assert.Equal(t, `\x -> x + x + (x + x) + (x + x…`, graph.Abbrev(l, 30))
}

// Every term within MaxDepth prints as text the parser reads back, even
// where the printer writes several levels of the parser's nesting for one
// level of the term, as in -(-(-x)) and exp (exp x).
func TestDeepTermsPrintAndParseBack(t *testing.T) {
	u := mustInput(t, "u", graph.ArrayOf(graph.Float64, 3))
	for _, op := range []graph.Op{graph.Neg, graph.Exp} {
		x := graph.NewVar("x")
		var body graph.Node = x
		for range graph.MaxDepth - 3 {
			var err error
			body, err = graph.NewCall(op, body)
			require.NoError(t, err)
		}
		l, err := graph.NewLambda([]*graph.Var{x}, body)
		require.NoError(t, err)
		m, err := graph.NewNZip(l, u)
		require.NoError(t, err)
		require.Equal(t, graph.MaxDepth, graph.Depth(m))
		text := graph.Print(m)
		back, err := graph.ParseTerm(text, u)
		require.NoError(t, err, "%v", op)
		assert.Equal(t, text, graph.Print(back))
	}
}
