package kernels

// The row-by-matrix kernel of the row-by-row path (products of at most
// smallM rows, such as a network's layer at batch 1): each row of C is
// c = Σ_kk a[kk]·B[kk], which reads B once and is bound by that read.
//
// With AVX-512, gemvRow keeps a tile of up to gemvTileVecs vectors of c in
// registers for the whole of k (gen_asm.go's gemv), one FMA per element
// and row of B in kk order, so c is loaded and stored once per tile instead
// of once per row or four rows of B. A tile of 16 vectors reads 1 KiB of
// each row of B in float32; narrower tiles read B in shorter pieces that
// the hardware prefetchers follow worse. The MLP 784-512-512-10's three
// products at batch 1, float32, one thread: 30.9 µs of CPU against 41.7
// for the four-row axpy loop it replaces (medians of 15 interleaved
// rounds); by wall time on a busy machine, 29 µs with tiles of 16
// vectors, 31 with 8 (best of 5).

// gemvTileVecs is the widest tile of gemvRow, in vectors.
const gemvTileVecs = 16

// gemvTileCols returns the columns of a full tile of gemvRow for T.
func gemvTileCols[T float32 | float64]() int { return gemvTileVecs * gemvLanes[T]() }

// gemvLanes returns the elements of T in an AVX-512 vector.
func gemvLanes[T float32 | float64]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 16
	}
	return 8
}

// gemvRow sets c[j] = Σ_kk a[kk·ainc]·b[kk·ldb+j] over kk < k, for
// j < len(c), or adds that sum to c[j] with add: starting from 0 or c[j],
// one fused multiply-add per kk, in kk order. It needs hasGemvAsm; k ≥ 1.
func gemvRow[T float32 | float64](k int, a []T, ainc int, b []T, ldb int, c []T, add bool) {
	n := len(c)
	if n == 0 {
		return
	}
	_, _ = a[(k-1)*ainc], b[(k-1)*ldb+n-1]
	lanes := gemvLanes[T]()
	tile := gemvTileVecs * lanes
	for j0 := 0; j0 < n; j0 += tile {
		w := min(tile, n-j0)
		nv := ceilDiv(w, lanes)
		mask := uint16(1)<<(w-(nv-1)*lanes) - 1
		gemvAsm(nv, k, &a[0], ainc, &b[j0], ldb, &c[j0], mask, add)
	}
}
