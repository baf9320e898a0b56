package fusion

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// operand returns an input of type dt[ext...] named name, or, half the
// time, a random program of that type in its place.
func operand(r *rand.Rand, cfg graphtest.Config, name string, ext ...int) graph.Node {
	t := graph.ArrayOf(cfg.DType, ext...)
	if r.IntN(2) == 0 {
		p, ins, err := graphtest.ProgramOfType(r, cfg, t)
		if err != nil {
			panic(err)
		}
		// Each operand's inputs get its name, so that two operands'
		// programs do not both read an x0.
		sub := map[graph.Node]graph.Node{}
		for _, in := range ins {
			sub[in] = must(graph.NewInput(name+"_"+in.Name, in.Type, in.Param))
		}
		return must(replace(p, sub))
	}
	return must(graph.NewInput(name, t, false))
}

// parseWith parses src, in which each name of ops is the matching operand.
// The operands are inputs to the parser, then the programs replace them.
func parseWith(src string, ops map[string]graph.Node) (graph.Node, []*graph.Input) {
	var ins []*graph.Input
	sub := map[graph.Node]graph.Node{}
	for name, op := range ops {
		t, err := graph.Check(op)
		if err != nil {
			panic(err)
		}
		in := must(graph.NewInput(name, t.TypeOf(op), false))
		ins = append(ins, in)
		sub[in] = op
	}
	term, err := graph.ParseTerm(src, ins...)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", src, err))
	}
	term = must(replace(term, sub))
	info, err := graph.Check(term)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", graph.Print(term), err))
	}
	return term, info.Inputs
}

// contractionProgram draws a matrix product C = Aᵀ... written in one of
// the nesting orders reverse mode and hand-written code produce, with the
// factors in either order, dead arguments around it and operands that are
// inputs or random programs:
//
//   - a sum over k of outer products (the weight gradient Xᵀ·dY), with dead
//     traversals of other arrays, possibly under flip 0 (the gradient of
//     flip 0 W);
//   - a map over A's rows of sums of B's rows scaled by the row's
//     elements (the input gradient dY·Wᵀ), with a dead zip argument;
//   - the normal form itself.
func contractionProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	if cfg.DType == graph.Invalid {
		cfg.DType = graph.Float64
	}
	m, n, k := 1+r.IntN(5), 1+r.IntN(5), 1+r.IntN(5)
	mul := func(a, b string) string {
		if r.IntN(2) == 0 {
			return a + " * " + b
		}
		return b + " * " + a
	}
	ops := map[string]graph.Node{}
	// A is m×k and B k×n, stored as given or transposed (flip 0 of a
	// stored k×m, n×k).
	matrix := func(name string, rows, cols int) string {
		if r.IntN(2) == 0 {
			ops[name] = operand(r, cfg, name, rows, cols)
			return name
		}
		ops[name] = operand(r, cfg, name, cols, rows)
		return "(flip 0 " + name + ")"
	}
	var src string
	switch r.IntN(4) {
	case 0, 1: // Σ_k outer products: rows of Aᵀ (k×m) and of B (k×n)
		at := matrix("At", k, m)
		b := matrix("B", k, n)
		ops["E"] = operand(r, cfg, "E", n)
		ops["F"] = operand(r, cfg, "F", m, 2)
		inner := fmt.Sprintf("zip (\\ai f -> %s) a F", mul("bj", "ai"))
		if r.IntN(2) == 0 {
			inner = fmt.Sprintf("map (\\ai -> %s) a", mul("bj", "ai"))
		}
		src = fmt.Sprintf("rnz (zip (zip (+))) (\\a b -> zip (\\bj e -> %s) b E) %s %s", inner, at, b)
		if r.IntN(2) == 0 {
			// the rows of B outside: the result is n×m, flipped back
			src = fmt.Sprintf("flip 0 (rnz (zip (zip (+))) (\\a b -> nzip (\\e bj -> %s) E b) %s %s)", inner, at, b)
		}
	case 2: // a map over A's rows of sums of scaled rows of B
		a := matrix("A", m, k)
		b := matrix("B", k, n)
		ops["G"] = operand(r, cfg, "G", m, 3)
		src = fmt.Sprintf("zip (\\g ai -> rnz (zip (+)) (\\x brow -> map (\\y -> %s) brow) ai %s) G %s", mul("x", "y"), b, a)
	default: // the normal form
		a := matrix("A", m, k)
		b := matrix("B", k, n)
		src = fmt.Sprintf("map (\\ai -> map (\\bc -> rnz (+) (\\x y -> %s) ai bc) (flip 0 %s)) %s", mul("x", "y"), b, a)
	}
	return parseWith(src, ops)
}

// deadArgProgram draws an nzip or rnz over 2 to 4 random arrays of one
// shape whose function reads a random subset of its parameters (possibly
// none), lifted over the arrays' inner axes by up to two partial nzips.
func deadArgProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	if cfg.DType == graph.Invalid {
		cfg.DType = graph.Float64
	}
	ext := []int{1 + r.IntN(5)}
	levels := r.IntN(3)
	for range levels {
		ext = append(ext, 1+r.IntN(3))
	}
	ops := map[string]graph.Node{}
	var params, args, used []string
	for i := range 2 + r.IntN(3) {
		name := fmt.Sprintf("X%d", i)
		ops[name] = operand(r, cfg, name, ext...)
		params, args = append(params, fmt.Sprintf("p%d", i)), append(args, name)
		if r.IntN(2) == 0 {
			used = append(used, fmt.Sprintf("p%d", i))
		}
	}
	body := "exp 0.5"
	if len(used) > 0 {
		body = strings.Join(used, " * ")
	}
	fn := fmt.Sprintf("(\\%s -> %s)", strings.Join(params, " "), body)
	red := "(+)"
	for range levels {
		fn, red = "(nzip "+fn+")", "(zip "+red+")"
	}
	hof := "nzip " + fn
	if r.IntN(2) == 0 {
		hof = "rnz " + red + " " + fn
	}
	return parseWith(hof+" "+strings.Join(args, " "), ops)
}

// copyProgram draws traversals that read explicit copies: a copied
// argument, a function returning a copy, and map id as the function.
func copyProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	if cfg.DType == graph.Invalid {
		cfg.DType = graph.Float64
	}
	m, n := 1+r.IntN(4), 1+r.IntN(4)
	ops := map[string]graph.Node{"A": operand(r, cfg, "A", m, n), "B": operand(r, cfg, "B", m, n)}
	src := []string{
		"zip (zip (+)) (map id A) B",
		"map (\\a -> map id a) A",
		"rnz (zip (+)) (map id) A",
		"rnz (zip (+)) (\\a b -> map id b) A (map id B)",
	}[r.IntN(4)]
	return parseWith(src, ops)
}

func TestDeadArgLaw(t *testing.T) {
	st := checkLaw(t, DeadArg{}, deadArgProgram, nil, exactTol)
	requireApplied(t, st, lawCases/2)
}

func TestDropCopyLaw(t *testing.T) {
	st := checkLaw(t, DropCopy{}, copyProgram, nil, exactTol)
	requireApplied(t, st, lawCases)
}

// Each step of Contract is an exchange that combines every element in the
// same order: the value is bit-identical.
func TestContractLaw(t *testing.T) {
	st := checkLaw(t, Contract{}, contractionProgram, applyOnce(DeadArg{}), exactTol)
	requireApplied(t, st, lawCases/2)
}

// The contract pass, run to its normal form on the contractions above,
// keeps their value bit for bit and brings each into the matrix-product
// normal form: maps around one scalar rnz (+) (*) of two parameters, no
// flip left over a computed array. On random programs of every kind it
// terminates and keeps the value too.
func TestContractPass(t *testing.T) {
	for seed := range uint64(lawCases) {
		for gi, gen := range []graphtest.Generator{contractionProgram, graphtest.Program} {
			dt := graph.Float64
			if seed%2 == 1 {
				dt = graph.Float32
			}
			cfg := graphtest.Config{DType: dt}
			term, ins := gen(graphtest.Rand(seed), cfg)
			in := cfg.Inputs(rand.New(rand.NewPCG(seed, 7)), ins)
			want, err := graph.Eval(term, in)
			require.NoError(t, err, "seed %d", seed)
			out, err := newEngine(contractRules).run(term)
			require.NoError(t, err, "seed %d: %s", seed, graph.Print(term))
			got, err := graph.Eval(out, usedInputs(out, in))
			require.NoError(t, err, "seed %d: %s", seed, graph.Print(out))
			if d := graph.Diff(want, got, 0); d != nil {
				t.Fatalf("seed %d: the contract pass changed the value\nbefore: %s\nafter:  %s\n%v", seed, graph.Print(term), graph.Print(out), d)
			}
			if gi == 0 {
				requireGEMMForm(t, out, fmt.Sprintf("seed %d: %s", seed, graph.Print(term)))
			}
		}
	}
}

// requireGEMMForm fails unless term is map (\a -> map (\b -> rnz (+) f a b)
// B) A with f multiplying its parameters, with A and B views of arrays.
func requireGEMMForm(t *testing.T, term graph.Node, what string) {
	t.Helper()
	levels, ok := contraction(term)
	require.True(t, ok, "%s: not a contraction: %s", what, graph.Print(term))
	require.Len(t, levels, 3, "%s: %s", what, graph.Print(term))
	require.False(t, levels[0].isRNZ() || levels[1].isRNZ(), "%s: %s", what, graph.Print(term))
	require.True(t, levels[2].isRNZ(), "%s: %s", what, graph.Print(term))
	for _, a := range levels[2].args {
		_, v := a.(*graph.Var)
		require.True(t, v, "%s: the dot reads %s, not an element of the maps: %s", what, graph.Print(a), graph.Print(term))
	}
}

// The weight gradient of a dense layer as reverse mode writes it (an rnz of
// outer products, with the weight's columns and the bias traversed for
// their extent, under the flip of flip 0 W) becomes the product Xᵀ·dY in
// W's layout: the maps run over X's and dY's columns, no flip is left.
func TestContractWeightGradient(t *testing.T) {
	term := parse(t, `x : f32[4,16]; dY : f32[4,8]; W : f32[16,8]; b : f32[8];
		flip 0 (rnz (zip (zip (+))) (\r ct -> nzip (\c x1 ct1 -> zip (\x0 x11 -> ct1 * x0) r c) (flip 0 W) b ct) x dY)`)
	out, err := newEngine(contractRules).run(term)
	require.NoError(t, err)
	require.Equal(t, `map (\x0 -> map (\ct1 -> rnz (+) (*) ct1 x0) (flip 0 dY)) (flip 0 x)`, graph.Print(out))
	// The input gradient dY·Wᵀ: the maps run over dY's rows and W's rows.
	term = parse(t, `act : f32[4,16]; dY : f32[4,8]; W : f32[16,8]; b : f32[8];
		zip (\r ct -> rnz (zip (+)) (\c x1 ct1 -> zip (\x0 x11 -> ct1 * x11) r c) (flip 0 W) b ct) act dY`)
	out, err = newEngine(contractRules).run(term)
	require.NoError(t, err)
	require.Equal(t, `map (\ct -> map (\x11 -> rnz (+) (*) ct x11) W) dY`, graph.Print(out))
	// A matrix-vector contraction keeps its sum of scaled rows.
	term = parse(t, `X : f32[4,16]; g : f32[4];
		rnz (zip (+)) (\r gi -> map (\v -> gi * v) r) X g`)
	out, err = newEngine(contractRules).run(term)
	require.NoError(t, err)
	require.Equal(t, graph.Print(term), graph.Print(out))
}

// A matrix product is not fused into a reduction that consumes it, where
// it would run one dot product at a time: it is materialised, and runs as
// a GEMM. A map consumer still takes it (as the GEMM's epilogue).
func TestRNZNZipKeepsMatrixProducts(t *testing.T) {
	checkRefusal(t, RNZNZip{}, parse(t, `X : f64[4,3]; W : f64[3,5]; b : f64[5];
		reduce (zip (+)) (map (\r -> zip (\c bj -> rnz (+) (*) r c + bj) (flip 0 W) b) X)`),
		"is a matrix product (each element a row of reductions); fused into a reduction it would run one dot product at a time, so it is materialised")
	res, err := Fuse(parse(t, `X : f64[4,3]; W : f64[3,5];
		map (map (\v -> max v 0)) (map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W)) X)`), Options{})
	require.NoError(t, err)
	require.Len(t, res.Graph.Kernels, 1)
}

// Unfused schedules each kernel with the contract pass: the weight
// gradient's kernel runs the matrix product in W's layout, and a kernel
// without a contraction stays as written.
func TestUnfusedSchedulesContractions(t *testing.T) {
	g, err := Unfused(parse(t, `x : f32[4,16]; dY : f32[4,8]; W : f32[16,8]; b : f32[8];
		flip 0 (rnz (zip (zip (+))) (\r ct -> nzip (\c x1 ct1 -> zip (\x0 x11 -> ct1 * x0) r c) (flip 0 W) b ct) x dY)`))
	require.NoError(t, err)
	require.Len(t, g.Kernels, 1)
	require.Equal(t, `map (\x0 -> map (\ct1 -> rnz (+) (*) ct1 x0) (flip 0 dY)) (flip 0 x)`, graph.Print(g.Kernels[0].Body))
	require.Equal(t, []string{"x", "dY"}, []string{g.Kernels[0].Inputs[0].Name, g.Kernels[0].Inputs[1].Name})
	require.Len(t, g.Kernels[0].Inputs, 2, "W and b are no longer read")
	g, err = Unfused(parse(t, `x : f32[4,16]; map (\r -> zip (\a b -> a * b) r r) x`))
	require.NoError(t, err)
	require.Equal(t, `map (\r -> zip (\a b -> a * b) r r) x`, graph.Print(g.Kernels[0].Body))
}

// A view of a kernel's result is read in place by the kernels that use
// it, not copied by a kernel of its own.
func TestViewOfKernelResultIsNoKernel(t *testing.T) {
	g, err := Partition(parse(t, `A : f64[3,4]; B : f64[4,3]; zip (zip (+)) (flip 0 (map (map exp) A)) B`),
		func(n graph.Node) bool { return true })
	require.NoError(t, err)
	for _, k := range g.Kernels {
		if _, isFlip := k.Body.(*graph.Flip); isFlip {
			t.Errorf("kernel %s only transposes: %s", k.Name, graph.Print(k.Body))
		}
	}
	require.Len(t, g.Kernels, 2, "%s", g)
	require.Equal(t, `zip (zip (+)) (flip 0 t1_kernel) B`, graph.Print(g.Kernels[1].Body))
}

// sameArgProgram draws traversals that read one array twice or more,
// beside others: nzip or rnz (+) over a lambda whose parameters are bound
// to X0 or X1, repeated.
func sameArgProgram(r *rand.Rand, cfg graphtest.Config) (graph.Node, []*graph.Input) {
	if cfg.DType == graph.Invalid {
		cfg.DType = graph.Float64
	}
	n := 1 + r.IntN(5)
	ops := map[string]graph.Node{"X0": operand(r, cfg, "X0", n), "X1": operand(r, cfg, "X1", n)}
	var params, args, terms []string
	for i := range 2 + r.IntN(3) {
		params, args = append(params, fmt.Sprintf("p%d", i)), append(args, fmt.Sprintf("X%d", r.IntN(2)))
		terms = append(terms, fmt.Sprintf("p%d * %d", i, i+1))
	}
	fn := fmt.Sprintf("(\\%s -> %s)", strings.Join(params, " "), strings.Join(terms, " - "))
	hof := "nzip " + fn
	if r.IntN(2) == 0 {
		hof = "rnz (+) " + fn
	}
	return parseWith(hof+" "+strings.Join(args, " "), ops)
}

func TestSameArgLaw(t *testing.T) {
	st := checkLaw(t, SameArg{}, sameArgProgram, nil, exactTol)
	requireApplied(t, st, lawCases/2)
}

// TestDeadArgLifted drops the unread parameters of functions lifted by
// partial nzips, as reverse mode leaves them (a convolution's input
// gradient traverses the windows of the layer's input for their positions
// alone), and keeps the value.
func TestDeadArgLifted(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`A : f64[3,4]; B : f64[3,4]; zip (zip (\p q -> q * 2)) A B`, `map (map (\q -> q * 2)) B`},
		{`A : f64[3,4,2]; B : f64[3,4,2]; C : f64[3,4,2]; rnz (zip (zip (+))) (nzip (nzip (\p q r -> r + p))) A B C`,
			`rnz (zip (zip (+))) (zip (zip (\p r -> r + p))) A C`},
		{`A : f64[3,4]; B : f64[3,4]; zip (zip (\p q -> 1.5)) A B`, `map (map (\p -> 1.5)) A`},
	} {
		p, err := graph.Parse(c.src)
		require.NoError(t, err)
		ctx, err := newContext(p.Body)
		require.NoError(t, err)
		out, err := DeadArg{}.Rewrite(ctx, p.Body)
		require.NoError(t, err, c.src)
		require.Equal(t, c.want, graph.Print(out), c.src)
		in := graphtest.Inputs(graphtest.Rand(1), p.Inputs)
		want, err := graph.Eval(p.Body, in)
		require.NoError(t, err)
		got, err := graph.Eval(out, usedInputs(out, in))
		require.NoError(t, err)
		require.Nil(t, graph.Diff(want, got, 0), c.src)
	}
}

// A contraction that a map broadcasts (map (\a -> t) X, t not reading a)
// is contracted, if at all, at t's own node, which other terms share:
// contracted inside the broadcast alone, t took two forms, was computed
// by two kernels, and the two differed by rounding, so that t >= t came
// out false (the pipeline fuzzer's seed RNZOfRNZ/f32/5159).
func TestContractBroadcastShared(t *testing.T) {
	dot := parse(t, `x1 : f32[4,4]; x2 : f32[4,4]; rnz (zip (+)) (zip (*)) x1 x2`)
	x0 := must(graph.NewInput("x0", graph.ArrayOf(graph.Float32, 3, 4), false))
	term, _ := parseWith(`map (\a1 -> zip (\x z -> z >= x) a1 t) (map (\a -> t) x0)`, map[string]graph.Node{"t": dot, "x0": x0})
	out, err := newEngine(contractRules).run(term)
	require.NoError(t, err)
	require.NotContains(t, graph.Print(out), "rnz (+) (*)", "the broadcast's copy of t was contracted: %s", graph.Print(out))

	res, err := Fuse(term, Options{})
	require.NoError(t, err)
	var computing []string
	for _, k := range res.Graph.Kernels {
		if s := graph.Print(k.Body); strings.Contains(s, "(*)") {
			computing = append(computing, k.Name+" = "+s)
		}
	}
	require.Len(t, computing, 1, "t is computed by more than one kernel:\n%s", strings.Join(computing, "\n"))
}
