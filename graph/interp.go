package graph

import (
	"fmt"
	"strings"
)

// Value is a runtime value of the reference interpreter: *Array, ScalarValue
// or TupleValue.
type Value interface {
	value()
}

// ScalarValue is one element and its type. Its V is exactly representable in
// DType (0 or 1 for Bool).
type ScalarValue struct {
	DType DType
	V     float64
}

// TupleValue is a tuple of values.
type TupleValue []Value

func (*Array) value()      {}
func (ScalarValue) value() {}
func (TupleValue) value()  {}

func (s ScalarValue) String() string {
	if s.DType == untyped {
		return fmt.Sprint(s.V)
	}
	return fmt.Sprintf("%v(%v)", s.DType, s.V)
}

func (t TupleValue) String() string {
	parts := make([]string, len(t))
	for i, v := range t {
		parts[i] = fmt.Sprint(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Eval evaluates the term n with its inputs bound by name. It checks n
// first, so an ill-typed term returns Check's error; every input n uses must
// be bound to a value of its declared type (an *Array of the same element
// type and extents, or a ScalarValue), and every binding must name an input.
// An array bound with strides other than the declared ones is copied into
// the declared layout first.
//
// Eval is the reference interpreter: it follows the definitions literally,
// element by element, reduces left to right, and computes every scalar
// operation as the package doc's "Scalar semantics" defines (Op.Eval). It
// is slow on purpose and is the oracle every rewrite and back end is tested
// against.
//
// Eval refuses, with a *MemoryError, a term whose evaluation EvalBytes
// estimates at more than DefaultMemoryLimit bytes; EvalWith takes another
// limit.
func Eval(n Node, inputs map[string]Value) (Value, error) {
	return EvalWith(n, inputs, EvalOptions{})
}

// EvalOptions control EvalWith.
type EvalOptions struct {
	// MaxMemory caps, in bytes, what the evaluation may allocate as
	// EvalBytes estimates it; 0 means DefaultMemoryLimit.
	MaxMemory int64
}

// EvalWith is Eval with options.
func EvalWith(n Node, inputs map[string]Value, opt EvalOptions) (Value, error) {
	info, err := Check(n)
	if err != nil {
		return nil, err
	}
	limit := memoryLimit(opt.MaxMemory)
	if err := checkEvalMemory(n, info, limit); err != nil {
		return nil, err
	}
	if err := CheckInputs(info.Inputs, inputs); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	bound := make(map[*Input]Value, len(info.Inputs))
	for _, in := range info.Inputs {
		v, err := inLayout(in.Type, inputs[in.Name])
		if err != nil {
			return nil, fmt.Errorf("eval: input %s: %w", in.Name, err)
		}
		bound[in] = v
	}
	e := &evaluator{inputs: bound, memo: map[Node]Value{}, closed: closedNodes(n), limit: limit}
	v, err := e.value(n, nil)
	if err != nil {
		return nil, err
	}
	return concreteValue(v), nil
}

// inLayout returns v, which fits t (CheckValue), with every array that
// has other strides than t declares copied into t's layout.
func inLayout(t Type, v Value) (Value, error) {
	switch t := t.(type) {
	case *ArrayType:
		a := v.(*Array)
		if !a.layout.Equal(t.Layout) {
			return a.CopyTo(t.Layout)
		}
	case *TupleType:
		tv := v.(TupleValue)
		out := make(TupleValue, len(tv))
		for i := range tv {
			e, err := inLayout(t.Elems[i], tv[i])
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = e
		}
		return out, nil
	}
	return v, nil
}

type evaluator struct {
	inputs map[*Input]Value
	memo   map[Node]Value // values of closed terms, each computed once
	closed map[Node]bool  // terms without free variables
	limit  int64          // the memory limit, for the arrays stack makes
}

// env is a persistent list of variable bindings, to values or to closures.
type env struct {
	v     *Var
	val   Value
	fn    Node
	fnEnv *env
	next  *env
}

func (e *env) lookup(v *Var) *env {
	for ; e != nil; e = e.next {
		if e.v == v {
			return e
		}
	}
	return nil
}

// value evaluates n. A closed term has one value wherever it appears, so it
// is computed once and remembered, even inside lambdas: a batch statistic
// used by every row is not recomputed per row.
func (ev *evaluator) value(n Node, e *env) (Value, error) {
	memo := e == nil || ev.closed[n]
	if memo {
		if v, ok := ev.memo[n]; ok {
			return v, nil
		}
	}
	v, err := ev.value1(n, e)
	if err != nil {
		return nil, err
	}
	if memo {
		ev.memo[n] = v
	}
	return v, nil
}

func (ev *evaluator) value1(n Node, e *env) (Value, error) {
	switch n := n.(type) {
	case *Input:
		return ev.inputs[n], nil
	case *Const:
		return ScalarValue{DType: untyped, V: n.Value}, nil
	case *Var:
		b := e.lookup(n)
		if b == nil || b.fn != nil {
			return nil, errorf(n, "variable %s has no value here", n.Name)
		}
		return b.val, nil
	case *App:
		args, err := ev.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return ev.apply(n.Fn, args, e)
	case *Call:
		args, err := ev.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return ev.call(n, n.Op, args)
	case *NZip:
		args, err := ev.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return ev.nzip(n.Fn, args, e)
	case *RNZ:
		args, err := ev.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return ev.rnz(n, args, e)
	case ViewNode:
		return ev.layoutOp(n, n.Operand(), e, func(a *Array) (*Array, error) { return a.viewLimit(n.View(), ev.limit) })
	case *Tuple:
		elems, err := ev.values(n.Elems, e)
		if err != nil {
			return nil, err
		}
		for i := range elems {
			elems[i] = concreteValue(elems[i])
		}
		return TupleValue(elems), nil
	case *Proj:
		v, err := ev.value(n.X, e)
		if err != nil {
			return nil, err
		}
		t, ok := v.(TupleValue)
		if !ok || n.Index >= len(t) {
			return nil, errorf(n, "projection %d of %v", n.Index, v)
		}
		return t[n.Index], nil
	case *Let:
		if IsFunc(n.Value) {
			return ev.value(n.Body, &env{v: n.Var, fn: n.Value, fnEnv: e, next: e})
		}
		v, err := ev.value(n.Value, e)
		if err != nil {
			return nil, err
		}
		return ev.value(n.Body, &env{v: n.Var, val: concreteValue(v), next: e})
	}
	return nil, errorf(n, "cannot evaluate %T as a value", n)
}

func (ev *evaluator) values(ns []Node, e *env) ([]Value, error) {
	vs := make([]Value, len(ns))
	for i, a := range ns {
		v, err := ev.value(a, e)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

func (ev *evaluator) apply(fn Node, args []Value, e *env) (Value, error) {
	switch f := fn.(type) {
	case *Lambda:
		if len(f.Params) != len(args) {
			return nil, errorf(f, "function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		inner := e
		for i, p := range f.Params {
			inner = &env{v: p, val: args[i], next: inner}
		}
		return ev.value(f.Body, inner)
	case *OpRef:
		return ev.call(f, f.Op, args)
	case *Section:
		operand, err := ev.value(f.Operand, e)
		if err != nil {
			return nil, err
		}
		if f.Left {
			return ev.call(f, f.Op, []Value{operand, args[0]})
		}
		return ev.call(f, f.Op, []Value{args[0], operand})
	case *Ident:
		return args[0], nil
	case *NZip:
		given, err := ev.values(f.Args, e)
		if err != nil {
			return nil, err
		}
		return ev.nzip(f.Fn, append(given, args...), e)
	case *Var:
		b := e.lookup(f)
		if b == nil || b.fn == nil {
			return nil, errorf(f, "%s is not a function here", f.Name)
		}
		return ev.apply(b.fn, args, b.fnEnv)
	}
	return nil, errorf(fn, "cannot apply %T", fn)
}

func (ev *evaluator) call(n Node, op Op, args []Value) (Value, error) {
	dts := make([]DType, len(args))
	xs := make([]float64, len(args))
	for i, a := range args {
		s, ok := a.(ScalarValue)
		if !ok {
			return nil, errorf(n, "%v: operand %d is %T, not a scalar", op, i, a)
		}
		dts[i], xs[i] = s.DType, s.V
	}
	rs, dt, err := op.Resolve(dts)
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	// A literal meeting a typed operand is first converted to that type, as
	// a typed constant would have been.
	for i := range xs {
		xs[i] = rs[i].Round(xs[i])
	}
	v, err := op.Eval(dt, xs...)
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	return ScalarValue{DType: dt, V: v}, nil
}

// elemAt returns element i along the outermost axis of v.
func elemAt(v Value, i int) (Value, error) {
	switch v := v.(type) {
	case *Array:
		if v.Rank() == 1 {
			if i < 0 || i >= v.layout[0].Extent {
				return nil, fmt.Errorf("index %d out of range for extent %d", i, v.layout[0].Extent)
			}
			return ScalarValue{DType: v.dtype, V: v.load(v.offset + i*v.layout[0].Stride)}, nil
		}
		return v.Index(i)
	case TupleValue:
		out := make(TupleValue, len(v))
		for k, x := range v {
			y, err := elemAt(x, i)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T has no outer axis", v)
}

func outerExtent(v Value) (int, error) {
	switch v := v.(type) {
	case *Array:
		if v.Rank() == 0 {
			return 0, fmt.Errorf("array of rank 0 has no outer axis")
		}
		return v.layout[0].Extent, nil
	case TupleValue:
		if len(v) == 0 {
			return 0, fmt.Errorf("empty tuple has no outer axis")
		}
		return outerExtent(v[0])
	}
	return 0, fmt.Errorf("%T has no outer axis", v)
}

func elemsAt(args []Value, i int) ([]Value, error) {
	out := make([]Value, len(args))
	for k, a := range args {
		x, err := elemAt(a, i)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

func (ev *evaluator) nzip(fn Node, args []Value, e *env) (Value, error) {
	if len(args) == 0 {
		return nil, errorf(fn, "nzip without arguments")
	}
	n, err := outerExtent(args[0])
	if err != nil {
		return nil, errorf(fn, "%v", err)
	}
	results := make([]Value, n)
	for i := range n {
		xs, err := elemsAt(args, i)
		if err != nil {
			return nil, errorf(fn, "%v", err)
		}
		r, err := ev.apply(fn, xs, e)
		if err != nil {
			return nil, err
		}
		results[i] = concreteValue(r)
	}
	return stack(results, ev.limit)
}

// stack lays results side by side along a new outer axis: scalars become a
// rank-1 array, arrays gain an axis, tuples stack element by element.
func stack(results []Value, limit int64) (Value, error) {
	switch first := results[0].(type) {
	case ScalarValue:
		out, err := NewArrayLimit(first.DType, RowMajor(len(results)), limit)
		if err != nil {
			return nil, err
		}
		for i, r := range results {
			out.store(i, r.(ScalarValue).V)
		}
		return out, nil
	case *Array:
		out, err := NewArrayLimit(first.dtype, RowMajor(append([]int{len(results)}, first.Extents()...)...), limit)
		if err != nil {
			return nil, err
		}
		size := first.Size()
		for i, r := range results {
			a := r.(*Array)
			for k := range size {
				out.store(i*size+k, a.getFlat(k))
			}
		}
		return out, nil
	case TupleValue:
		out := make(TupleValue, len(first))
		for k := range first {
			col := make([]Value, len(results))
			for i, r := range results {
				col[i] = r.(TupleValue)[k]
			}
			s, err := stack(col, limit)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot stack %T", results[0])
}

func (ev *evaluator) rnz(n *RNZ, args []Value, e *env) (Value, error) {
	count, err := outerExtent(args[0])
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	var acc Value
	for i := range count {
		xs, err := elemsAt(args, i)
		if err != nil {
			return nil, errorf(n, "%v", err)
		}
		r, err := ev.apply(n.Fn, xs, e)
		if err != nil {
			return nil, err
		}
		r = concreteValue(r)
		if i == 0 {
			acc = r
			continue
		}
		if acc, err = ev.apply(n.Red, []Value{acc, r}, e); err != nil {
			return nil, err
		}
		acc = concreteValue(acc)
	}
	// Over one element the result is that element, which may be a view
	// (a transpose); Check types an rnz's result as a new array, and
	// views of it (a flatten) rely on that.
	return rowMajorValue(acc), nil
}

// rowMajorValue is v with its arrays laid out row-major, copied where
// they are not.
func rowMajorValue(v Value) Value {
	switch v := v.(type) {
	case *Array:
		if !v.layout.IsRowMajor() {
			return v.Copy()
		}
	case TupleValue:
		out := make(TupleValue, len(v))
		for i, e := range v {
			out[i] = rowMajorValue(e)
		}
		return out
	}
	return v
}

func (ev *evaluator) layoutOp(n, x Node, e *env, op func(*Array) (*Array, error)) (Value, error) {
	v, err := ev.value(x, e)
	if err != nil {
		return nil, err
	}
	a, ok := v.(*Array)
	if !ok {
		return nil, errorf(n, "operand is %T, not an array", v)
	}
	out, err := op(a)
	if err != nil {
		return nil, errorf(n, "%v", err)
	}
	return out, nil
}

// concreteValue gives untyped scalars the default type f64.
func concreteValue(v Value) Value {
	switch v := v.(type) {
	case ScalarValue:
		if v.DType == untyped {
			v.DType = Float64
		}
		return v
	case TupleValue:
		out := make(TupleValue, len(v))
		for i, x := range v {
			out[i] = concreteValue(x)
		}
		return out
	}
	return v
}
