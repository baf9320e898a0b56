package graph

// This file is the typing service for open terms: terms under bound
// variables, which a back end meets when it compiles the body of a lambda
// and needs the type of a subterm (to size a scratch buffer, to estimate
// work). Check is the same service applied to a closed term; the rules
// exist once, in the checker.

// Env tells the typing service what the free variables of an open term
// stand for. *Scope is the Env the checker builds; a back end may
// implement Env over its own compile-time values.
type Env interface {
	// Lookup returns the binding of v, and false when v is not bound.
	Lookup(v *Var) (Binding, bool)
}

// Binding is what a variable stands for: a value of type Type or, when Fn
// is set, the function term Fn closed over the environment FnEnv (nil when
// Fn is closed).
type Binding struct {
	Type  Type
	Fn    Node
	FnEnv Env
}

// Scope is a persistent list of bindings: an Env. The nil *Scope binds
// nothing; Bind and BindFunc return a longer list and leave the receiver
// as it is.
type Scope struct {
	v     *Var
	b     Binding
	next  *Scope
	outer Env // set on the last element of a scope that extends outer
}

// ScopeOf returns a scope that binds what env binds; nil binds nothing.
func ScopeOf(env Env) *Scope {
	switch e := env.(type) {
	case nil:
		return nil
	case *Scope:
		return e
	}
	return &Scope{outer: env}
}

// Bind returns s with v bound to a value of type t.
func (s *Scope) Bind(v *Var, t Type) *Scope { return &Scope{v: v, b: Binding{Type: t}, next: s} }

// BindFunc returns s with v bound to the function term fn, closed over
// env.
func (s *Scope) BindFunc(v *Var, fn Node, env Env) *Scope {
	return &Scope{v: v, b: Binding{Fn: fn, FnEnv: env}, next: s}
}

// Lookup implements Env: the innermost binding of v.
func (s *Scope) Lookup(v *Var) (Binding, bool) {
	for ; s != nil; s = s.next {
		if s.outer != nil {
			return s.outer.Lookup(v)
		}
		if s.v == v {
			return s.b, true
		}
	}
	return Binding{}, false
}

// TypeOf returns the type of the value term n, whose free variables env
// binds, by the rules of Check; an ill-typed term gives Check's *Error.
// An untyped literal, or arithmetic on literals only, has a scalar type of
// element type Invalid: its context decides its type. For many calls on
// subterms of one term, a Typer remembers what it learnt.
func TypeOf(n Node, env Env) (Type, error) { return NewTyper().TypeOf(n, env) }

// ApplyType returns the type of the function term fn applied to arguments
// of the given types, with the free variables of fn bound by env.
func ApplyType(fn Node, args []Type, env Env) (Type, error) {
	return NewTyper().ApplyType(fn, args, env)
}

// A Typer types open terms and remembers the type of every closed subterm
// it has met, so that typing the subterms of one term one after another
// costs little more than typing the term once. Its zero value is not
// ready; use NewTyper. A Typer is not safe for concurrent use.
type Typer struct {
	c *checker
}

// NewTyper returns a Typer that has met no term.
func NewTyper() *Typer {
	return &Typer{c: newChecker(nil)}
}

// TypeOf is the package's TypeOf, remembering closed subterms.
func (t *Typer) TypeOf(n Node, env Env) (Type, error) {
	return t.c.value(n, ScopeOf(env))
}

// ApplyType is the package's ApplyType, remembering closed subterms.
func (t *Typer) ApplyType(fn Node, args []Type, env Env) (Type, error) {
	return t.c.apply(fn, args, ScopeOf(env))
}

// Concrete gives the untyped scalars in t, which no context decided, the
// default element type f64, as a let, a tuple or an nzip's result does.
func Concrete(t Type) Type { return concrete(t) }
