package native

import (
	"sync"
	"sync/atomic"

	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// A runtime is what a plan runs on: one frame per goroutine of its pool
// (frame 0 is the caller's), one frame per part of a threaded GEMM for
// its epilogues (epi[i] for part i), and the pool.
type runtime struct {
	frames []*frame
	epi    []*frame
	pool   *pool
	// allFrames is frames followed by epi.
	allFrames []*frame
	// arena lists the byte ranges of the float buffers the plan owns.
	arena [][2]uintptr
}

// A pool is a fixed set of goroutines, started when the plan is compiled
// and parked on a channel between loops. A parallel loop wakes them,
// copies the caller's registers into their frames, and runs with them;
// the caller takes a share of the work itself.
type pool struct {
	rt      *runtime
	wake    []chan struct{}
	quit    chan struct{}
	once    sync.Once
	stopped atomic.Bool // quit is closed
	wg      sync.WaitGroup

	// The job in flight: a range split dynamically in grains, or one part
	// per frame.
	body  rangeFn
	n     int
	grain int
	next  atomic.Int64
	parts []code
	// left counts the workers still running the job; finish polls it
	// before it blocks on wg.
	left atomic.Int32

	mu      sync.Mutex
	failure any // the first panic a worker recovered
}

func newPool(rt *runtime) *pool {
	p := &pool{rt: rt, quit: make(chan struct{})}
	p.wake = make([]chan struct{}, len(rt.frames))
	for w := 1; w < len(rt.frames); w++ {
		p.wake[w] = make(chan struct{}, 1)
		go p.worker(w)
	}
	return p
}

func (p *pool) stop() {
	p.once.Do(func() {
		p.stopped.Store(true)
		close(p.quit)
	})
}

func (p *pool) worker(w int) {
	fr := p.rt.frames[w]
	for {
		select {
		case <-p.quit:
			return
		case <-p.wake[w]:
			p.runJob(fr)
			p.left.Add(-1)
			p.wg.Done()
			// The next loop of a plan follows within microseconds:
			// poll for it before blocking.
			kernels.SpinUntil(func() bool { return len(p.wake[w]) > 0 || p.stopped.Load() })
		}
	}
}

func (p *pool) runJob(fr *frame) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.failure == nil {
				p.failure = r
			}
			p.mu.Unlock()
		}
	}()
	if p.parts != nil {
		if fr.w < len(p.parts) && p.parts[fr.w] != nil {
			p.parts[fr.w](fr)
		}
		return
	}
	p.work(fr)
}

func (p *pool) work(fr *frame) {
	g := int64(p.grain)
	for {
		lo := int(p.next.Add(g) - g)
		if lo >= p.n {
			return
		}
		p.body(fr, lo, min(lo+p.grain, p.n))
	}
}

// start copies the caller's registers to the workers and wakes them.
func (p *pool) start(fr *frame) {
	for _, w := range p.rt.frames[1:] {
		copy(w.ints, fr.ints)
		copy(w.flts, fr.flts)
		w.par = true
	}
	p.wg.Add(len(p.rt.frames) - 1)
	p.left.Store(int32(len(p.rt.frames) - 1))
	for w := 1; w < len(p.rt.frames); w++ {
		p.wake[w] <- struct{}{}
	}
}

// finish waits for the workers and re-raises a worker's panic on the
// caller, where Run turns it into an error.
func (p *pool) finish() {
	kernels.SpinUntil(func() bool { return p.left.Load() == 0 })
	p.wg.Wait()
	p.body, p.parts = nil, nil
	if p.failure != nil {
		f := p.failure
		p.failure = nil
		panic(f)
	}
}

// parallelFor runs body over 0..n-1 in grains on every goroutine of the
// pool. Inside a parallel region, or without a pool, it runs on the
// caller.
func (rt *runtime) parallelFor(fr *frame, n, grain int, body rangeFn) {
	p := rt.pool
	if fr.par || p == nil || n <= grain {
		body(fr, 0, n)
		return
	}
	p.body, p.n, p.grain = body, n, grain
	p.next.Store(0)
	p.start(fr)
	fr.par = true
	p.runJob(fr)
	fr.par = false
	p.finish()
}

// parallelParts runs parts[w] on frame w, all at once.
func (rt *runtime) parallelParts(fr *frame, parts []code) {
	p := rt.pool
	if fr.par || p == nil {
		for _, c := range parts {
			c(fr)
		}
		return
	}
	p.parts = parts
	p.start(fr)
	fr.par = true
	p.runJob(fr)
	fr.par = false
	p.finish()
}

// wspace is a frame's GEMM workspace.
type wspace = *kernels.Workspace
