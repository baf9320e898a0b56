package nd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Einsum returns numpy.einsum(equation, xs...), as ONNX's Einsum and
// TensorFlow's Einsum define it: each operand's axes are labelled by one
// letter each ("bij,bjk->bik"), a label shared by operands names one axis
// of equal extents, and the result has the labels after "->" in that
// order, every other label summed over. Without "->" the result has the
// labels used once, in alphabetical order. "..." stands for the axes a
// term does not label, aligned from the right across the operands and
// broadcast as NumPy does; they come first in an implicit result. Spaces
// are ignored.
//
// An axis of extent 1 whose label has a larger extent elsewhere is
// broadcast (dropped from that operand). A label repeated within one term
// (a diagonal, "ii->i") is refused.
//
// Operands are contracted left to right, two at a time, each pair as one
// matrix product: the labels both share and the result keeps are batch
// axes, the labels both share and nothing later needs are the contracted
// axis, the others the rows and columns. A label only one operand has and
// the result lacks is summed over first. The product has the form the
// back ends compile to GEMM whenever one label is contracted and each
// side keeps at most one of its own (the usual attention einsums); more
// are merged by Reshape, which copies when the axes are not adjacent.
func Einsum(equation string, xs ...graph.Node) (graph.Node, error) {
	return Ops{}.Einsum(equation, xs...)
}

// labelled is an operand during contraction: its term, the label of each
// axis and the axes' extents.
type labelled struct {
	n      graph.Node
	labels []rune
	ext    []int
}

// Einsum is the package's Einsum, with o's source name.
func (o Ops) Einsum(equation string, xs ...graph.Node) (graph.Node, error) {
	p := o.begin("Einsum")
	eq := strings.Join(strings.Fields(equation), "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	if strings.Contains(rhs, "->") {
		return nil, p.errorf("equation %q has more than one \"->\"", equation)
	}
	terms := strings.Split(lhs, ",")
	if len(xs) == 0 || len(terms) != len(xs) {
		return nil, p.errorf("equation %q has %d operand terms but %d operands are given", equation, len(terms), len(xs))
	}
	ops := make([]labelled, len(xs))
	ellipsis := 0 // the most axes "..." stands for in any term
	for i, x := range xs {
		a, err := p.operand(fmt.Sprintf("operand %d", i), x)
		if err != nil {
			return nil, err
		}
		labels, err := p.einsumTerm(equation, terms[i], i, a.rank())
		if err != nil {
			return nil, err
		}
		ellipsis = max(ellipsis, countEllipsis(labels))
		ops[i] = labelled{n: x, labels: labels, ext: a.extents()}
		if a.lay == nil {
			ops[i].ext = nil
		}
	}
	// The extent of every label, checked across the operands; an
	// extent 1 against a larger one is broadcast.
	extent := map[rune]int{}
	for _, t := range ops {
		for k, l := range t.labels {
			extent[l] = max(extent[l], t.ext[k])
		}
	}
	for i := range ops {
		t := &ops[i]
		var drop []int
		for k, l := range t.labels {
			switch e := t.ext[k]; {
			case e == extent[l]:
			case e == 1:
				drop = append(drop, k)
			default:
				return nil, p.errorf("label %s is axis %d of operand %d with extent %d, but extent %d elsewhere in %q",
					labelName(l), k, i, e, extent[l], equation)
			}
		}
		if len(drop) > 0 {
			y, err := o.Squeeze(t.n, drop)
			if err != nil {
				return nil, err
			}
			t.n, t.labels, t.ext = y, deleteAt(t.labels, drop), deleteAt(t.ext, drop)
		}
	}
	out, err := p.einsumOutput(equation, rhs, explicit, terms, ops, ellipsis)
	if err != nil {
		return nil, err
	}
	// Labels used by one operand alone and not kept are summed over.
	for i := range ops {
		var axes []int
		for k, l := range ops[i].labels {
			if !slices.Contains(out, l) && !usedElsewhere(ops, i, l) {
				axes = append(axes, k)
			}
		}
		if len(axes) > 0 {
			y, err := o.Reduce(Sum, ops[i].n, axes, false)
			if err != nil {
				return nil, err
			}
			ops[i] = labelled{n: y, labels: deleteAt(ops[i].labels, axes), ext: deleteAt(ops[i].ext, axes)}
		}
	}
	cur := ops[0]
	for i := 1; i < len(ops); i++ {
		keep := slices.Clone(out)
		for _, t := range ops[i+1:] {
			keep = append(keep, t.labels...)
		}
		if cur, err = o.contract(cur, ops[i], keep); err != nil {
			return nil, err
		}
	}
	perm := make([]int, len(out))
	for k, l := range out {
		perm[k] = slices.Index(cur.labels, l)
	}
	y, err := o.Transpose(cur.n, perm) // x itself for the identity
	if err != nil {
		return nil, err
	}
	return p.done(y)
}

// contract multiplies a and b, summing over the labels both have that
// keep does not list, as one matrix product.
func (o Ops) contract(a, b labelled, keep []rune) (labelled, error) {
	if len(a.labels) == 0 || len(b.labels) == 0 {
		// A scalar scales the other operand.
		y, err := o.Binary(graph.Mul, a.n, b.n)
		if err != nil {
			return labelled{}, err
		}
		if len(a.labels) == 0 {
			return labelled{n: y, labels: b.labels, ext: b.ext}, nil
		}
		return labelled{n: y, labels: a.labels, ext: a.ext}, nil
	}
	var batch, contr, fa, fb []rune
	for _, l := range a.labels {
		switch {
		case !slices.Contains(b.labels, l):
			fa = append(fa, l)
		case slices.Contains(keep, l):
			batch = append(batch, l)
		default:
			contr = append(contr, l)
		}
	}
	for _, l := range b.labels {
		if !slices.Contains(a.labels, l) {
			fb = append(fb, l)
		}
	}
	extOf := func(t labelled, ls []rune) []int {
		e := make([]int, len(ls))
		for k, l := range ls {
			e[k] = t.ext[slices.Index(t.labels, l)]
		}
		return e
	}
	bext, faext, fbext, cext := extOf(a, batch), extOf(a, fa), extOf(b, fb), extOf(a, contr)
	// Each side as batch axes, then its rows (or columns) and the
	// contracted axis, each group merged into one axis. Transpose and
	// Reshape return their operand itself when they leave it as it is.
	side := func(t labelled, order []rune, groups ...[]int) (graph.Node, error) {
		perm := make([]int, len(order))
		for k, l := range order {
			perm[k] = slices.Index(t.labels, l)
		}
		y, err := o.Transpose(t.n, perm)
		if err != nil {
			return nil, err
		}
		shape := slices.Clone(bext)
		for _, g := range groups {
			shape = append(shape, product(g))
		}
		return o.Reshape(y, shape)
	}
	x, err := side(a, slices.Concat(batch, fa, contr), faext, cext)
	if err != nil {
		return labelled{}, err
	}
	y, err := side(b, slices.Concat(batch, contr, fb), cext, fbext)
	if err != nil {
		return labelled{}, err
	}
	z, err := o.MatMul(x, y)
	if err != nil {
		return labelled{}, err
	}
	ext := slices.Concat(bext, faext, fbext)
	if z, err = o.Reshape(z, ext); err != nil {
		return labelled{}, err
	}
	return labelled{n: z, labels: slices.Concat(batch, fa, fb), ext: ext}, nil
}

// einsumTerm reads term i of equation for an operand of rank r: its
// labels, with the axes "..." stands for labelled by ellipsisRunes.
func (p *op) einsumTerm(equation, term string, i, r int) ([]rune, error) {
	before, after, dots := strings.Cut(term, "...")
	if strings.Contains(after, "...") {
		return nil, p.errorf("term %d (%q) of %q has \"...\" twice", i, term, equation)
	}
	for _, c := range before + after {
		if !isLabel(c) {
			return nil, p.errorf("term %d (%q) of %q has %q, want letters a-z, A-Z and at most one \"...\"", i, term, equation, c)
		}
	}
	named := len(before) + len(after)
	if named > r || !dots && named != r {
		return nil, p.errorf("term %d (%q) of %q labels %d axes, but operand %d has rank %d", i, term, equation, named, i, r)
	}
	labels := []rune(before)
	if dots {
		labels = append(labels, ellipsisRunes(r-named)...)
	}
	labels = append(labels, []rune(after)...)
	for k, l := range labels {
		if slices.Contains(labels[:k], l) {
			return nil, p.errorf("label %s appears twice in term %d (%q) of %q: a diagonal, which hofuse does not support", labelName(l), i, term, equation)
		}
	}
	return labels, nil
}

// einsumOutput returns the result's labels: rhs's, or the implicit ones.
func (p *op) einsumOutput(equation, rhs string, explicit bool, terms []string, ops []labelled, ellipsis int) ([]rune, error) {
	count := map[rune]int{}
	for _, t := range ops {
		for _, l := range t.labels {
			count[l]++
		}
	}
	if !explicit {
		out := ellipsisRunes(ellipsis)
		// The letters the equation writes once.
		var letters []rune
		lhs := strings.Join(terms, "")
		for _, c := range lhs {
			if isLabel(c) && strings.Count(lhs, string(c)) == 1 {
				letters = append(letters, c)
			}
		}
		slices.Sort(letters)
		return append(out, letters...), nil
	}
	before, after, dots := strings.Cut(rhs, "...")
	if strings.Contains(after, "...") {
		return nil, p.errorf("the result %q of %q has \"...\" twice", rhs, equation)
	}
	if !dots && ellipsis > 0 {
		return nil, p.errorf("the result %q of %q has no \"...\" for the %d axes \"...\" stands for in the operands (write \"...\" in the result, or label them)", rhs, equation, ellipsis)
	}
	out := []rune(before)
	if dots {
		out = append(out, ellipsisRunes(ellipsis)...)
	}
	out = append(out, []rune(after)...)
	for k, l := range out {
		if !isLabel(l) && !isEllipsisRune(l) {
			return nil, p.errorf("the result %q of %q has %q, want letters a-z, A-Z and at most one \"...\"", rhs, equation, l)
		}
		if slices.Contains(out[:k], l) {
			return nil, p.errorf("label %s appears twice in the result %q of %q", labelName(l), rhs, equation)
		}
		if _, ok := count[l]; !ok && !isEllipsisRune(l) {
			return nil, p.errorf("label %s of the result %q of %q labels no operand's axis", labelName(l), rhs, equation)
		}
	}
	return out, nil
}

// The axes "..." stands for are labelled by runes past the letters,
// numbered from the last axis, so that the ones of operands of different
// ranks align from the right.
const ellipsisBase = 0x10000

func ellipsisRunes(n int) []rune {
	out := make([]rune, n)
	for k := range n {
		out[k] = rune(ellipsisBase + n - 1 - k)
	}
	return out
}

func isEllipsisRune(l rune) bool { return l >= ellipsisBase }

func countEllipsis(labels []rune) int {
	n := 0
	for _, l := range labels {
		if isEllipsisRune(l) {
			n++
		}
	}
	return n
}

func isLabel(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// labelName names a label in errors: its letter, or the axis of "..." it
// stands for.
func labelName(l rune) string {
	if isEllipsisRune(l) {
		return fmt.Sprintf("\"...\" (axis %d from the end)", -1-int(l-ellipsisBase))
	}
	return "'" + string(l) + "'"
}

func usedElsewhere(ops []labelled, i int, l rune) bool {
	for j, t := range ops {
		if j != i && slices.Contains(t.labels, l) {
			return true
		}
	}
	return false
}

// deleteAt returns s without the elements at the sorted indexes idx.
func deleteAt[T any](s []T, idx []int) []T {
	out := make([]T, 0, len(s))
	for k, v := range s {
		if !slices.Contains(idx, k) {
			out = append(out, v)
		}
	}
	return out
}
