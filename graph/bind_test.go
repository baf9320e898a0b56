package graph

import (
	"testing"
)

func TestBindInputs(t *testing.T) {
	A, _ := NewInput("A", ArrayOf(Float32, 2, 3), false)
	s, _ := NewInput("s", Scalar(Float64), true)
	p, _ := NewInput("p", &TupleType{Elems: []Type{ArrayOf(Float64, 3), Scalar(Int32)}}, false)
	ins := []*Input{A, s, p}
	a := must(FromFloat32(make([]float32, 6), 2, 3))
	at := must(FromFloat32(make([]float32, 6), 3, 2))
	view, _ := at.Flip(0, 1) // 2×3, column-major strides: fits
	v3 := must(FromFloat64(make([]float64, 3), 3))
	sv := ScalarValue{DType: Float64, V: 2}
	pv := TupleValue{v3, ScalarValue{DType: Int32, V: 1}}
	for _, c := range []struct {
		name string
		in   map[string]Value
		want string // "" when it binds
	}{
		{"fits", map[string]Value{"A": a, "s": sv, "p": pv}, ""},
		{"view fits", map[string]Value{"A": view, "s": sv, "p": pv}, ""},
		{"missing", map[string]Value{"A": a, "p": pv}, "input s (f64) is not bound"},
		{"unknown names, sorted", map[string]Value{"A": a, "s": sv, "p": pv, "z": a, "b": a}, "b, z bound, but the program has no such input"},
		{"dtype", map[string]Value{"A": must(FromFloat64(make([]float64, 6), 2, 3)), "s": sv, "p": pv}, "input A needs f32[2,3], got f64[2,3]"},
		{"extents", map[string]Value{"A": at, "s": sv, "p": pv}, "input A needs f32[2,3], got f32[3,2]"},
		{"scalar for array", map[string]Value{"A": sv, "s": sv, "p": pv}, "input A needs an array of type f32[2,3], got f64(2)"},
		{"nil array", map[string]Value{"A": (*Array)(nil), "s": sv, "p": pv}, "input A needs an array of type f32[2,3], got a nil *graph.Array"},
		{"nil", map[string]Value{"A": nil, "s": sv, "p": pv}, "input A needs an array of type f32[2,3], got nothing"},
		{"scalar dtype", map[string]Value{"A": a, "s": ScalarValue{DType: Float32, V: 1}, "p": pv}, "input s needs a scalar of type f64, got f32(1)"},
		{"tuple for scalar", map[string]Value{"A": a, "s": pv, "p": pv}, "input s needs a scalar of type f64, got (f64[3], i32(1))"},
		{"tuple element", map[string]Value{"A": a, "s": sv, "p": TupleValue{v3, sv}}, "input p element 1: needs a scalar of type i32, got f64(2)"},
		{"tuple length", map[string]Value{"A": a, "s": sv, "p": TupleValue{v3, sv, sv}}, "input p needs a tuple of type (f64[3], i32), got (f64[3], f64(2), f64(2))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := BindInputs(ins, c.in)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got[A] != c.in["A"] || got[s] != c.in["s"] || len(got) != 3 {
					t.Errorf("bound %v, want the values given", got)
				}
				if tv, ok := got[p].(TupleValue); !ok || len(tv) != 2 || tv[0] != pv[0] {
					t.Errorf("p bound to %v, want %v", got[p], pv)
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Errorf("error\n got %v\nwant %s", err, c.want)
			}
		})
	}
	good := map[string]Value{"A": view, "s": sv, "p": pv}
	if n := testing.AllocsPerRun(10, func() { _ = CheckInputs(ins, good) }); n != 0 {
		t.Errorf("CheckInputs of fitting values allocates %v times", n)
	}
}
