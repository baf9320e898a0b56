package graph

import (
	"fmt"
)

// Info records what Check learned about a term, in side tables keyed by node
// (the term itself is not annotated).
type Info struct {
	// Types holds the type of every value term Check reached. A node shared
	// under lambdas that bind it differently keeps the type of its last
	// check.
	Types map[Node]Type
	// Inputs lists the inputs the term uses, in order of first use.
	Inputs []*Input
	// Closed reports, for every node of the term, whether it has no free
	// variables: its value is the same wherever it appears.
	Closed map[Node]bool
}

// TypeOf returns the recorded type of n, or nil.
func (info *Info) TypeOf(n Node) Type { return info.Types[n] }

// Error is a type error: the term it is about and what is wrong with it.
type Error struct {
	Node Node   // the offending term
	Msg  string // why it is rejected
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", Abbrev(e.Node, 60), e.Msg)
	if src := e.Node.Source(); src != "" {
		if _, isInput := e.Node.(*Input); !isInput {
			s += fmt.Sprintf(" (in %s)", src)
		}
	}
	return s
}

func errorf(n Node, format string, args ...any) error {
	return &Error{Node: n, Msg: fmt.Sprintf(format, args...)}
}

// untyped is the element type of a scalar literal until its context decides.
const untyped = Invalid

// Check infers the type of every value term in n and rejects ill-formed
// terms with an *Error that names the term and says why: an unbound
// variable, a function used as a value, outer extents that disagree in an
// nzip, a reduction whose operator does not fit its elements, an illegal
// layout operation, and so on.
func Check(n Node) (*Info, error) {
	if err := CheckDepth(n); err != nil {
		return nil, err
	}
	c := newChecker(closedNodes(n))
	t, err := c.value(n, nil)
	if err != nil {
		return nil, err
	}
	c.info.Types[n] = concrete(t)
	c.info.Closed = c.closed
	return c.info, nil
}

type checker struct {
	info   *Info
	seen   map[*Input]bool
	names  map[string]*Input
	closed map[Node]bool // terms without free variables: one type wherever they appear
	done   map[Node]bool // closed terms already checked
	fv     FreeVarCache  // free variables, for closed when it is not given
}

// newChecker returns a checker that knows which nodes are closed; with
// closed nil it finds out as it meets them.
func newChecker(closed map[Node]bool) *checker {
	c := &checker{info: &Info{Types: map[Node]Type{}}, seen: map[*Input]bool{}, names: map[string]*Input{}, closed: closed}
	if c.closed == nil {
		c.closed = map[Node]bool{}
	}
	return c
}

// isClosed reports whether n has no free variables.
func (c *checker) isClosed(n Node) bool {
	cl, ok := c.closed[n]
	if !ok {
		// One cache for every call, so that a Typer meeting ever larger
		// terms built on the ones it has typed (an importer's) works out
		// each node's free variables once.
		cl = len(c.fv.Of(n)) == 0
		c.closed[n] = cl
	}
	return cl
}

// concrete gives untyped scalars, which have no context left to decide
// their type, the default type f64.
func concrete(t Type) Type {
	switch t := t.(type) {
	case *ScalarType:
		if t.DType == untyped {
			return Scalar(Float64)
		}
	case *TupleType:
		elems := make([]Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = concrete(e)
		}
		return &TupleType{Elems: elems}
	}
	return t
}

// IsFunc reports whether n is, syntactically, a function term: a lambda, an
// op reference, a section, id, or an nzip given fewer arguments than its
// function takes. A variable bound to a function is one too, but only its
// binding can tell.
func IsFunc(n Node) bool {
	switch n := n.(type) {
	case *Lambda, *OpRef, *Section, *Ident:
		return true
	case *NZip:
		k, ok := FuncArity(n.Fn)
		return len(n.Args) == 0 || (ok && len(n.Args) < k)
	}
	return false
}

// UnderZips returns the function that f lifts by partial nzips, nzip (nzip
// .. g) with no arguments at each level, and how many there are (0 when f
// is no such nzip): its parameters take the elements of the arguments of
// an nzip of f, levels axes further in.
func UnderZips(f Node) (g Node, levels int) {
	for {
		p, ok := f.(*NZip)
		if !ok || !IsFunc(p) || len(p.Args) != 0 {
			return f, levels
		}
		f, levels = p.Fn, levels+1
	}
}

// LiftZips returns f under levels partial nzips: UnderZips's inverse.
func LiftZips(f Node, levels int) (Node, error) {
	for range levels {
		p, err := NewNZip(f)
		if err != nil {
			return nil, err
		}
		f = p
	}
	return f, nil
}

// FuncArity returns how many arguments the function term fn takes, when the
// term alone tells.
func FuncArity(fn Node) (int, bool) {
	switch fn := fn.(type) {
	case *Lambda:
		return len(fn.Params), true
	case *OpRef:
		return fn.Op.Arity(), true
	case *Section, *Ident:
		return 1, true
	case *NZip:
		k, ok := FuncArity(fn.Fn)
		if ok && k > len(fn.Args) {
			return k - len(fn.Args), true
		}
	}
	return 0, false
}

func (c *checker) record(n Node, t Type) Type {
	c.info.Types[n] = t
	return t
}

func (c *checker) value(n Node, s *Scope) (Type, error) {
	if c.isClosed(n) && c.done[n] {
		return c.info.Types[n], nil
	}
	t, err := c.value1(n, s)
	if err != nil {
		return nil, err
	}
	if c.isClosed(n) {
		if c.done == nil {
			c.done = map[Node]bool{}
		}
		c.done[n] = true
	}
	return c.record(n, t), nil
}

func (c *checker) value1(n Node, s *Scope) (Type, error) {
	switch n := n.(type) {
	case *Input:
		if other, ok := c.names[n.Name]; ok && other != n {
			return nil, errorf(n, "two different inputs are named %s", n.Name)
		}
		if !c.seen[n] {
			c.seen[n] = true
			c.names[n.Name] = n
			c.info.Inputs = append(c.info.Inputs, n)
		}
		return n.Type, nil
	case *Const:
		return Scalar(untyped), nil
	case *Var:
		b, ok := s.Lookup(n)
		if !ok {
			return nil, errorf(n, "variable %s is not bound here", n.Name)
		}
		if b.Fn != nil {
			return nil, errorf(n, "%s is a function; apply it to arguments", n.Name)
		}
		return b.Type, nil
	case *Lambda, *OpRef, *Section, *Ident:
		return nil, errorf(n, "a function is used as a value; apply it to arguments")
	case *App:
		args, err := c.values(n.Args, s)
		if err != nil {
			return nil, err
		}
		return c.apply(n.Fn, args, s)
	case *Call:
		args, err := c.values(n.Args, s)
		if err != nil {
			return nil, err
		}
		return c.call(n, n.Op, args)
	case *NZip:
		if len(n.Args) == 0 {
			return nil, errorf(n, "nzip without arguments is a function; apply it to arrays")
		}
		args, err := c.values(n.Args, s)
		if err != nil {
			return nil, err
		}
		return c.nzip(n, n.Fn, args, s)
	case *RNZ:
		args, err := c.values(n.Args, s)
		if err != nil {
			return nil, err
		}
		return c.rnz(n, args, s)
	case ViewNode:
		return c.layoutOp(n, n.Operand(), s, n.View().Apply)
	case *Tuple:
		elems, err := c.values(n.Elems, s)
		if err != nil {
			return nil, err
		}
		for i := range elems {
			elems[i] = concrete(elems[i])
		}
		return &TupleType{Elems: elems}, nil
	case *Proj:
		t, err := c.value(n.X, s)
		if err != nil {
			return nil, err
		}
		tt, ok := t.(*TupleType)
		if !ok {
			return nil, errorf(n, "projection %d of %v, which is not a tuple", n.Index, t)
		}
		if n.Index >= len(tt.Elems) {
			return nil, errorf(n, "projection %d of a %d-tuple", n.Index, len(tt.Elems))
		}
		return tt.Elems[n.Index], nil
	case *Let:
		if IsFunc(n.Value) {
			return c.value(n.Body, s.BindFunc(n.Var, n.Value, s))
		}
		t, err := c.value(n.Value, s)
		if err != nil {
			return nil, err
		}
		return c.value(n.Body, s.Bind(n.Var, concrete(t)))
	}
	return nil, errorf(n, "unknown term %T", n)
}

func (c *checker) values(ns []Node, s *Scope) ([]Type, error) {
	ts := make([]Type, len(ns))
	for i, a := range ns {
		t, err := c.value(a, s)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	return ts, nil
}

// apply checks the function term fn applied to arguments of the given types
// and returns the result type.
func (c *checker) apply(fn Node, args []Type, s *Scope) (Type, error) {
	switch f := fn.(type) {
	case *Lambda:
		if len(f.Params) != len(args) {
			return nil, errorf(f, "function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		inner := s
		for i, p := range f.Params {
			inner = inner.Bind(p, args[i])
		}
		return c.value(f.Body, inner)
	case *OpRef:
		return c.call(f, f.Op, args)
	case *Section:
		if len(args) != 1 {
			return nil, errorf(f, "section applied to %d arguments, takes 1", len(args))
		}
		operand, err := c.value(f.Operand, s)
		if err != nil {
			return nil, err
		}
		if f.Left {
			return c.call(f, f.Op, []Type{operand, args[0]})
		}
		return c.call(f, f.Op, []Type{args[0], operand})
	case *Ident:
		if len(args) != 1 {
			return nil, errorf(f, "id applied to %d arguments, takes 1", len(args))
		}
		return args[0], nil
	case *NZip:
		given, err := c.values(f.Args, s)
		if err != nil {
			return nil, err
		}
		return c.nzip(f, f.Fn, append(given, args...), s)
	case *Var:
		b, ok := s.Lookup(f)
		if !ok {
			return nil, errorf(f, "variable %s is not bound here", f.Name)
		}
		if b.Fn == nil {
			return nil, errorf(f, "%s has type %v and is not a function", f.Name, b.Type)
		}
		return c.apply(b.Fn, args, ScopeOf(b.FnEnv))
	}
	return nil, errorf(fn, "not a function; a lambda, an op, a section, id or a partial nzip is needed here")
}

func (c *checker) call(n Node, op Op, args []Type) (Type, error) {
	dts := make([]DType, len(args))
	for i, a := range args {
		st, ok := a.(*ScalarType)
		if !ok {
			return nil, errorf(n, "%v: operand %d has type %v, not a scalar", op, i, a)
		}
		dts[i] = st.DType
	}
	dt, err := resultDType(op, dts)
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	return Scalar(dt), nil
}

// resultDType types op on operands whose types may be untyped; see
// Op.Resolve.
func resultDType(op Op, dts []DType) (DType, error) {
	_, dt, err := op.Resolve(dts)
	return dt, err
}

func (c *checker) nzip(n Node, fn Node, args []Type, s *Scope) (Type, error) {
	elems, extent, err := c.elems(n, "nzip", args)
	if err != nil {
		return nil, err
	}
	r, err := c.apply(fn, elems, s)
	if err != nil {
		return nil, err
	}
	return Stacked(extent, concrete(r)), nil
}

// elems returns the element types of array arguments and their shared outer
// extent.
func (c *checker) elems(n Node, what string, args []Type) ([]Type, int, error) {
	elems := make([]Type, len(args))
	extent := -1
	for i, a := range args {
		et, e, err := ElemType(a)
		if err != nil {
			return nil, 0, errorf(n, "%s argument %d: %v", what, i, err)
		}
		if extent >= 0 && e != extent {
			return nil, 0, errorf(n, "%s arguments have different outer extents: argument 0 has %d, argument %d has %d", what, extent, i, e)
		}
		elems[i], extent = et, e
	}
	return elems, extent, nil
}

func (c *checker) rnz(n *RNZ, args []Type, s *Scope) (Type, error) {
	elems, _, err := c.elems(n, "rnz", args)
	if err != nil {
		return nil, err
	}
	r, err := c.apply(n.Fn, elems, s)
	if err != nil {
		return nil, err
	}
	acc := Materialized(concrete(r))
	rt, err := c.apply(n.Red, []Type{acc, acc}, s)
	if err != nil {
		return nil, err
	}
	if !SameShape(concrete(rt), acc) {
		return nil, errorf(n, "reduction operator returns %v for elements of type %v", concrete(rt), acc)
	}
	return acc, nil
}

func (c *checker) layoutOp(n, x Node, s *Scope, op func(Layout) (Layout, error)) (Type, error) {
	t, err := c.value(x, s)
	if err != nil {
		return nil, err
	}
	at, ok := t.(*ArrayType)
	if !ok {
		return nil, errorf(n, "operand has type %v, not an array", t)
	}
	l, err := op(at.Layout)
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	return &ArrayType{DType: at.DType, Layout: l}, nil
}
