package train

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native/kernels"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// Options say how a step is compiled.
type Options struct {
	// Unfused compiles fusion.Unfused's kernels (one per layer op, forward
	// and backward), for comparison; by default the step is fused.
	Unfused bool
	// Fusion are the options given to fusion.Fuse.
	Fusion fusion.Options
	// HostRoundTrip runs the step on a lowering.LoopBackend (PJRT) as on
	// any other back end: every carried value is copied to the device
	// and back on each step. For comparison; by default the carried
	// values stay on the device.
	HostRoundTrip bool
}

// Kernels returns the kernel graph of the step s: fused by fusion.Fuse
// with opt.Fusion, or with opt.Unfused fusion.Unfused's.
func Kernels(s *models.Step, opt Options) (*fusion.Graph, error) {
	if opt.Unfused {
		return fusion.Unfused(s.Term)
	}
	res, err := fusion.Fuse(s.Term, opt.Fusion)
	if err != nil {
		return nil, err
	}
	return res.Graph, nil
}

// Trainer runs a training step on a back end, again and again, carrying the
// parameters, the optimizer's state and the running statistics from one
// step to the next. The step is compiled in New, for one batch size: the
// batch extent is part of the model's type, so another batch size is
// another model and another Trainer.
//
// The step is compiled twice and the two executables run in turn: a
// step reads the carried values from the results of the other
// executable's last run (an executable's result storage is its own and
// is reused by its next run, so one executable could not read its own
// results while writing the new ones), and the new values stay in the
// result storage of the executable that computed them; nothing is
// copied. A failed step leaves the other executable's results, the
// values from before the step, untouched. A result that is not a
// row-major array of its own (one that shares storage with an input, as
// a value passed through unchanged may) is copied instead, into one of
// two sets of row-major arrays the trainer allocates once and uses in
// turn. A step allocates nothing of its own in steady state. The initial
// values are read, never written.
//
// On a back end that can keep values where it runs them
// (lowering.LoopBackend: PJRT), the step is compiled as a loop instead:
// the carried values are copied to the device once, in New, and stay
// there; each step sends the batch, the labels and the optimizer's
// scalars, the new carried values replace the old ones on the device
// (their buffers donated to the step, so XLA may update them in place),
// and only the loss and one finiteness flag per carried value come back.
// The host copies are made on demand, by Values and InferenceBindings.
type Trainer struct {
	step    *models.Step
	exes    [2]lowering.Executable     // the step, run in turn (nil when loop runs the step)
	loop    lowering.Loop              // the step as a loop, on a LoopBackend
	carried map[string]graph.Value     // the values the next step reads (with loop: their host copies, once fresh)
	fresh   bool                       // with loop: carried holds the values on the device
	bufs    [2]map[string]*graph.Array // the trainer's own arrays, used in turn (with loop: the first only)
	binds   map[string]graph.Value     // the bindings, rebuilt in place
	next    []*graph.Array             // a step's new carried values, in Outputs order, until they are checked
	check   *finiteCheck               // tests next for NaN and infinities, but for the implied ones
	t       int                        // steps done
}

// New compiles the step s for be, as opt says, and starts from the
// carried values init (see models.Step.InitialValues). On a
// lowering.LoopBackend, New copies init to the device.
func New(s *models.Step, be lowering.Backend, opt Options, init map[string]graph.Value) (*Trainer, error) {
	tr := &Trainer{step: s, carried: make(map[string]graph.Value, len(s.Outputs)), fresh: true}
	lb, onDevice := be.(lowering.LoopBackend)
	onDevice = onDevice && !opt.HostRoundTrip
	sets := 2
	if onDevice {
		sets = 1 // the host copies of the values on the device
	}
	for i := range sets {
		tr.bufs[i] = make(map[string]*graph.Array, len(s.Outputs))
	}
	for _, in := range s.Outputs {
		v, ok := init[in.Name]
		if !ok {
			return nil, fmt.Errorf("train: no initial value for %s", in.Name)
		}
		t := in.Type.(*graph.ArrayType)
		if a, ok := v.(*graph.Array); !ok || a.DType() != t.DType || !slices.Equal(a.Extents(), t.Layout.Extents()) {
			return nil, fmt.Errorf("train: initial value of %s is %v, want an array of type %v", in.Name, describe(v), t)
		}
		tr.carried[in.Name] = v
		for i := range sets {
			a, err := graph.Zeros(t.DType, t.Layout.Extents()...)
			if err != nil {
				return nil, fmt.Errorf("train: %s: %w", in.Name, err)
			}
			tr.bufs[i][in.Name] = a
		}
	}
	g, err := Kernels(s, opt)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if onDevice {
		spec := lowering.LoopSpec{Carried: []string{""}, CheckFinite: true, Implied: impliedFinite(s)}
		for _, in := range s.Outputs {
			spec.Carried = append(spec.Carried, in.Name)
		}
		if tr.loop, err = lb.CompileLoop(g, spec); err != nil {
			return nil, fmt.Errorf("train: compile on %s: %w", be.Name(), err)
		}
		if err := tr.loop.Bind(tr.carried); err != nil {
			tr.loop.Close()
			return nil, fmt.Errorf("train: %w", err)
		}
		return tr, nil
	}
	for i := range tr.exes {
		if tr.exes[i], err = be.Compile(g); err != nil {
			if i > 0 {
				tr.exes[0].Close()
			}
			return nil, fmt.Errorf("train: compile on %s: %w", be.Name(), err)
		}
	}
	tr.next = make([]*graph.Array, len(s.Outputs))
	implied := impliedFinite(s)
	ts := make([]graph.Type, len(s.Outputs))
	check := make([]bool, len(s.Outputs))
	for i, in := range s.Outputs {
		ts[i], check[i] = in.Type, !slices.Contains(implied, in.Name)
	}
	tr.check = newFiniteCheck(ts, check)
	return tr, nil
}

// describe writes a value's type for an error message.
func describe(v graph.Value) string {
	switch v := v.(type) {
	case *graph.Array:
		return v.Type().String()
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// Steps is the number of steps run so far.
func (tr *Trainer) Steps() int { return tr.t }

// Loop is the step compiled as a loop on a lowering.LoopBackend (its
// values kept where it runs), for its back end's own reports; nil when the
// step runs as executables.
func (tr *Trainer) Loop() lowering.Loop { return tr.loop }

// Values returns the carried values after the last step (the initial
// values before the first), by input name. The map and its arrays are
// the trainer's: they stay valid until the next Step, which may reuse
// them; copy what must outlive it.
//
// When the values live on the device (a lowering.LoopBackend), the first
// call after a step copies every one of them to the host, into the
// trainer's arrays; later calls before the next step return the same
// map. When that copy fails (the plugin closed or the device failed),
// Values returns nil; HostValues says why.
func (tr *Trainer) Values() map[string]graph.Value {
	v, err := tr.HostValues()
	if err != nil {
		return nil
	}
	return v
}

// HostValues is Values with the error of the copy from the device.
func (tr *Trainer) HostValues() (map[string]graph.Value, error) {
	if tr.fresh {
		return tr.carried, nil
	}
	for _, in := range tr.step.Outputs {
		v, err := tr.loop.Value(in.Name)
		if err != nil {
			return nil, fmt.Errorf("train: after step %d: %w", tr.t, err)
		}
		dst := tr.bufs[0][in.Name]
		a, ok := v.(*graph.Array)
		if !ok {
			return nil, fmt.Errorf("train: after step %d: internal error: %s is %s, not an array", tr.t, in.Name, graph.DescribeValue(v))
		}
		if err := copyInto(dst, a); err != nil {
			return nil, fmt.Errorf("train: after step %d: internal error: %s: %w", tr.t, in.Name, err)
		}
		tr.carried[in.Name] = dst
	}
	tr.fresh = true
	return tr.carried, nil
}

// InferenceBindings returns the values the inference model m reads, taken
// from the trainer's carried values and copied, so that they outlive the
// next Step. When the values live on the device, they are copied to the
// host first, as by Values. m is the trained network built again in inference mode
// (models.MLP with Mode models.Inference, at any batch size): its BatchNorm
// layers read the running statistics "<bn>.mean" and "<bn>.var", which the
// step carries beside the parameters. Binding the data input (m.Input) is
// left to the caller. An input of m the trainer does not carry, or carries
// with another type, is an error naming it.
func (tr *Trainer) InferenceBindings(m *models.Model) (map[string]graph.Value, error) {
	carried, err := tr.HostValues()
	if err != nil {
		return nil, err
	}
	return inferenceBindings(carried, m)
}

// inferenceBindings is InferenceBindings on the carried values carried.
func inferenceBindings(carried map[string]graph.Value, m *models.Model) (map[string]graph.Value, error) {
	out := make(map[string]graph.Value, len(m.Params))
	for _, p := range m.Params {
		v, ok := carried[p.Name]
		if !ok {
			return nil, fmt.Errorf("train: the inference model reads %s, which the training step does not carry; build the same network in inference mode", p.Name)
		}
		if err := graph.CheckValue(p.Type, v); err != nil {
			return nil, fmt.Errorf("train: the inference model's %s: %w", p.Name, err)
		}
		a, ok := v.(*graph.Array)
		if !ok {
			return nil, fmt.Errorf("train: the inference model's %s is %s, not an array", p.Name, graph.DescribeValue(v))
		}
		out[p.Name] = a.Copy()
	}
	return out, nil
}

// Step runs one training step on the batch x with its labels (or target)
// and returns the loss. Labels out of range are refused before running,
// naming the row. When the loss or any new carried value is not finite,
// Step returns an error naming the step number and the first of them
// (in Outputs order) that went non-finite, and keeps the values from
// before the step.
//
// When the values live on the device (a lowering.LoopBackend), the step
// copies only the loss and one finiteness flag per carried value to the
// host, and the value the error names when one went non-finite. Its
// buffers were donated to the step, so a step that fails that way has
// replaced the values all the same: Values then returns the non-finite
// ones, and Steps does not count the step.
func (tr *Trainer) Step(x, labels graph.Value) (float64, error) {
	s := tr.step
	t := tr.t + 1
	if err := s.CheckLabels(labels); err != nil {
		return 0, fmt.Errorf("train: step %d: %w", t, err)
	}
	if tr.loop != nil {
		return tr.loopStep(x, labels)
	}
	if tr.binds == nil {
		b, err := s.Bindings(tr.carried, x, labels, t)
		if err != nil {
			return 0, err
		}
		tr.binds = b
	} else {
		for _, in := range s.Outputs {
			tr.binds[in.Name] = tr.carried[in.Name]
		}
		tr.binds[s.Model.Input.Name] = x
		if s.Labels != nil {
			tr.binds[s.Labels.Name] = labels
		}
		sc, err := s.Config.Optimizer.ScalarValues(t, s.Model.OutputType.DType)
		if err != nil {
			return 0, err
		}
		for k, v := range sc {
			tr.binds[k] = v
		}
	}
	res, err := tr.exes[t%2].Run(tr.binds)
	if err != nil {
		return 0, fmt.Errorf("train: step %d: %w", t, err)
	}
	tup, ok := res.(graph.TupleValue)
	if !ok || len(tup) != len(s.Outputs)+1 {
		return 0, fmt.Errorf("train: step %d: internal error: the step returned %T, want a tuple of %d", t, res, len(s.Outputs)+1)
	}
	bufs := tr.bufs[t%2]
	for i, in := range s.Outputs {
		a, ok := tup[i+1].(*graph.Array)
		if !ok {
			return 0, fmt.Errorf("train: step %d: internal error: %s is %T, not an array", t, in.Name, tup[i+1])
		}
		if !a.Layout().IsRowMajor() || tr.sharesInput(a) {
			if err := copyInto(bufs[in.Name], a); err != nil {
				return 0, fmt.Errorf("train: step %d: internal error: %s: %w", t, in.Name, err)
			}
			a = bufs[in.Name]
		} else if a.DType() != bufs[in.Name].DType() || !slices.Equal(a.Extents(), bufs[in.Name].Extents()) {
			return 0, fmt.Errorf("train: step %d: internal error: %s: result of type %v, want %v", t, in.Name, a.Type(), bufs[in.Name].Type())
		}
		tr.next[i] = a
	}
	if i, j, v, bad := tr.check.first(tr.next); bad {
		clear(tr.next)
		return 0, fmt.Errorf("train: step %d: %s went non-finite: element %d is %v", t, s.Outputs[i].Name, j, v)
	}
	loss, ok := tup[0].(graph.ScalarValue)
	if !ok {
		return 0, fmt.Errorf("train: step %d: internal error: the loss is %T, not a scalar", t, tup[0])
	}
	if math.IsNaN(loss.V) || math.IsInf(loss.V, 0) {
		return 0, fmt.Errorf("train: step %d: the loss went non-finite: %v", t, loss.V)
	}
	for i, in := range s.Outputs {
		tr.carried[in.Name] = tr.next[i]
		tr.next[i] = nil
	}
	tr.t = t
	return loss.V, nil
}

// sharesInput says whether the storage of a overlaps that of an array
// bound as an input of the step.
func (tr *Trainer) sharesInput(a *graph.Array) bool {
	lo, hi := span(a)
	for _, v := range tr.binds {
		if b, ok := v.(*graph.Array); ok {
			if blo, bhi := span(b); blo < hi && lo < bhi {
				return true
			}
		}
	}
	return false
}

// span returns the addresses of the first byte of a's backing storage and
// of the byte past its end (0, 0 for an empty array or one of another
// storage).
func span(a *graph.Array) (uintptr, uintptr) {
	var p unsafe.Pointer
	n := 0
	if s := a.Float32s(); s != nil {
		p, n = unsafe.Pointer(unsafe.SliceData(s)), 4*cap(s)
	} else if s := a.Float64s(); s != nil {
		p, n = unsafe.Pointer(unsafe.SliceData(s)), 8*cap(s)
	}
	if p == nil || n == 0 {
		return 0, 0
	}
	return uintptr(p), uintptr(p) + uintptr(n)
}

// loopStep is Step on a LoopBackend.
func (tr *Trainer) loopStep(x, labels graph.Value) (float64, error) {
	s := tr.step
	t := tr.t + 1
	if tr.binds == nil {
		tr.binds = make(map[string]graph.Value, 8)
		if s.Classes != nil {
			c, err := layers.ClassIndices(s.Classes.Type.(*graph.ArrayType).Layout[0].Extent)
			if err != nil {
				return 0, err
			}
			tr.binds[s.Classes.Name] = c
		}
	}
	tr.binds[s.Model.Input.Name] = x
	if s.Labels != nil {
		tr.binds[s.Labels.Name] = labels
	}
	sc, err := s.Config.Optimizer.ScalarValues(t, s.Model.OutputType.DType)
	if err != nil {
		return 0, err
	}
	for k, v := range sc {
		tr.binds[k] = v
	}
	res, err := tr.loop.Run(tr.binds)
	tr.fresh = false
	if err != nil {
		return 0, fmt.Errorf("train: step %d: %w", t, err)
	}
	if len(res.Results) != 1 {
		return 0, fmt.Errorf("train: step %d: internal error: the step returned %d values besides the carried ones, want the loss", t, len(res.Results))
	}
	loss, ok := res.Results[0].(graph.ScalarValue)
	if !ok {
		return 0, fmt.Errorf("train: step %d: internal error: the loss is %T, not a scalar", t, res.Results[0])
	}
	if name := res.NonFinite; name != "" {
		v, err := tr.loop.Value(name)
		if err != nil {
			return 0, fmt.Errorf("train: step %d: %s went non-finite; reading it: %w", t, name, err)
		}
		if a, ok := v.(*graph.Array); ok {
			if j, f, bad := nonFinite(a); bad {
				return 0, fmt.Errorf("train: step %d: %s went non-finite: element %d is %v", t, name, j, f)
			}
		}
		return 0, fmt.Errorf("train: step %d: %s went non-finite", t, name)
	}
	if math.IsNaN(loss.V) || math.IsInf(loss.V, 0) {
		return 0, fmt.Errorf("train: step %d: the loss went non-finite: %v", t, loss.V)
	}
	tr.t = t
	return loss.V, nil
}

// Close releases the compiled step (and, on a LoopBackend, the values on
// the device).
func (tr *Trainer) Close() error {
	if tr.loop != nil {
		return tr.loop.Close()
	}
	return errors.Join(tr.exes[0].Close(), tr.exes[1].Close())
}

// copyInto copies src into dst, a row-major array of its type and extents.
func copyInto(dst, src *graph.Array) error {
	if src.DType() != dst.DType() || !slices.Equal(src.Extents(), dst.Extents()) {
		return fmt.Errorf("result of type %v, want %v", src.Type(), dst.Type())
	}
	n := src.Size()
	if src.Layout().IsRowMajor() {
		off := src.Offset()
		switch src.DType() {
		case graph.Float32:
			copy(dst.Float32s(), src.Float32s()[off:off+n])
			return nil
		case graph.Float64:
			copy(dst.Float64s(), src.Float64s()[off:off+n])
			return nil
		}
	}
	idx := make([]int, src.Rank())
	ext := src.Extents()
	for k := range n {
		rem := k
		for d := len(ext) - 1; d >= 0; d-- {
			idx[d] = rem % ext[d]
			rem /= ext[d]
		}
		dst.Set(src.At(idx...), idx...)
	}
	return nil
}

// impliedFinite names the optimizer state arrays of s whose finiteness
// the loop's check may leave out: those a NaN or an infinity in which
// always makes the parameter's new value non-finite too. The step carries
// the parameters before the state (models.Step.Outputs), so the check
// names the same input either way.
//
// Adam's first moment is one: p' = p - LR·(m'/bc1)/den with LR >= 0 finite,
// bc1 in (0, 1] and den = sqrt(v'/bc2) + Eps either >= 0 or NaN; a NaN or
// an infinity m' stays NaN or infinite through the division by bc1, the
// product with LR (0·inf is NaN) and the division by den (inf/inf and
// NaN/x are NaN, inf/x is infinite), and p minus a NaN or an infinity is
// not finite. The second moment is not one (an infinite v' makes den
// infinite and leaves p' = p), so it is checked. SGD's momentum buffer is
// one too: p' = p - LR·v', or p - LR·(g' + Momentum·v') with Momentum > 0
// (Nesterov). On the MLP 784-512-512-10 this leaves a third of the
// carried values out of the check.
func impliedFinite(s *models.Step) []string {
	slot := impliedSlot(s.Config.Optimizer)
	if slot == "" {
		return nil
	}
	var out []string
	for _, p := range s.Model.Params {
		name := p.Name + "." + slot
		if slices.ContainsFunc(s.State, func(in *graph.Input) bool { return in.Name == name }) {
			out = append(out, name)
		}
	}
	return out
}

// impliedSlot is the slot of o whose finiteness follows from the
// parameter's (see impliedFinite), or "".
func impliedSlot(o optim.Optimizer) string {
	switch o := o.(type) {
	case optim.Adam:
		return "m"
	case *optim.Adam:
		return "m"
	case optim.SGD:
		if o.Momentum > 0 {
			return "momentum"
		}
	case *optim.SGD:
		if o.Momentum > 0 {
			return "momentum"
		}
	}
	return ""
}

// nonFinite returns the first element of a, an f32 or f64 array, that is
// NaN or infinite, by its row-major index.
func nonFinite(a *graph.Array) (int, float64, bool) {
	return nonFiniteIn(a, 0, a.Size())
}

// nonFiniteIn is nonFinite over the row-major indices [lo, hi) of a. A
// row-major array is first tested in SIMD chunks: the float32 sum of a
// chunk, or the float64 Σ x·0, is finite unless one of its elements is NaN
// or infinite (or, for the sum, it overflows), and only a chunk that is
// not is scanned element by element.
func nonFiniteIn(a *graph.Array, lo, hi int) (int, float64, bool) {
	if !a.Layout().IsRowMajor() {
		idx := make([]int, a.Rank())
		ext := a.Extents()
		for k := lo; k < hi; k++ {
			rem := k
			for d := len(ext) - 1; d >= 0; d-- {
				idx[d] = rem % ext[d]
				rem /= ext[d]
			}
			if f := a.At(idx...); math.IsNaN(f) || math.IsInf(f, 0) {
				return k, f, true
			}
		}
		return 0, 0, false
	}
	off := a.Offset()
	switch a.DType() {
	case graph.Float32:
		x := a.Float32s()[off+lo : off+hi]
		for c := 0; c < len(x); c += finiteChunk {
			xc := x[c:min(c+finiteChunk, len(x))]
			if s := kernels.SumF32(xc); s-s == 0 {
				continue
			}
			for i, v := range xc {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return lo + c + i, f, true
				}
			}
		}
	case graph.Float64:
		x := a.Float64s()[off+lo : off+hi]
		for c := 0; c < len(x); c += finiteChunk {
			xc := x[c:min(c+finiteChunk, len(x))]
			if s := kernels.DotF64(len(xc), xc, 1, zeros64[:], 1); s == 0 {
				continue
			}
			for i, v := range xc {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return lo + c + i, v, true
				}
			}
		}
	}
	return 0, 0, false
}

// A finiteCheck finds the first NaN or infinity in a step's new carried
// values: the answer of nonFinite on each checked value in turn. The
// values are tested in parts of finitePart elements, on as many
// goroutines as GOMAXPROCS allows when they hold more than one part in all
// (a step's new weights and moments are in the cores' caches): on the
// worker pool of package kernels, which the native back end runs its
// loops and products on, so that the workers are still polling when the
// next step starts. The parts are cut once, from the values' types.
type finiteCheck struct {
	parts []finiteRange
	as    []*graph.Array // the values under test
	next  atomic.Int64   // the next part to claim
	fork  *kernels.Fork  // the workers the native back end runs on
}

// A finiteRange is a part of a finiteCheck: elements [lo, hi) of value i,
// and what the test found.
type finiteRange struct {
	i, lo, hi int
	j         int
	v         float64
	bad       bool
}

// newFiniteCheck cuts the values of types ts whose check is set into
// parts.
func newFiniteCheck(ts []graph.Type, check []bool) *finiteCheck {
	c := &finiteCheck{}
	c.fork = kernels.NewFork(c)
	for i, t := range ts {
		if !check[i] {
			continue
		}
		n := t.(*graph.ArrayType).Layout.Size()
		for lo := 0; lo < n; lo += finitePart {
			c.parts = append(c.parts, finiteRange{i: i, lo: lo, hi: min(lo+finitePart, n)})
		}
	}
	return c
}

// first tests as, the values of the types newFiniteCheck was given, and
// returns the index of the first checked one with a NaN or an infinity,
// with the row-major index and the value of its first such element.
func (c *finiteCheck) first(as []*graph.Array) (int, int, float64, bool) {
	c.as = as
	defer func() { c.as = nil }()
	c.next.Store(0)
	if workers := min(runtime.GOMAXPROCS(0), len(c.parts)); workers > 1 {
		c.fork.Run(workers, workers-1)
	} else {
		for k := range c.parts {
			if c.test(k); c.parts[k].bad {
				break
			}
		}
	}
	for _, p := range c.parts {
		if p.bad {
			return p.i, p.j, p.v, true
		}
	}
	return 0, 0, 0, false
}

// RunPart claims parts and tests them until none is left: every part of
// the fork does the same.
func (c *finiteCheck) RunPart(int) {
	for k := int(c.next.Add(1)) - 1; k < len(c.parts); k = int(c.next.Add(1)) - 1 {
		c.test(k)
	}
}

func (c *finiteCheck) test(k int) {
	p := &c.parts[k]
	p.j, p.v, p.bad = nonFiniteIn(c.as[p.i], p.lo, p.hi)
}

// finitePart is the most elements of one value a finiteCheck tests as
// one part: 256 KiB of float32.
const finitePart = 1 << 16

// finiteChunk is the length of the chunks nonFinite tests at once.
const finiteChunk = 2048

// zeros64 are the zeros nonFiniteIn multiplies a float64 chunk by; they
// are never written.
var zeros64 [finiteChunk]float64
