package pjrt

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// ErrClosed is returned (wrapped) by every operation on a closed Client and
// on the executables and buffers it made.
var ErrClosed = errors.New("pjrt: client is closed")

// ErrNoCgo is returned by Open in a build without cgo.
var ErrNoCgo = errors.New("hofuse was built without cgo; PJRT needs cgo (CGO_ENABLED=1 and a C compiler)")

// A core is the one PJRT client of a plugin in this process, shared by
// every Client handle opened on that plugin's path.
//
// Locking: rw guards every call into C. Operations hold it for reading, so
// they run concurrently; shutdown holds it for writing, so it waits for
// them and no later call reaches a destroyed client. Buffer locks (bufState.mu)
// are taken before rw, never after.
type core struct {
	path string   // the plugin's real path, the registry key
	info coreInfo // read once at open
	rw   sync.RWMutex
	// closed is set, under rw held for writing, when the PJRT client is
	// destroyed.
	closed bool
	refs   int // open handles; under registryMu

	compileMu sync.Mutex             // serialises compiles and guards cache
	cache     map[[32]byte]*compiled // by sha256 of the StableHLO text
	native    *nativeClient          // the cgo side; nil in a !cgo build
}

// coreInfo is what a core reports about itself, read at open.
type coreInfo struct {
	platform   string
	major      int
	minor      int
	devices    []string
	attributes map[string]string
	options    string // the create options the plugin took, printed
}

// compiled is one compiled program, shared by the handles of a core.
type compiled struct {
	exe         nativeExec
	sig         *signature
	compileTime time.Duration
}

var (
	registryMu sync.Mutex
	registry   = map[string]*core{}
)

// Client is a handle on the PJRT client of one plugin. Open returns a new
// handle each time; handles on the same plugin file share one PJRT client
// and its compiled programs, which are freed when the last handle closes.
// A Client is safe for concurrent use.
type Client struct {
	core *core

	mu     sync.Mutex
	closed bool
	execs  map[[32]byte]*Executable // this handle's executables, by text hash
	hits   int
	misses int
}

// Open loads the plugin at pluginPath (an empty path means Locate("")) and
// returns a Client on it, with one device for a CPU plugin. A second Open of
// the same file (by any path that resolves to it) returns a new handle on
// the same PJRT client: a process never holds two PJRT clients of one
// plugin. (The XLA CPU plugin does allow several, but each brings its own
// thread pools.) Errors name the path.
//
// Before loading a file Open checks it (see pluginfile.Check): a truncated
// or corrupt plugin would crash the process inside dlopen, so one whose ELF
// tables or segments lie past its end, that is not an ELF library for this
// machine, or that has the size of a plugin recorded in plugins.json but
// not its sha256, is refused with a *DamagedError saying how to fix it.
//
// Open sets TF_CPP_MIN_LOG_LEVEL=1 when it is unset, which keeps the
// plugin's INFO log lines off stderr; set it to 0 to see them.
func Open(pluginPath string) (*Client, error) {
	if pluginPath == "" {
		p, err := Locate("")
		if err != nil {
			return nil, err
		}
		pluginPath = p
	}
	abs, err := filepath.Abs(pluginPath)
	if err != nil {
		return nil, fmt.Errorf("pjrt: open plugin %s: %v", pluginPath, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("pjrt: open plugin %s: %s; install the CPU plugin with: %s", abs, statReason(err), InstallCommand())
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("pjrt: open plugin %s: is a folder; give the plugin file (Locate finds it in a folder)", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("pjrt: open plugin %s: %v", abs, err)
	}

	registryMu.Lock()
	defer registryMu.Unlock()
	co := registry[real]
	if co == nil {
		if os.Getenv("TF_CPP_MIN_LOG_LEVEL") == "" {
			os.Setenv("TF_CPP_MIN_LOG_LEVEL", "1")
		}
		if cgoEnabled {
			if err := checkPlugin(abs, real); err != nil {
				return nil, err
			}
		}
		if err := setXLAFlags(); err != nil {
			return nil, err
		}
		n, info, err := openNative(real)
		if err != nil {
			var ve *versionError
			if errors.Is(err, ErrNoCgo) || errors.As(err, &ve) {
				return nil, err
			}
			return nil, loadError(abs, err)
		}
		co = &core{path: real, info: info, native: n, cache: map[[32]byte]*compiled{}}
		registry[real] = co
	}
	co.refs++
	return &Client{core: co, execs: map[[32]byte]*Executable{}}, nil
}

// Close releases the handle. When it is the last open handle on its plugin,
// it destroys the PJRT client with every compiled program and device
// buffer. It waits for runs in flight. Close is safe to call twice; after
// it every method of c, of its executables and of its buffers returns an
// error wrapping ErrClosed (Buffer.Destroy returns nil).
func (c *Client) Close() error {
	if c == nil || c.core == nil {
		return nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.execs = nil
	c.mu.Unlock()

	co := c.core
	registryMu.Lock()
	co.refs--
	last := co.refs == 0
	if last {
		delete(registry, co.path)
	}
	registryMu.Unlock()
	if !last {
		return nil
	}
	return co.shutdown()
}

func (co *core) shutdown() error {
	co.rw.Lock()
	defer co.rw.Unlock()
	if co.closed {
		return nil
	}
	co.closed = true
	co.compileMu.Lock()
	var errs []error
	for _, x := range co.cache {
		if err := co.native.destroyExec(x.exe); err != nil {
			errs = append(errs, err)
		}
	}
	co.cache = nil
	co.compileMu.Unlock()
	if err := co.native.close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pjrt: close plugin %s: %w", co.path, err)
	}
	return nil
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// use checks that c is open and returns its core with rw held for reading;
// the caller must call co.rw.RUnlock.
func (c *Client) use(op string) (*core, error) {
	if c == nil || c.core == nil {
		return nil, fmt.Errorf("pjrt: %s: client not made by Open", op)
	}
	if c.isClosed() {
		return nil, fmt.Errorf("pjrt: %s: %w", op, ErrClosed)
	}
	co := c.core
	co.rw.RLock()
	if co.closed {
		co.rw.RUnlock()
		return nil, fmt.Errorf("pjrt: %s: %w", op, ErrClosed)
	}
	return co, nil
}

// facts returns what the client read at open; the zero coreInfo for a
// Client not made by Open. It stays readable after Close.
func (c *Client) facts() coreInfo {
	if c == nil || c.core == nil {
		return coreInfo{}
	}
	return c.core.info
}

// PluginPath is the plugin file the client loaded (symbolic links
// resolved).
func (c *Client) PluginPath() string {
	if c == nil || c.core == nil {
		return ""
	}
	return c.core.path
}

// Platform is the PJRT platform name: "cpu", "cuda", ...
func (c *Client) Platform() string { return c.facts().platform }

// APIVersion is the PJRT C API version the plugin implements (0.81 for
// xla-cpu-pjrt 0.0.1).
func (c *Client) APIVersion() (major, minor int) { return c.facts().major, c.facts().minor }

// Devices names the client's addressable devices ("TFRT_CPU_0",
// "cuda:0"). Programs run on the first.
func (c *Client) Devices() []string { return slices.Clone(c.facts().devices) }

// CreateOptions are the options the client was created with, printed
// ("cpu_device_count=1", "preallocate=false"; "none" where the plugin took
// none of hofuse's).
func (c *Client) CreateOptions() string { return c.facts().options }

// Attributes are the plugin's attributes, printed:
// stablehlo_current_version "1.13.3", xla_version "2", ...
func (c *Client) Attributes() map[string]string {
	m := map[string]string{}
	for k, v := range c.facts().attributes {
		m[k] = v
	}
	return m
}

// StableHLOVersion is the newest StableHLO version the plugin parses, as
// "1.13.3", or "" when the plugin does not say.
func (c *Client) StableHLOVersion() string {
	return c.facts().attributes["stablehlo_current_version"]
}

// Compile compiles a StableHLO program given as MLIR text whose entry
// function is @main. Programs are cached by the sha256 of their text; the
// text encodes the shapes, so a new batch size is a new entry, compiled once
// and then reused. A hit returns the same *Executable as before. Compile
// errors carry the plugin path and XLA's message. The parameter and result
// types of @main must be static tensors of f32, f64, i32 or i1.
//
// Compiles are serialised per plugin.
func (c *Client) Compile(stablehlo string) (*Executable, error) {
	if c == nil || c.core == nil {
		return nil, fmt.Errorf("pjrt: compile: client not made by Open")
	}
	key := sha256.Sum256([]byte(stablehlo))
	c.mu.Lock()
	if e := c.execs[key]; e != nil {
		c.hits++
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()

	co, err := c.use("compile")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	co.compileMu.Lock()
	x, hit := co.cache[key]
	if !hit {
		x, err = co.compile(stablehlo)
		if err == nil {
			co.cache[key] = x
		}
	}
	co.compileMu.Unlock()
	if err != nil {
		return nil, err
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("pjrt: compile: %w", ErrClosed)
	}
	if e := c.execs[key]; e != nil { // compiled concurrently by this handle
		c.hits++
		return e, nil
	}
	if hit {
		c.hits++
	} else {
		c.misses++
	}
	e := &Executable{client: c, x: x}
	c.execs[key] = e
	return e, nil
}

func (co *core) compile(text string) (*compiled, error) {
	start := time.Now()
	exe, err := co.native.compile(text)
	elapsed := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("pjrt: compile with plugin %s: %w", co.path, err)
	}
	sig, err := parseSignature(text)
	if err == nil {
		var n int
		if n, err = co.native.numOutputs(exe); err == nil && n != len(sig.results) {
			err = fmt.Errorf("@main declares %d results but the executable has %d", len(sig.results), n)
		}
	}
	if err != nil {
		co.native.destroyExec(exe)
		return nil, fmt.Errorf("pjrt: compile with plugin %s: reading the signature: %w", co.path, err)
	}
	return &compiled{exe: exe, sig: sig, compileTime: elapsed}, nil
}

// CacheStats counts this handle's Compile calls that returned a program
// compiled before (hits, including programs another handle on the same
// plugin compiled) and those that compiled (misses).
func (c *Client) CacheStats() (hits, misses int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Executable is a compiled program. It belongs to the Client that compiled
// it and is freed with it; it is safe for concurrent use.
type Executable struct {
	client *Client
	x      *compiled
}

// CompileTime is how long PJRT took to compile the program (the first
// time; cache hits cost nothing).
func (e *Executable) CompileTime() time.Duration {
	if !e.valid() {
		return 0
	}
	return e.x.compileTime
}

// Params returns the types of @main's parameters, in order.
func (e *Executable) Params() []TensorType {
	if !e.valid() {
		return nil
	}
	return slices.Clone(e.x.sig.params)
}

// Results returns the types of @main's results, in order.
func (e *Executable) Results() []TensorType {
	if !e.valid() {
		return nil
	}
	return slices.Clone(e.x.sig.results)
}

// valid reports whether e was made by Compile.
func (e *Executable) valid() bool { return e != nil && e.x != nil && e.client != nil }

var errNotCompiled = errors.New("pjrt: run: executable not made by Compile")

// argName names parameter i for errors: "argument 1 (%w)".
func (e *Executable) argName(i int) string {
	if n := e.x.sig.paramNames[i]; n != "" {
		return fmt.Sprintf("argument %d (%s)", i, n)
	}
	return fmt.Sprintf("argument %d", i)
}

// checkArg checks that an input of type t fits parameter i.
func (e *Executable) checkArg(i int, t TensorType, what string) error {
	want := e.x.sig.params[i]
	if !t.Equal(want) {
		return fmt.Errorf("pjrt: run: %s: got %s (%s), the program takes %s", e.argName(i), what, t, want)
	}
	return nil
}

// Run copies the inputs to the device, runs the program and copies its
// results back as new values: a new row-major *graph.Array per result, or
// a graph.ScalarValue for a rank-0 result. Inputs are *graph.Array (any
// view; row-major float arrays are sent without an extra copy) or
// graph.ScalarValue, of f32, f64, i32 or bool. Their number, element types
// and extents are checked against @main's parameters before anything
// reaches PJRT (which checks only byte sizes); an error names the argument.
func (e *Executable) Run(inputs ...graph.Value) ([]graph.Value, error) {
	if !e.valid() {
		return nil, errNotCompiled
	}
	params := e.x.sig.params
	if len(inputs) != len(params) {
		return nil, fmt.Errorf("pjrt: run: got %d inputs, the program takes %d", len(inputs), len(params))
	}
	hosts := make([]hostTensor, len(inputs))
	for i, v := range inputs {
		t, err := valueType(v)
		if err != nil {
			return nil, fmt.Errorf("pjrt: run: %s: %v", e.argName(i), err)
		}
		if err := e.checkArg(i, t, describeValue(v)); err != nil {
			return nil, err
		}
		if hosts[i], err = toHost(v); err != nil {
			return nil, fmt.Errorf("pjrt: run: %s: %v", e.argName(i), err)
		}
	}

	co, err := e.client.use("run")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	n := co.native
	bufs := make([]nativeBuf, len(hosts))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				n.freeBuf(b)
			}
		}
	}()
	for i, h := range hosts {
		if bufs[i], err = n.upload(h); err != nil {
			return nil, fmt.Errorf("pjrt: run: %s: to device: %w", e.argName(i), deviceError(err))
		}
	}
	outs, err := n.execute(e.x.exe, bufs, nil)
	if err != nil {
		return nil, fmt.Errorf("pjrt: run: %w", deviceError(err))
	}
	defer func() {
		for _, o := range outs {
			n.freeBuf(o)
		}
	}()
	vals := make([]graph.Value, len(outs))
	for i, o := range outs {
		if vals[i], err = n.download(o, e.x.sig.results[i]); err != nil {
			return nil, fmt.Errorf("pjrt: run: result %d: %w", i, err)
		}
	}
	return vals, nil
}

// Buffer is a tensor in device memory. Destroy it when done; a runtime
// cleanup frees a forgotten one when it is garbage collected, but device
// memory is scarcer than the collector knows.
type Buffer struct {
	client *Client
	typ    TensorType
	st     *bufState
}

// bufState is the part of a Buffer its cleanup holds.
type bufState struct {
	id   uint64 // lock order among buffers
	core *core
	mu   sync.RWMutex // held for writing to destroy or donate nb
	nb   nativeBuf    // nil once destroyed or donated
	gone string       // "destroyed" or "donated to a run", once nb is nil
}

var bufIDs atomic.Uint64

func (c *Client) newBuffer(co *core, nb nativeBuf, t TensorType) *Buffer {
	st := &bufState{id: bufIDs.Add(1), core: co, nb: nb}
	b := &Buffer{client: c, typ: t, st: st}
	runtime.AddCleanup(b, func(st *bufState) { st.free("destroyed") }, st)
	return b
}

// free releases the device memory unless the core is gone (then PJRT freed
// it already).
func (st *bufState) free(why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.nb == nil {
		return
	}
	st.core.rw.RLock()
	if !st.core.closed {
		st.core.native.freeBuf(st.nb)
	}
	st.core.rw.RUnlock()
	st.nb, st.gone = nil, why
}

// ToDevice copies an array or scalar (f32, f64, i32 or bool) to the
// client's first device.
func (c *Client) ToDevice(v graph.Value) (*Buffer, error) {
	h, err := toHost(v)
	if err != nil {
		return nil, fmt.Errorf("pjrt: to device: %v", err)
	}
	co, err := c.use("to device")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	nb, err := co.native.upload(h)
	if err != nil {
		return nil, fmt.Errorf("pjrt: to device: %w", deviceError(err))
	}
	return c.newBuffer(co, nb, h.typ), nil
}

// Type is the buffer's element type and extents.
func (b *Buffer) Type() TensorType {
	if b == nil {
		return TensorType{}
	}
	return b.typ
}

// ToHost copies the buffer back into a new value: a row-major *graph.Array,
// or a graph.ScalarValue for a rank-0 buffer.
func (b *Buffer) ToHost() (graph.Value, error) {
	if b == nil || b.st == nil {
		return nil, fmt.Errorf("pjrt: to host: buffer not made by ToDevice or RunBuffers")
	}
	st := b.st
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.nb == nil {
		return nil, fmt.Errorf("pjrt: to host: buffer was %s", st.gone)
	}
	co, err := b.client.use("to host")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	v, err := co.native.download(st.nb, b.typ)
	if err != nil {
		return nil, fmt.Errorf("pjrt: to host: %w", err)
	}
	return v, nil
}

// Destroy frees the buffer's device memory. It is safe to call twice, and
// after the client closed (the memory is gone then already); it returns
// nil in both cases.
func (b *Buffer) Destroy() error {
	if b == nil || b.st == nil {
		return nil
	}
	b.st.free("destroyed")
	return nil
}

// RunBuffers runs the program on device buffers and returns its results as
// new device buffers, for chains of programs whose intermediates stay on
// the device. donate, if not nil, has one entry per input: a donated
// buffer's memory may be reused for a result, and the buffer is unusable
// afterwards (its methods say it was donated). Inputs are checked as in
// Run; they must belong to the same plugin as e.
func (e *Executable) RunBuffers(inputs []*Buffer, donate []bool) ([]*Buffer, error) {
	if !e.valid() {
		return nil, errNotCompiled
	}
	params := e.x.sig.params
	if len(inputs) != len(params) {
		return nil, fmt.Errorf("pjrt: run: got %d inputs, the program takes %d", len(inputs), len(params))
	}
	if donate != nil && len(donate) != len(inputs) {
		return nil, fmt.Errorf("pjrt: run: %d donate flags for %d inputs", len(donate), len(inputs))
	}
	// Lock each distinct buffer once, in id order: for writing when donated.
	// (A slice, not a map, and one deferred unlock, not one per buffer: a
	// run allocates as little as it can.)
	locks := make([]bufLock, 0, len(inputs))
	for i, b := range inputs {
		if b == nil || b.st == nil {
			return nil, fmt.Errorf("pjrt: run: %s: nil buffer", e.argName(i))
		}
		if b.st.core != e.client.core {
			return nil, fmt.Errorf("pjrt: run: %s: buffer belongs to another plugin client", e.argName(i))
		}
		if b.client.isClosed() {
			return nil, fmt.Errorf("pjrt: run: %s: buffer's client: %w", e.argName(i), ErrClosed)
		}
		if err := e.checkArg(i, b.typ, "buffer"); err != nil {
			return nil, err
		}
		locks = append(locks, bufLock{b.st, donate != nil && donate[i]})
	}
	slices.SortFunc(locks, func(a, b bufLock) int { return cmp.Compare(a.st.id, b.st.id) })
	n := 0
	for i, l := range locks {
		if n > 0 && locks[n-1].st == l.st {
			if locks[n-1].donated || l.donated {
				return nil, fmt.Errorf("pjrt: run: %s: a donated buffer may be passed only once", e.argName(argIndex(inputs, l.st, i)))
			}
			continue
		}
		locks[n] = l
		n++
	}
	locks = locks[:n]
	for _, l := range locks {
		if l.donated {
			l.st.mu.Lock()
		} else {
			l.st.mu.RLock()
		}
	}
	defer func() {
		for _, l := range locks {
			if l.donated {
				l.st.mu.Unlock()
			} else {
				l.st.mu.RUnlock()
			}
		}
	}()
	nbs := make([]nativeBuf, len(inputs))
	for i, b := range inputs {
		if b.st.nb == nil {
			return nil, fmt.Errorf("pjrt: run: %s: buffer was %s", e.argName(i), b.st.gone)
		}
		nbs[i] = b.st.nb
	}

	co, err := e.client.use("run")
	if err != nil {
		return nil, err
	}
	defer co.rw.RUnlock()
	outs, err := co.native.execute(e.x.exe, nbs, donate)
	if err != nil {
		return nil, fmt.Errorf("pjrt: run: %w", deviceError(err))
	}
	for _, l := range locks {
		if l.donated { // PJRT took its memory; go-xla marked the buffer invalid.
			l.st.nb, l.st.gone = nil, "donated to a run"
		}
	}
	res := make([]*Buffer, len(outs))
	for i, o := range outs {
		res[i] = e.client.newBuffer(co, o, e.x.sig.results[i])
	}
	return res, nil
}

// bufLock is a buffer a run locks: for writing when it is donated.
type bufLock struct {
	st      *bufState
	donated bool
}

// argIndex names the argument of a buffer passed twice for its error: the
// second position at which st appears among inputs.
func argIndex(inputs []*Buffer, st *bufState, fallback int) int {
	seen := false
	for i, b := range inputs {
		if b.st == st {
			if seen {
				return i
			}
			seen = true
		}
	}
	return fallback
}

// CgoEnabled reports whether this build of hofuse can load PJRT plugins;
// without cgo, Open returns ErrNoCgo.
func CgoEnabled() bool { return cgoEnabled }
