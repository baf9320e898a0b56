package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
)

// byteSize is a flag value of bytes with an optional unit: 4GiB, 512MiB,
// 1.5GB, 65536. Binary units (KiB, MiB, GiB, TiB) are powers of 1024,
// decimal ones (KB, MB, GB, TB) powers of 1000; B is bytes. Units are
// case-insensitive. 0 means "not given".
type byteSize int64

var byteUnits = []struct {
	name string
	mul  float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

// Set parses s; see byteSize.
func (b *byteSize) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	mul := 1.0
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.name); ok {
			t, mul = strings.TrimSpace(num), u.mul
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%q is not a size in bytes; write e.g. 4GiB, 512MiB or 1000000", s)
	case x*mul < 1:
		return fmt.Errorf("%q: the limit must be at least 1 byte", s)
	case x*mul >= math.MaxInt64:
		return fmt.Errorf("%q is more bytes than fit in an int64", s)
	}
	*b = byteSize(x * mul)
	return nil
}

// String prints the size in the largest binary unit that divides it.
func (b byteSize) String() string {
	if b == 0 {
		return ""
	}
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if int64(b)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

// runFlags are the flags of the commands that run programs (eval, demo)
// that go to the back ends.
type runFlags struct {
	threads   int      // native executor goroutines; 0: GOMAXPROCS
	maxMemory byteSize // --max-memory; 0: the library's default limit
}

func (r *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&r.threads, "threads", 0, "native executor goroutines (0: GOMAXPROCS)")
	fs.Var(&r.maxMemory, "max-memory", "refuse to run a program whose buffers need more than `bytes` (e.g. 4GiB, 512MiB; default: the library's limit)")
}

// check validates the flags.
func (r *runFlags) check() error {
	if r.threads < 0 {
		return usagef("--threads %d: must be at least 0 (0: GOMAXPROCS)", r.threads)
	}
	return nil
}

// nativeOptions are the native back end's options from the flags.
func (r *runFlags) nativeOptions() native.Options {
	return native.Options{Parallelism: r.threads, MaxMemory: int64(r.maxMemory)}
}

// evalInterp runs the reference interpreter under --max-memory; it is the
// only call of graph.Eval in eval and demo.
func (r *runFlags) evalInterp(n graph.Node, in map[string]graph.Value) (graph.Value, error) {
	v, err := graph.EvalWith(n, in, graph.EvalOptions{MaxMemory: int64(r.maxMemory)})
	return v, r.memoryError(err)
}

// checkMemory refuses, before any input is generated, a program whose
// evaluation graph.EvalBytes estimates past --max-memory.
func (r *runFlags) checkMemory(info *graph.Info) error {
	limit := int64(r.maxMemory)
	if limit == 0 {
		limit = graph.DefaultMemoryLimit
	}
	if need := graph.EvalBytes(info); need > limit {
		return &graph.MemoryError{What: "evaluating the program", Bytes: need, Limit: limit, Raise: "--max-memory"}
	}
	return nil
}

// memoryError makes a library's memory refusal name the flag that raises
// the limit instead of the library's option. The messages of the errors
// wrapped around the refusal were fixed when they were made, so the text is
// reworded as a whole; the refusal stays reachable with errors.As.
func (r *runFlags) memoryError(err error) error {
	me, ok := errors.AsType[*graph.MemoryError](err)
	if !ok || me.Raise == "" || me.Raise == "--max-memory" {
		return err
	}
	return &reworded{msg: strings.ReplaceAll(err.Error(), "raise "+me.Raise, "raise --max-memory"), err: err}
}

// reworded is an error whose text says the same as err's in the command's
// words.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// transferSplit is where a PJRT row's run time goes: medians over the
// timed runs of copying the data inputs to the device, executing, and
// copying the result back. The parameters were copied once, before.
type transferSplit struct {
	TransferInMs  float64 `json:"transfer_in_ms"`
	ExecuteMs     float64 `json:"execute_ms"`
	TransferOutMs float64 `json:"transfer_out_ms"`
}

// splitter collects a PJRT session's or loop's timings run by run; nil
// for a back end that has none.
type splitter struct {
	timing        func() xla.Timing
	in, exec, out []float64
}

// record appends the last run's timing.
func (sp *splitter) record() {
	if sp == nil {
		return
	}
	t := sp.timing()
	sp.in, sp.exec, sp.out = append(sp.in, ms(t.In)), append(sp.exec, ms(t.Execute)), append(sp.out, ms(t.Out))
}

func (sp *splitter) medians() *transferSplit {
	if sp == nil || len(sp.in) == 0 {
		return nil
	}
	med := func(xs []float64) float64 {
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	return &transferSplit{TransferInMs: med(sp.in), ExecuteMs: med(sp.exec), TransferOutMs: med(sp.out)}
}

// bindParams returns how to run exe on in: a PJRT executable has the
// inputs that are parameters (graph.Input.Param) bound once, on the
// device, and each run copies the others; a native plan has them fixed
// (native.Plan.FixInputs: their products keep them packed from run to
// run, as ONNX Runtime does with a model's initializers); any other runs
// exe.Run(in).
func bindParams(exe lowering.Executable, g *fusion.Graph, in map[string]graph.Value) (run func() (graph.Value, error), split *splitter, done func(), err error) {
	if p, ok := exe.(*native.Plan); ok {
		var params []string
		for _, i := range g.Inputs {
			if i.Param {
				params = append(params, i.Name)
			}
		}
		if err := p.FixInputs(params...); err != nil {
			return nil, nil, nil, err
		}
	}
	x, ok := exe.(*xla.Executable)
	if !ok {
		return func() (graph.Value, error) { return exe.Run(in) }, nil, func() {}, nil
	}
	params, data := map[string]graph.Value{}, map[string]graph.Value{}
	for _, i := range g.Inputs {
		if i.Param {
			params[i.Name] = in[i.Name]
		} else {
			data[i.Name] = in[i.Name]
		}
	}
	s, err := x.BindSession(params)
	if err != nil {
		return nil, nil, nil, err
	}
	return func() (graph.Value, error) { return s.Run(data) }, &splitter{timing: s.Timing}, func() { s.Close() }, nil
}

// autoBackend is --backend auto on a loaded plugin: it compiles on PJRT,
// and a program the plugin rejects on the native executor instead, with a
// one-line notice.
type autoBackend struct {
	pjrt, native lowering.Backend
	stderr       io.Writer
}

func (a *autoBackend) Name() string { return a.pjrt.Name() }

func (a *autoBackend) Compile(g *fusion.Graph) (lowering.Executable, error) {
	exe, err := a.pjrt.Compile(g)
	if err == nil {
		return exe, nil
	}
	fmt.Fprintf(a.stderr, "hofuse: PJRT cannot run this program (%s); using the native executor\n", firstLine(err))
	return a.native.Compile(g)
}

// firstLine is the first line of err's message.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
