package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

// The gradient law: for random f64 programs from graphtest (every
// generator, every kind of term), made scalar by a sum of squares of all
// their results, the gradients Grad computes, evaluated by graph.Eval,
// agree with central finite differences of the loss,
//
//	fd = (f(x + h) - f(x - h)) / 2h,  h = 1e-6 max(1, |x|),
//
// within a relative tolerance of 1e-5 (absolute below 1):
// |g - fd| <= 1e-5 max(1, |g|, |fd|). graphtest guards log, sqrt, rsqrt,
// pow and division to positive or nonzero arguments. Where the two
// one-sided differences disagree by more than 1e-3 the loss has a kink
// within h of x (max, min, abs, select switching), no derivative exists
// there, and the element is counted as skipped; at most 2% may be.
func TestGradLawFiniteDifferences(t *testing.T) {
	checkGradLaw(t, graphtest.Config{DType: graph.Float64})
}

// TestGradLawWindows is the gradient law on random programs that also
// read arrays through window, pad and crop views (graphtest's
// Config.Windows): their cotangents are the overlapping scatter-add, the
// crop and the pad.
func TestGradLawWindows(t *testing.T) {
	windowed := checkGradLaw(t, graphtest.Config{DType: graph.Float64, Windows: true})
	t.Logf("%d of the programs checked read a window, pad or crop view", windowed)
	if windowed < 20 {
		t.Errorf("only %d programs checked read a window, pad or crop view; want 20 at least", windowed)
	}
}

// checkGradLaw checks the gradient law on the programs of every generator
// with cfg, and returns how many of those checked hold a window, pad or
// crop view.
func checkGradLaw(t *testing.T, cfg graphtest.Config) (windowed int) {
	const (
		rel      = 1e-5
		kinkTol  = 1e-3
		perInput = 4 // elements of each input checked, chosen at random
	)
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	var programs, noInputs, nonFinite, elements, kinks int
	var covered graphtest.Kind
	for _, gen := range graphtest.Generators() {
		for seed := range uint64(seeds) {
			r := graphtest.Rand(seed)
			prog, ins := gen.Gen(r, cfg)
			name := fmt.Sprintf("%s seed %d", gen.Name, seed)
			if len(ins) == 0 {
				noInputs++
				continue
			}
			loss := sumOfSquares(t, prog)
			in := graphtest.Inputs(r, ins)
			f := func(in map[string]graph.Value) float64 {
				v, err := graph.Eval(loss, in)
				if err != nil {
					t.Fatalf("%s: eval of the loss: %v", name, err)
				}
				return v.(graph.ScalarValue).V
			}
			f0 := f(in)
			if math.IsInf(f0, 0) || math.IsNaN(f0) {
				nonFinite++
				continue
			}
			g, err := Grad(loss, ins)
			if err != nil {
				t.Errorf("%s: Grad: %v\n%s", name, err, graph.Print(loss))
				continue
			}
			v, err := graph.Eval(g, in)
			if err != nil {
				t.Errorf("%s: eval of the gradient term: %v\n%s", name, err, graph.Print(loss))
				continue
			}
			if err := noShadowing(g); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			tv := v.(graph.TupleValue)
			if got := tv[0].(graph.ScalarValue).V; got != f0 {
				t.Errorf("%s: the gradient term's loss is %v, the loss is %v", name, got, f0)
			}
			pick := rand.New(rand.NewPCG(seed, 7))
			failed := false
			for k, x := range ins {
				if a, ok := tv[k+1].(*graph.Array); ok && !slices.Equal(a.Extents(), x.Type.(*graph.ArrayType).Layout.Extents()) {
					t.Errorf("%s: gradient of %s has extents %v, the input %v", name, x.Name, a.Extents(), x.Type)
				}
				grad := flat(t, tv[k+1])
				base := flat(t, in[x.Name])
				if len(grad) != len(base) {
					t.Fatalf("%s: gradient of %s has %d elements, the input %d", name, x.Name, len(grad), len(base))
				}
				for range min(perInput, len(base)) {
					i := pick.IntN(len(base))
					h := 1e-6 * math.Max(1, math.Abs(base[i]))
					fp := f(perturb(t, in, x, base, i, h))
					fm := f(perturb(t, in, x, base, i, -h))
					fd := (fp - fm) / (2 * h)
					fwd, bwd := (fp-f0)/h, (f0-fm)/h
					if math.Abs(fwd-bwd) > kinkTol*math.Max(1, math.Abs(fd)) {
						kinks++
						continue
					}
					elements++
					if gi := grad[i]; !(math.Abs(gi-fd) <= rel*math.Max(1, math.Max(math.Abs(gi), math.Abs(fd)))) {
						if !failed {
							t.Errorf("%s: d loss / d %s[%d] = %v, finite differences give %v\n%s", name, x.Name, i, gi, fd, graph.Print(loss))
						}
						failed = true
					}
				}
			}
			programs++
			covered |= graphtest.Kinds(prog)
			if hasWindowView(prog) {
				windowed++
			}
		}
	}
	t.Logf("gradient law: %d programs checked (%d elements; %d skipped at kinks), %d without inputs, %d with a non-finite loss; kinds covered: %v",
		programs, elements, kinks, noInputs, nonFinite, covered)
	total := seeds * len(graphtest.Generators())
	if programs < total*9/10 {
		t.Errorf("only %d of %d programs checked; want at least 90%%", programs, total)
	}
	if missing := graphtest.AllKinds &^ covered; missing != 0 {
		t.Errorf("the programs checked contain no term of the kinds %v", missing)
	}
	if kinks > (elements+kinks)/50 {
		t.Errorf("%d of %d elements skipped at kinks; want at most 2%%", kinks, elements+kinks)
	}
	return windowed
}

// hasWindowView reports whether n holds a window, pad or crop view.
func hasWindowView(n graph.Node) bool {
	for m := range graph.All(n) {
		if v, _, ok := graph.AsView(m); ok {
			switch v.(type) {
			case graph.WindowView, graph.PadView, graph.CropView:
				return true
			}
		}
	}
	return false
}

// sumOfSquares is the scalar loss sum x*x over every element x of every
// result of prog.
func sumOfSquares(t *testing.T, prog graph.Node) graph.Node {
	t.Helper()
	info, err := graph.Check(prog)
	if err != nil {
		t.Fatalf("generated program does not check: %v", err)
	}
	var sq func(n graph.Node, ty graph.Type) graph.Node
	sq = func(n graph.Node, ty graph.Type) graph.Node {
		switch ty := ty.(type) {
		case *graph.ScalarType:
			return must(graph.NewCall(graph.Mul, n, n))
		case *graph.ArrayType:
			x := graph.NewVar("x")
			return must(graph.NewRNZ(must(graph.NewOpRef(graph.Add)), must(graph.NewLambda([]*graph.Var{x}, sq(x, elemOf(ty)))), n))
		case *graph.TupleType:
			s := sq(must(graph.NewProj(0, n)), ty.Elems[0])
			for i := 1; i < len(ty.Elems); i++ {
				s = must(graph.NewCall(graph.Add, s, sq(must(graph.NewProj(i, n)), ty.Elems[i])))
			}
			return s
		}
		t.Fatalf("program of type %v", ty)
		return nil
	}
	return sq(prog, info.TypeOf(prog))
}

// perturb returns the inputs in with element i of input x (whose
// row-major elements are base) moved by h.
func perturb(t *testing.T, in map[string]graph.Value, x *graph.Input, base []float64, i int, h float64) map[string]graph.Value {
	t.Helper()
	out := make(map[string]graph.Value, len(in))
	for k, v := range in {
		out[k] = v
	}
	switch ty := x.Type.(type) {
	case *graph.ScalarType:
		out[x.Name] = graph.ScalarValue{DType: ty.DType, V: base[0] + h}
	case *graph.ArrayType:
		data := append([]float64(nil), base...)
		data[i] += h
		out[x.Name] = arr(t, data, ty.Layout.Extents()...)
	}
	return out
}

// noShadowing reports a lambda or let inside a lambda that binds one of
// the outer lambda's parameters again: the gradient term keeps its binders
// distinct along every path, so that substitution by the rewrite rules
// cannot go wrong.
func noShadowing(n graph.Node) error {
	for m := range graph.All(n) {
		l, ok := m.(*graph.Lambda)
		if !ok {
			continue
		}
		for inner := range graph.All(l.Body) {
			var binds []*graph.Var
			switch b := inner.(type) {
			case *graph.Lambda:
				binds = b.Params
			case *graph.Let:
				binds = []*graph.Var{b.Var}
			}
			for _, v := range binds {
				if slices.Contains(l.Params, v) {
					return fmt.Errorf("%s binds %s again inside %s", graph.Abbrev(inner, 50), v.Name, graph.Abbrev(l, 50))
				}
			}
		}
	}
	return nil
}
