package autodiff

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// shareLets binds, at the top of every lambda body of n, the values that
// depend on the lambda's parameters and are used more than once or from
// inside a nested lambda:
//
//	\r -> ... f (rnz (+) (*) r c) ... map (\x -> x * rnz (+) (*) r c) u ...
//
// becomes
//
//	\r -> let v = rnz (+) (*) r c in ... f v ... map (\x -> x * v) u ...
//
// The backward pass refers to the primal values it needs by sharing their
// nodes (a DAG); a shared node that depends on a lambda's parameters would
// otherwise be computed again at every use, and again for every element of
// every nested traversal that reads it, which grows with the nesting depth.
// Closed values need no let (they are one value wherever they appear).
// Reduction operators are left as they are, for the rules that read them.
func shareLets(n graph.Node) (graph.Node, error) {
	s := &sharer{fv: graph.FreeVarSets(n), memo: map[*scopeEnv]map[graph.Node]graph.Node{},
		root: &scopeEnv{inScope: map[*graph.Var]bool{}, bound: map[graph.Node]*graph.Var{}}}
	return s.term(n, s.root)
}

type sharer struct {
	fv   map[graph.Node][]*graph.Var
	memo map[*scopeEnv]map[graph.Node]graph.Node
	root *scopeEnv // the scope of closed terms
}

// scopeEnv is where a term is rebuilt: the variables in scope, and the
// nodes already bound to let variables.
type scopeEnv struct {
	inScope map[*graph.Var]bool
	bound   map[graph.Node]*graph.Var
}

func (s *sharer) term(n graph.Node, env *scopeEnv) (graph.Node, error) {
	if v, ok := env.bound[n]; ok {
		return v, nil
	}
	if len(s.fv[n]) == 0 {
		// A closed term reads no variable, so nothing bound in env
		// occurs in it: one rebuild serves every scope.
		env = s.root
	}
	memo := s.memo[env]
	if memo == nil {
		memo = map[graph.Node]graph.Node{}
		s.memo[env] = memo
	}
	if r, ok := memo[n]; ok {
		return r, nil
	}
	var out graph.Node
	var err error
	switch m := n.(type) {
	case *graph.Input, *graph.Const, *graph.Var, *graph.OpRef, *graph.Ident:
		out = n
	case *graph.Lambda:
		out, err = s.lambda(m, env)
	case *graph.RNZ:
		kids := graph.Children(m)
		for i := 1; i < len(kids); i++ { // kids[0], the reduction operator, stays
			if kids[i], err = s.term(kids[i], env); err != nil {
				return nil, err
			}
		}
		out, err = graph.WithChildren(m, kids)
	default:
		kids := graph.Children(m)
		for i := range kids {
			if kids[i], err = s.term(kids[i], env); err != nil {
				return nil, err
			}
		}
		out, err = graph.WithChildren(m, kids)
	}
	if err != nil {
		return nil, err
	}
	memo[n] = out
	return out, nil
}

// lambda rebuilds f with its shared values bound by lets.
func (s *sharer) lambda(f *graph.Lambda, env *scopeEnv) (graph.Node, error) {
	params := map[*graph.Var]bool{}
	inner := &scopeEnv{inScope: map[*graph.Var]bool{}, bound: map[graph.Node]*graph.Var{}}
	for v := range env.inScope {
		inner.inScope[v] = true
	}
	for _, p := range f.Params {
		params[p] = true
		inner.inScope[p] = true
	}
	for k, v := range env.bound {
		inner.bound[k] = v
	}
	// List the nodes of the body, children first, looking into nested
	// lambdas (but not into reduction operators).
	var order []graph.Node
	seen := map[graph.Node]bool{}
	var walk func(n graph.Node)
	walk = func(n graph.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, c := range shareKids(n) {
			walk(c)
		}
		order = append(order, n)
	}
	walk(f.Body)
	// Decide parents first which nodes to bind: a node read by two
	// parents, or from inside a nested lambda by a parent that is not
	// bound itself. A bound node is computed once, at the top of the body,
	// so what it reads is read there once.
	uses := map[graph.Node]int{}
	deep := map[graph.Node]bool{}
	bind := map[graph.Node]bool{}
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		bind[n] = n != f.Body && s.shareable(n, params, inner.inScope) && (uses[n] > 1 || deep[n])
		_, isLambda := n.(*graph.Lambda)
		for _, c := range shareKids(n) {
			uses[c]++
			if isLambda || (deep[n] && !bind[n]) {
				deep[c] = true
			}
		}
	}
	var lets []*graph.Var
	var vals []graph.Node
	for _, n := range order {
		if !bind[n] {
			continue
		}
		val, err := s.term(n, inner)
		if err != nil {
			return nil, err
		}
		// Nodes are bound children first, so no node rebuilt (and
		// remembered) so far in this scope contains n.
		v := graph.NewVar(fmt.Sprintf("s%d", len(lets)))
		inner.bound[n] = v
		lets = append(lets, v)
		vals = append(vals, val)
	}
	body, err := s.term(f.Body, inner)
	if err != nil {
		return nil, err
	}
	for i := len(lets) - 1; i >= 0; i-- {
		if body, err = graph.NewLet(lets[i], vals[i], body); err != nil {
			return nil, err
		}
	}
	return graph.NewLambda(f.Params, body)
}

// shareable reports whether n is a value worth binding at the top of the
// lambda with parameters params: it reads a parameter, reads only
// variables in scope there, and computes something.
func (s *sharer) shareable(n graph.Node, params, inScope map[*graph.Var]bool) bool {
	switch m := n.(type) {
	case *graph.Var, *graph.Const, *graph.Input, *graph.Lambda, *graph.OpRef, *graph.Section, *graph.Ident, *graph.Let:
		return false
	case *graph.Proj:
		if _, ok := m.X.(*graph.Var); ok {
			return false
		}
	case *graph.Call:
		if _, ok := m.Args[0].(*graph.Const); ok && len(m.Args) == 1 {
			return false // a typed literal
		}
	}
	if graph.IsFunc(n) {
		return false
	}
	fv := s.fv[n]
	return slices.ContainsFunc(fv, func(v *graph.Var) bool { return params[v] }) &&
		!slices.ContainsFunc(fv, func(v *graph.Var) bool { return !inScope[v] })
}

// shareKids are the children shareLets looks into: all but a reduction
// operator.
func shareKids(n graph.Node) []graph.Node {
	kids := graph.Children(n)
	if _, ok := n.(*graph.RNZ); ok {
		return kids[1:]
	}
	return kids
}
