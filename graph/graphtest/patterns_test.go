package graphtest

import (
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/stretchr/testify/assert"
)

// TestPatternGeneratorsMakeTheirPattern checks that every term a pattern
// generator makes contains the pattern it is named after.
func TestPatternGeneratorsMakeTheirPattern(t *testing.T) {
	patterns := map[string]func(graph.Node) bool{
		"NZipOfNZip":  func(n graph.Node) bool { return anyNode(n, traversalOfNZip[*graph.NZip]) },
		"RNZOfNZip":   func(n graph.Node) bool { return anyNode(n, traversalOfNZip[*graph.RNZ]) },
		"MapOfRNZ":    func(n graph.Node) bool { return anyNode(n, isMapOfRNZ) },
		"RNZOfRNZ":    func(n graph.Node) bool { return anyNode(n, isRNZOfRNZ) },
		"MapOfMap":    func(n graph.Node) bool { return anyNode(n, isMapOfMap) },
		"ProductPair": func(n graph.Node) bool { return anyNode(n, isProductPair) },
		"MatVec":      func(n graph.Node) bool { return anyNode(n, isMapOfRNZ) },
		"MatMul":      func(n graph.Node) bool { return anyNode(n, isMapOfMap) },
		"Dense":       func(n graph.Node) bool { return anyNode(n, isMapOfMap) },
	}
	for _, ng := range Generators() {
		match, ok := patterns[ng.Name]
		if !ok {
			continue
		}
		t.Run(ng.Name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(seeds) {
				n, _ := ng.Gen(Rand(seed), Config{})
				if !match(n) {
					t.Fatalf("seed %d: no %s in\n%s", seed, ng.Name, graph.Print(n))
				}
			}
		})
	}
	assert.Len(t, patterns, len(Generators())-1, "every generator but Program has a pattern")
}

// traversalOfNZip matches an nzip or rnz (T) with an nzip among its arrays.
func traversalOfNZip[T graph.Node](n graph.Node) bool {
	if _, ok := n.(T); !ok {
		return false
	}
	var args []graph.Node
	switch n := n.(type) {
	case *graph.NZip:
		args = n.Args
	case *graph.RNZ:
		args = n.Args
	}
	return slices.ContainsFunc(args, isMap)
}

// isMapOfRNZ matches map (\a -> rnz r m ... a ... u) A, with u free of a.
func isMapOfRNZ(n graph.Node) bool {
	z, ok := n.(*graph.NZip)
	if !ok || len(z.Args) != 1 {
		return false
	}
	lam, ok := z.Fn.(*graph.Lambda)
	if !ok {
		return false
	}
	body, ok := lam.Body.(*graph.RNZ)
	if !ok {
		return false
	}
	a := lam.Params[0]
	found := false
	for _, x := range body.Args {
		if x == graph.Node(a) {
			found = true
		} else if slices.Contains(graph.FreeVars(x), a) {
			return false
		}
	}
	return found && !slices.Contains(graph.FreeVars(body.Fn), a) && !slices.Contains(graph.FreeVars(body.Red), a)
}

// isRNZOfRNZ matches rnz r (\a1 a2 -> rnz r' m a1 a2 B) A1 A2.
func isRNZOfRNZ(n graph.Node) bool {
	outer, ok := n.(*graph.RNZ)
	if !ok {
		return false
	}
	lam, ok := outer.Fn.(*graph.Lambda)
	if !ok {
		return false
	}
	inner, ok := lam.Body.(*graph.RNZ)
	if !ok || len(inner.Args) < len(lam.Params) {
		return false
	}
	for i, p := range lam.Params {
		if inner.Args[i] != graph.Node(p) {
			return false
		}
	}
	return graph.Print(outer.Red) == graph.Print(inner.Red)
}

// isMapOfMap matches map (\a -> map (\b -> h a b) v) u, with h using a and
// v free of a.
func isMapOfMap(n graph.Node) bool {
	outer, ok := n.(*graph.NZip)
	if !ok || len(outer.Args) == 0 {
		return false
	}
	lam, ok := outer.Fn.(*graph.Lambda)
	if !ok {
		return false
	}
	inner, ok := lam.Body.(*graph.NZip)
	if !ok || len(inner.Args) == 0 {
		return false
	}
	innerLam, ok := inner.Fn.(*graph.Lambda)
	if !ok {
		return false
	}
	usesOuter := func(m graph.Node) bool {
		return slices.ContainsFunc(graph.FreeVars(m), func(v *graph.Var) bool { return slices.Contains(lam.Params, v) })
	}
	return usesOuter(innerLam) && !slices.ContainsFunc(inner.Args, usesOuter)
}

// isProductPair matches a tuple of at least two traversals.
func isProductPair(n graph.Node) bool {
	tup, ok := n.(*graph.Tuple)
	if !ok {
		return false
	}
	count := 0
	for _, e := range tup.Elems {
		if isMap(e) || isRNZ(e) {
			count++
		}
	}
	return count >= 2
}
