// Package nativetest is a correctness suite for back ends: a table of
// programs (the paper's examples, every loop order of the matrix product,
// subdivided and flipped views, elementwise chains, reductions, softmax,
// the fused dense layer shapes) that a back end compiles and runs on
// random inputs, each result compared with the reference interpreter.
// Every back end imports it, as gonum's implementations import testblas:
//
//	func TestSuite(t *testing.T) { nativetest.Run(t, native.New(native.Options{})) }
//
// # Tolerances
//
// A result r is accepted when |want - r| <= tol * (1 + |want|) for every
// element (graph.Diff), with tol 1e-12 for f64 and 1e-5 for f32
// unless a case says otherwise. The interpreter reduces left to right and
// rounds every operation to its type; a back end may reassociate sums (a
// SIMD dot product keeps 8 or 16 partial sums, a GEMM blocks its k loop, a
// parallel reduction adds per-goroutine parts), which changes the result by
// a few units in the last place per addition: for the short reductions of
// the suite, well under 1e-13 in f64 and 1e-6 in f32. The tolerances leave
// a margin of ten to a hundred and still catch any wrong index, stride or
// order of operands, which are off by far more.
package nativetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering"
)

// Tolerance returns the suite's default tolerance for results of type dt.
func Tolerance(dt graph.DType) float64 {
	if dt == graph.Float32 {
		return 1e-5
	}
	return 1e-12
}

// A Case is one program of the suite.
type Case struct {
	Name string
	// Src declares the inputs and gives the term, in the notation
	// graph.Parse reads.
	Src string
	// Tol overrides the default tolerance when not zero.
	Tol float64
}

// Program parses the case.
func (c Case) Program() (*graph.Program, error) { return graph.Parse(c.Src) }

// A Split cuts a term into kernels.
type Split struct {
	Name string
	Cut  func(graph.Node) (*fusion.Graph, error)
}

// Splits returns the ways the suite cuts each program: one kernel, the
// unfused layer-by-layer cut, and every computing subterm a kernel of its
// own (the most temporaries).
func Splits() []Split {
	return []Split{
		{"whole", fusion.Whole},
		{"unfused", fusion.Unfused},
		{"cut-all", func(n graph.Node) (*fusion.Graph, error) {
			return fusion.Partition(n, func(graph.Node) bool { return true })
		}},
	}
}

// Options adapt the suite to a back end.
type Options struct {
	// Tol returns the tolerance for results of element type dt; nil means
	// Tolerance. A case's own Tol wins when it is larger.
	Tol func(dt graph.DType) float64
	// Skip returns why the back end cannot run a case, or "" to run it.
	Skip func(c Case) string
	// Splits replaces Splits when not nil.
	Splits []Split
}

func (o Options) tol(c Case, dt graph.DType) float64 {
	t := Tolerance(dt)
	if o.Tol != nil {
		t = o.Tol(dt)
	}
	return max(t, c.Tol)
}

func (o Options) splits() []Split {
	if o.Splits != nil {
		return o.Splits
	}
	return Splits()
}

// Run compiles every case of Cases under every split with b, runs it on
// random inputs and compares the results with graph.Eval.
func Run(t *testing.T, b lowering.Backend) { RunWith(t, b, Options{}) }

// RunWith is Run with options.
func RunWith(t *testing.T, b lowering.Backend, opt Options) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			if opt.Skip != nil {
				if why := opt.Skip(c); why != "" {
					t.Skip(why)
				}
			}
			prog, err := c.Program()
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			inputs, err := caseInputs(prog, hash(c.Name))
			if err != nil {
				t.Fatal(err)
			}
			want, err := graph.Eval(prog.Body, inputs)
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			tol := opt.tol(c, dtypeOf(want))
			for _, s := range opt.splits() {
				t.Run(s.Name, func(t *testing.T) {
					g, err := s.Cut(prog.Body)
					if err != nil {
						t.Fatalf("split: %v", err)
					}
					Check(t, b, g, prog.Body, inputs, tol)
				})
			}
		})
	}
}

// RunRandom compiles n random programs from graphtest.Program, under every
// split, and compares them with the interpreter.
func RunRandom(t *testing.T, b lowering.Backend, seed uint64, n int, cfg graphtest.Config) {
	r := graphtest.Rand(seed)
	for i := range n {
		term, ins := graphtest.Program(r, cfg)
		inputs := graphtest.Inputs(r, ins)
		for _, s := range Splits() {
			g, err := s.Cut(term)
			if err != nil {
				// Every split of a well-typed program must exist; a failure
				// here is a fusion bug, and it is reported, not skipped.
				t.Errorf("program %d (seed %d): split %s failed: %v\n%s", i, seed, s.Name, err, graph.Print(term))
				continue
			}
			if !check(t, b, g, term, inputs, 0, fmt.Sprintf("program %d (seed %d), split %s", i, seed, s.Name)) {
				return
			}
		}
	}
}

// Check compiles g with b, runs it twice on inputs and compares both
// results with graph.Eval of term within tol (0: the default for the
// result's type).
func Check(t testing.TB, b lowering.Backend, g *fusion.Graph, term graph.Node, inputs map[string]graph.Value, tol float64) bool {
	t.Helper()
	return check(t, b, g, term, inputs, tol, "")
}

func check(t testing.TB, b lowering.Backend, g *fusion.Graph, term graph.Node, inputs map[string]graph.Value, tol float64, what string) bool {
	t.Helper()
	want, err := graph.Eval(term, inputs)
	if err != nil {
		t.Fatalf("%s eval: %v\n%s", what, err, graph.Print(term))
	}
	if tol == 0 {
		tol = Tolerance(dtypeOf(want))
	}
	exe, err := b.Compile(g)
	if err != nil {
		t.Errorf("%s compile: %v\nkernels:\n%v", what, err, g)
		return false
	}
	defer exe.Close()
	// The graph may read fewer inputs than the term (a fusion pass drops
	// dead code); an executable rejects bindings it has no input for.
	bound := make(map[string]graph.Value, len(g.Inputs))
	for _, in := range g.Inputs {
		if v, ok := inputs[in.Name]; ok {
			bound[in.Name] = v
		}
	}
	for run := range 2 {
		got, err := exe.Run(bound)
		if err != nil {
			t.Errorf("%s run %d: %v\nkernels:\n%v", what, run, err, g)
			return false
		}
		if err := graph.Diff(want, got, tol); err != nil {
			t.Errorf("%s run %d: %v\nkernels:\n%v%s", what, run, err, g, describe(exe))
			return false
		}
	}
	return true
}

// describe returns the executable's own account of itself, when it has
// one.
func describe(exe lowering.Executable) string {
	if d, ok := exe.(interface{ Describe() string }); ok {
		return "compiled:\n" + d.Describe()
	}
	return ""
}

// dtypeOf returns the element type of a value's first array or scalar.
func dtypeOf(v graph.Value) graph.DType {
	switch v := v.(type) {
	case *graph.Array:
		return v.DType()
	case graph.ScalarValue:
		return v.DType
	case graph.TupleValue:
		dt := graph.Float64
		for _, e := range v {
			if d := dtypeOf(e); d == graph.Float32 {
				dt = d
			}
		}
		return dt
	}
	return graph.Float64
}

func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// caseInputs draws random values for the inputs the program's term uses.
func caseInputs(prog *graph.Program, seed uint64) (map[string]graph.Value, error) {
	info, err := graph.Check(prog.Body)
	if err != nil {
		return nil, err
	}
	return graphtest.Inputs(graphtest.Rand(seed), info.Inputs), nil
}

// src joins declarations and a term.
func src(decls, term string) string { return strings.TrimSpace(decls) + "\n" + term }
