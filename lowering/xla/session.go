package xla

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/pjrt"
)

var _ lowering.Binder = (*Executable)(nil)

// Session runs an Executable with some of its inputs, the parameters,
// kept on the device: Bind copies them there once (SetParams again, for
// the ones that changed), and each Run copies only the other inputs, the
// data, to the device and only the result back.
//
// When host values are copied:
//   - Bind and SetParams copy each parameter given to the device, once.
//   - Run copies each data input to the device: on a CPU plugin into an
//     input buffer made at Bind and reused by every run (one copy, no
//     allocation), elsewhere into a new device buffer per run.
//   - Run copies the result back into host arrays made at the first run
//     and reused by every later one: the result stays valid until the next
//     Run or Close (graph.CopyValue keeps it).
//
// A steady-state run of a program whose inputs are row-major f32 or f64
// arrays and whose result is one such array allocates on the Go side only
// what go-xla allocates to run a program (see BenchmarkSessionMLP).
//
// Runs are serialised; a Session is safe for concurrent use.
type Session struct {
	x *Executable

	params map[*graph.Input][]*pjrt.Buffer // the bound parameters' leaves on the device
	byName map[string]*graph.Input         // every input of the program
	data   []*graph.Input                  // the inputs each Run takes

	// fused mode: one slot per parameter of main that is data
	slots []*pjrt.InputSlot // per parameter of main; nil for a bound one
	args  []*pjrt.Buffer    // reused between runs
	call  *pjrt.Call        // the run, its lists reused
	reuse []bool            // per result leaf: host storage in out, read into in place

	// per-kernel mode: one slot per leaf of each data input
	leafSlots map[*graph.Input][]*pjrt.InputSlot

	out   []*graph.Array // per result leaf, reused; nil for a leaf read anew (not f32/f64, or rank 0)
	host  []graph.Value  // per result leaf, this run's
	last  Timing
	mu    sync.Mutex
	shut  bool
	outOK bool // out is made
}

// Timing is where one run's time went.
type Timing struct {
	In      time.Duration // copying the data inputs to the device
	Execute time.Duration // running the executable(s), until their results are ready
	Out     time.Duration // copying the result to the host
}

// Bind implements lowering.Binder: it is BindSession.
func (x *Executable) Bind(params map[string]graph.Value) (lowering.Bound, error) {
	return x.BindSession(params)
}

// BindSession copies params, values of some of the program's inputs (its
// parameters), to the device and returns a Session that runs the program
// on them. Every other input is data, given to each Run. A name that is not
// an input, or a value of the wrong type, is an error that names it.
func (x *Executable) BindSession(params map[string]graph.Value) (*Session, error) {
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return nil, errors.New("xla: bind after Close")
	}
	s := &Session{x: x, params: map[*graph.Input][]*pjrt.Buffer{}, byName: map[string]*graph.Input{}}
	for _, in := range x.graph.Inputs {
		s.byName[in.Name] = in
	}
	for name := range params {
		if s.byName[name] == nil {
			return nil, fmt.Errorf("xla: bind: %s is not an input of the program (its inputs: %s)", name, inputNames(x.graph.Inputs))
		}
	}
	if err := s.SetParams(params); err != nil {
		s.Close()
		return nil, err
	}
	for _, in := range x.graph.Inputs {
		if _, ok := params[in.Name]; !ok {
			s.data = append(s.data, in)
		}
	}
	if err := s.makeSlots(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func inputNames(ins []*graph.Input) string {
	var b []byte
	for i, in := range ins {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, in.Name...)
	}
	return string(b)
}

// makeSlots makes the input buffers of the data inputs.
func (s *Session) makeSlots() error {
	c := s.x.backend.client
	slot := func(in *graph.Input, path []int) (*pjrt.InputSlot, error) {
		t, err := leafType(in.Type, path)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %v", in.Name, err)
		}
		sl, err := c.NewInputSlot(t)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %w", in.Name, err)
		}
		return sl, nil
	}
	if !s.x.perKernel {
		p := s.x.progs[0]
		s.slots = make([]*pjrt.InputSlot, len(p.low.Params))
		s.args = make([]*pjrt.Buffer, len(p.low.Params))
		for i, leaf := range p.low.Params {
			if s.params[leaf.Buffer] != nil {
				continue
			}
			var err error
			if s.slots[i], err = slot(leaf.Buffer, leaf.Path); err != nil {
				return err
			}
		}
		return nil
	}
	s.leafSlots = map[*graph.Input][]*pjrt.InputSlot{}
	for _, in := range s.data {
		for _, path := range leavesOf(in) {
			sl, err := slot(in, path)
			if err != nil {
				return err
			}
			s.leafSlots[in] = append(s.leafSlots[in], sl)
		}
	}
	return nil
}

// leafType is the tensor type of the leaf of t at path.
func leafType(t graph.Type, path []int) (pjrt.TensorType, error) {
	for _, i := range path {
		tt, ok := t.(*graph.TupleType)
		if !ok || i >= len(tt.Elems) {
			return pjrt.TensorType{}, fmt.Errorf("no tuple element %d in %v", i, t)
		}
		t = tt.Elems[i]
	}
	switch t := t.(type) {
	case *graph.ArrayType:
		return pjrt.TensorType{DType: t.DType, Dims: t.Layout.Extents()}, nil
	case *graph.ScalarType:
		return pjrt.TensorType{DType: t.DType, Dims: []int{}}, nil
	}
	return pjrt.TensorType{}, fmt.Errorf("%v is not an array or a scalar", t)
}

// SetParams copies new values of bound parameters to the device, replacing
// the old ones; parameters not named keep their values. A name that is not
// an input, or that was bound as data, is an error.
func (s *Session) SetParams(values map[string]graph.Value) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return errors.New("xla: session: set parameters after Close")
	}
	c := s.x.backend.client
	next := map[*graph.Input][]*pjrt.Buffer{}
	fail := func(err error) error {
		for _, bs := range next {
			for _, b := range bs {
				b.Destroy()
			}
		}
		return err
	}
	for name, v := range values {
		in := s.byName[name]
		if in == nil {
			return fail(fmt.Errorf("xla: session: %s is not an input of the program", name))
		}
		if s.data != nil && s.params[in] == nil {
			return fail(fmt.Errorf("xla: session: %s was bound as data, not a parameter; give it to Run", name))
		}
		if err := graph.CheckValue(in.Type, v); err != nil {
			return fail(fmt.Errorf("xla: session: parameter %s: %w", name, err))
		}
		for _, path := range leavesOf(in) {
			leaf, err := leafOf(v, path)
			if err != nil {
				return fail(fmt.Errorf("xla: session: parameter %s: %v", name, err))
			}
			b, err := c.ToDevice(leaf)
			if err != nil {
				return fail(fmt.Errorf("xla: session: parameter %s: %w", name, err))
			}
			next[in] = append(next[in], b)
		}
	}
	for in, bs := range next {
		for _, b := range s.params[in] {
			b.Destroy()
		}
		s.params[in] = bs
	}
	return nil
}

// Timing is where the last run's time went.
func (s *Session) Timing() Timing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Executable is the compiled program the session runs.
func (s *Session) Executable() *Executable { return s.x }

// Close frees the parameters and the input buffers on the device. The
// Executable stays usable.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return nil
	}
	s.shut = true
	for _, bs := range s.params {
		for _, b := range bs {
			b.Destroy()
		}
	}
	for _, sl := range s.slots {
		sl.Close()
	}
	for _, sls := range s.leafSlots {
		for _, sl := range sls {
			sl.Close()
		}
	}
	s.params, s.slots, s.leafSlots = nil, nil, nil
	return nil
}

// Run copies the data inputs to the device, runs the program on them and
// the bound parameters, and returns the result in host storage the session
// reuses (valid until the next Run or Close). Every data input must be
// given, and nothing else: a parameter is an error saying to use
// SetParams.
func (s *Session) Run(inputs map[string]graph.Value) (graph.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return nil, errors.New("xla: session: run after Close")
	}
	start := time.Now()
	if err := s.checkInputs(inputs); err != nil {
		return nil, err
	}
	if !s.x.perKernel {
		return s.runFused(inputs, start)
	}
	inDone, outs, err := s.runPerKernel(inputs)
	if err != nil {
		return nil, err
	}
	execDone := time.Now()
	v, err := s.collect(outs)
	end := time.Now()
	s.last = Timing{In: inDone.Sub(start), Execute: execDone.Sub(inDone), Out: end.Sub(execDone)}
	return v, err
}

// checkInputs checks that inputs names every data input and nothing else.
func (s *Session) checkInputs(inputs map[string]graph.Value) error {
	for _, in := range s.data {
		if _, ok := inputs[in.Name]; !ok {
			return fmt.Errorf("xla: session: no value for input %s", in.Name)
		}
	}
	if len(inputs) == len(s.data) {
		return nil
	}
	for name := range inputs {
		in := s.byName[name]
		switch {
		case in == nil:
			return fmt.Errorf("xla: session: %s is not an input of the program", name)
		case s.params[in] != nil:
			return fmt.Errorf("xla: session: %s is a bound parameter: change it with SetParams, not Run", name)
		}
	}
	return nil
}

// runFused runs the one executable through a pjrt.Call, which reads the
// results into the session's host arrays as they come off the device.
func (s *Session) runFused(inputs map[string]graph.Value, start time.Time) (graph.Value, error) {
	p := s.x.progs[0]
	var next map[*graph.Input]int // the next leaf of a bound tuple
	for i, leaf := range p.low.Params {
		if bs := s.params[leaf.Buffer]; bs != nil {
			if len(bs) == 1 {
				s.args[i] = bs[0]
				continue
			}
			if next == nil {
				next = map[*graph.Input]int{}
			}
			s.args[i] = bs[next[leaf.Buffer]]
			next[leaf.Buffer]++
			continue
		}
		v, err := leafOf(inputs[leaf.Buffer.Name], leaf.Path)
		if err != nil {
			return nil, fmt.Errorf("xla: input %s: %v", leaf.Buffer.Name, err)
		}
		if s.args[i], err = s.slots[i].Set(v); err != nil {
			return nil, fmt.Errorf("xla: input %s: %w", leaf.Buffer.Name, err)
		}
	}
	if s.call == nil {
		s.call = p.exe.NewCall()
		if err := s.makeOut(p.exe.Results()); err != nil {
			return nil, err
		}
	}
	for i, r := range s.reuse {
		if r {
			s.host[i] = s.out[i]
		} else {
			s.host[i] = nil
		}
	}
	inDone := time.Now()
	err := s.call.Run(s.args, s.host)
	end := time.Now()
	clear(s.args)
	s.last = Timing{In: inDone.Sub(start), Execute: s.call.Executed.Sub(inDone), Out: end.Sub(s.call.Executed)}
	if err != nil {
		return nil, fmt.Errorf("xla: %w", err)
	}
	return s.result()
}

// makeOut makes the host arrays results of types ts are read into: one
// per f32 or f64 array result.
func (s *Session) makeOut(ts []pjrt.TensorType) error {
	s.out = make([]*graph.Array, len(ts))
	s.host = make([]graph.Value, len(ts))
	s.reuse = make([]bool, len(ts))
	for i, t := range ts {
		if len(t.Dims) == 0 || (t.DType != graph.Float32 && t.DType != graph.Float64) {
			continue
		}
		a, err := graph.Zeros(t.DType, t.Dims...)
		if err != nil {
			return err
		}
		s.out[i], s.reuse[i] = a, true
	}
	s.outOK = true
	return nil
}

// result is the program's result from its leaves in s.host.
func (s *Session) result() (graph.Value, error) {
	if len(s.host) == 1 {
		if _, ok := s.x.graph.Result.Type.(*graph.TupleType); !ok {
			return s.host[0], nil
		}
	}
	return assemble(s.x.graph.Result.Type, s.host)
}

func (s *Session) runPerKernel(inputs map[string]graph.Value) (time.Time, []*pjrt.Buffer, error) {
	bufs := map[*graph.Input][]*pjrt.Buffer{}
	for in, bs := range s.params {
		bufs[in] = bs
	}
	for _, in := range s.data {
		for j, path := range leavesOf(in) {
			v, err := leafOf(inputs[in.Name], path)
			if err != nil {
				return time.Time{}, nil, fmt.Errorf("xla: input %s: %v", in.Name, err)
			}
			b, err := s.leafSlots[in][j].Set(v)
			if err != nil {
				return time.Time{}, nil, fmt.Errorf("xla: input %s: %w", in.Name, err)
			}
			bufs[in] = append(bufs[in], b)
		}
	}
	inDone := time.Now()
	res, err := runKernels(s.x, bufs)
	return inDone, res, err
}

// collect copies the result's leaves to the host, into the session's
// arrays where it can, and frees them.
func (s *Session) collect(outs []*pjrt.Buffer) (graph.Value, error) {
	defer func() {
		for _, o := range outs {
			o.Destroy()
		}
	}()
	if !s.outOK {
		ts := make([]pjrt.TensorType, len(outs))
		for i, o := range outs {
			ts[i] = o.Type()
		}
		if err := s.makeOut(ts); err != nil {
			return nil, err
		}
	}
	for i, o := range outs {
		if a := s.out[i]; a != nil {
			if err := o.CopyTo(a); err != nil {
				return nil, fmt.Errorf("xla: result: %w", err)
			}
			s.host[i] = a
			continue
		}
		v, err := o.ToHost()
		if err != nil {
			return nil, fmt.Errorf("xla: result: %w", err)
		}
		s.host[i] = v
	}
	return s.result()
}
