// Package optim builds optimizer updates as terms of the graph IR.
//
// An optimizer is not an opaque step run beside the model: SGD (with
// momentum and Nesterov momentum) and Adam (and AdamW, Adam with Decoupled
// set) each build, for one parameter, a term
//
//	nzip (\p g s… -> (p', s'…)) P G S…
//
// nested once per axis of the parameter, that computes the new parameter
// and the new state from the parameter, its gradient and its state. The
// gradient is usually a projection of autodiff.Grad's term, so the update
// fuses with the backward pass that computes it; with nothing to fuse it
// is one kernel per parameter.
//
// # Conventions
//
// The formulas are PyTorch's (torch.optim.SGD with dampening 0,
// torch.optim.Adam and torch.optim.AdamW with amsgrad off); each type's
// doc comment gives them and says where Keras differs. The state arrays
// (Slots) have the parameter's type and start at zero. Adam's bias
// corrections 1 - β^t depend on the step count t; they are scalar inputs
// of the term ("adam.bc1", "adam.bc2", see Optimizer.Scalars), whose
// values ScalarValues computes in f64 for a step, so one compiled term
// serves every step.
//
// # Hyperparameters
//
// The hyperparameters are fields of exported structs (SGD{LR, Momentum,
// Nesterov, WeightDecay}, Adam{LR, Beta1, Beta2, Eps, WeightDecay,
// Decoupled}); their values are constants of the term. A zero field is
// zero, not a default: NewAdam and NewAdamW fill in PyTorch's defaults.
// Validate, which Update calls, returns an *Error naming the field out of
// range.
package optim
