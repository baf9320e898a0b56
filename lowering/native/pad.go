package native

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Pads and crops: the views that are not a layout over their operand's
// buffer from its first element (graph.IsStrided).
//
// A crop is its operand's layout shifted: the view's offset register is
// the operand's plus a constant, set where the view is compiled.
//
// A pad is materialised: a scratch array of the padded extents, filled
// with the fill and the operand written into its interior (a strided
// destination inside it, so any operand — a view, a computed array — is
// written by the compiler's ordinary code, a row copy for a view); a
// chain of pads of one fill without interior padding, as a convolution's
// "same" input pads each spatial axis, is one such array whose border
// alone is filled (padBox). The
// alternative, reading past the edge as the fill, would put a bounds test
// into every strided read that may see the pad, including the packing of
// the GEMM operands a convolution's windows become; a copy of the operand
// costs one pass over it, small next to the w·k reads of each element a
// window of w elements over k filters makes. A pad of a kernel input (or
// of anything closed under the kernel's lambdas) is hoisted by normalise
// and so materialised once per run; a pad of a value that depends on a
// loop is materialised at each iteration, into scratch of its own frame.

// isFresh reports whether n is a view that is no layout over its
// operand's buffer from its first element, which viewOf must not read off
// the operand's layout.
func isFresh(n graph.ViewNode) bool { return !graph.IsStrided(n.View()) }

// unstridedValue compiles a pad or crop view n; ok is false for any
// other view.
func (c *compiler) unstridedValue(n graph.ViewNode, env *cenv) (v *cval, setup code, ok bool, err error) {
	switch view := n.View().(type) {
	case graph.PadView:
		v, setup, err = c.padValue(n, view, env)
		return v, setup, true, err
	case graph.CropView:
		v, setup, err = c.cropValue(n, view, env)
		return v, setup, true, err
	}
	if !graph.IsStrided(n.View()) {
		return nil, nil, true, fmt.Errorf("the %s view (%s in %s) is not a strided layout: %w",
			n.View().Name(), graph.ViewString(n.View()), graph.Abbrev(n, 60), ErrUnsupported)
	}
	return nil, nil, false, nil
}

func (c *compiler) cropValue(n graph.ViewNode, view graph.CropView, env *cenv) (*cval, code, error) {
	x, setup, err := c.value(n.Operand(), env)
	if err != nil {
		return nil, nil, err
	}
	if x.kind != cvView {
		return nil, nil, fmt.Errorf("%s of a non-array", graph.ViewString(view))
	}
	l, err := view.Apply(x.layout)
	if err != nil {
		return nil, nil, err
	}
	shift, src, r := view.Shift(x.layout), x.reg, c.newInt()
	v := *x
	v.layout, v.acc, v.vary, v.reg = l, graph.OpInvalid, nil, r
	return &v, seq(setup, func(fr *frame) { fr.ints[r] = fr.ints[src] + shift }), nil
}

func (c *compiler) padValue(n graph.ViewNode, view graph.PadView, env *cenv) (*cval, code, error) {
	// A chain of pads without interior padding and with one fill (the
	// pads of the spatial axes of a convolution's input) is one pad of
	// every axis it pads: materialised once, its operand written into the
	// interior and only the border filled.
	if view.Interior == 0 {
		pads, op := []graph.PadView{view}, n.Operand()
		for {
			vn, ok := op.(graph.ViewNode)
			if !ok {
				break
			}
			pv, ok := vn.View().(graph.PadView)
			if !ok || pv.Interior != 0 || pv.Fill != view.Fill {
				break
			}
			pads, op = append(pads, pv), vn.Operand()
		}
		v, setup, ok, err := c.padBox(pads, op, env)
		if ok || err != nil {
			return v, setup, err
		}
	}
	t, err := c.typeOf(n.Operand(), env)
	if err != nil {
		return nil, nil, err
	}
	at, ok := t.(*graph.ArrayType)
	if !ok {
		return nil, nil, fmt.Errorf("%s of a non-array of type %v", graph.ViewString(view), t)
	}
	padded, err := view.Apply(at.Layout)
	if err != nil {
		return nil, nil, err
	}
	dst, err := c.scratch(graph.ArrayOf(at.DType, padded.Extents()...))
	if err != nil {
		return nil, nil, err
	}
	// The operand's elements sit at lo + i*(interior+1) along the axis.
	inner := append(graph.Layout(nil), dst.layout...)
	a := view.Axis
	inner[a] = graph.Axis{Extent: at.Layout[a].Extent, Stride: dst.layout[a].Stride * (view.Interior + 1)}
	r := c.newInt()
	start := view.Lo * dst.layout[a].Stride
	interior := *dst
	interior.layout, interior.reg = inner, r
	c.note("materialise %s (%v) into scratch", graph.ViewString(view), padded)
	write, err := c.into(n.Operand(), env, &interior)
	if err != nil {
		return nil, nil, err
	}
	fillv := at.DType.Round(view.Fill.Value())
	buf := dst.buf
	var clear code
	switch at.DType {
	case graph.Float32:
		clear = func(fr *frame) { fill(fr.f32[buf], float32(fillv)) }
	case graph.Float64:
		clear = func(fr *frame) { fill(fr.f64[buf], fillv) }
	case graph.Int32:
		clear = func(fr *frame) {
			for i := range fr.i32[buf] {
				fr.i32[buf][i] = int32(fillv)
			}
		}
	case graph.Bool:
		clear = func(fr *frame) {
			for i := range fr.bl[buf] {
				fr.bl[buf][i] = fillv != 0
			}
		}
	default:
		return nil, nil, fmt.Errorf("%s of element type %v", graph.ViewString(view), at.DType)
	}
	return dst, seq(clear, func(fr *frame) { fr.ints[r] = start }, write), nil
}

// padBox materialises pads, a chain of pads without interior padding and
// with one fill (pads[0] outermost), of op: a float scratch array of the
// padded extents whose border alone is filled and whose interior op is
// written into. ok is false for other element types, or for a single pad
// of a non-float, which padValue handles.
func (c *compiler) padBox(pads []graph.PadView, op graph.Node, env *cenv) (v *cval, setup code, ok bool, err error) {
	t, err := c.typeOf(op, env)
	if err != nil {
		return nil, nil, false, err
	}
	at, isArr := t.(*graph.ArrayType)
	if !isArr || (at.DType != graph.Float32 && at.DType != graph.Float64) {
		return nil, nil, false, nil
	}
	in := at.Layout.Extents()
	lo, ext := make([]int, len(in)), append([]int(nil), in...)
	for _, pv := range pads {
		if pv.Axis < 0 || pv.Axis >= len(in) || pv.Lo < 0 || pv.Hi < 0 {
			return nil, nil, false, nil // padValue reports it
		}
		lo[pv.Axis] += pv.Lo
		ext[pv.Axis] += pv.Lo + pv.Hi
	}
	dst, err := c.scratch(graph.ArrayOf(at.DType, ext...))
	if err != nil {
		return nil, nil, false, err
	}
	r, start := c.newInt(), 0
	interior := *dst
	interior.layout, interior.reg = append(graph.Layout(nil), dst.layout...), r
	for a, e := range in {
		interior.layout[a].Extent = e
		start += lo[a] * dst.layout[a].Stride
	}
	names := make([]string, len(pads))
	for i, pv := range pads {
		names[i] = graph.ViewString(pv)
	}
	c.note("materialise %s (%v) into scratch, filling its border", strings.Join(names, " ∘ "), dst.layout)
	site := &padSite{lo: slices.Clone(lo), in: slices.Clone(in), buf: dst.buf, layout: dst.layout, ireg: r, depth: c.depth}
	c.pads = append(c.pads, site)
	if src, ok := c.viewOf(op, env); ok && src.kind == cvView && src.dt == at.DType && len(src.layout) == len(in) {
		site.src = src
	}
	if c.desc != nil {
		site.notes[0] = c.desc.Len()
	}
	write, err := c.into(op, env, &interior)
	if err != nil {
		return nil, nil, false, err
	}
	if c.desc != nil {
		site.notes[1] = c.desc.Len()
		site.noteText = c.desc.String()[site.notes[0]:site.notes[1]]
	}
	site.write = write
	dst.pad = site
	fillv, buf := at.DType.Round(pads[0].Fill.Value()), dst.buf
	ext, lo, in = borderBox(ext, lo, in)
	border := func(fr *frame) { fillBorder(fr.f64[buf], ext, lo, in, fillv) }
	if at.DType == graph.Float32 {
		border = func(fr *frame) { fillBorder(fr.f32[buf], ext, lo, in, float32(fillv)) }
	}
	return dst, seq(border, func(fr *frame) { fr.ints[r] = start }, func(fr *frame) { site.write(fr) }), true, nil
}

// padSite is a box padBox materialises. Its one reader may read the
// box's interior in place from the operand, where a read sees no border,
// and have padBox copy only the bands of the interior that its other
// reads see (narrow): a depthwise convolution of a MobileNet's 56×56
// image reads all but its outermost positions' windows in place, and the
// copy of the whole image, 2.4 MB that no longer fits in the L2 cache,
// took a fifth of the block's time.
type padSite struct {
	src    *cval        // the operand, a view; nil when it is computed
	lo, in []int        // per axis of the box: the padding before the operand, and its extent
	buf    int          // the box's buffer
	layout graph.Layout // the box's, row-major
	ireg   int          // the register of the interior's offset in the box
	write  code         // writes the operand into the interior: all of it, or the bands narrow chose
	depth  int          // the compiler's depth at the write
	notes  [2]int       // where the write's notes start and end in the description
	// noteText is the write's notes, as they stand there.
	noteText string
	// shared is set when the box is read through a variable, so that
	// it may have readers other than the one that would narrow it.
	shared bool
}

// markPadShared records that v's padded boxes are read through a
// variable (padSite.shared).
func markPadShared(v *cval) {
	if v == nil {
		return
	}
	if v.pad != nil {
		v.pad.shared = true
	}
	for _, e := range v.elems {
		markPadShared(e)
	}
}

// coords sets cs to the coordinates in the box of its element at offset
// o.
func (s *padSite) coords(o int, cs []int) {
	for a, ax := range s.layout {
		cs[a] = o / ax.Stride % ax.Extent
	}
}

// inside reports whether coordinates cs lie in the interior.
func (s *padSite) inside(cs []int) bool {
	for a, c := range cs {
		if c < s.lo[a] || c >= s.lo[a]+s.in[a] {
			return false
		}
	}
	return true
}

// srcOffset is the operand's offset, from its view's first element, of the
// interior element at coordinates cs.
func (s *padSite) srcOffset(cs []int) int {
	o := 0
	for a, c := range cs {
		o += (c - s.lo[a]) * s.src.layout[a].Stride
	}
	return o
}

// narrow has the operand written into the interior's first lo[a] and last
// hi[a] elements along each axis a (each band all of the other axes)
// instead of all of it, for a reader that reads the rest in place. It
// reports false, changing nothing, when the bands would cover an axis.
func (c *compiler) narrow(s *padSite, lo, hi []int) (bool, error) {
	if s.src == nil || s.shared {
		return false, nil
	}
	for a := range s.in {
		if lo[a]+hi[a] >= s.in[a] {
			return false, nil
		}
	}
	var desc strings.Builder
	saved, depth := c.desc, c.depth
	if saved != nil {
		c.desc = &desc
	}
	c.depth = s.depth
	defer func() { c.desc, c.depth = saved, depth }()
	var parts []code
	for a := range s.in {
		for _, band := range [][2]int{{0, lo[a]}, {s.in[a] - hi[a], hi[a]}} {
			start, n := band[0], band[1]
			if n == 0 {
				continue
			}
			from := *s.src
			from.layout, from.acc, from.vary, from.pad, from.reg = slices.Clone(s.src.layout), graph.OpInvalid, nil, nil, c.newInt()
			from.layout[a].Extent = n
			to := &cval{kind: cvView, dt: s.src.dt, buf: s.buf, layout: slices.Clone(s.layout), reg: c.newInt()}
			for b, e := range s.in {
				to.layout[b].Extent = e
			}
			to.layout[a].Extent = n
			copyBand, err := c.copyInto(&from, to)
			if err != nil {
				return false, err
			}
			fromReg, toReg, srcReg, ireg := from.reg, to.reg, s.src.reg, s.ireg
			fromShift, toShift := start*s.src.layout[a].Stride, start*s.layout[a].Stride
			parts = append(parts, func(fr *frame) {
				fr.ints[fromReg] = fr.ints[srcReg] + fromShift
				fr.ints[toReg] = fr.ints[ireg] + toShift
			}, copyBand)
		}
	}
	s.write = seq(parts...)
	if s.write == nil {
		// No window that sees the border sees the interior too.
		s.write = func(*frame) {}
	}
	if saved == nil {
		return true, nil
	}
	if old := saved.String(); s.notes[1] <= len(old) && old[s.notes[0]:s.notes[1]] == s.noteText {
		// The notes of the copy of all of the interior become the
		// bands'; the notes of the boxes after it move.
		notes := desc.String()
		saved.Reset()
		saved.WriteString(old[:s.notes[0]])
		saved.WriteString(notes)
		saved.WriteString(old[s.notes[1]:])
		delta := len(notes) - (s.notes[1] - s.notes[0])
		for _, t := range c.pads {
			if t != s && t.notes[0] >= s.notes[1] {
				t.notes[0] += delta
				t.notes[1] += delta
			}
		}
		s.notes[1] = s.notes[0] + len(notes)
		s.noteText = notes
	}
	return true, nil
}

// borderBox merges the axes after the last padded one into it: the same
// box, whose border fillBorder then fills in runs as long as those axes'
// elements together, not one short run per row. With no axis padded, all
// three are empty.
func borderBox(ext, lo, in []int) (ext2, lo2, in2 []int) {
	last := len(ext) - 1
	for last >= 0 && lo[last] == 0 && in[last] == ext[last] {
		last--
	}
	if last < 0 {
		return nil, nil, nil
	}
	inner := 1
	for _, e := range ext[last+1:] {
		inner *= e
	}
	ext2, lo2, in2 = slices.Clone(ext[:last+1]), slices.Clone(lo[:last+1]), slices.Clone(in[:last+1])
	ext2[last], lo2[last], in2[last] = ext2[last]*inner, lo2[last]*inner, in2[last]*inner
	return ext2, lo2, in2
}

// fillBorder sets to v the elements of the row-major array buf of extents
// ext that lie outside the box of extents in starting at lo.
func fillBorder[T float32 | float64](buf []T, ext, lo, in []int, v T) {
	if len(ext) == 0 {
		return
	}
	if len(ext) == 1 {
		fill(buf[:lo[0]], v)
		fill(buf[lo[0]+in[0]:ext[0]], v)
		return
	}
	inner := 1
	for _, e := range ext[1:] {
		inner *= e
	}
	for i := range ext[0] {
		b := buf[i*inner:][:inner]
		if i < lo[0] || i >= lo[0]+in[0] {
			fill(b, v)
		} else {
			fillBorder(b, ext[1:], lo[1:], in[1:], v)
		}
	}
}
