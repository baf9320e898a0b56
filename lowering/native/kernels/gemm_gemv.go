package kernels

// The row-by-matrix kernel of the row-by-row path (products of at most
// smallM rows, such as a network's layer at batch 1): each row of C is
// c = Σ_kk a[kk]·B[kk], which reads B once and is bound by that read.
//
// gemvRow keeps a tile of up to 16 AVX-512 vectors (12 AVX2 ones) of c in
// registers for the whole of k (gen_asm.go's gemv and gemvAVX2), one FMA
// per element and row of B in kk order, so c is loaded and stored once per
// tile instead of once per row or four rows of B. A tile of 16 vectors
// reads 1 KiB of each row of B in float32; narrower tiles read B in
// shorter pieces that the hardware prefetchers follow worse. The MLP
// 784-512-512-10's three products at batch 1, float32, one thread, on
// AVX-512: 30.9 µs of CPU against 41.7 for the four-row axpy loop it
// replaces (medians of 15 interleaved rounds); by wall time on a busy
// machine, 29 µs with tiles of 16 vectors, 31 with 8 (best of 5).

// gemvAVX2Vecs is the widest tile of the AVX2 kernels, in vectors (as in
// gen_asm.go).
const gemvAVX2Vecs = 12

// gemvShape returns the widest tile of gemvRow in vectors and the
// elements of T in a vector, on this machine: 16 AVX-512 vectors, or 12
// AVX2 ones (gemvAVX2Vecs).
func gemvShape[T float32 | float64]() (vecs, lanes int) {
	if hasAVX512 {
		return 16, avx512Lanes[T]()
	}
	return gemvAVX2Vecs, avx512Lanes[T]() / 2
}

// avx512Lanes returns the elements of T in an AVX-512 vector.
func avx512Lanes[T float32 | float64]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 16
	}
	return 8
}

// gemvTileCols returns the columns of gemvRow's tiles for n columns
// split over threads: the vectors of n spread evenly over the fewest
// tiles that hold them, so that no tile is much narrower than the
// others, each rounded up to whole blocks of the narrow vector loops (32
// float32, 16 float64), so that an epilogue run on a tile's columns has
// no element-by-element tail. With AVX2, 512 float32 columns make five
// tiles of 96 and one of 32: the MLP 784-512-512-10 at batch 1, fused,
// two threads, took 38.2 µs (median of 7) against 45.2 with six tiles of
// 88 or 72, whose epilogues ended in 24 elements one at a time; its bare
// products 30.8 against 33.2.
//
// A product whose columns fit in fewer tiles than it has threads takes
// one tile a thread, down to tiles of gemvMinVecs vectors, since the
// threads split the product by tiles: the 128 columns of a CNN's dense
// layer after its flatten (3136×128 float32, 1.6 MB) were one tile of 8
// vectors, read by one thread from the last-level cache, a third of
// the imported CNN's inference at batch 1.
func gemvTileCols[T float32 | float64](n, threads int) int {
	vecs, lanes := gemvShape[T]()
	nv := ceilDiv(n, lanes)
	if nv <= 0 {
		return lanes // no columns: any tile holds them
	}
	tiles := ceilDiv(nv, vecs)
	if tiles < threads {
		tiles = max(tiles, min(threads, nv/gemvMinVecs))
	}
	per := ceilDiv(nv, tiles)
	blk := 32 / lanes // the vectors of a narrow block: 32 float32 elements
	if _, f64 := any(T(0)).(float64); f64 {
		blk = 16 / lanes // or 16 float64 ones
	}
	return lanes * min(vecs, ceilDiv(per, blk)*blk)
}

// gemvMinVecs is the narrowest tile, in vectors, gemvTileCols cuts to
// give each thread one: 256-byte pieces of B's rows in float32.
const gemvMinVecs = 4

// gemvRow sets c[j] = Σ_kk a[kk·ainc]·b[kk·ldb+j] over kk < k, for
// j < len(c), or adds that sum to c[j] with add: starting from 0 or c[j],
// one fused multiply-add per kk, in kk order. It needs hasGemvAsm; k ≥ 1.
func gemvRow[T float32 | float64](k int, a []T, ainc int, b []T, ldb int, c []T, add bool) {
	n := len(c)
	if n == 0 {
		return
	}
	_, _ = a[(k-1)*ainc], b[(k-1)*ldb+n-1]
	_, lanes := gemvShape[T]()
	tile := gemvTileCols[T](n, 1)
	for j0 := 0; j0 < n; j0 += tile {
		w := min(tile, n-j0)
		nv := ceilDiv(w, lanes)
		gemvAsm(nv, w-(nv-1)*lanes, k, &a[0], ainc, &b[j0], ldb, &c[j0], add)
	}
}

// packGemvB packs the k×n matrix b (leading dimension ldb) into dst in
// tiles of tile columns (gemvTileCols): the tile of columns [j0, j0+w) at
// dst[j0·k:], its k rows of w elements one after the other. A thread of a
// product of few rows then reads its tiles as one stream, and its cache
// holds those tiles alone, where rows of b read in place bring the other
// threads' columns in with theirs.
func packGemvB[T float32 | float64](dst, b []T, ldb, n, k, tile int) {
	for j0 := 0; j0 < n; j0 += tile {
		w := min(tile, n-j0)
		t := dst[j0*k:][:k*w]
		for kk := range k {
			copy(t[kk*w:][:w], b[kk*ldb+j0:][:w])
		}
	}
}

// gemvTiles is gemvRow for columns [c0, c0+len(c)) of a B that packGemvB
// packed in tiles of tile columns (n columns; c0 at the start of a tile),
// the same sums.
func gemvTiles[T float32 | float64](k int, a []T, ainc int, packed []T, n, tile, c0 int, c []T, add bool) {
	for j := 0; j < len(c); j += tile {
		w := min(tile, n-c0-j) // the tile's width as packGemvB packed it
		gemvRow(k, a, ainc, packed[(c0+j)*k:], w, c[j:j+w], add)
	}
}
