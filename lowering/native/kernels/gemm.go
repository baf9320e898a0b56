package kernels

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// GemmParams describes one matrix product C = A·B, or C += A·B when
// Accumulate is set, on row-major views: row i of A starts at A[i·LDA], and
// so on. A is M×K, or with TransA K×M (the rows of A are then the columns
// of the left operand, as for Aᵀ·B); B is K×N, or with TransB N×K (the rows
// of B are then the columns of the product's right operand, as for A·Bᵀ);
// C is M×N. Any of M, N, K may be 0 or odd.
type GemmParams[T float32 | float64] struct {
	M, N, K int

	A   []T // M×K, or K×M with TransA
	LDA int // ≥ max(1, K), or ≥ max(1, M) with TransA
	B   []T // K×N, or N×K with TransB
	LDB int // ≥ max(1, N), or ≥ max(1, K) with TransB
	C   []T // M×N; must not overlap A or B
	LDC int // ≥ max(1, N)

	// TransA says A holds Aᵀ: C = Aᵀ·B. The packing of A reads it in
	// place, mr contiguous elements per column of a panel, so a transposed
	// left operand costs no copy.
	TransA bool
	// TransB says B holds Bᵀ: C = A·Bᵀ.
	TransB bool
	// Accumulate adds the product to C instead of overwriting it.
	Accumulate bool
	// Threads is the number of goroutines the product may use, the caller's
	// included; ≤ 1 runs it sequentially on the caller's goroutine. Small
	// products use fewer threads than asked.
	Threads int
	// Epilogue, if not nil, is called once for every row segment of C when
	// the segment is final, while it is still in cache: row is the row,
	// col0 the first column, c the segment C[row·LDC+col0:][:len(c)]. The
	// segments of one row cover its N columns exactly once; they come in no
	// particular order and, with Threads > 1, concurrently from several
	// goroutines. An epilogue may rewrite c in place (bias, activation); it
	// must not touch other parts of C, and must not use this Workspace.
	Epilogue func(row, col0 int, c []T)
	// EpilogueRows, if not nil, takes the place of Epilogue where the
	// product finishes a block of rows at once: it is called with rows
	// [row0, row1) and columns [col0, col1) of C final, so that an
	// epilogue of many short rows pays its dispatch once per block. The
	// same rules as Epilogue's hold for the block. Epilogue must be set
	// too: the paths that finish one row at a time call it. With it (or
	// EpiloguePart) the threads' chunks keep whole rows where each thread
	// still gets one.
	EpilogueRows func(row0, row1, col0, col1 int)
	// EpiloguePart, if not nil, takes the place of Epilogue and
	// EpilogueRows: each part of the product (one goroutine's share,
	// numbered from 0 to fewer than GemmThreads) calls it once, when it
	// starts, for the pair of functions it then uses for the rows it
	// computes, with their rules (rows may be nil; epi must not be nil
	// when rows is not). A part's functions are called from one goroutine
	// at a time, so they may use state private to the part — a frame of
	// registers — without locking, and the epilogues of several parts
	// still run in parallel.
	EpiloguePart func(part int) (epi func(row, col0 int, c []T), rows func(row0, row1, col0, col1 int))
	// Work holds the packing buffers; nil uses an internal pool. A
	// Workspace must not be used by two products at once.
	Work *Workspace

	// PackA, if not nil, supplies the left operand in place of A (A, LDA
	// and TransA are then ignored): it writes rows [i0, i0+h) and columns
	// [k0, k0+kc) of the M×K left operand into dst, one panel of mr ≥ h
	// rows in the micro-kernel's layout, zero-padded past h:
	//
	//	dst[kk·mr + ii] = A[i0+ii][k0+kk]   (ii < h; 0 for h ≤ ii < mr)
	//
	// An operand that exists only implicitly — the windows of an image,
	// an im2col never stored — is then packed once, straight from where it
	// lies, instead of being copied into a matrix that the product packs
	// again. With Threads > 1 it is called concurrently from several
	// goroutines, for disjoint panels; it must write nothing but dst.
	PackA func(dst []T, mr, i0, h, k0, kc int)

	// PackedB, if not nil, holds B already packed by PackB for this
	// product's shape: the product reads it instead of packing B (or
	// reading it in place), and B may be nil. A right operand used by many
	// products — a network's weights, run after run — is then packed once.
	// The products that read B row by row without gemvRow's kernels (at
	// most four rows of A with TransB, or without AVX2), for which
	// UsesPackedB is false, ignore it and need B.
	PackedB *PackedB[T]
}

// A PackedB is the right operand of a product packed for GemmParams.PackedB:
// into the micro-kernel's panels, or for a product of at most four rows
// into gemvRow's tiles of columns, each tile's rows one after the other.
// Its zero value is empty; PackB fills it, reusing its memory.
type PackedB[T float32 | float64] struct {
	data   []T
	bl     bLayout
	kern   *microKernel[T]
	transB bool
	// gemv is set when data holds B in tiles (packGemvB) of tile
	// columns, n×k.
	gemv bool
	tile int
	n, k int
}

// PackB packs the right operand of the product p describes — B, LDB and
// TransB for p's N and K, in the layout its M and PackA call for, and for
// a product of at most four rows in tiles of columns that give each of
// its Threads one where there are enough columns; the other fields are
// ignored — into dst, for the products of that shape to take as
// GemmParams.PackedB (on any number of threads). It panics if B is too
// short for them.
func PackB[T float32 | float64](dst *PackedB[T], p GemmParams[T]) {
	if p.N < 0 || p.K < 0 {
		panic("kernels: PackB: negative dimension")
	}
	checkLDB(p.N, p.K, p.LDB, p.TransB)
	dst.n, dst.k, dst.transB = p.N, p.K, p.TransB
	if dst.gemv = gemvPacked(p.M, p.PackA != nil, p.TransB); dst.gemv {
		dst.kern, dst.bl, dst.tile = nil, bLayout{}, gemvTileCols[T](p.N, GemmThreads(p.M, p.N, p.K, p.Threads, false))
		dst.data = grow(dst.data, p.N*p.K)
		if p.N > 0 && p.K > 0 {
			packGemvB(dst.data, checkB(p.N, p.K, p.B, p.LDB, false), p.LDB, p.N, p.K, dst.tile)
		}
		return
	}
	kern := kernelsOf[T]()[0].forN(p.N)
	dst.bl, dst.kern = newBLayout(p.N, p.K, kern), kern
	dst.data = grow(dst.data, dst.bl.size())
	if p.N == 0 || p.K == 0 {
		return
	}
	checkB(p.N, p.K, p.B, p.LDB, p.TransB)
	for u := range packBUnits(dst.bl, p.TransB) {
		packBUnit(dst.data, dst.bl, p.B, p.LDB, p.TransB, u)
	}
}

// kernelsOf returns the micro-kernels of T, best first.
func kernelsOf[T float32 | float64]() []*microKernel[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(gemmKernelsF32).([]*microKernel[T])
	}
	return any(gemmKernelsF64).([]*microKernel[T])
}

// fits reports whether b holds the right operand, of n columns and k
// rows (transposed or not), of a product of m rows (packA: with PackA)
// on the micro-kernel kern, packed in the layout that product reads. A
// product of few rows reads gemvRow's tiles of any width: those PackB
// cut for the threads it was given.
func (b *PackedB[T]) fits(m, n, k int, packA, transB bool, kern *microKernel[T]) bool {
	if b.n != n || b.k != k || b.transB != transB {
		return false
	}
	if gemvPacked(m, packA, transB) {
		return b.gemv
	}
	return !b.gemv && b.kern == kern
}

// UsesPackedB reports whether a product of m rows (packA: with PackA;
// transB: with TransB) reads GemmParams.PackedB: every product but those
// of at most four rows that read B row by row without gemvRow's kernels.
func UsesPackedB(m int, packA, transB bool) bool {
	return m > smallM || packA || gemvPacked(m, packA, transB)
}

// gemvPacked reports whether a product of m rows reads B row by row with
// gemvRow, and so takes PackedB in gemvRow's tiles: at most four rows,
// without PackA or TransB, where gemvRow's kernels are.
func gemvPacked(m int, packA, transB bool) bool {
	return m >= 1 && m <= smallM && !packA && !transB && hasGemvAsm
}

// GemmF32 computes the float32 product p describes. It panics if p is
// invalid (a short slice, a small leading dimension, C overlapping A or B):
// the native executor checks shapes before it calls, so that is a bug.
func GemmF32(p GemmParams[float32]) { gemm(&p, gemmKernelsF32[0].forN(p.N)) }

// GemmF64 computes the float64 product p describes. See GemmF32.
func GemmF64(p GemmParams[float64]) { gemm(&p, gemmKernelsF64[0].forN(p.N)) }

// A Workspace holds the packed operands and worker state of GemmF32 and
// GemmF64 so that steady-state products do not allocate. Its zero value is
// ready; it grows to the largest product it has served and keeps that
// memory until it is garbage.
type Workspace struct {
	f32 gemmJob[float32]
	f64 gemmJob[float64]
}

var workspaces = sync.Pool{New: func() any { return new(Workspace) }}

// jobOf returns w's job for element type T.
func jobOf[T float32 | float64](w *Workspace) *gemmJob[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(&w.f32).(*gemmJob[T])
	}
	return any(&w.f64).(*gemmJob[T])
}

// A microKernel computes an mr×nr tile of C from packed panels:
//
//	fn(kc, a, b, c, ldc, add)
//
// reads a[:kc·mr] (kc columns of mr A elements), b[:kc·nr] (kc rows of nr B
// elements) and stores their product to c (row i at c[i·ldc:]), or adds it
// when add is set.
type microKernel[T float32 | float64] struct {
	name   string
	mr, nr int // register tile
	kc     int // largest k block: a kc×nr B panel stays in L1
	mc     int // most rows of A packed at once (a multiple of mr): an mc×kc block stays in L2
	fn     func(kc int, a, b, c []T, ldc int, add bool)
	// fnNext, if not nil, is fn prefetching into L2 the first
	// prefetchShare(kc) elements of next as it runs (b's, where next is
	// shorter). The row panels that share a B panel prefetch the next B
	// panel a share each, so that it does not come from L3 on first use:
	// a 1024² float64 product reads each k block of B (2 MiB, as large
	// as L2) from L3 once per chunk of 96 rows, and its first row panel
	// waited for each B panel. Prefetched, that product took 17% less
	// time on one thread and 12% less on two, float32 9-10% less
	// (medians of per-run ratios, 60 to 80 interleaved runs).
	fnNext func(kc int, a, b, c []T, ldc int, add bool, next []T)

	// strided, if not nil, is fn reading B in place instead of packed:
	// row kk of the kc×nr panel at b[kk·ldb:]. A B that is not
	// transposed and has whole panels (N a multiple of nr) is then never
	// packed: no packing pass, no barrier between it and the compute, no
	// packed copy to read back. The float32 MLP 784-512-512-10 at batch
	// 256 on one core took 1.77 ms of CPU against 1.86 ms packed (medians
	// of 11 interleaved rounds), its kernel time unchanged: the panel's
	// rows stay in L2 between the A panels that reuse it.
	strided func(kc int, a, b []T, ldb int, c []T, ldc int, add bool)
	// direct, if not nil, is strided reading A in place too: row i of the
	// mr×kc panel at a[i·lda:]. Used with strided for a left operand
	// that is not transposed nor supplied by PackA, on whole panels of
	// rows, so that A is not packed either; and with B packed (ldb = nr)
	// for a product narrower than one panel.
	direct func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool)
	// fnPanels and directPanels, if not nil, are fn and direct over np
	// consecutive row panels against the same B panel (packed A's panels
	// one after another, or A's rows in place; C's tiles mr rows apart):
	// one call where there were np. The Go around each call weighs most
	// where a tile makes few steps: the AVX2 ones (Zen 3, medians of 11
	// alternating rounds) took the weight gradient 784×512×32 Aᵀ·B from
	// 451 to 373 µs on one thread, 265 to 214 on two.
	fnPanels     func(kc int, a, b, c []T, ldc int, add bool, np int)
	directPanels func(kc int, a []T, lda int, b []T, ldb int, c []T, ldc int, add bool, np int)
	// directOnly says that B is read in place only where A is too (by
	// direct), and packed otherwise. On AVX2 (Zen 3, two threads, best
	// of 7 alternating rounds) A and B in place beat packing both at 32
	// rows (32×512×784: 256 against 376 µs) and matched it at 256 (1535
	// against 1602 µs), while B in place with A packed, as a transposed
	// left operand is, lost to packing both: 784×512×256 Aᵀ·B 1509
	// against 1436 µs, 784×512×32 252 against 223.
	directOnly bool
	// stridedTails, narrowest first, compute only the first rows of a
	// packed A panel, B in place: a last panel of h < mr rows takes the
	// narrowest with at least h rows instead of all mr (the MLP at batch
	// 256 has 21 panels of 12 rows and one of 4).
	stridedTails []stridedTail[T]

	// narrow, if not nil, is a kernel with a tile at most half as wide, to
	// use when N fits in one of its panels: most of this kernel's tile
	// would be padding (float32 N = 10: 1.2× faster with the 16-wide AVX2
	// tile than with the 32-wide AVX-512 one; float64 N = 8: 1.2×).
	narrow *microKernel[T]
}

// A stridedTail is a kernel for the first rows of a packed A panel of
// the micro-kernel's mr rows, with B in place; it writes rows×nr of C.
type stridedTail[T float32 | float64] struct {
	rows int
	fn   func(kc int, a, b []T, ldb int, c []T, ldc int, add bool)
}

// tailFor returns the narrowest tail kernel for h rows, or nil.
func (k *microKernel[T]) tailFor(h int) *stridedTail[T] {
	for i := range k.stridedTails {
		if k.stridedTails[i].rows >= h {
			return &k.stridedTails[i]
		}
	}
	return nil
}

// forN returns the kernel to use for products with n columns.
func (k *microKernel[T]) forN(n int) *microKernel[T] {
	if k.narrow != nil && n <= k.narrow.nr {
		return k.narrow
	}
	return k
}

// The micro-kernels this machine can run, best first; set up by init in
// kernels_amd64.go or kernels_noasm.go.
var (
	gemmKernelsF32 []*microKernel[float32]
	gemmKernelsF64 []*microKernel[float64]
)

// minWorkPerThread is the fewest multiply-adds a product needs per thread
// before another thread is worth waking: about 6µs of float32 work at a
// core's peak, a few times what waking a pooled worker costs.
const minWorkPerThread = 1 << 19

// chunksPerThread is how many chunks of C a parallel product is cut into
// per thread. Chunks are claimed dynamically, so a thread that shares its
// core with another process takes fewer of them; but a smaller chunk
// reuses each B panel for fewer A panels. The MLP benchmark with two
// threads on an idle machine runs 10% faster with 4 than with 8, and 1-5%
// faster than with 1, 2 or 16.
const chunksPerThread = 4

const (
	phasePackB   = iota // pack units of B
	phasePackA          // pack k blocks of A into sharedA
	phaseCompute        // compute chunks of C
	phaseSmallM         // compute column blocks of C row by row
)

// smallM is the most rows of A for which a product is computed row by row
// with the Axpy loop (Dot with TransB) instead of packing: each row of C
// then reads B once, which costs less than packing B to use it M times
// (float32 K = N = 512: 8× faster for M = 1, 2× for M = 4, 1.2× for M = 6;
// 2× slower for M = 12).
const smallM = 4

// minGemvPerThread is the fewest elements of B a row-by-row product
// reads per thread before another thread is worth waking: 256 KiB of
// float32, about 3 µs from the last-level cache. (The float32 products
// of 784×512 and 512×512 at batch 1 use two threads; 512×10 one.)
const minGemvPerThread = 1 << 16

// smallMBlock is the column block of a parallel row-by-row product, a
// multiple of every vector loop's width.
const smallMBlock = 64

// A bLayout is the shape of a packed B. B is cut into k blocks of kcs rows
// (the last may be shorter) and panels of nr columns (the last zero-padded).
// The blocks lie one after the other; block b, which starts at row
// k0 = b·kcs and has kc rows, holds its npan panels one after the other,
// and each panel holds its kc rows of nr elements:
//
//	packed[k0·npan·nr + jp·kc·nr + kk·nr + jj] = B[k0+kk][jp·nr+jj]
//
// so the micro-kernel reads a kc×nr panel at unit stride.
type bLayout struct {
	n, k int // the shape of B: k rows, n columns
	nr   int // panel width
	kcs  int // k block size
	npan int // panels: ceil(n/nr)
}

// newBLayout cuts k into equal blocks of at most kern.kc rows.
func newBLayout[T float32 | float64](n, k int, kern *microKernel[T]) bLayout {
	kcs := 0
	if k > 0 {
		kcs = ceilDiv(k, ceilDiv(k, kern.kc))
	}
	return bLayout{n: n, k: k, nr: kern.nr, kcs: kcs, npan: ceilDiv(n, kern.nr)}
}

func (l bLayout) size() int { return l.npan * l.nr * l.k }

// packBUnits is the number of pieces packBUnit cuts the packing of B
// into: panels of the stored Bᵀ with transB, else runs of packBRows rows.
func packBUnits(l bLayout, transB bool) int {
	if transB {
		return l.npan
	}
	return ceilDiv(l.k, packBRows)
}

// packBRows is the number of rows of B in a unit of packing.
const packBRows = 16

// packBUnit packs unit u of b (a k×n matrix, or n×k with transB) into dst,
// which has layout l.
//
// Without transB it reads whole rows of B and deals each out over the
// panels. Packing panel by panel reads B down its columns in 128-byte
// pieces, which the hardware prefetchers do not follow: when B is not in
// cache, as in the MLP benchmark, that took 0.53 ms for 784×512 float32
// against 0.32 ms row by row (it is 1.5× faster when B is in L2).
func packBUnit[T float32 | float64](dst []T, l bLayout, b []T, ldb int, transB bool, u int) {
	nr := l.nr
	if transB {
		// Panel u: rows col0.. of the stored Bᵀ are columns col0.. of B.
		col0 := u * nr
		w := min(nr, l.n-col0)
		for k0 := 0; k0 < l.k; k0 += l.kcs {
			kc := min(l.kcs, l.k-k0)
			interleave(dst[k0*l.npan*nr+u*kc*nr:][:kc*nr], nr, b[col0*ldb+k0:], ldb, w, kc)
		}
		return
	}
	full := l.n / nr // panels without padding
	for kk := u * packBRows; kk < min(l.k, (u+1)*packBRows); kk++ {
		k0 := kk / l.kcs * l.kcs
		kc := min(l.kcs, l.k-k0)
		d := dst[k0*l.npan*nr+(kk-k0)*nr:]
		src := b[kk*ldb:][:l.n]
		copyPanelRows(d, kc*nr, src, nr, full)
		if full < l.npan {
			r := d[full*kc*nr:][:nr]
			clear(r[copy(r, src[full*nr:]):])
		}
	}
}

// copyPanelRows copies the first np pieces of nr elements of src, one
// after the other, to d at 0, stride, 2·stride, …: a row of B dealt out
// over np panels. Pieces of 64 or 128 bytes (every asm kernel's nr) are
// copied as fixed-size arrays, which the compiler turns into a few vector
// moves, instead of a call to memmove for each: BenchmarkPackB, medians of
// six alternating rounds, 1024×1024 float32 1.19 against 0.81 ms,
// float64 4.10 against 3.66 ms, 784×512 float32 0.27 against 0.19 ms.
func copyPanelRows[T float32 | float64](d []T, stride int, src []T, nr, np int) {
	if np == 0 {
		return
	}
	_ = d[(np-1)*stride+nr-1]
	_ = src[np*nr-1]
	switch uintptr(nr) * unsafe.Sizeof(d[0]) {
	case 64:
		for jp := range np {
			*(*[64]byte)(unsafe.Pointer(&d[jp*stride])) = *(*[64]byte)(unsafe.Pointer(&src[jp*nr]))
		}
	case 128:
		for jp := range np {
			*(*[128]byte)(unsafe.Pointer(&d[jp*stride])) = *(*[128]byte)(unsafe.Pointer(&src[jp*nr]))
		}
	default:
		for jp := range np {
			copy(d[jp*stride:][:nr], src[jp*nr:])
		}
	}
}

// A gemmJob is one product in flight: the parameters, the blocking derived
// from them, and the buffers.
type gemmJob[T float32 | float64] struct {
	p    GemmParams[T]
	kern *microKernel[T]

	bl        bLayout
	bp        []T  // packed B in use: packBuf
	direct    bool // B read in place by kern.strided
	directA   bool // A read in place, by kern.direct: with B in place, or packed when N < nr
	mc        int  // rows per chunk, a multiple of mr
	cpan      int  // panels per chunk (columns, in the row-by-row path)
	rowBlocks int  // ceil(M/mc)
	colBlocks int  // ceil(npan/cpan)
	guided    bool // compute chunks of row panels claimed by claimRows, not chunks of mc rows
	mpan      int  // panels of mr rows: ceil(M/mr)
	maxPan    int  // most panels in a chunk of a guided split
	threads   int  // parts of the compute phase
	phase     int
	next      atomic.Int32 // next unclaimed unit (phasePackB) or chunk (phaseCompute, phaseSmallM)

	packBuf []T          // B packed by this job
	parts   []partBuf[T] // one per part of the fork
	// shareA: every chunk takes all the rows (few rows, many columns),
	// and sharedA holds all of A packed once, each k block's panels
	// after the previous block's (at k0·mpan·mr), instead of each chunk
	// packing it again.
	shareA  bool
	sharedA []T
	fork    fork
}

// partBuf is the private memory of one part of a parallel product.
type partBuf[T float32 | float64] struct {
	packA []T // mc×kcs
	tile  []T // mr×nr, for edge tiles
}

func gemm[T float32 | float64](p *GemmParams[T], kern *microKernel[T]) {
	checkGemm(p)
	if p.M == 0 || p.N == 0 {
		return
	}
	w := p.Work
	if w == nil {
		w = workspaces.Get().(*Workspace)
		defer workspaces.Put(w)
	}
	if pb := p.PackedB; pb != nil && UsesPackedB(p.M, p.PackA != nil, p.TransB) && !pb.fits(p.M, p.N, p.K, p.PackA != nil, p.TransB, kern) {
		panic("kernels: Gemm: PackedB holds the right operand of another shape")
	}
	j := jobOf[T](w)
	j.p, j.kern = *p, kern
	if p.K == 0 {
		j.scaleOnly()
	} else {
		j.run()
	}
	j.p, j.bp = GemmParams[T]{}, nil // drop references to the caller's memory
}

// scaleOnly handles K == 0, where the product is zero.
func (j *gemmJob[T]) scaleOnly() {
	p := &j.p
	epi, _ := j.epilogues(0)
	for i := range p.M {
		c := p.C[i*p.LDC:][:p.N]
		if !p.Accumulate {
			clear(c)
		}
		if epi != nil {
			epi(i, 0, c)
		}
	}
}

// epilogues returns the epilogue functions of part: EpiloguePart's, or
// Epilogue and EpilogueRows.
func (j *gemmJob[T]) epilogues(part int) (epi func(row, col0 int, c []T), rows func(row0, row1, col0, col1 int)) {
	if j.p.EpiloguePart != nil {
		return j.p.EpiloguePart(part)
	}
	return j.p.Epilogue, j.p.EpilogueRows
}

func (j *gemmJob[T]) run() {
	p, kern := &j.p, j.kern
	mr, nr := kern.mr, kern.nr

	threads := GemmThreads(p.M, p.N, p.K, p.Threads, p.PackA != nil)
	j.fork.job = j

	if p.M <= smallM && p.PackA == nil {
		threads, j.cpan = j.smallMSplit()
		j.colBlocks = ceilDiv(p.N, j.cpan)
		j.phase = phaseSmallM
		j.next.Store(0)
		j.fork.run(min(threads, j.colBlocks), threads-1)
		return
	}

	// Blocking. k is cut into equal blocks of at most kern.kc; rows into
	// chunks of at most kern.mc; with several threads, into about
	// chunksPerThread chunks per thread, cutting columns too when there are
	// too few rows.
	j.bl = newBLayout(p.N, p.K, kern)
	npan := j.bl.npan
	mpan := ceilDiv(p.M, mr)
	rowPan := kern.mc / mr // panels per row chunk
	j.cpan, j.shareA = npan, false
	if threads > 1 {
		want := chunksPerThread * threads
		rp := max(1, min(rowPan, ceilDiv(mpan, want)))
		rb := ceilDiv(mpan, rp)
		if mpan <= rowPan && npan >= want && p.M*(want-1) < p.N*(rb-1) {
			// Few rows, many columns: every chunk takes all the rows and
			// a want-th of the columns, so that each panel of B is read
			// once, by one thread, for all the rows; chunks of rows would
			// read the whole of B once each. A is packed once for all
			// the chunks (shareA): each chunk packing it again took 12%
			// of 16×768×3072 on two threads (423 against 371 µs,
			// BenchmarkGemmPackedBF32, medians of 4).
			rowPan, j.cpan = mpan, ceilDiv(npan, want)
			j.shareA = true
		} else {
			rowPan = rp
			// Too few row chunks: the columns are cut too, but for an
			// epilogue that takes blocks of rows (EpilogueRows, or
			// EpiloguePart, whose parts may return one) while every
			// thread has a chunk of rows: on partial rows it runs row by
			// row (the 128×256 projections of an attention block at
			// batch 1, 11% of its time).
			if rb < want && !(rb >= threads && (p.EpilogueRows != nil || p.EpiloguePart != nil)) {
				j.cpan = ceilDiv(npan, min(npan, ceilDiv(want, rb)))
			}
		}
	}
	j.mc = rowPan * mr
	j.rowBlocks = ceilDiv(p.M, j.mc)
	j.colBlocks = ceilDiv(npan, j.cpan)
	threads = min(threads, j.rowBlocks*j.colBlocks)
	// With whole rows per chunk, the threads claim row panels in a guided
	// split instead: chunks that shrink as the rows run out, up to
	// kern.mc rows, so that the threads finish together.
	j.guided = threads > 1 && j.colBlocks == 1
	j.threads, j.mpan = threads, mpan
	if j.guided {
		j.maxPan = kern.mc / mr
		j.mc = j.maxPan * mr
	}

	// Buffers.
	j.direct = p.PackedB == nil && kern.strided != nil && !p.TransB && p.N%nr == 0 && p.LDB*int(unsafe.Sizeof(p.B[0])) < directMaxStride
	j.directA = j.direct && kern.direct != nil && !p.TransA && p.PackA == nil
	if kern.directOnly && !j.directA {
		j.direct = false
	}
	// A product narrower than one panel (the MLP's last layer, N = 10)
	// packs B, padded to nr columns, but reads A in place, from whole
	// panels of rows: packing A is there as costly as the multiply-adds,
	// since each row of A serves one panel only. 256×10×512 float32 on
	// the AVX2 kernel (Zen 3, medians of 7 alternating rounds): 163 µs
	// on one thread with A packed, 77 in place; 95 and 58 on two.
	//
	// So is a product of at most directANarrow panels of columns with B
	// packed or transposed (a 1×1 convolution of an imported network,
	// whose filter is Bᵀ): each row of A then serves few panels, and its
	// packing costs as much as a good part of the product. The
	// MobileNet-like test model's pointwise convolutions, float32 AVX2,
	// medians of 3: 3136×64×32 230 µs packed, 155 in place on two
	// threads, 3.78 and 2.95 ms for sixteen images on one thread each;
	// 784×128×64 148 and 121 µs; 784×128×128 245 and 210 µs.
	if !j.direct && p.N <= directANarrow*nr && kern.direct != nil && !p.TransA && p.PackA == nil {
		j.directA = true
	}
	switch {
	case p.PackedB != nil:
		j.bp = p.PackedB.data
	case !j.direct:
		j.packBuf = grow(j.packBuf, j.bl.size())
		j.bp = j.packBuf
	}
	if len(j.parts) < threads {
		j.parts = append(j.parts, make([]partBuf[T], threads-len(j.parts))...)
	}
	for i := range threads {
		b := &j.parts[i]
		b.packA = grow(b.packA, j.mc*j.bl.kcs)
		b.tile = grow(b.tile, mr*nr)
	}

	if !j.direct && p.PackedB == nil {
		j.phase = phasePackB
		j.next.Store(0)
		j.fork.run(threads, threads-1)
	}
	if j.shareA && j.directA {
		j.shareA = false // A is read in place, but for a last short panel
	}
	if j.shareA {
		j.sharedA = grow(j.sharedA, j.mpan*mr*p.K)
		j.phase = phasePackA
		j.next.Store(0)
		j.fork.run(min(threads, ceilDiv(p.K, j.bl.kcs)), threads-1)
	}
	j.phase = phaseCompute
	j.next.Store(0)
	j.fork.run(threads, threads-1)
}

// prefetchShare returns how many elements of the next B panel a call of
// microKernel.fnNext with k block kc prefetches: a 64-byte line on each
// of the kc/4 unrolled steps of its k loop.
func prefetchShare[T float32 | float64](kc int) int {
	var z T
	return kc / 4 * 64 / int(unsafe.Sizeof(z))
}

// nextPanel returns the packed B panel that computeChunk uses after panel
// jp of the k block at k0, for a chunk of panels [jp0, jp1): the next
// panel of the block, or the chunk's first of the next block; nil after
// the last.
func (j *gemmJob[T]) nextPanel(k0, jp, jp0, jp1 int) []T {
	bl, nr := &j.bl, j.kern.nr
	if jp+1 < jp1 {
		kc := min(bl.kcs, j.p.K-k0)
		return j.bp[k0*bl.npan*nr+(jp+1)*kc*nr:][:kc*nr]
	}
	k1 := k0 + bl.kcs
	if k1 >= j.p.K {
		return nil
	}
	kc := min(bl.kcs, j.p.K-k1)
	return j.bp[k1*bl.npan*nr+jp0*kc*nr:][:kc*nr]
}

// directANarrow is the most panels of columns (of nr) of a product
// whose A is read in place when B is not (gemmJob.directA).
const directANarrow = 8

// directMaxStride is the row stride of B, in bytes, from which B is packed
// even where a kernel could read it in place: rows 4 KiB apart or more
// fall on the same sets of a 48 KiB L1 (64 sets of 64-byte lines, 4 KiB
// between rows of one set) and in different pages, so a kc-row panel of
// them does not stay in L1 between the row panels that reuse it. The
// 1024² products (rows of 4 KiB in float32, 8 in float64) took 9.0-11.6
// and 21.7-26.8 ms on two threads with B in place, 7.9-9.5 and 17.6-20.8
// packed (three alternating rounds); the MLP's products (rows of 2 KiB in
// float32) keep B in place.
const directMaxStride = 4096

// runPart claims units of B to pack, or chunks of C to compute, until none
// is left.
func (j *gemmJob[T]) runPart(part int) {
	switch j.phase {
	case phasePackB:
		n := packBUnits(j.bl, j.p.TransB)
		for {
			c := int(j.next.Add(1)) - 1
			if c >= n {
				return
			}
			packBUnit(j.packBuf, j.bl, j.p.B, j.p.LDB, j.p.TransB, c)
		}
	case phasePackA:
		kcs := j.bl.kcs
		for {
			k0 := (int(j.next.Add(1)) - 1) * kcs
			if k0 >= j.p.K {
				return
			}
			j.packA(j.sharedA[k0*j.mpan*j.kern.mr:], 0, j.p.M, k0, min(kcs, j.p.K-k0))
		}
	case phaseCompute:
		buf := &j.parts[part]
		epi, rows := j.epilogues(part)
		if j.guided {
			for {
				p0, p1, ok := j.claimRows()
				if !ok {
					return
				}
				j.computeChunk(p0*j.kern.mr, min(j.p.M, p1*j.kern.mr), 0, j.bl.npan, buf, epi, rows)
			}
		}
		n := j.rowBlocks * j.colBlocks
		for {
			c := int(j.next.Add(1)) - 1
			if c >= n {
				return
			}
			rb, cb := c/j.colBlocks, c%j.colBlocks
			j.computeChunk(rb*j.mc, min(j.p.M, (rb+1)*j.mc), cb*j.cpan, min(j.bl.npan, (cb+1)*j.cpan), buf, epi, rows)
		}
	case phaseSmallM:
		epi, _ := j.epilogues(part)
		for {
			c := int(j.next.Add(1)) - 1
			if c >= j.colBlocks {
				return
			}
			j.smallMBlock(c*j.cpan, min(j.p.N, (c+1)*j.cpan), epi)
		}
	}
}

// guidedShare is how many chunks per thread a guided split's next chunk
// is sized for: a chunk is the rows left over guidedShare·threads, so a
// thread slowed by another process leaves a short last chunk behind.
const guidedShare = 2

// guidedMinPanels is the smallest chunk of a guided split, in panels,
// but for the last: each chunk reads B's panels once more.
const guidedMinPanels = 2

// guidedChunk returns the panels of the next chunk of a guided split when
// rem panels are left, for threads threads, at most maxPan.
func guidedChunk(rem, threads, maxPan int) int {
	return max(1, min(rem, maxPan, max(guidedMinPanels, ceilDiv(rem, guidedShare*threads))))
}

// claimRows claims the next chunk [p0, p1) of row panels of a guided
// split, or returns ok false when none is left.
func (j *gemmJob[T]) claimRows() (p0, p1 int, ok bool) {
	for {
		n0 := j.next.Load()
		rem := j.mpan - int(n0)
		if rem <= 0 {
			return 0, 0, false
		}
		n := guidedChunk(rem, j.threads, j.maxPan)
		if j.next.CompareAndSwap(n0, n0+int32(n)) {
			return int(n0), int(n0) + n, true
		}
	}
}

// GemmThreads returns the most goroutines, the caller's included, that
// Gemm runs an m×k by k×n product on when GemmParams.Threads is threads
// (packA: GemmParams.PackA is set), so that a caller can skip preparing
// for concurrent epilogues when it is 1. A product takes a thread per
// minWorkPerThread multiply-adds; a row-by-row one (m ≤ 4, no PackA),
// bound by reading B once per row of A, per minGemvPerThread elements of
// B read.
func GemmThreads(m, n, k, threads int, packA bool) int {
	per := minWorkPerThread
	if m <= smallM && !packA {
		per = minGemvPerThread
	}
	return max(1, min(threads, m*n*k/per))
}

// smallMSplit returns the threads and the columns per chunk of a
// row-by-row product.
func (j *gemmJob[T]) smallMSplit() (threads, cpan int) {
	p := &j.p
	threads = GemmThreads(p.M, p.N, p.K, p.Threads, false)
	switch {
	case threads == 1:
		return 1, p.N
	case j.gemv():
		// Whole tiles of gemvRow: each thread reads the same long pieces
		// of B's rows as one thread does; a packed B's own tiles.
		if pb := p.PackedB; pb != nil {
			return threads, min(p.N, pb.tile)
		}
		return threads, min(p.N, gemvTileCols[T](p.N, threads))
	}
	return threads, min(p.N, smallMBlock*ceilDiv(p.N, smallMBlock*chunksPerThread*threads))
}

// smallMBlock computes columns [c0, c1) of C row by row: with Axpy, C[i] =
// Σ_kk A[i][kk]·B[kk]; with Dot for TransB.
func (j *gemmJob[T]) smallMBlock(c0, c1 int, epi func(row, col0 int, c []T)) {
	p := &j.p
	for i := range p.M {
		c := p.C[i*p.LDC+c0 : i*p.LDC+c1]
		if j.gemv() {
			var a []T
			ainc := 1
			if p.TransA {
				a, ainc = p.A[i:], p.LDA
			} else {
				a = p.A[i*p.LDA:]
			}
			if pb := p.PackedB; pb != nil {
				gemvTiles(p.K, a, ainc, pb.data, p.N, pb.tile, c0, c, p.Accumulate)
			} else {
				gemvRow(p.K, a, ainc, p.B[c0:], p.LDB, c, p.Accumulate)
			}
			if epi != nil {
				epi(i, c0, c)
			}
			continue
		}
		if p.TransA {
			j.smallMRowT(i, c0, c, epi)
			continue
		}
		a := p.A[i*p.LDA:][:p.K]
		if p.TransB {
			for jj := range c {
				d := dotUnit(a, p.B[(c0+jj)*p.LDB:][:p.K])
				if p.Accumulate {
					d += c[jj]
				}
				c[jj] = d
			}
		} else {
			if !p.Accumulate {
				clear(c)
			}
			kk := 0
			if cp, ok := any(&c).(*[]float32); ok && len(c) > 0 {
				// Four rows of B at a time: C is loaded and stored once
				// for the four, with the same bits as row by row.
				a32, b32 := any(&a).(*[]float32), any(&p.B).(*[]float32)
				for ; kk+4 <= len(a); kk += 4 {
					axpy4UnitF32((*a32)[kk:kk+4], (*b32)[kk*p.LDB+c0:], p.LDB, *cp)
				}
			}
			for ; kk < len(a); kk++ {
				axpyUnit(a[kk], p.B[kk*p.LDB+c0:][:len(c)], c)
			}
		}
		if epi != nil {
			epi(i, c0, c)
		}
	}
}

// gemv reports whether the row-by-row path runs on gemvRow: B not
// transposed (Bᵀ takes dot products instead) and gemvRow's kernels here.
func (j *gemmJob[T]) gemv() bool { return hasGemvAsm && !j.p.TransB }

// smallMRowT computes row i of C, columns c0.. (c), in the row-by-row
// path with TransA: row i of the left operand is column i of the stored A,
// read at stride LDA.
func (j *gemmJob[T]) smallMRowT(i, c0 int, c []T, epi func(row, col0 int, c []T)) {
	p := &j.p
	if p.TransB {
		for jj := range c {
			b := p.B[(c0+jj)*p.LDB:][:p.K]
			var d T
			for kk, v := range b {
				d += p.A[kk*p.LDA+i] * v
			}
			if p.Accumulate {
				d += c[jj]
			}
			c[jj] = d
		}
	} else {
		if !p.Accumulate {
			clear(c)
		}
		for kk := range p.K {
			axpyUnit(p.A[kk*p.LDA+i], p.B[kk*p.LDB+c0:][:len(c)], c)
		}
	}
	if epi != nil {
		epi(i, c0, c)
	}
}

// packA packs rows [i0, i1) and columns [k0, k0+kc) of A into dst, in
// panels of mr rows, zero-padded past i1:
//
//	dst[ip·kc·mr + kk·mr + ii] = A[i0+ip·mr+ii][k0+kk]
//
// With TransA the stored A holds the columns of the left operand as rows,
// so each kk of a panel is mr contiguous elements: a copy, not a gather.
func (j *gemmJob[T]) packA(dst []T, i0, i1, k0, kc int) {
	p, mr := &j.p, j.kern.mr
	if p.PackA != nil {
		for ip := 0; i0+ip*mr < i1; ip++ {
			r0 := i0 + ip*mr
			p.PackA(dst[ip*kc*mr:][:kc*mr], mr, r0, min(mr, i1-r0), k0, kc)
		}
		return
	}
	if p.TransA {
		for ip := 0; i0+ip*mr < i1; ip++ {
			r0 := i0 + ip*mr
			h := min(mr, i1-r0)
			d := dst[ip*kc*mr:][:kc*mr]
			a := p.A[k0*p.LDA+r0:]
			if h == mr && packRuns(d, a, mr, p.LDA, kc) {
				continue
			}
			for kk := range kc {
				q := d[kk*mr:][:mr]
				clear(q[copy(q, a[kk*p.LDA:][:h]):])
			}
		}
		return
	}
	for ip := 0; i0+ip*mr < i1; ip++ {
		r0 := i0 + ip*mr
		interleave(dst[ip*kc*mr:][:kc*mr], mr, p.A[r0*p.LDA+k0:], p.LDA, min(mr, i1-r0), kc)
	}
}

// packRuns copies kc runs of n elements, src[kk·ld:][:n] to dst[kk·n:],
// and reports whether it could: n must be the AVX-512 kernels' mr (12) or
// the AVX2 kernels' (6). A transposed A's panels are such runs, and when
// N is small packing them is most of a product's time: copy calls
// memmove for each run of 48 bytes (as does an assignment of [12]T), and
// a 512×10×256 Aᵀ·B took 139 µs, 68% of it packing. Element by element
// it takes 72 µs.
func packRuns[T float32 | float64](dst, src []T, n, ld, kc int) bool {
	switch n {
	case 12:
		for kk := range kc {
			q, r := dst[kk*12:][:12:12], src[kk*ld:][:12:12]
			q[0], q[1], q[2], q[3], q[4], q[5] = r[0], r[1], r[2], r[3], r[4], r[5]
			q[6], q[7], q[8], q[9], q[10], q[11] = r[6], r[7], r[8], r[9], r[10], r[11]
		}
		return true
	case 6:
		for kk := range kc {
			q, r := dst[kk*6:][:6:6], src[kk*ld:][:6:6]
			q[0], q[1], q[2], q[3], q[4], q[5] = r[0], r[1], r[2], r[3], r[4], r[5]
		}
		return true
	}
	return false
}

// interleave writes the first kc elements of h rows of src (row r at
// src[r·ld:]) into dst with stride s ≥ h, zero-padding rows h..s-1:
//
//	dst[kk·s + r] = src[r·ld + kk]
//
// through PackRows, sixteen rows at a time (a panel has at most 12).
func interleave[T float32 | float64](dst []T, s int, src []T, ld, h, kc int) {
	dst = dst[:kc*s]
	var offs [16]int
	for r0 := 0; r0 < h; r0 += len(offs) {
		rows := min(len(offs), h-r0)
		for r := range rows {
			offs[r] = (r0 + r) * ld
		}
		PackRows(dst[r0:], s, src, offs[:rows], kc)
	}
	if h < s {
		for kk := range kc {
			clear(dst[kk*s+h : kk*s+s])
		}
	}
}

// computeChunk computes the chunk of C in rows [i0, i1) (at most mc, i0 a
// multiple of mr) and column panels [jp0, jp1), over all of K, then hands
// its rows to the epilogue epi, or rows. The loops follow BLIS: for each k
// block, pack the chunk's rows of A, then for each B panel (kept in L1 by
// the inner loop) run the micro-kernel down the A panels.
func (j *gemmJob[T]) computeChunk(i0, i1, jp0, jp1 int, buf *partBuf[T], epi func(row, col0 int, c []T), rows func(row0, row1, col0, col1 int)) {
	p, kern, bl := &j.p, j.kern, &j.bl
	mr, nr := kern.mr, kern.nr
	for k0 := 0; k0 < p.K; k0 += bl.kcs {
		kc := min(bl.kcs, p.K-k0)
		add := p.Accumulate || k0 > 0
		// Packed A: all the chunk's rows, or with directA only the last
		// panel when it has fewer than mr rows.
		pk0, pa := i0, buf.packA
		switch {
		case j.shareA: // all the rows, packed once (i0 = 0)
			pa = j.sharedA[k0*j.mpan*mr:]
		case j.directA:
			pk0 = i0 + (i1-i0)/mr*mr
		}
		if pk0 < i1 && !j.shareA {
			j.packA(pa, pk0, i1, k0, kc)
		}
		var bBlock []T
		if !j.direct {
			bBlock = j.bp[k0*bl.npan*nr:]
		}
		share := prefetchShare[T](kc)
		for jp := jp0; jp < jp1; jp++ {
			col0 := jp * nr
			w := min(nr, p.N-col0)
			var bp, next []T
			if j.direct {
				bp = p.B[k0*p.LDB+col0:]
			} else {
				bp = bBlock[jp*kc*nr:][:kc*nr]
				if kern.fnNext != nil {
					next = j.nextPanel(k0, jp, jp0, jp1)
				}
			}
			for ip := 0; i0+ip*mr < i1; ip++ {
				row0 := i0 + ip*mr
				h := min(mr, i1-row0)
				inPlace := j.directA && h == mr
				var ap []T
				if !inPlace {
					ap = pa[(row0-pk0)/mr*kc*mr:][:kc*mr]
				}
				// full is the whole panels from row0 on, which a panels
				// kernel computes in one call.
				full := (i1 - row0) / mr
				switch {
				case inPlace:
					ldb := p.LDB
					if !j.direct {
						ldb = nr // a packed panel
					}
					if w == nr && full > 1 && kern.directPanels != nil {
						kern.directPanels(kc, p.A[row0*p.LDA+k0:], p.LDA, bp, ldb, p.C[row0*p.LDC+col0:], p.LDC, add, full)
						ip += full - 1
						continue
					}
					if w == nr {
						kern.direct(kc, p.A[row0*p.LDA+k0:], p.LDA, bp, ldb, p.C[row0*p.LDC+col0:], p.LDC, add)
						continue
					}
					// Edge tile: compute into buf.tile, then store the
					// valid part (below).
					kern.direct(kc, p.A[row0*p.LDA+k0:], p.LDA, bp, ldb, buf.tile, nr, false)
				case h == mr && w == nr:
					switch {
					case j.direct:
						kern.strided(kc, ap, bp, p.LDB, p.C[row0*p.LDC+col0:], p.LDC, add)
					case full > 1 && kern.fnPanels != nil:
						kern.fnPanels(kc, pa[(row0-pk0)/mr*kc*mr:][:full*kc*mr], bp, p.C[row0*p.LDC+col0:], p.LDC, add, full)
						ip += full - 1
					case next != nil:
						// Row panel ip prefetches share ip of the next
						// panel, while there is one.
						var pf []T
						if off := ip * share; off+share <= len(next) {
							pf = next[off:][:share]
						}
						kern.fnNext(kc, ap, bp, p.C[row0*p.LDC+col0:], p.LDC, add, pf)
					default:
						kern.fn(kc, ap, bp, p.C[row0*p.LDC+col0:], p.LDC, add)
					}
					continue
				case j.direct:
					if tl := kern.tailFor(h); tl != nil && w == nr {
						if tl.rows == h {
							tl.fn(kc, ap, bp, p.LDB, p.C[row0*p.LDC+col0:], p.LDC, add)
							continue
						}
						tl.fn(kc, ap, bp, p.LDB, buf.tile, nr, false)
					} else {
						kern.strided(kc, ap, bp, p.LDB, buf.tile, nr, false)
					}
				default:
					// Packed B, a panel of fewer than mr rows: a tail kernel
					// reads the packed panel (ldb nr) for the rows there are.
					if tl := kern.tailFor(h); tl != nil && w == nr {
						if tl.rows == h {
							tl.fn(kc, ap, bp, nr, p.C[row0*p.LDC+col0:], p.LDC, add)
							continue
						}
						tl.fn(kc, ap, bp, nr, buf.tile, nr, false)
					} else {
						kern.fn(kc, ap, bp, buf.tile, nr, false)
					}
				}
				for ii := range h {
					t := buf.tile[ii*nr:][:w]
					c := p.C[(row0+ii)*p.LDC+col0:][:w]
					if add {
						for jj, v := range t {
							c[jj] += v
						}
					} else {
						copy(c, t)
					}
				}
			}
		}
	}
	if rows != nil && epi != nil {
		rows(i0, i1, jp0*nr, min(p.N, jp1*nr))
	} else if epi != nil {
		col0, col1 := jp0*nr, min(p.N, jp1*nr)
		for i := i0; i < i1; i++ {
			epi(i, col0, p.C[i*p.LDC+col0:i*p.LDC+col1])
		}
	}
}

// checkGemm panics unless p describes a valid product.
func checkGemm[T float32 | float64](p *GemmParams[T]) {
	switch {
	case p.M < 0 || p.N < 0 || p.K < 0:
		panic("kernels: Gemm: negative dimension")
	case p.PackA != nil:
	case p.TransA && p.LDA < max(1, p.M):
		panic("kernels: Gemm: LDA < M (TransA)")
	case !p.TransA && p.LDA < max(1, p.K):
		panic("kernels: Gemm: LDA < K")
	case p.LDC < max(1, p.N):
		panic("kernels: Gemm: LDC < N")
	}
	if p.PackedB == nil || !UsesPackedB(p.M, p.PackA != nil, p.TransB) {
		checkLDB(p.N, p.K, p.LDB, p.TransB)
	}
	if p.M == 0 || p.N == 0 {
		return
	}
	if len(p.C) < (p.M-1)*p.LDC+p.N {
		panic("kernels: Gemm: C too short")
	}
	if p.K == 0 {
		return
	}
	var a []T
	if p.PackA == nil {
		aLen := (p.M-1)*p.LDA + p.K
		if p.TransA {
			aLen = (p.K-1)*p.LDA + p.M
		}
		if len(p.A) < aLen {
			panic("kernels: Gemm: A too short")
		}
		a = p.A[:aLen]
	}
	var b []T
	if p.PackedB == nil || !UsesPackedB(p.M, p.PackA != nil, p.TransB) {
		b = checkB(p.N, p.K, p.B, p.LDB, p.TransB)
	}
	c := p.C[:(p.M-1)*p.LDC+p.N]
	if overlap(c, a) || overlap(c, b) {
		panic("kernels: Gemm: C overlaps A or B")
	}
}

// checkB panics unless b holds a k×n matrix (n×k with transB) with leading
// dimension ldb, and returns the part of b that the matrix spans.
func checkB[T any](n, k int, b []T, ldb int, transB bool) []T {
	checkLDB(n, k, ldb, transB)
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	if rows == 0 || cols == 0 {
		return b[:0]
	}
	if len(b) < (rows-1)*ldb+cols {
		panic("kernels: Gemm: B too short")
	}
	return b[:(rows-1)*ldb+cols]
}

func checkLDB(n, k, ldb int, transB bool) {
	switch {
	case transB && ldb < max(1, k):
		panic("kernels: Gemm: LDB < K (TransB)")
	case !transB && ldb < max(1, n):
		panic("kernels: Gemm: LDB < N")
	}
}

// overlap reports whether the memory of a and b intersects.
func overlap[T any](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	var z T
	sz := unsafe.Sizeof(z)
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*sz && b0 < a0+uintptr(len(a))*sz
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// grow returns s resliced or reallocated to length n; the contents are
// unspecified.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
