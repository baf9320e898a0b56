// Package data holds the data a model trains on: a Dataset of float
// features with i32 class labels (or float targets), cut into seeded
// mini-batches shaped as models.MLP's input, split into training,
// validation and test sets, and read from the formats users have.
//
// # Datasets and batches
//
// A Dataset is rows × Features features of one element type (Float32 or
// Float64) and, per row, a label in [0, Classes) or Outputs float
// targets. Batches yields one epoch's mini-batches: each Batch holds X,
// dtype[n, features], and Labels, i32[n] (or Targets, dtype[n, outputs]),
// which models.Step.Bindings takes as the input "x" and the labels. The
// order of the rows is a Fisher–Yates shuffle seeded by (Seed, Epoch), so
// epoch k's order can be made again on its own (to resume training); the
// last batch is smaller when the batch size does not divide the rows,
// unless DropLast leaves it out. A batch size larger than the set is an
// error, found before the first step. Split cuts a seeded shuffle into
// parts by fractions (0.8, 0.2 or 0.7, 0.15, 0.15).
//
// # Readers
//
//   - ReadCSV: one row per record, an integer label column chosen by
//     index or header name, every other column a feature; a header is
//     optional (found by default when a cell of the first record is not a
//     number); gzip is read when the file starts with its magic.
//   - ReadNPY and ReadNPZ: NumPy arrays, decoded with
//     github.com/sbinet/npyio, features [rows, …] and integer labels
//     [rows] (or float targets [rows] or [rows, k]).
//   - ReadIDX and ReadMNIST: MNIST's IDX files, bytes scaled to [0, 1].
//   - Digits: scikit-learn's handwritten digits, embedded in the package.
//
// Errors name the file and where in it: the line of a CSV record, the
// byte offset in an IDX or .npy file; and what is wrong: a ragged row, a
// cell that is not a number, a label out of range, a wrong magic number,
// a file cut short, an empty file.
//
// # Limits
//
// A header's claims are checked against the bytes the file holds and
// against a byte limit (MaxBytes, graph.DefaultMemoryLimit by default)
// before anything is allocated: an IDX or .npy header that claims 10^12
// rows is an error, not an allocation. Memory grows with what is read,
// never with what a header says.
//
// # Aliasing
//
// A Dataset never changes once made; FromFloat32 and its kin keep the
// caller's slices, which the caller must then leave alone. Subset, Split
// and Batch copy the rows they take, so their results share nothing with
// the set. Every Batch holds new arrays, unless BatchOptions.Reuse asks
// Batches to fill the same arrays again (then a Batch is valid until the
// loop asks for the next one).
package data
