package nd

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// MatMul returns the matrix product of a and b as numpy.matmul defines it:
// for a [M,K] and b [K,N] the [M,N] product; a of rank 1 is a row [K] and
// the result loses that axis ([N]); b of rank 1 is a column [K] and the
// result loses it ([M]); both of rank 1 give the scalar dot product; axes
// before the last two are batch axes, broadcast as ZipWith does (a vector
// takes no part in that). Scalars are refused (use Binary with graph.Mul).
//
// For matrices the term is the form the native back end compiles to its
// GEMM kernel:
//
//	map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 b)) a
//
// nested in one nzip per batch axis for batched operands.
func MatMul(a, b graph.Node) (graph.Node, error) { return Ops{}.MatMul(a, b) }

// MatMul is the package's MatMul, with o's source name.
func (o Ops) MatMul(a, b graph.Node) (graph.Node, error) {
	p := o.begin("MatMul")
	aa, err := p.operand("a", a)
	if err != nil {
		return nil, err
	}
	ab, err := p.operand("b", b)
	if err != nil {
		return nil, err
	}
	if aa.rank() == 0 || ab.rank() == 0 {
		return nil, p.errorf("a has rank %d and b rank %d: matmul needs rank 1 or more (use Binary with mul for scalars)", aa.rank(), ab.rank())
	}
	if aa.dt != ab.dt || !aa.dt.IsNumeric() {
		return nil, p.errorf("a has element type %v and b %v, want one numeric type", aa.dt, ab.dt)
	}
	ka := aa.lay[aa.rank()-1].Extent
	kb := ab.lay[0].Extent
	kaxis := 0
	if ab.rank() >= 2 {
		kaxis = ab.rank() - 2
		kb = ab.lay[kaxis].Extent
	}
	if ka != kb {
		return nil, p.errorf("a %s has %d columns (axis %d) but b %s has %d rows (axis %d)",
			shapeString(aa.extents()), ka, aa.rank()-1, shapeString(ab.extents()), kb, kaxis)
	}
	core := []int{min(aa.rank(), 2), min(ab.rank(), 2)}
	y, _, err := p.zipCore([]string{"a", "b"}, []arr{aa, ab}, core, func(bl *layers.Builder, vs []graph.Node) graph.Node {
		return matmulCore(bl, vs[0], vs[1], core[0], core[1])
	})
	if err != nil {
		return nil, err
	}
	return p.done(y)
}

// dot is rnz (+) (*) r c.
func dot(b *layers.Builder, r, c graph.Node) graph.Node {
	return b.RNZ(b.Op(graph.Add), b.Op(graph.Mul), r, c)
}

// matmulCore multiplies x (a matrix of rank ra = 2 or a row of rank 1)
// with y (a matrix, rank rb = 2, or a column, rank 1).
func matmulCore(b *layers.Builder, x, y graph.Node, ra, rb int) graph.Node {
	switch {
	case ra == 1 && rb == 1:
		return dot(b, x, y)
	case ra == 1:
		return b.Map(b.Lambda1("c", func(c graph.Node) graph.Node { return dot(b, x, c) }), b.Flip(0, 1, y))
	case rb == 1:
		return b.Map(b.Lambda1("r", func(r graph.Node) graph.Node { return dot(b, r, y) }), x)
	}
	cols := b.Flip(0, 1, y)
	return b.Map(b.Lambda1("r", func(r graph.Node) graph.Node {
		return b.Map(b.Lambda1("c", func(c graph.Node) graph.Node { return dot(b, r, c) }), cols)
	}), x)
}

// Gemm returns alpha·A'·B' + beta·C as ONNX's Gemm defines it: a and b are
// matrices, A' is a or, with transA, its transpose (likewise B'), A' is
// [M,K] and B' [K,N]; c, which may be nil, broadcasts to [M,N] one way (a
// scalar, [N], [1,N], [M,1], [M,N] or [1,1]). The term is the GEMM form
// with an epilogue per result element,
//
//	nzip (\r q -> nzip (\c p -> alpha * rnz (+) (*) r c + beta * p) (flip 0 B) q) A C
//
// where a factor 1 and an absent c are left out, an operand axis that c
// lacks or stretches is captured instead of zipped, and transB reads the
// rows of b as the columns of B' with no flip. beta·C is added even when
// beta is 0, as ONNX's reference does (0·Inf is NaN).
func Gemm(a, b, c graph.Node, alpha, beta float64, transA, transB bool) (graph.Node, error) {
	return Ops{}.Gemm(a, b, c, alpha, beta, transA, transB)
}

// Gemm is the package's Gemm, with o's source name.
func (o Ops) Gemm(a, b, c graph.Node, alpha, beta float64, transA, transB bool) (graph.Node, error) {
	p := o.begin("Gemm")
	aa, err := p.operand("A", a)
	if err != nil {
		return nil, err
	}
	ab, err := p.operand("B", b)
	if err != nil {
		return nil, err
	}
	if aa.rank() != 2 || ab.rank() != 2 {
		return nil, p.errorf("A has rank %d and B rank %d, want 2 and 2", aa.rank(), ab.rank())
	}
	if aa.dt != ab.dt || !aa.dt.IsNumeric() {
		return nil, p.errorf("A has element type %v and B %v, want one numeric type", aa.dt, ab.dt)
	}
	if transA {
		if aa, err = p.flip(aa, 0, 1); err != nil {
			return nil, err
		}
	}
	// cols holds the columns of B' as rows: B' flipped, that is b itself
	// under transB.
	cols := ab
	if !transB {
		if cols, err = p.flip(ab, 0, 1); err != nil {
			return nil, err
		}
	}
	m, k := aa.lay[0].Extent, aa.lay[1].Extent
	n, kb := cols.lay[0].Extent, cols.lay[1].Extent
	if k != kb {
		return nil, p.errorf("A' is [%d,%d] and B' [%d,%d] (transA=%v, transB=%v): inner extents %d and %d differ", m, k, kb, n, transA, transB, k, kb)
	}
	// C: rank 0, 1 or 2, broadcast one way to [M,N]; perRow and perCol say
	// which of its axes remain to be zipped.
	var cc arr
	perRow, perCol := false, false
	if c != nil {
		if cc, err = p.operand("C", c); err != nil {
			return nil, err
		}
		if cc.dt != aa.dt {
			return nil, p.errorf("C has element type %v, A %v", cc.dt, aa.dt)
		}
		if cc.rank() > 2 {
			return nil, p.errorf("C has rank %d, want at most 2", cc.rank())
		}
		ext := cc.extents()
		if cc.rank() == 1 {
			ext = []int{1, ext[0]}
		} else if cc.rank() == 0 {
			ext = []int{1, 1}
		}
		if (ext[0] != 1 && ext[0] != m) || (ext[1] != 1 && ext[1] != n) {
			return nil, p.errorf("C %s does not broadcast to the result [%d,%d]", shapeString(cc.extents()), m, n)
		}
		// Remove the stretched axes, innermost first; an axis that
		// remains is zipped with the rows (perRow) or columns (perCol).
		switch cc.rank() {
		case 1:
			if ext[1] == 1 && n != 1 {
				cc, err = p.squeezeAxis(cc, 0)
			} else {
				perCol = true
			}
		case 2:
			perRow, perCol = true, true
			if ext[1] == 1 && n != 1 {
				cc, err = p.squeezeAxis(cc, 1)
				perCol = false
			}
			if err == nil && ext[0] == 1 && m != 1 {
				cc, err = p.squeezeAxis(cc, 0)
				perRow = false
			}
		}
		if err != nil {
			return nil, err
		}
	}
	bl := p.b
	epilogue := func(d, q graph.Node) graph.Node {
		if alpha != 1 {
			d = bl.Mul(bl.Const(alpha), d)
		}
		if c == nil {
			return d
		}
		if beta != 1 {
			q = bl.Mul(bl.Const(beta), q)
		}
		return bl.Add(d, q)
	}
	outerNames, outerArgs := []string{"r"}, []graph.Node{aa.n}
	if perRow {
		outerNames, outerArgs = append(outerNames, "q"), append(outerArgs, cc.n)
	}
	y := bl.NZip(bl.Lambda(outerNames, func(vs []graph.Node) graph.Node {
		r := vs[0]
		var q graph.Node
		if perRow {
			q = vs[1]
		} else if c != nil {
			q = cc.n
		}
		innerNames, innerArgs := []string{"c"}, []graph.Node{cols.n}
		if perCol {
			innerNames, innerArgs = append(innerNames, "p"), append(innerArgs, q)
		}
		return bl.NZip(bl.Lambda(innerNames, func(ws []graph.Node) graph.Node {
			pv := q
			if perCol {
				pv = ws[1]
			}
			return epilogue(dot(bl, r, ws[0]), pv)
		}), innerArgs...)
	}), outerArgs...)
	return p.done(y)
}
