package native

import "github.com/hofuse/hofuse/graph"

// maxMemory is the plan's memory limit: Options.MaxMemory, or
// graph.DefaultMemoryLimit when it is 0 or less.
func (o Options) maxMemory() int64 {
	if o.MaxMemory <= 0 {
		return graph.DefaultMemoryLimit
	}
	return o.MaxMemory
}

// arenaBytes is what runtime allocates for the arena with the given number
// of frames: every buffer but the input slots (bound at run time), once per
// frame where each frame has its own, the private copies of inputs
// included, and the vector registers. It saturates instead of
// overflowing.
func (b *builder) arenaBytes(frames int) int64 {
	var n int64
	for dt, specs := range b.bufs {
		size := int64(graph.DType(dt).Size())
		for _, s := range specs {
			k := graph.MulBytes(int64(s.n), size)
			if s.perFrame {
				k = graph.MulBytes(k, int64(frames))
			}
			n = graph.AddBytes(n, k)
		}
	}
	v64, v32 := b.vregElems()
	regs := graph.AddBytes(graph.MulBytes(8, int64(v64)), graph.MulBytes(4, int64(v32)))
	return graph.AddBytes(n, graph.MulBytes(int64(frames), regs))
}

// checkMemory refuses a plan whose arena, with the buffers built so far,
// would pass the limit; what names the input or kernel that passed it.
func (b *builder) checkMemory(what string, frames int, limit int64) error {
	if need := b.arenaBytes(frames); need > limit {
		return &graph.MemoryError{What: "native: " + what, Bytes: need, Limit: limit, Raise: "native.Options.MaxMemory"}
	}
	return nil
}
