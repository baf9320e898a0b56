package optim

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Optimizer builds the update term of one parameter. SGD and Adam
// implement it.
type Optimizer interface {
	// Name is the optimizer's name in messages and the source of the
	// nodes it builds: "sgd", "adam" or "adamw".
	Name() string
	// Validate reports a hyperparameter out of range, naming the field.
	Validate() error
	// Slots names the state arrays the optimizer keeps per parameter,
	// each of the parameter's type and initially zero: none for plain SGD,
	// "momentum" for SGD with momentum, "m" and "v" for Adam.
	Slots() []string
	// Scalars names the scalar inputs the update reads at every step (for
	// Adam the bias corrections "adam.bc1" and "adam.bc2"); ScalarValues
	// gives their values at a step. Each is of the parameters' element
	// type.
	Scalars() []string
	// ScalarValues returns the values of the inputs Scalars names at step
	// t (1 for the first step), of element type dt.
	ScalarValues(t int, dt graph.DType) (map[string]graph.Value, error)
	// Update returns the term of one parameter's update: given the
	// parameter p, its gradient g (a term of p's type), its state arrays
	// (in the order of Slots) and the scalar inputs (in the order of
	// Scalars), the tuple (p', state'…), or p' alone when there is no
	// state. It is one nzip over p, g and the state, nested once per
	// axis, so it fuses into one kernel.
	Update(p, g graph.Node, state, scalars []graph.Node) (graph.Node, error)
}

// Error is a hyperparameter out of range or an update that cannot be
// built: the optimizer and what is wrong.
type Error struct {
	Optimizer string // "sgd", "adam", "adamw"
	Field     string // the hyperparameter at fault, "" when it is not one
	Msg       string
}

// Error writes "optim.sgd: Field: message".
func (e *Error) Error() string {
	s := "optim." + e.Optimizer + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// SGD is stochastic gradient descent with momentum, Nesterov momentum and
// L2 weight decay, in PyTorch's convention (torch.optim.SGD, dampening 0):
//
//	g' = g + WeightDecay·p
//	v' = Momentum·v + g'                   (only when Momentum > 0)
//	p' = p - LR·v'                         (Nesterov: p' = p - LR·(g' + Momentum·v'))
//
// with the momentum buffer v starting at zero, so that the first step's
// v' is g', as PyTorch's first step sets it. Keras writes the momentum
// with the learning rate inside, v' = Momentum·v - LR·g and p' = p + v'
// (Nesterov: p' = p + Momentum·v' - LR·g): the same steps while LR is
// constant, with Keras's buffer -LR times PyTorch's. Keras's weight_decay
// is decoupled (as in AdamW); PyTorch's, followed here, adds to the
// gradient.
type SGD struct {
	LR          float64 // learning rate, > 0
	Momentum    float64 // in [0, 1); 0 keeps no state
	Nesterov    bool    // Nesterov momentum; needs Momentum > 0
	WeightDecay float64 // L2 penalty added to the gradient, >= 0
}

// Name returns "sgd".
func (o SGD) Name() string { return "sgd" }

// Validate checks the hyperparameters.
func (o SGD) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &Error{Optimizer: o.Name(), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !(o.LR > 0) || math.IsInf(o.LR, 0):
		return bad("LR", "%v, want a positive learning rate", o.LR)
	case !(o.Momentum >= 0 && o.Momentum < 1):
		return bad("Momentum", "%v, want a number in [0, 1)", o.Momentum)
	case o.Nesterov && o.Momentum == 0:
		return bad("Nesterov", "Nesterov momentum needs Momentum > 0, as in PyTorch")
	case !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0):
		return bad("WeightDecay", "%v, want a number >= 0", o.WeightDecay)
	}
	return nil
}

// Slots returns "momentum" when Momentum > 0, else nothing.
func (o SGD) Slots() []string {
	if o.Momentum > 0 {
		return []string{"momentum"}
	}
	return nil
}

// Scalars returns nothing: SGD's update reads no per-step scalar.
func (o SGD) Scalars() []string { return nil }

// ScalarValues returns an empty map.
func (o SGD) ScalarValues(t int, dt graph.DType) (map[string]graph.Value, error) {
	return map[string]graph.Value{}, nil
}

// Update returns nzip (\p g v -> (p', v')) P G V, or nzip (\p g -> p') P G
// without momentum, nested once per axis.
func (o SGD) Update(p, g graph.Node, state, scalars []graph.Node) (graph.Node, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return update(o.Name(), p, g, state, scalars, len(o.Slots()), 0, func(b *layers.Builder, p, g graph.Node, s, _ []graph.Node) (graph.Node, []graph.Node) {
		if o.WeightDecay != 0 {
			g = b.Add(g, b.Mul(b.Const(o.WeightDecay), p))
		}
		if o.Momentum == 0 {
			return b.Sub(p, b.Mul(b.Const(o.LR), g)), nil
		}
		v := b.Add(b.Mul(b.Const(o.Momentum), s[0]), g)
		step := v
		if o.Nesterov {
			step = b.Add(g, b.Mul(b.Const(o.Momentum), v))
		}
		return b.Sub(p, b.Mul(b.Const(o.LR), step)), []graph.Node{v}
	})
}

// Adam is Adam (Kingma and Ba) and, with Decoupled set, AdamW (Loshchilov
// and Hutter), in PyTorch's convention (torch.optim.Adam and AdamW,
// amsgrad off). At step t (1 for the first):
//
//	g' = g + WeightDecay·p                  (Adam with WeightDecay: L2)
//	p  = p - LR·WeightDecay·p               (AdamW: decoupled, before the step)
//	m' = Beta1·m + (1 - Beta1)·g'
//	v' = Beta2·v + (1 - Beta2)·g'²
//	p' = p - LR·(m'/bc1) / (sqrt(v'/bc2) + Eps)
//
// with bc1 = 1 - Beta1^t and bc2 = 1 - Beta2^t, the bias corrections,
// which are the scalar inputs "adam.bc1" and "adam.bc2" (ScalarValues
// computes them in f64 from t), and m and v starting at zero.
//
// Keras differs in two places: its epsilon (1e-7 by default, PyTorch's is
// 1e-8) is added to sqrt(v') before the bias correction is applied, that
// is p' = p - LR·sqrt(bc2)/bc1 · m' / (sqrt(v') + Eps), which is PyTorch's
// update with Eps scaled by sqrt(bc2); and Keras's AdamW weight decay
// defaults to 0.004, PyTorch's to 0.01. NewAdam and NewAdamW give
// PyTorch's defaults.
type Adam struct {
	LR          float64 // learning rate, > 0
	Beta1       float64 // decay of the first moment, in [0, 1)
	Beta2       float64 // decay of the second moment, in [0, 1)
	Eps         float64 // added to the denominator, >= 0
	WeightDecay float64 // >= 0: L2 added to the gradient, or decoupled with Decoupled
	Decoupled   bool    // AdamW: decay the parameter by LR·WeightDecay
}

// NewAdam returns Adam with PyTorch's defaults (Beta1 0.9, Beta2 0.999,
// Eps 1e-8, no weight decay) and the learning rate lr.
func NewAdam(lr float64) Adam { return Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// NewAdamW returns AdamW with PyTorch's defaults (Beta1 0.9, Beta2 0.999,
// Eps 1e-8, WeightDecay 0.01) and the learning rate lr.
func NewAdamW(lr float64) Adam {
	return Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Decoupled: true}
}

// Name returns "adamw" when Decoupled is set, else "adam".
func (o Adam) Name() string {
	if o.Decoupled {
		return "adamw"
	}
	return "adam"
}

// Validate checks the hyperparameters.
func (o Adam) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &Error{Optimizer: o.Name(), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !(o.LR > 0) || math.IsInf(o.LR, 0):
		return bad("LR", "%v, want a positive learning rate", o.LR)
	case !(o.Beta1 >= 0 && o.Beta1 < 1):
		return bad("Beta1", "%v, want a number in [0, 1) (PyTorch's default is 0.9)", o.Beta1)
	case !(o.Beta2 >= 0 && o.Beta2 < 1):
		return bad("Beta2", "%v, want a number in [0, 1) (PyTorch's default is 0.999)", o.Beta2)
	case !(o.Eps >= 0) || math.IsInf(o.Eps, 0):
		return bad("Eps", "%v, want a number >= 0 (PyTorch's default is 1e-8)", o.Eps)
	case !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0):
		return bad("WeightDecay", "%v, want a number >= 0", o.WeightDecay)
	}
	return nil
}

// Slots returns "m" and "v", the first and second moments.
func (o Adam) Slots() []string { return []string{"m", "v"} }

// Scalars returns "adam.bc1" and "adam.bc2", the bias corrections.
func (o Adam) Scalars() []string { return []string{"adam.bc1", "adam.bc2"} }

// ScalarValues returns 1 - Beta1^t and 1 - Beta2^t, rounded to dt.
func (o Adam) ScalarValues(t int, dt graph.DType) (map[string]graph.Value, error) {
	if t < 1 {
		return nil, &Error{Optimizer: o.Name(), Msg: fmt.Sprintf("step %d, want a step count of at least 1", t)}
	}
	if !dt.IsFloat() {
		return nil, &Error{Optimizer: o.Name(), Msg: fmt.Sprintf("element type %v, want f32 or f64", dt)}
	}
	bc1 := 1 - math.Pow(o.Beta1, float64(t))
	bc2 := 1 - math.Pow(o.Beta2, float64(t))
	return map[string]graph.Value{"adam.bc1": scalar(bc1, dt), "adam.bc2": scalar(bc2, dt)}, nil
}

// Update returns nzip (\p g m v -> (p', m', v')) P G M V, nested once per
// axis; the bias corrections are read from scalars.
func (o Adam) Update(p, g graph.Node, state, scalars []graph.Node) (graph.Node, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return update(o.Name(), p, g, state, scalars, 2, 2, func(b *layers.Builder, p, g graph.Node, s, sc []graph.Node) (graph.Node, []graph.Node) {
		if o.WeightDecay != 0 {
			if o.Decoupled {
				p = b.Sub(p, b.Mul(b.Const(o.LR*o.WeightDecay), p))
			} else {
				g = b.Add(g, b.Mul(b.Const(o.WeightDecay), p))
			}
		}
		m := b.Add(b.Mul(b.Const(o.Beta1), s[0]), b.Mul(b.Const(1-o.Beta1), g))
		v := b.Add(b.Mul(b.Const(o.Beta2), s[1]), b.Mul(b.Const(1-o.Beta2), b.Mul(g, g)))
		den := b.Add(b.Call(graph.Sqrt, b.Div(v, sc[1])), b.Const(o.Eps))
		return b.Sub(p, b.Div(b.Mul(b.Const(o.LR), b.Div(m, sc[0])), den)), []graph.Node{m, v}
	})
}

// scalar returns v as a scalar value of type dt, rounded to it.
func scalar(v float64, dt graph.DType) graph.ScalarValue {
	if dt == graph.Float32 {
		v = float64(float32(v))
	}
	return graph.ScalarValue{DType: dt, V: v}
}

// rule builds the scalar update of one element: from the parameter p, the
// gradient g, the state s and the scalars sc, the new parameter and the new
// state.
type rule func(b *layers.Builder, p, g graph.Node, s, sc []graph.Node) (graph.Node, []graph.Node)

// update checks the operands and builds nzip (\p g s… -> (p', s'…)) P G S…,
// nested once per axis of P.
func update(name string, p, g graph.Node, state, scalars []graph.Node, nstate, nscalars int, r rule) (graph.Node, error) {
	fail := func(format string, args ...any) (graph.Node, error) {
		return nil, &Error{Optimizer: name, Msg: fmt.Sprintf(format, args...)}
	}
	if len(state) != nstate {
		return fail("%d state arrays, want %d", len(state), nstate)
	}
	if len(scalars) != nscalars {
		return fail("%d scalars, want %d", len(scalars), nscalars)
	}
	if p == nil || g == nil {
		return fail("nil parameter or gradient")
	}
	pinfo, err := graph.Check(p)
	if err != nil {
		return fail("parameter is ill-typed: %v", err)
	}
	pt, ok := pinfo.TypeOf(p).(*graph.ArrayType)
	if !ok || !pt.DType.IsFloat() {
		return fail("parameter has type %v, want an f32 or f64 array", pinfo.TypeOf(p))
	}
	for i, a := range append([]graph.Node{g}, state...) {
		what := "gradient"
		if i > 0 {
			what = fmt.Sprintf("state %d", i-1)
		}
		if a == nil {
			return fail("%s is nil", what)
		}
		info, err := graph.Check(a)
		if err != nil {
			return fail("%s is ill-typed: %v", what, err)
		}
		if !graph.SameShape(info.TypeOf(a), pt) {
			return fail("%s has type %v, want the parameter's %v", what, info.TypeOf(a), pt)
		}
	}
	for i, s := range scalars {
		info, err := graph.Check(s)
		if err != nil {
			return fail("scalar %d is ill-typed: %v", i, err)
		}
		if st, ok := info.TypeOf(s).(*graph.ScalarType); !ok || st.DType != pt.DType {
			return fail("scalar %d has type %v, want %v", i, info.TypeOf(s), pt.DType)
		}
	}
	b := layers.NewBuilder(name)
	names := []string{"p", "g"}
	for i := range nstate {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	var level func(rank int) graph.Node
	level = func(rank int) graph.Node {
		return b.Lambda(names, func(vs []graph.Node) graph.Node {
			if rank > 1 {
				return b.NZip(level(rank-1), vs...)
			}
			np, ns := r(b, vs[0], vs[1], vs[2:], scalars)
			if len(ns) == 0 {
				return np
			}
			return b.Tuple(append([]graph.Node{np}, ns...)...)
		})
	}
	args := append([]graph.Node{p, g}, state...)
	u, err := b.Done(b.NZip(level(pt.Rank()), args...))
	if err != nil {
		return fail("internal error building the update: %v", err)
	}
	if _, err := graph.Check(u); err != nil {
		return fail("internal error: the update is ill-typed: %v", err)
	}
	return u, nil
}
