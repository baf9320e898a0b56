package conv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// ErrNotConv is wrapped by the errors that say why a term is not a
// convolution.
var ErrNotConv = errors.New("not a convolution")

func notConv(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotConv, fmt.Sprintf(format, args...))
}

// Conv is what Find reads off the function of nzip fn W.
type Conv struct {
	Levels    int           // the nzip levels over the window positions of W, the first one included
	Positions []*graph.Var  // the parameters of the functions over the positions, outermost first: the last is Row
	Row       *graph.Var    // r, one window
	Body      *graph.Lambda // \r -> ..: the function of the innermost map
	// PositionsRead is set when a position map's function reads its own
	// parameter other than by traversing it (some term under the maps
	// reads a window other than r).
	PositionsRead bool

	// Filters is the nzip over the filters holding the contractions:
	// Body.Body itself (Fused) or, as in an unfused layer's
	// zip (+) (map (\c -> dot r c) C) b, an argument of it traversed at
	// the same depth, r appearing nowhere else. A grouped convolution's
	// is flatten 0 of an nzip over the groups (Group).
	Filters graph.Node
	Fused   bool
	// Fn is the function of Filters (ungrouped) and Filter the index of
	// its parameter c contracted with r; grouped, Fn is the function of
	// the filters within a group and Filter 0.
	Fn     *graph.Lambda
	Filter int
	// C is the filters' term, [N, the window's Depth axes] (grouped:
	// with in/G channels).
	C     graph.Node
	Group *Grouping
	// Dots are the contractions of r (grouped: of its group's part) with
	// c in Fn's body, all of depth Depth.
	Dots  []graph.Node
	Depth int
}

// Find matches fn, the function of an nzip over windows W, as a
// convolution (see the package doc): the maps over the positions down to
// \r -> body, the contractions of r with the filters in body, and their
// independence of the positions. The terms are matched as written, with
// env resolving the variables that stand for functions (the reductions'
// operators). The error, wrapping ErrNotConv, says what did not match.
func Find(fn graph.Node, env graph.Env) (*Conv, error) {
	cv := &Conv{Levels: 1}
	// The maps over the positions, down to \r -> nzip l2 args2.
	node := fn
	for cv.Body == nil {
		switch f := node.(type) {
		case *graph.NZip:
			if !graph.IsFunc(f) || len(f.Args) != 0 {
				return nil, notConv("the nzip over the positions at level %d has arguments or is not a map", cv.Levels)
			}
			node = f.Fn
		case *graph.Lambda:
			if len(f.Params) != 1 {
				return nil, notConv("the function at level %d has %d parameters, not one", cv.Levels, len(f.Params))
			}
			cv.Positions = append(cv.Positions, f.Params[0])
			if body, ok := f.Body.(*graph.NZip); ok && !graph.IsFunc(body) && len(body.Args) == 1 && body.Args[0] == graph.Node(f.Params[0]) {
				if UsesVar(body.Fn, f.Params[0]) {
					cv.PositionsRead = true
				}
				node = body.Fn
			} else {
				cv.Body = f
				continue
			}
		default:
			return nil, notConv("level %d is a %T, not a map over the positions", cv.Levels, node)
		}
		cv.Levels++
	}
	r := cv.Body.Params[0]
	cv.Row = r
	body := cv.Body.Body
	cands := []graph.Node{body}
	b, nested := body.(*graph.NZip)
	nested = nested && !graph.IsFunc(b)
	if nested {
		cands = append(cands, b.Args...)
	}
	for _, c := range cands {
		if c, ok := c.(*graph.NZip); ok && !graph.IsFunc(c) {
			f, ok := c.Fn.(*graph.Lambda)
			if !ok || len(f.Params) != len(c.Args) {
				continue
			}
			if dots, ic, k := matchContractions(f.Body, r, f, env); dots != nil {
				cv.Filters, cv.Fn, cv.Filter, cv.C, cv.Dots, cv.Depth = c, f, ic, c.Args[ic], dots, k
				break
			}
		}
		if gr, f, d, depth := groupedFilters(c, r, env); gr != nil {
			cv.Filters, cv.Fn, cv.C, cv.Group, cv.Dots, cv.Depth = c, f, gr.Filters, gr, d, depth
			break
		}
	}
	if cv.Filters == nil {
		return nil, notConv("no nzip over filters contracts the window %s with one of them", r.Name)
	}
	cv.Fused = cv.Filters == body
	if !cv.Fused {
		if UsesVar(b.Fn, r) {
			return nil, notConv("the window %s is read outside the contractions", r.Name)
		}
		for _, a := range b.Args {
			if a != cv.Filters && UsesVar(a, r) {
				return nil, notConv("the window %s is read outside the contractions", r.Name)
			}
		}
	}
	if UsesAny(cv.C, cv.Positions) {
		return nil, notConv("the filters depend on the window positions")
	}
	if cn, ok := cv.Filters.(*graph.NZip); ok && cv.Group == nil {
		for _, a := range cn.Args {
			if UsesAny(a, cv.Positions) {
				return nil, notConv("an argument of the filters' nzip depends on the window positions")
			}
		}
	}
	return cv, nil
}

// matchContractions finds in e the full contractions of r with one
// parameter c of l2, all of the same depth k (see ContractionDepth), and
// checks that e uses r and c nowhere else; it returns them, c's index and
// k, or nil.
func matchContractions(e graph.Node, r *graph.Var, l2 *graph.Lambda, env graph.Env) ([]graph.Node, int, int) {
	var dots []graph.Node
	ic, depth, bad := -1, -1, false
	var walk func(n graph.Node)
	walk = func(n graph.Node) {
		if bad {
			return
		}
		if rn, ok := n.(*graph.RNZ); ok && len(rn.Args) == 2 {
			a, aok := rn.Args[0].(*graph.Var)
			b, bok := rn.Args[1].(*graph.Var)
			if aok && bok {
				if b == r {
					a, b = b, a
				}
				i := slices.Index(l2.Params, b)
				if a == r && i >= 0 {
					k := ContractionDepth(rn, env)
					if k < 1 || (depth >= 0 && k != depth) || (ic >= 0 && ic != i) {
						bad = true
						return
					}
					depth, ic = k, i
					dots = append(dots, n)
					return
				}
			}
		}
		for _, c := range graph.Children(n) {
			walk(c)
		}
	}
	walk(e)
	if bad || ic < 0 {
		return nil, 0, 0
	}
	cv := l2.Params[ic]
	var uses func(n graph.Node) bool
	uses = func(n graph.Node) bool {
		if slices.Contains(dots, n) {
			return false
		}
		if v, ok := n.(*graph.Var); ok {
			return v == r || v == cv
		}
		for _, c := range graph.Children(n) {
			if uses(c) {
				return true
			}
		}
		return false
	}
	if uses(e) {
		return nil, 0, 0
	}
	return dots, ic, depth
}

// ContractionDepth returns k when rn is rnz (+) F a b with F (*) (k = 1)
// or \a' b' -> a contraction of depth k-1 of a' and b' (either order);
// 0 otherwise. env resolves the variables that stand for the operators.
func ContractionDepth(rn *graph.RNZ, env graph.Env) int {
	red, ok := graph.Reducer(rn.Red, env)
	if !ok || len(red.Ops) != 1 || red.Ops[0] != graph.Add || red.Lifts[0] != 0 {
		return 0
	}
	if m, ok := graph.Reducer(rn.Fn, env); ok && len(m.Ops) == 1 && m.Ops[0] == graph.Mul && m.Lifts[0] == 0 {
		return 1
	}
	f, ok := rn.Fn.(*graph.Lambda)
	if !ok || len(f.Params) != 2 {
		return 0
	}
	in, ok := f.Body.(*graph.RNZ)
	if !ok || len(in.Args) != 2 {
		return 0
	}
	a, aok := in.Args[0].(*graph.Var)
	b, bok := in.Args[1].(*graph.Var)
	if !aok || !bok || a == b || !slices.Contains(f.Params, a) || !slices.Contains(f.Params, b) {
		return 0
	}
	for _, p := range f.Params {
		if UsesVar(in.Red, p) || UsesVar(in.Fn, p) {
			return 0
		}
	}
	if k := ContractionDepth(in, env); k > 0 {
		return k + 1
	}
	return 0
}

// UsesVar reports whether v occurs in n.
func UsesVar(n graph.Node, v *graph.Var) bool {
	found := false
	graph.Inspect(n, func(m graph.Node) bool {
		if m == graph.Node(v) {
			found = true
		}
		return !found
	})
	return found
}

// UsesAny reports whether any of vs occurs in n.
func UsesAny(n graph.Node, vs []*graph.Var) bool {
	for _, v := range vs {
		if UsesVar(n, v) {
			return true
		}
	}
	return false
}

// ViewChain returns the views from n down to the first term that is not
// a view, innermost first, and that term.
func ViewChain(n graph.Node) ([]graph.View, graph.Node) {
	var views []graph.View
	for {
		vn, ok := n.(graph.ViewNode)
		if !ok {
			break
		}
		views = append(views, vn.View())
		n = vn.Operand()
	}
	slices.Reverse(views)
	return views, n
}
