package graph

import (
	"errors"
	"fmt"
	"reflect"
)

// Node is a term of the IR. The set of node kinds is closed: *Input, *Const,
// *Var, *Lambda, *App, *OpRef, *Call, *Section, *Ident, *NZip, *RNZ, *Subdiv,
// *Flatten, *Flip, *ViewOp, *Tuple, *Proj and *Let. *Subdiv, *Flatten,
// *Flip and *ViewOp are the ViewNodes: terms that apply a View.
//
// Nodes are immutable: build them with the New* constructors, which check
// the node's own structure (arities, axes, missing children), and never
// modify one afterwards. Whether a whole term is well typed is Check's job.
// Nodes are compared by identity; a term may share a node in several places
// (a DAG), which Check, Eval and the rewriters honour.
//
// Function-valued terms (*Lambda, *OpRef, *Section, *Ident, a partially
// applied *NZip, and variables bound to those) have no type of their own:
// they are checked where they are applied, against the types of their
// arguments.
type Node interface {
	// Source is the name of the layer, parameter or imported node this term
	// came from, or "".
	Source() string
	node()
	depthOf() int32
}

type base struct {
	src   string
	depth int32 // 1 + the deepest child's, set by the constructor; 0 when unknown
}

func (b *base) Source() string { return b.src }
func (*base) node()            {}
func (b *base) depthOf() int32 { return b.depth }

// Input is a named input of the program: data fed at every run or, with
// Param set, a trained parameter. Inputs are compared by identity; two
// inputs of one program must not share a name.
type Input struct {
	base
	Name  string // name the notation and the evaluator's bindings use
	Type  Type   // an *ArrayType, a *ScalarType or a *TupleType of those
	Param bool   // a trained parameter rather than a data input
}

// Const is a scalar literal. It is untyped: it takes the element type its
// context needs (the other operand of an arithmetic op), or f64 when nothing
// decides.
type Const struct {
	base
	Value float64
}

// Var is a variable: the binder in a *Lambda or *Let, and every use of it.
// Uses refer to their binder by identity, not by name, so substitution never
// captures; the name is for printing.
type Var struct {
	base
	Name string
}

// Lambda is an anonymous function \p0 p1 ... -> Body.
type Lambda struct {
	base
	Params []*Var // binders, distinct
	Body   Node   // may refer to Params
}

// App applies a function term to arguments: (\x -> x * 2) a. The application
// must be complete: as many arguments as the function takes.
type App struct {
	base
	Fn   Node   // a function term
	Args []Node // value terms
}

// OpRef is a scalar op used as a function, as in rnz (+) (*) r u.
type OpRef struct {
	base
	Op Op
}

// Call applies a scalar op to operands: a + b, exp x, select c a b.
type Call struct {
	base
	Op   Op
	Args []Node // exactly Op.Arity() operands
}

// Section is a binary op with one operand fixed: (*e) is \x -> x * e and
// (e*) is \x -> e * x.
type Section struct {
	base
	Op      Op   // a binary op
	Operand Node // the fixed operand
	Left    bool // the fixed operand is the left one: (e*)
}

// Ident is the identity function id.
type Ident struct {
	base
}

// NZip applies Fn elementwise along the outermost axis of Args: the result's
// element i is Fn applied to element i of every argument. map and zip are
// its one- and two-argument cases. The arguments are arrays, or tuples of
// arrays, whose outermost extents agree. Fn may return a scalar, an array (the
// result gains an outer axis) or a tuple (the result is a tuple of arrays).
//
// An NZip with fewer Args than Fn takes is a function of the missing ones:
// zip (+) is the lifted addition \a b -> zip (+) a b.
type NZip struct {
	base
	Fn   Node
	Args []Node
}

// RNZ reduces with Red the results of NZip Fn Args: Red (... Red (f x0) (f x1)
// ...) (f x{n-1}). reduce r x is RNZ with Fn = id. Red must be a binary
// function; rules that regroup or reorder the reduction consult its Algebra.
type RNZ struct {
	base
	Red  Node
	Fn   Node
	Args []Node
}

// Subdiv splits axis Axis of X into blocks of Block; see Layout.Subdiv.
type Subdiv struct {
	base
	Axis, Block int
	X           Node
}

// Flatten merges axes Axis and Axis+1 of X; see Layout.Flatten.
type Flatten struct {
	base
	Axis int
	X    Node
}

// Flip swaps axes Axis1 and Axis2 of X; see Layout.Flip.
type Flip struct {
	base
	Axis1, Axis2 int
	X            Node
}

// Tuple groups values: several results of one traversal.
type Tuple struct {
	base
	Elems []Node // at least two
}

// Proj selects element Index of a tuple; fst and snd are Index 0 and 1.
type Proj struct {
	base
	Index int
	X     Node
}

// Let binds Var to Value within Body: let v = value in body. Value may be a
// function term, which is then checked at each use.
type Let struct {
	base
	Var   *Var
	Value Node
	Body  Node
}

// ErrNilNode is returned by constructors given a nil child.
var ErrNilNode = errors.New("nil node")

func nonNil(what string, n Node) error {
	if n == nil || isNilPtr(n) {
		return fmt.Errorf("%s: %w", what, ErrNilNode)
	}
	return nil
}

func nonNilList(what string, ns []Node) error {
	for i, n := range ns {
		if n == nil || isNilPtr(n) {
			return fmt.Errorf("%s: argument %d: %w", what, i, ErrNilNode)
		}
	}
	return nil
}

func isNilPtr(n Node) bool {
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// NewInput returns a data input (param false) or parameter (param true) of
// the given type: an *ArrayType, a *ScalarType, or a *TupleType of those
// (the multi-output result of one kernel, read by the next).
func NewInput(name string, t Type, param bool) (*Input, error) {
	if name == "" {
		return nil, errors.New("input: empty name")
	}
	if err := validateInputType(t); err != nil {
		return nil, fmt.Errorf("input %s: %w", name, err)
	}
	return &Input{base: base{src: name, depth: 1}, Name: name, Type: t, Param: param}, nil
}

func validateInputType(t Type) error {
	switch t := t.(type) {
	case *ArrayType:
		if t == nil {
			return errors.New("nil type")
		}
		return t.validate()
	case *ScalarType:
		if t == nil || t.DType == Invalid {
			return errors.New("invalid element type")
		}
		return nil
	case *TupleType:
		if t == nil || len(t.Elems) < 2 {
			return errors.New("a tuple type needs at least 2 elements")
		}
		for i, e := range t.Elems {
			if err := validateInputType(e); err != nil {
				return fmt.Errorf("tuple element %d: %w", i, err)
			}
		}
		return nil
	}
	return fmt.Errorf("type %v is not an array, scalar or tuple type", t)
}

// NewConst returns the untyped scalar literal v.
func NewConst(v float64) *Const { return &Const{base: base{depth: 1}, Value: v} }

// NewVar returns a fresh variable. Its identity, not its name, tells it
// apart from every other variable.
func NewVar(name string) *Var { return &Var{base: base{depth: 1}, Name: name} }

// NewLambda returns \params -> body.
func NewLambda(params []*Var, body Node) (*Lambda, error) {
	if len(params) == 0 {
		return nil, errors.New("lambda: no parameters")
	}
	for i, p := range params {
		if p == nil {
			return nil, fmt.Errorf("lambda: parameter %d: %w", i, ErrNilNode)
		}
		for _, q := range params[:i] {
			if p == q {
				return nil, fmt.Errorf("lambda: parameter %s bound twice", p.Name)
			}
		}
	}
	if err := nonNil("lambda body", body); err != nil {
		return nil, err
	}
	d, err := depth1("lambda", body)
	if err != nil {
		return nil, err
	}
	return &Lambda{base: base{depth: d}, Params: append([]*Var(nil), params...), Body: body}, nil
}

// NewApp returns fn applied to args.
func NewApp(fn Node, args ...Node) (*App, error) {
	if err := nonNil("app function", fn); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New("app: no arguments")
	}
	if err := nonNilList("app", args); err != nil {
		return nil, err
	}
	d, err := depth1("app", append([]Node{fn}, args...)...)
	if err != nil {
		return nil, err
	}
	return &App{base: base{depth: d}, Fn: fn, Args: append([]Node(nil), args...)}, nil
}

// NewOpRef returns op as a function term.
func NewOpRef(op Op) (*OpRef, error) {
	if !op.valid() {
		return nil, fmt.Errorf("op ref: invalid op %d", uint8(op))
	}
	return &OpRef{base: base{depth: 1}, Op: op}, nil
}

// NewCall returns op applied to args; len(args) must be the op's arity.
func NewCall(op Op, args ...Node) (*Call, error) {
	if !op.valid() {
		return nil, fmt.Errorf("call: invalid op %d", uint8(op))
	}
	if len(args) != op.Arity() {
		return nil, fmt.Errorf("call: %v takes %d operands, got %d", op, op.Arity(), len(args))
	}
	if err := nonNilList("call "+op.String(), args); err != nil {
		return nil, err
	}
	d, err := depth1("call "+op.String(), args...)
	if err != nil {
		return nil, err
	}
	return &Call{base: base{depth: d}, Op: op, Args: append([]Node(nil), args...)}, nil
}

// NewSection returns (op operand) with left false, (operand op) with left
// true; op must be binary.
func NewSection(op Op, operand Node, left bool) (*Section, error) {
	if op.Arity() != 2 {
		return nil, fmt.Errorf("section: %v is not a binary op", op)
	}
	if err := nonNil("section operand", operand); err != nil {
		return nil, err
	}
	d, err := depth1("section "+op.String(), operand)
	if err != nil {
		return nil, err
	}
	return &Section{base: base{depth: d}, Op: op, Operand: operand, Left: left}, nil
}

// NewIdent returns the identity function.
func NewIdent() *Ident { return &Ident{base: base{depth: 1}} }

// NewNZip returns nzip fn args. With fewer args than fn takes it is a
// function of the rest (see NZip).
func NewNZip(fn Node, args ...Node) (*NZip, error) {
	if err := nonNil("nzip function", fn); err != nil {
		return nil, err
	}
	if err := nonNilList("nzip", args); err != nil {
		return nil, err
	}
	d, err := depth1("nzip", append([]Node{fn}, args...)...)
	if err != nil {
		return nil, err
	}
	return &NZip{base: base{depth: d}, Fn: fn, Args: append([]Node(nil), args...)}, nil
}

// NewRNZ returns rnz red fn args.
func NewRNZ(red, fn Node, args ...Node) (*RNZ, error) {
	if err := nonNil("rnz reduction", red); err != nil {
		return nil, err
	}
	if err := nonNil("rnz function", fn); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New("rnz: no array arguments")
	}
	if err := nonNilList("rnz", args); err != nil {
		return nil, err
	}
	d, err := depth1("rnz", append([]Node{red, fn}, args...)...)
	if err != nil {
		return nil, err
	}
	return &RNZ{base: base{depth: d}, Red: red, Fn: fn, Args: append([]Node(nil), args...)}, nil
}

// NewReduce returns reduce red x, that is rnz red id x.
func NewReduce(red, x Node) (*RNZ, error) { return NewRNZ(red, NewIdent(), x) }

// NewSubdiv returns subdiv axis block x. Whether block divides the extent is
// checked against x's type by Check.
func NewSubdiv(axis, block int, x Node) (*Subdiv, error) {
	if axis < 0 {
		return nil, fmt.Errorf("subdiv: negative axis %d", axis)
	}
	if block < 1 {
		return nil, fmt.Errorf("subdiv: block %d of axis %d is less than 1", block, axis)
	}
	if err := nonNil("subdiv", x); err != nil {
		return nil, err
	}
	d, err := depth1("subdiv", x)
	if err != nil {
		return nil, err
	}
	return &Subdiv{base: base{depth: d}, Axis: axis, Block: block, X: x}, nil
}

// NewFlatten returns flatten axis x.
func NewFlatten(axis int, x Node) (*Flatten, error) {
	if axis < 0 {
		return nil, fmt.Errorf("flatten: negative axis %d", axis)
	}
	if err := nonNil("flatten", x); err != nil {
		return nil, err
	}
	d, err := depth1("flatten", x)
	if err != nil {
		return nil, err
	}
	return &Flatten{base: base{depth: d}, Axis: axis, X: x}, nil
}

// NewFlip returns flip axis1 axis2 x.
func NewFlip(axis1, axis2 int, x Node) (*Flip, error) {
	if axis1 < 0 || axis2 < 0 {
		return nil, fmt.Errorf("flip: negative axis in flip %d %d", axis1, axis2)
	}
	if err := nonNil("flip", x); err != nil {
		return nil, err
	}
	d, err := depth1("flip", x)
	if err != nil {
		return nil, err
	}
	return &Flip{base: base{depth: d}, Axis1: axis1, Axis2: axis2, X: x}, nil
}

// NewTuple returns (elems...); it needs at least two elements.
func NewTuple(elems ...Node) (*Tuple, error) {
	if len(elems) < 2 {
		return nil, fmt.Errorf("tuple: %d elements, need at least 2", len(elems))
	}
	if err := nonNilList("tuple", elems); err != nil {
		return nil, err
	}
	d, err := depth1("tuple", elems...)
	if err != nil {
		return nil, err
	}
	return &Tuple{base: base{depth: d}, Elems: append([]Node(nil), elems...)}, nil
}

// NewProj returns element index of the tuple x.
func NewProj(index int, x Node) (*Proj, error) {
	if index < 0 {
		return nil, fmt.Errorf("proj: negative index %d", index)
	}
	if err := nonNil("proj", x); err != nil {
		return nil, err
	}
	d, err := depth1("proj", x)
	if err != nil {
		return nil, err
	}
	return &Proj{base: base{depth: d}, Index: index, X: x}, nil
}

// NewLet returns let v = value in body.
func NewLet(v *Var, value, body Node) (*Let, error) {
	if v == nil {
		return nil, fmt.Errorf("let: variable: %w", ErrNilNode)
	}
	if err := nonNil("let value", value); err != nil {
		return nil, err
	}
	if err := nonNil("let body", body); err != nil {
		return nil, err
	}
	d, err := depth1("let "+v.Name, value, body)
	if err != nil {
		return nil, err
	}
	return &Let{base: base{depth: d}, Var: v, Value: value, Body: body}, nil
}

// WithSource returns a copy of n that carries the source name src. The copy
// has the same children; n itself is unchanged. Inputs and variables are
// identified by their pointers, so they are returned as they are: an input's
// source is its name, and a variable has none of its own.
func WithSource(n Node, src string) Node {
	switch n := n.(type) {
	case *Input, *Var:
		return n
	case *Const:
		return withSrc(n, src)
	case *Lambda:
		return withSrc(n, src)
	case *App:
		return withSrc(n, src)
	case *OpRef:
		return withSrc(n, src)
	case *Call:
		return withSrc(n, src)
	case *Section:
		return withSrc(n, src)
	case *Ident:
		return withSrc(n, src)
	case *NZip:
		return withSrc(n, src)
	case *RNZ:
		return withSrc(n, src)
	case *Subdiv:
		return withSrc(n, src)
	case *Flatten:
		return withSrc(n, src)
	case *Flip:
		return withSrc(n, src)
	case *ViewOp:
		return withSrc(n, src)
	case *Tuple:
		return withSrc(n, src)
	case *Proj:
		return withSrc(n, src)
	case *Let:
		return withSrc(n, src)
	}
	panic(fmt.Sprintf("graph: WithSource of unknown node %T", n))
}

func (b *base) setSrc(s string) { b.src = s }

// withSrc returns a shallow copy of *n with its source set to src.
func withSrc[T any, P interface {
	*T
	Node
	setSrc(string)
}](n P, src string) Node {
	c := P(new(T))
	*c = *n
	c.setSrc(src)
	return c
}
