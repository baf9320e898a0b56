// Package conv recognises convolutions written in the IR, for the back
// ends that run them as one operation: lowering/native as a GEMM over the
// windows of the input, lowering/stablehlo as stablehlo.convolution.
//
// What it recognises is the shape layers.Conv1D and Conv2D give, for each
// image,
//
//	nzip (map (.. (\r -> nzip (\.. c .. p1 .. pk -> E(dot r c, p1, .., pk)) .. C .. P1 .. Pk) ..)) W
//
// with maps over the window positions of W, dot the full contraction of
// a window r with a filter c of C (rnz (+) (\a b -> .. rnz (+) (*) a' b')
// r c), C and the Pi independent of the positions, and E using r and c
// only through the dots. Find matches the function of that nzip, and
// says why not (an error wrapping ErrNotConv) when it does not; the
// grouped filters of layers.Conv2D with Groups > 1 are matched too
// (Grouping). WindowGeometry reads the view chain of W (ViewChain) as
// the positions, the window elements and the channels of its base array,
// with each axis's window, padding, stride and dilation.
//
// Nothing here depends on a back end: each decides from the description
// what it can run (the native back end, for one, only the fused,
// ungrouped form, over any strided windows; StableHLO any of them whose
// geometry WindowGeometry reads).
package conv
