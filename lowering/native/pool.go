package native

import (
	"sync"
	"sync/atomic"

	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// A runtime is what a plan runs on: one frame per part of its parallel
// loops (frame 0 is the caller's), one frame per part of a threaded GEMM
// for its epilogues (epi[i] for part i), and the pool.
type runtime struct {
	frames []*frame
	epi    []*frame
	pool   *pool
	// allFrames is frames followed by epi.
	allFrames []*frame
	// arena lists the byte ranges of the float buffers the plan owns.
	arena [][2]uintptr
}

// A pool runs a plan's parallel loops on the goroutines of package
// kernels' worker pool, the same goroutines its products fork onto: one
// part per frame, part w on frame w. A parallel loop copies the caller's
// registers into the other frames and runs the parts; the caller takes
// parts itself. The plan owns no goroutines.
type pool struct {
	rt   *runtime
	fork *kernels.Fork

	// The job in flight: a range split dynamically in grains, or one part
	// per frame.
	body  rangeFn
	n     int
	grain int
	next  atomic.Int64
	parts []code

	mu      sync.Mutex
	failure any // the first panic a part recovered
}

func newPool(rt *runtime) *pool {
	p := &pool{rt: rt}
	p.fork = kernels.NewFork(p)
	return p
}

// RunPart runs the job's part on frame w.
func (p *pool) RunPart(w int) { p.runJob(p.rt.frames[w]) }

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

// run copies the caller's registers to the other frames, runs one part
// per frame, and re-raises a part's panic on the caller, where Run turns
// it into an error. fr is frame 0, the caller's.
func (p *pool) run(fr *frame) {
	frames := p.rt.frames
	for _, w := range frames[1:] {
		copy(w.ints, fr.ints)
		copy(w.flts, fr.flts)
		w.par = true
	}
	fr.par = true
	p.fork.Run(len(frames), len(frames)-1)
	fr.par = false
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
	p.run(fr)
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
	p.run(fr)
}

// wspace is a frame's GEMM workspace.
type wspace = *kernels.Workspace
