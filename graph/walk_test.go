package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewriteKeepsUnchangedNodes(t *testing.T) {
	A := input("A", Float64, 4, 3)
	u := input("u", Float64, 3)
	mv := matvec(A, u)
	same, err := Rewrite(mv, func(n Node) (Node, error) { return n, nil })
	require.NoError(t, err)
	assert.Same(t, mv, same)

	// Replacing (*) by (+) rebuilds only the path to it; the source name of
	// a rebuilt node survives.
	named := WithSource(mv, "dense1")
	out, err := Rewrite(named, func(n Node) (Node, error) {
		if o, ok := n.(*OpRef); ok && o.Op == Mul {
			return NewOpRef(Add)
		}
		return n, nil
	})
	require.NoError(t, err)
	assert.Equal(t, "map (\\r -> rnz (+) (+) r u) A", Print(out))
	assert.Equal(t, "dense1", out.Source())
	assert.Same(t, A, out.(*NZip).Args[0])
}

func TestRewriteSharesSharedNodes(t *testing.T) {
	u := input("u", Float64, 3)
	s := must(NewReduce(op(Add), u))
	both := must(NewTuple(s, s))
	out, err := Rewrite(both, func(n Node) (Node, error) {
		if o, ok := n.(*OpRef); ok && o.Op == Add {
			return NewOpRef(Max)
		}
		return n, nil
	})
	require.NoError(t, err)
	tu := out.(*Tuple)
	assert.Same(t, tu.Elems[0], tu.Elems[1])
	assert.Equal(t, "let t1 = reduce max u in (t1, t1)", Print(out))
}

func TestFreeVarsAndSubstitute(t *testing.T) {
	u := input("u", Float64, 3)
	x, y := NewVar("x"), NewVar("y")
	inner := lam(func(v ...*Var) Node { return call(Add, v[0], call(Mul, x, y)) }, "e")
	m := must(NewNZip(inner, u))
	assert.Equal(t, []*Var{x, y}, FreeVars(m))

	out, err := Substitute(m, map[*Var]Node{x: NewConst(2), y: NewConst(3)})
	require.NoError(t, err)
	assert.Empty(t, FreeVars(out))
	assert.Equal(t, "map (\\e -> e + 2 * 3) u", Print(out))

	// A binder that shadows the substituted variable stops substitution.
	shadow := must(NewLambda([]*Var{x}, call(Add, x, y)))
	out, err = Substitute(must(NewNZip(shadow, u)), map[*Var]Node{x: NewConst(1), y: NewConst(5)})
	require.NoError(t, err)
	assert.Equal(t, "map (\\x -> x + 5) u", Print(out))

	// Substituting a term that mentions a variable the target binds would
	// capture it; that is reported, not done.
	_, err = Substitute(must(NewNZip(shadow, u)), map[*Var]Node{y: x})
	assert.EqualError(t, err, "substitute: variable x would be captured")
}

func TestPrintRenamesClashingVariables(t *testing.T) {
	A := input("A", Float64, 2, 2)
	outer, inner := NewVar("x"), NewVar("x")
	body := must(NewNZip(must(NewLambda([]*Var{inner}, call(Add, inner, must(NewReduce(op(Add), outer))))), outer))
	m := must(NewNZip(must(NewLambda([]*Var{outer}, body)), A))
	assert.Equal(t, "map (\\x -> map (\\x1 -> x1 + reduce (+) x) x) A", Print(m))
}
