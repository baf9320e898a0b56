package models

import (
	"fmt"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
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
	// LossTerm, when set, replaces Loss: it builds the scalar loss from
	// the model's output and returns the one input it reads besides the
	// model's (bound, as the labels are, by the labels argument of
	// Bindings and of train.Trainer.Step), or nil when it reads none.
	LossTerm func(output graph.Node) (loss graph.Node, extra *graph.Input, err error)
	// BatchNormMomentum is the weight of the batch statistics in the
	// running statistics of each BatchNorm layer (PyTorch's momentum); 0
	// means layers.DefaultBatchNormMomentum, 0.1.
	BatchNormMomentum float64
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
// The gradients come from autodiff.GradAux of the loss (with the running
// statistics as auxiliary results), and each parameter's update reads its
// gradient, so forward pass, backward pass and update are one term for
// fusion.Fuse to fuse. Package models/train compiles and runs it.
type Step struct {
	Model   *Model
	Config  TrainConfig
	Term    graph.Node     // the step: the tuple above
	Loss    graph.Node     // the loss alone, a scalar
	Labels  *graph.Input   // "labels" (i32[batch]), "target", or LossTerm's extra input (nil for none)
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
	switch {
	case cfg.LossTerm != nil:
		if st.Loss, st.Labels, err = cfg.LossTerm(m.Output); err != nil {
			return fail("TrainConfig.LossTerm: %v", err)
		}
		if st.Loss == nil {
			return fail("TrainConfig.LossTerm returned no loss")
		}
	case cfg.Loss == CrossEntropy:
		var cp *layers.CrossEntropyParams
		if st.Loss, cp, err = layers.SoftmaxCrossEntropy("loss", m.Output, LabelsInput); err != nil {
			return fail("%v", err)
		}
		st.Labels, st.Classes = cp.Labels, cp.Classes
	case cfg.Loss == MeanSquaredError:
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
	if s.Labels != nil {
		b[s.Labels.Name] = labels
	}
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
