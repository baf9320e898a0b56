package kernels

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestSpinUntil(t *testing.T) {
	var flag atomic.Bool
	go func() {
		time.Sleep(time.Microsecond)
		flag.Store(true)
	}()
	// The goroutine may take longer than spinTime to run on a busy
	// machine: poll until it has, and only then require SpinUntil to see
	// it at once.
	for !SpinUntil(flag.Load) {
	}
	if !SpinUntil(flag.Load) {
		t.Error("SpinUntil reported false for a condition that holds")
	}
	start := time.Now()
	if SpinUntil(func() bool { return false }) {
		t.Error("SpinUntil reported true for a condition that never holds")
	}
	if d := time.Since(start); d < spinTime {
		t.Errorf("SpinUntil gave up after %v, before spinTime (%v)", d, spinTime)
	}
}

// TestForkJoin runs forks whose parts take longer than the callers' and
// the helpers' polling, and shorter: every part runs once per fork.
func TestForkJoin(t *testing.T) {
	for _, d := range []time.Duration{0, 2 * spinTime} {
		j := &countJob{d: d}
		j.fork.job = j
		for round := range 20 {
			j.runs = make([]atomic.Int32, 7)
			j.fork.run(len(j.runs), 3)
			for i := range j.runs {
				if n := j.runs[i].Load(); n != 1 {
					t.Fatalf("part duration %v, round %d: part %d ran %d times", d, round, i, n)
				}
			}
		}
	}
}

type countJob struct {
	fork fork
	d    time.Duration
	runs []atomic.Int32
}

func (j *countJob) runPart(i int) {
	if i == 0 && j.d > 0 {
		time.Sleep(j.d)
	}
	j.runs[i].Add(1)
}
