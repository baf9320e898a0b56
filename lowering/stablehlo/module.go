package stablehlo

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"
	"github.com/gomlx/go-xla/pkg/types/dtypes"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
)

// Leaf is one array or scalar that crosses a module's boundary: a whole
// buffer, or one element of a tuple-typed buffer (a kernel with several
// results writes a tuple; StableHLO passes its elements separately).
type Leaf struct {
	Buffer *graph.Input // the buffer
	Path   []int        // tuple indices within Buffer.Type; empty for an array or scalar buffer
	Type   graph.Type   // the leaf's type, materialised: a row-major *graph.ArrayType or a *graph.ScalarType
}

// Lowered is a StableHLO module and the calling convention of its main
// function. Arrays cross the boundary densely, in row-major order of their
// logical axes, whatever the strides of the graph.Array that holds them.
type Lowered struct {
	Text    string // the module, StableHLO in MLIR's generic syntax
	Params  []Leaf // main's parameters, in order
	Results []Leaf // main's results, in order
	// Finite lists the results (indices into Results) that LowerLoop's
	// check covers; when it is not empty, main has one more result after
	// Results, a tensor<Nxi1> whose element i is true when every element
	// of result Finite[i] is finite.
	Finite []int
}

// Loop says how LowerLoop writes main for a program run again and again,
// some of whose results replace some of its parameters.
type Loop struct {
	// Aliases maps a parameter of main (an index into Params) to the
	// result (an index into Results) that replaces it. Each pair becomes
	// the attribute tf.aliasing_output on the parameter, which lets PJRT
	// write the result into the parameter's buffer when the caller donates
	// it (and copy it first when the caller does not). The two must have
	// the same type.
	Aliases map[int]int
	// Finite lists results (indices into Results) to check on the device:
	// main returns one more result, tensor<len(Finite)xi1>, true where
	// every element of the result is finite. Integer and boolean results
	// are finite by definition.
	Finite []int
}

// Module returns StableHLO text for a whole kernel graph: one function per
// kernel, named after it, and a main that calls them in order, passing the
// kernels' outputs on. XLA inlines the calls, so this is the fused mode:
// one executable for the program.
func Module(g *fusion.Graph) (string, error) {
	low, err := LowerGraph(g)
	if err != nil {
		return "", err
	}
	return low.Text, nil
}

// KernelModule returns a module whose main computes one kernel: the
// unfused baseline compiles one per kernel of fusion.Unfused.
func KernelModule(k *fusion.Kernel) (string, error) {
	low, err := LowerKernel(k)
	if err != nil {
		return "", err
	}
	return low.Text, nil
}

// LowerGraph is Module with the calling convention: main's parameters are
// the leaves of g.Inputs, its results the leaves of g.Result.
func LowerGraph(g *fusion.Graph) (*Lowered, error) {
	return LowerLoop(g, Loop{})
}

// LowerLoop is LowerGraph with main written for a loop: parameters
// aliased to the results that replace them, and a finiteness check of
// some results computed in the same module (so XLA may fuse it with the
// kernels that write them), as loop says.
func LowerLoop(g *fusion.Graph, loop Loop) (*Lowered, error) {
	if g == nil || len(g.Kernels) == 0 {
		return nil, fmt.Errorf("stablehlo: empty kernel graph")
	}
	b := shlo.New("hofuse")
	fnames := map[string]bool{"main": true}
	var funcs []*kfunc
	for _, k := range g.Kernels {
		name := unique(identifier(k.Name, "kernel"), fnames)
		kf, err := lowerKernel(b, name, k)
		if err != nil {
			return nil, err
		}
		funcs = append(funcs, kf)
	}
	params := leavesOfAll(g.Inputs)
	results := leaves(g.Result)
	for p, r := range loop.Aliases {
		if p < 0 || p >= len(params) || r < 0 || r >= len(results) {
			return nil, fmt.Errorf("stablehlo: alias of parameter %d to result %d: main has %d parameters and %d results", p, r, len(params), len(results))
		}
		if !graph.Identical(params[p].Type, results[r].Type) {
			return nil, fmt.Errorf("stablehlo: alias of parameter %d (%v) to result %d (%v): the types differ", p, params[p].Type, r, results[r].Type)
		}
	}
	var check *kfunc
	if len(loop.Finite) > 0 {
		var ts []graph.Type
		for _, r := range loop.Finite {
			if r < 0 || r >= len(results) {
				return nil, fmt.Errorf("stablehlo: finiteness check of result %d: main has %d results", r, len(results))
			}
			ts = append(ts, results[r].Type)
		}
		var err error
		if check, err = finiteCheck(b, unique("finite_check", fnames), ts); err != nil {
			return nil, err
		}
		funcs = append(funcs, check)
	}

	// main: parameters, one call per kernel, results.
	low := &Lowered{}
	var sb strings.Builder
	vnames := map[string]bool{}
	ssa := map[*graph.Input][]string{}
	var pdecls []string
	for i, leaf := range params {
		in := leaf.Buffer
		name := unique(paramName(in.Name, leaf.Path), vnames)
		ssa[in] = append(ssa[in], "%"+name)
		t, err := tensorType(leaf.Type)
		if err != nil {
			return nil, err
		}
		decl := fmt.Sprintf("%%%s: %s", name, t)
		if r, ok := loop.Aliases[i]; ok {
			decl += fmt.Sprintf(" {tf.aliasing_output = %d : i32}", r)
		}
		pdecls = append(pdecls, decl)
	}
	low.Params = params
	for i, k := range g.Kernels {
		kf := funcs[i]
		var args []string
		for _, in := range k.Inputs {
			names, ok := ssa[in]
			if !ok {
				return nil, fmt.Errorf("stablehlo: kernel %s reads %s, which neither the program's inputs nor an earlier kernel provide", k.Name, in.Name)
			}
			args = append(args, names...)
		}
		var outs []string
		for j := range kf.results {
			name := identifier(k.Output.Name, "t")
			if len(kf.results) > 1 {
				name += "_" + strconv.Itoa(j)
			}
			outs = append(outs, "%"+unique(name, vnames))
		}
		ssa[k.Output] = outs
		fmt.Fprintf(&sb, "    %s = \"func.call\"(%s) {callee = @%s} : (%s) -> %s loc(%s)\n",
			strings.Join(outs, ", "), strings.Join(args, ", "), kf.name,
			strings.Join(valueTypes(kf.params), ", "), resultTypes(valueTypes(kf.results)), mlirString(k.Name))
	}
	res := ssa[g.Result]
	if res == nil {
		return nil, fmt.Errorf("stablehlo: no kernel writes the result %s", g.Result.Name)
	}
	low.Results = results
	var rtypes []string
	for _, leaf := range low.Results {
		t, err := tensorType(leaf.Type)
		if err != nil {
			return nil, err
		}
		rtypes = append(rtypes, t)
	}
	if check != nil {
		var args []string
		for _, r := range loop.Finite {
			args = append(args, res[r])
		}
		out := "%" + unique("finite", vnames)
		ft := valueTypes(check.results)[0]
		fmt.Fprintf(&sb, "    %s = \"func.call\"(%s) {callee = @%s} : (%s) -> %s loc(\"finite_check\")\n",
			out, strings.Join(args, ", "), check.name, strings.Join(valueTypes(check.params), ", "), ft)
		res = append(slices.Clone(res), out)
		rtypes = append(rtypes, ft)
		low.Finite = slices.Clone(loop.Finite)
	}
	fmt.Fprintf(&sb, "    \"func.return\"(%s) : (%s) -> ()\n", strings.Join(res, ", "), strings.Join(rtypes, ", "))

	var text strings.Builder
	text.WriteString("module @hofuse {\n")
	for _, kf := range funcs {
		if err := kf.write(&text); err != nil {
			return nil, err
		}
		text.WriteString("\n")
	}
	fmt.Fprintf(&text, "  func.func @main(%s) -> %s {\n", strings.Join(pdecls, ", "), resultTypes(rtypes))
	text.WriteString(sb.String())
	text.WriteString("  }\n}\n")
	low.Text = text.String()
	return low, nil
}

// LowerKernel is KernelModule with the calling convention: main's
// parameters are the leaves of k.Inputs, its results the leaves of
// k.Output.
func LowerKernel(k *fusion.Kernel) (*Lowered, error) {
	if k == nil {
		return nil, fmt.Errorf("stablehlo: nil kernel")
	}
	b := shlo.New(identifier(k.Name, "kernel"))
	kf, err := lowerKernel(b, "main", k)
	if err != nil {
		return nil, err
	}
	low := &Lowered{Results: leaves(k.Output)}
	for _, in := range k.Inputs {
		low.Params = append(low.Params, leaves(in)...)
	}
	var text strings.Builder
	fmt.Fprintf(&text, "module @%s {\n", identifier(k.Name, "kernel"))
	if err := kf.write(&text); err != nil {
		return nil, err
	}
	text.WriteString("}\n")
	low.Text = text.String()
	return low, nil
}

// kfunc is the StableHLO function of one kernel.
type kfunc struct {
	name    string
	comment []string
	fn      *shlo.Function
	params  []*shlo.Value
	results []*shlo.Value
	locs    map[*shlo.Statement]string
}

// lowerKernel translates kernel k into the function name of b: its
// parameters are the leaves of k.Inputs, its results the leaves of k.Output.
func lowerKernel(b *shlo.Builder, name string, k *fusion.Kernel) (*kfunc, error) {
	info, err := graph.Check(k.Body)
	if err != nil {
		return nil, &Error{Kernel: k.Label(), Msg: err.Error(), Err: err}
	}
	for _, in := range info.Inputs {
		if !slices.Contains(k.Inputs, in) {
			return nil, &Error{Kernel: k.Name, Node: in, Msg: "the body reads an input that is not in the kernel's Inputs"}
		}
	}
	fn := b.NewFunction(name)
	l := newLowerer(k.Label(), fn) // errors name a reordered kernel with its schedule
	kf := &kfunc{name: name, fn: fn, locs: l.locs}
	kf.comment = append(kf.comment, fmt.Sprintf("%s : %v = %s", k.Name, graph.Materialized(info.TypeOf(k.Body)), oneLine(graph.Print(k.Body), 300)))
	if len(k.Sources) > 0 {
		kf.comment = append(kf.comment, "sources: "+strings.Join(k.Sources, ", "))
	}
	names := map[string]bool{}
	for _, in := range k.Inputs {
		var vals []*val
		for _, leaf := range leaves(in) {
			p, err := l.param(unique(paramName(in.Name, leaf.Path), names), leaf.Type)
			if err != nil {
				return nil, &Error{Kernel: k.Label(), Node: in, Msg: err.Error(), Err: err}
			}
			kf.params = append(kf.params, p.factors[0].t)
			vals = append(vals, p)
		}
		l.inputs[in] = assemble(in.Type, &vals)
	}

	v, err := l.value(k.Body, nil)
	if err != nil {
		return nil, err
	}
	want := leaves(&graph.Input{Name: k.Name, Type: info.TypeOf(k.Body)})
	got := flatten(v, nil)
	if len(got) != len(want) {
		return nil, &Error{Kernel: k.Name, Node: k.Body, Msg: fmt.Sprintf("internal error: %d results for a value of type %v", len(got), info.TypeOf(k.Body))}
	}
	mark := len(fn.Statements)
	for i, r := range got {
		r, err := l.concrete(r)
		if err != nil {
			return nil, l.wrap(k.Body, err)
		}
		t, levels, err := l.dense(r)
		if err != nil {
			return nil, l.wrap(k.Body, err)
		}
		wt := want[i].Type
		if len(levels) != 0 || !sameShape(r, wt) {
			return nil, &Error{Kernel: k.Name, Node: k.Body, Msg: fmt.Sprintf("internal error: result %d lowered to %v%v (levels %v), want %v", i, r.dt, r.shape, levels, wt)}
		}
		kf.results = append(kf.results, t)
	}
	l.attribute(mark, k.Body.Source())
	return kf, nil
}

// param declares a parameter of type t (an array or scalar type).
func (l *lowerer) param(name string, t graph.Type) (*val, error) {
	var dt graph.DType
	var extents []int
	switch t := t.(type) {
	case *graph.ArrayType:
		dt, extents = t.DType, t.Layout.Extents()
	case *graph.ScalarType:
		dt = t.DType
	default:
		return nil, fmt.Errorf("parameter of type %v", t)
	}
	s, err := l.shape(dt, extents)
	if err != nil {
		return nil, err
	}
	p, err := l.fn.NamedInput(name, s)
	if err != nil {
		return nil, err
	}
	return &val{dt: dt, shape: extents, factors: []factor{{t: p, axes: seq(len(extents))}}}, nil
}

// assemble rebuilds a value of type t from its leaves, taken in order.
func assemble(t graph.Type, leaves *[]*val) *val {
	if tt, ok := t.(*graph.TupleType); ok {
		out := &val{tuple: make([]*val, len(tt.Elems))}
		for i, e := range tt.Elems {
			out.tuple[i] = assemble(e, leaves)
		}
		return out
	}
	v := (*leaves)[0]
	*leaves = (*leaves)[1:]
	return v
}

func flatten(v *val, out []*val) []*val {
	if v.tuple == nil {
		return append(out, v)
	}
	for _, e := range v.tuple {
		out = flatten(e, out)
	}
	return out
}

func sameShape(v *val, t graph.Type) bool {
	switch t := t.(type) {
	case *graph.ArrayType:
		return v.dt == t.DType && slices.Equal(v.shape, t.Layout.Extents())
	case *graph.ScalarType:
		return v.dt == t.DType && len(v.shape) == 0
	}
	return false
}

// leavesOfAll lists the leaves of every buffer of ins, in order.
func leavesOfAll(ins []*graph.Input) []Leaf {
	var out []Leaf
	for _, in := range ins {
		out = append(out, leaves(in)...)
	}
	return out
}

// finiteCheck builds the function name of b that takes values of the
// types ts and returns tensor<len(ts)xi1>: element i is true when every
// element of argument i is finite (always, for integers and booleans).
func finiteCheck(b *shlo.Builder, name string, ts []graph.Type) (*kfunc, error) {
	fn := b.NewFunction(name)
	kf := &kfunc{name: name, fn: fn, comment: []string{"each argument is finite: sum(x*0) == 0"}}
	fail := func(err error) (*kfunc, error) {
		return nil, fmt.Errorf("stablehlo: finiteness check: %w", err)
	}
	flags := make([]*shlo.Value, len(ts))
	type group struct {
		xdt  dtypes.DType
		dims []int
		args []int
		ps   []*shlo.Value
	}
	var groups []*group
	for i, t := range ts {
		at := graph.Materialized(t)
		var dt graph.DType
		var dims []int
		switch at := at.(type) {
		case *graph.ArrayType:
			dt, dims = at.DType, at.Layout.Extents()
		case *graph.ScalarType:
			dt = at.DType
		default:
			return fail(fmt.Errorf("argument %d of type %v", i, t))
		}
		xdt, err := xlaDType(dt)
		if err != nil {
			return fail(err)
		}
		p, err := fn.NamedInput("r"+strconv.Itoa(i), shapeOf(xdt, dims))
		if err != nil {
			return fail(err)
		}
		kf.params = append(kf.params, p)
		if dt == graph.Float32 || dt == graph.Float64 {
			k := slices.IndexFunc(groups, func(g *group) bool { return g.xdt == xdt && slices.Equal(g.dims, dims) })
			if k < 0 {
				k = len(groups)
				groups = append(groups, &group{xdt: xdt, dims: dims})
			}
			groups[k].args = append(groups[k].args, i)
			groups[k].ps = append(groups[k].ps, p)
			continue
		}
		if flags[i], err = fn.ConstantFromScalar(float32(0)); err != nil {
			return fail(err)
		}
	}
	for _, g := range groups {
		sums, err := allFinite(fn, g.ps, g.xdt, g.dims)
		if err != nil {
			return fail(err)
		}
		for j, i := range g.args {
			flags[i] = sums[j]
		}
	}
	for i := range flags {
		var err error
		if flags[i], err = shlo.Reshape(flags[i], shapeOf(dtypes.Float32, []int{1})); err != nil {
			return fail(err)
		}
	}
	sums := flags[0]
	if len(flags) > 1 {
		var err error
		if sums, err = shlo.Concatenate(0, flags...); err != nil {
			return fail(err)
		}
	}
	zero, err := fn.ConstantFromScalar(float32(0))
	if err != nil {
		return fail(err)
	}
	if zero, err = shlo.BroadcastInDim(zero, shapeOf(dtypes.Float32, []int{len(ts)}), nil); err != nil {
		return fail(err)
	}
	out, err := shlo.Compare(sums, zero, types.CompareEQ, types.CompareFloat)
	if err != nil {
		return fail(err)
	}
	kf.results = []*shlo.Value{out} // kfunc.write writes the return
	return kf, nil
}

// allFinite returns, for each of ps, float tensors of type xdt and
// extents dims, an f32 scalar that is ±0 when every element is finite and
// NaN otherwise: p·0 is ±0 for finite elements and NaN for a NaN or an
// infinity; its sums over blocks of k elements (k the largest divisor of
// the size up to 32) and the product of those sums are ±0 or NaN alike
// (and stay so converted to f32). (XLA folds x·0 into 0 only for
// integers.) The tensors of ps are checked together, each stage one
// variadic reduce, so that XLA makes one fusion of a stage for the whole
// group rather than one per tensor; finiteCheck compares all the scalars
// with 0 at once, in one more fusion.
//
// The two stages keep the check to one read of p on the XLA CPU plugin:
// it rewrites any reduction of more than 32 elements into a reduce_window
// that it does not fuse with its operand, so that a plain sum of p·0 (or
// all(is_finite(p))) first writes the products (the predicates) out in
// full and reads them again. The block sums are short reductions fused
// with the product, and the product of the sums, a different operator, is
// not merged into them. On the MLP 784-512-512-10 training step with Adam
// (2 million carried values) the plain sum added about 2 ms to a step of
// 4 ms at batch 32 and 14 ms at batch 256; the two stages add 0.6 and 1 ms.
func allFinite(fn *shlo.Function, ps []*shlo.Value, xdt dtypes.DType, dims []int) ([]*shlo.Value, error) {
	z, err := fn.ConstantFromScalar(float32(0))
	if xdt == dtypes.Float64 {
		z, err = fn.ConstantFromScalar(float64(0))
	}
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range dims {
		n *= d
	}
	zs := z
	if len(dims) > 0 {
		if zs, err = shlo.BroadcastInDim(z, shapeOf(xdt, dims), nil); err != nil {
			return nil, err
		}
	}
	xs := make([]*shlo.Value, len(ps))
	for i, p := range ps {
		if xs[i], err = shlo.Multiply(p, zs); err != nil {
			return nil, err
		}
	}
	inits := make([]*shlo.Value, len(ps))
	for i := range inits {
		inits[i] = z
	}
	reduce := func(xs []*shlo.Value, op func(a, b *shlo.Value) (*shlo.Value, error), axis int) ([]*shlo.Value, error) {
		region := fn.Closure()
		s := shapeOf(xdt, nil)
		lhs := make([]*shlo.Value, len(xs))
		rhs := make([]*shlo.Value, len(xs))
		for _, side := range [][]*shlo.Value{lhs, rhs} {
			for i := range side {
				if side[i], err = region.Input(s); err != nil {
					return nil, err
				}
			}
		}
		outs := make([]*shlo.Value, len(xs))
		for i := range outs {
			if outs[i], err = op(lhs[i], rhs[i]); err != nil {
				return nil, err
			}
		}
		if err := region.Return(outs...); err != nil {
			return nil, err
		}
		return shlo.MultiReduce(xs, inits, region, axis)
	}
	if n > 1 {
		k := n
		for d := min(n, 32); d > 1; d-- {
			if n%d == 0 {
				k = d
				break
			}
		}
		for i := range xs {
			if xs[i], err = shlo.Reshape(xs[i], shapeOf(xdt, []int{n / k, k})); err != nil {
				return nil, err
			}
		}
		if xs, err = reduce(xs, shlo.Add, 1); err != nil {
			return nil, err
		}
		if xs, err = reduce(xs, shlo.Multiply, 0); err != nil {
			return nil, err
		}
	} else if len(dims) > 0 {
		for i := range xs {
			if xs[i], err = shlo.Reshape(xs[i], shapeOf(xdt, nil)); err != nil {
				return nil, err
			}
		}
	}
	if xdt == dtypes.Float32 {
		return xs, nil
	}
	// A new slice: xs may be the results MultiReduce keeps as its own.
	out := make([]*shlo.Value, len(xs))
	for i, x := range xs {
		if out[i], err = shlo.Convert(x, dtypes.Float32); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// leaves lists the arrays and scalars of buffer buf, depth first.
func leaves(buf *graph.Input) []Leaf {
	var out []Leaf
	var walk func(t graph.Type, path []int)
	walk = func(t graph.Type, path []int) {
		if tt, ok := t.(*graph.TupleType); ok {
			for i, e := range tt.Elems {
				walk(e, append(slices.Clone(path), i))
			}
			return
		}
		out = append(out, Leaf{Buffer: buf, Path: path, Type: graph.Materialized(t)})
	}
	walk(buf.Type, nil)
	return out
}

// tensorType writes the StableHLO type of an array or scalar type.
func tensorType(t graph.Type) (string, error) {
	var dt graph.DType
	var extents []int
	switch t := t.(type) {
	case *graph.ArrayType:
		dt, extents = t.DType, t.Layout.Extents()
	case *graph.ScalarType:
		dt = t.DType
	default:
		return "", fmt.Errorf("stablehlo: no tensor type for %v", t)
	}
	xdt, err := xlaDType(dt)
	if err != nil {
		return "", err
	}
	return shapeOf(xdt, extents).ToStableHLO(), nil
}

func valueTypes(vs []*shlo.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Shape().ToStableHLO()
	}
	return out
}

func resultTypes(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	return "(" + strings.Join(ts, ", ") + ")"
}

// write writes the function in MLIR's generic syntax, each top-level
// statement with the location of the term it came from: loc("dense1").
func (kf *kfunc) write(w *strings.Builder) error {
	for _, c := range kf.comment {
		fmt.Fprintf(w, "  // %s\n", c)
	}
	params := make([]string, len(kf.params))
	for i, p := range kf.params {
		params[i] = fmt.Sprintf("%s: %s", p, p.Shape().ToStableHLO())
	}
	fmt.Fprintf(w, "  func.func @%s(%s) -> %s {\n", kf.name, strings.Join(params, ", "), resultTypes(valueTypes(kf.results)))
	for _, s := range kf.fn.Statements {
		if err := s.Write(w, "    "); err != nil {
			return err
		}
		if src, ok := kf.locs[s]; ok {
			fmt.Fprintf(w, " loc(%s)", mlirString(src))
		}
		w.WriteString("\n")
	}
	res := make([]string, len(kf.results))
	for i, r := range kf.results {
		res[i] = r.String()
	}
	fmt.Fprintf(w, "    \"func.return\"(%s) : (%s) -> ()\n  }\n", strings.Join(res, ", "), strings.Join(valueTypes(kf.results), ", "))
	return nil
}

// mlirString quotes s as an MLIR string literal.
func mlirString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&sb, "\\%02X", c)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

var reserved = regexp.MustCompile(`^(arg)?[0-9]+$`)

// identifier makes s a valid MLIR identifier; empty names become def.
func identifier(s, def string) string {
	s = shlo.NormalizeIdentifier(s)
	if s == "" {
		return def
	}
	return s
}

// paramName names a parameter after its buffer and, for an element of a
// tuple buffer, the element's path. Names that the builder keeps for its
// own values (0, arg0, ...) get a prefix.
func paramName(buffer string, path []int) string {
	name := identifier(buffer, "in")
	for _, i := range path {
		name += "_" + strconv.Itoa(i)
	}
	if reserved.MatchString(name) {
		name = "in_" + name
	}
	return name
}

// unique returns name, or name_2, name_3, ... if taken, and marks it taken.
func unique(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s_%d", name, i)
	}
	taken[out] = true
	return out
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// FiniteCheckModule returns a module whose main takes values of the types
// ts and returns tensor<len(ts)xi1>: element i is true when every element
// of argument i is finite (always, for integers and booleans). The
// per-kernel mode of a loop runs it after the kernels.
func FiniteCheckModule(ts []graph.Type) (string, error) {
	if len(ts) == 0 {
		return "", fmt.Errorf("stablehlo: finiteness check of nothing")
	}
	b := shlo.New("finite_check")
	kf, err := finiteCheck(b, "main", ts)
	if err != nil {
		return "", err
	}
	var text strings.Builder
	text.WriteString("module @finite_check {\n")
	if err := kf.write(&text); err != nil {
		return "", err
	}
	text.WriteString("}\n")
	return text.String(), nil
}
