package models

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/optim"
)

// Loss is the loss a training step minimises.
type Loss uint8

// The losses.
const (
	// CrossEntropy is layers.SoftmaxCrossEntropy of the model's output
	// (the logits) against the i32 input "labels": i32[batch].
	CrossEntropy Loss = iota
	// MeanSquaredError is layers.MeanSquaredError of the model's output
	// against the input "target", of the output's type.
	MeanSquaredError
)

// The names of the inputs a training step adds.
const (
	LabelsInput = "labels" // CrossEntropy's labels, i32[batch]
	TargetInput = "target" // MeanSquaredError's target, the output's type
)

// TrainConfig configures a training step.
type TrainConfig struct {
	// Optimizer updates the parameters: optim.SGD or optim.Adam. Required.
	Optimizer optim.Optimizer
	// Loss is the loss; the zero value is CrossEntropy.
	Loss Loss
	// BatchNormMomentum is the weight of the batch statistics in the
	// running statistics of each BatchNorm layer (PyTorch's momentum); 0
	// means layers.DefaultBatchNormMomentum, 0.1.
	BatchNormMomentum float64
	// Fusion are the options the runner gives fusion.Fuse.
	Fusion fusion.Options
}

// Step is one training step as ONE term of the graph IR. Its inputs are
// the model's input "x", the labels (LabelsInput) or the target
// (TargetInput), for CrossEntropy the class indices
// (layers.ClassesInput), the parameters, the optimizer's state and
// scalars, and the running statistics of the BatchNorm layers. Its result
// is the tuple
//
//	(loss, params'…, state'…, running stats'…)
//
// whose element i+1 is the next value of the input Outputs[i]: the
// parameters in the model's order, then the state arrays of each
// parameter in the optimizer's slot order ("<param>.<slot>", as
// "dense1.W.m"), then each BatchNorm layer's running mean and variance
// ("bn1.mean", "bn1.var"), as layers.BatchNormRunningStats computes them.
//
// The gradients come from autodiff.Grad of the loss, and each parameter's
// update reads its gradient, so forward pass, backward pass and update are
// one term for fusion.Fuse to fuse.
type Step struct {
	Model   *Model
	Config  TrainConfig
	Term    graph.Node     // the step: the tuple above
	Loss    graph.Node     // the loss alone, a scalar
	Labels  *graph.Input   // "labels" (i32[batch]) or "target"
	Classes *graph.Input   // layers.ClassesInput for CrossEntropy, else nil
	State   []*graph.Input // the optimizer's state arrays, parameter by parameter
	Scalars []*graph.Input // the optimizer's per-step scalars
	Stats   []*graph.Input // the running statistics, mean and var per BatchNorm layer
	Outputs []*graph.Input // the input each result after the loss replaces
}

// TrainStep builds the training step of m, which must have been built in
// Training mode when it has BatchNorm layers (a model in inference mode
// would differentiate its running statistics). The gradients are those
// of autodiff.Grad; the update is cfg.Optimizer's.
func (m *Model) TrainStep(cfg TrainConfig) (*Step, error) {
	fail := func(format string, args ...any) (*Step, error) {
		return nil, fmt.Errorf("models: %s: training step: %s", m.Name, fmt.Sprintf(format, args...))
	}
	if cfg.Optimizer == nil {
		return fail("TrainConfig.Optimizer is nil, want optim.SGD or optim.Adam")
	}
	if err := cfg.Optimizer.Validate(); err != nil {
		return fail("%v", err)
	}
	momentum := cfg.BatchNormMomentum
	if momentum == 0 {
		momentum = layers.DefaultBatchNormMomentum
	}
	for _, bp := range m.bns {
		if !bp.Training {
			return fail("%s: BatchNorm built in inference mode: build the model with Mode: Training", bp.Layer)
		}
		if bp.Batch < 2 {
			return fail("%s: BatchNorm training needs a batch of at least 2, got %d", bp.Layer, bp.Batch)
		}
	}
	st := &Step{Model: m, Config: cfg}
	var err error
	switch cfg.Loss {
	case CrossEntropy:
		var cp *layers.CrossEntropyParams
		if st.Loss, cp, err = layers.SoftmaxCrossEntropy("loss", m.Output, LabelsInput); err != nil {
			return fail("%v", err)
		}
		st.Labels, st.Classes = cp.Labels, cp.Classes
	case MeanSquaredError:
		if st.Labels, err = graph.NewInput(TargetInput, m.OutputType, false); err != nil {
			return fail("%v", err)
		}
		if st.Loss, err = layers.MeanSquaredError("loss", m.Output, st.Labels); err != nil {
			return fail("%v", err)
		}
	default:
		return fail("TrainConfig.Loss = %d, want CrossEntropy or MeanSquaredError", cfg.Loss)
	}
	// The running statistics are auxiliary results of the gradient term,
	// so that they read the BatchNorm layers' inputs that the forward pass
	// computes instead of copies that fusion would compute again.
	var stats []graph.Node
	for _, bp := range m.bns {
		r, err := layers.BatchNormRunningStats(bp, momentum)
		if err != nil {
			return fail("%v", err)
		}
		stats = append(stats, r)
	}
	grads, err := autodiff.GradAux(st.Loss, m.Params, stats...)
	if err != nil {
		return fail("gradient: %v", err)
	}
	dt := m.OutputType.DType
	opt := cfg.Optimizer
	scalars := make([]graph.Node, len(opt.Scalars()))
	for i, name := range opt.Scalars() {
		in, err := graph.NewInput(name, graph.Scalar(dt), false)
		if err != nil {
			return fail("%v", err)
		}
		st.Scalars = append(st.Scalars, in)
		scalars[i] = in
	}
	loss, err := graph.NewProj(0, grads)
	if err != nil {
		return fail("internal error: %v", err)
	}
	results := []graph.Node{loss}
	var newState []graph.Node
	for i, p := range m.Params {
		g, err := graph.NewProj(i+1, grads)
		if err != nil {
			return fail("internal error: %v", err)
		}
		state := make([]graph.Node, len(opt.Slots()))
		for j, slot := range opt.Slots() {
			in, err := graph.NewInput(p.Name+"."+slot, p.Type, true)
			if err != nil {
				return fail("%v", err)
			}
			st.State = append(st.State, in)
			state[j] = in
		}
		u, err := opt.Update(p, g, state, scalars)
		if err != nil {
			return fail("parameter %s: %v", p.Name, err)
		}
		if len(state) == 0 {
			results = append(results, u)
			continue
		}
		for j := range len(state) + 1 {
			e, err := graph.NewProj(j, u)
			if err != nil {
				return fail("internal error: %v", err)
			}
			if j == 0 {
				results = append(results, e)
			} else {
				newState = append(newState, e)
			}
		}
	}
	results = append(results, newState...)
	st.Outputs = append(append([]*graph.Input{}, m.Params...), st.State...)
	for i, bp := range m.bns {
		r, err := graph.NewProj(1+len(m.Params)+i, grads)
		if err != nil {
			return fail("internal error: %v", err)
		}
		for j, in := range []*graph.Input{bp.Mean, bp.Var} {
			e, err := graph.NewProj(j, r)
			if err != nil {
				return fail("internal error: %v", err)
			}
			results = append(results, e)
			st.Stats = append(st.Stats, in)
			st.Outputs = append(st.Outputs, in)
		}
	}
	if st.Term, err = graph.NewTuple(results...); err != nil {
		return fail("internal error: %v", err)
	}
	if _, err := graph.Check(st.Term); err != nil {
		return fail("internal error: the step is ill-typed: %v", err)
	}
	return st, nil
}

// InitialValues returns the values of every input the step carries from
// one step to the next: the parameters from params (as RandomParams makes
// them; a missing one is an error), the optimizer's state at zero, and the
// BatchNorm running statistics at PyTorch's initial values, mean 0 and
// variance 1.
func (s *Step) InitialValues(params map[string]graph.Value) (map[string]graph.Value, error) {
	out := make(map[string]graph.Value, len(s.Outputs))
	for _, p := range s.Model.Params {
		v, ok := params[p.Name]
		if !ok {
			return nil, fmt.Errorf("models: initial values: no value for parameter %s", p.Name)
		}
		out[p.Name] = v
	}
	fill := func(in *graph.Input, v float64) error {
		t := in.Type.(*graph.ArrayType)
		a, err := graph.Zeros(t.DType, t.Layout.Extents()...)
		if err != nil {
			return err
		}
		if v != 0 {
			for i := range t.Layout.Size() {
				a.Set(v, i)
			}
		}
		out[in.Name] = a
		return nil
	}
	for _, in := range s.State {
		if err := fill(in, 0); err != nil {
			return nil, err
		}
	}
	for i, in := range s.Stats {
		if err := fill(in, float64(i%2)); err != nil { // mean 0, var 1
			return nil, err
		}
	}
	return out, nil
}

// Bindings returns the bindings of every input of the step's term at step
// t (1 for the first): the carried values, the batch x and labels (or
// target), the class indices and the optimizer's scalars.
func (s *Step) Bindings(carried map[string]graph.Value, x, labels graph.Value, t int) (map[string]graph.Value, error) {
	b := make(map[string]graph.Value, len(carried)+4)
	for _, in := range s.Outputs {
		v, ok := carried[in.Name]
		if !ok {
			return nil, fmt.Errorf("models: step %d: no value for %s", t, in.Name)
		}
		b[in.Name] = v
	}
	b[s.Model.Input.Name] = x
	b[s.Labels.Name] = labels
	if s.Classes != nil {
		c, err := layers.ClassIndices(s.Classes.Type.(*graph.ArrayType).Layout[0].Extent)
		if err != nil {
			return nil, err
		}
		b[s.Classes.Name] = c
	}
	sc, err := s.Config.Optimizer.ScalarValues(t, s.Model.OutputType.DType)
	if err != nil {
		return nil, err
	}
	for k, v := range sc {
		b[k] = v
	}
	return b, nil
}

// CheckLabels returns an error naming the first row whose label is not a
// class index in [0, classes): the term itself cannot raise one (see
// layers.SoftmaxCrossEntropy). It checks nothing for MeanSquaredError.
func (s *Step) CheckLabels(labels graph.Value) error {
	if s.Classes == nil {
		return nil
	}
	a, ok := labels.(*graph.Array)
	want := s.Labels.Type.(*graph.ArrayType)
	if !ok || a.DType() != graph.Int32 || a.Rank() != 1 || a.Extents()[0] != want.Layout[0].Extent {
		return fmt.Errorf("models: labels: got %v, want an array of type %v", labels, want)
	}
	classes := s.Classes.Type.(*graph.ArrayType).Layout[0].Extent
	for i := range a.Extents()[0] {
		if y := a.At(i); y < 0 || y >= float64(classes) {
			return fmt.Errorf("models: labels: row %d has label %d, want a class in [0, %d)", i, int64(y), classes)
		}
	}
	return nil
}

// Kernels returns the kernel graph of the step: fused by fusion.Fuse with
// the config's options, or, with fused false, fusion.Unfused (one kernel
// per layer op), for comparison.
func (s *Step) Kernels(fused bool) (*fusion.Graph, error) {
	if !fused {
		return fusion.Unfused(s.Term)
	}
	res, err := fusion.Fuse(s.Term, s.Config.Fusion)
	if err != nil {
		return nil, err
	}
	return res.Graph, nil
}

// Trainer runs a step on a back end, again and again, carrying the
// parameters, the optimizer's state and the running statistics from one
// step to the next. The step is compiled once, in NewTrainer: the batch
// extent is part of the model's type, so another batch size is another
// model and another Trainer.
//
// The carried values live in two sets of row-major arrays the trainer
// allocates once and uses in turn: a step reads one set and the results
// are copied into the other (the executable's result storage is its own
// and is reused by its next run), so a step allocates nothing of its own
// in steady state. The initial values are read, never written.
type Trainer struct {
	step    *Step
	exe     lowering.Executable
	carried map[string]graph.Value     // the values the next step reads
	bufs    [2]map[string]*graph.Array // the trainer's own arrays, used in turn
	binds   map[string]graph.Value     // the bindings, rebuilt in place
	t       int                        // steps done
}

// NewTrainer compiles s for be (fused, or unfused for comparison) and
// starts from the carried values init (see InitialValues).
func (s *Step) NewTrainer(be lowering.Backend, fused bool, init map[string]graph.Value) (*Trainer, error) {
	tr := &Trainer{step: s, carried: make(map[string]graph.Value, len(s.Outputs))}
	for i := range tr.bufs {
		tr.bufs[i] = make(map[string]*graph.Array, len(s.Outputs))
	}
	for _, in := range s.Outputs {
		v, ok := init[in.Name]
		if !ok {
			return nil, fmt.Errorf("models: trainer: no initial value for %s", in.Name)
		}
		t := in.Type.(*graph.ArrayType)
		if a, ok := v.(*graph.Array); !ok || a.DType() != t.DType || !slices.Equal(a.Extents(), t.Layout.Extents()) {
			return nil, fmt.Errorf("models: trainer: initial value of %s is %v, want an array of type %v", in.Name, describe(v), t)
		}
		tr.carried[in.Name] = v
		for i := range tr.bufs {
			a, err := graph.Zeros(t.DType, t.Layout.Extents()...)
			if err != nil {
				return nil, fmt.Errorf("models: trainer: %s: %w", in.Name, err)
			}
			tr.bufs[i][in.Name] = a
		}
	}
	g, err := s.Kernels(fused)
	if err != nil {
		return nil, fmt.Errorf("models: trainer: %w", err)
	}
	if tr.exe, err = be.Compile(g); err != nil {
		return nil, fmt.Errorf("models: trainer: compile on %s: %w", be.Name(), err)
	}
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

// Values returns the carried values after the last step (the initial
// values before the first), by input name. The map and its arrays are
// the trainer's: they stay valid until the next Step, which reuses them;
// copy what must outlive it.
func (tr *Trainer) Values() map[string]graph.Value { return tr.carried }

// Step runs one training step on the batch x with its labels (or target)
// and returns the loss. Labels out of range are refused before running,
// naming the row. When the loss or any new carried value is not finite,
// Step returns an error naming the step number and the first of them
// (in Outputs order) that went non-finite, and keeps the values from
// before the step.
func (tr *Trainer) Step(x, labels graph.Value) (float64, error) {
	s := tr.step
	t := tr.t + 1
	if err := s.CheckLabels(labels); err != nil {
		return 0, fmt.Errorf("step %d: %w", t, err)
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
		tr.binds[s.Labels.Name] = labels
		sc, err := s.Config.Optimizer.ScalarValues(t, s.Model.OutputType.DType)
		if err != nil {
			return 0, err
		}
		for k, v := range sc {
			tr.binds[k] = v
		}
	}
	res, err := tr.exe.Run(tr.binds)
	if err != nil {
		return 0, fmt.Errorf("models: step %d: %w", t, err)
	}
	tup, ok := res.(graph.TupleValue)
	if !ok || len(tup) != len(s.Outputs)+1 {
		return 0, fmt.Errorf("models: step %d: internal error: the step returned %T, want a tuple of %d", t, res, len(s.Outputs)+1)
	}
	next := tr.bufs[t%2]
	for i, in := range s.Outputs {
		a, ok := tup[i+1].(*graph.Array)
		if !ok {
			return 0, fmt.Errorf("models: step %d: internal error: %s is %T, not an array", t, in.Name, tup[i+1])
		}
		if err := copyInto(next[in.Name], a); err != nil {
			return 0, fmt.Errorf("models: step %d: internal error: %s: %w", t, in.Name, err)
		}
		if j, v, bad := nonFinite(next[in.Name]); bad {
			return 0, fmt.Errorf("models: step %d: %s went non-finite: element %d is %v", t, in.Name, j, v)
		}
	}
	loss, ok := tup[0].(graph.ScalarValue)
	if !ok {
		return 0, fmt.Errorf("models: step %d: internal error: the loss is %T, not a scalar", t, tup[0])
	}
	if math.IsNaN(loss.V) || math.IsInf(loss.V, 0) {
		return 0, fmt.Errorf("models: step %d: the loss went non-finite: %v", t, loss.V)
	}
	for name, a := range next {
		tr.carried[name] = a
	}
	tr.t = t
	return loss.V, nil
}

// Close releases the compiled step.
func (tr *Trainer) Close() error { return tr.exe.Close() }

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

// nonFinite returns the first element of a, a row-major f32 or f64
// array, that is NaN or infinite.
func nonFinite(a *graph.Array) (int, float64, bool) {
	switch a.DType() {
	case graph.Float32:
		for i, v := range a.Float32s() {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, f, true
			}
		}
	case graph.Float64:
		for i, v := range a.Float64s() {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i, v, true
			}
		}
	}
	return 0, 0, false
}
