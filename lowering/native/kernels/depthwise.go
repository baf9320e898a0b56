package kernels

import "fmt"

// Depthwise computes the products of a depthwise convolution (one filter
// per channel) at P positions of C channels, the window's taps at
// offsets offs from a position:
//
//	out[j·ldo + c] = Σ_t img[j·ps + offs[t] + c] · filt[t·ldf + c]   (j < P, c < C)
//
// summed over the taps in order from zero. With AVX2 (and FMA) the
// channels go a register tile of four positions by one or two vectors at
// a time (AVX-512's vectors where there is AVX-512, then AVX2's for the
// rest), each tap's filter vectors loaded once for the four positions
// and added by fused multiply-adds; the channels past the last whole
// vector, and every channel without AVX2, element by element. A position
// stride ps of C is a run of positions along an image's row; a larger one
// a strided convolution's. Nothing is read past the last position's
// window. It panics if an operand is too short or a stride or offset is
// negative: the callers compute them, so that is a bug.
func Depthwise[T float32 | float64](out []T, ldo int, img []T, ps int, offs []int, filt []T, ldf, P, C int) {
	if P <= 0 || C <= 0 {
		return
	}
	if len(offs) == 0 {
		for j := range P {
			clear(out[j*ldo:][:C])
		}
		return
	}
	lo, hi := offs[0], offs[0]
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo < 0 || ps < 0 || ldo < 0 || ldf < 0 ||
		(P-1)*ps+hi+C > len(img) || (P-1)*ldo+C > len(out) || (len(offs)-1)*ldf+C > len(filt) {
		panic(fmt.Sprintf("kernels: Depthwise: %d positions of %d channels (strides %d, %d), taps at %d to %d (filters %d apart): operands of %d, %d and %d elements",
			P, C, ps, ldo, lo, hi, ldf, len(img), len(out), len(filt)))
	}
	c0 := 0
	if hasAVX2 {
		c0 = depthwiseAsm(out, ldo, img, ps, offs, filt, ldf, P, C)
	}
	if c0 == C {
		return
	}
	for j := range P {
		o := out[j*ldo:][c0:C]
		clear(o)
		for t, off := range offs {
			x, w := img[j*ps+off:][c0:C], filt[t*ldf:][c0:C]
			for c := range o {
				o[c] += x[c] * w[c]
			}
		}
	}
}

// depthwiseFn is the signature of the depthwise assembly kernels.
type depthwiseFn[T float32 | float64] func(n, taps int, out *T, ldo int, img *T, ps int, offs *int, filt *T, ldf int)

// The kernels of depthwiseAsm's blocks: [four positions or one][one
// vector of channels or two].
var (
	depthwiseF32 = [2][2]depthwiseFn[float32]{
		{depthwiseF32AVX2P1x1, depthwiseF32AVX2P1x2},
		{depthwiseF32AVX2P4x1, depthwiseF32AVX2P4x2},
	}
	depthwiseF64 = [2][2]depthwiseFn[float64]{
		{depthwiseF64AVX2P1x1, depthwiseF64AVX2P1x2},
		{depthwiseF64AVX2P4x1, depthwiseF64AVX2P4x2},
	}
	depthwiseF32Z = [2][2]depthwiseFn[float32]{
		{depthwiseF32AVX512P1x1, depthwiseF32AVX512P1x2},
		{depthwiseF32AVX512P4x1, depthwiseF32AVX512P4x2},
	}
	depthwiseF64Z = [2][2]depthwiseFn[float64]{
		{depthwiseF64AVX512P1x1, depthwiseF64AVX512P1x2},
		{depthwiseF64AVX512P4x1, depthwiseF64AVX512P4x2},
	}
)

// depthwiseAsm runs Depthwise's assembly kernels over the channels of
// whole vectors and returns how many channels they computed: AVX-512's
// vectors with AVX-512, then (or else) AVX2's.
func depthwiseAsm[T float32 | float64](out []T, ldo int, img []T, ps int, offs []int, filt []T, ldf, P, C int) int {
	var fns, wide *[2][2]depthwiseFn[T]
	lanes := 8
	switch any(out).(type) {
	case []float32:
		fns, wide = any(&depthwiseF32).(*[2][2]depthwiseFn[T]), any(&depthwiseF32Z).(*[2][2]depthwiseFn[T])
	default:
		fns, wide, lanes = any(&depthwiseF64).(*[2][2]depthwiseFn[T]), any(&depthwiseF64Z).(*[2][2]depthwiseFn[T]), 4
	}
	c0 := 0
	if hasAVX512 {
		c0 = depthwiseBlocks(wide, 2*lanes, out, ldo, img, ps, offs, filt, ldf, P, C)
	}
	if C-c0 >= lanes {
		c0 += depthwiseBlocks(fns, lanes, out[c0:], ldo, img[c0:], ps, offs, filt[c0:], ldf, P, C-c0)
	}
	return c0
}

// depthwiseBlocks runs fns, kernels of vectors of lanes channels, over
// the channels of whole vectors and returns how many they computed.
func depthwiseBlocks[T float32 | float64](fns *[2][2]depthwiseFn[T], lanes int, out []T, ldo int, img []T, ps int, offs []int, filt []T, ldf, P, C int) int {
	return forBlocks(lanes, P, C, func(k, v, n, j, c int) {
		fns[k][v](n, len(offs), &out[j*ldo+c], ldo, &img[j*ps+c], ps, &offs[0], &filt[c], ldf)
	})
}

// forBlocks tiles P positions of C channels as the depthwise and grouped
// kernels take them, four positions at a time (one for the last few) by
// pairs of vectors of lanes channels, then one vector: blk(k, v, n, j, c)
// runs kernel [k][v] (k 1: four positions, v 1: pairs of vectors) over n
// blocks from position j and channel c. It returns how many channels the
// blocks cover.
func forBlocks(lanes, P, C int, blk func(k, v, n, j, c int)) int {
	pairs, single := C/(2*lanes), C%(2*lanes) >= lanes
	c1 := 2 * lanes * pairs
	for j := 0; j < P; {
		q, k := 1, 0
		if P-j >= 4 {
			q, k = 4, 1
		}
		if pairs > 0 {
			blk(k, 1, pairs, j, 0)
		}
		if single {
			blk(k, 0, 1, j, c1)
		}
		j += q
	}
	if single {
		return c1 + lanes
	}
	return c1
}

// Grouped computes the products of a grouped convolution whose groups
// each have g input channels and g filters (a ResNeXt's; Depthwise is
// g = 1), at P positions of C channels (C a multiple of g), the window's
// taps at offsets offs from a position:
//
//	out[j·ldo + c] = Σ_t Σ_{i<g} img[j·ps + offs[t] + c − c mod g + i] · filt[(t·g + i)·ldf + c]
//
// summed over the taps, and within a tap over i, in order from zero.
// With AVX2 and g dividing 8, or AVX-512 and g dividing 16
// (GroupedVectors), float32 channels go as Depthwise's, in tiles of four
// positions by one or two vectors, each product added by a fused
// multiply-add; for each (t, i) every image vector is read once through a
// permutation (VPERMPS) that gives each channel's lane its group's input
// channel i. The channels past the last whole vector, and all of them
// otherwise, go element by element. With a permutation for every
// product, the kernels reach half the FMA units' peak at best (AVX2's
// vectors, half as wide, a quarter); per-group products of g columns
// (kernels.Gemm) used under a tenth of it, their packing most of the
// rest. It panics if an operand is too short, a stride or offset is
// negative or g does not divide C.
func Grouped[T float32 | float64](out []T, ldo int, img []T, ps int, offs []int, filt []T, ldf, P, C, g int) {
	if g == 1 {
		Depthwise(out, ldo, img, ps, offs, filt, ldf, P, C)
		return
	}
	if P <= 0 || C <= 0 {
		return
	}
	lo, hi := 0, 0
	if len(offs) > 0 {
		lo, hi = offs[0], offs[0]
	}
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	if g < 1 || C%g != 0 || lo < 0 || ps < 0 || ldo < 0 || ldf < 0 ||
		(P-1)*ps+hi+C > len(img) || (P-1)*ldo+C > len(out) || (len(offs) > 0 && (len(offs)*g-1)*ldf+C > len(filt)) {
		panic(fmt.Sprintf("kernels: Grouped: %d positions of %d channels in groups of %d (strides %d, %d), taps at %d to %d (filters %d apart): operands of %d, %d and %d elements",
			P, C, g, ps, ldo, lo, hi, ldf, len(img), len(out), len(filt)))
	}
	c0 := 0
	if o32, ok := any(out).([]float32); ok && GroupedVectors(g) && len(offs) > 0 {
		c0 = groupedAsm(o32, ldo, any(img).([]float32), ps, offs, any(filt).([]float32), ldf, P, C, g)
	}
	if c0 == C {
		return
	}
	for j := range P {
		o := out[j*ldo:][c0:C]
		clear(o)
		for t, off := range offs {
			x := img[j*ps+off:]
			for i := range g {
				w := filt[(t*g+i)*ldf:]
				for c := c0; c < C; c++ {
					o[c-c0] += x[c-c%g+i] * w[c]
				}
			}
		}
	}
}

// GroupedVectors reports whether Grouped computes float32 groups of g
// channels a vector at a time: g of 2, 4 or 8 with AVX2, and 16 too with
// AVX-512.
func GroupedVectors(g int) bool {
	return g > 1 && (hasAVX2 && 8%g == 0 || hasAVX512 && 16%g == 0)
}

// groupedIdx holds, for groups of g channels, g vectors of sixteen lane
// indices: vector i sends lane l lane l − l mod g + i. The AVX2 kernels
// read the first eight lanes of each. groupedIdxAt says where each g's
// vectors start.
var groupedIdx = func() (idx [30][16]int32) {
	k := 0
	for _, g := range []int{2, 4, 8, 16} {
		for i := range g {
			for l := range 16 {
				idx[k][l] = int32(l - l%g + i)
			}
			k++
		}
	}
	return idx
}()

func groupedIdxAt(g int) int { return map[int]int{2: 0, 4: 2, 8: 6, 16: 14}[g] }

// The kernels of groupedAsm's blocks: [four positions or one][one vector
// of channels or two].
type groupedFn func(n, taps int, out *float32, ldo int, img *float32, ps int, offs *int, filt *float32, ldf int, idx *int32, groups int)

var (
	groupedAVX2   = [2][2]groupedFn{{groupedF32AVX2P1x1, groupedF32AVX2P1x2}, {groupedF32AVX2P4x1, groupedF32AVX2P4x2}}
	groupedAVX512 = [2][2]groupedFn{{groupedF32AVX512P1x1, groupedF32AVX512P1x2}, {groupedF32AVX512P4x1, groupedF32AVX512P4x2}}
)

// groupedAsm runs Grouped's assembly kernels over the channels of whole
// vectors and returns how many channels they computed: AVX-512's vectors
// of sixteen where it takes g, then (or else) AVX2's of eight.
func groupedAsm(out []float32, ldo int, img []float32, ps int, offs []int, filt []float32, ldf, P, C, g int) int {
	c0 := 0
	if hasAVX512 && 16%g == 0 {
		c0 = groupedBlocks(&groupedAVX512, 16, out, ldo, img, ps, offs, filt, ldf, P, C, g)
	}
	if hasAVX2 && 8%g == 0 && C-c0 >= 8 {
		c0 += groupedBlocks(&groupedAVX2, 8, out[c0:], ldo, img[c0:], ps, offs, filt[c0:], ldf, P, C-c0, g)
	}
	return c0
}

// groupedBlocks runs fns, kernels of vectors of lanes channels, over the
// channels of whole vectors and returns how many they computed.
func groupedBlocks(fns *[2][2]groupedFn, lanes int, out []float32, ldo int, img []float32, ps int, offs []int, filt []float32, ldf, P, C, g int) int {
	idx := &groupedIdx[groupedIdxAt(g)][0]
	return forBlocks(lanes, P, C, func(k, v, n, j, c int) {
		fns[k][v](n, len(offs), &out[j*ldo+c], ldo, &img[j*ps+c], ps, &offs[0], &filt[c], ldf, idx, g)
	})
}
