package fusion

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// ScheduleOptions control the schedule pass, the last of Fuse's pipeline.
// The zero value schedules by the cost model on the host's machine.
type ScheduleOptions struct {
	// Off keeps every kernel as the fusion passes left it.
	Off bool
	// Machine is the memory hierarchy the cost model plans for; the zero
	// value means DetectMachine.
	Machine Machine
	// NoGEMM tells the cost model that the back end has no GEMM
	// micro-kernel (native.Options.NoGEMM), so that a matrix product is
	// costed as the loops it is.
	NoGEMM bool
	// Budget bounds the whole pass's search: the orders it costs, over all
	// kernels; 0 means DefaultScheduleBudget. A kernel whose search runs
	// out keeps the best order found so far and says so; the kernels after
	// it keep their order. The bound counts work, not time, so that the
	// same program fuses to the same kernels on any machine and under any
	// load.
	Budget int
	// MaxOrders bounds the orders costed per kernel; 0 means 720.
	MaxOrders int
	// Blocks are the block sizes the pass tries to subdivide a loop by
	// (one subdivision per candidate); nil means DefaultBlocks.
	Blocks []int
	// Margin is how much cheaper (a fraction of the written order's cost)
	// another order must be predicted to be before the pass chooses it
	// over the order the fusion passes wrote; 0 means 0.1. The back ends'
	// fast paths (GEMM, dot, axpy, vector programs) were built for the
	// written forms, which the model only approximates.
	Margin float64
	// MinCost is the predicted time, in seconds, under which a kernel is
	// kept as written without a search: what any order could save is
	// less than the search costs. 0 means 20 µs; a negative value
	// searches every kernel.
	MinCost float64
	// Tune, when set, chooses among the orders the model ranks best by
	// measuring them (see Tuner).
	Tune *Tuner
	// Choose, when set, picks the order instead of the cost model: it is
	// given the feasible orders (the written one first) and returns an
	// index. Tests use it to run orders the model would not choose.
	Choose func(k *Kernel, orders []*ScheduleCandidate) int
}

// DefaultScheduleBudget is the number of orders the schedule pass costs
// at most, over all kernels, when ScheduleOptions.Budget is 0: about
// half a second of search on this project's 2-core development machine.
const DefaultScheduleBudget = 1500

// DefaultBlocks are the block sizes the schedule pass tries: a tile of 16
// f64 or 32 f32 rows of a 1024-element row fills a 128 KiB L2 slice, and
// 64 a larger one.
var DefaultBlocks = []int{16, 64}

// A ScheduleCandidate is one order of a kernel's loops that the pass costed.
type ScheduleCandidate struct {
	Order        string        // level labels, outermost first: "mapA rnz mapB"
	Subdivisions []Subdivision // applied before the exchanges; levels of the written nest
	Term         graph.Node    // the kernel's body in this order
	Cost         float64       // predicted seconds
}

// KernelSchedule is the schedule the pass chose for one kernel.
type KernelSchedule struct {
	Written      string  `json:"written"`             // the order the fusion passes wrote, outermost first
	Order        string  `json:"order"`               // the order chosen
	Subdivisions string  `json:"subdivisions"`        // the subdivision chosen: "level 2 (rnz) by 16", or "none"
	Cost         float64 `json:"predicted_s"`         // the model's prediction for the chosen order, in seconds
	WrittenCost  float64 `json:"written_predicted_s"` // and for the written one
	Measured     float64 `json:"measured_s,omitempty"`
	By           string  `json:"by"`      // what chose: "cost model", "measurement", ...
	Changed      bool    `json:"changed"` // the body differs from the written one
	Orders       int     `json:"orders"`  // orders costed
	// Pruned counts the orders enumerated but never costed, by reason.
	Pruned   []PrunedOrders `json:"pruned,omitempty"`
	Duration time.Duration  `json:"search_ns"`
}

// PrunedOrders is how many orders one reason cut, with the first of them.
type PrunedOrders struct {
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// String is the schedule in one line.
func (s *KernelSchedule) String() string {
	if s == nil {
		return "(not scheduled)"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s", s.Order)
	if s.Subdivisions != "none" && s.Subdivisions != "" {
		fmt.Fprintf(&sb, ", %s", s.Subdivisions)
	}
	fmt.Fprintf(&sb, " (%s; predicted %s", s.By, formatSeconds(s.Cost))
	if s.Changed {
		fmt.Fprintf(&sb, ", written %s: %s", s.Written, formatSeconds(s.WrittenCost))
	}
	if s.Measured > 0 {
		fmt.Fprintf(&sb, ", measured %s", formatSeconds(s.Measured))
	}
	fmt.Fprintf(&sb, "; %d orders costed", s.Orders)
	n := 0
	for _, p := range s.Pruned {
		n += p.Count
	}
	if n > 0 {
		fmt.Fprintf(&sb, ", %d pruned", n)
	}
	fmt.Fprintf(&sb, ", %v)", s.Duration.Round(time.Microsecond))
	return sb.String()
}

func formatSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3g s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g µs", s*1e6)
}

// Label names a kernel in errors: its name, and the order the schedule
// pass chose when that is not the written one, so that a back end that
// cannot run a schedule says which.
func (k *Kernel) Label() string {
	if k.Schedule == nil || !k.Schedule.Changed {
		return k.Name
	}
	return fmt.Sprintf("%s (scheduled %s, written %s)", k.Name, k.Schedule.Order, k.Schedule.Written)
}

// ScheduleGraph runs the schedule pass on every kernel of g: it enumerates
// the orders of the kernel's loops that the exchange rules reach, after
// no subdivision or one subdivision of a loop by each of the blocks,
// prunes the equivalent and infeasible ones, costs the rest with HierCost
// (or measures the best, with Tune), and replaces the kernel's body with
// the order chosen, recording it in Kernel.Schedule.
//
// The loops of a kernel are a tree (NestTree), since a loop's body may
// compute scalars around the next loop (a matrix product's epilogue) or
// run several. The exchange rules swap a loop with the one that is its
// body's whole value, so the tree is cut into straight chains, each
// permuted by Steinhaus–Johnson–Trotter; the chains along a path multiply,
// and the branches of the tree are searched one after another, each kept
// at its best (searchList says why that loses nothing).
//
// The early cut: an order whose two halves of a subdivided loop run
// elements outside blocks is the same order with the halves swapped, and
// is not costed; an exchange the rules refuse (a reduction not known to
// be commutative, an inner loop that reads the outer element other than
// through a view) is remembered as a pair of loops, and every later order
// that needs that pair exchanged is cut without trying; an order whose
// loops walk the same arrays with the same strides as one already costed
// is equivalent for the model and cut too. Before any of that, a kernel
// predicted under MinCost is kept as written, and so is one written in the
// GEMM micro-kernel's form when the bound every order obeys (gemmBound) is
// within the margin of it (branch and bound): the dense layers of a model
// cost no search. Nor does a nest of maps alone whose written order is
// within the margin of the bound every order of it obeys (streamBound:
// every byte once, vectorised), such as a training step's elementwise
// kernels over a batch of images.
func ScheduleGraph(g *Graph, opt ScheduleOptions) error {
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultScheduleBudget
	}
	for _, k := range g.Kernels {
		if err := scheduleKernel(k, opt, &budget); err != nil {
			return err
		}
	}
	return nil
}

// scheduleKernel schedules one kernel.
// It costs at most *budget orders and takes those it costs off *budget.
func scheduleKernel(k *Kernel, opt ScheduleOptions, budget *int) error {
	start := time.Now()
	model := HierCost{Machine: opt.Machine, NoGEMM: opt.NoGEMM}
	loops := newLoopList(k.Body)
	if len(loops.levels) == 0 {
		return nil // views and scalars: no loops to order
	}
	labels := uniqueLabels(rootLabels(loops.levels))
	e := &enumeration{
		kernel: k, model: model, loops: loops, labels: labels, budget: *budget,
		maxOrders: opt.MaxOrders, refused: map[[2]string]string{}, seen: map[string]seenOrder{},
		visited: map[string]float64{}, pruned: map[string]*PrunedOrders{},
	}
	written := formatOrder(loops, labels, nil)
	typed, info, tloops, err := typedLoops(k.Body)
	if err != nil {
		return fmt.Errorf("kernel %s: costing its written order %s: %w", k.Name, written, err)
	}
	writtenCost, err := model.termCost(typed, info, tloops)
	if err != nil {
		return fmt.Errorf("kernel %s: costing its written order %s: %w", k.Name, written, err)
	}
	s := &KernelSchedule{Written: written, Order: written, Subdivisions: "none", Cost: writtenCost, WrittenCost: writtenCost, By: "cost model", Orders: 1}
	k.Schedule = s
	defer func() { s.Duration = time.Since(start) }()
	if *budget <= 0 {
		s.By = "kept as written: the search budget was spent on the kernels before"
		return nil
	}
	minCost := opt.MinCost
	if minCost == 0 {
		minCost = 20e-6
	}
	if writtenCost < minCost && opt.Choose == nil {
		s.By = "kept as written: predicted under " + formatSeconds(minCost)
		return nil
	}
	margin := opt.Margin
	if margin <= 0 {
		margin = 0.1
	}
	if readsWindow(k.Body) && opt.Choose == nil && opt.Tune == nil {
		// The back ends take a convolution or a pooling in the form the
		// layers write it (native's window GEMM, StableHLO's convolution
		// and reduce_window), and the cost model does not see a window's
		// reuse of its elements: another order would lose both.
		s.By = "kept as written: a window kernel, which the back ends' convolution and pooling forms take as written"
		return nil
	}
	if bound, ok := model.gemmBound(info, tloops); ok && bound > writtenCost*(1-margin) && opt.Choose == nil && opt.Tune == nil {
		// Branch and bound: no order can beat the written GEMM form.
		s.By = "kept as written: the GEMM micro-kernel's form, which no order is predicted to beat by the margin"
		return nil
	}
	if bound, ok := model.streamBound(info, tloops); ok && bound > writtenCost*(1-margin) && opt.Choose == nil && opt.Tune == nil {
		// Branch and bound: every byte once, vectorised, as written.
		s.By = "kept as written: maps that read and write every byte once, vectorised, which no order is predicted to beat by the margin"
		return nil
	}
	if e.maxOrders <= 0 {
		e.maxOrders = 720
	}
	e.unrecognised = unrecognisedReducers(k.Body)
	writtenCand := &ScheduleCandidate{Order: written, Term: k.Body, Cost: writtenCost}
	e.cands = []*ScheduleCandidate{writtenCand}
	if sig, err := e.signature(typed, info, tloops); err == nil {
		e.seen[sig] = seenOrder{written, writtenCost}
	}
	e.visited[subdivisionsKey(nil)+": "+written] = writtenCost
	err = e.search(opt.Blocks)
	*budget -= len(e.cands) - 1 // the written order was costed before the search
	if err != nil {
		return err
	}
	s.Orders = len(e.cands)
	for _, r := range sortedKeys(e.pruned) {
		s.Pruned = append(s.Pruned, *e.pruned[r])
	}
	if e.stopped != "" {
		s.By = "cost model (" + e.stopped + ")"
	}
	// Choose.
	best := writtenCand
	switch {
	case opt.Choose != nil:
		i := opt.Choose(k, e.cands)
		if i < 0 || i >= len(e.cands) {
			return fmt.Errorf("kernel %s: ScheduleOptions.Choose chose order %d of %d", k.Name, i, len(e.cands))
		}
		best, s.By = e.cands[i], "chosen by ScheduleOptions.Choose"
	default:
		for _, c := range e.cands {
			if c.Cost < best.Cost {
				best = c
			}
		}
		if best.Cost > writtenCost*(1-margin) {
			best = writtenCand
		}
		if opt.Tune != nil {
			chosen, measured, by, err := opt.Tune.choose(k, e.cands, best)
			if err != nil {
				return err
			}
			best, s.Measured, s.By = chosen, measured, by
		}
	}
	s.Order, s.Cost = best.Order, best.Cost
	if len(best.Subdivisions) > 0 {
		var parts []string
		for _, sd := range best.Subdivisions {
			parts = append(parts, fmt.Sprintf("level %d (%s) by %d", sd.Level, labels[sd.Level], sd.Block))
		}
		s.Subdivisions = strings.Join(parts, ", ")
	}
	if best == writtenCand {
		return nil
	}
	// The chosen body must compute the same type from the same inputs.
	bi, err := graph.Check(best.Term)
	if err != nil {
		return fmt.Errorf("kernel %s: schedule %s is ill-typed (a bug): %w", k.Name, best.Order, err)
	}
	if got, want := graph.Materialized(bi.TypeOf(best.Term)), k.Output.Type; got.String() != want.String() {
		return fmt.Errorf("kernel %s: schedule %s computes %v, not the kernel's %v (a bug)", k.Name, best.Order, got, want)
	}
	for _, in := range bi.Inputs {
		if !slices.Contains(k.Inputs, in) {
			return fmt.Errorf("kernel %s: schedule %s reads %s, which the kernel does not (a bug)", k.Name, best.Order, in.Name)
		}
	}
	k.Body, k.Inputs, s.Changed = best.Term, bi.Inputs, true
	return nil
}

// rootLabels names each level by its kind and the array its first
// argument is a view of, following elements of outer loops to the arrays
// they come from: mapA, mapB, rnz (as the paper names the loops of the
// matrix product, whose reduction it does not name).
func rootLabels(levels []Level) []string {
	root := map[*graph.Var]string{}
	out := make([]string, len(levels))
	for d, l := range levels {
		h, _ := asHOF(l.Node)
		name := ""
		for i, a := range h.args {
			base := viewBase(a)
			n := ""
			switch b := base.(type) {
			case *graph.Var:
				n = root[b]
			case *graph.Input:
				n = b.Name
			default:
				graph.Inspect(base, func(x graph.Node) bool {
					if in, ok := x.(*graph.Input); ok && n == "" {
						n = in.Name
					}
					return n == ""
				})
			}
			if i < len(h.params) {
				root[h.params[i]] = n
			}
			if name == "" {
				name = n
			}
		}
		if l.Kind == "rnz" {
			out[d] = "rnz"
		} else {
			out[d] = "map" + name
		}
	}
	return out
}

// uniqueLabels numbers repeated labels: mapx, mapx#2.
func uniqueLabels(labels []string) []string {
	out := slices.Clone(labels)
	count := map[string]int{}
	for i, l := range labels {
		count[l]++
		if count[l] > 1 {
			out[i] = fmt.Sprintf("%s#%d", l, count[l])
		}
	}
	return out
}

// enumeration is the search over one kernel's orders.
type enumeration struct {
	kernel    *Kernel
	model     HierCost
	loops     loopList // of the written body
	labels    []string // of the written loops, in preorder
	budget    int      // the orders the pass may still cost
	maxOrders int
	cands     []*ScheduleCandidate
	// refused holds the pairs of loops (upper, lower label) whose exchange
	// the rules refused, with the reason.
	refused map[[2]string]string
	seen    map[string]seenOrder // model signature -> the first order that had it
	visited map[string]float64   // subdivisions and order -> its cost
	// unrecognised counts the reduction operators of the written body
	// that graph.Reducer does not recognise; an order may not add any.
	unrecognised int
	pruned       map[string]*PrunedOrders
	stopped      string // why the search stopped early, if it did
}

// seenOrder is the first order costed with one model signature.
type seenOrder struct {
	order string
	cost  float64
}

func (e *enumeration) prune(reason, order string) {
	p := e.pruned[reason]
	if p == nil {
		p = &PrunedOrders{Reason: reason, Example: order}
		e.pruned[reason] = p
	}
	p.Count++
}

// variant is the tree of loops the permutations start from: the written
// one, or one with a loop subdivided.
type variant struct {
	term   graph.Node
	labels []string // in preorder; a subdivided loop's label twice, blocks first
	subs   []Subdivision
	loops  loopList
	chains [][2]int // straight chains: first loop (preorder), length
}

// search enumerates every variant's orders.
func (e *enumeration) search(blocks []int) error {
	if blocks == nil {
		blocks = DefaultBlocks
	}
	written := formatOrder(e.loops, e.labels, nil)
	base, err := hoistViews(e.kernel.Body)
	if err != nil {
		e.prune("the nest's views cannot be hoisted: "+err.Error(), written)
		return nil
	}
	loops := newLoopList(base)
	if loops.shapeKey() != e.loops.shapeKey() {
		e.prune("hoisting the views changed the tree of loops", written)
		return nil
	}
	variants := []variant{{term: base, labels: e.labels}}
	_, info, typed, err := typedLoops(base)
	if err != nil {
		return fmt.Errorf("kernel %s: %w", e.kernel.Name, err)
	}
	if typed.shapeKey() != loops.shapeKey() {
		e.prune("the loops in lambda form, which the cost model reads, are another tree", written)
		return nil
	}
	for _, ch := range chains(loops) {
		if ch[1] < 2 {
			continue // a loop alone: tiling it changes no order
		}
		for d := ch[0]; d < ch[0]+ch[1]; d++ {
			h, _ := asHOF(typed.levels[d].Node)
			ext := levelExtent(info, h)
			for _, b := range blocks {
				if b < 2 || ext%b != 0 || ext/b < 2 {
					continue
				}
				sd := Subdivision{Level: d, Block: b}
				t, err := subdivideLevel(base, sd)
				if err != nil {
					e.prune("subdivision refused: "+firstLine(err), fmt.Sprintf("level %d by %d", d, b))
					continue
				}
				variants = append(variants, variant{term: t, labels: slices.Insert(slices.Clone(e.labels), d, e.labels[d]), subs: []Subdivision{sd}})
			}
		}
	}
	for _, v := range variants {
		v.loops = newLoopList(v.term)
		if len(v.loops.levels) != len(v.labels) {
			e.prune("the subdivided nest is not the written one with one more loop", strings.Join(v.labels, " "))
			continue
		}
		v.chains = chains(v.loops)
		perm := make([]int, len(v.labels))
		for i := range perm {
			perm[i] = i
		}
		if _, _, _, err := e.searchList(&v, v.childChains(-1), v.term, perm); err != nil {
			return err
		}
		if e.stopped != "" {
			break
		}
	}
	return nil
}

// firstLine is the first line of an error.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// chains cuts a tree of loops into straight chains, each loop of a chain
// the whole value of the function body of the one before (as the
// exchange rules need); a chain's loops are consecutive in preorder.
func chains(l loopList) [][2]int {
	var out [][2]int
	for j := range l.levels {
		if p := l.parent[j]; p >= 0 && p == j-1 && len(l.children(p)) == 1 {
			if h, _ := asHOF(l.levels[p].Node); directlyNested(h) {
				out[len(out)-1][1]++
				continue
			}
		}
		out = append(out, [2]int{j, 1})
	}
	return out
}

// childChains returns the chains that start in the body of chain c's last
// loop (c = -1: the chains at the top level).
func (v *variant) childChains(c int) []int {
	last := -1
	if c >= 0 {
		last = v.chains[c][0] + v.chains[c][1] - 1
	}
	var out []int
	for i, ch := range v.chains {
		if v.loops.parent[ch[0]] == last {
			out = append(out, i)
		}
	}
	return out
}

// directlyNested reports whether h's function body is itself the next
// loop (not a scalar computation around it), as the exchange rules need.
func directlyNested(h *hof) bool {
	switch b := h.body.(type) {
	case *graph.NZip:
		return !graph.IsFunc(b) && !isCopy(b)
	case *graph.RNZ:
		return true
	}
	return false
}

// searchList searches the chains in list one after another, starting from
// term (which realises perm): each chain's orders, with the chains below
// it, and then the next chain from the best of them. Chains in different
// branches of the tree do not meet in the cost model, which sums the
// paths from the top to each innermost loop (HierCost), so the best order
// of the whole is the best of each branch: the early cut of a tree, whose
// orders would otherwise multiply across its branches. Chains along one
// path do meet (an inner chain's strides depend on the outer order), and
// each order of an outer chain searches the chains inside it anew.
//
// It returns the best term found, its permutation and its predicted cost
// (+Inf when no order could be costed).
func (e *enumeration) searchList(v *variant, list []int, term graph.Node, perm []int) (graph.Node, []int, float64, error) {
	cost := e.visit(v, term, perm)
	for _, c := range list {
		if e.stopped != "" {
			break
		}
		var err error
		if term, perm, cost, err = e.searchChain(v, c, term, perm); err != nil {
			return nil, nil, 0, err
		}
	}
	return term, perm, cost, nil
}

// searchChain enumerates the permutations of chain c of v, from term
// (realising perm), by Steinhaus–Johnson–Trotter, and for each the chains
// inside it; it returns the best.
func (e *enumeration) searchChain(v *variant, c int, term graph.Node, perm []int) (graph.Node, []int, float64, error) {
	lo, m := v.chains[c][0], v.chains[c][1]
	kids := v.childChains(c)
	bestT, bestP, bestC, err := e.searchList(v, kids, term, perm)
	if err != nil {
		return nil, nil, 0, err
	}
	if m < 2 {
		return bestT, bestP, bestC, nil
	}
	start, startPerm := term, perm
	cur, p := term, slices.Clone(perm)
	for _, pos := range sjtSwaps(m) {
		if e.stopped != "" {
			break
		}
		at := lo + pos
		p[at], p[at+1] = p[at+1], p[at]
		order := e.order(v, p)
		if e.halvesSwapped(v, p) {
			// The same order as the one with the halves the other way:
			// follow the chain of exchanges, cost nothing.
			e.prune("equivalent: a subdivided loop's elements outside its blocks", order)
			cur = e.step(v, cur, at, p)
			continue
		}
		if pair, reason, ok := e.needsRefused(v, p); ok {
			e.prune(fmt.Sprintf("infeasible: needs %s and %s exchanged, which the rules refuse: %s", pair[0], pair[1], reason), order)
			cur = nil
			continue
		}
		if cur != nil {
			cur = e.step(v, cur, at, p)
		}
		if cur == nil {
			t, err := realiseFrom(start, startPerm, p, lo, lo+m, v.labels, e.refused)
			if err != nil {
				e.prune("infeasible: "+firstLine(err), order)
				continue
			}
			cur = t
		}
		t, tp, tc, err := e.searchList(v, kids, cur, slices.Clone(p))
		if err != nil {
			return nil, nil, 0, err
		}
		if tc < bestC {
			bestT, bestP, bestC = t, tp, tc
		}
	}
	return bestT, bestP, bestC, nil
}

// step exchanges the loops at at and at+1 of cur, or returns nil when the
// rules refuse (remembering the pair).
func (e *enumeration) step(v *variant, cur graph.Node, at int, perm []int) graph.Node {
	if cur == nil {
		return nil
	}
	next, err := exchangeAt(cur, at)
	if err != nil {
		var ref *Refusal
		if errors.As(err, &ref) {
			// perm already has the two swapped: the pair as they were.
			e.refused[[2]string{v.labels[perm[at+1]], v.labels[perm[at]]}] = ref.Reason
		}
		return nil
	}
	return next
}

// halvesSwapped reports whether perm runs the elements of a subdivided
// loop outside its blocks.
func (e *enumeration) halvesSwapped(v *variant, perm []int) bool {
	for i := range perm {
		for j := i + 1; j < len(perm); j++ {
			if v.labels[perm[i]] == v.labels[perm[j]] && perm[i] > perm[j] {
				return true
			}
		}
	}
	return false
}

// needsRefused reports whether perm puts below each other two loops whose
// exchange was refused, in the order the refusal forbade.
func (e *enumeration) needsRefused(v *variant, perm []int) ([2]string, string, bool) {
	for i := range perm {
		for j := i + 1; j < len(perm); j++ {
			// perm[j] was above perm[i] in the variant and is now below it.
			if perm[j] < perm[i] {
				pair := [2]string{v.labels[perm[j]], v.labels[perm[i]]}
				if r, ok := e.refused[pair]; ok {
					return pair, r, true
				}
			}
		}
	}
	return [2]string{}, "", false
}

// order writes v's loops in the order perm.
func (e *enumeration) order(v *variant, perm []int) string {
	return formatOrder(v.loops, v.labels, perm)
}

// formatOrder writes a tree of loops, each loop at preorder position i
// named by labels[perm[i]] (perm nil: the identity): a straight nest as
// its labels outermost first, "mapA mapB rnz", and a loop whose body runs
// several as its label and theirs in parentheses, separated by
// semicolons: "mapx (rnz; rnz#2; mapx#2)".
func formatOrder(l loopList, labels []string, perm []int) string {
	name := func(i int) string {
		if perm == nil {
			return labels[i]
		}
		return labels[perm[i]]
	}
	var list func(parent int) string
	list = func(parent int) string {
		var parts []string
		for _, c := range l.children(parent) {
			s := name(c)
			switch kids := l.children(c); {
			case len(kids) == 1:
				s += " " + list(c)
			case len(kids) > 1:
				s += " (" + list(c) + ")"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "; ")
	}
	return list(-1)
}

// visit costs one complete order, once: an order costed before, or one
// equivalent for the model to one costed before, gives that cost again.
// It returns +Inf for an order that cannot be costed or is cut.
func (e *enumeration) visit(v *variant, term graph.Node, perm []int) float64 {
	order := e.order(v, perm)
	key := subdivisionsKey(v.subs) + ": " + order
	if c, ok := e.visited[key]; ok {
		return c
	}
	c := e.cost(v, term, order)
	e.visited[key] = c
	return c
}

func (e *enumeration) cost(v *variant, term graph.Node, order string) float64 {
	inf := math.Inf(1)
	if n := unrecognisedReducers(term); n > e.unrecognised {
		// An exchange lifted a reduction operator into a form no back end
		// takes as a reduction (a zip of a tuple operator, say): the
		// order is sound, but StableHLO could not run it.
		e.prune("infeasible: a lifted reduction operator the back ends cannot take as a reduction (graph.Reducer does not recognise it)", order)
		return inf
	}
	loops := newLoopList(term)
	if loops.shapeKey() != v.loops.shapeKey() {
		e.prune("infeasible: the exchanges changed the tree of loops", order)
		return inf
	}
	typed, info, loops, err := typedLoops(term)
	if err != nil {
		e.prune("infeasible: "+firstLine(err), order)
		return inf
	}
	sig, err := e.signature(typed, info, loops)
	if err != nil {
		e.prune("infeasible: "+firstLine(err), order)
		return inf
	}
	if prev, ok := e.seen[sig]; ok {
		e.prune("equivalent for the cost model to an order costed before", order+" = "+prev.order)
		return prev.cost
	}
	if len(e.cands)-1 >= e.budget {
		e.stopped = "the search budget ran out"
		return inf
	}
	if len(e.cands) >= e.maxOrders {
		e.stopped = fmt.Sprintf("stopped after %d orders", e.maxOrders)
		return inf
	}
	c, err := e.model.termCost(typed, info, loops)
	if err != nil {
		e.prune("infeasible: "+firstLine(err), order)
		return inf
	}
	if math.IsInf(c, 0) || math.IsNaN(c) {
		e.prune("infeasible: the model cannot cost it", order)
		return inf
	}
	e.seen[sig] = seenOrder{order, c}
	e.cands = append(e.cands, &ScheduleCandidate{Order: order, Subdivisions: v.subs, Term: term, Cost: c})
	return c
}

// unrecognisedReducers counts the rnz nodes of term whose reduction
// operator graph.Reducer does not recognise.
func unrecognisedReducers(term graph.Node) int {
	n := 0
	for x := range graph.All(term) {
		if z, ok := x.(*graph.RNZ); ok {
			if _, ok := graph.Reducer(z.Red, nil); !ok {
				n++
			}
		}
	}
	return n
}

// signature is what the cost model sees of a term: for each path from
// the top to an innermost loop, its loops' kinds and extents and the
// strides each walks its arrays with; and its copies.
func (e *enumeration) signature(term graph.Node, info *graph.Info, l loopList) (string, error) {
	if t := graph.Materialized(info.TypeOf(term)); t.String() != e.kernel.Output.Type.String() {
		return "", fmt.Errorf("the order computes %v, not %v", t, e.kernel.Output.Type)
	}
	paths, own := l.paths()
	var sb strings.Builder
	for i, p := range paths {
		levels := l.path(p)
		n, err := newNestModel(info, levels, own[i], 64)
		if err != nil {
			return "", err
		}
		for d, lv := range levels {
			fmt.Fprintf(&sb, "%s %g %v|", lv.Kind, n.extent[d], n.stride[d])
		}
		if _, _, ok := productShape(info, levels); ok {
			sb.WriteString("product")
		}
		sb.WriteString("/")
	}
	for x := range graph.All(term) {
		if z, ok := x.(*graph.NZip); ok && isCopy(z) {
			sb.WriteString("copy|")
		}
	}
	gemm := false
	if l.linear() {
		_, _, gemm = gemmShape(info, l.levels)
	}
	fmt.Fprintf(&sb, "gemm=%v", gemm)
	return sb.String(), nil
}

// realiseFrom reaches perm from start (which realises startPerm) by
// exchanges of adjacent loops within [lo, hi), a bubble sort; a refused
// exchange is remembered in refused.
func realiseFrom(start graph.Node, startPerm, perm []int, lo, hi int, labels []string, refused map[[2]string]string) (graph.Node, error) {
	cur := slices.Clone(startPerm)
	term := start
	for target := lo; target < hi; target++ {
		at := slices.Index(cur, perm[target])
		for at > target {
			next, err := exchangeAt(term, at-1)
			if err != nil {
				var ref *Refusal
				if errors.As(err, &ref) {
					refused[[2]string{labels[cur[at-1]], labels[cur[at]]}] = ref.Reason
				}
				return nil, fmt.Errorf("exchanging %s and %s: %w", labels[cur[at-1]], labels[cur[at]], err)
			}
			term = next
			cur[at-1], cur[at] = cur[at], cur[at-1]
			at--
		}
	}
	return term, nil
}

// readsWindow reports whether term reads a window view.
func readsWindow(term graph.Node) bool {
	found := false
	graph.Inspect(term, func(n graph.Node) bool {
		if v, _, ok := graph.AsView(n); ok {
			if _, w := v.(graph.WindowView); w {
				found = true
			}
		}
		return !found
	})
	return found
}
