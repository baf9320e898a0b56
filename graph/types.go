package graph

import (
	"fmt"
	"strings"
)

// Type is the type of a value term: *ScalarType, *ArrayType or *TupleType.
// Function terms have no Type; they are checked where they are applied.
type Type interface {
	String() string
	typ()
}

// ScalarType is the type of a single element.
type ScalarType struct {
	DType DType
}

// ArrayType is an element type and a layout. Arrays nest by rank: a
// higher-order function over an array of rank r sees elements of rank r-1.
type ArrayType struct {
	DType  DType
	Layout Layout
}

// TupleType is the type of a tuple. A tuple of arrays with equal outer extents
// can stand where an array of tuples would: the IR keeps products as tuples of
// arrays (structure of arrays).
type TupleType struct {
	Elems []Type
}

func (*ScalarType) typ() {}
func (*ArrayType) typ()  {}
func (*TupleType) typ()  {}

// Scalar returns the scalar type of dt.
func Scalar(dt DType) *ScalarType { return &ScalarType{DType: dt} }

// ArrayOf returns the row-major array type of the given element type and
// extents.
func ArrayOf(dt DType, extents ...int) *ArrayType {
	return &ArrayType{DType: dt, Layout: RowMajor(extents...)}
}

// String writes the type as the notation does: f32, f64[4,3],
// f64<(4,1),(3,4)> for a layout that is not row-major, (f32, f32[3]).
func (t *ScalarType) String() string { return t.DType.String() }

func (t *ArrayType) String() string {
	if t.Layout.IsRowMajor() {
		var sb strings.Builder
		sb.WriteString(t.DType.String())
		sb.WriteByte('[')
		for i, a := range t.Layout {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprint(&sb, a.Extent)
		}
		sb.WriteByte(']')
		return sb.String()
	}
	return t.DType.String() + t.Layout.String()
}

func (t *TupleType) String() string {
	parts := make([]string, len(t.Elems))
	for i, e := range t.Elems {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Rank is the number of axes.
func (t *ArrayType) Rank() int { return len(t.Layout) }

func (t *ArrayType) validate() error {
	if t.DType == Invalid {
		return fmt.Errorf("invalid element type")
	}
	if len(t.Layout) == 0 {
		return fmt.Errorf("array type of rank 0; use a scalar type")
	}
	return t.Layout.Validate()
}

// SameShape reports whether a and b have the same structure, element types
// and extents, whatever their strides.
func SameShape(a, b Type) bool {
	switch a := a.(type) {
	case *ScalarType:
		b, ok := b.(*ScalarType)
		return ok && a.DType == b.DType
	case *ArrayType:
		b, ok := b.(*ArrayType)
		return ok && a.DType == b.DType && a.Layout.SameExtents(b.Layout)
	case *TupleType:
		b, ok := b.(*TupleType)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !SameShape(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// Identical reports whether a and b are the same type, strides included.
func Identical(a, b Type) bool {
	if !SameShape(a, b) {
		return false
	}
	switch a := a.(type) {
	case *ArrayType:
		return a.Layout.Equal(b.(*ArrayType).Layout)
	case *TupleType:
		for i := range a.Elems {
			if !Identical(a.Elems[i], b.(*TupleType).Elems[i]) {
				return false
			}
		}
	}
	return true
}

// Materialized returns the type a value of type t has once it is stored in a
// fresh buffer: arrays become row-major, tuples materialise element by
// element. Results of nzip and rnz have materialised types.
func Materialized(t Type) Type {
	switch t := t.(type) {
	case *ArrayType:
		return ArrayOf(t.DType, t.Layout.Extents()...)
	case *TupleType:
		elems := make([]Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = Materialized(e)
		}
		return &TupleType{Elems: elems}
	}
	return t
}

// Untyped reports whether t is, or holds, a scalar whose element type its
// context decides: the value of a literal, such as 1.5 in (\y -> 1.5) s.
// Such a value is no buffer of its own — a buffer would fix its type to
// the default f64 where its context wants f32 — but stays in the term
// that uses it, where the checker resolves it.
func Untyped(t Type) bool {
	switch t := t.(type) {
	case *ScalarType:
		return t.DType == Invalid
	case *TupleType:
		for _, e := range t.Elems {
			if Untyped(e) {
				return true
			}
		}
	}
	return false
}

// ElemType returns the type of one element along the outermost axis of t,
// and that axis's extent. For an array of rank 1 the element is a scalar;
// for a tuple of arrays it is the tuple of their elements, and their outer
// extents must agree.
func ElemType(t Type) (Type, int, error) {
	switch t := t.(type) {
	case *ArrayType:
		if len(t.Layout) == 1 {
			return Scalar(t.DType), t.Layout[0].Extent, nil
		}
		return &ArrayType{DType: t.DType, Layout: t.Layout[1:]}, t.Layout[0].Extent, nil
	case *TupleType:
		elems := make([]Type, len(t.Elems))
		n := -1
		for i, e := range t.Elems {
			et, en, err := ElemType(e)
			if err != nil {
				return nil, 0, fmt.Errorf("tuple element %d: %w", i, err)
			}
			if n >= 0 && en != n {
				return nil, 0, fmt.Errorf("tuple elements have outer extents %d and %d", n, en)
			}
			elems[i], n = et, en
		}
		return &TupleType{Elems: elems}, n, nil
	}
	return nil, 0, fmt.Errorf("%v has no outer axis to traverse", t)
}

// Stacked returns the type of n elements of type elem laid side by side, as
// nzip produces: a scalar becomes a rank-1 array, an array gains an outer
// axis, a tuple stacks element by element. The result is row-major.
func Stacked(n int, elem Type) Type {
	switch e := elem.(type) {
	case *ScalarType:
		return ArrayOf(e.DType, n)
	case *ArrayType:
		return ArrayOf(e.DType, append([]int{n}, e.Layout.Extents()...)...)
	case *TupleType:
		elems := make([]Type, len(e.Elems))
		for i, x := range e.Elems {
			elems[i] = Stacked(n, x)
		}
		return &TupleType{Elems: elems}
	}
	panic(fmt.Sprintf("graph: Stacked of %T", elem))
}

// Bytes is the storage a materialised value of type t occupies.
func Bytes(t Type) int {
	switch t := t.(type) {
	case *ScalarType:
		return t.DType.Size()
	case *ArrayType:
		return t.DType.Size() * t.Layout.Size()
	case *TupleType:
		n := 0
		for _, e := range t.Elems {
			n += Bytes(e)
		}
		return n
	}
	return 0
}
