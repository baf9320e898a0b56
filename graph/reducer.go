package graph

import "slices"

// Reduction is what Reducer recognises in a reduction operator: one
// binary scalar op per leaf of the accumulator (its scalars and arrays,
// depth first through nested tuples), each lifted elementwise through some
// number of zips.
type Reduction struct {
	Ops   []Op  // the op of each leaf
	Lifts []int // for each leaf, how many zips lift its op: 0 for a scalar leaf, the rank for an array
}

// Algebra returns the laws the whole reduction obeys, leaf by leaf:
// associative or commutative when every leaf's op is, with an identity
// when every leaf's op has one. With a single leaf Identity is its op's;
// with several, leaf i's identity is Ops[i].Algebra().Identity.
func (r Reduction) Algebra() Algebra {
	if len(r.Ops) == 0 {
		return Algebra{}
	}
	alg := Algebra{Associative: true, Commutative: true, HasIdentity: true}
	for _, op := range r.Ops {
		a := op.Algebra()
		alg.Associative = alg.Associative && a.Associative
		alg.Commutative = alg.Commutative && a.Commutative
		alg.HasIdentity = alg.HasIdentity && a.HasIdentity
	}
	if len(r.Ops) == 1 {
		alg.Identity = r.Ops[0].Algebra().Identity
	}
	return alg
}

// Reducer recognises the reduction operator r (the Red of an RNZ) as a
// known binary scalar op per leaf of the accumulator. It is the one place
// that decides which operators rules and back ends may treat as an op with
// an algebra; anything it does not recognise obeys no law they may use.
// The forms, and any combination of them:
//
//	(+)  max                        an op reference: one leaf, lift 0
//	zip (+)  nzip (zip max)         an op lifted by partial nzips: lift 1, 2, ...
//	\a b -> a + b   \a b -> max a b  a lambda applying an op to its parameters
//	\a b -> (+) a b                 ... through an application
//	\a b -> zip (+) a b              ... or a lifting nzip
//	\p q -> (fst p + fst q, zip max (snd p) (snd q))
//	                                a tuple (nested as the accumulator is)
//	                                whose leaf at path k combines the parts at
//	                                path k of both parameters
//	f                               a variable bound by env to one of these
//
// The parameters may appear in either order (b + a) only when the op is
// commutative: \a b -> b - a is not subtraction. An op applied to the
// same parameter twice (\a b -> a + a), to parts at another path, a lambda
// that computes anything else, and a non-binary op are not recognised.
// env binds the variables free in r (only their function bindings are
// consulted); it may be nil.
func Reducer(r Node, env Env) (Reduction, bool) {
	var red Reduction
	if !reducer(r, env, &red) || len(red.Ops) == 0 {
		return Reduction{}, false
	}
	return red, true
}

// reducer appends the leaves of the reduction operator r to red.
func reducer(r Node, env Env, red *Reduction) bool {
	switch r := r.(type) {
	case *OpRef:
		if r.Op.Arity() != 2 {
			return false
		}
		red.Ops, red.Lifts = append(red.Ops, r.Op), append(red.Lifts, 0)
		return true
	case *NZip:
		if len(r.Args) != 0 {
			return false
		}
		return lifted(r.Fn, env, red, 1)
	case *Var:
		if env == nil {
			return false
		}
		b, ok := env.Lookup(r)
		if !ok || b.Fn == nil {
			return false
		}
		return reducer(b.Fn, b.FnEnv, red)
	case *Lambda:
		if len(r.Params) != 2 {
			return false
		}
		return leafReducers(r.Body, r.Params[0], r.Params[1], nil, env, red)
	}
	return false
}

// lifted appends the single leaf of the function fn, lifted by lift more
// zips.
func lifted(fn Node, env Env, red *Reduction, lift int) bool {
	var inner Reduction
	if !reducer(fn, env, &inner) || len(inner.Ops) != 1 {
		return false
	}
	red.Ops, red.Lifts = append(red.Ops, inner.Ops[0]), append(red.Lifts, inner.Lifts[0]+lift)
	return true
}

// leafReducers recognises body, the body of \a b -> body at the part path
// of the accumulator: a tuple of such bodies, or one op applied to the
// parts at path of a and b.
func leafReducers(body Node, a, b *Var, path []int, env Env, red *Reduction) bool {
	if tup, ok := body.(*Tuple); ok {
		for i, e := range tup.Elems {
			if !leafReducers(e, a, b, append(slices.Clone(path), i), env, red) {
				return false
			}
		}
		return true
	}
	var fn Node
	var args []Node
	lift := 0
	switch x := body.(type) {
	case *Call:
		fn, args = &OpRef{Op: x.Op}, x.Args
	case *App:
		fn, args = x.Fn, x.Args
	case *NZip:
		fn, args, lift = x.Fn, x.Args, 1
	default:
		return false
	}
	if len(args) != 2 {
		return false
	}
	inOrder := isPart(args[0], a, path) && isPart(args[1], b, path)
	swapped := isPart(args[0], b, path) && isPart(args[1], a, path)
	if !inOrder && !swapped {
		return false
	}
	n := len(red.Ops)
	if !lifted(fn, env, red, lift) {
		return false
	}
	if !inOrder && !red.Ops[n].Algebra().Commutative {
		red.Ops, red.Lifts = red.Ops[:n], red.Lifts[:n]
		return false
	}
	return true
}

// isPart reports whether x is the part at path of v: v itself for an
// empty path, fst (snd v) for [1 0].
func isPart(x Node, v *Var, path []int) bool {
	for i := len(path) - 1; i >= 0; i-- {
		p, ok := x.(*Proj)
		if !ok || p.Index != path[i] {
			return false
		}
		x = p.X
	}
	return x == Node(v)
}
