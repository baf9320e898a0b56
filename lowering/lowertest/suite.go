package lowertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/lowering"
)

// A Case is one program of the suite.
type Case struct {
	// Name identifies the case; an instance of a templated case adds
	// "/f32" or "/f64".
	Name string
	// Src declares the inputs and gives the term, in the notation
	// graph.Parse reads. In a templated case (DTypes set) %[1]s stands for
	// the element type.
	Src string
	// Build makes the term for an element type, instead of Src (the
	// layers of package layers).
	Build func(dt graph.DType) (graph.Node, error)
	// DTypes are the element types a templated case is instantiated in;
	// nil for a case whose Src names its types.
	DTypes []graph.DType
	// Special is the probability that an element of a float input is NaN,
	// +Inf, -Inf or -0 (graphtest.Config.Special); 0 for none.
	Special float64
	// Golden marks the cases whose StableHLO text package stablehlo keeps
	// in testdata/<name>_<dtype>.mlir (the module of fusion.Whole).
	Golden bool
	// GoldenUnfused also keeps the module of fusion.Unfused, in
	// testdata/<name>_unfused_<dtype>.mlir.
	GoldenUnfused bool
}

// Term returns the case's term for element type dt (ignored by a case
// whose Src names its types).
func (c Case) Term(dt graph.DType) (graph.Node, error) {
	if c.Build != nil {
		return c.Build(dt)
	}
	src := c.Src
	if c.DTypes != nil {
		src = fmt.Sprintf(c.Src, dt)
	}
	prog, err := graph.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return prog.Body, nil
}

// An Instance is a case in one element type, parsed.
type Instance struct {
	Case
	Name  string      // the case's name, with "/f32" or "/f64" for a templated case
	DType graph.DType // the element type of a templated case; graph.Invalid otherwise
	Term  graph.Node
}

// Instances returns every case in each of its element types.
func Instances() ([]Instance, error) {
	var out []Instance
	for _, c := range Cases() {
		if c.DTypes == nil {
			term, err := c.Term(graph.Invalid)
			if err != nil {
				return nil, err
			}
			out = append(out, Instance{Case: c, Name: c.Name, Term: term})
			continue
		}
		for _, dt := range c.DTypes {
			term, err := c.Term(dt)
			if err != nil {
				return nil, err
			}
			out = append(out, Instance{Case: c, Name: c.Name + "/" + dt.String(), DType: dt, Term: term})
		}
	}
	return out, nil
}

// A Layout is how the suite lays out the arrays it binds to a program's
// inputs: every back end must read inputs of any strides and offset, as
// graph.Eval does.
type Layout int

// The input layouts.
const (
	Dense   Layout = iota // row-major arrays of their own
	Strided               // views into larger buffers: an offset, and every stride doubled
	Flipped               // views whose last two axes are flipped (column-major matrices)
)

func (l Layout) String() string { return [...]string{"dense", "strided", "flipped"}[l] }

// Inputs draws random values for the inputs term reads, from seed, with
// the special values of special (graphtest.Config.Special), laid out as l.
func Inputs(term graph.Node, seed uint64, special float64, l Layout) (map[string]graph.Value, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	in := graphtest.Config{Special: special}.Inputs(graphtest.Rand(seed), info.Inputs)
	if l == Dense {
		return in, nil
	}
	out := make(map[string]graph.Value, len(in))
	for name, v := range in {
		if out[name], err = relayout(v, l); err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
	}
	return out, nil
}

// relayout returns v with the same elements, laid out as l.
func relayout(v graph.Value, l Layout) (graph.Value, error) {
	switch v := v.(type) {
	case graph.TupleValue:
		out := make(graph.TupleValue, len(v))
		for i, e := range v {
			var err error
			if out[i], err = relayout(e, l); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *graph.Array:
		return view(v, l)
	}
	return v, nil
}

// view copies a into a fresh view of layout l.
func view(a *graph.Array, l Layout) (*graph.Array, error) {
	ext := a.Extents()
	var out *graph.Array
	switch l {
	case Strided:
		// A buffer of two blocks, each a row-major array of the extents
		// with every stride doubled; the view is the second block.
		lay := graph.RowMajor(ext...)
		for d := range lay {
			lay[d].Stride *= 2
		}
		span := lay.Span()
		lay = append(graph.Layout{{Extent: 2, Stride: span + 1}}, lay...)
		base, err := graph.NewArray(a.DType(), lay)
		if err != nil {
			return nil, err
		}
		if out, err = base.Index(1); err != nil {
			return nil, err
		}
	case Flipped:
		r := len(ext)
		if r < 2 {
			return a, nil
		}
		fe := slices.Clone(ext)
		fe[r-2], fe[r-1] = fe[r-1], fe[r-2]
		base, err := graph.Zeros(a.DType(), fe...)
		if err != nil {
			return nil, err
		}
		if out, err = base.Flip(r-2, r-1); err != nil {
			return nil, err
		}
	default:
		return a, nil
	}
	idx := make([]int, len(ext))
	for k := range a.Size() {
		rem := k
		for d := len(ext) - 1; d >= 0; d-- {
			idx[d] = rem % ext[d]
			rem /= ext[d]
		}
		out.Set(a.At(idx...), idx...)
	}
	return out, nil
}

// A Mode cuts a term into the kernel graph a back end compiles.
type Mode struct {
	Name string
	Cut  func(graph.Node) (*fusion.Graph, error)
}

// Fused is the fusion pipeline's graph, fusion.Fuse with default options.
func Fused(n graph.Node) (*fusion.Graph, error) {
	res, err := fusion.Fuse(n, fusion.Options{})
	if err != nil {
		return nil, err
	}
	return res.Graph, nil
}

// FusedAndUnfused returns term cut by the fusion pipeline (Fused) and
// layer by layer (fusion.Unfused), in that order, failing tb if either
// cannot be cut: the two graphs a back end's pattern tests run.
func FusedAndUnfused(tb testing.TB, term graph.Node) []*fusion.Graph {
	tb.Helper()
	f, err := Fused(term)
	if err != nil {
		tb.Fatal(err)
	}
	u, err := fusion.Unfused(term)
	if err != nil {
		tb.Fatal(err)
	}
	return []*fusion.Graph{f, u}
}

// Scheduled is the fusion pipeline's graph with every kernel's loops in
// the last order the schedule pass enumerates (its Choose option), after
// subdivisions by 2 or 3, whatever the cost model predicts: any order the
// pass can choose must run on every back end and compute the same value.
func Scheduled(n graph.Node) (*fusion.Graph, error) {
	res, err := fusion.Fuse(n, fusion.Options{Schedule: fusion.ScheduleOptions{MinCost: -1, Blocks: []int{2, 3},
		Choose: func(_ *fusion.Kernel, orders []*fusion.ScheduleCandidate) int { return len(orders) - 1 }}})
	if err != nil {
		return nil, err
	}
	return res.Graph, nil
}

// Modes returns the ways the suite cuts each program: fused by the
// pipeline (fusion.Fuse), fused with every kernel in another order
// (Scheduled), unfused layer by layer (fusion.Unfused), one kernel for the
// whole term, and every computing subterm a kernel of its own (the most
// temporaries).
func Modes() []Mode {
	return []Mode{
		{"fused", Fused},
		{"scheduled", Scheduled},
		{"unfused", fusion.Unfused},
		{"whole", fusion.Whole},
		{"cut-all", func(n graph.Node) (*fusion.Graph, error) {
			return fusion.Partition(n, func(graph.Node) bool { return true })
		}},
	}
}

// FloorShare is the share of its runs (each instance in each mode and
// input layout that a -run filter lets through) that Run requires to
// compare equal unless Options.Floor says otherwise. Every failing run is
// an error of its own; the floor catches a suite that silently runs much
// less than it holds. A suite that runs nothing fails, and so does one
// with fewer than MinInstances instances.
const FloorShare = 0.9

// Options adapt Run to a back end.
type Options struct {
	// Modes replaces Modes() when not nil.
	Modes []Mode
	// Floor is the least number of runs that must compare equal; 0 means
	// FloorShare of the planned runs.
	Floor int
	// Rejects lists the instances the back end documents it cannot
	// compile, each with a part of the error it must return (a
	// limitation, such as StableHLO's reduce needing an associative
	// operator). Such an instance is checked to fail to compile with that
	// error, in every mode; it does not count towards the floor, and one
	// that compiles fails the suite, so that the entry goes.
	Rejects map[string]string
	// Short runs each instance in the first mode and dense layout only
	// (for go test -short).
	Short bool
}

// Run compiles every instance of the suite with b in every mode, runs it
// twice on random inputs (dense; and, in the first mode, strided and
// flipped views of the same values, on the same executable) and compares each result with graph.Eval's within
// graph.ToleranceOf the result. Every mismatch is an error, and Run fails
// when fewer runs than the floor (Options.Floor, or FloorShare of the
// runs) compared equal.
func Run(t *testing.T, b lowering.Backend, opt Options) {
	insts, err := Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) < MinInstances {
		t.Errorf("the suite has %d instances, fewer than MinInstances = %d", len(insts), MinInstances)
	}
	modes := opt.Modes
	if modes == nil {
		modes = Modes()
	}
	if opt.Short {
		modes = modes[:1]
	}
	c := &counter{}
	for _, inst := range insts {
		t.Run(inst.Name, func(t *testing.T) {
			for mi, m := range modes {
				t.Run(m.Name, func(t *testing.T) {
					if want, ok := opt.Rejects[inst.Name]; ok {
						c.reject(t, b, m, inst.Term, want)
						return
					}
					layouts := []Layout{Dense}
					if mi == 0 && !opt.Short {
						layouts = append(layouts, Strided, Flipped)
					}
					var sets []inputSet
					for _, l := range layouts {
						in, err := Inputs(inst.Term, hash(inst.Name), inst.Special, l)
						if err != nil {
							t.Fatal(err)
						}
						sets = append(sets, inputSet{l, in})
					}
					c.run(t, b, m, inst.Name, inst.Term, sets)
				})
			}
		})
	}
	floor := opt.Floor
	if floor == 0 {
		floor = int(FloorShare * float64(c.planned))
	}
	c.report(t, floor)
}

// MinInstances is the least number of instances the suite must hold.
const MinInstances = 250

// inputSet is one binding of a program's inputs, in one layout.
type inputSet struct {
	layout Layout
	inputs map[string]graph.Value
}

// counter tallies the runs of a suite: each binding of each instance in
// each mode is a run.
type counter struct {
	planned, ran, rejected int
}

// reject checks that b refuses to compile term, cut by m, with an error
// that contains want.
func (c *counter) reject(t *testing.T, b lowering.Backend, m Mode, term graph.Node, want string) {
	t.Helper()
	g, err := m.Cut(term)
	if err != nil {
		t.Errorf("%s cut: %v", m.Name, err)
		return
	}
	exe, err := b.Compile(g)
	if err == nil {
		exe.Close()
		t.Errorf("%s, %s: compiled, but Options.Rejects says it must fail with %q: remove the entry", b.Name(), m.Name, want)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s, %s: compile error %q, want one containing %q", b.Name(), m.Name, err, want)
		return
	}
	c.rejected++
}

func (c *counter) run(t *testing.T, b lowering.Backend, m Mode, name string, term graph.Node, sets []inputSet) {
	t.Helper()
	c.planned += len(sets)
	if err := compare(b, m, term, sets); err != nil {
		t.Errorf("%s, %s: %v", b.Name(), m.Name, err)
		return
	}
	c.ran += len(sets)
}

func (c *counter) report(t *testing.T, floor int) {
	t.Helper()
	if c.planned == 0 {
		t.Errorf("the suite ran nothing")
		return
	}
	t.Logf("%d runs equal graph.Eval, %d rejected as documented", c.ran, c.rejected)
	if c.ran < floor {
		t.Errorf("only %d runs compared equal; the floor is %d", c.ran, floor)
	}
}

// Check compiles g with b, runs it twice on inputs and compares both
// results with graph.Eval of term, within graph.ToleranceOf the result
// (tol when not zero). It reports a difference through t.
func Check(t testing.TB, b lowering.Backend, g *fusion.Graph, term graph.Node, inputs map[string]graph.Value, tol float64) bool {
	t.Helper()
	if err := check(b, g, term, []inputSet{{Dense, inputs}}, tol); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// compare cuts term by m, compiles it on b once and checks it on each
// binding.
func compare(b lowering.Backend, m Mode, term graph.Node, sets []inputSet) error {
	g, err := m.Cut(term)
	if err != nil {
		return fmt.Errorf("%s cut: %w\nterm: %s", m.Name, err, graph.Print(term))
	}
	return check(b, g, term, sets, 0)
}

func check(b lowering.Backend, g *fusion.Graph, term graph.Node, sets []inputSet, tol float64) error {
	exe, err := b.Compile(g)
	if err != nil {
		return fmt.Errorf("compile: %w\nterm: %s\nkernels:\n%v", err, graph.Print(term), g)
	}
	defer exe.Close()
	for _, set := range sets {
		want, err := graph.Eval(term, set.inputs)
		if err != nil {
			return fmt.Errorf("eval: %w\nterm: %s", err, graph.Print(term))
		}
		tol := tol
		if tol == 0 {
			tol = graph.ToleranceOf(want)
		}
		// The graph may read fewer inputs than the term (a fusion pass
		// drops dead code); an executable rejects bindings it has no
		// input for.
		bound := make(map[string]graph.Value, len(g.Inputs))
		for _, in := range g.Inputs {
			if v, ok := set.inputs[in.Name]; ok {
				bound[in.Name] = v
			}
		}
		for run := range 2 {
			got, err := exe.Run(bound)
			if err != nil {
				return fmt.Errorf("%v inputs, run %d: %w\nkernels:\n%v", set.layout, run, err, g)
			}
			if err := graph.Diff(want, got, tol); err != nil {
				return fmt.Errorf("%v inputs, run %d: %w (tolerance %g)\nterm: %s\nkernels:\n%v%s", set.layout, run, err, tol, graph.Print(term), g, describe(exe))
			}
		}
	}
	return nil
}

// describe returns the executable's own account of itself, when it has
// one.
func describe(exe lowering.Executable) string {
	if d, ok := exe.(interface{ Describe() string }); ok {
		return "compiled:\n" + d.Describe()
	}
	return ""
}

// hash seeds a case's inputs by its name (FNV-1a).
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// src joins declarations and a term.
func src(decls, term string) string { return strings.TrimSpace(decls) + "\n" + term }
