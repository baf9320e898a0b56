package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func input(name string, dt DType, extents ...int) *Input {
	return must(NewInput(name, ArrayOf(dt, extents...), false))
}

func op(o Op) *OpRef { return must(NewOpRef(o)) }

func lam(body func(vs ...*Var) Node, names ...string) *Lambda {
	vs := make([]*Var, len(names))
	for i, n := range names {
		vs[i] = NewVar(n)
	}
	return must(NewLambda(vs, body(vs...)))
}

func call(o Op, args ...Node) *Call { return must(NewCall(o, args...)) }

// matvec is map (\r -> rnz (+) (*) r u) A.
func matvec(A, u Node) Node {
	return must(NewNZip(lam(func(v ...*Var) Node { return must(NewRNZ(op(Add), op(Mul), v[0], u)) }, "r"), A))
}

func TestCheckTypes(t *testing.T) {
	A := input("A", Float32, 4, 3)
	u := input("u", Float32, 3)
	mv := matvec(A, u)
	info, err := Check(mv)
	require.NoError(t, err)
	assert.Equal(t, "f32[4]", info.TypeOf(mv).String())
	assert.Equal(t, []*Input{A, u}, info.Inputs)

	// map over the rows of A, each row kept: an array result gains an axis.
	rows := must(NewNZip(lam(func(v ...*Var) Node {
		return must(NewNZip(must(NewSection(Mul, NewConst(2), false)), v[0]))
	}, "r"), A))
	info, err = Check(rows)
	require.NoError(t, err)
	assert.Equal(t, "f32[4,3]", info.TypeOf(rows).String())

	// A view keeps its strides in the type.
	fl := must(NewFlip(0, 1, A))
	info, err = Check(fl)
	require.NoError(t, err)
	assert.Equal(t, "f32<(3,1),(4,3)>", info.TypeOf(fl).String())

	// A tuple-valued map is a tuple of arrays; a tuple reduction sums both.
	pairs := must(NewNZip(lam(func(v ...*Var) Node {
		return must(NewTuple(v[0], call(Mul, v[0], v[0])))
	}, "x"), u))
	sums := must(NewReduce(lam(func(v ...*Var) Node {
		return must(NewTuple(call(Add, must(NewProj(0, v[0])), must(NewProj(0, v[1]))),
			call(Add, must(NewProj(1, v[0])), must(NewProj(1, v[1])))))
	}, "a", "b"), pairs))
	info, err = Check(sums)
	require.NoError(t, err)
	assert.Equal(t, "(f32[3], f32[3])", info.TypeOf(pairs).String())
	assert.Equal(t, "(f32, f32)", info.TypeOf(sums).String())

	// Literals adopt their partner's type; alone they default to f64.
	half := must(NewNZip(lam(func(v ...*Var) Node { return call(Mul, NewConst(0.5), v[0]) }, "x"), u))
	info, err = Check(half)
	require.NoError(t, err)
	assert.Equal(t, "f32[3]", info.TypeOf(half).String())
	ones := must(NewNZip(lam(func(v ...*Var) Node { return NewConst(1) }, "x"), u))
	info, err = Check(ones)
	require.NoError(t, err)
	assert.Equal(t, "f64[3]", info.TypeOf(ones).String())
}

func TestCheckErrors(t *testing.T) {
	A := input("A", Float64, 4, 3)
	u := input("u", Float64, 3)
	w := input("w", Float64, 5)
	B := input("B", Float32, 4, 3)
	x := NewVar("x")
	tests := []struct {
		name string
		term Node
		want string
	}{
		{"extents differ", must(NewNZip(op(Add), u, w)),
			"zip (+) u w: nzip arguments have different outer extents: argument 0 has 3, argument 1 has 5"},
		{"rnz extents differ", must(NewRNZ(op(Add), op(Mul), u, w)),
			"rnz (+) (*) u w: rnz arguments have different outer extents: argument 0 has 3, argument 1 has 5"},
		{"row against wrong vector", matvec(A, w),
			"rnz (+) (*) r w: rnz arguments have different outer extents: argument 0 has 3, argument 1 has 5"},
		{"dtypes differ", must(NewNZip(op(Add), u, must(NewReduce(must(NewNZip(op(Add))), B)))),
			"(+): add: operand types f64 and f32 differ"},
		{"function as value", op(Add),
			"(+): a function is used as a value; apply it to arguments"},
		{"unbound variable", must(NewNZip(op(Neg), x)),
			"x: variable x is not bound here"},
		{"arity", must(NewNZip(lam(func(v ...*Var) Node { return v[0] }, "a", "b"), u)),
			"\\a b -> a: function of 2 parameters applied to 1 arguments"},
		{"scalar op on arrays", must(NewNZip(op(Add), A, A)),
			"(+): add: operand 0 has type f64[3], not a scalar"},
		{"map over a scalar", must(NewNZip(op(Neg), must(NewReduce(op(Add), u)))),
			"map neg (reduce (+) u): nzip argument 0: f64 has no outer axis to traverse"},
		{"reduction does not fit", must(NewRNZ(op(Add), lam(func(v ...*Var) Node { return v[0] }, "r"), A)),
			"(+): add: operand 0 has type f64[3], not a scalar"},
		{"reduction changes type", must(NewReduce(lam(func(v ...*Var) Node { return call(Lt, v[0], v[1]) }, "a", "b"), u)),
			"reduce (\\a b -> a < b) u: reduction operator returns bool for elements of type f64"},
		{"subdiv block", must(NewSubdiv(1, 2, A)),
			"subdiv 1 2 A: subdiv: block 2 does not divide extent 3 of axis 1 in layout <(4,3),(3,1)>"},
		{"subdiv axis", must(NewSubdiv(2, 1, A)),
			"subdiv 2 1 A: subdiv: axis 2 out of range for rank 2 in layout <(4,3),(3,1)>"},
		{"flatten of a flip", must(NewFlatten(0, must(NewFlip(0, 1, A)))),
			"flatten 0 (flip 0 A): flatten: axes 0 and 1 are not contiguous: stride 1 of axis 0 is not extent 4 times stride 3 of axis 1 in layout <(3,1),(4,3)>"},
		{"flip of a scalar", must(NewFlip(0, 1, must(NewReduce(op(Add), u)))),
			"flip 0 (reduce (+) u): operand has type f64, not an array"},
		{"projection of non-tuple", must(NewProj(0, u)),
			"fst u: projection 0 of f64[3], which is not a tuple"},
		{"projection out of range", must(NewProj(2, must(NewTuple(u, u)))),
			"proj 2 (u, u): projection 2 of a 2-tuple"},
		{"select condition", must(NewNZip(lam(func(v ...*Var) Node { return call(Select, v[0], v[0], v[0]) }, "x"), u)),
			"select x x x: select: condition of type f64 is not bool"},
		{"exp of bool", must(NewNZip(lam(func(v ...*Var) Node { return call(Exp, call(Lt, v[0], NewConst(0))) }, "x"), u)),
			"exp (x < 0): exp: operands of type bool are not floating-point"},
		{"apply a value", must(NewApp(x, u)),
			"x: variable x is not bound here"},
		{"not a function", must(NewNZip(u, u)),
			"u: not a function; a lambda, an op, a section, id or a partial nzip is needed here"},
		{"two inputs one name", must(NewNZip(op(Add), u, input("u", Float64, 3))),
			"u: two different inputs are named u"},
		{"nzip without arguments", must(NewNZip(op(Neg))),
			"map neg: nzip without arguments is a function; apply it to arrays"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(tc.term)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var ce *Error
			require.ErrorAs(t, err, &ce)
		})
	}
}

func TestCheckErrorNamesSource(t *testing.T) {
	u := input("u", Float64, 3)
	w := input("w", Float64, 5)
	bad := WithSource(must(NewNZip(op(Add), u, w)), "dense1")
	_, err := Check(bad)
	assert.EqualError(t, err, "zip (+) u w: nzip arguments have different outer extents: argument 0 has 3, argument 1 has 5 (in dense1)")
}

func TestConstructorErrors(t *testing.T) {
	u := input("u", Float64, 3)
	x := NewVar("x")
	_, err := NewLambda([]*Var{x, x}, x)
	assert.EqualError(t, err, "lambda: parameter x bound twice")
	_, err = NewLambda(nil, x)
	assert.EqualError(t, err, "lambda: no parameters")
	_, err = NewCall(Add, u)
	assert.EqualError(t, err, "call: add takes 2 operands, got 1")
	_, err = NewSubdiv(0, 0, u)
	assert.EqualError(t, err, "subdiv: block 0 of axis 0 is less than 1")
	_, err = NewFlip(-1, 0, u)
	assert.EqualError(t, err, "flip: negative axis in flip -1 0")
	_, err = NewNZip(nil, u)
	assert.EqualError(t, err, "nzip function: nil node")
	var nilInput *Input
	_, err = NewNZip(op(Neg), nilInput)
	assert.EqualError(t, err, "nzip: argument 0: nil node")
	_, err = NewRNZ(op(Add), op(Mul))
	assert.EqualError(t, err, "rnz: no array arguments")
	_, err = NewTuple(u)
	assert.EqualError(t, err, "tuple: 1 elements, need at least 2")
	_, err = NewSection(Exp, u, false)
	assert.EqualError(t, err, "section: exp is not a binary op")
	_, err = NewInput("A", &ArrayType{DType: Float32, Layout: Layout{{3, 1}, {0, 1}}}, false)
	assert.EqualError(t, err, "input A: layout: extent 0 of axis 1 is less than 1 in layout <(3,1),(0,1)>")
	_, err = NewInput("", Scalar(Float32), false)
	assert.EqualError(t, err, "input: empty name")
}

// TestUnderZips peels the partial nzips around a function and LiftZips
// puts them back.
func TestUnderZips(t *testing.T) {
	for _, c := range []struct {
		src    string
		levels int
		under  string
	}{
		{`\a b -> a * b`, 0, `\a b -> a * b`},
		{`zip (\a b -> a * b)`, 1, `\a b -> a * b`},
		{`nzip (nzip (nzip (+)))`, 3, `(+)`},
		{`exp`, 0, `exp`},
	} {
		f, err := ParseTerm(c.src)
		if err != nil {
			t.Fatal(err)
		}
		g, levels := UnderZips(f)
		if levels != c.levels || Print(g) != c.under {
			t.Errorf("UnderZips(%s) = %s, %d; want %s, %d", c.src, Print(g), levels, c.under, c.levels)
		}
		back, err := LiftZips(g, levels)
		if err != nil {
			t.Fatal(err)
		}
		if Print(back) != Print(f) {
			t.Errorf("LiftZips(UnderZips(%s)) = %s", c.src, Print(back))
		}
	}
}
