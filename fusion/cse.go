package fusion

import (
	"hash/maphash"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// shareCommon is common-subexpression elimination: it returns term with
// every value subterm that is α-equivalent to an earlier one, of the same
// type and with the same free variables, replaced by that earlier one, so
// that the term becomes a DAG in which each distinct computation is one
// node. The law is
//
//	C[e, e']  =  C[e, e]    when e ≡α e' and e, e' have the same free variables
//
// which holds in a pure language: a term's value depends only on its free
// variables, and variables are bound by identity, so both occurrences see the
// same bindings. (Two occurrences of a free variable always lie in the scope
// of its one binder.)
//
// Why it matters: the gradient term autodiff builds refers to the forward
// values through copies (the dense layer's output once for BatchNorm's mean,
// once for its variance, once per use in the backward pass), and the fusion
// rules count uses by node. Left as copies, each copy has one use, so
// vertical fusion fuses a matrix product into every statistic that reads it
// and the step computes it several times; shared, the product has several
// consumers, the producer guard refuses to recompute it, and kernel formation
// materialises it once. Sharing also lets fan-out see that two traversals
// read the same array.
//
// What is shared: value terms other than leaves (inputs, literals and
// variables are already one node each, or cost nothing) whose type the
// checker knows and which are not arithmetic on literals alone (their
// context decides their type). Function terms are compared, inside the
// values that hold them, but not replaced on their own: a function has no
// type of its own, and sharing one between applications at different types
// would mix them.
//
// Cost: one walk of the term, children first. Each node is hashed once,
// with a hash that ignores the identity of bound variables (a variable
// hashes as its position among its binder's parameters); nodes with equal
// hashes are compared for α-equivalence, which for nodes without binders
// compares children by pointer (they have already been shared).
func shareCommon(term graph.Node) (graph.Node, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	s := &sharer{
		info:    info,
		seed:    maphash.MakeSeed(),
		hashes:  map[graph.Node]uint64{},
		param:   map[*graph.Var]int{},
		vars:    map[*graph.Var]uint64{},
		buckets: map[uint64][]graph.Node{},
		eqMemo:  map[[2]graph.Node]bool{},
	}
	for n := range graph.All(term) {
		switch n := n.(type) {
		case *graph.Lambda:
			for i, p := range n.Params {
				s.param[p] = i
			}
		case *graph.Let:
			s.param[n.Var] = -1
		}
	}
	// origs holds the original node of each node Post sees: its type is
	// the original's (its children were replaced by α-equivalent ones of
	// the same types).
	var origs []graph.Node
	return graph.Rewriter{
		Pre: func(n graph.Node) (graph.Node, bool, error) {
			origs = append(origs, n)
			return n, true, nil
		},
		Post: func(m graph.Node) (graph.Node, error) {
			orig := origs[len(origs)-1]
			origs = origs[:len(origs)-1]
			return s.share(orig, m), nil
		},
	}.Rewrite(term)
}

type sharer struct {
	info    *graph.Info
	seed    maphash.Seed
	hashes  map[graph.Node]uint64
	param   map[*graph.Var]int
	vars    map[*graph.Var]uint64   // varHash's memo
	buckets map[uint64][]graph.Node // the representatives, by hash
	types   map[graph.Node]graph.Type
	fv      graph.FreeVarCache
	eqMemo  map[[2]graph.Node]bool // α-equivalence of pairs compared with no bound variables in scope
}

// share returns the representative of m, the rewrite of orig: an earlier
// α-equivalent node of the same type, or m itself, registered.
func (s *sharer) share(orig, m graph.Node) graph.Node {
	switch m.(type) {
	case *graph.Input, *graph.Const, *graph.Var, *graph.OpRef, *graph.Ident:
		return m
	}
	if graph.IsFunc(m) {
		return m
	}
	t := s.info.TypeOf(orig)
	if t == nil || graph.Untyped(t) {
		return m
	}
	if s.types == nil {
		s.types = map[graph.Node]graph.Type{}
	}
	h := s.hash(m)
	// Nodes that use different free variables are never equal: the
	// bucket is that of the structure and the free variables together.
	for _, v := range s.fv.Of(m) {
		h ^= s.varHash(v)
	}
	for _, r := range s.buckets[h] {
		if r == m {
			return m
		}
		if graph.Identical(s.types[r], t) && s.equal(r, m, nil) {
			return r
		}
	}
	s.buckets[h] = append(s.buckets[h], m)
	s.types[m] = t
	return m
}

// hash returns a structural hash of n that is the same for α-equivalent
// terms: a variable hashes as its position among its binder's parameters
// (a let's variable as -1), not as itself.
func (s *sharer) hash(n graph.Node) uint64 {
	if h, ok := s.hashes[n]; ok {
		return h
	}
	var hh maphash.Hash
	hh.SetSeed(s.seed)
	word := func(x uint64) {
		var b [8]byte
		for i := range b {
			b[i] = byte(x >> (8 * i))
		}
		hh.Write(b[:])
	}
	str := func(x string) {
		word(uint64(len(x)))
		hh.WriteString(x)
	}
	str(kindName(n))
	switch n := n.(type) {
	case *graph.Input:
		str(n.Name)
	case *graph.Const:
		word(math.Float64bits(n.Value))
	case *graph.Var:
		word(uint64(int64(s.param[n])))
	case *graph.Lambda:
		word(uint64(len(n.Params)))
	case *graph.OpRef:
		str(n.Op.String())
	case *graph.Call:
		str(n.Op.String())
	case *graph.Section:
		str(n.Op.String())
		if n.Left {
			word(1)
		}
	case *graph.Proj:
		word(uint64(n.Index))
	case graph.ViewNode:
		str(n.View().Name())
		for _, p := range n.View().Params() {
			word(uint64(int64(p)))
		}
	}
	for _, c := range graph.Children(n) {
		word(s.hash(c))
	}
	h := hh.Sum64()
	s.hashes[n] = h
	return h
}

// varHash is a hash of the identity of v.
func (s *sharer) varHash(v *graph.Var) uint64 {
	h, ok := s.vars[v]
	if !ok {
		h = maphash.Comparable(s.seed, v)
		s.vars[v] = h
	}
	return h
}

// kindName names the node kind of n, for hashing and comparing.
func kindName(n graph.Node) string {
	switch n.(type) {
	case *graph.Input:
		return "input"
	case *graph.Const:
		return "const"
	case *graph.Var:
		return "var"
	case *graph.Lambda:
		return "lambda"
	case *graph.App:
		return "app"
	case *graph.OpRef:
		return "op"
	case *graph.Call:
		return "call"
	case *graph.Section:
		return "section"
	case *graph.Ident:
		return "id"
	case *graph.NZip:
		return "nzip"
	case *graph.RNZ:
		return "rnz"
	case graph.ViewNode:
		return "view"
	case *graph.Tuple:
		return "tuple"
	case *graph.Proj:
		return "proj"
	case *graph.Let:
		return "let"
	}
	return "?"
}

// alphaEnv pairs the variables bound on the way down in the two terms
// compared: a linked list, innermost binding first.
type alphaEnv struct {
	a, b *graph.Var
	next *alphaEnv
}

// equal reports whether a and b are α-equivalent when the variables paired
// in env are identified: the same node kinds and fields, α-equivalent
// children, variables bound in a and b at the same place, and free
// variables the same.
func (s *sharer) equal(a, b graph.Node, env *alphaEnv) bool {
	if env == nil {
		if a == b {
			return true
		}
		key := [2]graph.Node{a, b}
		if r, ok := s.eqMemo[key]; ok {
			return r
		}
		r := s.equal1(a, b, nil)
		s.eqMemo[key] = r
		return r
	}
	if a == b && !s.mentions(a, env) {
		return true
	}
	return s.equal1(a, b, env)
}

// mentions reports whether a variable env binds is free in n.
func (s *sharer) mentions(n graph.Node, env *alphaEnv) bool {
	for _, v := range s.fv.Of(n) {
		for e := env; e != nil; e = e.next {
			if e.a == v || e.b == v {
				return true
			}
		}
	}
	return false
}

func (s *sharer) equal1(a, b graph.Node, env *alphaEnv) bool {
	if kindName(a) != kindName(b) {
		return false
	}
	switch a := a.(type) {
	case *graph.Var:
		bv := b.(*graph.Var)
		for e := env; e != nil; e = e.next {
			if e.a == a || e.b == bv {
				return e.a == a && e.b == bv
			}
		}
		return a == bv
	case *graph.Input:
		return a == b
	case *graph.Const:
		return a.Value == b.(*graph.Const).Value || (math.IsNaN(a.Value) && math.IsNaN(b.(*graph.Const).Value))
	case *graph.Ident:
		return true
	case *graph.OpRef:
		return a.Op == b.(*graph.OpRef).Op
	case *graph.Call:
		if a.Op != b.(*graph.Call).Op {
			return false
		}
	case *graph.Section:
		bs := b.(*graph.Section)
		if a.Op != bs.Op || a.Left != bs.Left {
			return false
		}
	case *graph.Proj:
		if a.Index != b.(*graph.Proj).Index {
			return false
		}
	case graph.ViewNode:
		va, vb := a.View(), b.(graph.ViewNode).View()
		if va.Name() != vb.Name() || !slices.Equal(va.Params(), vb.Params()) {
			return false
		}
	case *graph.Lambda:
		bl := b.(*graph.Lambda)
		if len(a.Params) != len(bl.Params) {
			return false
		}
		inner := env
		for i, p := range a.Params {
			inner = &alphaEnv{a: p, b: bl.Params[i], next: inner}
		}
		return s.equal(a.Body, bl.Body, inner)
	case *graph.Let:
		bl := b.(*graph.Let)
		if !s.equal(a.Value, bl.Value, env) {
			return false
		}
		return s.equal(a.Body, bl.Body, &alphaEnv{a: a.Var, b: bl.Var, next: env})
	}
	ka, kb := graph.Children(a), graph.Children(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if !s.equal(ka[i], kb[i], env) {
			return false
		}
	}
	return true
}
