package graphtest

import (
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// Compare reports, through t.Errorf, the first place where got differs from
// want by more than tol, and returns whether they match; see graph.Diff,
// which defines the measure and the rules for NaN and infinities.
func Compare(t testing.TB, want, got graph.Value, tol float64) bool {
	t.Helper()
	if err := graph.Diff(want, got, tol); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}
