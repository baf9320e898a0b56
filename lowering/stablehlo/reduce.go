package stablehlo

import (
	"slices"

	shlo "github.com/gomlx/go-xla/pkg/stablehlo"
	"github.com/gomlx/go-xla/pkg/types"

	"github.com/hofuse/hofuse/graph"
)

// reducerOps returns the scalar op of each leaf of the accumulator (its
// arrays and scalars, depth first) that graph.Reducer recognises in the
// reduction operator red, with the variables bound by e; StableHLO sees
// through the lifting. It returns nil when red is none of Reducer's forms.
func (l *lowerer) reducerOps(red graph.Node, e *env) []graph.Op {
	r, ok := graph.Reducer(red, e)
	if !ok {
		return nil
	}
	return r.Ops
}

// reduce reduces body, the per-iteration values of the loop at level (the
// innermost), with the reduction operator red.
//
// A sum of a product whose factors vary with the loop becomes a dot_general
// (tryDot), unless it is a dot product in every batch position
// (batchedDotProduct). Everything else becomes stablehlo.reduce, whose region applies
// the recognised scalar ops and whose initial values are their identities;
// the leaves of a tuple accumulator that have the same extents share one
// variadic reduce (so a sum and a sum of squares are one traversal), and
// leaves of different extents get one reduce each. StableHLO may regroup and reorder a reduction, so every
// op must be associative and commutative and have an identity; graph's
// Algebra says which are.
func (l *lowerer) reduce(n *graph.RNZ, red graph.Node, body *val, level int, e *env) (*val, error) {
	ops := l.reducerOps(red, e)
	if ops == nil {
		return nil, l.unsupported(red, "reduction operator: StableHLO reduce needs a scalar op (possibly lifted with zip), or a lambda that applies one to its two parameters or, for a tuple, one op per element")
	}
	comps := flatten(body, nil)
	if len(comps) != len(ops) {
		return nil, l.unsupported(red, "reduction operator has %d components for an accumulator of %d", len(ops), len(comps))
	}
	for i, op := range ops {
		alg := op.Algebra()
		if !alg.Associative || !alg.Commutative || !alg.HasIdentity {
			return nil, l.unsupported(red, "reduction with %v: StableHLO reduce needs an associative, commutative operator with an identity", op)
		}
		c, err := l.concrete(comps[i])
		if err != nil {
			return nil, l.wrap(n, err)
		}
		comps[i] = c
	}

	// Group the leaves by extents: each group is one (variadic) reduce,
	// except that a sum alone in its group that is a contraction becomes a
	// dot_general.
	results := make([]*val, len(comps))
	var groups [][]int
	for i, c := range comps {
		j := slices.IndexFunc(groups, func(g []int) bool { return slices.Equal(comps[g[0]].shape, c.shape) })
		if j < 0 {
			groups = append(groups, []int{i})
		} else {
			groups[j] = append(groups[j], i)
		}
	}
	for _, g := range groups {
		if len(g) == 1 && ops[g[0]] == graph.Add {
			v, ok, err := l.tryDot(n, comps[g[0]], level)
			if err != nil {
				return nil, err
			}
			if ok {
				results[g[0]] = v
				continue
			}
		}
		gcomps := make([]*val, len(g))
		gops := make([]graph.Op, len(g))
		for k, i := range g {
			gcomps[k], gops[k] = comps[i], ops[i]
		}
		outs, err := l.reduceLeaves(n, red, gops, gcomps, level)
		if err != nil {
			return nil, err
		}
		for k, i := range g {
			results[i] = outs[k]
		}
	}
	return assemble(structureOf(body), &results), nil
}

// structureOf returns a type with v's tuple structure, for assemble.
func structureOf(v *val) graph.Type {
	if v.tuple == nil {
		return graph.Scalar(graph.Invalid)
	}
	t := &graph.TupleType{Elems: make([]graph.Type, len(v.tuple))}
	for i, e := range v.tuple {
		t.Elems[i] = structureOf(e)
	}
	return t
}

// reduceLeaves reduces comps, arrays or scalars of equal extents, over the
// loop at level with one (variadic) stablehlo.reduce applying ops.
func (l *lowerer) reduceLeaves(n *graph.RNZ, red graph.Node, ops []graph.Op, comps []*val, level int) ([]*val, error) {
	// Bring the components to common labels that include the loop level.
	fs := make([]factor, len(comps))
	for i, c := range comps {
		f, err := l.merge(c)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		fs[i] = f
	}
	var labels []int
	if len(comps) == 1 {
		labels = union(fs[0].labels(), []int{level})
	} else {
		all := [][]int{{level}}
		for i := range comps {
			all = append(all, fs[i].levels)
		}
		labels = union(all...)
		for _, a := range seq(len(comps[0].shape)) {
			labels = append(labels, axisBase+a)
		}
	}
	axis := slices.Index(labels, level)
	ts := make([]*shlo.Value, len(comps))
	inits := make([]*shlo.Value, len(comps))
	region := l.fn.Closure()
	lhs := make([]*shlo.Value, len(comps))
	rhs := make([]*shlo.Value, len(comps))
	for i, c := range comps {
		t, err := l.expand(c, fs[i], labels)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		ts[i] = t
		x, err := identity(ops[i], c.dt)
		if err != nil {
			return nil, l.wrap(red, err)
		}
		init, err := l.constant(c.dt, x)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		inits[i] = init.factors[0].t
		s, err := l.shape(c.dt, nil)
		if err != nil {
			return nil, l.wrap(n, err)
		}
		if lhs[i], err = region.Input(s); err != nil {
			return nil, l.wrap(n, err)
		}
	}
	for i, c := range comps {
		s, _ := l.shape(c.dt, nil)
		var err error
		if rhs[i], err = region.Input(s); err != nil {
			return nil, l.wrap(n, err)
		}
	}
	outs := make([]*shlo.Value, len(comps))
	for i, op := range ops {
		var err error
		if outs[i], err = scalarOps[op].binary(lhs[i], rhs[i]); err != nil {
			return nil, l.wrap(red, err)
		}
	}
	if err := region.Return(outs...); err != nil {
		return nil, l.wrap(n, err)
	}
	results, err := shlo.MultiReduce(ts, inits, region, axis)
	if err != nil {
		return nil, l.wrap(n, err)
	}
	levels, axes := splitLabels(slices.Delete(slices.Clone(labels), axis, axis+1))
	out := make([]*val, len(comps))
	for i, c := range comps {
		out[i] = &val{dt: c.dt, shape: c.shape, factors: []factor{{t: results[i], levels: levels, axes: axes}}}
	}
	return out, nil
}

// tryDot lowers a sum over the loop at level of a product with at least two
// factors that vary with the loop into one dot_general: the loop's axis is
// contracted, the labels both operands share are batch axes, the others
// are free. Further varying factors are multiplied into the operand whose
// axes cover theirs (Σ_j A_ij B_jk g_j becomes dot_general(A, B*g)); factors
// that do not vary with the loop stay outside the sum, as factors of the
// result. A dot_general with batch dimensions and no free ones is left to
// the reduce (batchedDotProduct).
func (l *lowerer) tryDot(n *graph.RNZ, v *val, level int) (*val, bool, error) {
	var in, out []factor
	for _, f := range v.factors {
		if slices.Contains(f.levels, level) {
			in = append(in, f)
		} else {
			out = append(out, f)
		}
	}
	if len(in) < 2 {
		return nil, false, nil
	}
	// lhs: the factor with the most axes; rhs: the one that adds the most
	// axes to it.
	li := 0
	for i, f := range in {
		if len(f.labels()) > len(in[li].labels()) {
			li = i
		}
	}
	lhs := in[li]
	rest := slices.Delete(slices.Clone(in), li, li+1)
	ri, best := 0, -1
	for i, f := range rest {
		extra := 0
		for _, lab := range f.labels() {
			if !slices.Contains(lhs.labels(), lab) {
				extra++
			}
		}
		score := extra*axisBase + len(f.labels())
		if score > best {
			ri, best = i, score
		}
	}
	rhs := rest[ri]
	rest = slices.Delete(rest, ri, ri+1)
	if batchedDotProduct(lhs, rhs, rest, level) {
		return nil, false, nil
	}
	var err error
	for _, f := range rest {
		switch {
		case isSubset(f.labels(), rhs.labels()):
			rhs, err = l.mulInto(v, rhs, f)
		default:
			lhs, err = l.mulInto(v, lhs, f)
		}
		if err != nil {
			return nil, false, l.wrap(n, err)
		}
	}

	ll, rl := lhs.labels(), rhs.labels()
	// Read through a transpose a flip emitted: the dimension numbers are
	// permuted instead, and the free dimensions come out in the order of
	// the transpose's input.
	lt, lperm := l.untranspose(lhs.t, len(ll))
	rt, rperm := l.untranspose(rhs.t, len(rl))
	var batch, lb, rb []int
	for i, lab := range ll {
		if lab == level {
			continue
		}
		if j := slices.Index(rl, lab); j >= 0 {
			batch = append(batch, lab)
			lb = append(lb, lperm[i])
			rb = append(rb, rperm[j])
		}
	}
	free := func(labels, perm []int, other []int) []int {
		var out []int
		for d := range labels { // in the order of the operand actually read
			i := slices.Index(perm, d)
			if lab := labels[i]; lab != level && !slices.Contains(other, lab) {
				out = append(out, lab)
			}
		}
		return out
	}
	lfree := free(ll, lperm, rl)
	rfree := free(rl, rperm, ll)
	t, err := shlo.DotGeneral(lt, []int{lperm[slices.Index(ll, level)]}, lb, rt, []int{rperm[slices.Index(rl, level)]}, rb).
		Precision(types.DotGeneralPrecisionHighest, types.DotGeneralPrecisionHighest).Done()
	if err != nil {
		return nil, false, l.wrap(n, err)
	}
	got := slices.Concat(batch, lfree, rfree)
	want := slices.Sorted(slices.Values(got))
	if !slices.Equal(got, want) {
		perm := make([]int, len(want))
		for i, lab := range want {
			perm[i] = slices.Index(got, lab)
		}
		if t, err = shlo.Transpose(t, perm...); err != nil {
			return nil, false, l.wrap(n, err)
		}
	}
	levels, axes := splitLabels(want)
	res := &val{dt: v.dt, shape: v.shape, factors: append([]factor{{t: t, levels: levels, axes: axes}}, out...)}
	return res, true, nil
}

// batchedDotProduct reports whether the dot_general of lhs and rhs (with
// the factors rest multiplied into them, as tryDot does) over the loop at
// level would have batch dimensions and no free ones: a dot product in
// every batch position, such as BatchNorm's Σ_b x_bf·y_bf for each feature
// f. The XLA CPU plugin runs such a dot_general after transposing both
// operands (the batch dimension outermost), as one small dot per batch
// position; an elementwise product and a reduce, which it fuses into one
// pass over the operands, is faster: on the MLP 784-512-512-10 training
// step (Adam, BatchNorm), whose BatchNorm backward passes have four such
// sums, the executable took about 6% less time at batch 32 and 15 to 25%
// less at batch 256 (minimum of 60 interleaved runs). So tryDot leaves
// these to the reduce.
func batchedDotProduct(lhs, rhs factor, rest []factor, level int) bool {
	ll, rl := lhs.labels(), rhs.labels()
	for _, f := range rest {
		if !isSubset(f.labels(), rl) {
			ll = union(ll, f.labels())
		}
	}
	batch := false
	for _, lab := range ll {
		if lab == level {
			continue
		}
		if !slices.Contains(rl, lab) {
			return false // a free dimension of lhs
		}
		batch = true
	}
	for _, lab := range rl {
		if lab != level && !slices.Contains(ll, lab) {
			return false // a free dimension of rhs
		}
	}
	return batch
}

// untranspose returns the tensor to read for t, which has rank dims, and
// perm mapping each dimension of t to the dimension of that tensor: t's
// transpose input when a flip made t, else t itself with the identity.
func (l *lowerer) untranspose(t *shlo.Value, rank int) (*shlo.Value, []int) {
	if tr, ok := l.transposes[t]; ok && len(tr.perm) == rank {
		return tr.in, tr.perm
	}
	return t, seq(rank)
}

// mulInto returns the product of factors a and b of v, labelled by the
// union of their labels.
func (l *lowerer) mulInto(v *val, a, b factor) (factor, error) {
	labels := union(a.labels(), b.labels())
	ta, err := l.expand(v, a, labels)
	if err != nil {
		return factor{}, err
	}
	tb, err := l.expand(v, b, labels)
	if err != nil {
		return factor{}, err
	}
	t, err := shlo.Multiply(ta, tb)
	if err != nil {
		return factor{}, err
	}
	levels, axes := splitLabels(labels)
	return factor{t: t, levels: levels, axes: axes}, nil
}
