package graphtest

import (
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// A Case is a program under test: a closed term and the values of the
// inputs it reads.
type Case struct {
	Term   graph.Node
	Inputs map[string]graph.Value
}

// String prints the case's inputs, with their types and values, and its term.
func (c Case) String() string {
	info, err := graph.Check(c.Term)
	if err != nil {
		return graph.Print(c.Term) + " (does not check: " + err.Error() + ")"
	}
	var s string
	for _, in := range info.Inputs {
		s += fmt.Sprintf("%s : %v = %v\n", in.Name, in.Type, c.Inputs[in.Name])
	}
	return s + graph.Print(c.Term)
}

// ShrinkBudget bounds how many candidate cases Shrink tries, each checked
// and given to the predicate once.
const ShrinkBudget = 20000

// Shrink reduces a failing case to a smaller one that still fails: fails
// reports whether a case still shows the failure (it must be true of c).
// Shrink returns the smallest failing case it finds, by the number of
// distinct nodes of the term and then the number of input elements; it is
// c itself when nothing smaller fails.
//
// It tries, until no step helps or ShrinkBudget candidates are spent:
//
//   - replacing a value subterm by one of its own subterms (a map by its
//     argument, a sum by one operand, a map by the body that ignores its
//     rows), smallest first and those of the same type before others,
//     when that does not take a variable out of its binder's scope;
//   - inlining a let; a reduction as the map of its function; dropping
//     an argument a traversal's lambda ignores; eta-reducing a lambda that
//     passes its parameters on (\x -> tanh x to tanh);
//   - replacing a closed subterm by a fresh input bound to the subterm's
//     value (so the rest of the program sees the same numbers), and any
//     subterm by a fresh input of its type with values drawn from a fixed
//     seed, or a scalar one by the literal 0 or 1;
//   - shrinking an extent: every input axis of extent e becomes 1, 2, e/2
//     or e-1 together, the inputs cut to their leading elements.
//
// Every candidate is well typed (graph.Check) and binds exactly the inputs
// its term reads, before fails sees it; fails may also return false for a
// candidate that fails differently, to keep the shrink on one bug. Fresh
// inputs are named s0, s1, ... Shrink tries at most ShrinkBudget
// candidates; ShrinkLimit sets the number.
func Shrink(c Case, fails func(Case) bool) Case { return ShrinkLimit(c, fails, ShrinkBudget) }

// ShrinkLimit is Shrink trying at most tries candidates, for predicates
// that cost much (a compilation each).
func ShrinkLimit(c Case, fails func(Case) bool, tries int) Case {
	s := &shrinker{fails: fails, budget: tries}
	best := c
	for progress := true; progress && s.budget > 0; {
		progress = false
		if next, ok := s.subterms(best); ok {
			best, progress = next, true
			continue
		}
		if next, ok := s.extents(best); ok {
			best, progress = next, true
		}
	}
	return best
}

type shrinker struct {
	fails  func(Case) bool
	budget int
	fresh  int
}

func nodeCount(n graph.Node) int {
	k := 0
	for range graph.All(n) {
		k++
	}
	return k
}

// size is the measure Shrink decreases.
func size(c Case) (nodes, elems int) {
	for range graph.All(c.Term) {
		nodes++
	}
	for _, v := range c.Inputs {
		elems += elements(v)
	}
	return nodes, elems
}

func elements(v graph.Value) int {
	switch v := v.(type) {
	case *graph.Array:
		return v.Size()
	case graph.TupleValue:
		n := 0
		for _, e := range v {
			n += elements(e)
		}
		return n
	}
	return 1
}

// treeSize counts the nodes of n as a tree (a shared node once per path),
// up to limit.
func treeSize(n graph.Node, limit int) int {
	k := 0
	graph.Inspect(n, func(graph.Node) bool { k++; return k < limit })
	return k
}

// smaller orders cases by distinct nodes, then nodes counted as a tree,
// then input elements.
func smaller(a, b Case) bool {
	an, ae := size(a)
	bn, be := size(b)
	if an != bn {
		return an < bn
	}
	if at, bt := treeSize(a.Term, 1<<20), treeSize(b.Term, 1<<20); at != bt {
		return at < bt
	}
	return ae < be
}

// try reports whether the candidate term with the inputs in is well typed,
// smaller than c and still failing, and returns it with exactly the inputs
// its term reads.
func (s *shrinker) try(c Case, term graph.Node, in map[string]graph.Value) (Case, bool) {
	if s.budget <= 0 {
		return Case{}, false
	}
	info, err := graph.Check(term)
	if err != nil {
		return Case{}, false
	}
	bound := make(map[string]graph.Value, len(info.Inputs))
	for _, inp := range info.Inputs {
		v, ok := in[inp.Name]
		if !ok {
			return Case{}, false
		}
		bound[inp.Name] = v
	}
	cand := Case{Term: term, Inputs: bound}
	if !smaller(cand, c) {
		return Case{}, false
	}
	s.budget--
	if !s.fails(cand) {
		return Case{}, false
	}
	return cand, true
}

// replace returns term with the node old replaced by repl everywhere.
func replace(term, old, repl graph.Node) (graph.Node, error) {
	if term == old {
		return repl, nil
	}
	memo := map[graph.Node]graph.Node{}
	var rw func(graph.Node) (graph.Node, error)
	rw = func(n graph.Node) (graph.Node, error) {
		if n == old {
			return repl, nil
		}
		if r, ok := memo[n]; ok {
			return r, nil
		}
		kids := graph.Children(n)
		for i, k := range kids {
			r, err := rw(k)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		r, err := graph.WithChildren(n, kids)
		if err != nil {
			return nil, err
		}
		memo[n] = r
		return r, nil
	}
	return rw(term)
}

// subterms tries the replacements of single subterms, largest subterms
// first, and returns the first candidate that still fails.
func (s *shrinker) subterms(c Case) (Case, bool) {
	info, err := graph.Check(c.Term)
	if err != nil {
		return Case{}, false
	}
	free := graph.FreeVarSets(c.Term)
	var nodes []graph.Node
	for m := range graph.All(c.Term) {
		if _, ok := info.Types[m]; ok {
			nodes = append(nodes, m)
		}
	}
	slices.Reverse(nodes) // parents before children: big cuts first
	for m := range graph.All(c.Term) {
		for _, repl := range simpler(m, free) {
			if term, err := replace(c.Term, m, repl); err == nil {
				if next, ok := s.try(c, term, c.Inputs); ok {
					return next, true
				}
			}
		}
	}
	for _, m := range nodes {
		t := info.Types[m]
		if t == nil || graph.IsFunc(m) {
			continue
		}
		var cands []graph.Node
		for d := range graph.All(m) {
			dt, ok := info.Types[d]
			if d == m || !ok || dt == nil || graph.IsFunc(d) || !subset(free[d], free[m]) {
				continue
			}
			cands = append(cands, d)
		}
		// The smallest subterms first: the biggest cuts. A subterm of
		// another type is worth a try too (Check decides): the body of a
		// map whose rows it ignores, the argument of a reduction.
		slices.SortStableFunc(cands, func(a, b graph.Node) int {
			if sa, sb := sameType(t, info.Types[a]), sameType(t, info.Types[b]); sa != sb {
				if sa {
					return -1
				}
				return 1
			}
			return nodeCount(a) - nodeCount(b)
		})
		for _, d := range cands {
			term, err := replace(c.Term, m, d)
			if err != nil {
				continue
			}
			if next, ok := s.try(c, term, c.Inputs); ok {
				return next, true
			}
		}
		if let, ok := m.(*graph.Let); ok {
			// Inline the let: its body with the value in place of the
			// variable.
			if body, err := graph.Substitute(let.Body, map[*graph.Var]graph.Node{let.Var: let.Value}); err == nil {
				if term, err := replace(c.Term, m, body); err == nil {
					if next, ok := s.try(c, term, c.Inputs); ok {
						return next, true
					}
				}
			}
		}
		if _, isInput := m.(*graph.Input); isInput {
			continue
		}
		if next, ok := s.byInput(c, m, t, len(free[m]) == 0); ok {
			return next, true
		}
		if _, ok := t.(*graph.ScalarType); ok {
			if _, isConst := m.(*graph.Const); !isConst {
				for _, v := range []float64{0, 1} {
					term, err := replace(c.Term, m, graph.NewConst(v))
					if err != nil {
						continue
					}
					if next, ok := s.try(c, term, c.Inputs); ok {
						return next, true
					}
				}
			}
		}
	}
	return Case{}, false
}

// byInput replaces m, of type t, by a fresh input: bound to m's value when
// m is closed, to seeded random values otherwise.
func (s *shrinker) byInput(c Case, m graph.Node, t graph.Type, closed bool) (Case, bool) {
	// Tuple-typed inputs have no notation, so a shrunk case could not be
	// printed and read back: replace tuples through their elements.
	rt := rowMajor(t)
	if _, isTuple := t.(*graph.TupleType); isTuple || rt == nil {
		return Case{}, false
	}
	name := fmt.Sprintf("s%d", s.fresh)
	for c.Inputs[name] != nil {
		s.fresh++
		name = fmt.Sprintf("s%d", s.fresh)
	}
	in, err := graph.NewInput(name, rt, false)
	if err != nil {
		return Case{}, false
	}
	var v graph.Value
	if closed {
		if v, err = graph.Eval(m, c.Inputs); err != nil {
			return Case{}, false
		}
	} else {
		v = Config{}.value(Rand(uint64(s.fresh)), name, rt)
	}
	term, err := replace(c.Term, m, in)
	if err != nil {
		return Case{}, false
	}
	bound := maps(c.Inputs)
	bound[name] = v
	if next, ok := s.try(c, term, bound); ok {
		s.fresh++
		return next, true
	}
	return Case{}, false
}

func maps(in map[string]graph.Value) map[string]graph.Value {
	out := make(map[string]graph.Value, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}

// rowMajor returns t with every array laid out row-major, or nil for a type
// an input cannot have.
func rowMajor(t graph.Type) graph.Type {
	switch t := t.(type) {
	case *graph.ArrayType:
		return graph.ArrayOf(t.DType, t.Layout.Extents()...)
	case *graph.ScalarType:
		return t
	case *graph.TupleType:
		elems := make([]graph.Type, len(t.Elems))
		for i, e := range t.Elems {
			if elems[i] = rowMajor(e); elems[i] == nil {
				return nil
			}
		}
		return &graph.TupleType{Elems: elems}
	}
	return nil
}

// sameType reports whether a and b have one shape and one element type.
func sameType(a, b graph.Type) bool {
	return graph.SameShape(a, b) && slices.Equal(dtypeList(a), dtypeList(b))
}

func dtypeList(t graph.Type) []graph.DType {
	switch t := t.(type) {
	case *graph.ArrayType:
		return []graph.DType{t.DType}
	case *graph.ScalarType:
		return []graph.DType{t.DType}
	case *graph.TupleType:
		var out []graph.DType
		for _, e := range t.Elems {
			out = append(out, dtypeList(e)...)
		}
		return out
	}
	return nil
}

func subset(a, b []*graph.Var) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// extents tries to shrink one extent of the inputs, on every axis of every
// input that has it.
func (s *shrinker) extents(c Case) (Case, bool) {
	info, err := graph.Check(c.Term)
	if err != nil {
		return Case{}, false
	}
	var exts []int
	for _, in := range info.Inputs {
		for _, a := range arraysOf(in.Type) {
			for _, e := range a.Layout.Extents() {
				if e > 1 && !slices.Contains(exts, e) {
					exts = append(exts, e)
				}
			}
		}
	}
	slices.Sort(exts)
	slices.Reverse(exts)
	for _, e := range exts {
		var tries []int
		for _, to := range []int{1, 2, e / 2, e - 1} {
			if to >= 1 && to < e && !slices.Contains(tries, to) {
				tries = append(tries, to)
			}
		}
		for _, to := range tries {
			if next, ok := s.withExtent(c, info.Inputs, e, to); ok {
				return next, true
			}
		}
	}
	return Case{}, false
}

func arraysOf(t graph.Type) []*graph.ArrayType {
	switch t := t.(type) {
	case *graph.ArrayType:
		return []*graph.ArrayType{t}
	case *graph.TupleType:
		var out []*graph.ArrayType
		for _, e := range t.Elems {
			out = append(out, arraysOf(e)...)
		}
		return out
	}
	return nil
}

// withExtent rebuilds c with every input axis of extent from cut to extent
// to.
func (s *shrinker) withExtent(c Case, ins []*graph.Input, from, to int) (Case, bool) {
	repl := map[graph.Node]graph.Node{}
	bound := maps(c.Inputs)
	for _, in := range ins {
		nt, changed := cutType(in.Type, from, to)
		if !changed {
			continue
		}
		nin, err := graph.NewInput(in.Name, nt, in.Param)
		if err != nil {
			return Case{}, false
		}
		v, ok := cutValue(c.Inputs[in.Name], nt)
		if !ok {
			return Case{}, false
		}
		repl[in], bound[in.Name] = nin, v
	}
	term, err := graph.Rewrite(c.Term, func(n graph.Node) (graph.Node, error) {
		if r, ok := repl[n]; ok {
			return r, nil
		}
		return n, nil
	})
	if err != nil {
		return Case{}, false
	}
	return s.try(c, term, bound)
}

// cutType returns t, row-major, with every extent from made to.
func cutType(t graph.Type, from, to int) (graph.Type, bool) {
	switch t := t.(type) {
	case *graph.ArrayType:
		ext := t.Layout.Extents()
		changed := false
		for i, e := range ext {
			if e == from {
				ext[i], changed = to, true
			}
		}
		return graph.ArrayOf(t.DType, ext...), changed
	case *graph.TupleType:
		elems := make([]graph.Type, len(t.Elems))
		some := false
		for i, e := range t.Elems {
			var ch bool
			elems[i], ch = cutType(e, from, to)
			some = some || ch
		}
		return &graph.TupleType{Elems: elems}, some
	}
	return t, false
}

// cutValue returns the leading part of v that has type t.
func cutValue(v graph.Value, t graph.Type) (graph.Value, bool) {
	switch t := t.(type) {
	case *graph.ArrayType:
		a, ok := v.(*graph.Array)
		if !ok {
			return nil, false
		}
		out := must(graph.Zeros(t.DType, t.Layout.Extents()...))
		ext := t.Layout.Extents()
		idx := make([]int, len(ext))
		for k := range out.Size() {
			rem := k
			for d := len(ext) - 1; d >= 0; d-- {
				idx[d] = rem % ext[d]
				rem /= ext[d]
			}
			out.Set(a.At(idx...), idx...)
		}
		return out, true
	case *graph.TupleType:
		tv, ok := v.(graph.TupleValue)
		if !ok || len(tv) != len(t.Elems) {
			return nil, false
		}
		out := make(graph.TupleValue, len(tv))
		for i := range tv {
			if out[i], ok = cutValue(tv[i], t.Elems[i]); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return v, true
}

// simpler returns smaller forms of m that may keep a failure: a reduction
// as the map of its function; a traversal without an argument its lambda
// ignores; a lambda that only passes its parameters on, eta-reduced.
func simpler(m graph.Node, free map[graph.Node][]*graph.Var) []graph.Node {
	var out []graph.Node
	add := func(n graph.Node, err error) {
		if err == nil {
			out = append(out, n)
		}
	}
	switch m := m.(type) {
	case *graph.RNZ:
		add(graph.NewNZip(m.Fn, m.Args...))
		if lam, ok := m.Fn.(*graph.Lambda); ok {
			for _, args := range dropUnused(lam, m.Args, free) {
				add(graph.NewRNZ(m.Red, args[0], args[1:]...))
			}
		}
	case *graph.NZip:
		if lam, ok := m.Fn.(*graph.Lambda); ok {
			for _, args := range dropUnused(lam, m.Args, free) {
				add(graph.NewNZip(args[0], args[1:]...))
			}
		}
	case *graph.Lambda:
		if len(m.Params) == 1 && m.Body == graph.Node(m.Params[0]) {
			out = append(out, graph.NewIdent())
			return out
		}
		// \p0 .. pk -> g p0 .. pk, g a call or nzip that uses no pi: g.
		var fn graph.Node
		var args []graph.Node
		switch b := m.Body.(type) {
		case *graph.Call:
			f, err := graph.NewOpRef(b.Op)
			if err != nil {
				return out
			}
			fn, args = f, b.Args
		case *graph.NZip:
			if len(b.Args) == 0 {
				return out
			}
			f, err := graph.NewNZip(b.Fn)
			if err != nil {
				return out
			}
			fn, args = f, b.Args
			for _, v := range free[b.Fn] {
				if slices.Contains(m.Params, v) {
					return out
				}
			}
		default:
			return out
		}
		if len(args) != len(m.Params) {
			return out
		}
		for i, a := range args {
			if a != graph.Node(m.Params[i]) {
				return out
			}
		}
		out = append(out, fn)
	}
	return out
}

// dropUnused returns, for each parameter of lam its body does not use,
// the function and arguments without it (the function first), when
// arguments remain.
func dropUnused(lam *graph.Lambda, args []graph.Node, free map[graph.Node][]*graph.Var) [][]graph.Node {
	if len(args) < 2 || len(args) != len(lam.Params) {
		return nil
	}
	var out [][]graph.Node
	for i, p := range lam.Params {
		if slices.Contains(free[lam.Body], p) {
			continue
		}
		params := slices.Delete(slices.Clone(lam.Params), i, i+1)
		f, err := graph.NewLambda(params, lam.Body)
		if err != nil {
			continue
		}
		out = append(out, append([]graph.Node{f}, slices.Delete(slices.Clone(args), i, i+1)...))
	}
	return out
}
