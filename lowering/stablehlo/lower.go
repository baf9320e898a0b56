package stablehlo

import (
	"errors"
	"fmt"
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"

	"github.com/hofuse/hofuse/graph"
)

// ErrUnsupported is wrapped by every *Error about a construct the lowering
// does not translate (as opposed to an ill-typed term or an internal error).
var ErrUnsupported = errors.New("not supported by the StableHLO lowering")

// Error is a term that cannot be lowered: the kernel, the term and why.
type Error struct {
	Kernel string     // the kernel being lowered
	Node   graph.Node // the offending term
	Msg    string     // why
	Err    error      // the underlying error, or ErrUnsupported
}

func (e *Error) Error() string {
	s := "stablehlo"
	if e.Kernel != "" {
		s += ": kernel " + e.Kernel
	}
	if e.Node != nil {
		s += ": " + graph.Abbrev(e.Node, 60)
	}
	s += ": " + e.Msg
	if e.Node != nil {
		if src := e.Node.Source(); src != "" {
			if _, isInput := e.Node.(*graph.Input); !isInput {
				s += fmt.Sprintf(" (in %s)", src)
			}
		}
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// lowerer translates the body of one kernel into the StableHLO function fn.
type lowerer struct {
	kernel  string
	fn      *shlo.Function
	inputs  map[*graph.Input]*val
	extents []int                      // extent of each active loop level, outermost first
	locs    map[*shlo.Statement]string // source name of each statement of fn
	memo    map[memoKey]*val
	// transposes remembers the input and permutation of every transpose a
	// flip emitted, so that a dot_general reading the result can read the
	// input instead, with its dimension numbers permuted: a weight matrix
	// used as flip 0 W is then never transposed at run time.
	transposes map[*shlo.Value]transposed
	// subst gives terms whose value was computed another way: the dot
	// products of a convolution (conv.go).
	subst map[graph.Node]*val
}

// transposed is the input of a transpose and its permutation: dimension i
// of the result is dimension perm[i] of in.
type transposed struct {
	in   *shlo.Value
	perm []int
}

type memoKey struct {
	n     graph.Node
	e     *env
	depth int
}

// env is a persistent list of variable bindings, to a translated value or
// to a function term and the environment it was defined in.
type env struct {
	v     *graph.Var
	val   *val
	fn    graph.Node
	fnEnv *env
	next  *env
}

func (e *env) lookup(v *graph.Var) *env {
	for ; e != nil; e = e.next {
		if e.v == v {
			return e
		}
	}
	return nil
}

// Lookup makes the environment a graph.Env, for graph.Reducer: a
// function binding is its term and environment, a value binding the
// value's type (its logical extents, row-major).
func (e *env) Lookup(v *graph.Var) (graph.Binding, bool) {
	b := e.lookup(v)
	if b == nil {
		return graph.Binding{}, false
	}
	if b.fn != nil {
		return graph.Binding{Fn: b.fn, FnEnv: b.fnEnv}, true
	}
	return graph.Binding{Type: b.val.typeOf()}, true
}

func newLowerer(kernel string, fn *shlo.Function) *lowerer {
	return &lowerer{
		kernel:     kernel,
		fn:         fn,
		inputs:     map[*graph.Input]*val{},
		locs:       map[*shlo.Statement]string{},
		memo:       map[memoKey]*val{},
		transposes: map[*shlo.Value]transposed{},
	}
}

func (l *lowerer) errorf(n graph.Node, format string, args ...any) error {
	return &Error{Kernel: l.kernel, Node: n, Msg: fmt.Sprintf(format, args...)}
}

func (l *lowerer) unsupported(n graph.Node, format string, args ...any) error {
	return &Error{Kernel: l.kernel, Node: n, Msg: "unsupported: " + fmt.Sprintf(format, args...), Err: ErrUnsupported}
}

// wrap attaches the term to an error from the builder; an *Error passes
// through unchanged.
func (l *lowerer) wrap(n graph.Node, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kernel: l.kernel, Node: n, Msg: err.Error(), Err: err}
}

// attribute gives the statements emitted since mark that have no source
// yet the source src: the innermost term that has a source names a
// statement.
func (l *lowerer) attribute(mark int, src string) {
	if src == "" {
		return
	}
	for _, s := range l.fn.Statements[mark:] {
		if _, ok := l.locs[s]; !ok {
			l.locs[s] = src
		}
	}
}

// value translates the value term n in environment e.
func (l *lowerer) value(n graph.Node, e *env) (*val, error) {
	if v, ok := l.subst[n]; ok {
		return v, nil
	}
	key := memoKey{n, e, len(l.extents)}
	if v, ok := l.memo[key]; ok {
		return v, nil
	}
	mark := len(l.fn.Statements)
	v, err := l.value1(n, e)
	if err != nil {
		return nil, err
	}
	l.attribute(mark, n.Source())
	l.memo[key] = v
	return v, nil
}

func (l *lowerer) values(ns []graph.Node, e *env) ([]*val, error) {
	out := make([]*val, len(ns))
	for i, n := range ns {
		v, err := l.value(n, e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (l *lowerer) value1(n graph.Node, e *env) (*val, error) {
	switch n := n.(type) {
	case *graph.Input:
		v, ok := l.inputs[n]
		if !ok {
			return nil, l.errorf(n, "input %s is not a parameter of the kernel", n.Name)
		}
		return v, nil
	case *graph.Const:
		return &val{untyped: true, c: n.Value}, nil
	case *graph.Var:
		b := e.lookup(n)
		if b == nil {
			return nil, l.errorf(n, "variable %s is not bound here", n.Name)
		}
		if b.fn != nil {
			return nil, l.errorf(n, "%s is a function; apply it to arguments", n.Name)
		}
		return b.val, nil
	case *graph.Lambda, *graph.OpRef, *graph.Section, *graph.Ident:
		return nil, l.errorf(n, "a function is used as a value")
	case *graph.App:
		args, err := l.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return l.apply(n.Fn, args, e)
	case *graph.Call:
		args, err := l.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return l.call(n, n.Op, args)
	case *graph.NZip:
		if graph.IsFunc(n) {
			return nil, l.errorf(n, "a partially applied nzip is a function; apply it to arrays")
		}
		if v, ok, err := l.convolution(n, e); ok {
			return v, err
		}
		if v, ok, err := l.reduceWindows(n, e); ok {
			return v, err
		}
		args, err := l.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return l.nzip(n, n.Fn, args, e)
	case *graph.RNZ:
		args, err := l.values(n.Args, e)
		if err != nil {
			return nil, err
		}
		return l.rnz(n, args, e)
	case graph.ViewNode:
		x, err := l.value(n.Operand(), e)
		if err != nil {
			return nil, err
		}
		return l.layout(n, x)
	case *graph.Tuple:
		elems, err := l.values(n.Elems, e)
		if err != nil {
			return nil, err
		}
		v, err := l.concrete(&val{tuple: elems})
		if err != nil {
			return nil, l.wrap(n, err)
		}
		return v, nil
	case *graph.Proj:
		x, err := l.value(n.X, e)
		if err != nil {
			return nil, err
		}
		if x.tuple == nil || n.Index >= len(x.tuple) {
			return nil, l.errorf(n, "projection %d of a value that is not a tuple of more than %d elements", n.Index, n.Index)
		}
		return x.tuple[n.Index], nil
	case *graph.Let:
		if graph.IsFunc(n.Value) {
			return l.value(n.Body, &env{v: n.Var, fn: n.Value, fnEnv: e, next: e})
		}
		v, err := l.value(n.Value, e)
		if err != nil {
			return nil, err
		}
		if v, err = l.concrete(v); err != nil {
			return nil, l.wrap(n, err)
		}
		return l.value(n.Body, &env{v: n.Var, val: v, next: e})
	}
	return nil, l.unsupported(n, "term of kind %T", n)
}

// apply translates the function term fn applied to args.
func (l *lowerer) apply(fn graph.Node, args []*val, e *env) (*val, error) {
	mark := len(l.fn.Statements)
	v, err := l.apply1(fn, args, e)
	if err != nil {
		return nil, err
	}
	l.attribute(mark, fn.Source())
	return v, nil
}

func (l *lowerer) apply1(fn graph.Node, args []*val, e *env) (*val, error) {
	switch f := fn.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return nil, l.errorf(f, "function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		inner := e
		for i, p := range f.Params {
			inner = &env{v: p, val: args[i], next: inner}
		}
		return l.value(f.Body, inner)
	case *graph.OpRef:
		return l.call(f, f.Op, args)
	case *graph.Section:
		if len(args) != 1 {
			return nil, l.errorf(f, "section applied to %d arguments, takes 1", len(args))
		}
		operand, err := l.value(f.Operand, e)
		if err != nil {
			return nil, err
		}
		if f.Left {
			return l.call(f, f.Op, []*val{operand, args[0]})
		}
		return l.call(f, f.Op, []*val{args[0], operand})
	case *graph.Ident:
		if len(args) != 1 {
			return nil, l.errorf(f, "id applied to %d arguments, takes 1", len(args))
		}
		return args[0], nil
	case *graph.NZip:
		given, err := l.values(f.Args, e)
		if err != nil {
			return nil, err
		}
		return l.nzip(f, f.Fn, append(given, args...), e)
	case *graph.Var:
		b := e.lookup(f)
		if b == nil {
			return nil, l.errorf(f, "variable %s is not bound here", f.Name)
		}
		if b.fn == nil {
			return nil, l.errorf(f, "%s is not a function", f.Name)
		}
		return l.apply(b.fn, args, b.fnEnv)
	}
	return nil, l.errorf(fn, "not a function")
}

// nzipWith lowers the nzip n with each of nodes, terms inside its
// function, standing for v (a convolution's or a pooling's result that
// replaces the reductions it computes) while its arguments and function
// are lowered.
func (l *lowerer) nzipWith(n *graph.NZip, e *env, nodes []graph.Node, v *val) (*val, error) {
	if l.subst == nil {
		l.subst = map[graph.Node]*val{}
	}
	for _, d := range nodes {
		l.subst[d] = v
	}
	defer func() {
		for _, d := range nodes {
			delete(l.subst, d)
		}
	}()
	args, err := l.values(n.Args, e)
	if err != nil {
		return nil, err
	}
	return l.nzip(n, n.Fn, args, e)
}

// nzip translates nzip fn args: fn's body is translated once, with the
// arguments' outer axes as a new, innermost loop level, which becomes the
// result's outer axis.
func (l *lowerer) nzip(n, fn graph.Node, args []*val, e *env) (*val, error) {
	if len(args) == 0 {
		return nil, l.errorf(n, "nzip without arguments")
	}
	extent, err := outerExtent(args[0])
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	level := len(l.extents)
	elems, err := l.enterAll(n, args, level)
	if err != nil {
		return nil, err
	}
	l.extents = append(l.extents, extent)
	body, err := l.apply(fn, elems, e)
	l.extents = l.extents[:level]
	if err != nil {
		return nil, err
	}
	out, err := l.exit(body, level, extent)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return out, nil
}

func (l *lowerer) enterAll(n graph.Node, args []*val, level int) ([]*val, error) {
	elems := make([]*val, len(args))
	for i, a := range args {
		x, err := enter(a, level)
		if err != nil {
			return nil, l.errorf(n, "argument %d: %v", i, err)
		}
		elems[i] = x
	}
	return elems, nil
}

// rnz translates rnz red fn args: fn's body is translated at a new loop
// level, as for nzip, and the result is reduced over that level.
func (l *lowerer) rnz(n *graph.RNZ, args []*val, e *env) (*val, error) {
	extent, err := outerExtent(args[0])
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	level := len(l.extents)
	elems, err := l.enterAll(n, args, level)
	if err != nil {
		return nil, err
	}
	l.extents = append(l.extents, extent)
	defer func() { l.extents = l.extents[:level] }()
	body, err := l.apply(n.Fn, elems, e)
	if err != nil {
		return nil, err
	}
	return l.reduce(n, n.Red, body, level, e)
}

// layout translates a view. A value here is logical (dense, row-major in
// its logical axes), so the view is read off the layout it gives the
// row-major layout of the operand's shape: still row-major, it is a reshape
// (subdiv splits an axis, flatten merges two); the operand's axes
// reordered, a transpose (flip); a row-major layout reordered, a reshape
// then a transpose. A view that shows an element at several places (a
// window), or elements of no buffer (a pad) or part of its operand (a
// crop), is none of these and has a lowering of its own (window.go).
func (l *lowerer) layout(n graph.ViewNode, x *val) (*val, error) {
	if x.tuple != nil || x.untyped || len(x.shape) == 0 {
		return nil, l.errorf(n, "operand is not an array")
	}
	if out, ok, err := l.strangeView(n, x); ok {
		return out, err
	}
	if v := n.View(); !graph.IsStrided(v) {
		return nil, l.unsupported(n, "the %s view (%s) is not a layout over its operand's buffer", v.Name(), graph.ViewString(v))
	}
	t, levels, err := l.dense(x)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	nb := len(levels)
	in := graph.RowMajor(x.shape...)
	out, err := n.View().Apply(in)
	if err != nil {
		return nil, l.errorf(n, "%v", err)
	}
	shape := out.Extents()
	transpose := func(t *shlo.Value, perm []int) (*shlo.Value, error) {
		full := seq(nb + len(perm))
		for i, p := range perm {
			full[nb+i] = nb + p
		}
		tr, err := shlo.Transpose(t, full...)
		if err == nil {
			l.transposes[tr] = transposed{in: t, perm: full}
		}
		return tr, err
	}
	if fv, ok := n.View().(graph.FirstView); ok {
		// first d: the slice [0, 1) of axis d, then a reshape that drops
		// it. The only view that shows part of its operand; no reshape or
		// transpose reads it off the layout.
		t, err = l.first(x.dt, t, levels, x.shape, fv.Axis, shape)
	} else if out.Size() != in.Size() {
		// A view that shows part of its operand, or some elements twice,
		// is no reshape even when its layout looks row-major.
		return nil, l.unsupported(n, "view %s shows %d of the %d elements of its operand, which no reshape and transpose do",
			graph.ViewString(n.View()), out.Size(), in.Size())
	} else if out.IsRowMajor() {
		if !slices.Equal(shape, x.shape) {
			t, err = l.reshape(x.dt, t, levels, shape)
		}
	} else if perm, ok := axisPermutation(in, out); ok {
		t, err = transpose(t, perm)
	} else if order, ok := rowMajorOrder(out); ok {
		// Reshape to the axes in memory order, then put them in the
		// view's order.
		mid := make([]int, len(order))
		perm := make([]int, len(order))
		for j, i := range order {
			mid[j] = shape[i]
			perm[i] = j
		}
		if t, err = l.reshape(x.dt, t, levels, mid); err == nil {
			t, err = transpose(t, perm)
		}
	} else {
		return nil, l.unsupported(n, "view %s gives a row-major %v the layout %v, which no reshape and transpose make",
			graph.ViewString(n.View()), in, out)
	}
	if err != nil {
		return nil, l.wrap(n, err)
	}
	return &val{dt: x.dt, shape: shape, factors: []factor{{t: t, levels: levels, axes: seq(len(shape))}}}, nil
}

// first slices element 0 of axis (a logical axis of the operand of
// extents in, after its loop levels) and reshapes the result to out, the
// extents without that axis.
func (l *lowerer) first(dt graph.DType, t *shlo.Value, levels, in []int, axis int, out []int) (*shlo.Value, error) {
	limits := make([]int, 0, len(levels)+len(in))
	for _, lv := range levels {
		limits = append(limits, l.extents[lv])
	}
	limits = append(limits, in...)
	limits[len(levels)+axis] = 1
	sl, err := shlo.Slice(t, make([]int, len(limits)), limits, nil)
	if err != nil {
		return nil, err
	}
	return l.reshape(dt, sl, levels, out)
}

// axisPermutation returns perm with out[i] == in[perm[i]], when out is in
// with its axes reordered.
func axisPermutation(in, out graph.Layout) ([]int, bool) {
	if len(in) != len(out) {
		return nil, false
	}
	perm := make([]int, len(out))
	used := make([]bool, len(in))
	for i, a := range out {
		j := 0
		for j < len(in) && (used[j] || in[j] != a) {
			j++
		}
		if j == len(in) {
			return nil, false
		}
		perm[i], used[j] = j, true
	}
	return perm, true
}

// rowMajorOrder returns the axes of l from the largest stride to the
// smallest, when l in that order is row-major (the strides of axes of
// extent 1 do not matter).
func rowMajorOrder(l graph.Layout) ([]int, bool) {
	order := seq(len(l))
	slices.SortStableFunc(order, func(a, b int) int { return l[b].Stride - l[a].Stride })
	stride := 1
	for j := len(order) - 1; j >= 0; j-- {
		a := l[order[j]]
		if a.Extent != 1 && a.Stride != stride {
			return nil, false
		}
		stride *= a.Extent
	}
	return order, true
}

func (l *lowerer) reshape(dt graph.DType, t *shlo.Value, levels []int, shape []int) (*shlo.Value, error) {
	dims := make([]int, 0, len(levels)+len(shape))
	for _, lv := range levels {
		dims = append(dims, l.extents[lv])
	}
	s, err := l.shape(dt, append(dims, shape...))
	if err != nil {
		return nil, err
	}
	return shlo.Reshape(t, s)
}
