package graph

import "fmt"

// DType is the element type of an array or scalar.
type DType uint8

// The element types. Float32 and Float64 carry numbers; Bool carries masks
// (the results of comparisons); Int32 carries indices.
const (
	Invalid DType = iota
	Float32
	Float64
	Bool
	Int32
)

var dtypeNames = [...]string{Invalid: "invalid", Float32: "f32", Float64: "f64", Bool: "bool", Int32: "i32"}

// String returns the name the notation uses: f32, f64, bool or i32.
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// ParseDType reads a dtype name as written by String.
func ParseDType(s string) (DType, error) {
	for d, name := range dtypeNames {
		if DType(d) != Invalid && name == s {
			return DType(d), nil
		}
	}
	return Invalid, fmt.Errorf("unknown element type %q (want f32, f64, bool or i32)", s)
}

// IsFloat reports whether d is Float32 or Float64.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsNumeric reports whether arithmetic is defined on d.
func (d DType) IsNumeric() bool { return d == Float32 || d == Float64 || d == Int32 }

// Size is the number of bytes one element of d occupies.
func (d DType) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float64:
		return 8
	case Bool:
		return 1
	}
	return 0
}

// Round converts v to a value of d, the way a store into an array of d
// would: to the nearest float32 for Float32; for Int32 as the conversion
// i32 does (toward zero, NaN to 0, out-of-range values to the nearest end
// of int32's range); any v but 0 is true for Bool. Literals
// meeting a typed operand are converted with it.
func (d DType) Round(v float64) float64 {
	switch d {
	case Float32:
		return float64(float32(v))
	case Int32:
		return float64(toInt32(v))
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}
