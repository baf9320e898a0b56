package graphtest

import (
	"github.com/hofuse/hofuse/graph"
)

// Kinds returns the kinds of terms n contains. Whether a reduction's
// accumulator is a scalar, an array or a tuple comes from graph.Check; a
// term that does not check reports only what its syntax shows.
func Kinds(n graph.Node) Kind {
	var types map[graph.Node]graph.Type
	if info, err := graph.Check(n); err == nil {
		types = info.Types
	}
	var k Kind
	// Sharing: a node with more than one parent edge that contains a
	// traversal or a layout operation.
	parents := map[graph.Node]int{}
	heavy := map[graph.Node]bool{}
	for m := range graph.All(n) {
		switch m.(type) {
		case *graph.NZip, *graph.RNZ, graph.ViewNode:
			heavy[m] = true
		}
		for _, c := range graph.Children(m) {
			parents[c]++
			heavy[m] = heavy[m] || heavy[c]
		}
	}
	for m, p := range parents {
		if p > 1 && heavy[m] {
			k |= Share
		}
	}
	// inFn: inside the function of a traversal; inRed: inside a reduction
	// operator, where nzips are the lifting of the operator.
	type visit struct {
		n           graph.Node
		inFn, inRed bool
	}
	seen := map[visit]bool{}
	var walk func(m graph.Node, inFn, inRed bool)
	walk = func(m graph.Node, inFn, inRed bool) {
		if seen[visit{m, inFn, inRed}] {
			return
		}
		seen[visit{m, inFn, inRed}] = true
		switch m := m.(type) {
		case *graph.Input:
			if _, ok := m.Type.(*graph.ScalarType); ok {
				k |= ScalarInput
			}
		case *graph.NZip:
			if inFn && len(m.Args) > 0 {
				k |= Nest
			}
			if len(m.Args) == 0 {
				k |= PartialNZip
			}
			if isOpFn(m.Fn) && !inRed {
				k |= OpFn
			}
			walk(m.Fn, !inRed, inRed)
			for _, a := range m.Args {
				walk(a, inFn, inRed)
			}
			return
		case *graph.RNZ:
			if inFn {
				k |= Nest
			}
			switch types[m].(type) {
			case *graph.ScalarType:
				k |= Reduce
			case *graph.ArrayType:
				k |= LiftedReduce
			case *graph.TupleType:
				k |= TupleReduce
			}
			for op := range opsIn(m.Red) {
				switch op {
				case graph.Max, graph.Min:
					k |= MaxMin
				case graph.Mul:
					k |= MulReduce
				}
			}
			if isOpFn(m.Fn) {
				k |= OpFn
			}
			// A lifted reduction operator, \a b -> zip (+) a b, is neither
			// nesting nor an op used as a traversal's function.
			walk(m.Red, false, true)
			walk(m.Fn, true, false)
			for _, a := range m.Args {
				walk(a, inFn, inRed)
			}
			return
		case *graph.Flip:
			k |= Flip
		case *graph.Subdiv:
			k |= Subdiv
		case *graph.Flatten:
			if _, ok := m.X.(*graph.Subdiv); ok {
				k |= FlattenSubdiv
			}
		case *graph.Tuple, *graph.Proj:
			k |= Tuples
		case *graph.Let:
			k |= Let
			if graph.IsFunc(m.Value) {
				k |= LetFn
			}
		case *graph.Section:
			k |= Section
		case *graph.App:
			k |= App
		case *graph.Call:
			switch m.Op {
			case graph.Select, graph.Lt, graph.Le, graph.Gt, graph.Ge, graph.Eq, graph.Ne:
				k |= Select
			}
		}
		for _, c := range graph.Children(m) {
			walk(c, inFn, inRed)
		}
	}
	walk(n, false, false)
	return k
}

// isOpFn reports whether fn is an op, a section or id, possibly lifted by
// partial nzips.
func isOpFn(fn graph.Node) bool {
	for {
		switch f := fn.(type) {
		case *graph.OpRef, *graph.Section, *graph.Ident:
			return true
		case *graph.NZip:
			if len(f.Args) > 0 {
				return false
			}
			fn = f.Fn
		default:
			return false
		}
	}
}

// opsIn returns the set of ops the term n refers to or calls.
func opsIn(n graph.Node) map[graph.Op]bool {
	out := map[graph.Op]bool{}
	for m := range graph.All(n) {
		switch m := m.(type) {
		case *graph.OpRef:
			out[m.Op] = true
		case *graph.Call:
			out[m.Op] = true
		}
	}
	return out
}
