package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hofuse/hofuse/internal/paper"
)

// isTerminal reports whether w is a terminal: progress bars are drawn only
// there, never into a file or a pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// matmulProgress reports the progress of "paper matmul" on stderr: the
// expected time before it starts and after the first order, a warning
// before each slow order, a line per order timed and, on a terminal, a
// progress bar per order that fills as the order's expected time passes.
type matmulProgress struct {
	w       io.Writer
	bars    bool // stderr is a terminal
	size    int
	repeats int
	slow    time.Duration
	// scale turns the paper's times into expected times here: first
	// (size/1024)³, then, once the first order is timed, ours/paper for it.
	scale  float64
	remain map[string]float64 // expected seconds of the orders not yet timed
	bar    *progressbar.ProgressBar
	stop   chan struct{}
	wg     sync.WaitGroup
}

func newMatmulProgress(w io.Writer, size, repeats int, slow time.Duration) *matmulProgress {
	mp := &matmulProgress{w: w, bars: isTerminal(w), size: size, repeats: repeats, slow: slow,
		scale: math.Pow(float64(size)/float64(paper.PaperSize), 3), remain: map[string]float64{}}
	for _, t := range []map[string]float64{paper.Table1, paper.Table2} {
		for order, p := range t {
			mp.remain[order] = p
		}
	}
	return mp
}

// expected is the expected time of an order whose paper time is p: one run
// when it is slow, else a warm-up and the repeats.
func (mp *matmulProgress) expected(p float64) float64 {
	t := p * mp.scale
	if t > mp.slow.Seconds() {
		return t
	}
	return t * float64(1+mp.repeats)
}

func (mp *matmulProgress) total() float64 {
	var s float64
	for _, p := range mp.remain {
		s += mp.expected(p)
	}
	return s
}

// start says what will be timed and how long it is expected to take.
func (mp *matmulProgress) start() {
	fmt.Fprintf(mp.w, "timing %d×%d float64 matrix products in %d loop orders; expected about %s "+
		"(the paper's times scaled to this size; re-estimated after the first order)\n",
		mp.size, mp.size, len(mp.remain), roughDuration(mp.total()))
}

// observe is paper.MatmulConfig.Observe.
func (mp *matmulProgress) observe(ev paper.Event) {
	if ev.Row == nil {
		exp := mp.expected(ev.Paper)
		if t := ev.Paper * mp.scale; t > mp.slow.Seconds() {
			fmt.Fprintf(mp.w, "slow order next: %s, expected about %s (the paper's %.3g s at 1024), timed by one run\n",
				ev.Order, roughDuration(t), ev.Paper)
		}
		if mp.bars {
			mp.startBar(ev, exp)
		}
		return
	}
	mp.stopBar()
	r := ev.Row
	if r.WarmUpOnly {
		fmt.Fprintf(mp.w, "[%2d/%d] %-20s %9.4f s  (one run: slower than %v)\n", ev.Index, ev.Total, r.Order, r.Ours, mp.slow)
	} else {
		fmt.Fprintf(mp.w, "[%2d/%d] %-20s %9.4f s  (median of %d after a warm-up)\n", ev.Index, ev.Total, r.Order, r.Ours, r.Runs)
	}
	delete(mp.remain, ev.Order)
	if ev.Index == 1 && ev.Paper > 0 && r.Ours > 0 && len(mp.remain) > 0 {
		mp.scale = r.Ours / ev.Paper
		fmt.Fprintf(mp.w, "re-estimated from this order: about %s more\n", roughDuration(mp.total()))
	}
}

// startBar draws a bar for one order that fills with the time elapsed
// against the order's expected time (it stops short of full until the
// order is done).
func (mp *matmulProgress) startBar(ev paper.Event, exp float64) {
	max := max(1, int(exp*10)) // tenths of a second
	mp.bar = progressbar.NewOptions(max,
		progressbar.OptionSetWriter(mp.w),
		progressbar.OptionSetDescription(fmt.Sprintf("[%2d/%d] %-20s", ev.Index, ev.Total, ev.Order)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
	mp.stop = make(chan struct{})
	begin := time.Now()
	mp.wg.Add(1)
	go func(bar *progressbar.ProgressBar, stop chan struct{}) {
		defer mp.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				bar.Set(min(max-1, int(time.Since(begin).Seconds()*10)))
			}
		}
	}(mp.bar, mp.stop)
}

func (mp *matmulProgress) stopBar() {
	if mp.bar == nil {
		return
	}
	close(mp.stop)
	mp.wg.Wait()
	mp.bar.Finish()
	mp.bar = nil
}

// roughDuration prints seconds as "40 s", "3 min", "1 h 10 min".
func roughDuration(s float64) string {
	switch {
	case s < 1:
		return "a second"
	case s < 90:
		return fmt.Sprintf("%.0f s", s)
	case s < 3600:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%d h %d min", int(s/3600), int(math.Mod(s, 3600)/60))
}
