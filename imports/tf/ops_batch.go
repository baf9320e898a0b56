package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

func init() {
	ops["BatchMatMul"] = opDef{arity: 2, outputs: 1, convert: convBatchMatMul(false)}
	ops["BatchMatMulV2"] = opDef{arity: 2, outputs: 1, convert: convBatchMatMul(true)}
	ops["BatchMatMulV3"] = opDef{arity: 2, outputs: 1, check: checkBatchMatMulV3, convert: convBatchMatMul(true)}
	ops["SpaceToBatchND"] = opDef{arity: 3, outputs: 1, convert: convSpaceToBatchND}
	ops["BatchToSpaceND"] = opDef{arity: 3, outputs: 1, convert: convBatchToSpaceND}
}

// checkBatchMatMulV3 refuses operand and result types that differ
// (BatchMatMulV3's Ta, Tb and Tout): hofuse multiplies operands of one
// type into that type.
func checkBatchMatMulV3(n *node) string {
	var seen tfpb.DataType
	for _, key := range []string{"Ta", "Tb", "Tout"} {
		dt, present, err := attrType(n, key)
		if err != nil {
			return err.Error()
		}
		if !present {
			continue
		}
		if seen != tfpb.DataType_DT_INVALID && dt != seen {
			return fmt.Sprintf("%s is %s where the other types are %s; hofuse multiplies operands of one type into that type", key, dtypeName(dt), dtypeName(seen))
		}
		seen = dt
	}
	return ""
}

// convBatchMatMul returns the converter of BatchMatMulV2(x, y; adj_x,
// adj_y) (broadcast) or of BatchMatMul (not): x and y of rank 2 or more
// are stacks of matrices [..., r, c], multiplied pairwise, x's matrices
// transposed first when adj_x is set (the adjoint; hofuse's numbers are
// real) and y's when adj_y is. BatchMatMulV2's batch axes (all but the
// last two) broadcast as NumPy's; BatchMatMul's must be equal.
// BatchMatMulV3 is BatchMatMulV2 with operand and result types as
// attributes (Ta, Tb, Tout), which must agree here.
func convBatchMatMul(broadcast bool) func(c *converter, n *node, in []value) ([]value, error) {
	return func(c *converter, n *node, in []value) ([]value, error) {
		o := nd.Ops{Source: n.name}
		var xy [2]graph.Node
		var inner [2]int
		for i, what := range []string{"x", "y"} {
			adj, err := attrBool(n, "adj_"+what, false)
			if err != nil {
				return nil, err
			}
			ext := extentsOf(in[i].typ)
			r := len(ext)
			if r < 2 {
				return nil, fmt.Errorf("%s is %v; %s multiplies stacks of matrices, of rank 2 or more", what, in[i].typ, n.op)
			}
			v, err := c.data(in[i])
			if err != nil {
				return nil, err
			}
			// The extent of the summed axis: x's columns, y's rows.
			inner[i] = ext[r-1-i]
			if adj {
				inner[i] = ext[r-2+i]
				perm := make([]int, r)
				for d := range perm {
					perm[d] = d
				}
				perm[r-2], perm[r-1] = r-1, r-2
				if v, err = o.Transpose(v, perm); err != nil {
					return nil, err
				}
			}
			xy[i] = v
		}
		if inner[0] != inner[1] {
			return nil, fmt.Errorf("x %v has %d columns and y %v %d rows (after adj_x and adj_y); they must agree", in[0].typ, inner[0], in[1].typ, inner[1])
		}
		if xe, ye := extentsOf(in[0].typ), extentsOf(in[1].typ); !broadcast && fmt.Sprint(xe[:len(xe)-2]) != fmt.Sprint(ye[:len(ye)-2]) {
			return nil, fmt.Errorf("x %v and y %v have batch shapes %v and %v; BatchMatMul (unlike BatchMatMulV2) needs them equal", in[0].typ, in[1].typ, xe[:len(xe)-2], ye[:len(ye)-2])
		}
		return c.result(o.MatMul(xy[0], xy[1]))
	}
}

// blockSpec reads SpaceToBatchND's and BatchToSpaceND's known operands:
// block_shape, a vector of M ≥ 1 extents from 1 to graph.MaxExtent, and
// the [M, 2] amounts (paddings, crops) before and after each spatial
// axis, from 0 to graph.MaxExtent, for an input of rank r ≥ M+1.
func blockSpec(in []value, what string, r int) (block []int, lo, hi []int, err error) {
	bs, err := constInts(in[1], "block_shape")
	if err != nil {
		return nil, nil, nil, err
	}
	m := len(bs)
	if m < 1 || len(in[1].konst.shape) != 1 || m+1 > r {
		return nil, nil, nil, fmt.Errorf("block_shape %v: want a vector of M ≥ 1 block extents, M at most %d for an input of rank %d", bs, r-1, r)
	}
	for i, b := range bs {
		if b < 1 || b > graph.MaxExtent {
			return nil, nil, nil, fmt.Errorf("block_shape %v: entry %d is %d; want an extent from 1 to %d", bs, i, b, int64(graph.MaxExtent))
		}
		block = append(block, int(b))
	}
	p := in[2].konst
	if p == nil {
		return nil, nil, nil, fmt.Errorf("input %s is computed by the graph; hofuse needs it constant at import time (a Const)", what)
	}
	ints, ok := p.ints()
	if !ok || len(p.shape) != 2 || p.shape[0] != m || p.shape[1] != 2 {
		return nil, nil, nil, fmt.Errorf("input %s is a %s tensor of shape %v; want int32 or int64 of shape [%d 2] for a block_shape of %d entries", what, dtypeName(p.dtype), p.shape, m, m)
	}
	for i := range m {
		a, b := ints[2*i], ints[2*i+1]
		if a < 0 || b < 0 || a > graph.MaxExtent || b > graph.MaxExtent {
			return nil, nil, nil, fmt.Errorf("%s %v: spatial axis %d has %d and %d; want amounts from 0 to %d", what, ints, i, a, b, int64(graph.MaxExtent))
		}
		lo, hi = append(lo, int(a)), append(hi, int(b))
	}
	return block, lo, hi, nil
}

// convSpaceToBatchND converts SpaceToBatchND(input, block_shape,
// paddings), block_shape [M] and paddings [M, 2] known at import: input
// [batch] + spatial (M axes) + remaining is zero-padded on each spatial
// axis i by paddings[i] (the padded extent a multiple of block_shape[i]),
// reshaped to [batch, p1/b1, b1, …, pM/bM, bM] + remaining, the block
// axes moved in front, [b1, …, bM, batch, p1/b1, …, pM/bM] + remaining,
// and reshaped to [batch·b1·…·bM, p1/b1, …, pM/bM] + remaining.
// TensorFlow writes a dilated convolution (Keras's Conv1D with
// dilation_rate and causal padding) as SpaceToBatchND, the convolution
// and BatchToSpaceND. Built from nd.Pad, nd.Reshape and nd.Transpose.
func convSpaceToBatchND(c *converter, n *node, in []value) ([]value, error) {
	ext := extentsOf(in[0].typ)
	block, lo, hi, err := blockSpec(in, "paddings", len(ext))
	if err != nil {
		return nil, err
	}
	m := len(block)
	batch := int64(ext[0])
	split := []int{ext[0]}         // [batch, p1/b1, b1, …] + remaining
	front := make([]int, 0, 2*m+1) // the permutation
	out := []int{0}                // [batch·∏b, p1/b1, …] + remaining; out[0] set below
	axes := make([]int, m)
	padded := false
	for i, b := range block {
		p := int64(ext[1+i]) + int64(lo[i]) + int64(hi[i])
		if p%int64(b) != 0 || p > graph.MaxExtent {
			return nil, fmt.Errorf("spatial axis %d of input %v padded by %d and %d has extent %d, which is not a multiple of block_shape entry %d (or past %d)", i, in[0].typ, lo[i], hi[i], p, b, int64(graph.MaxExtent))
		}
		if batch > graph.MaxExtent/int64(b) {
			return nil, fmt.Errorf("the batch %d times block_shape %v is past %d (graph.MaxExtent)", ext[0], block, int64(graph.MaxExtent))
		}
		batch *= int64(b)
		split = append(split, int(p)/b, b)
		front = append(front, 2+2*i)
		out = append(out, int(p)/b)
		axes[i] = 1 + i
		padded = padded || lo[i] > 0 || hi[i] > 0
	}
	front = append(front, 0)
	for i := range m {
		front = append(front, 1+2*i)
	}
	for j, e := range ext[1+m:] {
		split = append(split, e)
		front = append(front, 1+2*m+j)
		out = append(out, e)
	}
	out[0] = int(batch)
	if err := checkElements(split, "the padded input"); err != nil {
		return nil, err
	}
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	o := nd.Ops{Source: n.name}
	if padded {
		if x, err = o.Pad(x, axes, lo, hi, 0); err != nil {
			return nil, err
		}
	}
	if x, err = o.Reshape(x, split); err != nil {
		return nil, err
	}
	if x, err = o.Transpose(x, front); err != nil {
		return nil, err
	}
	return c.result(o.Reshape(x, out))
}

// convBatchToSpaceND converts BatchToSpaceND(input, block_shape, crops),
// block_shape [M] and crops [M, 2] known at import, SpaceToBatchND's
// inverse: input [batch] + spatial (M axes, e1 … eM) + remaining, batch a
// multiple of b1·…·bM, is reshaped to [b1, …, bM, batch/∏b, e1, …, eM] +
// remaining, permuted to [batch/∏b, e1, b1, …, eM, bM] + remaining,
// reshaped to [batch/∏b, e1·b1, …, eM·bM] + remaining, and cropped on each
// spatial axis i by crops[i] (leaving at least one element). Built from
// nd.Reshape, nd.Transpose and nd.Pad (negative amounts crop).
func convBatchToSpaceND(c *converter, n *node, in []value) ([]value, error) {
	ext := extentsOf(in[0].typ)
	block, lo, hi, err := blockSpec(in, "crops", len(ext))
	if err != nil {
		return nil, err
	}
	m := len(block)
	prod := int64(1)
	for _, b := range block {
		if prod *= int64(b); prod > int64(ext[0]) {
			break
		}
	}
	if prod > int64(ext[0]) || int64(ext[0])%prod != 0 {
		return nil, fmt.Errorf("the batch %d of input %v is not a multiple of the product of block_shape %v", ext[0], in[0].typ, block)
	}
	split := append([]int{}, block...) // [b1, …, bM, batch/∏b] + the rest of input
	split = append(split, ext[0]/int(prod))
	split = append(split, ext[1:]...)
	perm := []int{m}
	out := []int{ext[0] / int(prod)}
	axes, clo, chi := make([]int, m), make([]int, m), make([]int, m)
	cropped := false
	for i, b := range block {
		perm = append(perm, m+1+i, i)
		e := int64(ext[1+i]) * int64(b) // at most MaxElements: the input's size
		if int64(lo[i])+int64(hi[i]) >= e {
			return nil, fmt.Errorf("crops %d and %d of spatial axis %d remove all its %d elements (input %v, block %d)", lo[i], hi[i], i, e, in[0].typ, b)
		}
		out = append(out, int(e))
		axes[i], clo[i], chi[i] = 1+i, -lo[i], -hi[i]
		cropped = cropped || lo[i] > 0 || hi[i] > 0
	}
	for j := range ext[1+m:] {
		perm = append(perm, 2*m+1+j)
	}
	out = append(out, ext[1+m:]...)
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	o := nd.Ops{Source: n.name}
	if x, err = o.Reshape(x, split); err != nil {
		return nil, err
	}
	if x, err = o.Transpose(x, perm); err != nil {
		return nil, err
	}
	if !cropped {
		return c.result(o.Reshape(x, out))
	}
	if x, err = o.Reshape(x, out); err != nil {
		return nil, err
	}
	return c.result(o.Pad(x, axes, clo, chi, 0))
}

// checkElements refuses extents of more than graph.MaxElements elements;
// what names the array.
func checkElements(ext []int, what string) error {
	n := int64(1)
	for _, e := range ext {
		if n > graph.MaxElements/int64(e) {
			return fmt.Errorf("%s %v has more than %d elements (graph.MaxElements)", what, ext, int64(graph.MaxElements))
		}
		n *= int64(e)
	}
	return nil
}
