package pjrt

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/hofuse/hofuse/graph"
)

func TestToHostAndBack(t *testing.T) {
	base, err := graph.Zeros(graph.Float64, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for j := range 2 {
			base.Set(float64(10*i+j), i, j)
		}
	}
	flipped, _ := base.Flip(0, 1)
	row1, _ := base.Index(1)
	b, _ := graph.Zeros(graph.Bool, 4)
	b.Set(1, 1)
	b.Set(1, 3)
	i32, _ := graph.Zeros(graph.Int32, 2, 2)
	i32.Set(-5, 0, 1)
	i32.Set(1<<30, 1, 0)
	f32, _ := graph.FromFloat32([]float32{1.5, -2, 3.25}, 3)
	for _, tc := range []struct {
		name string
		v    graph.Value
		typ  string
		back string
	}{
		{"row-major f64", base, "tensor<3x2xf64>", "[0 1 10 11 20 21]"},
		{"flipped f64", flipped, "tensor<2x3xf64>", "[0 10 20 1 11 21]"},
		{"offset view", row1, "tensor<2xf64>", "[10 11]"},
		{"bool", b, "tensor<4xi1>", "[0 1 0 1]"},
		{"i32", i32, "tensor<2x2xi32>", "[0 -5 1.073741824e+09 0]"},
		{"f32", f32, "tensor<3xf32>", "[1.5 -2 3.25]"},
		{"scalar", graph.ScalarValue{DType: graph.Float32, V: 0.5}, "tensor<f32>", "f32(0.5)"},
		{"scalar bool", graph.ScalarValue{DType: graph.Bool, V: 1}, "tensor<i1>", "bool(1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := toHost(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if h.typ.String() != tc.typ {
				t.Errorf("type %s, want %s", h.typ, tc.typ)
			}
			if len(h.data) != h.typ.Size()*h.typ.DType.Size() {
				t.Errorf("%d bytes for %s", len(h.data), h.typ)
			}
			// What PJRT would give back: the same bytes.
			hb := newHostBuffer(h.typ)
			copy(hb.data, h.data)
			v, err := hb.value()
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(v)
			if a, ok := v.(*graph.Array); ok {
				got = fmt.Sprint(a.Values())
			}
			if got != tc.back {
				t.Errorf("back: %s, want %s", got, tc.back)
			}
		})
	}
}

// TestToHostNoCopy: a row-major float array is sent from its own buffer.
func TestToHostNoCopy(t *testing.T) {
	data := []float32{1, 2, 3, 4, 5, 6}
	a, _ := graph.FromFloat32(data, 2, 3)
	h, err := toHost(a)
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.Pointer(&h.data[0]) != unsafe.Pointer(&data[0]) {
		t.Error("row-major f32 array was copied")
	}
}

func TestToHostErrors(t *testing.T) {
	for _, tc := range []struct {
		v    graph.Value
		want string
	}{
		{nil, "nil value"},
		{(*graph.Array)(nil), "nil array"},
		{graph.TupleValue{}, "a tuple is not a tensor; pass its elements as separate arguments"},
		{graph.ScalarValue{V: 1}, "scalar of element type invalid is not supported (give it f32, f64, i32 or bool)"},
	} {
		if _, err := toHost(tc.v); err == nil || err.Error() != tc.want {
			t.Errorf("toHost(%v) = %v, want %q", tc.v, err, tc.want)
		}
	}
}
