package graph_test

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
)

// paperTol is the tolerance of the comparisons against plain Go loops: the
// terms sum at most a dozen f64 products of values in [-1, 1), in an order
// that may differ from the loop's.
const paperTol = 1e-12

// paperCase is an example term of the paper, written canonically in this
// package's conventions (axis 0 outermost), with the formula it computes.
type paperCase struct {
	name string
	// src is the canonical program: declarations, then the term. Print
	// must give the term back exactly.
	src string
	// extents of the result.
	extents []int
	// want computes the result, row-major, from the inputs' values
	// (row-major too), with plain loops.
	want func(in map[string][]float64) []float64
}

// matvec is w_i = sum_j A_ij u_j for A of n rows and m columns.
func matvec(in map[string][]float64, n, m int) []float64 {
	A, u := in["A"], in["u"]
	w := make([]float64, n)
	for i := range n {
		for j := range m {
			w[i] += A[i*m+j] * u[j]
		}
	}
	return w
}

// matmul is C_ik = sum_j A_ij B_jk g_j (g nil: 1) for A of n x m and B of
// m x p.
func matmul(A, B, g []float64, n, m, p int) []float64 {
	C := make([]float64, n*p)
	for i := range n {
		for k := range p {
			for j := range m {
				f := A[i*m+j] * B[j*p+k]
				if g != nil {
					f *= g[j]
				}
				C[i*p+k] += f
			}
		}
	}
	return C
}

// The matrix-vector arrangements use A : f64[8,6] and u : f64[6]: the
// subdivided rnz (1a-1c) splits the 6 columns into blocks of 3, the
// subdivided map (2a-2c) splits the 8 rows into blocks of 2.
//
// Working out the layouts with axis 0 outermost (the paper writes layouts
// innermost first, so its subdiv 0 is our subdiv 1 here):
//
//	1a  r ranges over rows, each [2 blocks, 3]     subdiv 1 3 A                        [8,2,3]
//	1b  C ranges over column blocks, each [8, 3]    flip 0 (subdiv 1 3 A)               [2,8,3]
//	1c  C as in 1b, but each [3, 8] (columns)       flip 1 (flip 0 (subdiv 1 3 A))      [2,3,8]
//	2a  C ranges over columns, each [4 blocks, 2]   subdiv 1 2 (flip 0 A)               [6,4,2]
//	2b  r ranges over row blocks, each [6, 2]       flip 0 (subdiv 1 2 (flip 0 A))      [4,6,2]
//	2c  R ranges over row blocks, each [2, 6]       flip 1 (flip 0 (subdiv 1 2 (flip 0 A)))  [4,2,6] = subdiv 0 2 A
//
// Each case is the previous one with one flip, as in the paper's derivation.
// The 2x cases compute w as [4,2] (row blocks of 2), which is w row-major.
const mvDecls = "A : f64[8,6]; u : f64[6]; "

func mv(in map[string][]float64) []float64 { return matvec(in, 8, 6) }

var paperCases = []paperCase{
	{"matvec rows", mvDecls + `map (\r -> rnz (+) (*) r u) A`, []int{8}, mv},
	{"matvec columns", mvDecls + `rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u`, []int{8}, mv},
	{"vector-matrix section 2", mvDecls + `map (\r -> reduce (+) (zip (*) r u)) A`, []int{8}, mv},
	{"1a", mvDecls + `map (\r -> rnz (+) (\b c -> rnz (+) (*) b c) r (subdiv 0 3 u)) (subdiv 1 3 A)`, []int{8}, mv},
	{"1b", mvDecls + `rnz (zip (+)) (\C c -> map (\r -> rnz (+) (*) r c) C) (flip 0 (subdiv 1 3 A)) (subdiv 0 3 u)`, []int{8}, mv},
	{"1c", mvDecls + `rnz (zip (+)) (\C d -> rnz (zip (+)) (\c e -> map (*e) c) C d) (flip 1 (flip 0 (subdiv 1 3 A))) (subdiv 0 3 u)`, []int{8}, mv},
	{"2a", mvDecls + `rnz (zip (zip (+))) (\C e -> map (\b -> map (*e) b) C) (subdiv 1 2 (flip 0 A)) u`, []int{4, 2}, mv},
	{"2b", mvDecls + `map (\r -> rnz (zip (+)) (\b e -> map (*e) b) r u) (flip 0 (subdiv 1 2 (flip 0 A)))`, []int{4, 2}, mv},
	{"2c", mvDecls + `map (\R -> map (\r -> rnz (+) (*) r u) R) (flip 1 (flip 0 (subdiv 1 2 (flip 0 A))))`, []int{4, 2}, mv},
	{"matmul naive", "A : f64[4,5]; B : f64[5,3]; " + `map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`, []int{4, 3},
		func(in map[string][]float64) []float64 { return matmul(in["A"], in["B"], nil, 4, 5, 3) }},
	{"eq 1 fused", "A : f64[5,7]; B : f64[5,7]; v : f64[7]; u : f64[7]; " +
		`zip (\a b -> rnz (+) (\x y p q -> (x + y) * (p + q)) a b v u) A B`, []int{5}, eq1},
	{"eq 1 unfused", "A : f64[5,7]; B : f64[5,7]; v : f64[7]; u : f64[7]; " +
		`map (\r -> rnz (+) (*) r (zip (+) v u)) (zip (zip (+)) A B)`, []int{5}, eq1},
	{"eq 2", "A : f64[4,5]; B : f64[5,3]; g : f64[5]; " +
		`map (\r -> map (\c -> rnz (+) (\a b h -> a * b * h) r c g) (flip 0 B)) A`, []int{4, 3},
		func(in map[string][]float64) []float64 { return matmul(in["A"], in["B"], in["g"], 4, 5, 3) }},
	{"dyadic product", "u : f64[3]; v : f64[4]; " + `map (\x -> map (\y -> x * y) u) v`, []int{4, 3}, dyadic(false)},
	{"dyadic product flipped", "u : f64[3]; v : f64[4]; " + `map (\y -> map (\x -> x * y) v) u`, []int{3, 4}, dyadic(true)},
	{"subdivided map", "v : f64[6]; " + `flatten 0 (map (map (\x -> x * x)) (subdiv 0 3 v))`, []int{6},
		func(in map[string][]float64) []float64 {
			out := make([]float64, 6)
			for i, x := range in["v"] {
				out[i] = x * x
			}
			return out
		}},
	{"subdivided rnz", "v : f64[6]; " + `rnz (+) (\xb -> rnz (+) (\x -> x * x) xb) (subdiv 0 3 v)`, nil,
		func(in map[string][]float64) []float64 {
			s := 0.0
			for _, x := range in["v"] {
				s += x * x
			}
			return []float64{s}
		}},
}

// eq1 is w_i = sum_j (A_ij + B_ij)(v_j + u_j) for 5 x 7 matrices.
func eq1(in map[string][]float64) []float64 {
	w := make([]float64, 5)
	for i := range 5 {
		for j := range 7 {
			w[i] += (in["A"][i*7+j] + in["B"][i*7+j]) * (in["v"][j] + in["u"][j])
		}
	}
	return w
}

// dyadic is the outer product v_i u_j, or u_j v_i (rows of u) when flipped.
func dyadic(flipped bool) func(map[string][]float64) []float64 {
	return func(in map[string][]float64) []float64 {
		u, v := in["u"], in["v"]
		var out []float64
		if flipped {
			for _, y := range u {
				for _, x := range v {
					out = append(out, x*y)
				}
			}
			return out
		}
		for _, x := range v {
			for _, y := range u {
				out = append(out, x*y)
			}
		}
		return out
	}
}

// randomBindings binds every input of prog to random values, and returns
// them also as row-major slices.
func randomBindings(t *testing.T, r *rand.Rand, inputs []*graph.Input) (map[string]graph.Value, map[string][]float64) {
	t.Helper()
	vals := map[string]graph.Value{}
	flat := map[string][]float64{}
	for _, in := range inputs {
		switch typ := in.Type.(type) {
		case *graph.ArrayType:
			a, err := graph.RandomArray(r, typ.DType, typ.Layout.Extents()...)
			require.NoError(t, err)
			vals[in.Name], flat[in.Name] = a, a.Values()
		case *graph.ScalarType:
			v := typ.DType.Round(2*r.Float64() - 1)
			vals[in.Name], flat[in.Name] = graph.ScalarValue{DType: typ.DType, V: v}, []float64{v}
		default:
			t.Fatalf("input %s of type %v", in.Name, in.Type)
		}
	}
	return vals, flat
}

// valueFloats returns the elements of a value, row-major, and its extents
// (none for a scalar); a tuple's elements and extents are its elements',
// one after the other.
func valueFloats(t *testing.T, v graph.Value) ([]float64, []int) {
	t.Helper()
	switch v := v.(type) {
	case *graph.Array:
		return v.Values(), v.Extents()
	case graph.ScalarValue:
		return []float64{v.V}, nil
	case graph.TupleValue:
		var vals []float64
		var ext []int
		for _, e := range v {
			ev, ee := valueFloats(t, e)
			vals, ext = append(vals, ev...), append(ext, ee...)
		}
		return vals, ext
	}
	t.Fatalf("value %v of type %T", v, v)
	return nil, nil
}

func newInput(t testing.TB, name string, typ graph.Type) *graph.Input {
	t.Helper()
	in, err := graph.NewInput(name, typ, false)
	require.NoError(t, err)
	return in
}

func requireClose(t *testing.T, want, got []float64, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], got[i], tol, "element %d: want %v, got %v", i, want, got)
	}
}

func TestParsePaperExamples(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range paperCases {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := graph.Parse(tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.src, prog.String(), "Program.String")
			term := tc.src[strings.LastIndex(tc.src, "; ")+2:]
			assert.Equal(t, term, graph.Print(prog.Body), "Print")

			info, err := graph.Check(prog.Body)
			require.NoError(t, err)
			wantType := graph.Type(graph.Scalar(graph.Float64))
			if tc.extents != nil {
				wantType = graph.ArrayOf(graph.Float64, tc.extents...)
			}
			assert.Equal(t, wantType.String(), info.TypeOf(prog.Body).String())

			for range 3 {
				vals, flat := randomBindings(t, r, prog.Inputs)
				got, err := graph.Eval(prog.Body, vals)
				require.NoError(t, err)
				gotFlat, ext := valueFloats(t, got)
				assert.Equal(t, tc.extents, ext)
				requireClose(t, tc.want(flat), gotFlat, paperTol)
			}
		})
	}
}

// TestParsePaperLayouts pins the layouts of the matrix in the six
// arrangements: which axis is which, and that 2c's is subdiv 0 2 A.
func TestParsePaperLayouts(t *testing.T) {
	A := newInput(t, "A", graph.ArrayOf(graph.Float64, 8, 6))
	for _, tc := range []struct {
		expr string
		want string
	}{
		{"subdiv 1 3 A", "f64[8,2,3]"},
		{"flip 0 (subdiv 1 3 A)", "f64<(2,3),(8,6),(3,1)>"},
		{"flip 1 (flip 0 (subdiv 1 3 A))", "f64<(2,3),(3,1),(8,6)>"},
		{"subdiv 1 2 (flip 0 A)", "f64<(6,1),(4,12),(2,6)>"},
		{"flip 0 (subdiv 1 2 (flip 0 A))", "f64<(4,12),(6,1),(2,6)>"},
		{"flip 1 (flip 0 (subdiv 1 2 (flip 0 A)))", "f64[4,2,6]"},
		{"subdiv 0 2 A", "f64[4,2,6]"},
	} {
		n := graph.MustParseTerm(tc.expr, A)
		info, err := graph.Check(n)
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.want, info.TypeOf(n).String(), tc.expr)
	}
}

// errorCase is a source that must not parse, and the exact error.
type errorCase struct {
	name, src, want string
}

// readErrorCases reads testdata/parse/errors.txt. Each case is
//
//	# name: what the case is about
//	the source, any number of lines (none for an empty source)
//	# want: line:col: message
//
// Lines outside a case are ignored; the source's lines are joined with
// newlines, without a final one, so positions count from the case's first
// line.
func readErrorCases(t testing.TB) []errorCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "parse", "errors.txt"))
	require.NoError(t, err)
	defer f.Close()
	var cases []errorCase
	var cur *errorCase
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# name: "):
			require.Nil(t, cur, "case %q has no want line", line)
			cur = &errorCase{name: strings.TrimPrefix(line, "# name: ")}
			lines = nil
		case strings.HasPrefix(line, "# want: "):
			require.NotNil(t, cur, "want line %q outside a case", line)
			cur.src = strings.Join(lines, "\n")
			cur.want = strings.TrimPrefix(line, "# want: ")
			cases = append(cases, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "last case has no want line")
	return cases
}

func TestParseErrors(t *testing.T) {
	cases := readErrorCases(t)
	require.GreaterOrEqual(t, len(cases), 12)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := graph.Parse(tc.src)
			require.Error(t, err, "parsed as %v", prog)
			var pe *graph.ParseError
			require.True(t, errors.As(err, &pe), "%T is not a *ParseError", err)
			assert.Equal(t, tc.want, err.Error())
			assert.Equal(t, tc.want, pe.Pos.String()+": "+pe.Msg)
		})
	}
}

func TestParseErrorNestingLimit(t *testing.T) {
	deep := strings.Repeat("(", 4*graph.MaxDepth) + "1" + strings.Repeat(")", 4*graph.MaxDepth)
	_, err := graph.ParseTerm(deep)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested too deeply")

	fine := strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500)
	n, err := graph.ParseTerm(fine)
	require.NoError(t, err)
	assert.Equal(t, "1", graph.Print(n))

	// A long let chain does not nest the parser's recursion: it is read
	// iteratively. The term it makes nests one level a let, and the
	// chain of graph.MaxDepth-2 lets whose innermost value is x + 1 is as
	// deep as a term may be.
	chain := func(lets int) string {
		var sb strings.Builder
		sb.WriteString("let x0 = 1 in ")
		for i := 1; i < lets; i++ {
			sb.WriteString("let x" + strconv.Itoa(i) + " = x" + strconv.Itoa(i-1) + " + 1 in ")
		}
		sb.WriteString("x" + strconv.Itoa(lets-1))
		return sb.String()
	}
	_, err = graph.ParseTerm(chain(graph.MaxDepth - 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the expression nests deeper than 10000 levels (graph.MaxDepth); split it with let")
	n, err = graph.ParseTerm(chain(graph.MaxDepth - 2))
	require.NoError(t, err)
	assert.Equal(t, graph.MaxDepth, graph.Depth(n))
	lets := 0
	var last *graph.Var
	for {
		l, ok := n.(*graph.Let)
		if !ok {
			break
		}
		lets, last, n = lets+1, l.Var, l.Body
	}
	assert.Equal(t, graph.MaxDepth-2, lets)
	assert.Same(t, last, n)
}

func TestParsePositions(t *testing.T) {
	src := "A : f64[4,3];\nparam u : f64[3];\n-- the rows of A\nmap (\\r -> rnz (+) (*) r u) A"
	prog, err := graph.Parse(src)
	require.NoError(t, err)
	require.Len(t, prog.Inputs, 2)
	A, u := prog.Inputs[0], prog.Inputs[1]
	assert.False(t, A.Param)
	assert.True(t, u.Param)

	pos := func(n graph.Node) string {
		p, ok := prog.Pos(n)
		require.True(t, ok, "no position for %s", graph.Print(n))
		return p.String()
	}
	m := prog.Body.(*graph.NZip)
	lam := m.Fn.(*graph.Lambda)
	rnz := lam.Body.(*graph.RNZ)
	assert.Equal(t, "4:1", pos(m))
	assert.Equal(t, "4:6", pos(lam))
	assert.Equal(t, "4:7", pos(lam.Params[0]), "a variable is where it is bound")
	assert.Equal(t, "4:12", pos(rnz))
	assert.Equal(t, "4:16", pos(rnz.Red))
	assert.Equal(t, "4:20", pos(rnz.Fn))
	assert.Equal(t, "1:1", pos(A), "a declared input is where it is declared")
	assert.Equal(t, "2:7", pos(u))
	assert.Same(t, lam.Params[0], rnz.Args[0], "a use is its binder")
	assert.Same(t, A, m.Args[0])

	_, ok := prog.Pos(graph.NewConst(1))
	assert.False(t, ok)
}

func TestParseGivenInputs(t *testing.T) {
	A := newInput(t, "A", graph.ArrayOf(graph.Float64, 4, 3))
	u := newInput(t, "u", graph.ArrayOf(graph.Float64, 3))
	unused := newInput(t, "w", graph.ArrayOf(graph.Float64, 2))

	n, err := graph.ParseTerm(`map (\r -> rnz (+) (*) r u) A`, A, u, unused)
	require.NoError(t, err)
	assert.Same(t, A, n.(*graph.NZip).Args[0])

	// A declaration shadows a given input of the same name; Inputs lists
	// the declared ones, then the given ones the term uses.
	prog, err := graph.Parse(`A : f32[2,3]; map (\r -> rnz (+) (*) r u) A`, A, u, unused)
	require.NoError(t, err)
	require.Len(t, prog.Inputs, 2)
	assert.NotSame(t, A, prog.Inputs[0])
	assert.Equal(t, "f32[2,3]", prog.Inputs[0].Type.String())
	assert.Same(t, u, prog.Inputs[1])
	assert.Equal(t, `A : f32[2,3]; u : f64[3]; map (\r -> rnz (+) (*) r u) A`, prog.String())

	// A variable shadows an input.
	n, err = graph.ParseTerm(`map (\u -> u * 2) u`, u)
	require.NoError(t, err)
	assert.Equal(t, `map (\u1 -> u1 * 2) u`, graph.Print(n))

	_, err = graph.ParseTerm(`map (\r -> r * 2) B`, A)
	assert.EqualError(t, err, `1:19: undefined: B (declare it before the term, as in B : f64[...];)`)

	assert.Panics(t, func() { graph.MustParseTerm("map") })
	assert.NotPanics(t, func() { graph.MustParseTerm("A", A) })
}

// TestParseCanonical checks Print(Parse(s)) == s for canonical texts of
// every construct, and that each parses to the node kind it names.
func TestParseCanonical(t *testing.T) {
	decls := "A : f64[4,3]; B : f64<(4,1),(3,4)>; x : f64; y : f32; c : bool; k : i32; "
	for _, tc := range []struct {
		src  string
		kind graph.Node
	}{
		{`x`, &graph.Input{}},
		{`2.5`, &graph.Const{}},
		{`-2`, &graph.Const{}},
		{`1e-05`, &graph.Const{}},
		{`1e+21`, &graph.Const{}},
		{`\a b -> a + b`, &graph.Lambda{}},
		{`(\a -> a * 2) x`, &graph.App{}},
		{`(+) x x`, &graph.App{}},
		{`id x`, &graph.App{}},
		{`(zip (+)) A B`, &graph.App{}},
		{`(+)`, &graph.OpRef{}},
		{`max`, &graph.OpRef{}},
		{`exp x`, &graph.Call{}},
		{`select c x 1`, &graph.Call{}},
		{`f32 x + y`, &graph.Call{}},
		{`-x`, &graph.Call{}},
		{`x <= 2`, &graph.Call{}},
		{`(*2)`, &graph.Section{}},
		{`(2*)`, &graph.Section{}},
		{`(x-)`, &graph.Section{}},
		{`(<-x)`, &graph.Section{}},
		{`id`, &graph.Ident{}},
		{`map exp (flip 0 A)`, &graph.NZip{}},
		{`zip (+) A B`, &graph.NZip{}},
		{`zip (+) A`, &graph.NZip{}},
		{`map (map (*2))`, &graph.NZip{}},
		{`nzip (\a b d -> a * b * d) A B A`, &graph.NZip{}},
		{`rnz max (\a b -> a - b) A B`, &graph.RNZ{}},
		{`reduce (zip (+)) A`, &graph.RNZ{}},
		{`rnz (+) id A B`, &graph.RNZ{}},
		{`subdiv 0 2 A`, &graph.Subdiv{}},
		{`flatten 0 (subdiv 0 2 A)`, &graph.Flatten{}},
		{`flip 0 A`, &graph.Flip{}},
		{`flip 1 0 A`, &graph.Flip{}},
		{`flip 0 0 A`, &graph.Flip{}},
		{`(x, A, (k, c))`, &graph.Tuple{}},
		{`fst (x, y)`, &graph.Proj{}},
		{`snd (x, y)`, &graph.Proj{}},
		{`proj 2 (x, y, k)`, &graph.Proj{}},
		{`let a = x * x in a + a`, &graph.Let{}},
		{`let f = \a -> a * 2 in map f A`, &graph.Let{}},
		{`let a = x in let b = a in b`, &graph.Let{}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			prog, err := graph.Parse(decls + tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.src, graph.Print(prog.Body))
			assert.IsType(t, tc.kind, prog.Body)
			again, err := graph.Parse(prog.String())
			require.NoError(t, err)
			assert.Equal(t, prog.String(), again.String())
		})
	}
}

// TestParseNonCanonical checks texts that parse but print differently.
func TestParseNonCanonical(t *testing.T) {
	decls := "A : f64[4,3]; x : f64; "
	for _, tc := range []struct{ src, want string }{
		{`input x2 : f64; x2`, `x2`},
		{`x -- a comment`, `x`},
		{"(\n  x\n)", `x`},
		{`- 1`, `-1`},
		{`-(1)`, `-1`},
		{`- - x`, `-(-x)`},
		{`((x))`, `x`},
		{`(x + 1) + 2`, `x + 1 + 2`},
		{`lift (+)`, `zip (+)`},
		{`map (+) A`, `zip (+) A`},
		{`rnz max id A`, `reduce max A`},
		{`flip 1 2 A`, `flip 1 A`},
		{`proj 0 (x, x)`, `fst (x, x)`},
		{`add x 1`, `x + 1`},
		{`neg x`, `-x`},
		{`(max) x 1`, `max x 1`},
		{`(-1*)`, `((-1)*)`},
		{`(x +)`, `(x+)`},
		{`(* 2)`, `(*2)`},
		{`(+exp x)`, `(+exp x)`},
		{`@dense (x + 1)`, `x + 1`},
		{`map (\A -> A * 2) A`, `map (\A1 -> A1 * 2) A`},
		{`1E3`, `1000`},
		{`1e-999`, `0`},
		{`0.50`, `0.5`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			prog, err := graph.Parse(decls + tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.want, graph.Print(prog.Body))
		})
	}
}

// FuzzParse checks that the parser never panics and returns only
// *ParseErrors, and that whatever parses prints as a text that parses
// again and prints the same (with and without source annotations).
func FuzzParse(f *testing.F) {
	for _, tc := range paperCases {
		f.Add(tc.src)
	}
	for _, tc := range readErrorCases(f) {
		f.Add(tc.src)
	}
	for _, s := range []string{
		`x : f64; @dense (map (\y -> @"act 1" (max y 0)) (flip 0 A))`,
		`A : f64[2]; let t = map (*2) A in zip (+) t t`,
		`x : f64; (-1*) ((x<) 2) + (<-x) 1 - -x - (x-) 2`,
		`x : f64; (\a b -> a) (x, x) (fst (x, 1e-05))`,
		`A : f64<(2,3),(3,1)>; param B : bool[1]; select (B < 1) (proj 3 A) (A A)`,
		`f : f64; let g = (+) in g f 2 -- comment`,
		"\"\\\"\" @",
		"flip 0 1 0", // prints as flip 0 0, whose 0 is the array
		`@"A."0`,     // A. is a name
		"dense.kernel : f64[2]; param u' : f64[2]; zip (+) dense.kernel u'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := graph.Parse(src)
		if err != nil {
			var pe *graph.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not a *ParseError", err, err)
			}
			if pe.Pos.Line < 1 || pe.Pos.Col < 1 {
				t.Fatalf("error %v has position %v", err, pe.Pos)
			}
			return
		}
		for _, opt := range []graph.PrintOptions{{}, {Sources: true}} {
			s1 := graph.PrintWith(prog.Body, opt)
			body, err := graph.ParseTerm(s1, prog.Inputs...)
			if err != nil {
				t.Fatalf("%q parses to a term that prints as %q, which does not parse: %v", src, s1, err)
			}
			if s2 := graph.PrintWith(body, opt); s2 != s1 {
				t.Fatalf("%q prints as %q, which prints as %q", src, s1, s2)
			}
		}
		s1 := prog.String()
		again, err := graph.Parse(s1)
		if err != nil {
			t.Fatalf("program %q prints as %q, which does not parse: %v", src, s1, err)
		}
		if s2 := again.String(); s2 != s1 {
			t.Fatalf("program %q prints as %q, which prints as %q", src, s1, s2)
		}
	})
}
