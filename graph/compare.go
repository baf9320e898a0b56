package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Tolerance is the one tolerance of the project for comparing a result
// with the reference interpreter's (Diff's measure, below): 1e-4 for
// Float32 and 1e-10 for every other element type. Law tests of rewrites
// that regroup reductions, the back-end suite (lowering/lowertest), the
// pipeline law test and the CLI's demo all use it.
//
// Why these values: a rewrite or a back end may reassociate sums (the
// exchange and subdivision rules regroup reductions; a SIMD dot product
// keeps partial sums; a GEMM blocks its k loop; XLA reorders reduce), and
// may use its own exp, tanh, logistic and erf. Over 500 seeds of every
// graphtest generator, evaluating a program in f32 instead of f64 moves
// no element by more than about 5e-6 in Diff's measure, and regrouping
// rounds less than that: 1e-4 leaves a margin of twenty. In f64 the same
// programs move by less than 1e-13; 1e-10 leaves a margin of a thousand
// for longer reductions. A wrong index, stride or order of operands is
// off by far more than either. Integer and boolean results compare
// exactly in effect: 1e-10 * (1 + |want|) is below 1 for every i32.
//
// A comparison that must be exact (a rewrite that keeps the order of every
// scalar operation gives bit-identical results in the interpreter) passes
// tolerance 0 to Diff instead.
func Tolerance(dt DType) float64 {
	if dt == Float32 {
		return 1e-4
	}
	return 1e-10
}

// ToleranceOf returns Tolerance for the loosest element type in v: the
// Float32 one when any array or scalar of v is Float32.
func ToleranceOf(v Value) float64 {
	tol := Tolerance(Float64)
	var walk func(Value)
	walk = func(v Value) {
		switch v := v.(type) {
		case TupleValue:
			for _, e := range v {
				walk(e)
			}
		case ScalarValue:
			tol = max(tol, Tolerance(v.DType))
		case *Array:
			if v != nil {
				tol = max(tol, Tolerance(v.DType()))
			}
		}
	}
	walk(v)
	return tol
}

// ErrStructure is wrapped by the errors of Diff and MaxAbsDiff when the two
// values differ in structure (tuple length, extents, element type, a scalar
// against an array) rather than in an element.
var ErrStructure = errors.New("values differ in structure")

// Diff returns nil when got matches want within tol, and otherwise an error
// naming the first mismatch: a different structure (wrapping ErrStructure)
// or the first element, in row-major order of the logical axes, with
//
//	|want - got| > tol * (1 + |want|)
//
// that is, an absolute tolerance tol near zero and a relative one for
// large values. Special values: a NaN matches a NaN (whatever its payload)
// and nothing else; +Inf and -Inf match only themselves, whatever tol is;
// -0 matches +0. Arrays compare by element, so a strided view and its
// row-major copy are equal. The error's text gives the path to the
// element: tuple indices, then the array index.
func Diff(want, got Value, tol float64) error {
	return walkPair("", want, got, func(w, g float64) bool { return Within(w, g, tol) }, mismatch, nil)
}

// Within reports whether got matches want within tol, in Diff's measure
// and with Diff's rules for NaN and infinities.
func Within(want, got, tol float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return want == got
	}
	return math.Abs(want-got) <= tol*(1+math.Abs(want))
}

func mismatch(path, place string, w, g float64) error {
	return fmt.Errorf("%s%s: want %v, got %v (difference %g)", path, place, w, g, math.Abs(w-g))
}

// Exact returns nil when got equals want bit for bit, as far as the scalar
// semantics define bits: every NaN matches every NaN, and otherwise
// elements must be equal and have the same sign (so -0 and +0 differ). It
// returns an error naming the first difference otherwise. Tests of
// operations whose result the semantics fix exactly use it instead of
// Diff.
func Exact(want, got Value) error {
	same := func(w, g float64) bool {
		if math.IsNaN(w) || math.IsNaN(g) {
			return math.IsNaN(w) && math.IsNaN(g)
		}
		return w == g && math.Signbit(w) == math.Signbit(g)
	}
	return walkPair("", want, got, same, func(path, place string, w, g float64) error {
		return fmt.Errorf("%s%s: want %s, got %s", path, place, exactString(w), exactString(g))
	}, nil)
}

// exactString writes v, with the sign of a negative zero.
func exactString(v float64) string {
	if v == 0 && math.Signbit(v) {
		return "-0"
	}
	return fmt.Sprint(v)
}

// MaxAbsDiff returns the largest |a - b| over the elements of two values of
// one structure, or an error wrapping ErrStructure when their structures
// differ. It is +Inf when an element is NaN or infinite in one and not the
// same in the other, and 0 for elements that are both NaN or both the same
// infinity (Diff's rules).
func MaxAbsDiff(a, b Value) (float64, error) {
	worst := 0.0
	err := walkPair("", a, b, func(x, y float64) bool { return true }, mismatch, func(x, y float64) {
		var d float64
		switch {
		case math.IsNaN(x) && math.IsNaN(y), x == y:
			d = 0
		case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0):
			d = math.Inf(1)
		default:
			d = math.Abs(x - y)
		}
		worst = max(worst, d)
	})
	if err != nil {
		return 0, err
	}
	return worst, nil
}

// Finite returns an error naming the first NaN or infinity in v, or nil.
func Finite(v Value) error {
	return walkPair("", v, v, func(x, _ float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) },
		func(path, place string, x, _ float64) error { return fmt.Errorf("%s%s is %v", path, place, x) }, nil)
}

func structural(path, format string, args ...any) error {
	if path == "" {
		path = "value: "
	}
	return fmt.Errorf("%s%s: %w", path, fmt.Sprintf(format, args...), ErrStructure)
}

// walkPair walks a and b together. ok decides whether two elements match,
// and bad words the error for the first pair that does not, at path and
// place; each, when not nil, sees every pair of elements.
func walkPair(path string, a, b Value, ok func(x, y float64) bool, bad func(path, place string, x, y float64) error, each func(x, y float64)) error {
	switch a := a.(type) {
	case TupleValue:
		bt, isTuple := b.(TupleValue)
		if !isTuple {
			return structural(path, "want a %d-tuple, got %s", len(a), describeValue(b))
		}
		if len(a) != len(bt) {
			return structural(path, "want a %d-tuple, got a %d-tuple", len(a), len(bt))
		}
		for i := range a {
			if err := walkPair(fmt.Sprintf("%stuple element %d: ", path, i), a[i], bt[i], ok, bad, each); err != nil {
				return err
			}
		}
		return nil
	case ScalarValue:
		bs, isScalar := b.(ScalarValue)
		if !isScalar {
			return structural(path, "want a scalar %v, got %s", a, describeValue(b))
		}
		if a.DType != bs.DType {
			return structural(path, "want element type %v, got %v", a.DType, bs.DType)
		}
		if each != nil {
			each(a.V, bs.V)
		}
		if !ok(a.V, bs.V) {
			return bad(path, "scalar", a.V, bs.V)
		}
		return nil
	case *Array:
		ba, isArray := b.(*Array)
		if !isArray || a == nil || ba == nil {
			return structural(path, "want %s, got %s", describeValue(a), describeValue(b))
		}
		if a.DType() != ba.DType() {
			return structural(path, "want element type %v, got %v", a.DType(), ba.DType())
		}
		ea, eb := a.Extents(), ba.Extents()
		if !slices.Equal(ea, eb) {
			return structural(path, "want extents %v, got %v", ea, eb)
		}
		for k := range a.Size() {
			x, y := a.getFlat(k), ba.getFlat(k)
			if each != nil {
				each(x, y)
			}
			if !ok(x, y) {
				return bad(path, fmt.Sprintf("array element %v of %v", unravelIndex(k, ea), ea), x, y)
			}
		}
		return nil
	}
	return structural(path, "cannot compare %s", describeValue(a))
}

func describeValue(v Value) string {
	switch v := v.(type) {
	case TupleValue:
		return fmt.Sprintf("a %d-tuple", len(v))
	case ScalarValue:
		return fmt.Sprintf("a scalar %v", v)
	case *Array:
		if v == nil {
			return "a nil array"
		}
		return fmt.Sprintf("an array %v%v", v.DType(), v.Extents())
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// unravelIndex turns the row-major position k into an index of the given
// extents.
func unravelIndex(k int, extents []int) []int {
	idx := make([]int, len(extents))
	for d := len(extents) - 1; d >= 0; d-- {
		idx[d] = k % extents[d]
		k /= extents[d]
	}
	return idx
}
