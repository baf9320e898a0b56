package xla

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/pjrt"
)

var _ lowering.LoopBackend = (*Backend)(nil)

// Loop is a kernel graph compiled to run in a loop (lowering.Loop): its
// carried values live on the device as PJRT buffers from one run to the
// next. A run uploads only the inputs that are not carried and downloads
// only the results that are not carried (and, with CheckFinite, one flag
// per checked value).
//
// In fused mode each carried input is aliased to the result that replaces
// it (tf.aliasing_output) and donated to the run, so XLA writes the new
// value into the old one's buffer where it can, and the finiteness check
// is part of the same executable. In per-kernel mode the kernels' outputs
// stay on the device as in Executable.Run; the carried results replace the
// carried buffers (nothing is donated) and the check is an executable of
// its own.
//
// A Loop is safe for concurrent use; runs are serialised.
type Loop struct {
	x    *Executable
	spec lowering.LoopSpec

	elems   []*graph.Input // result element i's carried input, nil when it comes back to the host
	byName  map[string]*graph.Input
	inputs  []*graph.Input // the program's inputs that are not carried
	checked []*graph.Input // the carried inputs checked, in flag order

	// fused mode
	low    *stablehlo.Lowered
	donate []bool // per parameter of main

	// per-kernel mode
	check *pjrt.Executable // the finiteness check, nil when nothing is checked

	mu     sync.Mutex
	bufs   map[*graph.Input]*pjrt.Buffer // the current carried values
	args   []*pjrt.Buffer                // reused between runs
	temps  []*pjrt.Buffer                // this run's uploads, reused between runs
	slots  []*pjrt.InputSlot             // fused mode: per parameter of main not carried, its input buffer, reused between runs
	last   Timing                        // the last run's
	closed bool
}

// Timing is where the last run's time went: copying the inputs that are not
// carried to the device, executing, and reading back the results that are
// not carried (and the finiteness flags).
func (l *Loop) Timing() Timing {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// CompileLoop compiles g to run in a loop as spec says (see Loop). The
// carried values must be bound (Loop.Bind) before the first run.
func (b *Backend) CompileLoop(g *fusion.Graph, spec lowering.LoopSpec) (lowering.Loop, error) {
	return b.CompileLoopGraph(g, spec)
}

// CompileLoopGraph is CompileLoop returning the concrete type.
func (b *Backend) CompileLoopGraph(g *fusion.Graph, spec lowering.LoopSpec) (*Loop, error) {
	if g == nil || len(g.Kernels) == 0 {
		return nil, errors.New("xla: empty kernel graph")
	}
	l := &Loop{spec: spec, byName: map[string]*graph.Input{}, bufs: map[*graph.Input]*pjrt.Buffer{}}
	rt, ok := g.Result.Type.(*graph.TupleType)
	if !ok {
		return nil, fmt.Errorf("xla: loop: the program's result is %v, want a tuple whose elements the spec pairs with inputs", g.Result.Type)
	}
	if len(spec.Carried) != len(rt.Elems) {
		return nil, fmt.Errorf("xla: loop: the spec names %d carried inputs for a result of %d elements", len(spec.Carried), len(rt.Elems))
	}
	ins := map[string]*graph.Input{}
	for _, in := range g.Inputs {
		ins[in.Name] = in
	}
	l.elems = make([]*graph.Input, len(rt.Elems))
	for i, name := range spec.Carried {
		if name == "" {
			continue
		}
		in, ok := ins[name]
		if !ok {
			return nil, fmt.Errorf("xla: loop: result element %d replaces %s, which the program does not read", i, name)
		}
		if l.byName[name] != nil {
			return nil, fmt.Errorf("xla: loop: %s is carried twice", name)
		}
		if _, ok := in.Type.(*graph.TupleType); ok {
			return nil, fmt.Errorf("xla: loop: %s is a tuple; carry arrays and scalars", name)
		}
		if !graph.SameShape(in.Type, rt.Elems[i]) {
			return nil, fmt.Errorf("xla: loop: result element %d is %v, but the input %s it replaces is %v", i, rt.Elems[i], name, in.Type)
		}
		l.elems[i], l.byName[name] = in, in
	}
	for _, in := range g.Inputs {
		if l.byName[in.Name] == nil {
			l.inputs = append(l.inputs, in)
		}
	}
	for _, name := range spec.Implied {
		if l.byName[name] == nil {
			return nil, fmt.Errorf("xla: loop: the finiteness of %s is said to follow from the checked values, but %s is not carried", name, name)
		}
	}
	if spec.CheckFinite {
		for _, in := range l.elems {
			if in != nil && isFloat(in.Type) && !slices.Contains(spec.Implied, in.Name) {
				l.checked = append(l.checked, in)
			}
		}
	}
	var loop *stablehlo.Loop
	if !b.opt.PerKernel {
		loop = &stablehlo.Loop{Aliases: map[int]int{}}
	}
	x, err := b.compile(g, loop, l.elemLeaf)
	if err != nil {
		return nil, b.rejected(err)
	}
	l.x = x
	if !x.perKernel {
		l.low = x.progs[0].low
		l.donate = make([]bool, len(l.low.Params))
		for p := range l.low.Params {
			_, l.donate[p] = x.aliases[p]
		}
		return l, nil
	}
	if len(l.checked) > 0 {
		var ts []graph.Type
		for _, in := range l.checked {
			ts = append(ts, in.Type)
		}
		low, err := stablehlo.FiniteCheckModule(ts)
		if err != nil {
			return nil, fmt.Errorf("xla: loop: %w", err)
		}
		if l.check, err = b.client.Compile(low); err != nil {
			return nil, fmt.Errorf("xla: loop: the finiteness check: %w", err)
		}
	}
	return l, nil
}

// elemLeaf returns, for the leaf of the result at path, the carried input
// it replaces, and whether its finiteness is checked.
func (l *Loop) elemLeaf(path []int) (*graph.Input, bool) {
	if len(path) != 1 {
		return nil, false
	}
	in := l.elems[path[0]]
	return in, in != nil && slices.Contains(l.checked, in)
}

func isFloat(t graph.Type) bool {
	var dt graph.DType
	switch t := t.(type) {
	case *graph.ArrayType:
		dt = t.DType
	case *graph.ScalarType:
		dt = t.DType
	}
	return dt == graph.Float32 || dt == graph.Float64
}

// Executable is the compiled program, for its Stats, Describe and Texts.
func (l *Loop) Executable() *Executable { return l.x }

// Bind copies the carried values to the device, replacing (and freeing)
// the ones there. Every carried input must be given, with its type;
// nothing else.
func (l *Loop) Bind(values map[string]graph.Value) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("xla: loop: bind after Close")
	}
	for name := range values {
		if l.byName[name] == nil {
			return fmt.Errorf("xla: loop: bind: %s is not a carried input", name)
		}
	}
	c := l.x.backend.client
	next := make(map[*graph.Input]*pjrt.Buffer, len(l.byName))
	fail := func(err error) error {
		for _, b := range next {
			b.Destroy()
		}
		return err
	}
	for _, in := range l.elems {
		if in == nil {
			continue
		}
		v, ok := values[in.Name]
		if !ok {
			return fail(fmt.Errorf("xla: loop: bind: no value for %s", in.Name))
		}
		if err := graph.CheckValue(in.Type, v); err != nil {
			return fail(fmt.Errorf("xla: loop: bind: %s: %w", in.Name, err))
		}
		b, err := c.ToDevice(v)
		if err != nil {
			return fail(fmt.Errorf("xla: loop: bind: %s: %w", in.Name, err))
		}
		next[in] = b
	}
	for _, b := range l.bufs {
		b.Destroy()
	}
	l.bufs = next
	return nil
}

// Value copies the current value of the carried input name to the host:
// a new row-major array, or a scalar.
func (l *Loop) Value(name string) (graph.Value, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("xla: loop: value after Close")
	}
	in := l.byName[name]
	if in == nil {
		return nil, fmt.Errorf("xla: loop: %s is not a carried input", name)
	}
	b := l.bufs[in]
	if b == nil {
		return nil, fmt.Errorf("xla: loop: %s has no value: call Bind first", name)
	}
	v, err := b.ToHost()
	if err != nil {
		return nil, fmt.Errorf("xla: loop: %s: %w", name, err)
	}
	return v, nil
}

// Close frees the carried buffers. The compiled programs stay in the
// client's cache.
func (l *Loop) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	for _, b := range l.bufs {
		b.Destroy()
	}
	for _, sl := range l.slots {
		sl.Close()
	}
	l.bufs, l.slots = nil, nil
	return l.x.Close()
}

// Run uploads the inputs that are not carried, runs the program on them
// and the carried buffers, replaces the carried buffers by the results
// that replace them and copies the other results (and the finiteness
// flags) to the host.
func (l *Loop) Run(inputs map[string]graph.Value) (lowering.LoopResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return lowering.LoopResult{}, errors.New("xla: loop: run after Close")
	}
	if len(l.bufs) != len(l.byName) {
		return lowering.LoopResult{}, errors.New("xla: loop: run before Bind: bind the carried values first")
	}
	for name := range inputs {
		if l.byName[name] != nil {
			return lowering.LoopResult{}, fmt.Errorf("xla: loop: %s is carried: the loop holds its value; bind it with Bind, not Run", name)
		}
	}
	bound, err := bind(l.inputs, inputs)
	if err != nil {
		return lowering.LoopResult{}, err
	}
	c := l.x.backend.client
	defer func() {
		for i, b := range l.temps {
			b.Destroy()
			l.temps[i] = nil
		}
		l.temps = l.temps[:0]
	}()
	up := func(in *graph.Input, path []int) (*pjrt.Buffer, error) {
		v, err := leafOf(bound[in], path)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %v", in.Name, err)
		}
		b, err := c.ToDevice(v)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %w", in.Name, err)
		}
		l.temps = append(l.temps, b)
		return b, nil
	}
	l.last = Timing{}
	if l.low != nil {
		return l.runFused(bound)
	}
	start := time.Now()
	res, err := l.runPerKernel(up)
	l.last.Execute = time.Since(start)
	return res, err
}

func (l *Loop) runFused(bound map[*graph.Input]graph.Value) (lowering.LoopResult, error) {
	start := time.Now()
	low := l.low
	if l.slots == nil {
		l.slots = make([]*pjrt.InputSlot, len(low.Params))
	}
	l.args = l.args[:0]
	for i, leaf := range low.Params {
		b := l.bufs[leaf.Buffer]
		if b == nil {
			v, err := leafOf(bound[leaf.Buffer], leaf.Path)
			if err != nil {
				return lowering.LoopResult{}, fmt.Errorf("xla: input %s: %v", leaf.Buffer.Name, err)
			}
			if l.slots[i] == nil {
				t, err := leafType(leaf.Buffer.Type, leaf.Path)
				if err == nil {
					l.slots[i], err = l.x.backend.client.NewInputSlot(t)
				}
				if err != nil {
					return lowering.LoopResult{}, fmt.Errorf("xla: input %s: %w", leaf.Buffer.Name, err)
				}
			}
			if b, err = l.slots[i].Set(v); err != nil {
				return lowering.LoopResult{}, fmt.Errorf("xla: input %s: %w", leaf.Buffer.Name, err)
			}
		}
		l.args = append(l.args, b)
	}
	inDone := time.Now()
	outs, err := l.x.progs[0].exe.RunBuffers(l.args, l.donate)
	execDone := time.Now()
	l.last.In, l.last.Execute = inDone.Sub(start), execDone.Sub(inDone)
	defer func() { l.last.Out = time.Since(execDone) }()
	clear(l.args)
	if err != nil {
		// The donated buffers may be gone: the loop needs Bind again.
		for _, b := range l.bufs {
			b.Destroy()
		}
		clear(l.bufs)
		return lowering.LoopResult{}, fmt.Errorf("xla: %w; the carried values are lost: bind them again", err)
	}
	return l.collect(low.Results, outs)
}

// collect takes the outputs of a run, the leaves of the result (then the
// flags when something is checked): carried leaves replace the carried
// buffers, the rest are copied to the host.
func (l *Loop) collect(leaves []stablehlo.Leaf, outs []*pjrt.Buffer) (lowering.LoopResult, error) {
	var host []graph.Value
	var res lowering.LoopResult
	var errs []error
	for i, leaf := range leaves {
		if in, _ := l.elemLeaf(leaf.Path); in != nil {
			if old := l.bufs[in]; old != nil {
				old.Destroy() // a no-op for a donated buffer
			}
			l.bufs[in] = outs[i]
			continue
		}
		v, err := outs[i].ToHost()
		outs[i].Destroy()
		if err != nil {
			errs = append(errs, fmt.Errorf("xla: result: %w", err))
		}
		host = append(host, v)
	}
	if len(leaves) < len(outs) {
		flags := outs[len(leaves)]
		name, err := l.firstNonFinite(flags)
		flags.Destroy()
		if err != nil {
			errs = append(errs, err)
		}
		res.NonFinite = name
	}
	if err := errors.Join(errs...); err != nil {
		return lowering.LoopResult{}, err
	}
	// Rebuild the elements that come back to the host from their leaves.
	rt := l.x.graph.Result.Type.(*graph.TupleType)
	for i, e := range rt.Elems {
		if l.elems[i] != nil {
			continue
		}
		v, rest, err := assemble1(e, host)
		if err != nil {
			return lowering.LoopResult{}, err
		}
		host = rest
		res.Results = append(res.Results, v)
	}
	return res, nil
}

// firstNonFinite reads the flags of the check and names the first carried
// input that is not finite.
func (l *Loop) firstNonFinite(flags *pjrt.Buffer) (string, error) {
	v, err := flags.ToHost()
	if err != nil {
		return "", fmt.Errorf("xla: the finiteness flags: %w", err)
	}
	a, ok := v.(*graph.Array)
	if !ok || a.Size() != len(l.checked) {
		return "", fmt.Errorf("xla: internal error: the finiteness flags are %s, want %d", graph.DescribeValue(v), len(l.checked))
	}
	for i, in := range l.checked {
		if a.At(i) == 0 {
			return in.Name, nil
		}
	}
	return "", nil
}

func (l *Loop) runPerKernel(up func(*graph.Input, []int) (*pjrt.Buffer, error)) (lowering.LoopResult, error) {
	g := l.x.graph
	bufs := map[*graph.Input][]*pjrt.Buffer{}
	var made []*pjrt.Buffer // kernel outputs, freed unless they end up carried or are the result
	defer func() {
		for _, b := range made {
			b.Destroy()
		}
	}()
	last := map[*graph.Input]int{}
	for i, k := range g.Kernels {
		for _, in := range k.Inputs {
			last[in] = i
		}
	}
	for _, in := range g.Inputs {
		if b := l.bufs[in]; b != nil {
			bufs[in] = []*pjrt.Buffer{b}
			continue
		}
		for _, leaf := range leavesOf(in) {
			b, err := up(in, leaf)
			if err != nil {
				return lowering.LoopResult{}, err
			}
			bufs[in] = append(bufs[in], b)
		}
	}
	for i, k := range g.Kernels {
		l.args = l.args[:0]
		for _, in := range k.Inputs {
			bs, ok := bufs[in]
			if !ok {
				return lowering.LoopResult{}, fmt.Errorf("xla: kernel %s reads %s, which nothing provides", k.Name, in.Name)
			}
			l.args = append(l.args, bs...)
		}
		outs, err := l.x.progs[i].exe.RunBuffers(l.args, nil)
		clear(l.args)
		if err != nil {
			return lowering.LoopResult{}, fmt.Errorf("xla: kernel %s: %w", k.Name, err)
		}
		made = append(made, outs...)
		bufs[k.Output] = outs
		for _, in := range k.Inputs {
			if last[in] == i && in != g.Result && !slices.Contains(g.Inputs, in) {
				for _, b := range bufs[in] {
					b.Destroy()
				}
			}
		}
	}
	res := bufs[g.Result]
	leaves := stablehloLeaves(g.Result)
	var flags *pjrt.Buffer
	if l.check != nil {
		var args []*pjrt.Buffer
		for _, in := range l.checked {
			for j, leaf := range leaves {
				if got, _ := l.elemLeaf(leaf.Path); got == in {
					args = append(args, res[j])
				}
			}
		}
		outs, err := l.check.RunBuffers(args, nil)
		if err != nil {
			return lowering.LoopResult{}, fmt.Errorf("xla: the finiteness check: %w", err)
		}
		flags = outs[0]
	}
	// The result's buffers now belong to collect: carried ones replace the
	// loop's, the others are copied to the host and freed.
	made = slices.DeleteFunc(made, func(b *pjrt.Buffer) bool { return slices.Contains(res, b) })
	outs := slices.Clone(res)
	if flags != nil {
		outs = append(outs, flags)
	}
	return l.collect(leaves, outs)
}

// stablehloLeaves lists the leaves of buf as stablehlo.Lowered does.
func stablehloLeaves(buf *graph.Input) []stablehlo.Leaf {
	var out []stablehlo.Leaf
	for _, p := range leavesOf(buf) {
		out = append(out, stablehlo.Leaf{Buffer: buf, Path: p})
	}
	return out
}
