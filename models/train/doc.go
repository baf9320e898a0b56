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
// raise); after it, the loss and the carried values (a NaN or an
// infinity is an error naming the step number and the first parameter or
// state array that went non-finite, and the step is not counted). Adam's
// first moment and SGD's momentum are left out: a NaN or an infinity in
// them always shows in the parameter's new value, which is checked
// first, so the same value is named. On the native back end the check
// runs on as many goroutines as GOMAXPROCS allows.
//
// # PJRT: the values stay on the device
//
// On a back end that implements lowering.LoopBackend (lowering/xla, in
// either mode), the Trainer compiles the step as a lowering.Loop: the
// parameters, the optimizer's state and the running statistics are copied
// to the device once, in New, and stay there. A step sends the batch, the
// labels and the optimizer's scalars; the new carried values replace the
// old ones on the device (in fused mode their buffers are donated to the
// step, which XLA updates in place); only the loss and one finiteness flag
// per carried value come back (none for Adam's first moment or SGD's
// momentum, whose NaN or infinity always shows in the parameter's, so
// the same value is named). The flags are computed on the device, in
// the same executable as the step, so a parameter that went non-finite
// while the loss stayed finite is still caught; the value a flag names is
// copied to the host only then, to say which element. Because the old
// buffers were donated, such a failed step has replaced the values all the
// same (on the native back end the values from before the step are kept).
// Options.HostRoundTrip runs the step as on any back end instead, copying
// every carried value both ways on each step; the two compute the same
// bits.
//
// After training, the same network built in inference mode (models.MLP
// with Mode models.Inference, at any batch size) runs on what the Trainer
// learned: InferenceBindings hands it the parameters and BatchNorm's
// running statistics, copied, and the model is fused and compiled like any
// other.
//
// # Fit, Evaluate, Predict
//
// Fit trains an MLP classifier (FitConfig: the models.MLPConfig, the
// optimizer, the back end, epochs, batch size, seed) on a data.Dataset:
// seeded shuffled batches per epoch, ctx checked before every step, a
// callback after every step and every epoch (with the validation set's
// loss and accuracy). It returns a Fitted, whose Evaluate and Predict run
// the network rebuilt in inference mode on what was learned.
//
// Every plan is compiled once per batch size and cached: a Trainer for
// the batch size and one for an epoch's last, smaller batch; an inference
// plan per row count Evaluate or Predict is asked for. When the batch size
// changes, the carried values and the step count (which Adam's bias
// correction follows) are copied from the Trainer that holds them into the
// other, on the host (on PJRT, from the device and back): twice per epoch,
// one pass over the parameters and the optimizer's state each way.
// FitConfig.DropLast leaves the last batch out instead; with BatchNorm a
// last batch of one row always is.
//
// # Checkpoints
//
// Fitted.Save writes what was learned to a safetensors file (package
// checkpoint): the parameters, the optimizer's state and the BatchNorm
// running statistics, by the names the step carries them under
// ("dense1.W", "dense1.W.m", "bn1.mean", …), and in the metadata, as
// JSON, the model (MetaModel: an MLP's sizes, or with "kind": "cnn" a
// CNN's image, blocks and dense layers; a file that records no kind is an
// MLP, as every file written before CNNs), the optimizer (MetaOptimizer) and where
// training stood (MetaProgress: steps, epoch, batches of it done, seed,
// batch size). LoadCheckpoint needs only the file: Checkpoint.Fitted
// predicts with it, and Checkpoint.FitConfig continues its training,
// taking the steps the run that saved it would have taken next (the same
// order of rows, the same step count for Adam's bias correction), so the
// loss curve goes on bit for bit. LoadWeights reads the parameters of a
// model given its configuration (SpecOf, CNNSpecOf) from any safetensors file with hofuse's
// names, such as one written by Python. A tensor missing, extra or of
// another shape is an error naming it and both shapes.
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
// Step. The initial values are read, never written. When the values live
// on the device, Values (and InferenceBindings) copy them to the host,
// into the first set, once per step at most.
//
// The package is apart from models because fusion's tests import models:
// models cannot import fusion or lowering.
package train
