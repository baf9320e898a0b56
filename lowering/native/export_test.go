package native

import "os"

func init() {
	debugPanics = os.Getenv("HOFUSE_NATIVE_PANICS") != ""
}

// DisableGather makes the plans compiled until the end of t pack every
// scattered left operand for kernels.Gemm instead of reading it through
// its offsets by kernels.GatherGemm, so that the packed paths stay
// tested on machines that have the gather kernels.
func DisableGather(t interface{ Cleanup(func()) }) {
	noGather = true
	t.Cleanup(func() { noGather = false })
}

// DisableRowsFold makes the plans run until the end of t compute the
// folds of rows that kernels.FoldRows takes (a max pooling's window) by
// their chunks instead, as a machine without AVX-512 does, so that both
// paths stay tested.
func DisableRowsFold(t interface{ Cleanup(func()) }) {
	noRowsFold = true
	t.Cleanup(func() { noRowsFold = false })
}

// VectorChunk is the elements a vector program computes at a time, for
// tests whose rows span several chunks.
const VectorChunk = chunk

// FlatChunk is what a flat program fills a vector register with, for
// tests whose sizes are chosen around it.
const FlatChunk = flatChunk

// CountRepackB counts, until the end of t, the products that pack a fixed
// right operand (Plan.FixInputs) into the copy they keep.
func CountRepackB(t interface{ Cleanup(func()) }) *int {
	n := new(int)
	onRepackB = func() { *n++ }
	t.Cleanup(func() { onRepackB = nil })
	return n
}

// CountGatherFilters counts, until the end of t, the convolutions that
// gather fixed filters (Plan.FixInputs) into the scratch they keep.
func CountGatherFilters(t interface{ Cleanup(func()) }) *int {
	n := new(int)
	onGatherFilters = func() { *n++ }
	t.Cleanup(func() { onGatherFilters = nil })
	return n
}

// DisableStream makes the plans compiled until the end of t compute a
// row program's let into its destination whatever its size, instead of
// into scratch with the map after it streamed (letRow).
func DisableStream(t interface{ Cleanup(func()) }) {
	noStream = true
	t.Cleanup(func() { noStream = false })
}

// SetLastCache makes the plans compiled until the end of t decide whether
// to stream (letRow) as if the machine's last cache held bytes.
func SetLastCache(t interface{ Cleanup(func()) }, bytes int) {
	lastCacheTest = bytes
	t.Cleanup(func() { lastCacheTest = 0 })
}

// DisableFold makes the plans compiled until the end of t fill a row and
// then reduce it, instead of reducing each chunk as the fill writes it
// (fillFold).
func DisableFold(t interface{ Cleanup(func()) }) {
	noFold = true
	t.Cleanup(func() { noFold = false })
}

// DisableGELU makes the plans compiled until the end of t run GELU's
// products as a chain after the erf's pass, instead of in it (fuseGELU).
func DisableGELU(t interface{ Cleanup(func()) }) {
	noGELU = true
	t.Cleanup(func() { noGELU = false })
}
