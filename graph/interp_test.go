package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func randArray(r *rand.Rand, dt DType, extents ...int) *Array {
	return must(RandomArray(r, dt, extents...))
}

func TestEvalMatVecBothForms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, dt := range []DType{Float32, Float64} {
		A := input("A", dt, 5, 7)
		u := input("u", dt, 7)
		a, uv := randArray(r, dt, 5, 7), randArray(r, dt, 7)
		in := map[string]Value{"A": a, "u": uv}

		// Row form: map (\r -> rnz (+) (*) r u) A.
		rows := must(Eval(matvec(A, u), in)).(*Array)
		// Column form: rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u.
		cols := must(Eval(must(NewRNZ(must(NewNZip(op(Add))),
			lam(func(v ...*Var) Node { return must(NewNZip(must(NewSection(Mul, v[1], false)), v[0])) }, "c", "q"),
			must(NewFlip(0, 1, A)), u)), in)).(*Array)

		assert.Equal(t, dt, rows.DType())
		for i := range 5 {
			// A plain loop in the element type: each product and sum is
			// rounded to dt, as the interpreter rounds every operation.
			want := 0.0
			for j := range 7 {
				want = dt.Round(want + dt.Round(a.At(i, j)*uv.At(j)))
			}
			assert.Equal(t, want, rows.At(i), "%v row form, row %d", dt, i)
			// The column form adds the same products in the same order.
			assert.Equal(t, want, cols.At(i), "%v column form, row %d", dt, i)
		}
	}
}

func TestEvalFloat32Rounds(t *testing.T) {
	x := must(NewInput("x", Scalar(Float32), false))
	// 0.1 is rounded to float32 before it meets x, as a typed constant would be.
	sum := call(Add, x, NewConst(0.1))
	v := must(Eval(sum, map[string]Value{"x": ScalarValue{Float32, float64(float32(1))}}))
	assert.Equal(t, ScalarValue{Float32, float64(float32(1) + float32(0.1))}, v)
	// Untyped arithmetic stays exact until it meets a type, then defaults to f64.
	v = must(Eval(call(Div, NewConst(1), NewConst(3)), nil))
	assert.Equal(t, ScalarValue{Float64, 1.0 / 3}, v)
}

// TestEvalTupleReduction computes a mean and a variance with one traversal
// and a tuple accumulator, as horizontal fusion produces them.
func TestEvalTupleReduction(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	x := input("x", Float64, 9)
	xv := randArray(r, Float64, 9)
	sums := must(NewRNZ(
		lam(func(v ...*Var) Node {
			return must(NewTuple(call(Add, must(NewProj(0, v[0])), must(NewProj(0, v[1]))),
				call(Add, must(NewProj(1, v[0])), must(NewProj(1, v[1])))))
		}, "a", "b"),
		lam(func(v ...*Var) Node { return must(NewTuple(v[0], call(Mul, v[0], v[0]))) }, "e"),
		x))
	s := NewVar("s")
	stats := must(NewLet(s, sums, must(NewTuple(
		call(Div, must(NewProj(0, s)), NewConst(9)),
		call(Sub, call(Div, must(NewProj(1, s)), NewConst(9)),
			call(Mul, call(Div, must(NewProj(0, s)), NewConst(9)), call(Div, must(NewProj(0, s)), NewConst(9))))))))
	got := must(Eval(stats, map[string]Value{"x": xv})).(TupleValue)
	var sum, sq float64
	for i := range 9 {
		sum += xv.At(i)
		sq += xv.At(i) * xv.At(i)
	}
	mean := sum / 9
	assert.Equal(t, ScalarValue{Float64, mean}, got[0])
	assert.InDelta(t, sq/9-mean*mean, got[1].(ScalarValue).V, 1e-15)
}

func TestEvalNestedAndViews(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	A := input("A", Float64, 4, 6)
	a := randArray(r, Float64, 4, 6)
	in := map[string]Value{"A": a}

	// flatten 1 (subdiv 1 3 A) is A again; nzip over it copies A.
	back := must(NewNZip(lam(func(v ...*Var) Node { return must(NewNZip(must(NewOpRef(Neg)), v[0])) }, "row"),
		must(NewFlatten(1, must(NewSubdiv(1, 3, A))))))
	got := must(Eval(back, in)).(*Array)
	assert.Equal(t, []int{4, 6}, got.Extents())
	for i := range 4 {
		for j := range 6 {
			assert.Equal(t, -a.At(i, j), got.At(i, j))
		}
	}

	// Block sums: map (\blk -> reduce (+) blk) over each row's blocks of 3.
	blocks := must(NewNZip(lam(func(v ...*Var) Node {
		return must(NewNZip(lam(func(w ...*Var) Node { return must(NewReduce(op(Add), w[0])) }, "blk"), v[0]))
	}, "row"), must(NewSubdiv(1, 3, A))))
	bs := must(Eval(blocks, in)).(*Array)
	assert.Equal(t, []int{4, 2}, bs.Extents())
	for i := range 4 {
		for b := range 2 {
			want := a.At(i, 3*b) + a.At(i, 3*b+1) + a.At(i, 3*b+2)
			assert.Equal(t, want, bs.At(i, b))
		}
	}

	// A left section and an applied lambda.
	f := lam(func(v ...*Var) Node { return call(Max, v[0], NewConst(0)) }, "x")
	relu := must(NewNZip(lam(func(v ...*Var) Node {
		return must(NewNZip(lam(func(w ...*Var) Node { return must(NewApp(f, w[0])) }, "e"),
			must(NewNZip(must(NewSection(Sub, NewConst(1), true)), v[0]))))
	}, "row"), A))
	rl := must(Eval(relu, in)).(*Array)
	for i := range 4 {
		for j := range 6 {
			assert.Equal(t, math.Max(1-a.At(i, j), 0), rl.At(i, j))
		}
	}
}

func TestEvalLetFunction(t *testing.T) {
	u := input("u", Float32, 3)
	sq := NewVar("sq")
	body := must(NewNZip(sq, u))
	prog := must(NewLet(sq, lam(func(v ...*Var) Node { return call(Mul, v[0], v[0]) }, "x"), body))
	uv := must(FromFloat32([]float32{1, -2, 3}, 3))
	got := must(Eval(prog, map[string]Value{"u": uv})).(*Array)
	assert.Equal(t, []float64{1, 4, 9}, got.Values())
}

func TestEvalSharedTermOnce(t *testing.T) {
	u := input("u", Float64, 3)
	s := must(NewReduce(op(Add), u))
	both := must(NewTuple(s, s))
	uv := must(FromFloat64([]float64{1, 2, 3}, 3))
	got := must(Eval(both, map[string]Value{"u": uv})).(TupleValue)
	assert.Equal(t, TupleValue{ScalarValue{Float64, 6}, ScalarValue{Float64, 6}}, got)
}

func TestEvalBindingErrors(t *testing.T) {
	A := input("A", Float32, 2, 3)
	u := input("u", Float32, 3)
	mv := matvec(A, u)
	a := must(FromFloat32(make([]float32, 6), 2, 3))
	u32 := must(FromFloat32(make([]float32, 3), 3))
	tests := []struct {
		name string
		in   map[string]Value
		want string
	}{
		{"missing", map[string]Value{"A": a}, "eval: input u (f32[3]) is not bound"},
		{"wrong extents", map[string]Value{"A": a, "u": must(FromFloat32(make([]float32, 4), 4))},
			"eval: input u needs f32[3], got f32[4]"},
		{"wrong dtype", map[string]Value{"A": a, "u": must(FromFloat64(make([]float64, 3), 3))},
			"eval: input u needs f32[3], got f64[3]"},
		{"scalar for array", map[string]Value{"A": a, "u": ScalarValue{Float32, 1}},
			"eval: input u needs an array of type f32[3], got f32(1)"},
		{"unknown name", map[string]Value{"A": a, "u": u32, "v": u32},
			"eval: v bound, but the program has no such input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Eval(mv, tc.in)
			assert.EqualError(t, err, tc.want)
		})
	}
}

func TestEvalRelayoutsInputs(t *testing.T) {
	// A transposed view bound to a row-major input is copied into the
	// declared layout, so the result is the same as for a copy.
	A := input("A", Float64, 3, 2)
	u := input("u", Float64, 2)
	base := must(FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3))
	at := must(base.Flip(0, 1)) // [[1 4] [2 5] [3 6]]
	uv := must(FromFloat64([]float64{1, 10}, 2))
	got := must(Eval(matvec(A, u), map[string]Value{"A": at, "u": uv})).(*Array)
	assert.Equal(t, []float64{41, 52, 63}, got.Values())
}
