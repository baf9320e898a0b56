package fusion

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// HierCost is the schedule pass's cost model: the time a loop nest is
// expected to take on a Machine, in seconds. It is a model of the memory
// hierarchy in the manner of the classic analytical models of loop
// tiling: for each cache, the outermost loop whose working set (the
// distinct bytes the loops inside it touch, line by line) fits in the
// cache decides the traffic into that cache — the working set once per
// iteration of the loops outside it. Bytes read at a stride of a line or
// more cost a line each. The traffic at each level is charged at the
// bandwidth of the level outside it; the iterations at the rate of a
// vectorised loop when every array the innermost loop reads is walked with
// unit or zero stride, at the scalar loop's rate otherwise; an explicit
// copy (map id, which a flatten over a permuted result needs) is charged
// as a read and a write of its bytes.
//
// A kernel whose loops form a tree (a body that runs several loops, such
// as a LayerNorm's row: two reductions and a map) costs the sum of its
// paths from the top to each innermost loop, each modelled as a nest of
// its own (as if the loops were distributed), where the loops a path
// shares with one modelled before count in its iterations but bring no
// arrays: those are in the cache already.
//
// A matrix-product nest in the contract rule's normal form — two maps
// around a scalar rnz (+) (*) of an element of each, the form the native
// back end's GEMM micro-kernel takes — costs its flops at Machine.GEMMRate
// plus the result's bytes, unless NoGEMM says the back end runs it as
// loops; so does a path of a tree that ends in that form below maps (the
// two products of attention around its softmax). The model therefore
// never trades that form for another order, which the micro-kernel would
// not take.
//
// The model reads a term in lambda form (lambdaForm), so that the loops
// of a partial application, map (map f), have their extents.
type HierCost struct {
	Machine Machine // the zero Machine means DetectMachine
	NoGEMM  bool    // the back end has no GEMM micro-kernel (native.Options.NoGEMM)
}

// Cost implements CostModel.
func (m HierCost) Cost(s *Schedule) (float64, error) {
	if s.Term == nil {
		return math.Inf(1), s.Err
	}
	return m.TermCost(s.Term)
}

// TermCost is the cost of running term.
func (m HierCost) TermCost(term graph.Node) (float64, error) {
	typed, info, loops, err := typedLoops(term)
	if err != nil {
		return 0, err
	}
	return m.termCost(typed, info, loops)
}

// typedLoops is what the model reads of term: term in lambda form
// (lambdaForm), where the check types every loop's arguments, with its
// types and its loops.
func typedLoops(term graph.Node) (graph.Node, *graph.Info, loopList, error) {
	typed, err := lambdaForm(term)
	if err != nil {
		return nil, nil, loopList{}, err
	}
	info, err := graph.Check(typed)
	if err != nil {
		return nil, nil, loopList{}, err
	}
	return typed, info, newLoopList(typed), nil
}

// machine returns the machine m costs for, detected when m names none,
// with its rates filled in.
func (m HierCost) machine() Machine {
	mach := m.Machine
	if len(mach.Caches) == 0 {
		mach = DetectMachine()
	}
	return mach.withRates()
}

// termCost is TermCost of term, which info types and whose loops are l
// (typedLoops).
func (m HierCost) termCost(term graph.Node, info *graph.Info, l loopList) (float64, error) {
	mach := m.machine()
	copies := 0.0
	for n := range graph.All(term) {
		if z, ok := n.(*graph.NZip); ok && isCopy(z) {
			if t, ok := info.TypeOf(z).(*graph.ArrayType); ok {
				b := float64(graph.Bytes(t))
				copies += 2*b/mach.MemoryBandwidth + b/float64(t.DType.Size())/mach.LoopRate
			}
		}
	}
	if len(l.levels) == 0 {
		return copies, nil
	}
	if !m.NoGEMM && mach.GEMMRate > 0 && l.linear() {
		if flops, out, ok := gemmShape(info, l.levels); ok {
			return flops/mach.GEMMRate + out/mach.MemoryBandwidth + copies, nil
		}
	}
	cost := copies
	paths, own := l.paths()
	for i, p := range paths {
		if !m.NoGEMM && mach.GEMMRate > 0 {
			// A product inside a tree of loops (attention's two products
			// around its softmax) runs on the micro-kernel too.
			if flops, out, ok := productShape(info, l.path(p)); ok {
				cost += flops/mach.GEMMRate + out/mach.MemoryBandwidth
				continue
			}
		}
		n, err := newNestModel(info, l.path(p), own[i], mach.LineBytes)
		if err != nil {
			return 0, err
		}
		cost += n.cost(mach)
	}
	return cost, nil
}

// cost is the time of one path's loops on mach: the traffic into each
// cache at the bandwidth of the level outside it, and the iterations.
func (n *nestModel) cost(mach Machine) float64 {
	cost := 0.0
	for i, c := range mach.Caches {
		bw := mach.MemoryBandwidth
		if i+1 < len(mach.Caches) {
			bw = mach.Caches[i+1].Bandwidth
		}
		cost += n.traffic(float64(c.Bytes)) / bw
	}
	rate := mach.LoopRate
	if n.vectorisable() {
		rate = mach.VectorRate
	}
	return cost + n.iterations()/rate
}

// gemmShape reports whether the nest is a matrix product in the form the
// GEMM micro-kernel takes, or maps of one (a batch of products), with its
// flops and the bytes of its result. info types levels in lambda form
// (lambdaForm), so that every loop's extent is known.
func gemmShape(info *graph.Info, levels []Level) (flops, out float64, ok bool) {
	// Maps around the product (a batch: attention's heads, an imported
	// MatMul of rank 3) run it once per element, as the back ends do.
	for _, l := range levels[:max(0, len(levels)-3)] {
		h, _ := asHOF(l.Node)
		if l.Kind == "rnz" || !directlyNested(h) {
			return 0, 0, false
		}
	}
	return productShape(info, levels)
}

// productShape reports whether the last three of levels are a matrix
// product in the form the GEMM micro-kernel takes, run once per iteration
// of the loops above them, with its flops and the bytes of its results
// over all those iterations. The loops above may do other work (a path of
// a tree of loops, whose other paths cost that work); they must be maps,
// since the back ends run a product inside a reduction as loops.
func productShape(info *graph.Info, levels []Level) (flops, out float64, ok bool) {
	if len(levels) < 3 {
		return 0, 0, false
	}
	times := 1.0
	for _, l := range levels[:len(levels)-3] {
		h, _ := asHOF(l.Node)
		if l.Kind == "rnz" {
			return 0, 0, false
		}
		times *= float64(levelExtent(info, h))
	}
	levels = levels[len(levels)-3:]
	if levels[0].Kind == "rnz" || levels[1].Kind == "rnz" || levels[2].Kind != "rnz" {
		return 0, 0, false
	}
	h0, _ := asHOF(levels[0].Node)
	h1, _ := asHOF(levels[1].Node)
	h2, _ := asHOF(levels[2].Node)
	if !directlyNested(h0) || len(h2.args) != 2 {
		return 0, 0, false
	}
	red, ok := graph.Reducer(h2.red, nil)
	if !ok || len(red.Ops) != 1 || red.Ops[0] != graph.Add {
		return 0, 0, false
	}
	call, ok := h2.body.(*graph.Call)
	if !ok || call.Op != graph.Mul {
		return 0, 0, false
	}
	// The product multiplies the two elements the rnz traverses, which are
	// an element of each map.
	a, aok := h2.args[0].(*graph.Var)
	b, bok := h2.args[1].(*graph.Var)
	p0, p1 := h2.params[0], h2.params[1]
	c0, _ := call.Args[0].(*graph.Var)
	c1, _ := call.Args[1].(*graph.Var)
	if !aok || !bok || !((c0 == p0 && c1 == p1) || (c0 == p1 && c1 == p0)) {
		return 0, 0, false
	}
	isParam := func(h *hof, v *graph.Var) bool {
		return slices.Contains(h.params, v)
	}
	if !(isParam(h0, a) && isParam(h1, b)) && !(isParam(h0, b) && isParam(h1, a)) {
		return 0, 0, false
	}
	t, isArr := info.TypeOf(levels[0].Node).(*graph.ArrayType)
	if !isArr || t.Rank() != 2 || (t.DType != graph.Float32 && t.DType != graph.Float64) {
		return 0, 0, false
	}
	m, n, k := levelExtent(info, h0), levelExtent(info, h1), levelExtent(info, h2)
	return times * 2 * float64(m*n*k), times * float64(graph.Bytes(t)), true
}

// nestModel is a path of loops and the arrays each loop walks.
type nestModel struct {
	extent []float64   // iterations of each loop, outermost first
	stride [][]float64 // stride[d][a]: bytes loop d advances array a by; 0 if it does not walk a
	elem   []float64   // element bytes of each array
	line   float64
}

// newNestModel finds the arrays of a path of loops, from the top of a
// kernel to an innermost loop: each argument of a loop is a view of an
// array the term reads or of an element of an outer loop's argument (then
// the same array, walked along another axis); the path's result is one
// more array, walked by the maps (a reduction adds into the same elements
// at every step).
//
// The loops before own are shared with a path modelled before, which
// brought their arrays: they count in the iterations, but walk no array
// here, and the result is that of the loop at own, a value of the shared
// loops' body. A straight nest is one path, with own 0.
func newNestModel(info *graph.Info, levels []Level, own, line int) (*nestModel, error) {
	n := &nestModel{line: float64(line)}
	rootOf := map[*graph.Var]int{}
	byNode := map[graph.Node]int{}
	type walk struct{ level, array int }
	var walks []walk
	var strides []float64
	for d, l := range levels {
		h, _ := asHOF(l.Node)
		n.extent = append(n.extent, float64(levelExtent(info, h)))
		for i, a := range h.args {
			t, ok := info.TypeOf(a).(*graph.ArrayType)
			if !ok || t.Rank() == 0 {
				continue
			}
			base := a
			for {
				if _, x, ok := graph.AsView(base); ok {
					base = x
				} else if p, ok := base.(*graph.Proj); ok {
					base = p.X
				} else {
					break
				}
			}
			r := -1
			if v, ok := base.(*graph.Var); ok {
				if x, ok := rootOf[v]; ok {
					r = x
				}
			}
			if r < 0 {
				x, ok := byNode[base]
				if !ok {
					x = len(n.elem)
					byNode[base] = x
					n.elem = append(n.elem, float64(t.DType.Size()))
				}
				r = x
			}
			if i < len(h.params) {
				rootOf[h.params[i]] = r
			}
			if d < own {
				continue
			}
			walks = append(walks, walk{d, r})
			strides = append(strides, math.Abs(float64(t.Layout[0].Stride))*float64(t.DType.Size()))
		}
	}
	// The result: the maps write it, in the order of the nest.
	out := len(n.elem)
	if own >= len(levels) {
		return nil, fmt.Errorf("cost: a path of %d loops owns none", len(levels))
	}
	rt := graph.Materialized(info.TypeOf(levels[own].Node))
	elems := 1.0
	for d, l := range levels[own:] {
		if l.Kind != "rnz" {
			elems *= n.extent[own+d]
		}
	}
	if b := float64(graph.Bytes(rt)); b > 0 && elems > 0 {
		n.elem = append(n.elem, max(1, b/elems))
		s := n.elem[out]
		for d := len(levels) - 1; d >= own; d-- {
			if levels[d].Kind != "rnz" {
				walks = append(walks, walk{d, out})
				strides = append(strides, s)
				s *= n.extent[d]
			}
		}
	}
	n.stride = make([][]float64, len(levels))
	for d := range n.stride {
		n.stride[d] = make([]float64, len(n.elem))
	}
	for i, w := range walks {
		// Two walks of one array by one loop (a row and its first
		// element): the smaller stride decides how lines are used.
		if cur := n.stride[w.level][w.array]; cur == 0 || (strides[i] > 0 && strides[i] < cur) {
			n.stride[w.level][w.array] = strides[i]
		}
	}
	if len(n.extent) == 0 {
		return nil, fmt.Errorf("cost: no loops")
	}
	return n, nil
}

// iterations is the number of innermost iterations.
func (n *nestModel) iterations() float64 {
	it := 1.0
	for _, e := range n.extent {
		it *= e
	}
	return it
}

// vectorisable reports whether the innermost loop walks every array with
// unit or zero stride.
func (n *nestModel) vectorisable() bool {
	k := len(n.extent) - 1
	for a, s := range n.stride[k] {
		if s != 0 && s != n.elem[a] {
			return false
		}
	}
	return true
}

// bytes is the working set of array a in the loops from d inwards: its
// distinct elements there, each costing its size when one of those loops
// walks it contiguously (the lines are used whole) and a line (at most)
// otherwise.
func (n *nestModel) bytes(a, d int) float64 {
	count, least := 1.0, math.Inf(1)
	for j := d; j < len(n.extent); j++ {
		if s := n.stride[j][a]; s > 0 {
			count *= n.extent[j]
			least = min(least, s)
		}
	}
	unit := n.elem[a]
	if !math.IsInf(least, 1) && least > unit {
		unit = min(n.line, least)
	}
	return count * unit
}

// traffic is the bytes that come into a cache of the given capacity. Let
// d be the outermost loop whose working set fits (the loops from d
// inwards; with no loop at all, one iteration's elements always fit). The
// iterations of loop d-1 then each bring their own part of its working
// set, and what they share (an array loop d-1 does not walk, such as a
// reduction's accumulator row) stays, being used in every iteration: the
// traffic is loop d-1's working set once per iteration of the loops
// outside it.
func (n *nestModel) traffic(capacity float64) float64 {
	k := len(n.extent)
	set := func(d int) float64 {
		s := 0.0
		for a := range n.elem {
			s += n.bytes(a, d)
		}
		return s
	}
	d := 0
	for d < k && set(d) > capacity {
		d++
	}
	if d == 0 {
		return set(0)
	}
	outer := 1.0
	for j := range d - 1 {
		outer *= n.extent[j]
	}
	return outer * set(d-1)
}

// gemmBound is a lower bound on the cost of every order of a nest, with
// loops l typed by info (typedLoops), whose written order is the GEMM
// micro-kernel's form (ok false otherwise): an order in that form does
// the same flops at the same rate, and any other runs its iterations at
// best at the vectorised loop's rate.
func (m HierCost) gemmBound(info *graph.Info, l loopList) (float64, bool) {
	mach := m.machine()
	if m.NoGEMM || mach.GEMMRate <= 0 {
		return 0, false
	}
	if !l.linear() {
		return 0, false
	}
	flops, _, ok := gemmShape(info, l.levels)
	if !ok {
		return 0, false
	}
	return min(flops/mach.GEMMRate, flops/2/mach.VectorRate), true
}

// streamBound is a lower bound on the cost of every order of a nest of
// maps alone, with loops l typed by info (typedLoops); ok false for any
// other nest. Every order walks the same arrays over the same
// iterations, so each cache takes at least every byte they touch once,
// whole lines used, and the iterations run at best at the vectorised
// loop's rate. A nest of elementwise maps written
// row-major (a BatchNorm's normalisation, a ReLU's gradient over a batch
// of images) costs that bound as written: no order can beat it, and its
// search would cost every permutation of its loops for nothing.
func (m HierCost) streamBound(info *graph.Info, l loopList) (float64, bool) {
	mach := m.machine()
	if len(l.levels) == 0 || !l.linear() {
		return 0, false
	}
	for _, lv := range l.levels {
		if lv.Kind == "rnz" {
			return 0, false
		}
	}
	n, err := newNestModel(info, l.levels, 0, mach.LineBytes)
	if err != nil {
		return 0, false
	}
	// Each array's elements: the iterations of the loops that walk it,
	// in any order.
	bytes := 0.0
	for a := range n.elem {
		count := 1.0
		for d := range n.extent {
			if n.stride[d][a] > 0 {
				count *= n.extent[d]
			}
		}
		bytes += count * n.elem[a]
	}
	bound := n.iterations() / mach.VectorRate
	for i := range mach.Caches {
		bw := mach.MemoryBandwidth
		if i+1 < len(mach.Caches) {
			bw = mach.Caches[i+1].Bandwidth
		}
		bound += bytes / bw
	}
	return bound, true
}
