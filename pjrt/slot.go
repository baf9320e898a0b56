package pjrt

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// InputSlot is the device buffer of one input that a program takes anew on
// each run (a batch of data), reused from run to run. On a CPU plugin the
// slot's buffer is a view of host memory (PJRT's
// CreateViewOfDeviceBuffer): Set copies the value into that memory, once,
// and PJRT reads it there, so a run neither allocates a buffer nor copies
// the input a second time. On other plugins Set uploads the value into a
// new buffer and frees the previous one.
//
// Set waits for runs that read the slot's buffer; a slot is meant for one
// caller at a time (xla.Session serialises its runs).
type InputSlot struct {
	client *Client
	typ    TensorType
	buf    *Buffer // the current value's buffer; nil before the first Set
	mem    []byte  // buf's memory when it is a view of host memory
}

// NewInputSlot makes a slot for inputs of type t.
func (c *Client) NewInputSlot(t TensorType) (*InputSlot, error) {
	s := &InputSlot{client: c, typ: TensorType{DType: t.DType, Dims: append([]int{}, t.Dims...)}}
	if _, ok := mlirElem[t.DType]; !ok {
		return nil, fmt.Errorf("pjrt: input slot: element type %v is not supported", t.DType)
	}
	if c.Platform() != "cpu" || t.Size() == 0 {
		return s, nil
	}
	co, err := c.use("input slot")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	nb, mem, err := co.native.shared(s.typ)
	if err != nil {
		// A plugin without host-memory views: upload on each Set.
		return s, nil
	}
	s.buf, s.mem = c.newBuffer(co, nb, s.typ), mem
	return s, nil
}

// Shared reports whether the slot's buffer is a view of host memory, which
// Set fills without an upload.
func (s *InputSlot) Shared() bool { return s != nil && s.mem != nil }

// Type is the type of the slot's inputs.
func (s *InputSlot) Type() TensorType { return s.typ }

// Set puts v, of the slot's type, on the device and returns the buffer
// that holds it: the slot's own (valid until the next Set or Close; do not
// donate it), copied into without an allocation for a row-major f32 or f64
// array on a CPU plugin.
func (s *InputSlot) Set(v graph.Value) (*Buffer, error) {
	if s == nil || s.client == nil {
		return nil, errors.New("pjrt: input slot: not made by NewInputSlot")
	}
	if err := checkValueType(v, s.typ); err != nil {
		return nil, fmt.Errorf("pjrt: input slot: %w", err)
	}
	if s.mem == nil {
		b, err := s.client.ToDevice(v)
		if err != nil {
			return nil, err
		}
		if s.buf != nil {
			s.buf.Destroy()
		}
		s.buf = b
		return b, nil
	}
	data, ok := rowMajorBytes(v)
	if !ok {
		h, err := toHost(v)
		if err != nil {
			return nil, fmt.Errorf("pjrt: input slot: %v", err)
		}
		data = h.data
	}
	st := s.buf.st
	st.mu.Lock() // waits for runs reading the buffer
	defer st.mu.Unlock()
	if st.nb == nil {
		return nil, fmt.Errorf("pjrt: input slot: its buffer was %s", st.gone)
	}
	if s.client.isClosed() {
		return nil, fmt.Errorf("pjrt: input slot: %w", ErrClosed)
	}
	copy(s.mem, data)
	return s.buf, nil
}

// Close frees the slot's buffer (and its host memory).
func (s *InputSlot) Close() error {
	if s == nil || s.buf == nil {
		return nil
	}
	s.buf.Destroy()
	s.buf, s.mem = nil, nil
	return nil
}

// checkValueType checks that v is an array or scalar of type t without
// allocating.
func checkValueType(v graph.Value, t TensorType) error {
	switch v := v.(type) {
	case *graph.Array:
		if v == nil {
			return errors.New("nil array")
		}
		ok := v.DType() == t.DType && v.Layout().Rank() == len(t.Dims)
		for i := 0; ok && i < len(t.Dims); i++ {
			ok = v.Layout()[i].Extent == t.Dims[i]
		}
		if !ok {
			return fmt.Errorf("got %s, want %s", describeValue(v), t)
		}
		return nil
	case graph.ScalarValue:
		if v.DType != t.DType || len(t.Dims) != 0 {
			return fmt.Errorf("got %s, want %s", describeValue(v), t)
		}
		return nil
	}
	return fmt.Errorf("got %s, want %s", describeValue(v), t)
}

// CopyTo copies the buffer into dst, a row-major f32 or f64 array of the
// buffer's type (a result's storage that a caller reuses from run to
// run): no allocation on the Go side.
func (b *Buffer) CopyTo(dst *graph.Array) error {
	if b == nil || b.st == nil {
		return errors.New("pjrt: copy to host: buffer not made by ToDevice or RunBuffers")
	}
	if err := checkValueType(dst, b.typ); err != nil {
		return fmt.Errorf("pjrt: copy to host: destination: %w", err)
	}
	data, ok := rowMajorBytes(dst)
	if !ok {
		return fmt.Errorf("pjrt: copy to host: the destination is %s; want a row-major f32 or f64 array (or use ToHost)", describeValue(dst))
	}
	n := b.typ.Size()
	st := b.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.nb == nil {
		return fmt.Errorf("pjrt: copy to host: buffer was %s", st.gone)
	}
	co, err := b.client.use("copy to host")
	if err != nil {
		return err
	}
	defer co.rw.RUnlock()
	if n == 0 {
		return nil
	}
	if err := co.native.readInto(st.nb, data); err != nil {
		return fmt.Errorf("pjrt: copy to host: %w", err)
	}
	return nil
}

// rowMajorBytes returns the bytes of a row-major f32 or f64 array, in
// place, without allocating; ok is false for any other value.
func rowMajorBytes(v graph.Value) (data []byte, ok bool) {
	a, isArray := v.(*graph.Array)
	if !isArray || a == nil {
		return nil, false
	}
	l := a.Layout()
	stride := 1
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].Extent != 1 && l[i].Stride != stride {
			return nil, false
		}
		stride *= l[i].Extent
	}
	n, off := l.Size(), a.Offset()
	switch a.DType() {
	case graph.Float32:
		return asBytes(a.Float32s()[off : off+n]), true
	case graph.Float64:
		return asBytes(a.Float64s()[off : off+n]), true
	}
	return nil, false
}

// Call runs one executable again and again on device buffers, reading its
// results straight into host values, with what a run needs on the Go side
// (the lists of inputs and locks) kept from one run to the next: a
// steady-state run allocates only what go-xla allocates to execute. A Call
// is for one caller at a time.
type Call struct {
	e     *Executable
	locks []bufLock
	nbs   []nativeBuf
	// Executed is when the last run's execution ended and its results
	// began to be read.
	Executed time.Time
}

// NewCall makes a Call of e.
func (e *Executable) NewCall() *Call { return &Call{e: e} }

// Run runs the program on inputs (checked as in RunBuffers; none donated)
// and reads result i into out[i]: in place when out[i] is a row-major f32
// or f64 array of the result's type (a caller's storage reused from run to
// run), else into a new value stored in out[i]. The device results are
// freed before Run returns.
func (c *Call) Run(inputs []*Buffer, out []graph.Value) error {
	e := c.e
	if !e.valid() {
		return errNotCompiled
	}
	params, results := e.x.sig.params, e.x.sig.results
	if len(inputs) != len(params) {
		return fmt.Errorf("pjrt: run: got %d inputs, the program takes %d", len(inputs), len(params))
	}
	if len(out) != len(results) {
		return fmt.Errorf("pjrt: run: %d places for the program's %d results", len(out), len(results))
	}
	c.locks = c.locks[:0]
	for i, b := range inputs {
		if b == nil || b.st == nil {
			return fmt.Errorf("pjrt: run: %s: nil buffer", e.argName(i))
		}
		if b.st.core != e.client.core {
			return fmt.Errorf("pjrt: run: %s: buffer belongs to another plugin client", e.argName(i))
		}
		if err := e.checkArg(i, b.typ, "buffer"); err != nil {
			return err
		}
		if !slices.ContainsFunc(c.locks, func(l bufLock) bool { return l.st == b.st }) {
			c.locks = append(c.locks, bufLock{st: b.st})
		}
	}
	// Read locks only: their order does not matter.
	for _, l := range c.locks {
		l.st.mu.RLock()
	}
	defer func() {
		for _, l := range c.locks {
			l.st.mu.RUnlock()
		}
		clear(c.locks)
	}()
	c.nbs = c.nbs[:0]
	for i, b := range inputs {
		if b.st.nb == nil {
			return fmt.Errorf("pjrt: run: %s: buffer was %s", e.argName(i), b.st.gone)
		}
		c.nbs = append(c.nbs, b.st.nb)
	}
	defer clear(c.nbs)
	co, err := e.client.use("run")
	if err != nil {
		return err
	}
	defer co.rw.RUnlock()
	n := co.native
	outs, err := n.execute(e.x.exe, c.nbs, nil)
	c.Executed = time.Now()
	if err != nil {
		return fmt.Errorf("pjrt: run: %w", deviceError(err))
	}
	var errs []error
	for i, o := range outs {
		if data, ok := rowMajorBytes(out[i]); ok && checkValueType(out[i], results[i]) == nil {
			if len(data) > 0 {
				if err := n.readInto(o, data); err != nil {
					errs = append(errs, fmt.Errorf("pjrt: run: result %d: %w", i, err))
				}
			}
		} else if v, err := n.download(o, results[i]); err != nil {
			errs = append(errs, fmt.Errorf("pjrt: run: result %d: %w", i, err))
		} else {
			out[i] = v
		}
		n.freeBuf(o)
	}
	return errors.Join(errs...)
}
