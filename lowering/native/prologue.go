package native

import (
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// Fusion composes a cheap elementwise producer into the contraction that
// reads it (the paper's C_ik = Σ_j A_ij B_jk g_j): a scaler in front of a
// dense layer becomes
//
//	map (\a -> map (\c -> rnz (+) (\y o s w -> (y - o) * s * w) a off sc c) W) X
//
// where every column c recomputes the row's (y − o)·s, and the product
// is no longer the plain dot the GEMM kernel takes: the loop runs one
// reduction per row and column. rowPrologue moves the row's part out of
// the columns' loop, computing it once per row into a matrix of its own,
//
//	map (\a -> map (\c -> rnz (+) (*) a c) W) (map (\a -> nzip (\y o s -> (y - o) * s) a off sc) X)
//
// which is the GEMM form again. Each term of the sum is the same bit for
// bit: the prologue P is computed by the same ops in the same type,
// stored in that type, and multiplied by the column's element as before
// (P · w, or w · P, which is the same product); the sum then runs in the
// GEMM kernel's order, as any product's does.

// rowPrologue rewrites every nzip of body whose function's parameter a
// is read only as an argument of one contraction
//
//	rnz (+) (\y1 .. yk -> P(y_i: i in R) * y_j) t1 .. tk
//
// where t_i is a itself or a term of variables bound outside the nzip for
// i in R, and t_j does not read a, so that the row P(t_R) is the same for
// every iteration inside the nzip's function. It reports whether it
// rewrote anything.
func rowPrologue(body graph.Node) (graph.Node, bool, error) {
	changed := false
	out, err := graph.Rewrite(body, func(n graph.Node) (graph.Node, error) {
		z, ok := n.(*graph.NZip)
		if !ok || graph.IsFunc(z) {
			return n, nil
		}
		lam, ok := z.Fn.(*graph.Lambda)
		if !ok || len(lam.Params) != len(z.Args) {
			return n, nil
		}
		outer := graph.FreeVars(z)
		for p, a := range lam.Params {
			red, pro, col, ok := prologueContraction(lam.Body, a, outer)
			if !ok {
				continue
			}
			// The row's prologue, over the rows of the argument, its row
			// bound by a variable of its own.
			row := graph.NewVar(a.Name)
			for i, t := range pro.args {
				if t == graph.Node(a) {
					pro.args[i] = row
				}
			}
			inner, err := graph.NewNZip(pro.fn, pro.args...)
			if err != nil {
				return nil, err
			}
			rowFn, err := graph.NewLambda([]*graph.Var{row}, inner)
			if err != nil {
				return nil, err
			}
			rows, err := graph.NewNZip(rowFn, z.Args[p])
			if err != nil {
				return nil, err
			}
			add, err := graph.NewOpRef(graph.Add)
			if err != nil {
				return nil, err
			}
			mul, err := graph.NewOpRef(graph.Mul)
			if err != nil {
				return nil, err
			}
			dot, err := graph.NewRNZ(add, mul, a, col)
			if err != nil {
				return nil, err
			}
			b, err := graph.Rewrite(lam.Body, func(m graph.Node) (graph.Node, error) {
				if m == graph.Node(red) {
					return dot, nil
				}
				return m, nil
			})
			if err != nil {
				return nil, err
			}
			fn, err := graph.NewLambda(lam.Params, b)
			if err != nil {
				return nil, err
			}
			args := slices.Clone(z.Args)
			args[p] = rows
			changed = true
			return graph.NewNZip(fn, args...)
		}
		return n, nil
	})
	return out, changed, err
}

// prologue is the row part of a contraction: nzip fn args.
type prologue struct {
	fn   graph.Node
	args []graph.Node
}

// prologueContraction finds in body the one contraction that reads a as
// rowPrologue describes, and returns it, its row prologue and its column
// argument t_j; ok is false when a is read anywhere else, or by a
// contraction of another form.
func prologueContraction(body graph.Node, a *graph.Var, outer []*graph.Var) (red *graph.RNZ, pro prologue, col graph.Node, ok bool) {
	var found *graph.RNZ
	many := false
	graph.Inspect(body, func(n graph.Node) bool {
		r, isRNZ := n.(*graph.RNZ)
		if !isRNZ || found == r || !slices.Contains(r.Args, graph.Node(a)) {
			return true
		}
		if found != nil {
			many = true
		}
		found = r
		return false
	})
	if found == nil || many {
		return nil, prologue{}, nil, false
	}
	if op, isOp := found.Red.(*graph.OpRef); !isOp || op.Op != graph.Add {
		return nil, prologue{}, nil, false
	}
	f, isLam := found.Fn.(*graph.Lambda)
	if !isLam || len(f.Params) != len(found.Args) {
		return nil, prologue{}, nil, false
	}
	m, isCall := f.Body.(*graph.Call)
	if !isCall || m.Op != graph.Mul {
		return nil, prologue{}, nil, false
	}
	// P · y_j or y_j · P, y_j a parameter P does not read.
	for side := range 2 {
		yj, isVar := m.Args[1-side].(*graph.Var)
		j := slices.Index(f.Params, yj)
		if !isVar || j < 0 {
			continue
		}
		P := m.Args[side]
		if _, isVar := P.(*graph.Var); isVar {
			continue // a plain dot: nothing to move
		}
		pfree := graph.FreeVars(P)
		if slices.Contains(pfree, yj) || readsVar(found.Args[j], a) {
			continue
		}
		var params []*graph.Var
		var args []graph.Node
		readsRow := false
		good := true
		for i, t := range found.Args {
			if i == j {
				continue
			}
			switch {
			case t == graph.Node(a):
				readsRow = true
			case !freeWithin(t, outer):
				good = false
			}
			params = append(params, f.Params[i])
			args = append(args, t)
		}
		// P may also read variables bound outside the nzip.
		for _, v := range pfree {
			if !slices.Contains(params, v) && !slices.Contains(outer, v) {
				good = false
			}
		}
		if !good || !readsRow {
			continue
		}
		fn, err := graph.NewLambda(params, P)
		if err != nil {
			continue
		}
		// a must be read nowhere else in body.
		rest, err := graph.Rewrite(body, func(n graph.Node) (graph.Node, error) {
			if n == graph.Node(found) {
				return found.Args[j], nil
			}
			return n, nil
		})
		if err != nil || readsVar(rest, a) {
			return nil, prologue{}, nil, false
		}
		return found, prologue{fn: fn, args: args}, found.Args[j], true
	}
	return nil, prologue{}, nil, false
}

// readsVar reports whether v is free in n.
func readsVar(n graph.Node, v *graph.Var) bool { return slices.Contains(graph.FreeVars(n), v) }

// freeWithin reports whether every free variable of n is one of outer.
func freeWithin(n graph.Node, outer []*graph.Var) bool {
	for _, v := range graph.FreeVars(n) {
		if !slices.Contains(outer, v) {
			return false
		}
	}
	return true
}
