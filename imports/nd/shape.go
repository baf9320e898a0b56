package nd

import (
	"github.com/hofuse/hofuse/graph"
)

// Transpose returns x with its axes permuted: axis i of the result is axis
// perm[i] of x (numpy.transpose, ONNX Transpose). A nil perm reverses the
// axes, ONNX's default; negative entries count from the end. The result is
// a view (flips), no copy.
func Transpose(x graph.Node, perm []int) (graph.Node, error) { return Ops{}.Transpose(x, perm) }

// Transpose is the package's Transpose, with o's source name.
func (o Ops) Transpose(x graph.Node, perm []int) (graph.Node, error) {
	p := o.begin("Transpose")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	r := a.rank()
	if perm == nil {
		perm = make([]int, r)
		for i := range perm {
			perm[i] = r - 1 - i
		}
	}
	if len(perm) != r {
		return nil, p.errorf("perm %v has %d entries for x of rank %d", perm, len(perm), r)
	}
	norm, err := p.normAxes("perm entry", perm, r)
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return x, nil
	}
	y, err := p.permute(a, norm)
	if err != nil {
		return nil, err
	}
	return p.done(y.n)
}

// Reshape returns x with the given extents, of the same element count,
// in row-major order (numpy.reshape, ONNX Reshape). The extents are
// final: ONNX's 0 (copy the input's extent) and -1 (infer) are the
// caller's to resolve, with ResolveShape. A row-major x, and any x whose
// strides allow it, is reshaped by views (flatten, subdiv); any other x
// (a transposed one, say) is first copied into row-major order by a map.
// An x of one element may become a scalar (extents empty); a scalar cannot
// become an array.
func Reshape(x graph.Node, extents []int) (graph.Node, error) { return Ops{}.Reshape(x, extents) }

// Reshape is the package's Reshape, with o's source name.
func (o Ops) Reshape(x graph.Node, extents []int) (graph.Node, error) {
	p := o.begin("Reshape")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	for i, e := range extents {
		if e < 1 || e > graph.MaxExtent {
			return nil, p.errorf("extent %d of axis %d in %s is not between 1 and %d (resolve 0 and -1 with ResolveShape first)", e, i, shapeString(extents), graph.MaxExtent)
		}
	}
	y, err := p.reshape(a, extents)
	if err != nil {
		return nil, err
	}
	return p.done(y.n)
}

// ResolveShape resolves ONNX Reshape's shape for an input of the extents
// in: an entry 0 copies the input's extent on that axis (unless
// allowZero, ONNX's allowzero attribute, which hofuse refuses with 0
// since extents are at least 1), and one entry -1 is inferred from the
// element count.
func ResolveShape(in, shape []int, allowZero bool) ([]int, error) {
	p := Ops{}.begin("ResolveShape")
	out := make([]int, len(shape))
	infer := -1
	known := 1
	for i, e := range shape {
		switch {
		case e == 0 && !allowZero:
			if i >= len(in) {
				return nil, p.errorf("entry %d of shape %v is 0 (copy the input's extent) but the input %s has rank %d", i, shape, shapeString(in), len(in))
			}
			out[i] = in[i]
		case e == 0:
			return nil, p.errorf("entry %d of shape %v is 0 with allowzero: empty tensors are not supported", i, shape)
		case e == -1:
			if infer >= 0 {
				return nil, p.errorf("shape %v has -1 at entries %d and %d: at most one may be inferred", shape, infer, i)
			}
			infer = i
			continue
		case e < -1:
			return nil, p.errorf("entry %d of shape %v is %d, want -1, 0 or a positive extent", i, shape, e)
		default:
			out[i] = e
		}
		known *= out[i]
	}
	total := product(in)
	if infer >= 0 {
		if known == 0 || total%known != 0 {
			return nil, p.errorf("shape %v: %d elements of the input %s are not a multiple of %d", shape, total, shapeString(in), known)
		}
		out[infer] = total / known
	} else if known != total {
		return nil, p.errorf("shape %v has %d elements, the input %s has %d", shape, known, shapeString(in), total)
	}
	return out, nil
}

// Flatten returns x as a matrix, ONNX's Flatten: the axes before axis
// (negative counts from the end; 0..rank allowed) become the rows, the
// rest the columns; axis 0 gives one row, axis rank one column. A scalar
// is refused.
func Flatten(x graph.Node, axis int) (graph.Node, error) { return Ops{}.Flatten(x, axis) }

// Flatten is the package's Flatten, with o's source name.
func (o Ops) Flatten(x graph.Node, axis int) (graph.Node, error) {
	p := o.begin("Flatten")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	r := a.rank()
	if r == 0 {
		return nil, p.errorf("x is a scalar: it cannot become a matrix")
	}
	if axis < -r || axis > r {
		return nil, p.errorf("axis %d is out of range for rank %d (want %d..%d)", axis, r, -r, r)
	}
	if axis < 0 {
		axis += r
	}
	ext := a.extents()
	y, err := p.reshape(a, []int{product(ext[:axis]), product(ext[axis:])})
	if err != nil {
		return nil, err
	}
	return p.done(y.n)
}

// Squeeze returns x without the given axes, each of extent 1 (negative
// counts from the end); axes nil removes every axis of extent 1 (ONNX's
// and NumPy's default). An x of one element squeezed of every axis becomes
// a scalar. Views where the strides allow (always for row-major x).
func Squeeze(x graph.Node, axes []int) (graph.Node, error) { return Ops{}.Squeeze(x, axes) }

// Squeeze is the package's Squeeze, with o's source name.
func (o Ops) Squeeze(x graph.Node, axes []int) (graph.Node, error) {
	p := o.begin("Squeeze")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	r := a.rank()
	drop := make([]bool, r)
	if axes == nil {
		for i, ax := range a.lay {
			drop[i] = ax.Extent == 1
		}
	} else {
		norm, err := p.normAxes("axis", axes, r)
		if err != nil {
			return nil, err
		}
		for _, d := range norm {
			if a.lay[d].Extent != 1 {
				return nil, p.errorf("axis %d of x %s has extent %d, not 1", d, shapeString(a.extents()), a.lay[d].Extent)
			}
			drop[d] = true
		}
	}
	for d := r - 1; d >= 0; d-- {
		if drop[d] {
			if a, err = p.squeezeAxis(a, d); err != nil {
				return nil, err
			}
		}
	}
	return p.done(a.n)
}

// Unsqueeze returns x with axes of extent 1 inserted at the given
// positions of the result (ONNX Unsqueeze: negative counts from the end of
// the result, whose rank is x's plus len(axes)). Views (subdiv), no copy.
// A scalar x cannot gain axes (the IR builds arrays only by mapping over
// arrays): declare such a constant with its final shape instead.
func Unsqueeze(x graph.Node, axes []int) (graph.Node, error) { return Ops{}.Unsqueeze(x, axes) }

// Unsqueeze is the package's Unsqueeze, with o's source name.
func (o Ops) Unsqueeze(x graph.Node, axes []int) (graph.Node, error) {
	p := o.begin("Unsqueeze")
	a, err := p.operand("x", x)
	if err != nil {
		return nil, err
	}
	r := a.rank() + len(axes)
	norm, err := p.normAxes("axis", axes, r)
	if err != nil {
		return nil, err
	}
	if len(norm) == 0 {
		return x, nil
	}
	if a.rank() == 0 {
		return nil, p.errorf("x is a scalar: it cannot gain axes (the IR builds arrays only by mapping over arrays; declare a constant with its final shape)")
	}
	ins := make([]bool, r)
	for _, d := range norm {
		ins[d] = true
	}
	for d := range r {
		if ins[d] {
			if a, err = p.unsqueezeAxis(a, d); err != nil {
				return nil, err
			}
		}
	}
	return p.done(a.n)
}
