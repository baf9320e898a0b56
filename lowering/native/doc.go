// Package native is hofuse's in-process back end: it compiles the kernels
// of a fusion.Graph into Go loop nests over strided views and runs them
// without allocating.
//
//	p, err := native.New(native.Options{}).Plan(g) // or Compile, for a lowering.Executable
//	out, err := p.Run(map[string]graph.Value{"x": x, "dense1.W": w, ...})
//
// # How a kernel becomes loops
//
// Compilation happens once, in Plan; at run time no term is looked at
// again. Each kernel body is first normalised (normalize.go: the row part
// of a contraction that every column would recompute, a scaler fused into
// a dense layer, is computed once per row, prologue.go; closed
// subterms under lambdas are hoisted and computed once per run, nzip
// arguments that are nzips are composed into their consumer when that is
// free, applications are beta-reduced by fusion.Beta; short max, min and +
// reductions are unrolled, views of a map's parameters lifted out of it,
// small lets under a map computed for all its elements first, and a short
// map over a window's axes moved out of the positions' map, unroll.go:
// a pooling and its gradient then run as loops over all positions; the
// scalars a map under a loop computes from closed vectors alone, such as
// a BatchNorm gradient's per-channel reciprocal standard deviation, are
// hoisted and computed once per run, invariant.go; floating-point
// negations are folded into the ops around them where an exact identity
// allows, negfold.go), then compiled in
// destination-passing style: every term is compiled into code that writes
// its value into a destination, a strided view of a buffer, or accumulates
// into it.
//
// Shapes and strides are static, so a view at run time is just an offset in
// an integer register. nzip f xs into d is a loop over the outer axis that
// sets, at iteration i, the element registers of the arguments and of the
// destination to their offsets plus i times their outer stride — sub-views
// by offset arithmetic, no allocation — and runs f's code, which was
// compiled with f's parameters bound to those element views. rnz r f xs
// runs f on the first element into the destination and then, when r is an
// accumulating op (+, *, max, min, and, or) lifted to the accumulator's
// rank (zip (+), zip (zip max), ...), runs f on every other element in
// accumulate mode: the destination's leaves carry the op, and everything
// below stores with it (d += ...). That is how the paper's loop orders run
// without temporaries: rnz (zip (+)) (\c q -> map (\e -> e * q) c) (flip 0 A)
// u becomes for j: for i: acc[i] += A[i,j]*u[j]. A reduction nested in an
// accumulation with the same op accumulates straight through; with another
// op it reduces into scratch first. Tuple accumulators reduced
// componentwise get one op per component. Any other reduction function
// computes each element into scratch and combines through a second
// scratch.
//
// Innermost loops, whose elements are scalars, are compiled into vector
// programs (vexpr.go): the scalar body becomes a few instructions, each a
// tight loop over a chunk of 2048 elements, run chunk by chunk; values that
// do not depend on the element are computed once per loop and broadcast.
// A unit-stride row of the program's type is read in place, and a result
// computed by the last instruction and stored plainly into a unit-stride
// row is written there directly; a reduction folds each chunk as it is
// computed (float32 sums through 32 partial sums), so a row chain of maps
// and reductions — a softmax, a LayerNorm — makes one pass per reduction
// over its row, the later ones from cache. exp (x - c), c invariant, the
// shifted exponential of a softmax row, is one instruction
// (kernels.ExpSubF32) when the difference is read by the exp alone, as
// is GELU's erf (x · c) + d (kernels.ErfAffineF32), and its erf (x / c)
// + d as exporters write it (kernels.ErfDivAffineAheadF32). Tanh and the logistic of float32 values
// run in float64 vectors (kernels.TanhF32, LogisticF32), and
// a power by a whole exponent from 2 to 64 multiplies (pow). A
// run of + - × / (and max and min with an invariant), each reading the
// one before and read nowhere else, is one (kernels.Chain, fuseChains): a
// LayerNorm's (x - m)·k·g + b is one pass over the chunk with the values
// between in registers, not four, and so is a convolution's bias,
// BatchNorm and ReLU6.
// Comparisons and selects are branch-free (kernels.Compare, Select).
// Programs whose values are all f32 run in float32 (the interpreter's
// results exactly, for the correctly rounded ops); others run in float64
// and round every op to its type, as the interpreter does. A body whose
// results the program cannot follow (a nested tuple, a let or argument
// that is a tuple or array depending on the element) is refused with
// errNotVectorisable and gets the general loop, the plan's description
// saying why; a subterm it cannot express becomes a per-element closure
// inside the program. Any other error of the builder fails the plan.
// Scalars outside innermost loops become closures built once per operation
// shape (scalar.go), never a walk over the term per element.
//
// What each scalar op computes (NaN through max and min, -0, i32 wrapping
// and division, conversions) is graph's "Scalar semantics"; the typing
// rules and the functions for the cases the loops do not specialise (i32
// ops, folding constants) come from graph.Op.Resolve, Op.Unary and
// Op.Binary, and graphtest.EdgeCases checks the results bit for bit.
//
// # Patterns
//
// The compiler recognises these shapes (Describe reports which fired):
//
//	rnz (+) (*) x y, x and y float vectors        kernels.Dot
//	map (\r -> rnz (+) (*) r u) A (or rows of two
//	matrices dotted pairwise)                      one loop of kernels.Dot calls
//	d += map (\b -> a * b) x, a invariant         kernels.Axpy
//	map/zip of scalar bodies over rows             vector loop, one chunk at a time
//	plain row copies                               copy
//	rnz op f xs, scalar result, op accumulating    vector loop folded left to right
//	let s = rnz op f r in map (\w -> E(f w, s)) r  f r computed once into the destination,
//	(a softmax row)                                then the fold and E read it back
//	let v = E in let s.. = (scalars) in            E computed into the destination,
//	nzip F .. v .., v not read otherwise           the map after it in place there
//	(the softmax of five exporter operators)
//	either of the two above, rows of 16 KiB or     f r or E computed into scratch, the
//	more in an output of half the last cache       map streams its chunks to the
//	                                               destination (kernels.Stream)
//	map (\r -> nzip (\c p1..pk -> E(rnz (+) (*) r c, p1..pk)) C P1..Pk) X
//	                                               kernels.Gemm (X·Cᵀ) with E applied to
//	                                               each finished row segment in place
//	map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 W)) b) X
//	                                               the same, once the inner map is composed
//	the naive matrix product (E = the dot)         kernels.Gemm, accumulating when the
//	                                               destination accumulates
//	map (map (\w -> nzip (\c p1..pk -> E(dot w c, p1..pk)) C P1..Pk)) W,
//	W windows of an image, dot a full contraction  kernels.Gemm, the windows packed from the
//	of a window with a filter (a convolution)      image into its panels (PackA: an implicit
//	                                               im2col), E per row segment (conv.go); at
//	                                               most 32 float32 or 16 float64 filters,
//	                                               kernels.GatherGemm split by rows over the
//	                                               goroutines, each window element read
//	                                               through its offset and nothing packed,
//	                                               E after each part
//	the same with one filter per channel (a
//	depthwise convolution, an ONNX Conv of group
//	equal to its channels)                         kernels.Depthwise over runs of positions
//	                                               along a row, at any stride: four
//	                                               positions' sums of a block of channels
//	                                               in registers over the taps; E per run
//	                                               (depthwise.go)
//	the same in groups of 2, 4, 8 (or with         kernels.Grouped as Depthwise, each image
//	AVX-512 16) channels and as many filters,      vector permuted to give every channel its
//	float32 (a ResNeXt's)                          group's inputs (depthwise.go)
//	the same in other groups (ShuffleNet's,        a product per group (kernels.GemmWindows
//	AlexNet's)                                     or Gemm as above), group g's windows g
//	                                               group strides on, its filters columns of
//	                                               one gathered K×N matrix; E over all the
//	                                               rows after the last group (grouped.go)
//	map (\v1 -> .. map (\vj -> rnz (+) F a b) Xj ..) X1,
//	each Xi a strided view of the program or of one
//	vi (zips whose other operands are never read
//	too), a and b two of the vi, F (*) or a nested
//	contraction (a convolution's weight gradient
//	over batch and positions, its input gradient's
//	dY·Wᵀ)                                         kernels.Gemm, rows the maps leading to a,
//	                                               columns those leading to b; operands that
//	                                               are no matrices packed through offset
//	                                               tables (contract.go), or for at most 32
//	                                               float32 or 16 float64 columns a left
//	                                               operand read through them by
//	                                               kernels.GatherGemm
//	nzip (nzip g) xs, or a copy, over arrays whose
//	outer axes merge (row-major)                   one loop over the merged axes, repeated
//	                                               while they merge (collapse.go)
//	a copy whose destination's contiguous axis is
//	not the source's (a channels-first image into
//	channels-last scratch)                         the source's rows transposed into the
//	                                               destination's columns, eight at a time
//	                                               (kernels.PackRows; transpose.go)
//	nzip (nzip .. g) xs, g over scalars, whose
//	axes do not merge (a window's positions,
//	a flipped operand), inner axis of 4 to 256     one vector loop over rows of the inner
//	                                               axis, whole rows gathered into each
//	                                               chunk (rowsloop.go)
//
// A pad view is materialised into scratch (its operand written into the
// interior, the rest filled; a chain of pads of one fill at once, filling
// only the border), so windows over it stay strided reads; a
// crop is its operand's view shifted (pad.go).
//
// A subterm of an inner loop's body that depends on the loop only
// through elements of buffers filled before the kernel runs (inputs,
// parameters, earlier kernels' outputs) — rsqrt (v + eps) in batch norm —
// is computed once per run into a vector before the kernel body, instead
// of once per row; fused epilogues and unfused kernels get this alike.
//
// X may be a transposed view (flip 0 of a stored matrix: a weight
// gradient Xᵀ·dY in fusion's contraction normal form), whose columns are
// contiguous: kernels.Gemm packs it in place (TransA). Other GEMM operands
// whose strides the kernel cannot take are packed into scratch first; a destination it cannot write (other element type,
// non-unit inner stride) gets the product in scratch and the epilogue
// stores it. Options.NoGEMM turns the GEMM pattern off so that the loop
// orders of the paper's matrix-product experiment run as written.
//
// # Memory, aliasing and results
//
// Every buffer — kernel outputs, hoisted values, temporaries, scratch,
// vector registers — is allocated when the plan is compiled, in the
// plan's arena; a steady-state Run allocates nothing. Inputs whose layout
// is the declared one are read in place, never written; others (another
// stride, bool and i32 arrays) are copied into a buffer of the declared
// layout first, and so is an array that lies in the plan's own arena (a
// previous result fed back as an input), which the kernels would
// overwrite while reading it. Inside a vector program a unit-stride row of
// the program's element type is read in place rather than copied into a
// vector register. Kernel outputs are materialised row-major, one buffer
// each, never aliasing an input or each other, so the unfused graph
// really writes and rereads every layer's output. Run returns a value
// built over the arena once: it is valid until the next Run or Close,
// which overwrite or release it. A scalar result is boxed anew only when
// its value changes.
//
// Plan.FixInputs names inputs whose arrays are not written between runs
// (a network's weights at inference): a product whose right operand is
// one of them in place packs it into the GEMM kernel's panels on the
// first run and keeps the packed copy, the plan's only memory outside the
// arena, for as long as the same array is bound. On the MLP 784-512-512-10 at batch 256
// (two threads, Zen 3) its products took 3.1 ms median with the weights
// kept packed against 3.8 read in place and 4.5 packed on every run.
//
// # Concurrency
//
// A plan's parallel loops run on package kernels' worker pool, the
// goroutines its GEMMs fork onto too (kernels.Fork): a plan owns no
// goroutines, and one set of workers serves every loop and product of a
// run, so a worker that has just run a loop is still polling when the next
// product forks, and the other way round. A worker that finishes a part
// polls for the next for kernels' spin time before it parks, and the
// caller polls for the workers before it waits (kernels.SpinUntil): a
// plan's loops follow each other within microseconds, and waking a parked
// goroutine goes through the OS. The outermost loop of a kernel that is
// worth it (by an estimate of its work) is split in grains that the parts
// claim dynamically, one part per frame (registers, vector registers, and
// private copies of scratch the loop body uses), run by the caller or a
// worker, whichever takes it first. Loops inside a parallel loop run
// sequentially. A large reduction by an associative and commutative op
// (graph.Op.Algebra) outside any parallel loop is split into one
// contiguous part per frame, each reduced into its own accumulator, and
// the parts are combined in order, so results do not depend on scheduling.
// A GEMM's epilogues run on one frame per part of the product
// (kernels.GemmParams.EpiloguePart), in parallel and without locks, or on
// the caller's when kernels.GemmThreads says the product runs on one
// thread. With Parallelism 1 everything runs on the caller's goroutine.
// Runs of one plan are serialised; distinct plans are independent.
//
// # Errors
//
// Run reports a missing, extra, mistyped or misshapen input by name
// (graph.CheckInputs) and never panics; an internal error (a compiler bug,
// or a kernel body that cannot be normalised) is returned naming the
// kernel, never papered over by compiling another form of the body.
package native
