package xla

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/pjrt"
)

// Options choose how a Backend compiles.
type Options struct {
	// PerKernel compiles one executable per kernel and keeps the kernels'
	// outputs on the device between them, instead of one executable for
	// the whole graph.
	PerKernel bool
}

// Backend compiles kernel graphs for one PJRT client.
type Backend struct {
	client *pjrt.Client
	opt    Options
}

var _ lowering.Backend = (*Backend)(nil)

// New returns a back end on client, which the caller keeps open while the
// back end and its executables are used, and closes.
func New(client *pjrt.Client, opt Options) *Backend {
	return &Backend{client: client, opt: opt}
}

// Name is "pjrt-" and the plugin's platform: "pjrt-cpu", "pjrt-cuda"; with
// "/per-kernel" appended in that mode.
func (b *Backend) Name() string {
	name := "pjrt-" + b.client.Platform()
	if b.opt.PerKernel {
		name += "/per-kernel"
	}
	return name
}

// Stats says what compiling a graph cost.
type Stats struct {
	Kernels     int           // kernels in the graph
	Executables int           // PJRT executables: 1 fused, one per kernel otherwise
	Lower       time.Duration // generating the StableHLO text
	Compile     time.Duration // PJRT compile time, summed over the executables (as first compiled; cached programs cost nothing now)
	CacheHits   int           // executables the client had compiled already
	Fallbacks   []Fallback    // kernels the lowering rejected, replaced by their unfused form
	// Whole is the plugin's error for the whole graph's module, when it
	// rejected it in fused mode and the graph was compiled as one
	// executable per kernel instead; "" otherwise.
	Whole string
}

// Executable is a compiled kernel graph.
type Executable struct {
	backend *Backend
	graph   *fusion.Graph
	progs   []*program // one (fused) or one per kernel
	stats   Stats
	aliases map[int]int // a loop's: main's parameter -> the result that replaces it
	// perKernel: one executable per kernel, as Options.PerKernel asks
	// or because the plugin rejected the whole module (Stats.Whole)
	perKernel bool

	mu     sync.Mutex
	closed bool
}

var _ lowering.Executable = (*Executable)(nil)

// program is one compiled module and its calling convention.
type program struct {
	kernel string // "" for the fused module
	low    *stablehlo.Lowered
	exe    *pjrt.Executable
}

// Compile lowers g and compiles it: one executable, or one per kernel.
// Errors name the kernel.
func (b *Backend) Compile(g *fusion.Graph) (lowering.Executable, error) {
	return b.CompileGraph(g)
}

// CompileGraph is Compile returning the concrete type, with its Stats.
func (b *Backend) CompileGraph(g *fusion.Graph) (*Executable, error) {
	x, err := b.compile(g, nil, nil)
	return x, b.rejected(err)
}

// rejected adds to an error of the plugin's compiler the plugin and its
// PJRT C API version, and the native back end as the way around it.
func (b *Backend) rejected(err error) error {
	var ce compileError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	major, minor := b.client.APIVersion()
	return fmt.Errorf("%w\n(plugin %s, PJRT C API %d.%d); the native back end runs this program without PJRT: --backend native",
		err, b.client.PluginPath(), major, minor)
}

// compile lowers g and compiles it: one executable, or one per kernel.
// With loop (fused mode only), main is written for a loop: carried says,
// for the leaf of the result at a path, which input it replaces (nil for
// none) and whether its finiteness is checked; the aliases and checks are
// filled in loop and recorded in the Executable.
func (b *Backend) compile(g *fusion.Graph, loop *stablehlo.Loop, carried func(path []int) (*graph.Input, bool)) (*Executable, error) {
	if g == nil || len(g.Kernels) == 0 {
		return nil, errors.New("xla: empty kernel graph")
	}
	x := &Executable{backend: b, stats: Stats{Kernels: len(g.Kernels)}}
	g, fbs, err := withFallbacks(g)
	if err != nil {
		return nil, err
	}
	x.graph, x.stats.Fallbacks = g, fbs
	if !b.opt.PerKernel {
		err := b.compileWhole(x, loop, carried)
		var ce compileError
		if err == nil || len(g.Kernels) == 1 || !errors.As(err, &ce) {
			return x, err
		}
		// The plugin rejected the whole module: one executable per
		// kernel, which it may take one by one.
		x.stats.Whole = err.Error()
		x.aliases, x.progs = nil, nil
	}
	x.perKernel = true
	start := time.Now()
	var lows []*stablehlo.Lowered
	for _, k := range g.Kernels {
		low, err := stablehlo.LowerKernel(k)
		if err != nil {
			return nil, err
		}
		lows = append(lows, low)
	}
	x.stats.Lower += time.Since(start)
	for i, low := range lows {
		if err := b.compileProgram(x, g.Kernels[i].Name, low); err != nil {
			if x.stats.Whole != "" {
				return nil, fmt.Errorf("%s; one executable per kernel instead: %w", x.stats.Whole, err)
			}
			return nil, err
		}
	}
	x.stats.Executables = len(x.progs)
	return x, nil
}

// compileError is an error of the plugin's compiler, as opposed to one of
// the lowering; it reads as the error it wraps.
type compileError struct{ err error }

func (e compileError) Error() string { return e.err.Error() }
func (e compileError) Unwrap() error { return e.err }

// compileWhole lowers x's graph as one module (written for a loop, with
// loop) and compiles it.
func (b *Backend) compileWhole(x *Executable, loop *stablehlo.Loop, carried func(path []int) (*graph.Input, bool)) error {
	g := x.graph
	start := time.Now()
	var spec stablehlo.Loop
	if loop != nil {
		var params []*graph.Input
		for _, in := range g.Inputs {
			for range leavesOf(in) {
				params = append(params, in)
			}
		}
		for j, path := range leavesOf(g.Result) {
			in, check := carried(path)
			if in == nil {
				continue
			}
			if p := slices.Index(params, in); p >= 0 {
				loop.Aliases[p] = j
			}
			if check {
				loop.Finite = append(loop.Finite, j)
			}
		}
		spec = *loop
		x.aliases = loop.Aliases
	}
	low, err := stablehlo.LowerLoop(g, spec)
	if err != nil {
		return err
	}
	x.stats.Lower = time.Since(start)
	if err := b.compileProgram(x, "", low); err != nil {
		return err
	}
	x.stats.Executables = 1
	return nil
}

// compileText compiles a module; tests replace it to play a plugin that
// rejects a module.
var compileText = (*pjrt.Client).Compile

// compileProgram compiles low, the module of kernel (of the whole graph
// when kernel is ""), and appends it to x's programs. A compile error is
// a compileError and names the kernel.
func (b *Backend) compileProgram(x *Executable, kernel string, low *stablehlo.Lowered) error {
	hits, _ := b.client.CacheStats()
	exe, err := compileText(b.client, low.Text)
	if err != nil {
		if kernel != "" {
			return fmt.Errorf("xla: kernel %s: %w", kernel, compileError{err})
		}
		return fmt.Errorf("xla: %w", compileError{err})
	}
	if h, _ := b.client.CacheStats(); h > hits {
		x.stats.CacheHits++
	}
	x.stats.Compile += exe.CompileTime()
	x.progs = append(x.progs, &program{kernel: kernel, low: low, exe: exe})
	return nil
}

// Stats reports what compiling cost.
func (x *Executable) Stats() Stats { return x.stats }

// Describe says how the graph was compiled: the executables, whether the
// plugin rejected the whole module (and why), and each kernel that fell
// back to its unfused form, with the reason.
func (x *Executable) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d kernels, %d executables\n", x.backend.Name(), len(x.graph.Kernels), len(x.progs))
	if x.stats.Whole != "" {
		fmt.Fprintf(&b, "one executable per kernel: the plugin rejected the whole module: %s\n", x.stats.Whole)
	}
	for _, f := range x.stats.Fallbacks {
		fmt.Fprintf(&b, "fallback: %v\n", f)
	}
	return b.String()
}

// Texts returns the StableHLO text of each executable, in order.
func (x *Executable) Texts() []string {
	out := make([]string, len(x.progs))
	for i, p := range x.progs {
		out[i] = p.low.Text
	}
	return out
}

// Close releases the executable. The compiled programs stay in the
// client's cache (pjrt caches by text) and are freed with the client.
func (x *Executable) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	return nil
}

// Run binds the program's inputs by name, as graph.Eval does (arrays of any
// strides), runs the executable(s) and returns the result: a new row-major
// *graph.Array, a graph.ScalarValue, or a graph.TupleValue of them.
func (x *Executable) Run(inputs map[string]graph.Value) (graph.Value, error) {
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return nil, errors.New("xla: run after Close")
	}
	bound, err := bind(x.graph.Inputs, inputs)
	if err != nil {
		return nil, err
	}
	if !x.perKernel {
		return x.runFused(bound)
	}
	return x.runPerKernel(bound)
}

func (x *Executable) runFused(bound map[*graph.Input]graph.Value) (graph.Value, error) {
	p := x.progs[0]
	args := make([]graph.Value, len(p.low.Params))
	for i, leaf := range p.low.Params {
		v, err := leafOf(bound[leaf.Buffer], leaf.Path)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %v", leaf.Buffer.Name, err)
		}
		args[i] = v
	}
	outs, err := p.exe.Run(args...)
	if err != nil {
		return nil, fmt.Errorf("xla: %w", err)
	}
	return assemble(x.graph.Result.Type, outs)
}

func (x *Executable) runPerKernel(bound map[*graph.Input]graph.Value) (graph.Value, error) {
	c := x.backend.client
	bufs := map[*graph.Input][]*pjrt.Buffer{}
	var ups []*pjrt.Buffer
	defer func() {
		for _, b := range ups {
			b.Destroy()
		}
	}()
	for _, in := range x.graph.Inputs {
		for _, leaf := range leavesOf(in) {
			v, err := leafOf(bound[in], leaf)
			if err != nil {
				return nil, fmt.Errorf("xla: input %s: %v", in.Name, err)
			}
			b, err := c.ToDevice(v)
			if err != nil {
				return nil, fmt.Errorf("xla: input %s: %w", in.Name, err)
			}
			ups = append(ups, b)
			bufs[in] = append(bufs[in], b)
		}
	}
	res, err := runKernels(x, bufs)
	if err != nil {
		return nil, err
	}
	vals := make([]graph.Value, len(res))
	for i, b := range res {
		v, err := b.ToHost()
		if err != nil {
			err = fmt.Errorf("xla: result: %w", err)
		}
		vals[i] = v
		if err != nil {
			for _, b := range res {
				b.Destroy()
			}
			return nil, err
		}
	}
	for _, b := range res {
		b.Destroy()
	}
	return assemble(x.graph.Result.Type, vals)
}

// runKernels runs x's executables one per kernel on bufs, the program's
// inputs on the device (which it does not free), and returns the result's
// buffers, which the caller frees; the intermediates are freed as soon as
// the last kernel that reads them ran.
func runKernels(x *Executable, bufs map[*graph.Input][]*pjrt.Buffer) ([]*pjrt.Buffer, error) {
	var made []*pjrt.Buffer
	ok := false
	defer func() {
		if !ok {
			for _, b := range made {
				b.Destroy()
			}
		}
	}()
	// The last kernel that reads each buffer, so that temporaries are
	// freed as soon as they are dead.
	last := map[*graph.Input]int{}
	for i, k := range x.graph.Kernels {
		for _, in := range k.Inputs {
			last[in] = i
		}
	}
	for i, k := range x.graph.Kernels {
		p := x.progs[i]
		var args []*pjrt.Buffer
		for _, in := range k.Inputs {
			bs, ok := bufs[in]
			if !ok {
				return nil, fmt.Errorf("xla: kernel %s reads %s, which nothing provides", k.Name, in.Name)
			}
			args = append(args, bs...)
		}
		outs, err := p.exe.RunBuffers(args, nil)
		if err != nil {
			return nil, fmt.Errorf("xla: kernel %s: %w", k.Name, err)
		}
		made = append(made, outs...)
		bufs[k.Output] = outs
		for _, in := range k.Inputs {
			if last[in] == i && in != x.graph.Result && !slices.Contains(x.graph.Inputs, in) {
				for _, b := range bufs[in] {
					b.Destroy()
				}
			}
		}
	}
	res := bufs[x.graph.Result]
	for _, b := range made {
		if !slices.Contains(res, b) {
			b.Destroy()
		}
	}
	ok = true
	return res, nil
}

// bind checks the inputs against the program's (graph.BindInputs): every
// one bound, none extra, each of its declared element type and extents.
func bind(ins []*graph.Input, inputs map[string]graph.Value) (map[*graph.Input]graph.Value, error) {
	out, err := graph.BindInputs(ins, inputs)
	if err != nil {
		return nil, fmt.Errorf("xla: %w", err)
	}
	return out, nil
}

// leavesOf lists the tuple paths of in's leaves, as stablehlo.Lowered does.
func leavesOf(in *graph.Input) [][]int {
	var out [][]int
	var walk func(t graph.Type, path []int)
	walk = func(t graph.Type, path []int) {
		if tt, ok := t.(*graph.TupleType); ok {
			for i, e := range tt.Elems {
				walk(e, append(slices.Clone(path), i))
			}
			return
		}
		out = append(out, path)
	}
	walk(in.Type, nil)
	return out
}

func leafOf(v graph.Value, path []int) (graph.Value, error) {
	for _, i := range path {
		t, ok := v.(graph.TupleValue)
		if !ok || i >= len(t) {
			return nil, fmt.Errorf("tuple element %d missing", i)
		}
		v = t[i]
	}
	return v, nil
}

// assemble rebuilds a value of type t from its leaves, in order.
func assemble(t graph.Type, leaves []graph.Value) (graph.Value, error) {
	v, rest, err := assemble1(t, leaves)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("xla: %d results left over for a value of type %v", len(rest), t)
	}
	return v, nil
}

func assemble1(t graph.Type, leaves []graph.Value) (graph.Value, []graph.Value, error) {
	if tt, ok := t.(*graph.TupleType); ok {
		out := make(graph.TupleValue, len(tt.Elems))
		for i, e := range tt.Elems {
			var err error
			if out[i], leaves, err = assemble1(e, leaves); err != nil {
				return nil, nil, err
			}
		}
		return out, leaves, nil
	}
	if len(leaves) == 0 {
		return nil, nil, fmt.Errorf("xla: too few results for a value of type %v", t)
	}
	return leaves[0], leaves[1:], nil
}
