// Package train compiles and runs the training step that models.Model's
// TrainStep builds.
//
// Kernels cuts the step into kernels, fused by fusion.Fuse or, for
// comparison, unfused (fusion.Unfused, one kernel per layer op, forward
// and backward). A Trainer compiles the step once on a lowering.Backend
// and runs it again and again, feeding each step's new parameters,
// optimizer state and BatchNorm running statistics back in as the next
// step's inputs. The batch extent is part of the model's type, so one
// Trainer serves one batch size.
//
// Before a step the Trainer checks the labels (an out-of-range label is
// an error naming its row and value, which the term itself cannot
// raise); after it, every carried value (a NaN or an infinity is an error
// naming the step number and the first parameter or state array that went
// non-finite, and the step is not taken).
//
// After training, the same network built in inference mode (models.MLP
// with Mode models.Inference, at any batch size) runs on what the Trainer
// learned: InferenceBindings hands it the parameters and BatchNorm's
// running statistics, copied, and the model is fused and compiled like any
// other.
//
// fusion.Fuse terminates quickly on the steps of the MLPs tested (each
// norm, SGD and Adam, 20 to 80 ms for the 4-3-2 MLP), so Options.Fusion
// disables no rule by default.
//
// # Aliasing
//
// The carried values live in two sets of row-major arrays the Trainer
// allocates once and uses in turn, so a step allocates nothing large in
// steady state; Values returns the current set, valid until the next
// Step. The initial values are read, never written.
//
// The package is apart from models because fusion's tests import models:
// models cannot import fusion or lowering.
package train
