package native

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// This file compiles the scalar body of an innermost loop — a loop whose
// elements are scalars — into a vector program: a short list of
// instructions, each a tight Go loop over a chunk of up to chunk elements
// (load a strided row, add two chunks, exp a chunk, ...). The program is
// run chunk by chunk, so the dispatch on each instruction is paid once per
// chunk, not once per element, and the chunks stay in L1.
//
// A program runs in one of two classes: float32 chunks when every value in
// it is f32 or bool (the ops are then computed natively in float32, which
// gives the interpreter's correctly rounded results; transcendental
// functions go through float64 and round, as the interpreter does), and
// float64 chunks otherwise, every op's result rounded to its type.
//
// Values that do not depend on the loop's elements are computed once per
// loop run, in the program's prologue, and broadcast. A subterm the
// program cannot express (a reduction over an array that depends on the
// element, say) becomes a per-element call of its compiled closure, with
// the element registers set: slower, never wrong.

// errNotVectorisable marks the one legitimate refusal of the vector
// program builder: a body that is well typed but built in a way the vector
// program cannot follow (a tuple of results the body does not build
// element by element, say). Its callers fall back to the general loop on
// it, and on nothing else: every other error the builder returns is a real
// one (an ill-typed body, a broken invariant) and surfaces from Plan with
// the kernel's name.
var errNotVectorisable = errors.New("not vectorisable")

// notVectorisable returns errNotVectorisable wrapped with the reason.
func notVectorisable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNotVectorisable, fmt.Sprintf(format, args...))
}

// chunk is the length of a vector register: 2048 float32s are 8 KiB, so
// the few registers a program writes fit in L1 beside the rows it streams
// (a unit-stride row is read in place), and every instruction's dispatch,
// and the start and drain of its loop's pipeline, is paid once per 2048
// elements. Against 256, a softmax over rows of 32768 float32 took 10-20%
// less time with 1024; against 1024, 2048 took 7-14% (the five operators)
// and 7-22% (layers.Softmax) less in the medians of two sets of six
// alternating rounds, and LayerNorm + GELU the same time. (4096 was no
// better than 2048 on the five operators, and makes each register 16 KiB.)
const chunk = 2048

// flatChunk is the elements a flat program (flatreduce.go, rowsloop.go, a
// GEMM's flat epilogue) fills a register with, whole short rows at a
// time, and the longest row it takes is half of it: it stayed 1024 when
// chunk became 2048, since the flat reductions of a small CNN's BatchNorm
// kernels took 10-40% longer with rows grouped 2048 elements at a time.
const flatChunk = 1024

// A vloop is an innermost loop being compiled: the element registers of
// its elements, which per-element fallbacks set.
type vloop struct {
	vars []loopVar
	n    int // extent
}

// sets reports whether the loop sets the element register reg: a view
// read through it (an element of the loop, or a view or projection of
// one, whatever its rank) changes from one iteration to the next.
func (l *vloop) sets(reg int) bool {
	for _, v := range l.vars {
		if v.elem == reg {
			return true
		}
	}
	return false
}

type vkind uint8

const (
	vkLoad      vkind = iota // dst = the chunk of a strided source
	vkBcast                  // prologue: dst filled with fn's value
	vkSetF                   // prologue: flts[freg] = fn
	vkSetup                  // prologue: run setup
	vkUn                     // dst = op a
	vkBin                    // dst = a op b
	vkSel                    // dst = select c a b
	vkElem                   // dst[k] = fn, with element k's registers set
	vkExpSub                 // dst = exp (a - b[0]), b broadcast (float32 programs; see fuseExpSub)
	vkChain                  // dst = ((a op₀ r₀) op₁ r₁) …, in registers (see fuseChains)
	vkErfAffine              // dst = erf (a · b[0]) + c[0], b and c invariant (float32 programs; see fuseErfAffine)
)

type vinstr struct {
	kind      vkind
	op        graph.Op
	dt        graph.DType // the result's type
	rnd       bool        // round the result to dt (float64 class only)
	dst, a, b int         // vector registers
	c         int
	ldt       graph.DType // vkLoad: the source's element type
	buf       int
	base      int
	stride    int
	fn        sfn
	f1        func(float64) float64      // vkUn with an i32 result: graph's function
	f2        func(x, y float64) float64 // vkBin with an i32 result: graph's function
	freg      int
	setup     code
	vars      []loopVar // vkElem
	copies    []vcopy   // vkElem: loop values the closure reads from registers
	fillLen   int       // vkBcast: the loop's longest chunk, the part of dst that the body reads
	chain     []vstep   // vkChain: the steps after a
	cprog     any       // vkChain: the steps compiled, a *kernels.ChainProg of the program's type
	stream    bool      // vkChain: dst is a streamed destination's chunk (ChainProg.RunStream)
	rows      *rowGeom  // vkLoad: the rows of a nest (see rowsMap); nil in a one-axis loop
	// ahead, for a vkExpSub or a vkErfAffine, is 1 + the index in the
	// body of the load of the row a is computed from, whose next row
	// (aheadDist elements on) the kernel prefetches; 0 when it prefetches
	// nothing. aheadW, for a vkErfAffine, asks it to prefetch the chunk of
	// the program's result for writing (see markAhead).
	ahead, aheadDist int
	aheadW           bool
	// divide, for a vkErfAffine, makes the erf's argument a / b[0]
	// instead of a · b[0] (kernels.ErfDivAffineAheadF32).
	divide bool
	// gelu, for a vkErfAffine, is GELU's products after the erf, which
	// fuseGELU moved into its pass; nil when there are none.
	gelu *geluTail
	// invB, for a vkBin power, says b is a loop invariant: every
	// element of its chunk is b[0].
	invB bool
}

// A vstep is a step of a vkChain: acc = acc op reg, reg op acc when
// swapped, or acc op acc (self). A scalar step's reg is a loop invariant
// (a literal or a broadcast register), read as its first element.
type vstep struct {
	op                 kernels.ArithOp
	reg                int
	swap, self, scalar bool
	sqrt               bool // √acc: op, reg and the flags unused
}

// A geluTail is what a vkErfAffine computes after its erf e = erf (a ·
// b[0]) + c[0] when fuseGELU gave it GELU's products: (a · k[0]) · e with
// kFirst, else (a · e) · k[0], then w + that when w is not -1
// (kernels.ErfGELUAheadF32).
type geluTail struct {
	k, w   int // registers
	kFirst bool
}

// vcopy copies element k of vector register vreg into scalar register freg.
type vcopy struct{ vreg, freg int }

type vregInfo struct {
	dt    graph.DType
	konst bool
	k     float64
	bcast bool // filled in the prologue
}

// A vprog is a finished vector program.
type vprog struct {
	f32  bool
	pro  []vinstr
	body []vinstr
	outs []int // global vector registers holding the results
	regs []vregInfo
	base int // first global register
}

// A vbuilder builds one vector program.
type vbuilder struct {
	c      *compiler
	loop   *vloop
	regs   []vregInfo
	pro    []vinstr
	body   []vinstr
	loads  map[*cval]int
	consts map[[2]float64]int
	bcasts map[int]int // scalar register -> vector register
	ops    map[vopKey]int
	vbound []*cval
	// subst replaces terms by loop elements: in a GEMM epilogue the dot
	// products become a load of the product's row.
	subst map[graph.Node]*cval
	has   map[graph.Node]bool
	// hoist allows subterms computed from ready buffers alone to be
	// computed once per run, before the kernel (the loop runs many times).
	hoist bool
	// regLen, if not 0, is the registers' length in place of the loop's
	// extent: a GEMM epilogue over short rows runs blocks of rows as one
	// flat span (epilogue.applyRows).
	regLen int
}

func newVBuilder(c *compiler, loop *vloop) *vbuilder {
	return &vbuilder{c: c, loop: loop, loads: map[*cval]int{}, consts: map[[2]float64]int{},
		bcasts: map[int]int{}, ops: map[vopKey]int{}, has: map[graph.Node]bool{}, hoist: c.loopDepth > 0 && loop.n > 0}
}

// A vopKey is an op on registers, for computing each op once.
type vopKey struct {
	op graph.Op
	n  int
	r  [3]int
}

func (b *vbuilder) newReg(dt graph.DType) int {
	b.regs = append(b.regs, vregInfo{dt: dt})
	return len(b.regs) - 1
}

func (b *vbuilder) constReg(dt graph.DType, k float64) int {
	key := [2]float64{float64(dt), k}
	if r, ok := b.consts[key]; ok {
		return r
	}
	r := b.newReg(dt)
	b.regs[r].konst, b.regs[r].k = true, k
	b.consts[key] = r
	return r
}

// invariant returns a register holding the loop-invariant scalar s.
func (b *vbuilder) invariant(s *cval) int {
	if s.konst {
		return b.constReg(s.dt, s.k)
	}
	if s.freg >= 0 {
		if r, ok := b.bcasts[s.freg]; ok {
			return r
		}
	}
	r := b.newReg(s.dt)
	b.regs[r].bcast = true
	// The loop runs chunks of at most its extent: a short loop (a softmax
	// over ten classes, run row by row) fills only that much.
	fillLen := chunk
	if b.loop != nil && b.loop.n > 0 {
		fillLen = min(chunk, b.loop.n)
	}
	if b.regLen > 0 {
		fillLen = b.regLen
	}
	b.pro = append(b.pro, vinstr{kind: vkBcast, dst: r, dt: s.dt, fn: s.fn, fillLen: fillLen})
	if s.freg >= 0 {
		b.bcasts[s.freg] = r
	}
	return r
}

// load returns a register holding the chunk of the loop element v.
func (b *vbuilder) load(v *cval) int {
	if r, ok := b.loads[v]; ok {
		return r
	}
	r := b.newReg(v.dt)
	b.body = append(b.body, vinstr{kind: vkLoad, dst: r, dt: v.dt, ldt: v.dt, buf: v.buf,
		base: v.vary.base, stride: v.vary.stride, rows: v.vary.rows})
	b.loads[v] = r
	return r
}

// varying reports whether the compile-time value v changes from one
// element of the loop to the next.
func (b *vbuilder) varying(v *cval) bool {
	if v == nil {
		return false
	}
	switch v.kind {
	case cvView:
		return (v.vary != nil && v.vary.loop == b.loop) || b.loop.sets(v.reg)
	case cvVReg:
		return v.vb == b
	case cvTuple:
		for _, e := range v.elems {
			if b.varying(e) {
				return true
			}
		}
	case cvFunc:
		return b.varies(v.node, v.env)
	}
	return false
}

// varies reports whether the term n depends on the loop's elements.
func (b *vbuilder) varies(n graph.Node, env *cenv) bool {
	if len(b.subst) > 0 && b.containsSubst(n) {
		return true
	}
	for _, v := range b.c.free.Of(n) {
		if b.varying(env.lookup(v)) {
			return true
		}
	}
	return false
}

func (b *vbuilder) containsSubst(n graph.Node) bool {
	if h, ok := b.has[n]; ok {
		return h
	}
	_, h := b.subst[n]
	for _, k := range graph.Children(n) {
		if h {
			break
		}
		h = b.containsSubst(k)
	}
	b.has[n] = h
	return h
}

// resolve returns what a variable, or a projection chain over one, is
// bound to.
func (b *vbuilder) resolve(n graph.Node, env *cenv) *cval {
	switch n := n.(type) {
	case *graph.Var:
		return env.lookup(n)
	case *graph.Proj:
		x := b.resolve(n.X, env)
		if x != nil && x.kind == cvTuple && n.Index < len(x.elems) {
			return x.elems[n.Index]
		}
	}
	return nil
}

// binding returns a register holding the scalar value v.
func (b *vbuilder) binding(v *cval) (int, error) {
	switch v.kind {
	case cvView:
		if len(v.layout) != 0 {
			return 0, fmt.Errorf("an array of shape %v is used as a scalar", v.layout.Extents())
		}
		if v.vary != nil && v.vary.loop == b.loop {
			return b.load(v), nil
		}
		s, err := b.c.asScalar(v)
		if err != nil {
			return 0, err
		}
		return b.invariant(s), nil
	case cvVReg:
		if v.vb == b {
			return v.vreg, nil
		}
		return b.invariant(regVal(v.dt, v.freg)), nil
	case cvScalar:
		return b.invariant(v), nil
	}
	return 0, fmt.Errorf("%v is used as a scalar", v.kind)
}

// expr compiles the scalar term n and returns the register holding it.
func (b *vbuilder) expr(n graph.Node, env *cenv) (int, error) {
	if s, ok := b.subst[n]; ok {
		return b.load(s), nil
	}
	if !b.varies(n, env) {
		s, err := b.c.scalar(n, env)
		if err != nil {
			return 0, err
		}
		return b.invariant(s), nil
	}
	if b.hoist {
		if r, ok, err := b.hoisted(n, env); ok || err != nil {
			return r, err
		}
	}
	switch n := n.(type) {
	case *graph.Var, *graph.Proj:
		if v := b.resolve(n, env); v != nil {
			return b.binding(v)
		}
		if p, ok := n.(*graph.Proj); ok {
			if t, ok := p.X.(*graph.Tuple); ok && p.Index < len(t.Elems) {
				return b.expr(t.Elems[p.Index], env)
			}
		}
	case *graph.Call:
		regs := make([]int, len(n.Args))
		for i, a := range n.Args {
			r, err := b.expr(a, env)
			if err != nil {
				return 0, err
			}
			regs[i] = r
		}
		return b.op(n.Op, regs)
	case *graph.Let:
		env2, ok, err := b.bindLet(n, env)
		if err != nil {
			return 0, err
		}
		if ok {
			return b.expr(n.Body, env2)
		}
	case *graph.App:
		args, ok, err := b.bindArgs(n.Args, env)
		if err != nil {
			return 0, err
		}
		if ok {
			outs, err := b.applyOutputs(b.c.fnOf(n.Fn, env), args, 1)
			if err == nil {
				return outs[0], nil
			}
			if !errors.Is(err, errNotVectorisable) {
				return 0, err
			}
		}
	}
	return b.elem(n, env)
}

// hoisted computes n, a subterm that depends on the loop only through
// elements of ready buffers (inputs, parameters, earlier results), once
// per run before the kernel body, into a vector the loop then loads: the
// loop-invariant part of a per-column expression, like rsqrt (v + eps) in
// batch norm, computed once instead of once per row. Only subterms worth
// a load are hoisted: two ops or more, or one costly op.
func (b *vbuilder) hoisted(n graph.Node, env *cenv) (int, bool, error) {
	leaf, ok, err := b.hoistedView(n, env)
	if !ok || err != nil {
		return 0, false, err
	}
	return b.load(leaf), true, nil
}

// hoistedView is hoisted's buffer, as a view the loop reads element by
// element; it reports false where hoisted would.
func (b *vbuilder) hoistedView(n graph.Node, env *cenv) (*cval, bool, error) {
	call, ok := n.(*graph.Call)
	if !ok || b.containsSubst(n) || !worthHoisting(call) {
		return nil, false, nil
	}
	for _, v := range b.c.free.Of(n) {
		x := env.lookup(v)
		if x == nil || x.kind != cvView || len(x.layout) != 0 || x.vary == nil || x.vary.loop != b.loop ||
			x.vary.base != 0 || !b.c.ready[[2]int{int(x.dt), x.buf}] {
			return nil, false, nil
		}
	}
	t, err := b.c.typeOf(n, env)
	if err != nil {
		return nil, false, err
	}
	st, ok := t.(*graph.ScalarType)
	if !ok {
		return nil, false, nil
	}
	dt := concrete(st.DType)
	hb := newVBuilder(b.c, b.loop)
	hb.hoist = false
	r, err := hb.expr(n, env)
	if err != nil {
		return nil, false, err
	}
	p := hb.finish([]int{r}, []graph.DType{dt})
	buf := b.c.b.alloc(dt, b.loop.n, false)
	st0 := vstore{dt: dt, buf: buf, reg: 0, stride: 1}
	nn := b.loop.n
	b.c.note("hoisted per-element vector [%d] out of the loops: %s", nn, p.describe())
	b.c.pre = append(b.c.pre, func(fr *frame) {
		p.prologue(fr)
		for i0 := 0; i0 < nn; i0 += chunk {
			m := min(chunk, nn-i0)
			p.run(fr, i0, m)
			if p.f32 {
				storeChunk(fr, &st0, fr.v32[p.outs[0]][:m], i0)
			} else {
				storeChunk(fr, &st0, fr.v64[p.outs[0]][:m], i0)
			}
		}
	})
	// The leaf's element register is set, element by element, where a
	// per-element closure reads it (a reduction over another array
	// that sums this value): a register of its own, a variable of the
	// loop from base 0 at stride 1, as the vector loads read it.
	reg := b.c.newInt()
	b.loop.vars = append(b.loop.vars, loopVar{elem: reg, base: 0, stride: 1})
	leaf := &cval{kind: cvView, dt: dt, buf: buf, reg: reg, vary: &vsource{loop: b.loop, base: 0, stride: 1}}
	// Computed before the loops, like the kernel's inputs: a term
	// hoisted later may read it.
	b.c.ready[[2]int{int(dt), buf}] = true
	return leaf, true, nil
}

// worthHoisting reports whether a call has two ops or more, or a costly
// one.
func worthHoisting(n *graph.Call) bool {
	ops := 0
	costly := false
	graph.Inspect(n, func(m graph.Node) bool {
		if c, ok := m.(*graph.Call); ok {
			ops++
			switch c.Op {
			case graph.Div, graph.Pow, graph.Exp, graph.Log, graph.Sqrt, graph.Rsqrt, graph.Tanh, graph.Logistic, graph.Erf:
				costly = true
			}
		}
		return true
	})
	return ops >= 2 || costly
}

// op emits op applied to registers.
func (b *vbuilder) op(op graph.Op, regs []int) (int, error) {
	dts := make([]graph.DType, len(regs))
	for i, r := range regs {
		dts[i] = b.regs[r].dt
	}
	rs, dt, err := op.Resolve(dts)
	if err != nil {
		return 0, err
	}
	allConst := true
	for i, r := range regs {
		if dts[i] == untyped && rs[i] != untyped {
			if !b.regs[r].konst {
				return 0, fmt.Errorf("internal: untyped operand that is not a literal")
			}
			regs[i] = b.constReg(rs[i], rs[i].Round(b.regs[r].k))
		}
		allConst = allConst && b.regs[regs[i]].konst
	}
	if allConst {
		ks := make([]float64, len(regs))
		for i, r := range regs {
			ks[i] = b.regs[r].k
		}
		v, err := op.Eval(dt, ks...)
		if err != nil {
			return 0, err
		}
		return b.constReg(dt, v), nil
	}
	if op == graph.StopGrad {
		return regs[0], nil // the value itself
	}
	// Registers are written once, so an op on the same registers is the
	// same value: computed once (a term repeated in a tuple's elements,
	// as in BatchNorm's backward pass, rsqrt of the variance three times).
	key := vopKey{op: op, n: len(regs)}
	copy(key.r[:], regs)
	if r, ok := b.ops[key]; ok {
		return r, nil
	}
	r := b.newReg(dt)
	b.ops[key] = r
	in := vinstr{op: op, dt: dt, dst: r, a: regs[0]}
	switch len(regs) {
	case 1:
		in.kind = vkUn
		if dt == graph.Int32 {
			in.f1 = op.Unary(dt)
		}
	case 2:
		in.kind, in.b = vkBin, regs[1]
		if dt == graph.Int32 {
			in.f2 = op.Binary(dt)
		}
	case 3:
		in.kind, in.a, in.b, in.c = vkSel, regs[1], regs[2], regs[0]
	}
	b.body = append(b.body, in)
	return r, nil
}

// elem compiles n as a closure called once per element.
func (b *vbuilder) elem(n graph.Node, env *cenv) (int, error) {
	s, err := b.c.scalar(n, env)
	if err != nil {
		return 0, err
	}
	r := b.newReg(concrete(s.dt))
	var copies []vcopy
	for _, v := range b.vbound {
		copies = append(copies, vcopy{vreg: v.vreg, freg: v.freg})
	}
	b.body = append(b.body, vinstr{kind: vkElem, dst: r, dt: concrete(s.dt), fn: s.fn,
		vars: b.loop.vars, copies: copies})
	return r, nil
}

// bindScalar binds a scalar value for the body of a let or a lambda: a
// varying one to its vector register, an invariant one to a register
// the prologue fills.
func (b *vbuilder) bindScalar(n graph.Node, env *cenv) (*cval, error) {
	if b.varies(n, env) {
		// A value computed from ready buffers alone is hoisted, and the
		// variable names the hoisted buffer, so that the terms that use
		// it can be hoisted too (BatchNorm's backward pass: the mean,
		// the variance and its rsqrt, per feature, out of the loop over
		// the batch rows).
		if b.hoist {
			leaf, ok, err := b.hoistedView(n, env)
			if err != nil {
				return nil, err
			}
			if ok {
				return leaf, nil
			}
		}
		r, err := b.expr(n, env)
		if err != nil {
			return nil, err
		}
		v := &cval{kind: cvVReg, dt: b.regs[r].dt, vreg: r, vb: b, freg: b.c.newFlt()}
		b.vbound = append(b.vbound, v)
		return v, nil
	}
	s, err := b.c.scalar(n, env)
	if err != nil {
		return nil, err
	}
	if s.konst || s.freg >= 0 {
		return s, nil
	}
	fr := b.c.newFlt()
	b.pro = append(b.pro, vinstr{kind: vkSetF, fn: s.fn, freg: fr})
	return regVal(s.dt, fr), nil
}

// bindLet binds a let inside a vector program; ok is false when the value
// is an array that depends on the element (the let then becomes a
// per-element closure).
func (b *vbuilder) bindLet(n *graph.Let, env *cenv) (*cenv, bool, error) {
	if graph.IsFunc(n.Value) {
		return env.bind(n.Var, b.c.fnOf(n.Value, env)), true, nil
	}
	t, err := b.c.typeOf(n.Value, env)
	if err != nil {
		return nil, false, err
	}
	if _, ok := t.(*graph.ScalarType); ok {
		v, err := b.bindScalar(n.Value, env)
		if err != nil {
			return nil, false, err
		}
		return env.bind(n.Var, concreteVal(v)), true, nil
	}
	if b.varies(n.Value, env) {
		return nil, false, nil
	}
	v, setup, err := b.c.value(n.Value, env)
	if err != nil {
		return nil, false, err
	}
	v, ev := b.c.eager(v)
	if s := seq(setup, ev); s != nil {
		b.pro = append(b.pro, vinstr{kind: vkSetup, setup: s})
	}
	return env.bind(n.Var, v), true, nil
}

// bindArgs evaluates the arguments of an application inside a vector
// program.
func (b *vbuilder) bindArgs(ns []graph.Node, env *cenv) ([]*cval, bool, error) {
	out := make([]*cval, len(ns))
	for i, a := range ns {
		if v := b.resolve(a, env); v != nil {
			out[i] = v
			continue
		}
		if graph.IsFunc(a) {
			out[i] = b.c.fnOf(a, env)
			continue
		}
		t, err := b.c.typeOf(a, env)
		if err != nil {
			return nil, false, err
		}
		if _, ok := t.(*graph.ScalarType); ok {
			v, err := b.bindScalar(a, env)
			if err != nil {
				return nil, false, err
			}
			out[i] = v
			continue
		}
		if b.varies(a, env) {
			return nil, false, nil
		}
		v, setup, err := b.c.value(a, env)
		if err != nil {
			return nil, false, err
		}
		v, ev := b.c.eager(v)
		if s := seq(setup, ev); s != nil {
			b.pro = append(b.pro, vinstr{kind: vkSetup, setup: s})
		}
		out[i] = v
	}
	return out, true, nil
}

// applyOutputs compiles fn applied to args, producing k scalar results
// (k > 1 for a function that returns a tuple of scalars).
func (b *vbuilder) applyOutputs(fn *cval, args []*cval, k int) ([]int, error) {
	if fn.kind != cvFunc {
		return nil, fmt.Errorf("not a function")
	}
	switch f := fn.node.(type) {
	case *graph.Lambda:
		if len(f.Params) != len(args) {
			return nil, fmt.Errorf("function of %d parameters applied to %d arguments", len(f.Params), len(args))
		}
		env := fn.env
		for i, p := range f.Params {
			env = env.bind(p, args[i])
		}
		return b.outputs(f.Body, env, k)
	case *graph.OpRef, *graph.Section:
		if k != 1 {
			return nil, fmt.Errorf("%s has one result, not a tuple of %d", graph.Abbrev(fn.node, 40), k)
		}
		regs := make([]int, 0, 2)
		if s, ok := f.(*graph.Section); ok {
			if len(args) != 1 {
				return nil, fmt.Errorf("section applied to %d arguments", len(args))
			}
			x, err := b.binding(args[0])
			if err != nil {
				return nil, err
			}
			o, err := b.expr(s.Operand, fn.env)
			if err != nil {
				return nil, err
			}
			if s.Left {
				regs = append(regs, o, x)
			} else {
				regs = append(regs, x, o)
			}
			r, err := b.op(s.Op, regs)
			return []int{r}, err
		}
		for _, a := range args {
			r, err := b.binding(a)
			if err != nil {
				return nil, err
			}
			regs = append(regs, r)
		}
		r, err := b.op(f.(*graph.OpRef).Op, regs)
		return []int{r}, err
	case *graph.Ident:
		if len(args) != 1 {
			return nil, fmt.Errorf("id applied to %d arguments", len(args))
		}
		return b.bindingOutputs(args[0], k)
	case *graph.Var:
		if bv := fn.env.lookup(f); bv != nil && bv.kind == cvFunc {
			return b.applyOutputs(bv, args, k)
		}
	}
	return nil, fmt.Errorf("%s does not compute scalars", graph.Abbrev(fn.node, 40))
}

func (b *vbuilder) bindingOutputs(v *cval, k int) ([]int, error) {
	if k == 1 {
		r, err := b.binding(v)
		return []int{r}, err
	}
	if v.kind != cvTuple {
		return nil, fmt.Errorf("%v is used as a tuple of %d scalars", v.kind, k)
	}
	// A nested tuple: its leaves, depth first, are the k results.
	leaves := v.leaves()
	if len(leaves) != k {
		return nil, notVectorisable("the loop body returns a tuple of %d scalars, not %d", len(leaves), k)
	}
	var out []int
	for _, e := range leaves {
		r, err := b.binding(e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// outputs compiles the term n with k scalar results.
func (b *vbuilder) outputs(n graph.Node, env *cenv, k int) ([]int, error) {
	if k == 1 {
		r, err := b.expr(n, env)
		return []int{r}, err
	}
	switch n := n.(type) {
	case *graph.Tuple:
		if len(n.Elems) != k {
			// A nested tuple: its elements' results, in order, are the
			// k results (the leaves, depth first, as the destination's).
			var out []int
			for _, e := range n.Elems {
				t, err := b.c.typeOf(e, env)
				if err != nil {
					return nil, err
				}
				m := scalarLeaves(t)
				if m == 0 || len(out)+m > k {
					return nil, notVectorisable("the loop body builds a tuple of %d elements, not a tuple of %d scalars", len(n.Elems), k)
				}
				rs, err := b.outputs(e, env, m)
				if err != nil {
					return nil, err
				}
				out = append(out, rs...)
			}
			if len(out) != k {
				return nil, notVectorisable("the loop body builds a tuple of %d elements, not a tuple of %d scalars", len(n.Elems), k)
			}
			return out, nil
		}
		out := make([]int, k)
		for i, e := range n.Elems {
			r, err := b.expr(e, env)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case *graph.Let:
		env2, ok, err := b.bindLet(n, env)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notVectorisable("let %s binds a tuple or array that depends on the element", n.Var.Name)
		}
		return b.outputs(n.Body, env2, k)
	case *graph.App:
		args, ok, err := b.bindArgs(n.Args, env)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notVectorisable("%s has a tuple or array argument that depends on the element", graph.Abbrev(n, 40))
		}
		return b.applyOutputs(b.c.fnOf(n.Fn, env), args, k)
	case *graph.Var, *graph.Proj:
		if v := b.resolve(n, env); v != nil {
			return b.bindingOutputs(v, k)
		}
		if v, ok := n.(*graph.Var); ok {
			return nil, fmt.Errorf("variable %s is not bound", v.Name)
		}
	case *graph.Call, *graph.Const:
		return nil, fmt.Errorf("%s is a scalar, not a tuple of %d scalars", graph.Abbrev(n, 40), k)
	}
	return nil, notVectorisable("%s does not build a flat tuple of %d scalars element by element", graph.Abbrev(n, 40), k)
}

// scalarLeaves is the number of scalars in a value of type t, a scalar
// or a tuple of them, nested or not; 0 for a type with an array in it or
// a tuple of one scalar (which outputs would take for the scalar).
func scalarLeaves(t graph.Type) int {
	switch t := t.(type) {
	case *graph.ScalarType:
		return 1
	case *graph.TupleType:
		n := 0
		for _, e := range t.Elems {
			m := scalarLeaves(e)
			if m == 0 {
				return 0
			}
			n += m
		}
		if n < 2 {
			return 0
		}
		return n
	}
	return 0
}

// finish picks the program's class, places its registers among the
// plan's vector registers and returns it. outDTs are the types the results
// are stored as.
func (b *vbuilder) finish(outs []int, outDTs []graph.DType) *vprog {
	// The class is decided by the registers the program uses: a literal
	// replaced by its rounded copy leaves an unused untyped register.
	used := make([]bool, len(b.regs))
	for _, o := range outs {
		used[o] = true
	}
	for _, list := range [][]vinstr{b.pro, b.body} {
		for _, in := range list {
			switch in.kind {
			case vkSetF, vkSetup:
			case vkSel:
				used[in.dst], used[in.a], used[in.b], used[in.c] = true, true, true, true
			case vkBin:
				used[in.dst], used[in.a], used[in.b] = true, true, true
			case vkUn:
				used[in.dst], used[in.a] = true, true
			default:
				used[in.dst] = true
			}
			for _, cp := range in.copies {
				used[cp.vreg] = true
			}
		}
	}
	f32 := true
	ok32 := func(dt graph.DType) bool { return dt == graph.Float32 || dt == graph.Bool }
	for r, info := range b.regs {
		f32 = f32 && (!used[r] || ok32(info.dt))
	}
	for _, dt := range outDTs {
		f32 = f32 && ok32(dt)
	}
	body := b.body
	if f32 {
		body = fuseExpSub(body, b.regs, outs)
		body = fuseErfAffine(body, b.regs, outs)
	}
	body = fuseChains(body, f32, outs, b.regs)
	if f32 {
		body = fuseGELU(body, b.regs, outs)
	}
	for i := range body {
		// A power's exponent that is a loop invariant is looked at once
		// per chunk (powChunk).
		if in := &body[i]; in.kind == vkBin && in.op == graph.Pow {
			in.invB = b.regs[in.b].konst || b.regs[in.b].bcast
		}
	}
	if b.c.loopDepth > 0 && b.loop != nil {
		markAhead(body, b.loop.n, outs)
	}
	// A broadcast register that every reader takes as a scalar is set,
	// not filled: one element instead of a chunk per row.
	pro, full := slices.Clone(b.pro), fullReads(body, outs, len(b.regs))
	for i, in := range pro {
		if in.kind == vkBcast && !full[in.dst] {
			pro[i].fillLen = 1
		}
	}
	// Registers as long as the loop's longest chunk: a loop over ten
	// classes needs ten elements, not a chunk.
	length := chunk
	if b.loop != nil && b.loop.n > 0 {
		length = min(chunk, b.loop.n)
	}
	if b.regLen > 0 {
		length = b.regLen
	}
	base := b.c.b.allocV(f32, len(b.regs), length)
	p := &vprog{f32: f32, base: base, regs: b.regs}
	for r, info := range b.regs {
		if info.konst {
			b.c.b.vconst(f32, base+r, info.k)
		}
	}
	shift := func(in vinstr) vinstr {
		in.dst += base
		in.a += base
		in.b += base
		in.c += base
		if !f32 && (in.dt == graph.Float32 || in.dt == graph.Int32) && in.kind != vkLoad {
			in.rnd = true
		}
		for i := range in.copies {
			in.copies[i].vreg += base
		}
		if in.gelu != nil {
			g := *in.gelu
			g.k += base
			if g.w >= 0 {
				g.w += base
			}
			in.gelu = &g
		}
		if in.chain != nil {
			in.chain = slices.Clone(in.chain)
			for i := range in.chain {
				in.chain[i].reg += base
			}
			if f32 {
				in.cprog = chainProg[float32](in.chain)
			} else {
				in.cprog = chainProg[float64](in.chain)
			}
		}
		return in
	}
	for _, in := range pro {
		p.pro = append(p.pro, shift(in))
	}
	for _, in := range body {
		p.body = append(p.body, shift(in))
	}
	for _, o := range outs {
		p.outs = append(p.outs, base+o)
	}
	return p
}

// chainProg compiles a vkChain's steps for programs of type T.
func chainProg[T float32 | float64](chain []vstep) *kernels.ChainProg[T] {
	steps := make([]kernels.ChainStep[T], len(chain))
	for k, s := range chain {
		if s.sqrt {
			steps[k] = kernels.ChainStep[T]{Sqrt: true}
			continue
		}
		steps[k] = kernels.ChainStep[T]{Op: s.op, Swap: s.swap, Self: s.self, Scalar: s.scalar}
	}
	return kernels.NewChainProg(steps)
}

// fullReads reports the registers that some instruction of body reads
// element by element, or that are results of the program; the others are
// written only, or read as scalars (an invariant operand of vkExpSub,
// vkErfAffine or a scalar chain step).
func fullReads(body []vinstr, outs []int, nregs int) []bool {
	full := make([]bool, nregs)
	for _, o := range outs {
		full[o] = true
	}
	for _, in := range body {
		switch in.kind {
		case vkUn, vkExpSub, vkErfAffine:
			full[in.a] = true
			if g := in.gelu; g != nil && g.w >= 0 {
				full[g.w] = true
			}
		case vkBin:
			full[in.a], full[in.b] = true, true
		case vkSel:
			full[in.a], full[in.b], full[in.c] = true, true, true
		case vkChain:
			full[in.a] = true
			for _, s := range in.chain {
				if !s.self && !s.scalar && !s.sqrt {
					full[s.reg] = true
				}
			}
		}
		for _, cp := range in.copies {
			full[cp.vreg] = true
		}
	}
	return full
}

// fuseExpSub replaces exp (x - c), c invariant (a literal or a broadcast
// register), by one instruction when the difference is read by the exp
// alone: one pass (kernels.ExpSubF32, bit for bit the two ops) instead of
// two over the chunk. It is the shifted exponential of every softmax and
// log-sum-exp row.
func fuseExpSub(body []vinstr, regs []vregInfo, outs []int) []vinstr {
	reads := registerReads(body, outs, len(regs))
	var out []vinstr
	for i := 0; i < len(body); i++ {
		in := body[i]
		if i+1 < len(body) && in.kind == vkBin && in.op == graph.Sub && in.dt == graph.Float32 &&
			(regs[in.b].konst || regs[in.b].bcast) && reads[in.dst] == 1 {
			if e := body[i+1]; e.kind == vkUn && e.op == graph.Exp && e.a == in.dst && e.dt == graph.Float32 {
				out = append(out, vinstr{kind: vkExpSub, op: graph.Exp, dt: graph.Float32, dst: e.dst, a: in.a, b: in.b})
				i++
				continue
			}
		}
		out = append(out, in)
	}
	return out
}

// writers maps each register of body to the last instruction that
// writes it.
func writers(body []vinstr) map[int]int {
	w := map[int]int{}
	for i, in := range body {
		w[in.dst] = i
	}
	return w
}

// markAhead makes every shifted exponential of a row program (a loop of
// n elements inside another loop) whose operand is a unit-stride float32
// row prefetch the row stored after it, n elements on, while it computes
// (kernels.ExpSubAheadF32): the next row of a row-major array, which the
// same goroutine takes next when a parallel loop hands out grains of
// several rows (as it does with many rows). A softmax row is four
// passes: the maximum, which
// waits for the row to come from memory, then the exponentials, the sum
// and the division, which find it in cache. The prefetch lets the next
// row come in during this row's exponentials, the longest pass, instead
// of during its maximum: BenchmarkStack's softmax over 256×32768 float32,
// fused, took 6.10 ms instead of 6.78 (medians of 7 runs alternating with
// the build before, two goroutines, on a Zen 3 EPYC). A row shorter than a
// page is left alone (the hardware's own prefetcher follows a stream of
// short rows), and so is one longer than a quarter of the L2 cache: the
// row, the destination's and the next would not all stay in it, and the
// prefetched lines would be read from memory twice.
//
// A GELU's erf (x · c) + d (kernels.ErfAffineAheadF32), the longest pass
// of a LayerNorm + GELU row, does the same for the row its operand is
// computed from (following each instruction's first operand back to a
// load), and when it does not write the program's result itself, it also
// asks for the result's chunk, for writing: the pass after it stores
// there, and would otherwise wait for each line to come from memory
// before writing it.
func markAhead(body []vinstr, n int, outs []int) {
	if n*4 < aheadMinRow || n*4 > aheadMaxRow() {
		return
	}
	writer := writers(body)
	for i := range body {
		in := &body[i]
		if in.kind != vkExpSub && in.kind != vkErfAffine {
			continue
		}
		// The load the operand comes from: a itself, or the first operand
		// of what computes it, and so on.
		r := in.a
		for range body {
			w, ok := writer[r]
			if !ok || w >= i {
				break
			}
			ld := &body[w]
			if ld.kind == vkLoad {
				if ld.ldt == graph.Float32 && ld.stride == 1 && ld.rows == nil {
					in.ahead, in.aheadDist = w+1, n
				}
				break
			}
			if in.kind == vkExpSub || ld.kind != vkChain && ld.kind != vkUn && ld.kind != vkBin {
				break // an exponential's operand must be the load itself
			}
			r = ld.a
		}
		if in.kind == vkErfAffine && len(outs) == 1 && outs[0] != in.dst {
			in.aheadW = true
		}
	}
}

// aheadMinRow is the shortest row, in bytes, that markAhead prefetches
// the next of: a page, which the hardware's prefetcher does not cross.
const aheadMinRow = 4096

// aheadMaxRow is the longest: a quarter of this machine's L2 cache, or
// of the cost model's default where the caches cannot be read.
var aheadMaxRow = sync.OnceValue(func() int {
	for _, c := range fusion.DetectMachine().Caches {
		if c.Level == 2 {
			return c.Bytes / 4
		}
	}
	return fusion.DefaultMachine().Caches[1].Bytes / 4
})

// registerReads counts the reads of every register: by the body's
// instructions and as a result of the program.
func registerReads(body []vinstr, outs []int, nregs int) []int {
	reads := make([]int, nregs)
	for _, o := range outs {
		reads[o]++
	}
	for _, in := range body {
		switch in.kind {
		case vkUn:
			reads[in.a]++
		case vkBin, vkExpSub:
			reads[in.a]++
			reads[in.b]++
		case vkSel, vkErfAffine:
			reads[in.a]++
			reads[in.b]++
			reads[in.c]++
			if g := in.gelu; g != nil {
				reads[g.k]++
				if g.w >= 0 {
					reads[g.w]++
				}
			}
		case vkChain:
			reads[in.a]++
			for _, s := range in.chain {
				if !s.self && !s.sqrt {
					reads[s.reg]++
				}
			}
		}
		for _, cp := range in.copies {
			reads[cp.vreg]++
		}
	}
	return reads
}

// fuseGELU moves GELU's products into the pass of the erf before them
// (kernels.ErfGELUAheadF32), where that is one pass
// (kernels.GELUOnePass): a vkErfAffine e = erf (x · s) + t followed by the
// chain (x · K) · e or (x · e) · K (e · x too), K invariant, then + w or
// nothing, with e read by that chain alone, becomes one vkErfAffine that
// writes the chain's destination. layers.GELU's 0.5 · x · (1 + erf (x ·
// (1/√2))) and an exporter's x · (erf (x / √2) + 1) · 0.5 are that, and so
// is a residual add after them. The bits are those of the erf's pass and
// the chain's. BenchmarkStack's LayerNorm + GELU + residual on 256×4096
// float32 took 0.79 against 0.84 ms fused and 1.51 against 1.71 ms
// unfused (the GELU layer's kernel gains too), medians of 8 rounds
// alternating with the build before, two goroutines, Zen 3; a second
// run of 8, 0.82 against 0.89 and 1.47 against 1.79.
func fuseGELU(body []vinstr, regs []vregInfo, outs []int) []vinstr {
	if noGELU || !kernels.GELUOnePass() {
		return body
	}
	reads := registerReads(body, outs, len(regs))
	out := slices.Clone(body)
	drop := make([]bool, len(body))
	for i, in := range body {
		if in.kind != vkErfAffine || in.gelu != nil || reads[in.dst] != 1 {
			continue
		}
		// The chain that reads e, wherever it stands after the erf (the
		// loads of its other operands may stand between): the erf's
		// operands are written before the erf, so they hold the same
		// values there.
		for j := i + 1; j < len(body); j++ {
			if g, ok := geluChain(&body[j], &in); ok {
				in.dst, in.gelu = body[j].dst, g
				out[j], drop[i] = in, true
				break
			}
		}
	}
	kept := out[:0]
	for i, in := range out {
		if !drop[i] {
			kept = append(kept, in)
		}
	}
	return kept
}

// noGELU turns fuseGELU off, for the tests that compare the two.
var noGELU bool

// geluChain reports whether ch is GELU's products after erf (fuseGELU),
// and returns them.
func geluChain(ch, erf *vinstr) (*geluTail, bool) {
	if ch.kind != vkChain || ch.rnd || len(ch.chain) < 2 || len(ch.chain) > 3 {
		return nil, false
	}
	s0, s1 := ch.chain[0], ch.chain[1]
	vec := func(s vstep, reg int) bool {
		return s.op == kernels.Mul && !s.self && !s.sqrt && !s.scalar && s.reg == reg
	}
	scal := func(s vstep) bool { return s.op == kernels.Mul && !s.self && !s.sqrt && s.scalar }
	g := &geluTail{w: -1}
	switch {
	case ch.a == erf.a && scal(s0) && vec(s1, erf.dst): // (x · K) · e
		g.k, g.kFirst = s0.reg, true
	case ch.a == erf.a && vec(s0, erf.dst) && scal(s1): // (x · e) · K
		g.k = s1.reg
	case ch.a == erf.dst && vec(s0, erf.a) && scal(s1): // (e · x) · K, the same bits
		g.k = s1.reg
	default:
		return nil, false
	}
	if len(ch.chain) == 3 {
		s2 := ch.chain[2]
		if s2.op != kernels.Add || s2.scalar || s2.self || s2.sqrt || s2.reg == erf.dst {
			return nil, false
		}
		g.w = s2.reg
	}
	return g, true
}

// fuseErfAffine replaces erf (x · s) + t, s and t invariant (literals or
// broadcast registers), by one instruction when the product is read by
// the erf alone and the erf by the sum alone: one pass
// (kernels.ErfAffineF32, the bits of the three ops) instead of three over
// the chunk. It is GELU's 1 + erf (x / √2), which layers.GELU writes with
// a product and exporters with a quotient: erf (x / s) + t is one
// instruction too (kernels.ErfDivAffineAheadF32).
func fuseErfAffine(body []vinstr, regs []vregInfo, outs []int) []vinstr {
	reads := registerReads(body, outs, len(regs))
	invariant := func(r int) bool { return regs[r].konst || regs[r].bcast }
	var out []vinstr
	for i := 0; i < len(body); i++ {
		in := body[i]
		div := in.op == graph.Div
		if i+2 < len(body) && in.kind == vkBin && (in.op == graph.Mul || div) && in.dt == graph.Float32 && reads[in.dst] == 1 {
			x, s := in.a, in.b
			if !div && invariant(x) && !invariant(s) {
				x, s = s, x
			}
			e, add := body[i+1], body[i+2]
			if invariant(s) && e.kind == vkUn && e.op == graph.Erf && e.a == in.dst && e.dt == graph.Float32 && reads[e.dst] == 1 &&
				add.kind == vkBin && add.op == graph.Add && add.dt == graph.Float32 && (add.a == e.dst) != (add.b == e.dst) {
				t := add.b
				if add.b == e.dst {
					t = add.a
				}
				if invariant(t) {
					out = append(out, vinstr{kind: vkErfAffine, op: graph.Erf, dt: graph.Float32, dst: add.dst, a: x, b: s, c: t, divide: div})
					i += 2
					continue
				}
			}
		}
		out = append(out, in)
	}
	return out
}

// chainOps are the ops a vkChain takes, as kernels.Chain names them: max
// and min only with one operand invariant (a scalar step).
var chainOps = map[graph.Op]kernels.ArithOp{graph.Add: kernels.Add, graph.Sub: kernels.Sub, graph.Mul: kernels.Mul, graph.Div: kernels.Div,
	graph.Max: kernels.Max, graph.Min: kernels.Min}

// fuseChains replaces runs of arithmetic (+ - × / and √, and max and min
// with an invariant), each op reading the one before it, by one vkChain
// per run: (x - m) · k · g + b, a LayerNorm's normalisation, is one pass
// over the chunk (kernels.Chain, which keeps the intermediate values in
// registers) instead of four passes each storing a register that the next
// reloads, and so is a bias, a BatchNorm and a ReLU6 after a convolution.
// An op joins the run whose result it reads when that result is read
// nowhere else (no other instruction, not a result of the program; an op
// of the result with itself, a square, reads it twice) and the op
// computes in the program's class (float32 in a float32 program, float64
// in a float64 one: nothing to round between steps). The chain stands where its last
// op stood; its operands are registers written once, before their first
// reader, so they hold the same values there. The bits are those of the
// separate ops.
func fuseChains(body []vinstr, f32 bool, outs []int, regs []vregInfo) []vinstr {
	reads := registerReads(body, outs, len(regs))
	invariant := func(r int) bool { return regs[r].konst || regs[r].bcast }
	class := graph.Float64
	if f32 {
		class = graph.Float32
	}
	type run struct {
		start   int // the first op's left operand
		steps   []vstep
		last    int // index of the last op in body
		members []int
	}
	open := map[int]*run{} // register -> the run whose result it is
	member := make([]*run, len(body))
	for i, in := range body {
		var r *run
		op, ok := chainOps[in.op]
		switch {
		case in.kind == vkUn && in.op == graph.Sqrt && in.dt == class && in.f1 == nil:
			// √ continues the run whose value it alone reads; a lone
			// one stays the instruction it is.
			if r = open[in.a]; r == nil || reads[in.a] != 1 {
				r = &run{start: in.a}
			} else {
				delete(open, in.a)
			}
			r.steps = append(r.steps, vstep{sqrt: true})
		case in.kind != vkBin || !ok || in.dt != class || in.f2 != nil:
			continue
		case (op == kernels.Max || op == kernels.Min) && invariant(in.a) == invariant(in.b):
			// A bound of a ReLU or a clip is a scalar step; the
			// maximum of two arrays is an instruction of its own.
			continue
		case in.a == in.b && open[in.a] != nil && reads[in.a] == 2:
			// The run's value op itself (a square), its only reader.
			r = open[in.a]
			delete(open, in.a)
			r.steps = append(r.steps, vstep{op: op, self: true})
		case open[in.a] != nil && in.a != in.b && reads[in.a] == 1:
			r = open[in.a]
			delete(open, in.a)
			r.steps = append(r.steps, vstep{op: op, reg: in.b, scalar: invariant(in.b)})
		case open[in.b] != nil && in.a != in.b && reads[in.b] == 1:
			r = open[in.b]
			delete(open, in.b)
			r.steps = append(r.steps, vstep{op: op, reg: in.a, swap: true, scalar: invariant(in.a)})
		case invariant(in.a) && !invariant(in.b):
			// c op x starts from x: the invariant is a scalar step.
			r = &run{start: in.b, steps: []vstep{{op: op, reg: in.a, swap: true, scalar: true}}}
		default:
			r = &run{start: in.a, steps: []vstep{{op: op, reg: in.b, scalar: invariant(in.b)}}}
		}
		r.last = i
		r.members = append(r.members, i)
		member[i] = r
		if reads[in.dst] <= 2 && !slices.Contains(outs, in.dst) && len(r.steps) < kernels.MaxChain {
			open[in.dst] = r
		}
	}
	var out []vinstr
	for i, in := range body {
		r := member[i]
		switch {
		case r == nil || len(r.members) == 1 && !r.steps[0].scalar:
			// A lone op with an invariant operand is a chain of one
			// scalar step all the same: the invariant needs no chunk.
			out = append(out, in)
		case i == r.last:
			out = append(out, vinstr{kind: vkChain, op: in.op, dt: in.dt, dst: in.dst, a: r.start, chain: r.steps})
		}
	}
	return out
}

// prologue runs the program's once-per-loop part.
func (p *vprog) prologue(fr *frame) {
	for i := range p.pro {
		in := &p.pro[i]
		switch in.kind {
		case vkSetup:
			in.setup(fr)
		case vkSetF:
			fr.flts[in.freg] = in.fn(fr)
		case vkBcast:
			// Only this instruction writes its register, all of it at
			// once, and registers start as zeros: when the first
			// element holds the value already (bit for bit), so do the
			// others, and a loop run row by row fills it once.
			v := in.fn(fr)
			if p.f32 {
				if r, x := fr.v32[in.dst], float32(v); math.Float32bits(r[0]) != math.Float32bits(x) {
					fill(r[:in.fillLen], x)
				}
			} else if r := fr.v64[in.dst]; math.Float64bits(r[0]) != math.Float64bits(v) {
				fill(r[:in.fillLen], v)
			}
		}
	}
}

// fill sets every element of x to v: a long x by doubling copies
// (memmove's vector stores), since a row loop refills its broadcast
// registers, a chunk each, for every row whose invariants changed (the
// mean and the scale of a LayerNorm row).
func fill[T float32 | float64](x []T, v T) {
	if len(x) < 32 {
		for i := range x {
			x[i] = v
		}
		return
	}
	for i := range 16 {
		x[i] = v
	}
	for i := 16; i < len(x); i *= 2 {
		copy(x[i:], x[:i])
	}
}

// describe summarises the program for the plan's description.
func (p *vprog) describe() string {
	class := "f64"
	if p.f32 {
		class = "f32"
	}
	ops, loads, elems, expSubs, ahead, aheadW, chained, chains, erfAffines, erfDivAffines, geluTails := 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	for _, in := range p.body {
		switch in.kind {
		case vkLoad:
			loads++
		case vkElem:
			elems++
		case vkExpSub:
			ops += 2
			expSubs++
			if in.ahead > 0 {
				ahead++
			}
		case vkChain:
			ops += len(in.chain)
			chained += len(in.chain)
			chains++
		case vkErfAffine:
			ops += 3
			if g := in.gelu; g != nil {
				ops += 2
				geluTails++
				if g.w >= 0 {
					ops++
				}
			}
			if in.divide {
				erfDivAffines++
			} else {
				erfAffines++
			}
			if in.ahead > 0 {
				ahead++
			}
			if in.aheadW {
				aheadW++
			}
		default:
			ops++
		}
	}
	s := fmt.Sprintf("%d loads, %d ops, %s chunks", loads, ops, class)
	if expSubs > 0 {
		s += ", exp (x - c) in one pass"
	}
	if erfAffines > 0 {
		s += ", erf (x · c) + d in one pass"
	}
	if erfDivAffines > 0 {
		s += ", erf (x / c) + d in one pass"
	}
	if geluTails > 0 {
		s += ", GELU's products in the erf's pass"
	}
	switch {
	case ahead > 0 && aheadW > 0:
		s += ", the next row and the result prefetched"
	case ahead > 0:
		s += ", the next row prefetched"
	case aheadW > 0:
		s += ", the result prefetched"
	}
	switch {
	case chains == 1:
		s += fmt.Sprintf(", %d ops in a chain", chained)
	case chains > 1:
		s += fmt.Sprintf(", %d ops in %d chains", chained, chains)
	}
	if elems > 0 {
		s += fmt.Sprintf(", %d per-element closures", elems)
	}
	return s
}
