package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The worker pool: goroutines started on first need and kept for the life
// of the process, blocked on one channel while idle. A parallel call (a
// fork) publishes its parts in one atomic word and posts a message per
// helper it wants; the caller then claims parts itself like any helper, so
// a call never waits for a part that nobody has started. Workers busy with
// other calls therefore slow a call down but cannot deadlock it, even when
// a part itself forks (an epilogue that calls a parallel Gemm).

// A partRunner runs part i of a parallel job.
type partRunner interface {
	runPart(i int)
}

// maxParts bounds the parts of one fork (the state word holds 16 bits each
// for the part count and the next part).
const maxParts = 1 << 15

// A fork runs the parts of a partRunner on the caller and pool workers. Its
// zero value, with job set, is ready; a fork must not be run concurrently
// with itself.
type fork struct {
	job partRunner

	// state is gen<<32 | parts<<16 | next: the generation of the current
	// run, its number of parts and the next unclaimed part. Messages of a
	// finished run carry an old generation and claim nothing.
	state atomic.Uint64
	gen   uint32 // written by the caller only
	wg    sync.WaitGroup
	// left counts the parts of the current run not yet finished: the
	// caller polls it before it blocks on wg.
	left atomic.Int32
}

type forkMsg struct {
	f   *fork
	gen uint32
}

var workers struct {
	n  atomic.Int32 // workers started
	mu sync.Mutex   // serialises starting them
	ch chan forkMsg
}

func init() { workers.ch = make(chan forkMsg, 1024) }

// ensureWorkers starts workers until at least n exist.
func ensureWorkers(n int) {
	if int(workers.n.Load()) >= n {
		return
	}
	workers.mu.Lock()
	defer workers.mu.Unlock()
	for int(workers.n.Load()) < n {
		workers.n.Add(1)
		go func() {
			for {
				m := receive()
				m.f.help(m.gen)
			}
		}()
	}
}

// spinTime is how long an idle worker polls for the next fork before it
// blocks. Waking a blocked goroutine wakes an OS thread, several
// microseconds that the caller waits at the join; the products of one
// inference follow each other within microseconds, so a worker that has
// just finished a part polls for the next one. It costs spinTime of CPU
// after the last fork of a burst. (The MLP 784-512-512-10 at batch 1
// splits two 10 µs products over two threads.) A training step runs
// stretches of small kernels on the caller alone between its parallel
// ones (the loss, a narrow product): with 50 µs the workers had parked
// by the next fork; BenchmarkStepNative, fused, four alternations (ms),
// batch 32: 3.05, 3.28, 2.30, 2.14 at 50 µs, 2.53, 2.84, 2.12, 2.08 at
// 200; batch 256: 8.96, 8.32, 6.21, 6.22 against 7.76, 7.81, 6.21, 5.93.
const spinTime = 200 * time.Microsecond

// receive returns the next fork message, polling for spinTime before it
// blocks, and yielding the processor between polls to anything runnable.
func receive() forkMsg {
	var start time.Time
	for i := 0; ; i++ {
		select {
		case m := <-workers.ch:
			return m
		default:
		}
		if i&15 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > spinTime {
				return <-workers.ch
			}
		}
		runtime.Gosched()
	}
}

// run runs parts 0..parts-1 of f.job, on up to helpers+1 goroutines
// (the caller included), and returns when all have finished.
func (f *fork) run(parts, helpers int) {
	if parts > maxParts {
		panic("kernels: too many parts")
	}
	helpers = min(helpers, parts-1)
	if helpers <= 0 {
		for i := range parts {
			f.job.runPart(i)
		}
		return
	}
	ensureWorkers(helpers)
	f.gen++
	f.wg.Add(parts)
	f.left.Store(int32(parts))
	f.state.Store(uint64(f.gen)<<32 | uint64(parts)<<16)
	for range helpers {
		select {
		case workers.ch <- forkMsg{f, f.gen}:
		default: // the queue is full: the caller does the rest itself
		}
	}
	f.help(f.gen)
	f.join()
	f.wg.Wait()
}

// A Fork runs the parts of a job on the caller and on this package's
// worker pool, the one the products fork onto, so that a caller with
// parallel loops of its own (the native executor) shares one set of
// workers with the products: a worker that has just run a loop is polling
// when the next product forks, and the other way round, instead of two
// sets of workers each going to sleep while the other works. A Fork must
// not be run concurrently with itself.
type Fork struct{ f fork }

// A PartRunner runs part i of a Fork's job.
type PartRunner interface{ RunPart(i int) }

// partAdapter makes a PartRunner a partRunner.
type partAdapter struct{ r PartRunner }

func (a partAdapter) runPart(i int) { a.r.RunPart(i) }

// NewFork returns a Fork that runs job's parts.
func NewFork(job PartRunner) *Fork { return &Fork{f: fork{job: partAdapter{job}}} }

// Run runs parts 0..parts-1 of the job, on up to helpers+1 goroutines (the
// caller included; parts that no worker takes up in time the caller runs
// itself), and returns when all have finished. A part must not panic.
func (f *Fork) Run(parts, helpers int) { f.f.run(parts, helpers) }

// join polls for the helpers' parts to finish before the caller blocks
// on wg: a blocked goroutine is woken through the OS, several
// microseconds when the parts take ten.
func (f *fork) join() { SpinUntil(func() bool { return f.left.Load() == 0 }) }

// SpinUntil polls done, yielding the processor to anything runnable
// between polls, for at most spinTime, and reports whether done held. A
// pool's goroutines poll for their next job, and a caller for its
// helpers, before they block: waking a blocked goroutine goes through the
// OS.
func SpinUntil(done func() bool) bool {
	var start time.Time
	for i := 0; !done(); i++ {
		if i&15 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) > spinTime {
				return false
			}
		}
		runtime.Gosched()
	}
	return true
}

// help claims and runs parts of generation gen until none is left.
func (f *fork) help(gen uint32) {
	for {
		s := f.state.Load()
		if uint32(s>>32) != gen {
			return
		}
		parts, next := int(s>>16&0xffff), int(s&0xffff)
		if next >= parts {
			return
		}
		if f.state.CompareAndSwap(s, s+1) {
			f.job.runPart(next)
			f.left.Add(-1)
			f.wg.Done()
		}
	}
}
