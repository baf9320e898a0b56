package graph

import (
	"fmt"
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

// A node shared by several parents is seen once by Pre and once by Post,
// and a rewrite that changes nothing returns every node as it was.
func TestRewriterVisitsEachNodeOnce(t *testing.T) {
	u := input("u", Float64, 3)
	s := must(NewReduce(op(Add), u)) // shared: both tuple elements use it
	m := must(NewNZip(must(NewSection(Mul, s, false)), u))
	both := must(NewTuple(s, m, s))
	distinct := 0
	for range All(both) {
		distinct++
	}
	pre, post := map[Node]int{}, map[Node]int{}
	out, err := Rewriter{
		Pre:  func(n Node) (Node, bool, error) { pre[n]++; return n, true, nil },
		Post: func(n Node) (Node, error) { post[n]++; return n, nil },
	}.Rewrite(both)
	require.NoError(t, err)
	assert.Same(t, both, out)
	assert.Len(t, pre, distinct)
	assert.Len(t, post, distinct)
	for n, k := range pre {
		assert.Equal(t, 1, k, "Pre saw %s %d times", Print(n), k)
		assert.Equal(t, 1, post[n], "Post saw %s %d times", Print(n), post[n])
	}
	assert.Equal(t, 1, pre[s])

	// Changing the shared reduction rebuilds each parent once, and the
	// parents share the one rewrite; the input under it is kept.
	calls := 0
	out, err = Rewrite(both, func(n Node) (Node, error) {
		calls++
		if o, ok := n.(*OpRef); ok && o.Op == Add {
			return NewOpRef(Max)
		}
		return n, nil
	})
	require.NoError(t, err)
	assert.Equal(t, distinct, calls)
	tu := out.(*Tuple)
	assert.Same(t, tu.Elems[0], tu.Elems[2])
	assert.Same(t, tu.Elems[0], tu.Elems[1].(*NZip).Fn.(*Section).Operand)
	assert.Same(t, u, tu.Elems[0].(*RNZ).Args[0])
	assert.NotSame(t, both, out)
}

// Pre replaces a node before its children are seen: a cut keeps the
// replacement as it is, a descent rewrites the replacement's children, and
// the node recurring inside its own replacement stays as it is.
func TestRewriterPre(t *testing.T) {
	A := input("A", Float64, 2, 3)
	B := input("B", Float64, 2, 3)
	sum := must(NewNZip(must(NewNZip(op(Add))), A, B)) // zip (zip (+)) A B

	// A cut: A becomes C, and Post never sees the C put in its place.
	C := input("C", Float64, 2, 3)
	seen := map[Node]bool{}
	out, err := Rewriter{
		Pre: func(n Node) (Node, bool, error) {
			if n == Node(A) {
				return C, false, nil
			}
			return n, true, nil
		},
		Post: func(n Node) (Node, error) { seen[n] = true; return n, nil },
	}.Rewrite(sum)
	require.NoError(t, err)
	assert.Equal(t, "zip (zip (+)) C B", Print(out))
	assert.False(t, seen[C], "Post saw the node Pre cut at")
	assert.True(t, seen[B])

	// A descent into a replacement that contains the node: A becomes
	// flip 0 (flip 0 A), whose A is left as it is (neither Pre nor Post
	// sees it again), and Post sees the replacement's other nodes.
	wrap := must(NewFlip(0, 1, must(NewFlip(0, 1, A))))
	posts := 0
	out, err = Rewriter{
		Pre: func(n Node) (Node, bool, error) {
			if n == Node(A) {
				return wrap, true, nil
			}
			return n, true, nil
		},
		Post: func(n Node) (Node, error) { posts++; return n, nil },
	}.Rewrite(sum)
	require.NoError(t, err)
	assert.Equal(t, "zip (zip (+)) (flip 0 (flip 0 A)) B", Print(out))
	assert.Same(t, wrap, out.(*NZip).Args[0], "a replacement whose children are unchanged is not rebuilt")
	assert.Equal(t, 6, posts, "Post: (+), zip (+), the two flips, B and the zip")
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

// FreeVarCache.Substitute substitutes as Substitute does, and returns the
// subterms in which no substituted variable is free as they are (the same
// nodes, not walked): on let t1 = v + 1 in let t2 = t1 + 1 in rest,
// substituting v rebuilds t1's value and shares rest.
func TestFreeVarCacheSubstitute(t *testing.T) {
	u := input("u", Float64, 3)
	v, t1, t2 := NewVar("v"), NewVar("t1"), NewVar("t2")
	rest := must(NewNZip(lam(func(e ...*Var) Node { return call(Mul, e[0], t2) }, "e"), u))
	term := must(NewLet(t1, call(Add, v, NewConst(1)), must(NewLet(t2, call(Add, t1, NewConst(1)), rest))))
	var c FreeVarCache
	out, err := c.Substitute(term, map[*Var]Node{v: NewConst(4)})
	require.NoError(t, err)
	assert.Equal(t, "let t1 = 4 + 1 in let t2 = t1 + 1 in map (\\e -> e * t2) u", Print(out))
	assert.Same(t, term.Body, out.(*Let).Body, "the body, where v is not free, is shared")
	want, err := Substitute(term, map[*Var]Node{v: NewConst(4)})
	require.NoError(t, err)
	assert.Equal(t, Print(want), Print(out))

	// The capture check still applies where it substitutes.
	shadow := must(NewNZip(must(NewLambda([]*Var{v}, call(Add, v, t1))), u))
	_, err = c.Substitute(shadow, map[*Var]Node{t1: v})
	assert.EqualError(t, err, "substitute: variable v would be captured")
}

// FreeVars keeps the order of first use and drops repeats and bound
// variables past the length at which freeOf indexes its sets (16): the
// body of \p0 .. p19 -> sum of v0..v39 and p0..p19, each twice.
func TestFreeVarsMany(t *testing.T) {
	var vs, ps []*Var
	for i := range 40 {
		vs = append(vs, NewVar(fmt.Sprintf("v%d", i)))
	}
	for i := range 20 {
		ps = append(ps, NewVar(fmt.Sprintf("p%d", i)))
	}
	var sum Node = NewConst(0)
	for range 2 {
		for i := range 40 {
			sum = call(Add, sum, vs[i])
			if i < 20 {
				sum = call(Add, sum, ps[i])
			}
		}
	}
	assert.Equal(t, vs, FreeVars(must(NewLambda(ps, sum))))
	assert.Len(t, FreeVars(sum), 60)
}
