package nd_test

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

// TestEinsumErrors checks Einsum's refusals: each names the equation and
// the term, label, axis or extent at fault.
func TestEinsumErrors(t *testing.T) {
	m := f32In(t, "m", 3, 4)
	sq := f32In(t, "sq", 3, 3)
	x := f32In(t, "x", 2, 3, 4)
	for _, c := range []struct {
		eq   string
		xs   []graph.Node
		want string
	}{
		{"ii->i", []graph.Node{sq}, "label 'i' appears twice in term 0 (\"ii\") of \"ii->i\": a diagonal"},
		{"ij,jk->ik", []graph.Node{m}, "equation \"ij,jk->ik\" has 2 operand terms but 1 operands are given"},
		{"ij->i->j", []graph.Node{m}, "has more than one \"->\""},
		{"i1->i", []graph.Node{m}, "term 0 (\"i1\") of \"i1->i\" has '1'"},
		{"ijk->i", []graph.Node{m}, "term 0 (\"ijk\") of \"ijk->i\" labels 3 axes, but operand 0 has rank 2"},
		{"i->i", []graph.Node{m}, "labels 1 axes, but operand 0 has rank 2"},
		{"i...j...->ij", []graph.Node{x}, "has \"...\" twice"},
		{"ij,ij->i", []graph.Node{m, f32In(t, "n", 3, 5)}, "label 'j' is axis 1 of operand 0 with extent 4, but extent 5 elsewhere in \"ij,ij->i\""},
		{"...ij->ij", []graph.Node{x}, "has no \"...\" for the 1 axes \"...\" stands for"},
		{"ij->k", []graph.Node{m}, "label 'k' of the result \"k\" of \"ij->k\" labels no operand's axis"},
		{"ij->ii", []graph.Node{m}, "label 'i' appears twice in the result"},
		{"ij->i.", []graph.Node{m}, "the result \"i.\" of \"ij->i.\" has '.'"},
	} {
		_, err := nd.Ops{Source: "node3"}.Einsum(c.eq, c.xs...)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.eq, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "nd.Einsum (node3): ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q, want it to name nd.Einsum (node3) and say %q", c.eq, err, c.want)
		}
	}
}

// TestEinsumGemmForm checks that the attention einsums of a Keras
// MultiHeadAttention build a matrix product with no copy: no Reshape of a
// transposed operand, so the term has no map that only copies.
func TestEinsumGemmForm(t *testing.T) {
	q := f32In(t, "q", 2, 5, 2, 4)
	k := f32In(t, "k", 2, 3, 2, 4)
	y, err := nd.Einsum("aecd,abcd->acbe", q, k)
	if err != nil {
		t.Fatal(err)
	}
	src := graph.Print(y)
	if n := strings.Count(src, "rnz"); n != 1 {
		t.Errorf("%d reductions, want the one dot of a matrix product:\n%s", n, src)
	}
	if strings.Contains(src, `map (\x -> x)`) || strings.Contains(src, "flatten") {
		t.Errorf("the operands are copied or merged:\n%s", src)
	}
}
