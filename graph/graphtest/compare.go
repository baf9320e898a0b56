package graphtest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// Compare reports, through t.Errorf, the first place where got differs from
// want by more than tol, and returns whether they match; see Diff.
func Compare(t testing.TB, want, got graph.Value, tol float64) bool {
	t.Helper()
	if err := Diff(want, got, tol); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// Diff returns nil when got matches want within tol, and otherwise an error
// naming the first mismatch: a different structure (tuple length, array
// extents, element type, a scalar against an array) or the first element,
// in row-major order, with
//
//	|want - got| > tol * (1 + |want|)
//
// that is, an absolute tolerance tol near zero and a relative one tol for
// large values. NaNs match NaNs, and infinities match infinities of the same
// sign. The error's text gives the path to the element: tuple indices, then
// the array index.
func Diff(want, got graph.Value, tol float64) error {
	return diff("", want, got, func(w, g float64) bool { return within(w, g, tol) }, differ, nil)
}

func differ(path, place string, w, g float64) error {
	return fmt.Errorf("%s%s: want %v, got %v (difference %g)", path, place, w, g, math.Abs(w-g))
}

func within(w, g, tol float64) bool {
	switch {
	case math.IsNaN(w) || math.IsNaN(g):
		return math.IsNaN(w) && math.IsNaN(g)
	case math.IsInf(w, 0) || math.IsInf(g, 0):
		return w == g
	}
	return math.Abs(w-g) <= tol*(1+math.Abs(w))
}

// MaxAbsDiff returns the largest |a - b| over the elements of two values of
// one structure, or an error when their structures differ. It is +Inf when
// an element is finite in one and not in the other, and 0 for elements
// that are both NaN or both the same infinity.
func MaxAbsDiff(a, b graph.Value) (float64, error) {
	worst := 0.0
	err := diff("", a, b, func(x, y float64) bool { return true }, differ, func(x, y float64) {
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
func Finite(v graph.Value) error {
	return diff("", v, v, func(x, _ float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) },
		func(path, place string, x, _ float64) error { return fmt.Errorf("%s%s is %v", path, place, x) }, nil)
}

// ErrStructure is wrapped by the errors of Diff and MaxAbsDiff when the two
// values differ in structure rather than in an element.
var ErrStructure = errors.New("values differ in structure")

func structural(path, format string, args ...any) error {
	return fmt.Errorf("%s%s: %w", at(path), fmt.Sprintf(format, args...), ErrStructure)
}

func at(path string) string {
	if path == "" {
		return "value: "
	}
	return path
}

// diff walks a and b together. ok decides whether two elements match, and
// mismatch words the error for the first pair that does not, at path and
// place; each, when not nil, sees every pair of elements.
func diff(path string, a, b graph.Value, ok func(x, y float64) bool, mismatch func(path, place string, x, y float64) error, each func(x, y float64)) error {
	switch a := a.(type) {
	case graph.TupleValue:
		bt, isTuple := b.(graph.TupleValue)
		if !isTuple {
			return structural(path, "want a %d-tuple, got %s", len(a), describe(b))
		}
		if len(a) != len(bt) {
			return structural(path, "want a %d-tuple, got a %d-tuple", len(a), len(bt))
		}
		for i := range a {
			if err := diff(fmt.Sprintf("%stuple element %d: ", path, i), a[i], bt[i], ok, mismatch, each); err != nil {
				return err
			}
		}
		return nil
	case graph.ScalarValue:
		bs, isScalar := b.(graph.ScalarValue)
		if !isScalar {
			return structural(path, "want a scalar %v, got %s", a, describe(b))
		}
		if a.DType != bs.DType {
			return structural(path, "want element type %v, got %v", a.DType, bs.DType)
		}
		if each != nil {
			each(a.V, bs.V)
		}
		if !ok(a.V, bs.V) {
			return mismatch(path, "scalar", a.V, bs.V)
		}
		return nil
	case *graph.Array:
		ba, isArray := b.(*graph.Array)
		if !isArray || a == nil || ba == nil {
			return structural(path, "want %s, got %s", describe(a), describe(b))
		}
		if a.DType() != ba.DType() {
			return structural(path, "want element type %v, got %v", a.DType(), ba.DType())
		}
		ea, eb := a.Extents(), ba.Extents()
		if !slices.Equal(ea, eb) {
			return structural(path, "want extents %v, got %v", ea, eb)
		}
		av, bv := a.Values(), ba.Values()
		for k := range av {
			if each != nil {
				each(av[k], bv[k])
			}
			if !ok(av[k], bv[k]) {
				return mismatch(path, fmt.Sprintf("array element %v of %v", unravel(k, ea), ea), av[k], bv[k])
			}
		}
		return nil
	}
	return structural(path, "cannot compare %s", describe(a))
}

func describe(v graph.Value) string {
	switch v := v.(type) {
	case graph.TupleValue:
		return fmt.Sprintf("a %d-tuple", len(v))
	case graph.ScalarValue:
		return fmt.Sprintf("a scalar %v", v)
	case *graph.Array:
		if v == nil {
			return "a nil array"
		}
		return fmt.Sprintf("an array %v%v", v.DType(), v.Extents())
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// unravel turns the row-major position k into an index of the given
// extents.
func unravel(k int, extents []int) []int {
	idx := make([]int, len(extents))
	for d := len(extents) - 1; d >= 0; d-- {
		idx[d] = k % extents[d]
		k /= extents[d]
	}
	return idx
}
