package graph_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// tb builds terms with the checked constructors, failing the test on a
// constructor error.
type tb struct{ t *testing.T }

func (b tb) ok(n graph.Node, err error) graph.Node {
	b.t.Helper()
	require.NoError(b.t, err)
	return n
}

func (b tb) call(op graph.Op, args ...graph.Node) graph.Node { return b.ok(graph.NewCall(op, args...)) }
func (b tb) ref(op graph.Op) graph.Node                      { return b.ok(graph.NewOpRef(op)) }
func (b tb) lam(body graph.Node, params ...*graph.Var) graph.Node {
	return b.ok(graph.NewLambda(params, body))
}
func (b tb) app(fn graph.Node, args ...graph.Node) graph.Node { return b.ok(graph.NewApp(fn, args...)) }
func (b tb) sec(op graph.Op, x graph.Node, left bool) graph.Node {
	return b.ok(graph.NewSection(op, x, left))
}
func (b tb) nzip(fn graph.Node, args ...graph.Node) graph.Node {
	return b.ok(graph.NewNZip(fn, args...))
}
func (b tb) rnz(red, fn graph.Node, args ...graph.Node) graph.Node {
	return b.ok(graph.NewRNZ(red, fn, args...))
}
func (b tb) let(v *graph.Var, value, body graph.Node) graph.Node {
	return b.ok(graph.NewLet(v, value, body))
}
func (b tb) tuple(elems ...graph.Node) graph.Node { return b.ok(graph.NewTuple(elems...)) }
func (b tb) proj(i int, x graph.Node) graph.Node  { return b.ok(graph.NewProj(i, x)) }

func num(v float64) graph.Node { return graph.NewConst(v) }

// printInputs are the inputs of the printer tests: scalars a, b, c, x and
// arrays A : f64[3], B : f64[4].
func printInputs(t *testing.T) (a, b, c, x, A, B *graph.Input) {
	s := graph.Scalar(graph.Float64)
	return newInput(t, "a", s), newInput(t, "b", s), newInput(t, "c", s), newInput(t, "x", s),
		newInput(t, "A", graph.ArrayOf(graph.Float64, 3)), newInput(t, "B", graph.ArrayOf(graph.Float64, 4))
}

// requireSameValue evaluates want and got, two forms of one term, on the
// same random inputs and requires equal results. A term that does not
// check (a function, say) is only required not to check either.
func requireSameValue(t *testing.T, want, got graph.Node) {
	t.Helper()
	_, errWant := graph.Check(want)
	_, errGot := graph.Check(got)
	if errWant != nil {
		require.Error(t, errGot, "%s checks after the round trip, but not before: %v", graph.Print(got), errWant)
		return
	}
	require.NoError(t, errGot)
	info, _ := graph.Check(want)
	vals, _ := randomBindings(t, rand.New(rand.NewPCG(3, 4)), info.Inputs)
	v1, err := graph.Eval(want, vals)
	require.NoError(t, err)
	v2, err := graph.Eval(got, vals)
	require.NoError(t, err)
	f1, e1 := valueFloats(t, v1)
	f2, e2 := valueFloats(t, v2)
	assert.Equal(t, e1, e2)
	assert.Equal(t, f1, f2)
}

// roundTrip requires Print(n) == want, and that want parses to a term that
// prints as want and evaluates as n does.
func roundTrip(t *testing.T, n graph.Node, want string, inputs ...*graph.Input) graph.Node {
	t.Helper()
	require.Equal(t, want, graph.Print(n))
	back, err := graph.ParseTerm(want, inputs...)
	require.NoError(t, err)
	require.Equal(t, want, graph.Print(back))
	requireSameValue(t, n, back)
	return back
}

func TestPrintPrecedence(t *testing.T) {
	b := tb{t}
	a, bb, c, x, A, B := printInputs(t)
	y, z, p, q := graph.NewVar("y"), graph.NewVar("z"), graph.NewVar("p"), graph.NewVar("q")
	for _, tc := range []struct {
		want string
		n    graph.Node
	}{
		{`a - (b - c)`, b.call(graph.Sub, a, b.call(graph.Sub, bb, c))},
		{`a - b - c`, b.call(graph.Sub, b.call(graph.Sub, a, bb), c)},
		{`(a + b) * c`, b.call(graph.Mul, b.call(graph.Add, a, bb), c)},
		{`a + b * c`, b.call(graph.Add, a, b.call(graph.Mul, bb, c))},
		{`a / (b * c)`, b.call(graph.Div, a, b.call(graph.Mul, bb, c))},
		{`-(-x)`, b.call(graph.Neg, b.call(graph.Neg, x))},
		{`-(a * b)`, b.call(graph.Neg, b.call(graph.Mul, a, bb))},
		{`-a * b`, b.call(graph.Mul, b.call(graph.Neg, a), bb)},
		{`-exp x`, b.call(graph.Neg, b.call(graph.Exp, x))},
		{`max x (-1)`, b.call(graph.Max, x, num(-1))},
		{`x - -1`, b.call(graph.Sub, x, num(-1))},
		{`-1 * x`, b.call(graph.Mul, num(-1), x)},
		{`exp (x + 0.5)`, b.call(graph.Exp, b.call(graph.Add, x, num(0.5)))},
		{`a + b < c`, b.call(graph.Lt, b.call(graph.Add, a, bb), c)},
		{`a - b == 0`, b.call(graph.Eq, b.call(graph.Sub, a, bb), num(0))},
		{`select (a < b) a (-b)`, b.call(graph.Select, b.call(graph.Lt, a, bb), a, b.call(graph.Neg, bb))},
		{`f32 (x * 1e-05)`, b.call(graph.ToF32, b.call(graph.Mul, x, num(1e-5)))},
		// Sections and op references.
		{`map (*2) A`, b.nzip(b.sec(graph.Mul, num(2), false), A)},
		{`map (2*) A`, b.nzip(b.sec(graph.Mul, num(2), true), A)},
		{`map (1-) A`, b.nzip(b.sec(graph.Sub, num(1), true), A)},
		{`map (\x -> x - 1) A`, b.nzip(b.sec(graph.Sub, num(1), false), A)},
		{`map (/(a + b)) A`, b.nzip(b.sec(graph.Div, b.call(graph.Add, a, bb), false), A)},
		{`map (+(-1)) A`, b.nzip(b.sec(graph.Add, num(-1), false), A)},
		{`map (<-a) A`, b.nzip(b.sec(graph.Lt, b.call(graph.Neg, a), false), A)},
		{`map (\x -> max x 0) A`, b.nzip(b.sec(graph.Max, num(0), false), A)},
		{`zip (+) A A`, b.nzip(b.ref(graph.Add), A, A)},
		{`reduce max A`, b.ok(graph.NewReduce(b.ref(graph.Max), A))},
		{`(+) a b`, b.app(b.ref(graph.Add), a, bb)},
		// Lambdas and lets in argument position.
		{`map (\y -> y * y) A`, b.nzip(b.lam(b.call(graph.Mul, y, y), y), A)},
		{`(\y -> y + 1) x`, b.app(b.lam(b.call(graph.Add, y, num(1)), y), x)},
		{`map (\y -> let z = y * y in z + z) A`,
			b.nzip(b.lam(b.let(z, b.call(graph.Mul, y, y), b.call(graph.Add, z, z)), y), A)},
		{`rnz (+) (\p q -> p * q) A A`, b.rnz(b.ref(graph.Add), b.lam(b.call(graph.Mul, p, q), p, q), A, A)},
		{`map (\y -> map (*y) B) A`, b.nzip(b.lam(b.nzip(b.sec(graph.Mul, y, false), B), y), A)},
		{`\y -> y + 1`, b.lam(b.call(graph.Add, y, num(1)), y)},
		{`x + (let z = x in z)`, b.call(graph.Add, x, b.let(z, x, z))},
		{`(fst (a, b), c)`, b.tuple(b.proj(0, b.tuple(a, bb)), c)},
	} {
		t.Run(tc.want, func(t *testing.T) {
			roundTrip(t, tc.n, tc.want, a, bb, c, x, A, B)
		})
	}
}

// TestPrintLetSharing checks that a closed term used twice is bound once
// with let, and that the let reads back to a term with the same value.
func TestPrintLetSharing(t *testing.T) {
	b := tb{t}
	_, _, _, _, A, B := printInputs(t)
	y := graph.NewVar("y")
	doubled := b.nzip(b.lam(b.call(graph.Mul, y, num(2)), y), A) // used twice
	n := b.nzip(b.ref(graph.Add), doubled, doubled)
	back := roundTrip(t, n, `let t1 = map (\y -> y * 2) A in zip (+) t1 t1`, A)
	_, isLet := back.(*graph.Let)
	assert.True(t, isLet)

	// Two shared terms, one inside the other, and the name t1 already taken
	// by an input.
	t1 := newInput(t, "t1", graph.ArrayOf(graph.Float64, 3))
	sum := b.rnz(b.ref(graph.Add), b.ref(graph.Mul), doubled, t1)
	scaled := b.nzip(b.sec(graph.Mul, sum, false), doubled)
	n = b.tuple(scaled, scaled, B)
	roundTrip(t, n, `let t11 = map (\y -> y * 2) A in let t2 = map (*(rnz (+) (*) t11 t1)) t11 in (t2, t2, B)`, A, B, t1)

	assert.Equal(t, `(map (*(rnz (+) (*) (map (\y -> y * 2) A) t1)) (map (\y -> y * 2) A), map (*(rnz (+) (*) (map (\y -> y * 2) A) t1)) (map (\y -> y * 2) A), B)`,
		graph.PrintWith(n, graph.PrintOptions{NoShare: true}))
}

// TestPrintSharedLiteral: a shared term made of literals reads no input,
// is untyped, and each use takes its context's type; bound with let it
// would be f64 (the let rule), and the f32 program graphtest drew, x0 :
// f32[1]; map (\c -> c / (S * S)) x0 with S = (\y -> -1) 1.5 one node,
// printed as a program that did not check ("div: operand types f32 and
// f64 differ"). Print writes such a term at each use.
func TestPrintSharedLiteral(t *testing.T) {
	b := tb{t}
	x0 := newInput(t, "x0", graph.ArrayOf(graph.Float32, 1))
	y, c := graph.NewVar("y"), graph.NewVar("c")
	lit := b.app(b.lam(b.call(graph.Neg, num(1)), y), num(1.5)) // one node, used twice
	n := b.nzip(b.lam(b.call(graph.Div, c, b.call(graph.Mul, lit, lit)), c), x0)
	_, err := graph.Check(n)
	require.NoError(t, err)
	back := roundTrip(t, n, `map (\c -> c / ((\y -> -1) 1.5 * (\y -> -1) 1.5)) x0`, x0)
	info, err := graph.Check(back)
	require.NoError(t, err)
	assert.Equal(t, "f32[1]", info.TypeOf(back).String())
	// 3 / (-1 * -1) = 3.
	three, err := graph.FromFloat32([]float32{3}, 1)
	require.NoError(t, err)
	v, err := graph.Eval(back, map[string]graph.Value{"x0": three})
	require.NoError(t, err)
	require.NoError(t, graph.Exact(three, v))

	// The let the printer no longer writes is f64, as the package doc says.
	_, err = graph.Parse(`x0 : f32[1]; let t1 = (\y -> -1) 1.5 in map (\c -> c / (t1 * t1)) x0`)
	require.NoError(t, err)
	_, err = graph.Check(graph.MustParseTerm(`let t1 = (\y -> -1) 1.5 in map (\c -> c / (t1 * t1)) x0`, x0))
	require.ErrorContains(t, err, "div: operand types f32 and f64 differ")
}

// TestPrintRenaming checks that distinct variables that share a name, or
// take the name of an input, a keyword or an op, print apart, and read back
// to a term with the same value.
func TestPrintRenaming(t *testing.T) {
	b := tb{t}
	_, _, _, _, A, B := printInputs(t)
	outer, inner := graph.NewVar("x"), graph.NewVar("x")
	n := b.nzip(b.lam(b.nzip(b.lam(b.call(graph.Sub, outer, inner), inner), B), outer), A)
	roundTrip(t, n, `map (\x -> map (\x1 -> x - x1) B) A`, A, B)

	// The inner x shadows nothing it uses, but is still renamed.
	n = b.nzip(b.lam(b.nzip(b.lam(b.call(graph.Mul, inner, num(2)), inner), B), outer), A)
	roundTrip(t, n, `map (\x -> map (\x1 -> x1 * 2) B) A`, A, B)

	vA := graph.NewVar("A")
	roundTrip(t, b.nzip(b.lam(b.call(graph.Mul, vA, num(2)), vA), A), `map (\A1 -> A1 * 2) A`, A)

	vMap, vExp, vBad := graph.NewVar("map"), graph.NewVar("exp"), graph.NewVar("2x")
	n = b.nzip(b.lam(b.call(graph.Add, b.call(graph.Mul, vMap, vExp), vBad), vMap, vExp, vBad), A, A, A)
	roundTrip(t, n, `nzip (\v exp_ v1 -> v * exp_ + v1) A A A`, A)

	// A let variable named like the name the printer gives a shared term.
	y := graph.NewVar("y")
	shared := b.nzip(b.lam(b.call(graph.Mul, y, y), y), A)
	tv := graph.NewVar("t1")
	n = b.let(tv, b.nzip(b.ref(graph.Add), shared, shared), b.nzip(b.ref(graph.Mul), tv, shared))
	roundTrip(t, n, `let t1 = map (\y -> y * y) A in let t11 = zip (+) t1 t1 in zip (*) t11 t1`, A)
}

// withSourceAll gives every node of n that can carry a source and has none
// the source src, as an importer names every node of a layer.
func withSourceAll(t *testing.T, n graph.Node, src string) graph.Node {
	t.Helper()
	out, err := graph.Rewrite(n, func(m graph.Node) (graph.Node, error) {
		if m.Source() != "" {
			return m, nil
		}
		return graph.WithSource(m, src), nil
	})
	require.NoError(t, err)
	return out
}

// requireSameSources walks two terms of the same shape in step and requires
// the same kind and source name at every node.
func requireSameSources(t *testing.T, want, got graph.Node) {
	t.Helper()
	require.IsType(t, want, got)
	require.Equal(t, want.Source(), got.Source(), "source of %s", graph.Print(want))
	wk, gk := graph.Children(want), graph.Children(got)
	require.Len(t, gk, len(wk))
	for i := range wk {
		requireSameSources(t, wk[i], gk[i])
	}
}

func TestPrintSources(t *testing.T) {
	b := tb{t}
	_, _, _, _, A, _ := printInputs(t)
	x, y := graph.NewVar("x"), graph.NewVar("y")
	scale := graph.WithSource(num(2), "dense/scale")
	dense := withSourceAll(t, b.nzip(b.lam(b.call(graph.Mul, x, scale), x), A), "dense")
	act := graph.WithSource(b.nzip(withSourceAll(t, b.lam(b.call(graph.Max, y, num(0)), y), "act relu"), dense), "act relu")
	n := withSourceAll(t, b.nzip(b.ref(graph.Add), act, dense), "map")

	opt := graph.PrintOptions{Sources: true, NoShare: true}
	want := `@"map" (zip (+) (@"act relu" (map (\y -> max y 0) (@dense (map (\x -> x * @"dense/scale" 2) A)))) (@dense (map (\x -> x * @"dense/scale" 2) A)))`
	require.Equal(t, want, graph.PrintWith(n, opt))
	assert.Equal(t, `zip (+) (map (\y -> max y 0) (map (\x -> x * 2) A)) (map (\x -> x * 2) A)`,
		graph.PrintWith(n, graph.PrintOptions{NoShare: true}))

	// An annotation holds for the whole subterm until another one: every
	// node of it reads back with its source.
	back, err := graph.ParseTerm(want, A)
	require.NoError(t, err)
	requireSameSources(t, n, back)
	assert.Equal(t, want, graph.PrintWith(back, opt))
	requireSameValue(t, n, back)

	// Shared, the let value keeps its annotation.
	shared := `let t1 = @dense (map (\x -> x * @"dense/scale" 2) A) in @"map" (zip (+) (@"act relu" (map (\y -> max y 0) t1)) t1)`
	require.Equal(t, shared, graph.PrintWith(n, graph.PrintOptions{Sources: true}))
	back, err = graph.ParseTerm(shared, A)
	require.NoError(t, err)
	assert.Equal(t, shared, graph.PrintWith(back, graph.PrintOptions{Sources: true}))
	requireSameValue(t, n, back)
}

// Inputs whose names are not identifiers, or are reserved words, print
// quoted and parse back.
func TestPrintQuotedInputNames(t *testing.T) {
	must := func(n graph.Node, err error) graph.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	W, err := graph.NewInput("dense/kernel:0", graph.ArrayOf(graph.Float64, 3, 2), true)
	if err != nil {
		t.Fatal(err)
	}
	m, err := graph.NewInput("map", graph.ArrayOf(graph.Float64, 2), false)
	if err != nil {
		t.Fatal(err)
	}
	x := graph.NewVar("x")
	add, _ := graph.NewOpRef(graph.Add)
	mul, _ := graph.NewOpRef(graph.Mul)
	body := must(graph.NewRNZ(add, mul, x, m))
	fn := must(graph.NewLambda([]*graph.Var{x}, body))
	term := must(graph.NewNZip(fn, W))
	src := (&graph.Program{Inputs: []*graph.Input{W, m}, Body: term}).String()
	if want := `param "dense/kernel:0" : f64[3,2]; "map" : f64[2]; map (\x -> rnz (+) (*) x "map") "dense/kernel:0"`; src != want {
		t.Fatalf("printed %s\nwant    %s", src, want)
	}
	prog, err := graph.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := prog.String(); got != src {
		t.Errorf("round trip: %s", got)
	}
	if _, err := graph.Parse(`"x/y" : f64[2]; map exp "x/z"`); err == nil || err.Error() != `1:25: undefined: input "x/z" (declare it before the term, as in "x/z" : f64[...];)` {
		t.Errorf("error: %v", err)
	}
}

// Infinite and NaN literals (the identities of max and min) print as inf,
// -inf and nan and parse back.
func TestPrintInfiniteLiterals(t *testing.T) {
	for _, src := range []string{
		`x : f64[3]; reduce max x`,
		`x : f64[3]; map (\v -> max v (-inf)) x`,
		`x : f64[3]; map (\v -> min v inf) x`,
		`x : f64[3]; map (\v -> select (v < 0) nan v) x`,
	} {
		prog, err := graph.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := prog.String(); got != src {
			t.Errorf("round trip of %s gave %s", src, got)
		}
	}
	c := graph.NewConst(math.Inf(-1))
	if got := graph.Print(c); got != "-inf" {
		t.Errorf("Print(-Inf) = %s", got)
	}
}
