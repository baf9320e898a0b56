// Package checkpoint saves and loads named tensors in the safetensors
// format, the format PyTorch, JAX and Hugging Face users exchange
// weights in (https://github.com/huggingface/safetensors, "Format").
//
// A checkpoint is a set of named arrays (map[string]*graph.Array of
// element type f32, f64 or i32) and string metadata. The metadata is a
// map[string]string that the caller fills: the trainer stores the model's
// configuration there as JSON, so that a checkpoint is all predict and
// resume need. The package gives the metadata no structure of its own.
//
// # The format
//
// A file is an 8-byte little-endian header length N, N bytes of JSON, and
// the data. The JSON maps each tensor's name to its dtype ("F32", "F64",
// "I32", …), shape and data_offsets [begin, end) into the data, and may
// hold "__metadata__", an object of strings. Data is little-endian and
// row-major. Save writes tensors in name order, their data back to back,
// and pads the JSON with spaces to a multiple of 8 bytes, as Python's
// safetensors does.
//
// Load checks everything before it trusts it: the header length against
// the file and the format's 100,000,000-byte limit; the JSON (well
// formed, an object, no name twice, each tensor with exactly dtype,
// shape and data_offsets); each dtype (one of the format's, and one
// hofuse holds); each shape (extents at least 1, as graph arrays have,
// and within graph's caps); each tensor's data length against
// product(shape)·size; and the offsets, which must lie within the data,
// not overlap and leave no byte of it to no tensor (the format forbids
// holes). Every error names the file and the tensor. Match compares the
// loaded tensors with the names and types a model expects and names the
// tensor and both shapes on a mismatch.
//
// Save is atomic: it writes a temporary file beside the target and
// renames it over the target, so a failed or interrupted save leaves the
// old file whole. CheckWritable finds an unwritable path before anything
// else, for callers to call before they spend time training.
//
// # Why not github.com/nlpodyssey/safetensors
//
// That module reads and writes the same format, but its errors do not say
// which tensor or which bytes are wrong ("metadata validation error: info
// data offsets mismatch", "invalid header length"), so every check would
// have to be made again before calling it to give the errors this package
// promises; it has no tagged release; and its dtype's Size panics on a
// value it does not know. The format is small (a length, a JSON object,
// bytes), so this package writes it itself, following the published
// specification.
//
// # Aliasing
//
// Load returns new arrays that share nothing with the file's bytes.
// Save reads the arrays (any layout, views included) and keeps nothing.
package checkpoint
