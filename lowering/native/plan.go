package native

import (
	"errors"
	"fmt"
	"maps"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// debugPanics lets internal panics through, with their stacks (tests set
// it through HOFUSE_NATIVE_PANICS=1).
var debugPanics = false

// Options configure the native back end. The zero value is the default.
type Options struct {
	// Parallelism is how many goroutines a run may use, the caller's
	// included: 0 means runtime.GOMAXPROCS(0), 1 runs everything
	// sequentially on the caller's goroutine (for callers that parallelise
	// across requests themselves).
	Parallelism int
	// NoGEMM compiles matrix-product shapes as the loop nests they are
	// written as instead of calling the GEMM kernel: dot products, axpys
	// and vector loops in the order of the term's higher-order functions.
	// The loop-order experiments of the paper's section 4 need it; models
	// should leave it off.
	NoGEMM bool
	// MaxMemory caps, in bytes, the arena a plan allocates: the buffers
	// of every kernel, once per worker frame where each has its own, and
	// the private copies of inputs. Plan computes it before allocating
	// and refuses past the cap with a *graph.MemoryError naming the input
	// or kernel that passed it. 0 means graph.DefaultMemoryLimit (4 GiB).
	MaxMemory int64
}

// Backend is the native back end: it compiles a kernel graph into Go loop
// nests. Its zero value uses the default Options.
type Backend struct {
	Options Options
}

// New returns a native back end with the given options.
func New(opts Options) *Backend { return &Backend{Options: opts} }

// Name returns "native".
func (b *Backend) Name() string { return "native" }

// Compile compiles g; the Executable is a *Plan.
func (b *Backend) Compile(g *fusion.Graph) (lowering.Executable, error) {
	p, err := b.Plan(g)
	if err != nil {
		return nil, err
	}
	return p, nil
}

var _ lowering.Backend = (*Backend)(nil)
var _ lowering.Executable = (*Plan)(nil)

// A Plan is a compiled kernel graph: every kernel as code over buffers
// allocated once, at compile time, in the plan's arena. Run may be called
// from several goroutines; runs are serialised.
type Plan struct {
	mu      sync.Mutex
	opts    Options
	workers int
	ins     []*inputSlot
	inputs  []*graph.Input // the inputs of ins, for graph.CheckInputs
	byName  map[string]*inputSlot
	steps   []step
	cur     int
	rt      *runtime
	result  graph.Value
	fixups  []func() // copies bool and i32 results into their arrays
	scalars []*scalarResult
	desc    string
	arena   int
	closed  bool
}

type step struct {
	name string
	run  code
}

// An inputSlot is where a program input is bound at run time.
type inputSlot struct {
	in     *graph.Input
	leaves []*inputLeaf
}

// An inputLeaf is one array or scalar of an input (a tuple input has
// several). An array whose layout is the declared one is used in place;
// any other is copied into the leaf's own buffer first.
type inputLeaf struct {
	t    graph.Type
	dt   graph.DType
	slot int // buffer index of the slot in the dtype's table
	own  int // buffer index of the private copy (-1 for scalars)
	idx  []int

	// fixed says the input is one of FixInputs': what a run derives from
	// the array bound here may be kept for the next run that binds the
	// same array. gen counts the arrays bound since, bound is the last.
	fixed bool
	gen   uint64
	bound *graph.Array
}

// Plan compiles g into a *Plan.
func (b *Backend) Plan(g *fusion.Graph) (p *Plan, err error) {
	if g == nil || len(g.Kernels) == 0 {
		return nil, errors.New("native: empty kernel graph")
	}
	workers := b.Options.Parallelism
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	bl := &builder{nInts: 1}
	var desc strings.Builder
	c := &compiler{opts: b.Options, workers: workers, b: bl, inputs: map[*graph.Input]*cval{}, desc: &desc,
		ready: map[[2]int]bool{}, kernelOuts: map[*cval]bool{}, aliased: map[*cval]bool{}}
	p = &Plan{opts: b.Options, workers: workers, byName: map[string]*inputSlot{}}
	kname := ""
	defer func() {
		if r := recover(); r != nil {
			if debugPanics {
				panic(r)
			}
			p, err = nil, fmt.Errorf("native: kernel %s: internal compiler error: %v", kname, r)
		}
	}()
	for _, in := range g.Inputs {
		if _, dup := p.byName[in.Name]; dup {
			return nil, fmt.Errorf("native: two inputs are named %s", in.Name)
		}
		slot, v, err := bl.inputSlot(in)
		if err != nil {
			return nil, fmt.Errorf("native: input %s: %w", in.Name, err)
		}
		if err := bl.checkMemory("input "+in.Name, 2*workers, b.Options.maxMemory()); err != nil {
			return nil, err
		}
		c.inputs[in] = v
		c.markReady(v)
		p.ins = append(p.ins, slot)
		p.inputs = append(p.inputs, in)
		p.byName[in.Name] = slot
	}
	hoisted := 0
	for _, k := range g.Kernels {
		// Errors name the kernel with its schedule when the schedule pass
		// reordered it (fusion.Kernel.Label), so that an order this back
		// end cannot run is named, never replaced by another.
		kname = k.Label()
		c.kernel = k.Name
		for _, in := range k.Inputs {
			if _, ok := c.inputs[in]; !ok {
				return nil, fmt.Errorf("native: kernel %s: input %s is neither a program input nor an earlier kernel's output", k.Name, in.Name)
			}
		}
		out, aliased, err := c.output(k.Output.Type, k.Body)
		if err != nil {
			return nil, fmt.Errorf("native: kernel %s: %w", k.Name, err)
		}
		fmt.Fprintf(&desc, "kernel %s -> %s %v\n", k.Name, k.Output.Name, k.Output.Type)
		if aliased > 0 {
			c.note("%d of its elements are earlier kernels' outputs, not copied", aliased)
		}
		code, err := c.compileTerm(k.Body, out, &hoisted)
		if err != nil {
			return nil, fmt.Errorf("native: kernel %s: %w", kname, err)
		}
		if err := bl.checkMemory("kernel "+kname+" with the buffers before it", 2*workers, b.Options.maxMemory()); err != nil {
			return nil, err
		}
		c.inputs[k.Output] = out
		c.markReady(out)
		for _, l := range out.leaves() {
			if l.kind == cvView && len(l.layout) > 0 {
				c.kernelOuts[l] = true
			}
		}
		p.steps = append(p.steps, step{name: k.Name, run: code})
	}
	kname = ""
	p.rt = bl.runtime(workers)
	p.desc = desc.String()
	p.arena = bl.bytes(len(p.rt.frames) + len(p.rt.epi))
	res := c.inputs[g.Result]
	if res == nil {
		return nil, fmt.Errorf("native: the result %s is no kernel's output", g.Result.Name)
	}
	if p.result, err = p.resultValue(res); err != nil {
		return nil, err
	}
	return p, nil
}

// compileTerm compiles a closed term into dst: first the subterms hoisted
// out of it, each into a buffer of its own, then the term.
func (c *compiler) compileTerm(body graph.Node, dst *cval, counter *int) (code, error) {
	nb, hoists, err := normalize(body, counter)
	if err != nil {
		return nil, err
	}
	var parts []code
	for _, h := range hoists {
		v, err := c.scratch(h.in.Type)
		if err != nil {
			return nil, err
		}
		c.note("hoisted %s %v = %s", h.in.Name, h.in.Type, graph.Abbrev(h.term, 60))
		c.depth++
		hc, err := c.compileTerm(h.term, v, counter)
		c.depth--
		if err != nil {
			return nil, err
		}
		c.inputs[h.in] = v
		c.markReady(v)
		parts = append(parts, hc)
	}
	saved := c.pre
	c.pre = nil
	bc, err := c.into(nb, nil, dst)
	pre := c.pre
	c.pre = saved
	if err != nil {
		return nil, err
	}
	parts = append(parts, pre...)
	return seq(append(parts, bc)...), nil
}

// Describe returns what the compiler made of each kernel: loops, vector
// loops, kernel calls, scratch, parallel splits.
func (p *Plan) Describe() string { return p.desc }

// ArenaBytes is the memory the plan allocated for outputs, temporaries and
// scratch, over all frames.
func (p *Plan) ArenaBytes() int { return p.arena }

// Workers is the number of goroutines a run uses.
func (p *Plan) Workers() int { return p.workers }

// Kernels returns the names of the compiled kernels, in run order.
func (p *Plan) Kernels() []string {
	out := make([]string, len(p.steps))
	for i, s := range p.steps {
		out[i] = s.name
	}
	return out
}

// Run binds the inputs by name, runs every kernel and returns the result.
// The result lives in the plan's arena: it stays valid until the next Run
// or Close, which overwrite or release it; copy it to keep it. A steady
// state Run allocates nothing (a scalar result allocates when its value
// changes). Inputs are read in place when their layout is the declared
// one and are never written.
func (p *Plan) Run(inputs map[string]graph.Value) (out graph.Value, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("native: Run after Close")
	}
	if err := p.bind(inputs); err != nil {
		return nil, err
	}
	p.cur = -1
	defer func() {
		if r := recover(); r != nil {
			if debugPanics {
				panic(r)
			}
			name := "?"
			if p.cur >= 0 && p.cur < len(p.steps) {
				name = p.steps[p.cur].name
			}
			out, err = nil, fmt.Errorf("native: kernel %s: internal error: %v", name, r)
			p.rt.frames[0].par = false
		}
	}()
	fr := p.rt.frames[0]
	for i := range p.steps {
		p.cur = i
		run(p.steps[i].run, fr)
	}
	for _, f := range p.fixups {
		f()
	}
	for _, s := range p.scalars {
		s.refresh()
	}
	return p.result, nil
}

// FixInputs declares that the arrays bound to the named inputs — a
// network's weights, when it only infers — are not written between runs
// while they stay bound. A run may then keep what it derives from such an
// array and reuse it in the runs that bind the same *graph.Array again: a
// matrix product whose right operand is one packs it into the GEMM
// kernel's panels once, not on every run. Binding another array for the
// input, or calling FixInputs again, drops what was kept; writing into a
// fixed array and running again without either gives results computed
// from its old values. FixInputs with no names returns to the default,
// where nothing is kept. A name the program has no input for is an error.
// The packed copies take about the memory of the weights they copy, apart
// from the arena and Options.MaxMemory.
func (p *Plan) FixInputs(names ...string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("native: FixInputs after Close")
	}
	fix := map[*inputSlot]bool{}
	for _, name := range names {
		s, ok := p.byName[name]
		if !ok {
			return fmt.Errorf("native: FixInputs: the program has no input named %q", name)
		}
		fix[s] = true
	}
	for _, s := range p.ins {
		for _, l := range s.leaves {
			l.fixed, l.bound, l.gen = fix[s], nil, l.gen+1
		}
	}
	return nil
}

// refix drops what runs kept from the named fixed inputs, whose arrays
// the caller may have rewritten.
func (p *Plan) refix(names []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range names {
		for _, l := range p.byName[name].leaves {
			l.bound, l.gen = nil, l.gen+1
		}
	}
}

var _ lowering.Binder = (*Plan)(nil)

// Bind implements lowering.Binder: the returned Bound runs the plan with
// params bound and takes the other inputs. Params are not copied but
// fixed (FixInputs): read in place, their arrays must not be written
// while bound, except to pass them to SetParams after. A plan has one set
// of fixed inputs: a later Bind or FixInputs replaces this one's. The
// Bound is not safe for concurrent use.
func (p *Plan) Bind(params map[string]graph.Value) (lowering.Bound, error) {
	names := slices.Sorted(maps.Keys(params))
	for _, name := range names {
		if err := p.checkParam(name, params[name]); err != nil {
			return nil, err
		}
	}
	if err := p.FixInputs(names...); err != nil {
		return nil, err
	}
	return &boundPlan{p: p, all: maps.Clone(params)}, nil
}

// checkParam checks that v fits the input named name.
func (p *Plan) checkParam(name string, v graph.Value) error {
	s, ok := p.byName[name]
	if !ok {
		return fmt.Errorf("native: %s bound, but the program has no such input", name)
	}
	if err := graph.CheckValue(s.in.Type, v); err != nil {
		return fmt.Errorf("native: input %s %w", name, err)
	}
	return nil
}

// boundPlan is a Plan with some inputs bound (Plan.Bind).
type boundPlan struct {
	p      *Plan
	all    map[string]graph.Value // the bound values, and a run's other inputs while it runs
	closed bool
}

func (b *boundPlan) Run(inputs map[string]graph.Value) (graph.Value, error) {
	if b.closed {
		return nil, errors.New("native: Run of a bound plan after its Close")
	}
	for name := range inputs {
		if _, ok := b.all[name]; ok {
			return nil, fmt.Errorf("native: input %s is bound (Bind); give its new value to SetParams", name)
		}
	}
	maps.Copy(b.all, inputs)
	out, err := b.p.Run(b.all)
	for name := range inputs {
		delete(b.all, name)
	}
	return out, err
}

// SetParams takes new values of bound inputs, or the same arrays
// rewritten since they were bound.
func (b *boundPlan) SetParams(params map[string]graph.Value) error {
	if b.closed {
		return errors.New("native: SetParams of a bound plan after its Close")
	}
	for name, v := range params {
		if _, ok := b.all[name]; !ok {
			return fmt.Errorf("native: SetParams: input %s is not bound", name)
		}
		if err := b.p.checkParam(name, v); err != nil {
			return err
		}
	}
	maps.Copy(b.all, params)
	b.p.refix(slices.Collect(maps.Keys(params)))
	return nil
}

// Close unbinds the inputs: the plan fixes none and stays usable.
func (b *boundPlan) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if b.p.closedPlan() {
		return nil
	}
	return b.p.FixInputs()
}

func (p *Plan) closedPlan() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close releases the plan's arena. Run after Close returns an error.
func (p *Plan) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.rt = nil
	p.result = nil
	return nil
}

// bind checks the inputs (graph.CheckInputs) and points the input slots
// at them.
func (p *Plan) bind(inputs map[string]graph.Value) error {
	if err := graph.CheckInputs(p.inputs, inputs); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	for _, s := range p.ins {
		p.bindSlot(s, inputs[s.in.Name])
	}
	return nil
}

// bindSlot points the slot's leaves at the leaves of v, which fits the
// slot's input.
func (p *Plan) bindSlot(s *inputSlot, v graph.Value) { p.bindLeaves(s.leaves, v) }

// bindLeaves binds the leaves of v, depth first through nested tuples, to
// the first of leaves, and returns how many it bound.
func (p *Plan) bindLeaves(leaves []*inputLeaf, v graph.Value) int {
	if tv, ok := v.(graph.TupleValue); ok {
		n := 0
		for _, e := range tv {
			n += p.bindLeaves(leaves[n:], e)
		}
		return n
	}
	p.bindLeaf(leaves[0], v)
	return 1
}

// bindLeaf points the leaf at v, which fits its type: a scalar is stored,
// an array in the declared layout is read in place, any other copied in.
func (p *Plan) bindLeaf(l *inputLeaf, v graph.Value) {
	frames := p.rt.all()
	switch t := l.t.(type) {
	case *graph.ScalarType:
		s := v.(graph.ScalarValue)
		fr := frames[0]
		switch t.DType {
		case graph.Float32:
			fr.f32[l.slot][0] = float32(s.V)
		case graph.Float64:
			fr.f64[l.slot][0] = s.V
		case graph.Bool:
			fr.bl[l.slot][0] = s.V != 0
		case graph.Int32:
			fr.i32[l.slot][0] = int32(s.V)
		}
	case *graph.ArrayType:
		a := v.(*graph.Array)
		if l.fixed && a != l.bound {
			l.bound, l.gen = a, l.gen+1
		}
		// An array in the declared layout is read in place, unless it lies
		// in this plan's arena (a previous result fed back), which the
		// kernels are about to overwrite.
		if a.Layout().Equal(t.Layout) {
			switch t.DType {
			case graph.Float32:
				buf := a.Float32s()[a.Offset():]
				if !p.rt.inArena(unsafe.Pointer(unsafe.SliceData(buf)), len(buf)*4) {
					for _, fr := range frames {
						fr.f32[l.slot] = buf
					}
					return
				}
			case graph.Float64:
				buf := a.Float64s()[a.Offset():]
				if !p.rt.inArena(unsafe.Pointer(unsafe.SliceData(buf)), len(buf)*8) {
					for _, fr := range frames {
						fr.f64[l.slot] = buf
					}
					return
				}
			}
		}
		// Another layout, or a bool or i32 array: copy into the slot's
		// own buffer in the declared layout. A copy of the arena changes
		// from run to run: nothing derived from it is kept.
		if l.fixed && a.Layout().Equal(t.Layout) {
			l.bound, l.gen = nil, l.gen+1
		}
		p.copyIn(l, t, a, frames[0])
		for _, fr := range frames[1:] {
			switch t.DType {
			case graph.Float32:
				fr.f32[l.slot] = frames[0].f32[l.slot]
			case graph.Float64:
				fr.f64[l.slot] = frames[0].f64[l.slot]
			case graph.Bool:
				fr.bl[l.slot] = frames[0].bl[l.slot]
			case graph.Int32:
				fr.i32[l.slot] = frames[0].i32[l.slot]
			}
		}
	}
}

// copyIn copies a into the leaf's own buffer, laid out as t says.
func (p *Plan) copyIn(l *inputLeaf, t *graph.ArrayType, a *graph.Array, fr *frame) {
	idx := l.idx
	for i := range idx {
		idx[i] = 0
	}
	lay, src := t.Layout, a.Layout()
	n := lay.Size()
	for k := 0; k < n; k++ {
		off := lay.Offset(idx)
		switch t.DType {
		case graph.Float32:
			fr.f32[l.own][off] = a.Float32s()[a.Offset()+src.Offset(idx)]
		case graph.Float64:
			fr.f64[l.own][off] = a.Float64s()[a.Offset()+src.Offset(idx)]
		case graph.Bool:
			fr.bl[l.own][off] = a.At(idx...) != 0
		case graph.Int32:
			fr.i32[l.own][off] = int32(a.At(idx...))
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < lay[d].Extent {
				break
			}
			idx[d] = 0
		}
	}
	switch t.DType {
	case graph.Float32:
		fr.f32[l.slot] = fr.f32[l.own]
	case graph.Float64:
		fr.f64[l.slot] = fr.f64[l.own]
	case graph.Bool:
		fr.bl[l.slot] = fr.bl[l.own]
	case graph.Int32:
		fr.i32[l.slot] = fr.i32[l.own]
	}
}

// resultValue builds, once, the value Run returns: arrays that wrap the
// arena buffers of the last kernel's output.
func (p *Plan) resultValue(v *cval) (graph.Value, error) { return p.resultIn(v, nil, 0) }

func (p *Plan) resultIn(v *cval, tuple graph.TupleValue, index int) (graph.Value, error) {
	fr := p.rt.frames[0]
	switch v.kind {
	case cvTuple:
		tv := make(graph.TupleValue, len(v.elems))
		for i, e := range v.elems {
			x, err := p.resultIn(e, tv, i)
			if err != nil {
				return nil, err
			}
			tv[i] = x
		}
		return tv, nil
	case cvView:
		if len(v.layout) == 0 {
			read, err := loadFn(v)
			if err != nil {
				return nil, fmt.Errorf("native: the result: %w", err)
			}
			sr := &scalarResult{plan: p, dt: v.dt, read: read, fr: fr, tuple: tuple, index: index}
			p.scalars = append(p.scalars, sr)
			return graph.ScalarValue{DType: v.dt}, nil
		}
		ext := v.layout.Extents()
		n := v.layout.Size()
		switch v.dt {
		case graph.Float32:
			return graph.FromFloat32(fr.f32[v.buf][:n], ext...)
		case graph.Float64:
			return graph.FromFloat64(fr.f64[v.buf][:n], ext...)
		}
		a, err := graph.NewArrayLimit(v.dt, graph.RowMajor(ext...), p.opts.maxMemory())
		if err != nil {
			return nil, err
		}
		idx := make([]int, len(ext))
		buf, dt := v.buf, v.dt
		p.fixups = append(p.fixups, func() {
			for i := range idx {
				idx[i] = 0
			}
			for k := 0; k < n; k++ {
				var x float64
				if dt == graph.Bool {
					x = b2f(fr.bl[buf][k])
				} else {
					x = float64(fr.i32[buf][k])
				}
				a.Set(x, idx...)
				for d := len(idx) - 1; d >= 0; d-- {
					idx[d]++
					if idx[d] < ext[d] {
						break
					}
					idx[d] = 0
				}
			}
		})
		return a, nil
	}
	return nil, fmt.Errorf("native: cannot return a %v value", v.kind)
}

// A scalarResult is a scalar the program returns, alone or in a tuple. A
// scalar in an interface needs a heap copy, so a new one is made only when
// the value changes.
type scalarResult struct {
	plan  *Plan
	dt    graph.DType
	read  sfn
	fr    *frame
	last  float64
	boxed graph.Value
	tuple graph.TupleValue
	index int
}

func (s *scalarResult) refresh() {
	v := s.read(s.fr)
	if s.boxed == nil || v != s.last || (v != v) {
		s.last = v
		s.boxed = graph.ScalarValue{DType: s.dt, V: v}
	}
	if s.tuple != nil {
		s.tuple[s.index] = s.boxed
	} else {
		s.plan.result = s.boxed
	}
}

// all returns every frame: the pool's and the epilogues'.
func (rt *runtime) all() []*frame { return rt.allFrames }

// bufSpec describes one buffer of the arena.
type bufSpec struct {
	n        int
	perFrame bool // each frame has its own
	slot     bool // an input slot, bound at run time
}

// A builder allocates registers and buffers while a plan compiles, and
// builds the runtime at the end.
type builder struct {
	nInts, nFlts int
	bufs         [5][]bufSpec // by dtype
	vlens        [2][]int     // vector registers' lengths: [0] float64, [1] float32
	vconsts      []vconstSpec
	hooks        []func(*runtime)
	// leaves are the array inputs' leaves by dtype and slot.
	leaves map[[2]int]*inputLeaf
}

// leafAt returns the array input leaf whose slot is buffer buf of dt, or
// nil when buf is no input's.
func (b *builder) leafAt(dt graph.DType, buf int) *inputLeaf { return b.leaves[[2]int{int(dt), buf}] }

type vconstSpec struct {
	f32 bool
	idx int
	k   float64
}

func (b *builder) alloc(dt graph.DType, n int, perFrame bool) int {
	b.bufs[dt] = append(b.bufs[dt], bufSpec{n: n, perFrame: perFrame})
	return len(b.bufs[dt]) - 1
}

// allocV allocates n vector registers of length elements each (at most
// chunk: a program over a short loop gets short registers) and returns
// the first's index.
func (b *builder) allocV(f32 bool, n, length int) int {
	i := 0
	if f32 {
		i = 1
	}
	first := len(b.vlens[i])
	for range n {
		b.vlens[i] = append(b.vlens[i], length)
	}
	return first
}

// vregElems is the total length of the vector registers, float64 and
// float32.
func (b *builder) vregElems() (f64, f32 int) {
	for _, n := range b.vlens[0] {
		f64 += n
	}
	for _, n := range b.vlens[1] {
		f32 += n
	}
	return f64, f32
}

func (b *builder) vconst(f32 bool, idx int, k float64) {
	b.vconsts = append(b.vconsts, vconstSpec{f32, idx, k})
}

func (b *builder) onRuntime(f func(*runtime)) { b.hooks = append(b.hooks, f) }

// inputSlot makes the slot of a program input and the value kernels see.
func (b *builder) inputSlot(in *graph.Input) (*inputSlot, *cval, error) {
	s := &inputSlot{in: in}
	v, err := b.inputValue(s, in.Type)
	return s, v, err
}

func (b *builder) inputValue(s *inputSlot, t graph.Type) (*cval, error) {
	switch t := t.(type) {
	case *graph.TupleType:
		out := &cval{kind: cvTuple}
		for _, e := range t.Elems {
			v, err := b.inputValue(s, e)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, v)
		}
		return out, nil
	case *graph.ScalarType:
		if t.DType < graph.Float32 || t.DType > graph.Int32 {
			return nil, fmt.Errorf("unsupported element type %v", t.DType)
		}
		slot := b.alloc(t.DType, 1, false)
		s.leaves = append(s.leaves, &inputLeaf{t: t, dt: t.DType, slot: slot, own: -1})
		return &cval{kind: cvView, dt: t.DType, buf: slot, reg: 0}, nil
	case *graph.ArrayType:
		if t.DType < graph.Float32 || t.DType > graph.Int32 {
			return nil, fmt.Errorf("unsupported element type %v", t.DType)
		}
		slot := len(b.bufs[t.DType])
		b.bufs[t.DType] = append(b.bufs[t.DType], bufSpec{slot: true})
		own := b.alloc(t.DType, t.Layout.Span(), false)
		l := &inputLeaf{t: t, dt: t.DType, slot: slot, own: own, idx: make([]int, t.Rank())}
		s.leaves = append(s.leaves, l)
		if b.leaves == nil {
			b.leaves = map[[2]int]*inputLeaf{}
		}
		b.leaves[[2]int{int(t.DType), slot}] = l
		return &cval{kind: cvView, dt: t.DType, buf: slot, layout: t.Layout, reg: 0}, nil
	}
	return nil, fmt.Errorf("unsupported input type %v", t)
}

// bytes is the arena's size with the given number of frames.
func (b *builder) bytes(frames int) int {
	n := 0
	for dt, specs := range b.bufs {
		for _, s := range specs {
			k := s.n * graph.DType(dt).Size()
			if s.perFrame {
				k *= frames
			}
			n += k
		}
	}
	v64, v32 := b.vregElems()
	n += frames * (8*v64 + 4*v32)
	return n
}

// runtime allocates the arena and builds the frames.
func (b *builder) runtime(workers int) *runtime {
	rt := &runtime{}
	shared32 := make([][]float32, len(b.bufs[graph.Float32]))
	shared64 := make([][]float64, len(b.bufs[graph.Float64]))
	sharedB := make([][]bool, len(b.bufs[graph.Bool]))
	sharedI := make([][]int32, len(b.bufs[graph.Int32]))
	for i, s := range b.bufs[graph.Float32] {
		if !s.perFrame && !s.slot {
			shared32[i] = make([]float32, s.n)
		}
	}
	for i, s := range b.bufs[graph.Float64] {
		if !s.perFrame && !s.slot {
			shared64[i] = make([]float64, s.n)
		}
	}
	for i, s := range b.bufs[graph.Bool] {
		if !s.perFrame && !s.slot {
			sharedB[i] = make([]bool, s.n)
		}
	}
	for i, s := range b.bufs[graph.Int32] {
		if !s.perFrame && !s.slot {
			sharedI[i] = make([]int32, s.n)
		}
	}
	mk := func(w int) *frame {
		fr := &frame{w: w, rt: rt, ints: make([]int, b.nInts), flts: make([]float64, max(1, b.nFlts))}
		fr.f32 = perFrame(b.bufs[graph.Float32], shared32)
		fr.f64 = perFrame(b.bufs[graph.Float64], shared64)
		fr.bl = perFrame(b.bufs[graph.Bool], sharedB)
		fr.i32 = perFrame(b.bufs[graph.Int32], sharedI)
		fr.v64 = vregs[float64](b.vlens[0])
		fr.v32 = vregs[float32](b.vlens[1])
		for _, k := range b.vconsts {
			if k.f32 {
				fill(fr.v32[k.idx], float32(k.k))
			} else {
				fill(fr.v64[k.idx], k.k)
			}
		}
		return fr
	}
	for w := range workers {
		fr := mk(w)
		fr.ws = new(kernels.Workspace)
		rt.frames = append(rt.frames, fr)
	}
	for i := range workers {
		fr := mk(workers + i)
		fr.ws = new(kernels.Workspace)
		fr.par = true
		rt.epi = append(rt.epi, fr)
	}
	rt.allFrames = append(append([]*frame(nil), rt.frames...), rt.epi...)
	for _, fr := range rt.allFrames {
		for _, x := range fr.f32 {
			rt.addArena(unsafe.Pointer(unsafe.SliceData(x)), 4*len(x))
		}
		for _, x := range fr.f64 {
			rt.addArena(unsafe.Pointer(unsafe.SliceData(x)), 8*len(x))
		}
	}
	if workers > 1 {
		rt.pool = newPool(rt)
	}
	for _, h := range b.hooks {
		h(rt)
	}
	return rt
}

// perFrame returns a frame's buffer table: the shared buffers, and fresh
// ones where each frame has its own.
func perFrame[T any](specs []bufSpec, shared [][]T) [][]T {
	out := make([][]T, len(specs))
	copy(out, shared)
	for i, s := range specs {
		if s.perFrame {
			out[i] = make([]T, s.n)
		}
	}
	return out
}

func vregs[T float32 | float64](lens []int) [][]T {
	total := 0
	for _, n := range lens {
		total += n
	}
	back := make([]T, total)
	out := make([][]T, len(lens))
	off := 0
	for i, n := range lens {
		out[i] = back[off : off+n : off+n]
		off += n
	}
	return out
}

// addArena records a buffer of the arena (input slots are nil yet).
func (rt *runtime) addArena(p unsafe.Pointer, n int) {
	if p == nil || n == 0 {
		return
	}
	rt.arena = append(rt.arena, [2]uintptr{uintptr(p), uintptr(p) + uintptr(n)})
}

// inArena reports whether n bytes at p overlap a buffer of the arena.
func (rt *runtime) inArena(p unsafe.Pointer, n int) bool {
	lo, hi := uintptr(p), uintptr(p)+uintptr(n)
	for _, r := range rt.arena {
		if lo < r[1] && r[0] < hi {
			return true
		}
	}
	return false
}

// ErrUnsupported is wrapped by the error about a construct the native
// back end does not compile yet.
var ErrUnsupported = errors.New("not supported by the native back end")
