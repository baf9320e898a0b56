package graph

import (
	"fmt"
	"iter"
	"slices"
)

// Children returns the direct subterms of n, in the order the notation
// writes them. Binders (a lambda's parameters, a let's variable) are not
// children; a let's value and body are.
func Children(n Node) []Node {
	switch n := n.(type) {
	case *Input, *Const, *Var, *OpRef, *Ident:
		return nil
	case *Lambda:
		return []Node{n.Body}
	case *App:
		return append([]Node{n.Fn}, n.Args...)
	case *Call:
		return slices.Clone(n.Args)
	case *Section:
		return []Node{n.Operand}
	case *NZip:
		return append([]Node{n.Fn}, n.Args...)
	case *RNZ:
		return append([]Node{n.Red, n.Fn}, n.Args...)
	case ViewNode:
		return []Node{n.Operand()}
	case *Tuple:
		return slices.Clone(n.Elems)
	case *Proj:
		return []Node{n.X}
	case *Let:
		return []Node{n.Value, n.Body}
	}
	panic(fmt.Sprintf("graph: Children of unknown node %T", n))
}

// WithChildren returns a node of n's kind, with n's other fields and source,
// whose children are kids (in the order of Children). When kids are the
// children n has, it returns n itself. It returns an error when the number of
// kids is wrong or the new node would be malformed.
func WithChildren(n Node, kids []Node) (Node, error) {
	if slices.Equal(kids, Children(n)) {
		return n, nil
	}
	want := len(Children(n))
	fixed := true
	switch n.(type) {
	case *App, *Call, *NZip, *RNZ, *Tuple:
		fixed = false
	}
	if fixed && len(kids) != want {
		return nil, fmt.Errorf("%T takes %d children, got %d", n, want, len(kids))
	}
	var out Node
	var err error
	switch n := n.(type) {
	case *Lambda:
		out, err = NewLambda(n.Params, kids[0])
	case *App:
		if len(kids) < 2 {
			return nil, fmt.Errorf("app needs a function and arguments, got %d children", len(kids))
		}
		out, err = NewApp(kids[0], kids[1:]...)
	case *Call:
		out, err = NewCall(n.Op, kids...)
	case *Section:
		out, err = NewSection(n.Op, kids[0], n.Left)
	case *NZip:
		if len(kids) < 1 {
			return nil, fmt.Errorf("nzip needs a function")
		}
		out, err = NewNZip(kids[0], kids[1:]...)
	case *RNZ:
		if len(kids) < 3 {
			return nil, fmt.Errorf("rnz needs a reduction, a function and arguments, got %d children", len(kids))
		}
		out, err = NewRNZ(kids[0], kids[1], kids[2:]...)
	case ViewNode:
		out, err = NewView(n.View(), kids[0])
	case *Tuple:
		out, err = NewTuple(kids...)
	case *Proj:
		out, err = NewProj(n.Index, kids[0])
	case *Let:
		out, err = NewLet(n.Var, kids[0], kids[1])
	default:
		return nil, fmt.Errorf("%T has no children to replace", n)
	}
	if err != nil {
		return nil, err
	}
	if src := n.Source(); src != "" {
		out = WithSource(out, src)
	}
	return out, nil
}

// Inspect calls f on n and, while f returns true, on its children, depth
// first. A node shared in a DAG is visited once for each path to it.
func Inspect(n Node, f func(Node) bool) {
	if !f(n) {
		return
	}
	for _, c := range Children(n) {
		Inspect(c, f)
	}
}

// All iterates over the distinct nodes of the term n, each once, children
// before their parents (post-order).
func All(n Node) iter.Seq[Node] {
	return func(yield func(Node) bool) {
		seen := map[Node]bool{}
		var walk func(Node) bool
		walk = func(n Node) bool {
			if seen[n] {
				return true
			}
			seen[n] = true
			for _, c := range Children(n) {
				if !walk(c) {
					return false
				}
			}
			return yield(n)
		}
		walk(n)
	}
}

// Rewrite rebuilds n bottom-up: every node's children are rewritten first,
// then f is given the node with its new children and returns its
// replacement (or the node itself). It is Rewriter{Post: f}.Rewrite(n); see
// Rewriter for the guarantees: a node shared in a DAG is rewritten once and
// its rewrite shared, and an unchanged term is the same pointer.
func Rewrite(n Node, f func(Node) (Node, error)) (Node, error) {
	return Rewriter{Post: f}.Rewrite(n)
}

// A Rewriter rebuilds a term node by node. It is the one rewriter of the
// module: passes, rule engines and partitioners describe their rewrite with
// Pre and Post and leave the walk, the memo and the rebuilding to it.
//
// Guarantees:
//   - Memoised by node identity: Pre and Post run once per distinct node of
//     the term, however many parents share it, and every parent gets the
//     same rewrite, so a DAG stays a DAG.
//   - Identity when nothing changes: a node that Pre keeps, whose children
//     all come back unchanged, and that Post keeps, is returned as it is —
//     the same pointer; no node is built for it. A term nothing changes
//     in comes back as the same pointer.
//   - Sources kept: a node rebuilt on new children keeps its source name
//     (WithChildren); replacements from Pre and Post are used as given.
//
// Variables are pointers and binders are unique, so the rewrite needs no
// scope: a Var node is rewritten like any other.
type Rewriter struct {
	// Pre, when set, sees each node before its children, in pre-order. It
	// returns the node to continue with — n itself, or a replacement — and
	// whether to descend into that node's children. A node Pre does not
	// descend into is final (a cut): neither its children nor Post see it.
	// A replacement Pre descends into is rewritten in n's place as any
	// node is (Pre sees it first), except that n itself, should it recur
	// inside its own replacement, is left as it is.
	Pre func(n Node) (next Node, descend bool, err error)
	// Post, when set, sees each node after its children, rebuilt on their
	// rewrites (the node itself when none changed), and returns its
	// replacement.
	Post func(n Node) (Node, error)
}

// Rewrite applies rw to the term n and returns the rewritten term.
func (rw Rewriter) Rewrite(n Node) (Node, error) {
	memo := map[Node]Node{}
	var visit func(Node) (Node, error)
	visit = func(orig Node) (Node, error) {
		if r, ok := memo[orig]; ok {
			return r, nil
		}
		n := orig
		if rw.Pre != nil {
			next, descend, err := rw.Pre(orig)
			if err != nil {
				return nil, err
			}
			if !descend {
				memo[orig] = next
				return next, nil
			}
			if next != orig {
				memo[orig] = orig // orig inside its own replacement stays
				r, err := visit(next)
				if err != nil {
					return nil, err
				}
				memo[orig] = r
				return r, nil
			}
		}
		kids := Children(n)
		changed := false
		for i, c := range kids {
			r, err := visit(c)
			if err != nil {
				return nil, err
			}
			changed = changed || r != c
			kids[i] = r
		}
		m := n
		if changed {
			var err error
			if m, err = WithChildren(n, kids); err != nil {
				return nil, err
			}
		}
		if rw.Post != nil {
			var err error
			if m, err = rw.Post(m); err != nil {
				return nil, err
			}
		}
		memo[orig] = m
		return m, nil
	}
	return visit(n)
}

// FreeVars returns the variables n uses that no binder inside n binds, in
// order of first use. It visits each node of a DAG once.
func FreeVars(n Node) []*Var { return FreeVarSets(n)[n] }

// FreeVarSets returns the free variables of every node of n, computed in
// one pass, children first: the way to ask about many subterms at once.
func FreeVarSets(n Node) map[Node][]*Var {
	free := map[Node][]*Var{}
	of := func(c Node) []*Var { return free[c] }
	for m := range All(n) {
		free[m] = freeOf(m, of)
	}
	return free
}

// Substitute replaces the free occurrences of the variables in sub by their
// terms. The replacements are inserted as they are (shared, not copied); a
// binder in n that binds one of the variables shadows it. Because variables
// are identified by pointer, no free variable of a replacement can be
// captured unless the same *Var is bound both inside n and free in the
// replacement, which Substitute reports as an error.
func Substitute(n Node, sub map[*Var]Node) (Node, error) { return substitute(n, sub, nil) }

// Substitute is graph.Substitute that returns unchanged, without walking
// them, the subterms of n in which no variable of sub is free, as the
// cache knows them: substituting into a long term costs time proportional
// to the paths down to the occurrences, not to the term. (It reports a
// capture only where it substitutes.) Rewriters that substitute many
// times into one term, such as fusion's let inlining on a chain of lets,
// share one cache across the calls.
func (c *FreeVarCache) Substitute(n Node, sub map[*Var]Node) (Node, error) {
	return substitute(n, sub, c)
}

// substitute is Substitute, skipping the subterms in which fv (when not
// nil) finds none of the variables substituted.
func substitute(n Node, sub map[*Var]Node, fv *FreeVarCache) (Node, error) {
	free := map[*Var]bool{}
	for _, r := range sub {
		for _, v := range FreeVars(r) {
			free[v] = true
		}
	}
	// Results are remembered per node for each substitution in force, so a
	// DAG is rebuilt in time proportional to its size and stays a DAG.
	type key struct {
		n   Node
		sub *map[*Var]Node
	}
	memo := map[key]Node{}
	var rw func(Node, *map[*Var]Node) (Node, error)
	rw = func(n Node, subp *map[*Var]Node) (Node, error) {
		sub := *subp
		if len(sub) == 0 {
			return n, nil
		}
		k := key{n, subp}
		if r, ok := memo[k]; ok {
			return r, nil
		}
		if fv != nil && !slices.ContainsFunc(fv.Of(n), func(v *Var) bool { _, ok := sub[v]; return ok }) {
			return n, nil
		}
		r, err := func() (Node, error) {
			switch n := n.(type) {
			case *Var:
				if r, ok := sub[n]; ok {
					return r, nil
				}
				return n, nil
			case *Lambda:
				inner := subp
				for _, p := range n.Params {
					if free[p] {
						return nil, fmt.Errorf("substitute: variable %s would be captured", p.Name)
					}
					if _, ok := (*inner)[p]; ok {
						w := without(*inner, p)
						inner = &w
					}
				}
				body, err := rw(n.Body, inner)
				if err != nil {
					return nil, err
				}
				return WithChildren(n, []Node{body})
			case *Let:
				val, err := rw(n.Value, subp)
				if err != nil {
					return nil, err
				}
				if free[n.Var] {
					return nil, fmt.Errorf("substitute: variable %s would be captured", n.Var.Name)
				}
				inner := subp
				if _, ok := sub[n.Var]; ok {
					w := without(sub, n.Var)
					inner = &w
				}
				body, err := rw(n.Body, inner)
				if err != nil {
					return nil, err
				}
				return WithChildren(n, []Node{val, body})
			}
			kids := Children(n)
			for i, c := range kids {
				r, err := rw(c, subp)
				if err != nil {
					return nil, err
				}
				kids[i] = r
			}
			return WithChildren(n, kids)
		}()
		if err != nil {
			return nil, err
		}
		memo[k] = r
		return r, nil
	}
	return rw(n, &sub)
}

func without(sub map[*Var]Node, v *Var) map[*Var]Node {
	out := make(map[*Var]Node, len(sub))
	for k, r := range sub {
		if k != v {
			out[k] = r
		}
	}
	return out
}

// Freshen returns a copy of n in which every binder (lambda parameters, let
// variables) is a new *Var of the same name, so that the copy can be placed
// next to, or inside, the original without two binders being the same
// variable. Free variables and inputs are kept.
func Freshen(n Node) (Node, error) {
	var rw func(Node, map[*Var]Node) (Node, error)
	rw = func(n Node, ren map[*Var]Node) (Node, error) {
		switch n := n.(type) {
		case *Var:
			if r, ok := ren[n]; ok {
				return r, nil
			}
			return n, nil
		case *Input, *Const, *OpRef, *Ident:
			return n, nil
		case *Lambda:
			inner := make(map[*Var]Node, len(ren)+len(n.Params))
			for k, v := range ren {
				inner[k] = v
			}
			params := make([]*Var, len(n.Params))
			for i, p := range n.Params {
				params[i] = NewVar(p.Name)
				inner[p] = params[i]
			}
			body, err := rw(n.Body, inner)
			if err != nil {
				return nil, err
			}
			l, err := NewLambda(params, body)
			if err != nil {
				return nil, err
			}
			return keepSource(n, l), nil
		case *Let:
			val, err := rw(n.Value, ren)
			if err != nil {
				return nil, err
			}
			inner := make(map[*Var]Node, len(ren)+1)
			for k, v := range ren {
				inner[k] = v
			}
			v := NewVar(n.Var.Name)
			inner[n.Var] = v
			body, err := rw(n.Body, inner)
			if err != nil {
				return nil, err
			}
			l, err := NewLet(v, val, body)
			if err != nil {
				return nil, err
			}
			return keepSource(n, l), nil
		}
		kids := Children(n)
		for i, c := range kids {
			r, err := rw(c, ren)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		return WithChildren(n, kids)
	}
	return rw(n, map[*Var]Node{})
}

func keepSource(from, to Node) Node {
	if src := from.Source(); src != "" {
		return WithSource(to, src)
	}
	return to
}

// closedNodes reports, for every node of n, whether it has no free
// variables. It computes all the answers in one pass, children first.
func closedNodes(n Node) map[Node]bool {
	sets := FreeVarSets(n)
	out := make(map[Node]bool, len(sets))
	for m, fv := range sets {
		out[m] = len(fv) == 0
	}
	return out
}
