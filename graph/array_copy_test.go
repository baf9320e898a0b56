package graph

import "testing"

// CopyValue copies arrays and the arrays in tuples: writing to the copy
// leaves the original as it was; scalars come back as they are.
func TestCopyValue(t *testing.T) {
	a, err := FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	v := TupleValue{a, ScalarValue{DType: Float64, V: 5}}
	c := CopyValue(v).(TupleValue)
	c[0].(*Array).Set(9, 0, 0)
	if got := a.At(0, 0); got != 1 {
		t.Errorf("the original's element (0, 0) is %v after writing to the copy, want 1", got)
	}
	if got := c[0].(*Array).At(1, 1); got != 4 {
		t.Errorf("the copy's element (1, 1) is %v, want 4", got)
	}
	if c[1] != v[1] {
		t.Errorf("the scalar came back as %v, want %v", c[1], v[1])
	}
}
