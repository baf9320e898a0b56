package native

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// A rowsFold is a rowsMap program that folds the rows it reads with one
// op, ((x₀ op x₁) op x₂) …, and stores the result plainly: a max
// pooling's window (each tap a row of channels read at a stride from the
// image), or a sum of strided operands. kernels.FoldRows computes it in
// one pass over the operands' rows where they lie, instead of gathering
// each operand's rows into a chunk and folding the chunks op by op.
type rowsFold struct {
	op    kernels.ArithOp
	taps  []*vinstr // the loads, in the fold's order (a load may appear twice)
	store *vstore
	n     int // the rows' length
}

// foldOp returns the kernels op of a fold's graph op: arithOp's, but for
// ×, which FoldRows does not take.
func foldOp(op graph.Op) (kernels.ArithOp, bool) {
	k, ok := arithOp(op)
	return k, ok && k != kernels.Mul
}

// matchRowsFold returns the fold that program p of a rowsMap nest
// computes into its one store, with rows of n elements: p reads its
// operands' rows at unit stride in its own type and combines them by one
// of + max min, with nothing else computed, and the store is plain,
// unit-stride, of the program's type. A sum must be folded left to right
// (binary ops whose right operand is a load, or a chain of additions):
// rounding makes the order part of the result. A max or min may be any
// tree of them, folded in the order of its leaves: ordered with -0 below
// +0 they are lattice operations, so any tree gives the same value, and
// a NaN propagates as the first NaN in the leaves' order either way (the
// kernels' max and min return x + y, whose NaN is x's when x is one).
// ok is false for any other program.
func matchRowsFold(p *vprog, stores []vstore, n int) (f *rowsFold, ok bool) {
	dt := progType(p)
	if len(stores) != 1 || len(p.outs) != 1 || len(p.pro) != 0 {
		return nil, false
	}
	st := &stores[0]
	if st.acc != graph.OpInvalid || st.stride != 1 || st.dt != dt || st.rows == nil || st.rows.n != n {
		return nil, false
	}
	byReg := map[int]*vinstr{}
	for i := range p.body {
		in := &p.body[i]
		switch in.kind {
		case vkLoad:
			if in.rows == nil || in.rows.n != n || in.stride != 1 || in.ldt != dt {
				return nil, false
			}
		case vkBin:
			if _, ok := foldOp(in.op); !ok || in.f2 != nil || in.rnd || in.dt != dt {
				return nil, false
			}
		case vkChain:
			if in.dt != dt || in.stream {
				return nil, false
			}
			for _, s := range in.chain {
				if s.op != kernels.Add || s.swap || s.self || s.scalar || s.sqrt {
					return nil, false
				}
			}
		default:
			return nil, false
		}
		byReg[in.dst] = in
	}
	f = &rowsFold{store: st, n: n, op: -1}
	used := 0 // instructions of the tree
	isLoad := func(r int) bool { in := byReg[r]; return in != nil && in.kind == vkLoad }
	// walk appends the leaves of the tree computed into register r.
	var walk func(r int) bool
	walk = func(r int) bool {
		in := byReg[r]
		if in == nil || len(f.taps) > kernels.MaxFold {
			return false
		}
		used++
		switch in.kind {
		case vkLoad:
			used-- // a load may be a leaf more than once
			f.taps = append(f.taps, in)
			return true
		case vkBin:
			op, _ := foldOp(in.op)
			if f.op >= 0 && op != f.op || op == kernels.Add && !isLoad(in.b) {
				return false
			}
			f.op = op
			return walk(in.a) && walk(in.b)
		default: // a chain of additions
			if f.op >= 0 && f.op != kernels.Add || !walk(in.a) {
				return false
			}
			f.op = kernels.Add
			for _, s := range in.chain {
				if !isLoad(s.reg) {
					return false
				}
				f.taps = append(f.taps, byReg[s.reg])
			}
			return true
		}
	}
	loads := 0
	for i := range p.body {
		if p.body[i].kind == vkLoad {
			loads++
		}
	}
	if !walk(p.outs[0]) || used != len(p.body)-loads || len(f.taps) < 2 || len(f.taps) > kernels.MaxFold {
		return nil, false
	}
	return f, true
}

// noRowsFold makes every rowsFold decline, for tests of the chunks that
// compute it otherwise (DisableRowsFold).
var noRowsFold bool

// run computes rows lo to hi of the fold and reports true, or reports
// false, with nothing written, where kernels.FoldRows declines them (a
// machine without AVX-512, a destination that shares an operand's
// buffer).
func (f *rowsFold) run(fr *frame, lo, hi int, f32 bool) bool {
	if noRowsFold {
		return false
	}
	if f32 {
		return runRowsFold[float32](f, fr, lo, hi)
	}
	return runRowsFold[float64](f, fr, lo, hi)
}

func runRowsFold[T float32 | float64](f *rowsFold, fr *frame, lo, hi int) bool {
	var srcs [kernels.MaxFold]kernels.FoldSrc[T]
	var curs [kernels.MaxFold]rowCursor
	k := len(f.taps)
	for j, in := range f.taps {
		srcs[j].Src, _ = sameTypeBuf[T](fr, in.ldt, in.buf)
		curs[j] = in.rows.at(lo)
	}
	st := f.store
	dst, _ := sameTypeBuf[T](fr, st.dt, st.buf)
	dc := st.rows.at(lo)
	for r := lo; r < hi; {
		// The rows from r on that lie along the last outer axis of
		// every operand and of the destination.
		run, ds := dc.run(hi - r)
		for j := range k {
			run, _ = curs[j].run(run)
		}
		for j, in := range f.taps {
			_, srcs[j].Stride = curs[j].run(run)
			srcs[j].Off = fr.ints[in.base] + curs[j].off
		}
		if !kernels.FoldRows(f.op, dst, fr.ints[st.reg]+dc.off, ds, srcs[:k], f.n, run) {
			// Declined for the buffers, which are the same at every
			// call: only the first call can.
			return false
		}
		dc.skip(run)
		for j := range k {
			curs[j].skip(run)
		}
		r += run
	}
	return true
}
