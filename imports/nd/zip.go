package nd

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// broadcastShape returns NumPy's multidirectional broadcast of the shapes:
// ranks aligned on the right, an extent 1 stretched to the other, a
// missing axis as extent 1. what names the operands in errors.
func (p *op) broadcastShape(axis string, what []string, shapes [][]int) ([]int, error) {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int, r)
	from := make([]int, r) // which operand set out[k]
	for k := range out {
		out[k] = 1
		from[k] = -1
	}
	for i, s := range shapes {
		for j, e := range s {
			k := r - len(s) + j
			switch {
			case e == out[k] || e == 1:
			case out[k] == 1:
				out[k], from[k] = e, i
			default:
				return nil, p.errorf("%s has extent %d on %s %d (%d from the end) and %s has %d: they do not broadcast (want equal extents or 1)",
					what[from[k]], out[k], axis, k, r-k, what[i], e)
			}
		}
	}
	return out, nil
}

// zipCore applies body to the operands element by element over their
// leading (batch) axes, broadcast as NumPy does, and hands body each
// operand's trailing core (core[i] axes of operand i; 0 for elementwise
// operations, so that body sees scalars). The batch axes of the result are
// the broadcast batch shape; body's result, scalar or array, is the
// element.
//
// The term is one nzip per batch axis of the result, outermost first; an
// operand takes part in the nzips of the axes it has (its batch axes
// aligned on the right) and is captured by the lambdas of those it does
// not. An operand axis of extent 1 under a result axis of another extent
// is removed first (a flatten view; a copy only when the operand's strides
// forbid that), so the operand is captured there too: nothing is copied
// to broadcast.
func (p *op) zipCore(what []string, xs []arr, core []int, body func(b *layers.Builder, vs []graph.Node) graph.Node) (graph.Node, []int, error) {
	batch := make([][]int, len(xs))
	for i, x := range xs {
		if x.rank() < core[i] {
			return nil, nil, p.errorf("%s has rank %d, want at least %d", what[i], x.rank(), core[i])
		}
		batch[i] = x.extents()[:x.rank()-core[i]]
	}
	axis := "axis"
	for _, c := range core {
		if c > 0 {
			axis = "batch axis"
		}
	}
	out, err := p.broadcastShape(axis, what, batch)
	if err != nil {
		return nil, nil, err
	}
	R := len(out)
	// axisOf[i][j] is the result axis operand i's batch axis j runs along,
	// after the stretched axes are removed.
	axisOf := make([][]int, len(xs))
	cur := make([]arr, len(xs))
	for i, x := range xs {
		nb := len(batch[i])
		for j := nb - 1; j >= 0; j-- {
			k := R - nb + j
			if batch[i][j] == 1 && out[k] != 1 {
				if x, err = p.squeezeAxis(x, j); err != nil {
					return nil, nil, err
				}
				continue
			}
			axisOf[i] = append([]int{k}, axisOf[i]...)
		}
		cur[i] = x
	}
	vals := make([]graph.Node, len(xs))
	for i := range cur {
		vals[i] = cur[i].n
	}
	next := make([]int, len(xs))
	var build func(k int, vals []graph.Node) graph.Node
	build = func(k int, vals []graph.Node) graph.Node {
		if k == R {
			return body(p.b, vals)
		}
		var part []int
		for i := range vals {
			if next[i] < len(axisOf[i]) && axisOf[i][next[i]] == k {
				part = append(part, i)
			}
		}
		names := make([]string, len(part))
		args := make([]graph.Node, len(part))
		for j, i := range part {
			names[j] = varName(k, j, len(part))
			args[j] = vals[i]
			next[i]++
		}
		fn := p.b.Lambda(names, func(vs []graph.Node) graph.Node {
			inner := append([]graph.Node(nil), vals...)
			for j, i := range part {
				inner[i] = vs[j]
			}
			return build(k+1, inner)
		})
		for _, i := range part {
			next[i]--
		}
		return p.b.NZip(fn, args...)
	}
	return build(0, vals), out, nil
}

// varName names variable j of n of the lambda at batch level k: a letter
// per operand, and the level's digit below the outermost level (a and b
// at level 0, a1 and b1 at level 1).
func varName(k, j, n int) string {
	s := string(rune('a' + j%26))
	if n > 26 {
		s += string(rune('0' + j/26%10))
	}
	if k > 0 {
		s += string(rune('0' + k%10))
	}
	return s
}

// Map returns f applied to every element of x, an array of any rank or a
// scalar: one map per axis, f building the scalar body from the element v
// with b, whose nodes carry the source name. Where x is a channels-last
// array seen channels first, the maps run over that array and the result
// is permuted back (see ZipWith).
func Map(x graph.Node, f func(b *layers.Builder, v graph.Node) graph.Node) (graph.Node, error) {
	return Ops{}.Map(x, f)
}

// Map is the package's Map, with o's source name.
func (o Ops) Map(x graph.Node, f func(b *layers.Builder, v graph.Node) graph.Node) (graph.Node, error) {
	p := o.begin("Map")
	if f == nil {
		return nil, p.errorf("f is nil")
	}
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	body := func(b *layers.Builder, vs []graph.Node) graph.Node { return f(b, vs[0]) }
	y, ok, err := p.zipChannelsLast([]string{"x"}, []arr{a}, body)
	if !ok && err == nil {
		y, _, err = p.zipCore([]string{"x"}, []arr{a}, []int{0}, body)
	}
	if err != nil {
		return nil, err
	}
	return p.done(y)
}

// ZipWith returns f applied elementwise to xs, broadcast as NumPy does
// (multidirectional broadcasting): shapes aligned on the right, an extent 1
// stretched to the other operands', a missing outer axis as extent 1, a
// scalar (rank 0) stretched everywhere. f builds the scalar body from one
// element of each operand, in order. The result has the broadcast shape;
// operands of rank 0 only give a scalar term. Where an operand is a
// channels-last array seen channels first (a convolution's result) and
// the others are of its shape or per-channel, the traversal runs with the
// channels last and the result is permuted back (zipChannelsLast).
func ZipWith(f func(b *layers.Builder, vs ...graph.Node) graph.Node, xs ...graph.Node) (graph.Node, error) {
	return Ops{}.ZipWith(f, xs...)
}

// ZipWith is the package's ZipWith, with o's source name.
func (o Ops) ZipWith(f func(b *layers.Builder, vs ...graph.Node) graph.Node, xs ...graph.Node) (graph.Node, error) {
	return o.zipWith("ZipWith", f, xs...)
}

func (o Ops) zipWith(name string, f func(b *layers.Builder, vs ...graph.Node) graph.Node, xs ...graph.Node) (graph.Node, error) {
	p := o.begin(name)
	if f == nil {
		return nil, p.errorf("f is nil")
	}
	if len(xs) == 0 {
		return nil, p.errorf("no operands")
	}
	as := make([]arr, len(xs))
	what := make([]string, len(xs))
	core := make([]int, len(xs))
	for i, x := range xs {
		what[i] = operandName(i, len(xs))
		a, err := p.operand(what[i], x)
		if err != nil {
			return nil, err
		}
		as[i] = a
	}
	body := func(b *layers.Builder, vs []graph.Node) graph.Node { return f(b, vs...) }
	y, ok, err := p.zipChannelsLast(what, as, body)
	if !ok && err == nil {
		y, _, err = p.zipCore(what, as, core, body)
	}
	if err != nil {
		return nil, err
	}
	return p.done(y)
}

// zipChannelsLast computes an elementwise operation of channels-first
// operands, and of per-channel ones (a BatchNormalization, a bias or
// scale of shape [C, 1, 1] on [N, C, H, W]), with the channels last when
// an operand is a channels-last array seen channels first: the result of
// a convolution or a pooling, flip 1 (flip 2 y). Written over the NCHW
// view, the per-channel vectors are zipped at the channel level and the
// spatial axes mapped below it; no rewrite moves the flips through that,
// so the operation became a kernel of its own that transposed y. And an
// activation or a residual add whose result has two consumers (a ResNet
// block's input feeds its first convolution and its add) keeps fusion's
// flip-nzip from moving the consumers' flips into it. Over [N, H, W, C]
// the vectors are zipped innermost, the operand's flips cancel against
// the permutation (so it reads y itself), and the result, permuted back
// to channels first, is flip 1 (flip 2 r): the next convolution's flips
// cancel against it, and fusion makes the operation the convolution's
// epilogue. ok is false, with nothing built, where the operands do not
// have this form: rank under 3, an operand that is neither of the
// result's shape nor 1 on every axis but the channels', an operand of
// the result's shape that would need more flips channels last than it
// has, or none that would need fewer.
func (p *op) zipChannelsLast(what []string, as []arr, body func(b *layers.Builder, vs []graph.Node) graph.Node) (graph.Node, bool, error) {
	R := 0
	shapes := make([][]int, len(as))
	for i, a := range as {
		R, shapes[i] = max(R, a.rank()), a.extents()
	}
	if R < 3 {
		return nil, false, nil
	}
	out, err := p.broadcastShape("axis", what, shapes)
	if err != nil || out[1] == 1 {
		return nil, false, nil
	}
	perm, inv := channelsLastPerm(R)
	cl := make([]arr, len(as))
	helped := false
	for i, a := range as {
		ext := a.extents()
		if slices.Equal(ext, out) {
			c, before, after, err := p.channelsLast(what[i], a, perm)
			if err != nil {
				return nil, false, err
			}
			if after > before {
				return nil, false, nil
			}
			cl[i], helped = c, helped || after < before
			continue
		}
		// Aligned on the right: operand axis j runs along result axis
		// R-len(ext)+j. Every axis but the channels' must be 1.
		ch := 1 - (R - len(ext))
		for j, e := range ext {
			if j != ch && e != 1 {
				return nil, false, nil
			}
		}
		if ch < 0 || ext[ch] == 1 {
			cl[i] = a // one element, broadcast everywhere in any order
			continue
		}
		x := a
		for j := len(ext) - 1; j >= 0; j-- {
			if j != ch {
				if x, err = p.squeezeAxis(x, j); err != nil {
					return nil, false, err
				}
			}
		}
		cl[i] = x // [C], aligned with the channels last
	}
	if !helped {
		return nil, false, nil
	}
	y, _, err := p.zipCore(what, cl, make([]int, len(cl)), body)
	if err != nil {
		return nil, false, err
	}
	r, err := p.operand("the result", y)
	if err != nil {
		return nil, false, err
	}
	if r, err = p.permute(r, inv); err != nil {
		return nil, false, err
	}
	return r.n, true, nil
}

// channelsLastPerm returns the permutation of rank r that puts the
// channels (axis 1) last, axis i of the result being axis perm[i] of a
// channels-first array, and its inverse.
func channelsLastPerm(r int) (perm, inv []int) {
	perm, inv = make([]int, r), make([]int, r)
	for i := range perm {
		perm[i] = i + 1
	}
	perm[0], perm[r-1] = 0, 1
	for i, k := range perm {
		inv[k] = i
	}
	return perm, inv
}

// channelsLast returns a, an array, permuted by perm as flips of the
// array under the flips at the top of a, so that flips that undo each
// other are not written; and how many flips are on top of a and of the
// result. A channels-last array seen channels first has flips on top
// (two for images, [N, C, H, W]) and none channels last.
func (p *op) channelsLast(what string, a arr, perm []int) (cl arr, before, after int, err error) {
	// a is its base seen through the flips on top of it: axis k of a
	// is axis q[k] of base.
	base, q := flipChain(a.n, a.rank())
	ba, err := p.operand(what, base)
	if err != nil {
		return arr{}, 0, 0, err
	}
	c := make([]int, len(perm))
	for k := range c {
		c[k] = q[perm[k]]
	}
	if cl, err = p.permute(ba, c); err != nil {
		return arr{}, 0, 0, err
	}
	return cl, flipDepth(a.n), flipDepth(cl.n), nil
}

// ChannelsLast returns f(x), f an elementwise function of an array that
// keeps its shape (an activation), computed with the channels last where
// x is a channels-last array seen channels first (a convolution's
// result): f applied to that array and the result permuted back, so that
// the flips cancel against x's and against those of the next
// convolution, as zipChannelsLast's do. Elsewhere it is f(x).
func ChannelsLast(x graph.Node, f func(x graph.Node) (graph.Node, error)) (graph.Node, error) {
	return Ops{}.ChannelsLast(x, f)
}

// ChannelsLast is the package's ChannelsLast, with o's source name.
func (o Ops) ChannelsLast(x graph.Node, f func(x graph.Node) (graph.Node, error)) (graph.Node, error) {
	p := o.begin("ChannelsLast")
	if f == nil {
		return nil, p.errorf("f is nil")
	}
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	if a.rank() < 3 || a.lay[1].Extent == 1 {
		return f(x)
	}
	perm, inv := channelsLastPerm(a.rank())
	cl, before, after, err := p.channelsLast("x", a, perm)
	if err != nil {
		return nil, err
	}
	if after >= before {
		return f(x)
	}
	y, err := f(cl.n)
	if err != nil {
		return nil, err
	}
	r, err := p.operand("f's result", y)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(r.extents(), cl.extents()) {
		return nil, p.errorf("f gives shape %s from shape %s: want an elementwise function", shapeString(r.extents()), shapeString(cl.extents()))
	}
	if r, err = p.permute(r, inv); err != nil {
		return nil, err
	}
	return p.done(r.n)
}

// flipChain returns the operand under the flips at the top of n, an
// array of rank r, and the permutation they make of it: axis k of n is
// axis q[k] of base.
func flipChain(n graph.Node, r int) (base graph.Node, q []int) {
	q = make([]int, r)
	for k := range q {
		q[k] = k
	}
	for {
		f, ok := n.(*graph.Flip)
		if !ok || f.Axis1 < 0 || f.Axis2 < 0 || f.Axis1 >= r || f.Axis2 >= r {
			return n, q
		}
		// Axis j of the flip is axis σ(j) of f.X, σ exchanging its
		// two: axis k of the top is axis σ(q[k]) of f.X.
		for k, j := range q {
			switch j {
			case f.Axis1:
				q[k] = f.Axis2
			case f.Axis2:
				q[k] = f.Axis1
			}
		}
		n = f.X
	}
}

// flipDepth counts the flips at the top of n: flip a b (flip c d x) has
// two.
func flipDepth(n graph.Node) int {
	k := 0
	for {
		f, ok := n.(*graph.Flip)
		if !ok {
			return k
		}
		n, k = f.X, k+1
	}
}

// operandName names operand i of n in errors: x and y for two, "operand i"
// otherwise.
func operandName(i, n int) string {
	if n == 2 {
		return []string{"x", "y"}[i]
	}
	if n == 1 {
		return "x"
	}
	return "operand " + string(rune('0'+i%10))
}

// Binary returns op applied elementwise to x and y, broadcast as ZipWith
// does: x + y for graph.Add, max x y for graph.Max, x < y (bool) for
// graph.Lt, and so on. op must be a binary scalar op; x and y must have
// one element type (Cast one of them first).
func Binary(op graph.Op, x, y graph.Node) (graph.Node, error) { return Ops{}.Binary(op, x, y) }

// Binary is the package's Binary, with o's source name.
func (o Ops) Binary(op graph.Op, x, y graph.Node) (graph.Node, error) {
	if op.Arity() != 2 {
		p := o.begin("Binary")
		return nil, p.errorf("%v is not a binary op", op)
	}
	p := o.begin("Binary " + op.String())
	ax, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	ay, err := p.operand("y", y)
	if err != nil {
		return nil, err
	}
	if ax.dt != ay.dt {
		return nil, p.errorf("x has element type %v and y %v: cast one first", ax.dt, ay.dt)
	}
	return o.zipWith("Binary "+op.String(), func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(op, vs[0], vs[1])
	}, x, y)
}

// Unary returns op applied to every element of x: exp, neg, sqrt, …
func Unary(op graph.Op, x graph.Node) (graph.Node, error) { return Ops{}.Unary(op, x) }

// Unary is the package's Unary, with o's source name.
func (o Ops) Unary(op graph.Op, x graph.Node) (graph.Node, error) {
	if op.Arity() != 1 {
		p := o.begin("Unary")
		return nil, p.errorf("%v is not a unary op", op)
	}
	return o.zipWith("Unary "+op.String(), func(b *layers.Builder, vs ...graph.Node) graph.Node {
		return b.Call(op, vs[0])
	}, x)
}

// Broadcast returns x broadcast to extents as NumPy's broadcast rules
// allow, ONNX Expand's bidirectional form: the result has the broadcast of
// x's shape and extents. Leading axes of extent 1 are added by views; an
// axis stretched from 1 (or absent) to a larger extent needs an array of
// that extent to map over, which the IR cannot make from nothing, so that
// is refused: use BroadcastLike with an operand of the wanted shape, or let
// ZipWith broadcast inside the operation that reads the result.
func Broadcast(x graph.Node, extents []int) (graph.Node, error) { return Ops{}.Broadcast(x, extents) }

// Broadcast is the package's Broadcast, with o's source name.
func (o Ops) Broadcast(x graph.Node, extents []int) (graph.Node, error) {
	p := o.begin("Broadcast")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	for i, e := range extents {
		if e < 1 || e > graph.MaxExtent {
			return nil, p.errorf("extent %d of axis %d in %s is not between 1 and %d", e, i, shapeString(extents), graph.MaxExtent)
		}
	}
	out, err := p.broadcastShape("axis", []string{"x", "the target shape"}, [][]int{a.extents(), extents})
	if err != nil {
		return nil, err
	}
	r := len(out)
	for k, e := range out {
		j := k - (r - a.rank())
		if e == 1 || (j >= 0 && a.lay[j].Extent == e) {
			continue
		}
		xe := 1
		if j >= 0 {
			xe = a.lay[j].Extent
		}
		return nil, p.errorf("axis %d of the result %s stretches x %s from extent %d to %d: the IR makes an array only by mapping over one of that extent (use BroadcastLike with such an operand, or ZipWith)",
			k, shapeString(out), shapeString(a.extents()), xe, e)
	}
	if r == a.rank() {
		return x, nil
	}
	if a.rank() == 0 {
		return nil, p.errorf("x is a scalar: it cannot become an array of shape %s (the IR builds arrays only by mapping over arrays)", shapeString(out))
	}
	for range r - a.rank() {
		if a, err = p.unsqueezeAxis(a, 0); err != nil {
			return nil, err
		}
	}
	return p.done(a.n)
}

// Stretch returns x broadcast to the extents out, which NumPy's rules
// allow (ONNX Expand, or Tile and a nearest upsampling written as one).
// The IR makes an array only by mapping over one of its extents, so each
// axis stretched from 1 is zipped with the index input of its extent
// (Index; its values are not read); leading axes of extent 1 are views.
func Stretch(x graph.Node, out []int) (graph.Node, error) { return Ops{}.Stretch(x, out) }

// Stretch is the package's Stretch, with o's source name.
func (o Ops) Stretch(x graph.Node, out []int) (graph.Node, error) {
	p := o.begin("Stretch")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	xs := a.extents()
	r := len(out)
	if r < len(xs) {
		return nil, p.errorf("x of shape %s has more axes than the target %s", shapeString(xs), shapeString(out))
	}
	args := []graph.Node{x}
	for k, e := range out {
		j := k - (r - len(xs))
		if e == 1 || (j >= 0 && xs[j] == e) {
			continue
		}
		if j >= 0 && xs[j] != 1 {
			return nil, p.errorf("axis %d of x %s has extent %d, which does not stretch to %d", j, shapeString(xs), xs[j], e)
		}
		idx, err := Index(e)
		if err != nil {
			return nil, err
		}
		var v graph.Node = idx
		if k < r-1 {
			trail := make([]int, r-1-k)
			for i := range trail {
				trail[i] = i + 1
			}
			if v, err = o.Unsqueeze(idx, trail); err != nil {
				return nil, err
			}
		}
		args = append(args, v)
	}
	y := x
	if len(args) > 1 {
		if y, err = o.ZipWith(func(_ *layers.Builder, vs ...graph.Node) graph.Node { return vs[0] }, args...); err != nil {
			return nil, err
		}
	}
	return o.Broadcast(y, out)
}

// Tile returns x repeated reps[i] times along each axis i as a whole
// (numpy.tile with a count per axis; ONNX's and TensorFlow's Tile): axis
// i of extent d becomes the axes [reps[i], d], stretched from [1, d] and
// merged.
func Tile(x graph.Node, reps []int) (graph.Node, error) { return Ops{}.Tile(x, reps) }

// Tile is the package's Tile, with o's source name.
func (o Ops) Tile(x graph.Node, reps []int) (graph.Node, error) {
	return o.repeat("Tile", x, reps, false)
}

// Repeat returns x with each element repeated reps[i] times along each
// axis i (numpy.repeat along every axis; a nearest upsampling by whole
// scales): axis i of extent d becomes the axes [d, reps[i]], stretched
// from [d, 1] and merged.
func Repeat(x graph.Node, reps []int) (graph.Node, error) { return Ops{}.Repeat(x, reps) }

// Repeat is the package's Repeat, with o's source name.
func (o Ops) Repeat(x graph.Node, reps []int) (graph.Node, error) {
	return o.repeat("Repeat", x, reps, true)
}

// repeat is Tile, or with each Repeat.
func (o Ops) repeat(name string, x graph.Node, reps []int, each bool) (graph.Node, error) {
	p := o.begin(name)
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	xs := a.extents()
	if len(reps) != len(xs) {
		return nil, p.errorf("%d counts %v for x of rank %d", len(reps), reps, len(xs))
	}
	var spread, wide, out []int
	for i, e := range xs {
		r := reps[i]
		if r < 1 || e > graph.MaxExtent/r {
			return nil, p.errorf("count %d for axis %d of extent %d: want at least 1, and the axis within %d", r, i, e, graph.MaxExtent)
		}
		if each {
			spread, wide = append(spread, e, 1), append(wide, e, r)
		} else {
			spread, wide = append(spread, 1, e), append(wide, r, e)
		}
		out = append(out, e*r)
	}
	if slices.Equal(out, xs) {
		return x, nil
	}
	y, err := o.Reshape(x, spread)
	if err != nil {
		return nil, err
	}
	if y, err = o.Stretch(y, wide); err != nil {
		return nil, err
	}
	return o.Reshape(y, out)
}

// BroadcastLike returns x broadcast with like, ONNX Expand when like has
// the target shape: the result has the broadcast of both shapes and x's
// values; like may have another element type, and its values are not
// used (the term zips over it for its extents only).
func BroadcastLike(x, like graph.Node) (graph.Node, error) { return Ops{}.BroadcastLike(x, like) }

// BroadcastLike is the package's BroadcastLike, with o's source name.
func (o Ops) BroadcastLike(x, like graph.Node) (graph.Node, error) {
	return o.zipWith("BroadcastLike", func(_ *layers.Builder, vs ...graph.Node) graph.Node { return vs[0] }, x, like)
}
