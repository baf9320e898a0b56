package autodiff

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// Grad returns one term computing the tuple (loss, grad_1, ..., grad_n):
// the value of loss and its gradient with respect to each input of wrt, in
// that order. loss must be a closed, well-typed term whose result is an f32
// or f64 scalar; each input of wrt must have an f32 or f64 scalar or array
// type, and its gradient has the same element type and extents (row-major,
// or a view of a row-major array). An input that loss does not read has a
// zero gradient.
//
// The result is an ordinary term: graph.Check accepts it, graph.Eval
// evaluates it, and the fusion pass fuses its forward and backward parts
// together. It shares nodes with loss (after lets and applications in loss
// are inlined; see the package documentation).
func Grad(loss graph.Node, wrt []*graph.Input) (res graph.Node, err error) {
	return GradAux(loss, wrt)
}

// GradAux is Grad with auxiliary results: it returns one term computing
// (loss, grad_1, ..., grad_n, aux_1, ..., aux_m), where each aux term is
// computed as it is, not differentiated. The aux terms are normalised
// together with the loss, so a value they share with it (a node both
// read, such as the input of a BatchNorm layer whose running statistics
// are an aux result) is one node of the result, computed once, instead of
// a copy the fusion pass would compute again. Each aux term must be
// closed and well typed.
func GradAux(loss graph.Node, wrt []*graph.Input, aux ...graph.Node) (res graph.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			ie, ok := r.(internalError)
			if !ok {
				panic(r)
			}
			res, err = nil, fmt.Errorf("autodiff: internal error: %s", ie.msg)
		}
	}()
	if loss == nil {
		return nil, fmt.Errorf("autodiff: no loss term")
	}
	if len(wrt) == 0 {
		return nil, fmt.Errorf("autodiff: no inputs to differentiate against; name at least one")
	}
	info, err := graph.Check(loss)
	if err != nil {
		return nil, fmt.Errorf("autodiff: the loss does not type-check: %w", err)
	}
	lt := info.TypeOf(loss)
	st, ok := lt.(*graph.ScalarType)
	if !ok || !st.DType.IsFloat() {
		return nil, fmt.Errorf("autodiff: the loss %s has type %v; it must be an f32 or f64 scalar (reduce an array loss with rnz (+) first)", graph.Abbrev(loss, 60), lt)
	}
	for i, in := range wrt {
		if in == nil {
			return nil, fmt.Errorf("autodiff: input %d to differentiate against is nil", i)
		}
		if slices.Index(wrt, in) != i {
			return nil, fmt.Errorf("autodiff: input %s is named twice among the inputs to differentiate against", in.Name)
		}
		switch t := in.Type.(type) {
		case *graph.ScalarType, *graph.ArrayType:
			if dt := dtypeOf(t); !dt.IsFloat() {
				return nil, fmt.Errorf("autodiff: cannot differentiate with respect to input %s of type %v: only f32 and f64 inputs have gradients", in.Name, t)
			}
		default:
			return nil, fmt.Errorf("autodiff: cannot differentiate with respect to input %s of type %v: only scalar and array inputs have gradients", in.Name, in.Type)
		}
	}
	for _, in := range wrt {
		for _, used := range info.Inputs {
			if used.Name == in.Name && used != in {
				return nil, fmt.Errorf("autodiff: input %s to differentiate against is not the input of that name the loss reads", in.Name)
			}
		}
	}

	var auxInputs []*graph.Input
	for i, a := range aux {
		if a == nil {
			return nil, fmt.Errorf("autodiff: auxiliary result %d is nil", i)
		}
		ainfo, err := graph.Check(a)
		if err != nil {
			return nil, fmt.Errorf("autodiff: auxiliary result %d does not type-check: %w", i, err)
		}
		auxInputs = append(auxInputs, ainfo.Inputs...)
	}
	norm, normAux, err := normalizeWith(loss, aux)
	if err != nil {
		return nil, err
	}
	ninfo, err := graph.Check(norm)
	if err != nil {
		return nil, fmt.Errorf("autodiff: internal error: the normalised loss does not type-check: %w", err)
	}
	d := newDiffer(norm, ninfo, wrt)
	top := &level{d: d, cts: map[graph.Node]*cot{}, active: map[*graph.Var]bool{}}
	if err := top.backprop(norm, term(lit(1, st.DType), st)); err != nil {
		return nil, err
	}
	out := []graph.Node{norm}
	for _, in := range wrt {
		g := build(top.cts[in], in, in.Type)
		out = append(out, g.n)
	}
	out = append(out, normAux...)
	res, err = graph.NewTuple(out...)
	if err != nil {
		return nil, err
	}
	shared, err := shareLets(res)
	if err != nil {
		return nil, fmt.Errorf("autodiff: internal error: %w", err)
	}
	keep := slices.Clone(info.Inputs)
	for _, in := range append(slices.Clone(wrt), auxInputs...) {
		if !slices.Contains(keep, in) {
			keep = append(keep, in)
		}
	}
	return keepInputs(shared, keep)
}

// keepInputs returns res, checked, reading every input of want: an input
// that res does not read (the loss read it only in dead code, or its
// gradient is a zero literal) is bound by a let whose variable is unused,
// so that the inputs the loss was evaluated with can be bound to the
// gradient term as they are.
func keepInputs(res graph.Node, want []*graph.Input) (graph.Node, error) {
	rinfo, err := graph.Check(res)
	if err != nil {
		return nil, fmt.Errorf("autodiff: internal error: the gradient term does not type-check: %w", err)
	}
	for i := len(want) - 1; i >= 0; i-- {
		if slices.Contains(rinfo.Inputs, want[i]) {
			continue
		}
		if res, err = graph.NewLet(graph.NewVar("unused"), want[i], res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// differ holds what the backward pass knows about the normalised primal
// term.
type differ struct {
	info    *graph.Info
	fv      map[graph.Node][]*graph.Var // free variables of every primal node
	wrt     map[*graph.Input]bool
	reach   map[graph.Node]bool // primal nodes that read an input of wrt, not counting through variables
	escapes map[*graph.Lambda][]graph.Node
}

func newDiffer(n graph.Node, info *graph.Info, wrt []*graph.Input) *differ {
	d := &differ{info: info, fv: graph.FreeVarSets(n), wrt: map[*graph.Input]bool{}, reach: map[graph.Node]bool{}, escapes: map[*graph.Lambda][]graph.Node{}}
	for _, in := range wrt {
		d.wrt[in] = true
	}
	for m := range graph.All(n) {
		r := false
		if in, ok := m.(*graph.Input); ok {
			r = d.wrt[in]
		}
		for _, c := range graph.Children(m) {
			r = r || d.reach[c]
		}
		d.reach[m] = r
	}
	return d
}

// dependsOn reports whether the primal node n reads one of the variables.
func (d *differ) dependsOn(n graph.Node, vars map[*graph.Var]bool) bool {
	for _, v := range d.fv[n] {
		if vars[v] {
			return true
		}
	}
	return false
}

func (d *differ) typeOf(n graph.Node) graph.Type { return d.info.TypeOf(n) }

// level is the backward pass over the nodes of one lambda body, or of the
// whole term (the top level, which has no parameters). The nodes of a
// level are those that depend on its parameters; the others it reads (an
// input, a weight computed outside, a parameter of an enclosing lambda)
// are its escapes: their cotangents are computed per element here and
// summed over the traversal by the level above (the rule for captured
// values).
type level struct {
	d      *differ
	params map[*graph.Var]bool // nil at the top level
	active map[*graph.Var]bool // variables in scope whose cotangents are wanted
	cts    map[graph.Node]*cot // accumulated cotangents
	order  []graph.Node        // local nodes, children before parents
	escape []graph.Node        // escapes, in order of discovery
}

func (l *level) local(n graph.Node) bool {
	return l.params == nil || l.d.dependsOn(n, l.params)
}

// wanted reports whether a cotangent of the primal node n can reach an
// input of wrt: n carries floats and reads such an input directly or
// through an active variable.
func (l *level) wanted(n graph.Node) bool {
	t := l.d.typeOf(n)
	if t == nil || !hasFloat(t) {
		return false
	}
	return l.d.reach[n] || l.d.dependsOn(n, l.active)
}

// contribute adds c to the cotangent of the primal node n.
func (l *level) contribute(n graph.Node, c *cot) {
	if c.isZero() || !l.wanted(n) {
		return
	}
	l.cts[n] = sum(l.cts[n], c, l.d.typeOf(n))
}

// walkChildren are the nodes a node of a level reads at that level: its
// value children, and for a traversal the escapes of its function (what
// the lambda reads from outside).
func (l *level) walkChildren(n graph.Node) []graph.Node {
	switch n := n.(type) {
	case *graph.NZip:
		if f, ok := n.Fn.(*graph.Lambda); ok {
			return append(slices.Clone(n.Args), l.d.lambdaEscapes(f)...)
		}
	case *graph.RNZ:
		if f, ok := n.Fn.(*graph.Lambda); ok {
			return append(slices.Clone(n.Args), l.d.lambdaEscapes(f)...)
		}
	}
	return graph.Children(n)
}

// lambdaEscapes returns the maximal subterms the body of f reads that do
// not depend on f's parameters, looking through nested lambdas.
func (d *differ) lambdaEscapes(f *graph.Lambda) []graph.Node {
	if e, ok := d.escapes[f]; ok {
		return e
	}
	params := map[*graph.Var]bool{}
	for _, p := range f.Params {
		params[p] = true
	}
	sub := &level{d: d, params: params}
	sub.collect(f.Body)
	d.escapes[f] = sub.escape
	return sub.escape
}

// collect lists the local nodes reachable from root (children first) and
// the escapes.
func (l *level) collect(root graph.Node) {
	seen := map[graph.Node]bool{}
	var walk func(graph.Node)
	walk = func(n graph.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if !l.local(n) {
			l.escape = append(l.escape, n)
			return
		}
		for _, c := range l.walkChildren(n) {
			walk(c)
		}
		l.order = append(l.order, n)
	}
	walk(root)
}

// backprop runs the backward pass of the level from root, whose cotangent
// is ct: it visits the local nodes parents first and hands each node's
// cotangent on to what it reads. Afterwards cts holds the cotangents of the
// level's parameters and escapes.
func (l *level) backprop(root graph.Node, ct *cot) error {
	l.collect(root)
	l.contribute(root, ct)
	if l.params != nil && !l.local(root) {
		// The body does not depend on the parameters: root is an escape.
		return nil
	}
	for i := len(l.order) - 1; i >= 0; i-- {
		n := l.order[i]
		c := l.cts[n]
		if c == nil {
			continue
		}
		if err := l.push(n, c); err != nil {
			return err
		}
	}
	return nil
}

// push hands the cotangent c of the local node n on to the values n reads.
func (l *level) push(n graph.Node, c *cot) error {
	switch n := n.(type) {
	case *graph.Input, *graph.Var, *graph.Const:
		return nil // leaves: their cotangents are the level's result
	case *graph.Call:
		return l.pushCall(n, c)
	case *graph.Tuple:
		for i, e := range n.Elems {
			l.contribute(e, c.split(i))
		}
		return nil
	case *graph.Proj:
		tt := l.d.typeOf(n.X).(*graph.TupleType)
		parts := make([]*cot, len(tt.Elems))
		parts[n.Index] = c
		l.contribute(n.X, &cot{parts: parts})
		return nil
	case graph.ViewNode:
		cts, err := viewCotangents(n, l.d.typeOf(n.Operand()), c.whole)
		if err != nil {
			return err
		}
		for _, ct := range cts {
			l.contribute(n.Operand(), term(ct.n, ct.t))
		}
		return nil
	case *graph.NZip:
		return l.pushNZip(n, c)
	case *graph.RNZ:
		return l.pushRNZ(n, c)
	}
	return fmt.Errorf("autodiff: %s: cannot differentiate a %T here", graph.Abbrev(n, 60), n)
}

// pushNZip is the rule for nzip: the cotangent of nzip f xs is an array of
// per-element cotangents c_i; the backward pass of f's body, run with c_i
// as the cotangent of its result, gives per-element cotangents of f's
// parameters, which stack into the cotangents of the arrays xs:
//
//	ct(xs_k) = nzip (\ps c -> ct_k(ps, c)) xs ct
//
// and per-element cotangents of the values f captures from outside, which
// sum over the traversed axis:
//
//	ct(w) += rnz (+) (\ps c -> ct_w(ps, c)) xs ct
func (l *level) pushNZip(n *graph.NZip, c *cot) error {
	f, ok := n.Fn.(*graph.Lambda)
	if !ok {
		return fmt.Errorf("autodiff: %s: cannot differentiate an nzip whose function is %s; write it as a lambda", graph.Abbrev(n, 60), graph.Abbrev(n.Fn, 30))
	}
	ct := build(c, n, l.d.typeOf(n))
	cv := graph.NewVar("ct")
	root := term(cv, elemOf(ct.t))
	return l.through(n.Args, f, root, []graph.Node{ct.n}, []*graph.Var{cv}, n)
}

// through runs the backward pass of f's body, root being the cotangent of
// its result, and turns what it finds into cotangents at this level: for the
// arrays f traverses, by an nzip over them (and over extra, whose elements
// bind extraVars); for captured values, by an rnz (+) over the same. result
// is the nzip of f over args, or nil.
func (l *level) through(args []graph.Node, f *graph.Lambda, root *cot, extra []graph.Node, extraVars []*graph.Var, result graph.Node) error {
	sub := &level{d: l.d, params: map[*graph.Var]bool{}, active: map[*graph.Var]bool{}, cts: map[graph.Node]*cot{}}
	for v := range l.active {
		sub.active[v] = true
	}
	for i, p := range f.Params {
		sub.params[p] = true
		if l.wanted(args[i]) {
			sub.active[p] = true
		}
	}
	if err := sub.backprop(f.Body, root); err != nil {
		return err
	}
	// The backward functions bind fresh parameters: their bodies may hold
	// f itself (in a cotangent that reads the traversal's result), and a
	// lambda inside one binding the same variables would shadow them.
	r := l.d.renamer(f.Params)
	// Where the cotangents read f's result (exp, tanh, logistic, sqrt and
	// division do), they read the element of the nzip's result instead
	// of computing it again.
	yv := graph.NewVar("y")
	if result != nil {
		r.memo[f.Body] = yv
	}
	type out struct {
		target graph.Node
		body   graph.Node
		t      graph.Type // of the contribution
		red    graph.Node // nil for an nzip over the arrays
	}
	var outs []out
	readsY := false
	for i, p := range f.Params {
		pc := sub.cts[p]
		if pc.isZero() {
			continue
		}
		b := build(pc, p, elemOf(l.d.typeOf(args[i])))
		outs = append(outs, out{args[i], r.term(b.n), graph.Stacked(outer(l.d.typeOf(args[i])), graph.Materialized(b.t)), nil})
	}
	for _, e := range sub.escape {
		ec := sub.cts[e]
		if ec.isZero() {
			continue
		}
		et := l.d.typeOf(e)
		b := build(ec, e, et)
		outs = append(outs, out{e, r.term(b.n), graph.Materialized(b.t), sumFn(et)})
	}
	for _, o := range outs {
		readsY = readsY || slices.Contains(graph.FreeVars(o.body), yv)
	}
	params := slices.Clone(r.params)
	travArgs := slices.Clone(args)
	if readsY {
		params = append(params, yv)
		travArgs = append(travArgs, result)
	}
	params = append(params, extraVars...)
	travArgs = append(travArgs, extra...)
	for _, o := range outs {
		if o.red == nil {
			l.contribute(o.target, term(nzip(lambda(params, o.body), travArgs...), o.t))
		} else {
			l.contribute(o.target, term(rnz(o.red, lambda(params, o.body), travArgs...), o.t))
		}
	}
	return nil
}

// renamer replaces the parameters of a primal lambda by fresh variables in
// terms built for a new lambda over the same arrays.
type renamer struct {
	d      *differ
	params []*graph.Var
	sub    map[*graph.Var]graph.Node
	memo   map[graph.Node]graph.Node
}

func (d *differ) renamer(old []*graph.Var) *renamer {
	r := &renamer{d: d, sub: map[*graph.Var]graph.Node{}, memo: map[graph.Node]graph.Node{}}
	for _, p := range old {
		v := graph.NewVar(p.Name)
		r.params = append(r.params, v)
		r.sub[p] = v
	}
	return r
}

// term renames the free occurrences of the old parameters in n. A primal
// node that does not read them is kept as it is (shared).
func (r *renamer) term(n graph.Node) graph.Node {
	if out, ok := r.memo[n]; ok {
		return out
	}
	if fv, ok := r.d.fv[n]; ok && !slices.ContainsFunc(fv, func(v *graph.Var) bool { return r.sub[v] != nil }) {
		return n
	}
	var out graph.Node
	switch m := n.(type) {
	case *graph.Var:
		out = m
		if v, ok := r.sub[m]; ok {
			out = v
		}
	case *graph.Input, *graph.Const, *graph.OpRef, *graph.Ident:
		out = n
	case *graph.Lambda:
		// A copy of the primal lambda (rebuilt by an earlier renaming)
		// binds the old parameters again: inside it they are its own.
		inner := r
		for _, p := range m.Params {
			if _, ok := r.sub[p]; ok {
				if inner == r {
					inner = &renamer{d: r.d, sub: maps.Clone(r.sub), memo: map[graph.Node]graph.Node{}}
				}
				delete(inner.sub, p)
			}
		}
		out = must(graph.WithChildren(n, []graph.Node{inner.term(m.Body)}))
	default:
		kids := graph.Children(n)
		for i, c := range kids {
			kids[i] = r.term(c)
		}
		out = must(graph.WithChildren(n, kids))
	}
	r.memo[n] = out
	return out
}
