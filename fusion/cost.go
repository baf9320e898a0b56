package fusion

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// A CostModel ranks schedules: a lower cost is expected to run faster.
type CostModel interface {
	// Cost estimates or measures the cost of running s.Term.
	Cost(s *Schedule) (float64, error)
}

// StaticCost estimates the memory traffic of a loop nest from its types
// alone, without running anything. Every iteration of the innermost loop
// reads one element of each array it traverses and, for a map, writes one
// result element. A read costs the element's size when the array is walked
// with unit (or zero) stride, and up to a whole cache line when the stride
// is a line or more, since then every element sits in a line of its own. A
// reduction whose accumulator is an array larger than the cache adds half a
// line per inner iteration: the accumulator is evicted and fetched again on
// every pass. The cost is the bytes moved per inner iteration times the
// number of inner iterations. It ranks the paper's Table 1 by its two main
// effects (inner stride, accumulator size); Measured ranks by running.
type StaticCost struct {
	LineBytes  int // cache line; 0 means 64
	CacheBytes int // cache capacity an accumulator must fit in; 0 means 256 KiB
}

// Cost implements CostModel.
func (m StaticCost) Cost(s *Schedule) (float64, error) {
	if s.Term == nil {
		return math.Inf(1), s.Err
	}
	line, cache := m.LineBytes, m.CacheBytes
	if line == 0 {
		line = 64
	}
	if cache == 0 {
		cache = 256 << 10
	}
	info, err := graph.Check(s.Term)
	if err != nil {
		return 0, err
	}
	levels := Nest(s.Term)
	if len(levels) == 0 {
		return 0, fmt.Errorf("cost: %s has no loops", graph.Abbrev(s.Term, 40))
	}
	iterations := 1.0
	penalty := 0.0
	var perIter float64
	for d, l := range levels {
		h, _ := asHOF(l.Node)
		for _, a := range h.args {
			t, ok := info.TypeOf(a).(*graph.ArrayType)
			if !ok {
				continue
			}
			if d == 0 {
				iterations = 1
			}
			if d == len(levels)-1 {
				elem := float64(t.DType.Size())
				stride := math.Abs(float64(t.Layout[0].Stride)) * elem
				perIter += math.Min(math.Max(stride, elem), float64(line))
			}
		}
		iterations *= float64(levelExtent(info, h))
		if h.isRNZ() {
			if acc, ok := info.TypeOf(h.node).(*graph.ArrayType); ok && graph.Bytes(acc) > cache {
				penalty += float64(line) / 2
			}
		}
		if d == len(levels)-1 && !h.isRNZ() {
			if t, ok := info.TypeOf(h.node).(*graph.ArrayType); ok {
				perIter += float64(t.DType.Size())
			}
		}
	}
	return iterations * (perIter + penalty), nil
}

// levelExtent is the number of iterations of one loop.
func levelExtent(info *graph.Info, h *hof) int {
	for _, a := range h.args {
		if _, n, err := graph.ElemType(info.TypeOf(a)); err == nil {
			return n
		}
	}
	return 1
}

// Measured ranks schedules by running them: Run executes a schedule once
// (a back end compiles and runs s.Term), and the cost is the median of
// Repeats timed runs after one warm-up.
type Measured struct {
	Run     func(s *Schedule) error
	Repeats int // 0 means 3
}

// Cost implements CostModel.
func (m Measured) Cost(s *Schedule) (float64, error) {
	if s.Term == nil {
		return math.Inf(1), s.Err
	}
	n := m.Repeats
	if n <= 0 {
		n = 3
	}
	if err := m.Run(s); err != nil {
		return 0, err
	}
	times := make([]float64, n)
	for i := range times {
		start := time.Now()
		if err := m.Run(s); err != nil {
			return 0, err
		}
		times[i] = time.Since(start).Seconds()
	}
	slices.Sort(times)
	return times[n/2], nil
}

// Best returns the schedule of least cost and the costs of all, in order.
// Infeasible schedules cost +Inf.
func Best(schedules []*Schedule, m CostModel) (*Schedule, []float64, error) {
	var best *Schedule
	costs := make([]float64, len(schedules))
	for i, s := range schedules {
		c, err := m.Cost(s)
		if err != nil && s.Term != nil {
			return nil, nil, fmt.Errorf("cost of %s: %w", s.Key(), err)
		}
		costs[i] = c
		if s.Term != nil && (best == nil || c < costs[slices.Index(schedules, best)]) {
			best = s
		}
	}
	if best == nil {
		return nil, costs, fmt.Errorf("schedule: no feasible order")
	}
	return best, costs, nil
}
