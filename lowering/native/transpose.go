package native

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// transposeChunk is the most source elements along the source's
// contiguous axis that one kernels.PackRows call transposes: the
// destination lines its rows write stay in the first-level cache however
// long the axis is.
const transposeChunk = 256

// transposeInto compiles a copy between two float views of the same
// extents whose contiguous axes differ: the destination's last axis j
// lies at stride 1 in it, and some other axis i lies at stride 1 in the
// source. The channels-first input of an imported convolutional network,
// materialised channels last for its padding, is one: a [H, W, C] scratch
// filled from a [C, H, W] image, C often 3. The nest's loops ran one
// vector loop of C elements per position, paying its dispatch for three
// elements. Here, for each index of the other axes, the E_j source rows
// that run along i (one per element of j) are transposed into the
// destination's columns by kernels.PackRows, eight rows at a time through
// vector transposes where they are float32 and at least eight, in chunks
// of transposeChunk along i. The copy is split over goroutines by those
// calls. The copy may be the identity over the arrays or written as zips
// of it (isCopy). ok is false, with nothing compiled, for any other copy
// (one that accumulates, of another element type, or whose contiguous axes
// agree).
func (c *compiler) transposeInto(fn *cval, args []*cval, dst *cval) (code, bool, error) {
	if fn.kind != cvFunc || len(args) != 1 || !isCopy(fn.node, len(dst.layout)) {
		return nil, false, nil
	}
	src := args[0]
	if src.kind != cvView || dst.kind != cvView || src.vary != nil || dst.vary != nil ||
		dst.acc != graph.OpInvalid || src.dt != dst.dt ||
		(dst.dt != graph.Float32 && dst.dt != graph.Float64) {
		return nil, false, nil
	}
	d := len(dst.layout)
	if d < 2 || len(src.layout) != d || !src.layout.SameExtents(dst.layout) {
		return nil, false, nil
	}
	j := d - 1
	if dst.layout[j].Stride != 1 || src.layout[j].Stride == 1 || dst.layout[j].Extent < 2 {
		return nil, false, nil
	}
	i := slices.IndexFunc(src.layout[:j], func(a graph.Axis) bool { return a.Stride == 1 && a.Extent > 1 })
	if i < 0 {
		return nil, false, nil
	}
	rows, n, ld := dst.layout[j].Extent, dst.layout[i].Extent, dst.layout[i].Stride
	if ld < rows {
		return nil, false, nil // the destination's columns overlap: not a plain array
	}
	var srcOuter, dstOuter graph.Layout
	for a := range d {
		if a != i && a != j {
			srcOuter = append(srcOuter, src.layout[a])
			dstOuter = append(dstOuter, dst.layout[a])
		}
	}
	sg, dg := newRowGeom(1, srcOuter), newRowGeom(1, dstOuter)
	if len(sg.outer) > maxRowAxes || len(dg.outer) > maxRowAxes {
		return nil, false, nil
	}
	offs := make([]int, rows)
	for r := range offs {
		offs[r] = r * src.layout[j].Stride
	}
	chunks := (n + transposeChunk - 1) / transposeChunk
	units := srcOuter.Size() * chunks
	par := c.wantParallel(units, float64(rows*min(n, transposeChunk)))
	c.note("transpose %v into %v: %d source rows of %d into columns, in chunks of %d (kernels.PackRows)%s",
		src.layout, dst.layout, rows, n, transposeChunk, parNote(par))
	sb, db, sr, dr := src.buf, dst.buf, src.reg, dst.reg
	var body rangeFn
	if dst.dt == graph.Float32 {
		body = func(fr *frame, lo, hi int) {
			transposeUnits(fr.f32[db], fr.ints[dr], fr.f32[sb], fr.ints[sr], sg, dg, offs, n, ld, chunks, lo, hi)
		}
	} else {
		body = func(fr *frame, lo, hi int) {
			transposeUnits(fr.f64[db], fr.ints[dr], fr.f64[sb], fr.ints[sr], sg, dg, offs, n, ld, chunks, lo, hi)
		}
	}
	return c.loopGrains(units, c.grain(units, 1), body, par), true, nil
}

// isCopy reports whether fn, the function of an nzip over arrays of rank
// d, copies: the identity, or zips of the identity below up to d-1 levels
// (map (map id), as the schedule pass writes a copy it reorders).
func isCopy(fn graph.Node, d int) bool {
	for range d {
		switch f := fn.(type) {
		case *graph.Ident:
			return true
		case *graph.NZip:
			if !graph.IsFunc(f) || len(f.Args) != 0 {
				return false
			}
			fn = f.Fn
		default:
			return false
		}
	}
	_, ok := fn.(*graph.Ident)
	return ok
}

// transposeUnits runs units lo to hi of transposeInto: unit u is chunk
// u%chunks, along the source's contiguous axis, of outer index u/chunks.
func transposeUnits[T float32 | float64](dst []T, dbase int, src []T, sbase int, sg, dg *rowGeom, offs []int, n, ld, chunks, lo, hi int) {
	for u := lo; u < hi; {
		r, k := u/chunks, u%chunks
		sc, dc := sg.at(r), dg.at(r)
		for ; k < chunks && u < hi; k, u = k+1, u+1 {
			t0 := k * transposeChunk
			m := min(transposeChunk, n-t0)
			kernels.PackRows(dst[dbase+dc.off+t0*ld:], ld, src[sbase+sc.off+t0:], offs, m)
		}
	}
}
