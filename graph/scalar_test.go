package graph_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// TestResolve: the typing rules of scalar ops and untyped literals
// (graph.Invalid), which the checker, the interpreter and both back ends
// share.
func TestResolve(t *testing.T) {
	const (
		u   = graph.Invalid
		f32 = graph.Float32
		f64 = graph.Float64
		i32 = graph.Int32
		b   = graph.Bool
	)
	for _, tc := range []struct {
		op       graph.Op
		in       []graph.DType
		operands []graph.DType
		result   graph.DType
		err      string
	}{
		{op: graph.Add, in: []graph.DType{f32, u}, operands: []graph.DType{f32, f32}, result: f32},
		{op: graph.Add, in: []graph.DType{u, i32}, operands: []graph.DType{i32, i32}, result: i32},
		{op: graph.Max, in: []graph.DType{u, u}, operands: []graph.DType{u, u}, result: u},
		{op: graph.Exp, in: []graph.DType{u}, operands: []graph.DType{u}, result: u},
		{op: graph.Lt, in: []graph.DType{u, u}, operands: []graph.DType{f64, f64}, result: b},
		{op: graph.Lt, in: []graph.DType{i32, u}, operands: []graph.DType{i32, i32}, result: b},
		{op: graph.And, in: []graph.DType{u, u}, operands: []graph.DType{b, b}, result: b},
		{op: graph.Select, in: []graph.DType{u, u, f32}, operands: []graph.DType{b, f32, f32}, result: f32},
		{op: graph.Select, in: []graph.DType{b, u, u}, operands: []graph.DType{b, f64, f64}, result: f64},
		{op: graph.ToI32, in: []graph.DType{u}, operands: []graph.DType{f64}, result: i32},
		{op: graph.ToF32, in: []graph.DType{i32}, operands: []graph.DType{i32}, result: f32},
		{op: graph.Add, in: []graph.DType{f32, f64}, err: "add: operand types f32 and f64 differ"},
		{op: graph.Exp, in: []graph.DType{i32}, err: "exp: operands of type i32 are not floating-point"},
		{op: graph.Add, in: []graph.DType{b, b}, err: "add: operands of type bool are not numeric"},
		{op: graph.Not, in: []graph.DType{f32}, err: "not: operand of type f32 is not bool"},
		{op: graph.Select, in: []graph.DType{f32, f32, f32}, err: "select: condition of type f32 is not bool"},
		{op: graph.Add, in: []graph.DType{f32}, err: "add takes 2 operands, got 1"},
	} {
		t.Run(fmt.Sprintf("%v%v", tc.op, tc.in), func(t *testing.T) {
			ops, res, err := tc.op.Resolve(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ops) != fmt.Sprint(tc.operands) || res != tc.result {
				t.Errorf("Resolve = %v, %v; want %v, %v", ops, res, tc.operands, tc.result)
			}
		})
	}
}

// TestEvalScalars: Op.Eval on the values the package doc's scalar
// semantics single out, with the expected results written from the
// definitions.
func TestEvalScalars(t *testing.T) {
	nan, inf, negz := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	for _, tc := range []struct {
		op   graph.Op
		dt   graph.DType
		args []float64
		want float64
	}{
		{graph.Max, graph.Float64, []float64{nan, inf}, nan},
		{graph.Max, graph.Float32, []float64{inf, nan}, nan},
		{graph.Min, graph.Float64, []float64{-inf, nan}, nan},
		{graph.Max, graph.Float64, []float64{negz, 0}, 0},
		{graph.Min, graph.Float64, []float64{0, negz}, negz},
		{graph.Max, graph.Invalid, []float64{negz, 0}, 0},
		{graph.Add, graph.Int32, []float64{math.MaxInt32, 1}, math.MinInt32},
		{graph.Mul, graph.Int32, []float64{46341, 46341}, -2147479015},
		{graph.Div, graph.Int32, []float64{5, 0}, -1},
		{graph.Div, graph.Int32, []float64{math.MinInt32, -1}, math.MinInt32},
		{graph.Div, graph.Int32, []float64{-7, 2}, -3},
		{graph.Neg, graph.Int32, []float64{math.MinInt32}, math.MinInt32},
		{graph.Abs, graph.Int32, []float64{math.MinInt32}, math.MinInt32},
		{graph.ToI32, graph.Int32, []float64{nan}, 0},
		{graph.ToI32, graph.Int32, []float64{-inf}, math.MinInt32},
		{graph.ToI32, graph.Int32, []float64{2147483647.9}, math.MaxInt32},
		{graph.ToI32, graph.Int32, []float64{-2.9}, -2},
		{graph.ToF32, graph.Float32, []float64{1e300}, inf},
		{graph.Add, graph.Float32, []float64{1, 1e-8}, 1},
		{graph.Select, graph.Float64, []float64{0, 1, 2}, 2},
	} {
		got, err := tc.op.Eval(tc.dt, tc.args...)
		if err != nil {
			t.Errorf("%v %v %v: %v", tc.op, tc.dt, tc.args, err)
			continue
		}
		same := got == tc.want && math.Signbit(got) == math.Signbit(tc.want) || math.IsNaN(got) && math.IsNaN(tc.want)
		if !same {
			t.Errorf("%v %v %v = %v, want %v", tc.op, tc.dt, tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		op   graph.Op
		dt   graph.DType
		args []float64
		err  string
	}{
		{graph.Add, graph.Float64, []float64{1}, "add takes 2 operands, got 1"},
		{graph.Exp, graph.Int32, []float64{1}, "exp cannot give a result of type i32"},
		{graph.Pow, graph.Bool, []float64{1, 2}, "pow cannot give a result of type bool"},
	} {
		if _, err := tc.op.Eval(tc.dt, tc.args...); err == nil || err.Error() != tc.err {
			t.Errorf("%v %v %v: error %v, want %q", tc.op, tc.dt, tc.args, err, tc.err)
		}
	}
	if got := graph.Int32.Round(3e9); got != math.MaxInt32 {
		t.Errorf("Int32.Round(3e9) = %v, want %d", got, math.MaxInt32)
	}
}

// TestArraySetInt32: a store into an i32 array converts as the op i32 does
// (it was Go's int32(v), implementation-defined for NaN and out-of-range v).
func TestArraySetInt32(t *testing.T) {
	a, err := graph.Zeros(graph.Int32, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{math.NaN(), 3e9, math.Inf(-1), -2.9} {
		a.Set(v, i)
	}
	want := []float64{0, math.MaxInt32, math.MinInt32, -2}
	for i, w := range want {
		if got := a.At(i); got != w {
			t.Errorf("element %d = %v, want %v", i, got, w)
		}
	}
}

// exp is finite up to ln(MaxFloat64) ≈ 709.78, though Go's amd64 math.Exp
// overflows from about 709.436. The expected values are CPython's math.exp
// (the C library's exp), an independent reference; the interpreter must
// agree within 2 ulp.
func TestExpNearOverflow(t *testing.T) {
	for _, c := range []struct {
		op   graph.Op
		x    float64
		want float64
	}{
		{graph.Exp, 709.0, 8.218407461554972e+307},
		{graph.Exp, 709.436, 1.270983941812912e+308},
		{graph.Exp, 709.5, 1.3549863193146328e+308},
		{graph.Exp, 709.7, 1.6549840276802644e+308},
		{graph.Exp, 709.78, 1.7928227943945155e+308},
		{graph.Exp, 709.79, math.Inf(1)},
		{graph.Logistic, -709.7, 6.04235438695844e-309},
		{graph.Logistic, -709.0, 1.216780750623423e-308},
	} {
		got, err := c.op.Eval(graph.Float64, c.x)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(c.want, 1) {
			if !math.IsInf(got, 1) {
				t.Errorf("%v(%v) = %v, want +Inf", c.op, c.x, got)
			}
			continue
		}
		if d := math.Abs(got-c.want) / c.want; d > 4.5e-16 {
			t.Errorf("%v(%v) = %v, want %v (relative difference %.2g)", c.op, c.x, got, c.want, d)
		}
	}
}
