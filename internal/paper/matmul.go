package paper

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// Table1 holds the paper's times of the six orders of the naive product
// (Table 1), in seconds, keyed by order, outermost loop first.
var Table1 = map[string]float64{
	"mapA rnz mapB": 0.45,
	"rnz mapA mapB": 1.41,
	"mapA mapB rnz": 4.67,
	"mapB mapA rnz": 6.05,
	"rnz mapB mapA": 13.8,
	"mapB rnz mapA": 15.6,
}

// Table2 holds the paper's times of the twelve orders with the rnz
// subdivided into blocks of 16 (Table 2), converted from milliseconds to
// seconds. Of two rnz labels the first is the loop over blocks.
var Table2 = map[string]float64{
	"rnz mapA mapB rnz": 0.186,
	"mapA rnz mapB rnz": 0.249,
	"rnz mapA rnz mapB": 0.324,
	"mapA rnz rnz mapB": 0.478,
	"rnz rnz mapA mapB": 1.468,
	"mapB rnz mapA rnz": 2.024,
	"rnz mapB mapA rnz": 2.231,
	"mapA mapB rnz rnz": 4.970,
	"rnz mapB rnz mapA": 5.580,
	"mapB mapA rnz rnz": 5.686,
	"mapB rnz rnz mapA": 5.972,
	"rnz rnz mapB mapA": 7.353,
}

// NaiveOrder is the textbook loop nest, the term as written: for each row
// of A, for each column of B, a dot product.
const NaiveOrder = "mapA mapB rnz"

// PaperSize is the size of the paper's matrices, for which it gives times.
const PaperSize = 1024

// PaperBlock is the block size of the paper's Table 2.
const PaperBlock = 16

// MaxRelDiff is the largest difference between an order's result and the
// naive order's, relative to the naive result's largest magnitude, that
// counts as equal. Orders sum the same products in different groupings
// (blocked sums, SIMD partial sums); at N = 1024 they differ by about
// 1e-15 relative, so 1e-9 only catches real errors.
const MaxRelDiff = 1e-9

// MatmulConfig sets up the experiment. The zero value is not valid: Size
// and Block must be set (DefaultMatmulConfig gives the paper's).
type MatmulConfig struct {
	Size  int // the matrices are Size×Size
	Block int // the block the rnz is subdivided by for Table 2; it must divide Size
	// Threads is the native back end's Parallelism: 1 runs each order on
	// one goroutine, as the paper's single-threaded C++ did; 0 uses
	// GOMAXPROCS.
	Threads int
	Repeats int    // timed runs per order after the warm-up; 0 means 3
	Seed    uint64 // seed of the random inputs, uniform in [-1, 1)
	// SlowAfter bounds the time of slow orders: one whose warm-up took
	// longer (0 means 2 s) is not run again, and its time is that of the
	// warm-up run alone. At N = 1024 the slow orders take 5 to 40 s each
	// on a loaded two-core machine; the warm-up's one-time costs (first
	// touch of the result's pages, cold caches) are milliseconds.
	SlowAfter time.Duration
	// Progress, when not nil, gets a line per order as it is timed.
	Progress io.Writer
	// Observe, when not nil, is called before each order is timed and
	// after (for a progress display).
	Observe func(Event)
}

// Event is what Observe is told: an order is about to be timed (Row is
// nil), or has been (Row holds its result).
type Event struct {
	Table        string  // "table 1" or "table 2"
	Order        string  // the loop order, outermost first
	Paper        float64 // the paper's time for the order, in seconds
	Index, Total int     // the order's position among all orders timed, from 1
	Row          *Row    // the result, after
}

// DefaultMatmulConfig is the paper's setting: 1024×1024, blocks of 16,
// one thread, three timed runs.
func DefaultMatmulConfig() MatmulConfig {
	return MatmulConfig{Size: 1024, Block: PaperBlock, Threads: 1, Repeats: 3, Seed: 1}
}

// Check reports what is wrong with c, in terms of its fields.
func (c MatmulConfig) Check() error {
	switch {
	case c.Size < 1:
		return fmt.Errorf("size %d: must be at least 1", c.Size)
	case c.Block < 1:
		return fmt.Errorf("block %d: must be at least 1", c.Block)
	case c.Size%c.Block != 0:
		return fmt.Errorf("block %d does not divide size %d", c.Block, c.Size)
	case c.Threads < 0:
		return fmt.Errorf("threads %d: must be at least 0 (0: all CPUs)", c.Threads)
	case c.Repeats < 0:
		return fmt.Errorf("repeats %d: must be at least 1", c.Repeats)
	case c.SlowAfter < 0:
		return fmt.Errorf("slow after %v: must not be negative", c.SlowAfter)
	}
	return nil
}

// A Row is one loop order's measurement next to the paper's.
type Row struct {
	Order         string  `json:"order"`           // labels, outermost loop first
	Ours          float64 `json:"ours_s"`          // median time in seconds
	Paper         float64 `json:"paper_s"`         // the paper's time in seconds
	OursPerNaive  float64 `json:"ours_per_naive"`  // Ours / our naive order's time
	PaperPerNaive float64 `json:"paper_per_naive"` // Paper / the paper's naive order's time
	Runs          int     `json:"runs"`            // timed runs the median is of
	WarmUpOnly    bool    `json:"warm_up_only"`    // slow: the one run is the warm-up
	MaxAbsDiff    float64 `json:"max_abs_diff"`    // largest |result - naive result|
	Kernels       string  `json:"kernels"`         // what the native back end made of the nest
}

// MatmulReport is the outcome of Matmul.
type MatmulReport struct {
	Size    int `json:"size"`
	Block   int `json:"block"`
	Threads int `json:"threads"` // goroutines a run used
	Repeats int `json:"repeats"`
	// SlowAfter is the warm-up time, in seconds, above which an order is
	// timed by its warm-up alone.
	SlowAfter float64 `json:"slow_after_s"`
	Seed      uint64  `json:"seed"`
	// Table1 and Table2 list the orders in the paper's order (fastest in
	// the paper first).
	Table1         []Row   `json:"table1"`
	Table2         []Row   `json:"table2"`
	Spearman1      float64 `json:"spearman_table1"` // rank correlation of ours and the paper's in Table 1
	Spearman2      float64 `json:"spearman_table2"`
	NaiveOrder     string  `json:"naive_order"`
	Naive          float64 `json:"naive_s"` // our time of NaiveOrder
	PaperNaive     float64 `json:"paper_naive_s"`
	BestOrder      string  `json:"best_order"` // the fastest order of both tables
	Best           float64 `json:"best_s"`
	Speedup        float64 `json:"speedup_best_vs_naive"`
	PaperBestOrder string  `json:"paper_best_order"`
	PaperBest      float64 `json:"paper_best_s"`
	PaperSpeedup   float64 `json:"paper_speedup_best_vs_naive"`
	MaxRelDiff     float64 `json:"max_rel_diff"` // the largest difference of any order from the naive result, relative
	Elapsed        float64 `json:"elapsed_s"`    // wall time of the whole experiment
	// Chosen is the order the schedule pass chooses by itself from the
	// naive product (fusion.ScheduleGraph with the GEMM micro-kernel off,
	// as the tables run, and the tables' block), timed like the others;
	// nil in reports saved before it was added.
	Chosen *ChosenRow `json:"chosen,omitempty"`
}

// ChosenRow is the schedule pass's own choice, timed.
type ChosenRow struct {
	Row
	Subdivisions string  `json:"subdivisions"` // "none", or the loop subdivided and the block
	Predicted    float64 `json:"predicted_s"`  // the cost model's time for it
	Costed       int     `json:"orders_costed"`
	Pruned       int     `json:"orders_pruned"`
	SearchS      float64 `json:"search_s"` // the pass's time
	// Rank is the chosen order's place among the tables' orders and
	// itself, by our times, 1 for the fastest.
	Rank  int `json:"rank"`
	Among int `json:"among"`
}

// MatmulTerm returns the naive product of two n×n float64 matrices A and B.
func MatmulTerm(n int) (*graph.Program, error) {
	return graph.Parse(fmt.Sprintf(`A : f64[%d,%d]; B : f64[%d,%d];
map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A`, n, n, n, n))
}

// Matmul runs the experiment: it enumerates both tables' orders, checks
// that each computes the naive order's product, and times each.
func Matmul(c MatmulConfig) (*MatmulReport, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Repeats == 0 {
		c.Repeats = 3
	}
	if c.SlowAfter == 0 {
		c.SlowAfter = 2 * time.Second
	}
	start := time.Now()
	prog, err := MatmulTerm(c.Size)
	if err != nil {
		return nil, err
	}
	one, err := fusion.Search(prog.Body, fusion.SearchOptions{})
	if err != nil {
		return nil, err
	}
	// The nest is mapA (level 0), mapB (1), rnz (2): subdivide the rnz.
	two, err := fusion.Search(prog.Body, fusion.SearchOptions{Subdivide: []fusion.Subdivision{{Level: 2, Block: c.Block}}})
	if err != nil {
		return nil, err
	}
	if len(one) == 0 || one[0].Key() != NaiveOrder {
		return nil, fmt.Errorf("matmul: the search did not start from %s", NaiveOrder)
	}
	r := rand.New(rand.NewPCG(c.Seed, c.Seed))
	inputs := map[string]graph.Value{}
	for _, in := range prog.Inputs {
		a, err := graph.RandomArray(r, graph.Float64, c.Size, c.Size)
		if err != nil {
			return nil, err
		}
		inputs[in.Name] = a
	}
	rep := &MatmulReport{Size: c.Size, Block: c.Block, Repeats: c.Repeats, SlowAfter: c.SlowAfter.Seconds(), Seed: c.Seed,
		NaiveOrder: NaiveOrder}
	x := &experiment{cfg: c, inputs: inputs, rep: rep, total: len(one) + len(two) + 1}
	if rep.Table1, err = x.table("table 1", one, Table1); err != nil {
		return nil, err
	}
	if rep.Table2, err = x.table("table 2", two, Table2); err != nil {
		return nil, err
	}
	if rep.Chosen, err = x.chosen(prog.Body); err != nil {
		return nil, fmt.Errorf("the schedule pass's order: %w", err)
	}
	if err := rep.summarise(); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start).Seconds()
	return rep, nil
}

// experiment holds what the orders of both tables share.
type experiment struct {
	cfg     MatmulConfig
	inputs  map[string]graph.Value
	want    []float64 // the naive order's result, row-major
	wantMax float64   // its largest magnitude
	rep     *MatmulReport
	done    int // orders timed so far
	total   int // orders to time
}

// table times every schedule and lists the rows in the order of paper,
// which must have a figure for each schedule and no others.
func (x *experiment) table(name string, scheds []*fusion.Schedule, paper map[string]float64) ([]Row, error) {
	var rows []Row
	for _, s := range scheds {
		if s.Err != nil {
			return nil, fmt.Errorf("%s: order %s: %w", name, s.Key(), s.Err)
		}
		p, ok := paper[s.Key()]
		if !ok {
			return nil, fmt.Errorf("%s: the search gave order %q, which the paper does not list", name, s.Key())
		}
		ev := Event{Table: name, Order: s.Key(), Paper: p, Index: x.done + 1, Total: x.total}
		if x.cfg.Observe != nil {
			x.cfg.Observe(ev)
		}
		row, err := x.measure(s)
		if err != nil {
			return nil, fmt.Errorf("%s: order %s: %w", name, s.Key(), err)
		}
		row.Paper = p
		x.done++
		if x.cfg.Observe != nil {
			ev.Row = &row
			x.cfg.Observe(ev)
		}
		rows = append(rows, row)
	}
	if len(rows) != len(paper) {
		return nil, fmt.Errorf("%s: the search gave %d orders, the paper lists %d", name, len(rows), len(paper))
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.Paper, b.Paper) })
	return rows, nil
}

// chosen runs the schedule pass on the naive product, as Fuse would on a
// back end without the GEMM micro-kernel, and times the order it chooses.
func (x *experiment) chosen(term graph.Node) (*ChosenRow, error) {
	g, err := fusion.Whole(term)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := fusion.ScheduleGraph(g, fusion.ScheduleOptions{NoGEMM: true, Blocks: []int{x.cfg.Block}, MinCost: -1}); err != nil {
		return nil, err
	}
	search := time.Since(start)
	s := g.Kernels[0].Schedule
	paper, ok := Table1[s.Order]
	if !ok {
		paper = Table2[s.Order] // the paper's time, if the order is one of its
	}
	ev := Event{Table: "schedule pass", Order: s.Order, Paper: paper, Index: x.done + 1, Total: x.total}
	if x.cfg.Observe != nil {
		x.cfg.Observe(ev)
	}
	row, err := x.measure(&fusion.Schedule{Order: strings.Fields(s.Order), Term: g.Kernels[0].Body})
	if err != nil {
		return nil, err
	}
	x.done++
	if x.cfg.Observe != nil {
		ev.Row = &row
		x.cfg.Observe(ev)
	}
	row.Paper = paper
	c := &ChosenRow{Row: row, Subdivisions: s.Subdivisions, Predicted: s.Cost, Costed: s.Orders, SearchS: search.Seconds()}
	for _, p := range s.Pruned {
		c.Pruned += p.Count
	}
	return c, nil
}

// measure compiles one order, checks its result and times it.
func (x *experiment) measure(s *fusion.Schedule) (Row, error) {
	g, err := fusion.Whole(s.Term)
	if err != nil {
		return Row{}, err
	}
	p, err := native.New(native.Options{Parallelism: x.cfg.Threads, NoGEMM: true}).Plan(g)
	if err != nil {
		return Row{}, err
	}
	defer p.Close()
	x.rep.Threads = p.Workers()
	row := Row{Order: s.Key(), Kernels: p.Describe()}

	t0 := time.Now()
	out, err := p.Run(x.inputs)
	warm := time.Since(t0)
	if err != nil {
		return Row{}, err
	}
	if row.MaxAbsDiff, err = x.check(out); err != nil {
		return Row{}, err
	}
	if warm > x.cfg.SlowAfter {
		row.Ours, row.Runs, row.WarmUpOnly = warm.Seconds(), 1, true
		if x.cfg.Progress != nil {
			fmt.Fprintf(x.cfg.Progress, "%-20s %9.4f s  (one run: slower than %v)\n", row.Order, row.Ours, x.cfg.SlowAfter)
		}
		return row, nil
	}
	times := make([]float64, x.cfg.Repeats)
	for i := range times {
		t0 := time.Now()
		if _, err := p.Run(x.inputs); err != nil {
			return Row{}, err
		}
		times[i] = time.Since(t0).Seconds()
	}
	row.Ours, row.Runs = median(times), len(times)
	if x.cfg.Progress != nil {
		fmt.Fprintf(x.cfg.Progress, "%-20s %9.4f s  (median of %d after a warm-up of %.4f s)\n", row.Order, row.Ours, row.Runs, warm.Seconds())
	}
	return row, nil
}

// check compares a result with the naive order's; the first result checked
// (the naive order's own) becomes the reference.
func (x *experiment) check(out graph.Value) (float64, error) {
	a, ok := out.(*graph.Array)
	if !ok {
		return 0, fmt.Errorf("result is %T, not an array", out)
	}
	if got := a.Extents(); len(got) != 2 || got[0] != x.cfg.Size || got[1] != x.cfg.Size {
		return 0, fmt.Errorf("result has extents %v, want [%d %d]", got, x.cfg.Size, x.cfg.Size)
	}
	v := a.Values() // a copy: the plan's arena is reused
	if x.want == nil {
		x.want = v
		for _, w := range v {
			x.wantMax = max(x.wantMax, math.Abs(w))
		}
		return 0, nil
	}
	diff, at := 0.0, 0
	for i, w := range x.want {
		if d := math.Abs(v[i] - w); d > diff || math.IsNaN(d) {
			diff, at = d, i
			if math.IsNaN(d) {
				break
			}
		}
	}
	scale := max(x.wantMax, math.SmallestNonzeroFloat64)
	if !(diff/scale <= MaxRelDiff) {
		n := x.cfg.Size
		return diff, fmt.Errorf("result differs from %s's: C[%d,%d] = %g, want %g (|diff| %.3g, %.3g of the largest element, above the %g allowed)",
			NaiveOrder, at/n, at%n, v[at], x.want[at], diff, diff/scale, MaxRelDiff)
	}
	x.rep.MaxRelDiff = max(x.rep.MaxRelDiff, diff/scale)
	return diff, nil
}

// summarise fills in the ratios, the rank correlations and the best order.
func (r *MatmulReport) summarise() error {
	find := func(rows []Row, order string) (Row, bool) {
		i := slices.IndexFunc(rows, func(x Row) bool { return x.Order == order })
		if i < 0 {
			return Row{}, false
		}
		return rows[i], true
	}
	naive, ok := find(r.Table1, NaiveOrder)
	if !ok {
		return fmt.Errorf("matmul: table 1 has no %s order", NaiveOrder)
	}
	r.Naive, r.PaperNaive = naive.Ours, naive.Paper
	r.Best = math.Inf(1)
	r.PaperBest = math.Inf(1)
	for _, rows := range [][]Row{r.Table1, r.Table2} {
		for i := range rows {
			rows[i].OursPerNaive = rows[i].Ours / r.Naive
			rows[i].PaperPerNaive = rows[i].Paper / r.PaperNaive
			if rows[i].Ours < r.Best {
				r.Best, r.BestOrder = rows[i].Ours, rows[i].Order
			}
			if rows[i].Paper < r.PaperBest {
				r.PaperBest, r.PaperBestOrder = rows[i].Paper, rows[i].Order
			}
		}
	}
	if c := r.Chosen; c != nil {
		c.OursPerNaive = c.Ours / r.Naive
		c.Rank, c.Among = 1, 1
		for _, rows := range [][]Row{r.Table1, r.Table2} {
			for _, row := range rows {
				c.Among++
				if row.Ours < c.Ours {
					c.Rank++
				}
			}
		}
	}
	r.Speedup = r.Naive / r.Best
	r.PaperSpeedup = r.PaperNaive / r.PaperBest
	var err error
	if r.Spearman1, err = spearmanRows(r.Table1); err != nil {
		return fmt.Errorf("table 1: %w", err)
	}
	if r.Spearman2, err = spearmanRows(r.Table2); err != nil {
		return fmt.Errorf("table 2: %w", err)
	}
	return nil
}

func spearmanRows(rows []Row) (float64, error) {
	ours := make([]float64, len(rows))
	paper := make([]float64, len(rows))
	for i, r := range rows {
		ours[i], paper[i] = r.Ours, r.Paper
	}
	return Spearman(ours, paper)
}

// median returns the median of xs (the mean of the middle two for an even
// count); it sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
