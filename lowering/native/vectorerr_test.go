package native

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// newTestCompiler returns a compiler with nothing compiled yet, as Plan
// makes one.
func newTestCompiler() *compiler {
	return &compiler{workers: 1, b: &builder{nInts: 1}, inputs: map[*graph.Input]*cval{},
		ready: map[[2]int]bool{}, desc: &strings.Builder{}}
}

func mustNode[T graph.Node](t *testing.T) func(T, error) T {
	return func(n T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// The vector paths return every error but a refusal (errNotVectorisable)
// instead of falling back to the general loop (issue 8 item 6). A checked
// kernel body cannot reach these errors, so the functions are called
// directly on function terms Check would reject.
func TestVectorErrorsSurface(t *testing.T) {
	x, y := graph.NewVar("x"), graph.NewVar("y")
	lam := mustNode[*graph.Lambda](t)
	call := mustNode[*graph.Call](t)
	two := lam(graph.NewLambda([]*graph.Var{x, y}, x)) // \x y -> x
	neg := mustNode[*graph.OpRef](t)(graph.NewOpRef(graph.Neg))
	addBool := lam(graph.NewLambda([]*graph.Var{x, y}, call(graph.NewCall(graph.Add, x, y))))
	inner := mustNode[*graph.App](t)(graph.NewApp(two, x))
	viaApp := lam(graph.NewLambda([]*graph.Var{x}, call(graph.NewCall(graph.Mul, inner, graph.NewConst(2)))))
	ident := lam(graph.NewLambda([]*graph.Var{x}, x))
	double := lam(graph.NewLambda([]*graph.Var{x}, call(graph.NewCall(graph.Mul, x, graph.NewConst(2)))))
	free := lam(graph.NewLambda([]*graph.Var{x}, y)) // y is bound nowhere
	nzipFn := mustNode[*graph.NZip](t)(graph.NewNZip(neg))
	f64 := graph.ArrayOf(graph.Float64, 5)
	pair := &graph.TupleType{Elems: []graph.Type{f64, f64}}
	for _, c := range []struct {
		name string
		fn   graph.Node
		args []graph.Type
		dst  graph.Type
		want string
	}{
		{"lambda arity", two, []graph.Type{f64}, f64, `function of 2 parameters applied to 1 arguments`},
		{"arity in an application", viaApp, []graph.Type{f64}, f64, `function of 2 parameters applied to 1 arguments`},
		{"ill-typed op", addBool, []graph.Type{f64, graph.ArrayOf(graph.Bool, 5)}, f64, `add: operand types f64 and bool differ`},
		{"op for a tuple", neg, []graph.Type{f64}, pair, `neg has one result, not a tuple of 2`},
		{"array for a tuple", ident, []graph.Type{f64}, pair, `an array is used as a tuple of 2 scalars`},
		{"scalar for a tuple", double, []graph.Type{f64}, pair, `x * 2 is a scalar, not a tuple of 2 scalars`},
		{"unbound variable for a tuple", free, []graph.Type{f64}, pair, `variable y is not bound`},
		{"array function", nzipFn, []graph.Type{f64}, f64, `map neg does not compute scalars`},
	} {
		t.Run(c.name, func(t *testing.T) {
			comp := newTestCompiler()
			var args []*cval
			for _, a := range c.args {
				v, err := comp.scratch(a)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, v)
			}
			dst, err := comp.scratch(c.dst)
			if err != nil {
				t.Fatal(err)
			}
			fn := &cval{kind: cvFunc, node: c.fn}
			_, ok, err := comp.vectorMap(fn, args, dst)
			if err == nil {
				t.Fatalf("vectorMap: no error (ok %v); plan:\n%s", ok, comp.desc)
			}
			if err.Error() != c.want {
				t.Errorf("vectorMap: error\n got %q\nwant %q", err, c.want)
			}
			if c.dst != f64 {
				return
			}
			_, _, ok, err = newTestCompiler().vectorReduce(graph.Add, fn, args, 5)
			if err == nil {
				t.Fatalf("vectorReduce: no error (ok %v)", ok)
			}
			if err.Error() != c.want {
				t.Errorf("vectorReduce: error\n got %q\nwant %q", err, c.want)
			}
		})
	}
}

// The axpy loops and the inverse-view store return the errors they meet
// instead of leaving the term to the general loop.
func TestLoopPatternErrorsSurface(t *testing.T) {
	comp := newTestCompiler()
	a, b := graph.NewVar("a"), graph.NewVar("b")
	r := graph.NewVar("r")
	mulA := mustNode[*graph.Lambda](t)(graph.NewLambda([]*graph.Var{b},
		mustNode[*graph.Call](t)(graph.NewCall(graph.Mul, a, b))))
	body := mustNode[*graph.NZip](t)(graph.NewNZip(mulA, r))
	fn := &cval{kind: cvFunc, node: mustNode[*graph.Lambda](t)(graph.NewLambda([]*graph.Var{a, r}, body))}
	s, err := comp.scratch(graph.Scalar(graph.Float64))
	if err != nil {
		t.Fatal(err)
	}
	m, err := comp.scratch(graph.ArrayOf(graph.Float64, 4, 3))
	if err != nil {
		t.Fatal(err)
	}
	row, err := comp.scratch(graph.ArrayOf(graph.Float64, 3))
	if err != nil {
		t.Fatal(err)
	}
	const want = "a scalar has no elements to traverse"
	// A scalar where the rows are traversed.
	if _, ok, err := comp.axpyMap(fn, []*cval{s, m}, m, 4); err == nil || err.Error() != want {
		t.Errorf("axpyMap: ok %v, error %v, want %q", ok, err, want)
	}
	if _, ok, err := comp.axpyReduce(fn, []*cval{s, m}, row, 4); err == nil || err.Error() != want {
		t.Errorf("axpyReduce: ok %v, error %v, want %q", ok, err, want)
	}
	// flip 0 1 of a scalar, stored into a matrix.
	v := graph.NewVar("v")
	flip := mustNode[*graph.Flip](t)(graph.NewFlip(0, 1, v))
	env := (*cenv)(nil).bind(v, s)
	const wantFlip = "layout operation on a non-array of type f64"
	if _, ok, err := comp.invertLayout(flip, env, m); err == nil || err.Error() != wantFlip {
		t.Errorf("invertLayout: ok %v, error %v, want %q", ok, err, wantFlip)
	}
}

// Loading or storing an element of no buffer type, or accumulating with
// an op the element type has not, is an internal error, not code that
// reads zeros or stores nothing.
func TestElementAccessInvariants(t *testing.T) {
	if _, err := loadFn(&cval{kind: cvView, dt: untyped}); err == nil || err.Error() != "internal: no buffer holds elements of type invalid" {
		t.Errorf("loadFn: %v", err)
	}
	s := constVal(graph.Float64, 1)
	if _, err := storeScalar(&cval{kind: cvView, dt: untyped}, s); err == nil || err.Error() != "internal: no buffer holds elements of type invalid" {
		t.Errorf("storeScalar: %v", err)
	}
	if _, err := storeScalar(&cval{kind: cvView, dt: graph.Bool, acc: graph.Sub}, s); err == nil || err.Error() != "internal: sub cannot accumulate into bool" {
		t.Errorf("storeScalar: %v", err)
	}
}
