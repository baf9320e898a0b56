package fusion

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// Options control Fuse.
type Options struct {
	// Disable names rules the passes must not apply (see RuleNames for
	// the names). An unknown name, or that of a rule only the schedule
	// search applies, is an error.
	Disable []string
	// Dump, when set, receives the IR after each pass with the pass's
	// duration, or "unchanged".
	Dump io.Writer
	// Schedule controls the schedule pass, the last: by default it orders
	// every kernel's loops by the cost model (see ScheduleGraph).
	Schedule ScheduleOptions
}

// Result is what Fuse produces.
type Result struct {
	Term   graph.Node // the rewritten term, before it is cut into kernels
	Graph  *Graph     // the kernels
	Report *Report    // what the passes did and refused
}

// A pass is one named step of the pipeline: the rules an engine runs to a
// normal form.
type pass struct {
	name  string
	rules []Rule
	// prepare, when set, rewrites the term once before the engine runs.
	prepare func(graph.Node) (graph.Node, error)
}

// The pipeline. Order matters:
//   - normalise first, so that the vertical rules see lambdas applied and
//     single-use lets inlined, and reduction operators in η-normal form;
//   - contract before vertical fusion, so that a contraction a consumer
//     absorbs is a matrix product with an epilogue, and again after it,
//     for the contractions fusion exposes;
//   - vertical fusion before horizontal, because fusing pipelines decides
//     which traversals remain to be put side by side;
//   - β, inline-let and η run in every pass, since the fusion rules build
//     applications that they reduce;
//   - kernel formation last, on the final term.
var pipeline = []pass{
	{"normalise", []Rule{Beta{}, InlineLet{}, SplitLet{}, FloatLet{}, Eta{}, FlipFlip{}, FlipNZip{}, WindowFlip{}, FlattenMap{}}, nil},
	{"contract", contractRules, nil},
	{"vertical", []Rule{Beta{}, InlineLet{}, SplitLet{}, FloatLet{}, Eta{}, SameArg{}, NZipNZip{}, RNZNZip{}}, nil},
	{"contract", contractRules, nil},
	{"horizontal", []Rule{Product{}, FanOut{}, Beta{}, InlineLet{}, Eta{}}, mergeSiblings},
}

// Fuse runs the pass pipeline on term — normalise, vertical fusion,
// horizontal fusion, kernel formation, and the schedule pass, which orders
// each kernel's loops (Options.Schedule) — and reports what it did. The result
// computes the same value as term (graph.Eval), up to the reassociation of
// floating-point reductions. Fuse is deterministic: the same term gives the
// same kernels with the same names, on one machine (the schedule pass
// plans for the host's caches), unless the schedule pass's time budget
// runs out (the report says so) or Options.Schedule.Tune measures.
func Fuse(term graph.Node, opt Options) (*Result, error) {
	disabled := map[string]bool{}
	for _, name := range opt.Disable {
		if !slices.Contains(RuleNames(), name) {
			if _, ok := RuleByName(name); ok {
				return nil, fmt.Errorf("fusion: rule %q belongs to the schedule pass, which applies it one exchange or subdivision at a time and is switched off whole (ScheduleOptions.Off); the rules the rewriting passes run are %s", name, strings.Join(RuleNames(), ", "))
			}
			return nil, fmt.Errorf("fusion: unknown rule %q; the rules are %s", name, strings.Join(RuleNames(), ", "))
		}
		disabled[name] = true
	}
	before, err := unfused(term)
	if err != nil {
		return nil, err
	}
	rep := &Report{KernelsBefore: len(before.Kernels), TemporariesBefore: len(before.Temporaries()), TemporaryBytesBefore: before.TemporaryBytes()}
	e := newEngine(nil)
	cur := term
	for _, p := range pipeline {
		start := time.Now()
		e.rules = e.rules[:0]
		for _, r := range p.rules {
			if !disabled[r.Name()] {
				e.rules = append(e.rules, r)
			}
		}
		// Copies of one computation become one node before every pass, so
		// that the rules count its consumers (see shareCommon).
		if cur, err = shareCommon(cur); err != nil {
			return nil, fmt.Errorf("pass %s: sharing common subterms: %w", p.name, err)
		}
		if p.prepare != nil {
			if cur, err = p.prepare(cur); err != nil {
				return nil, fmt.Errorf("pass %s: %w", p.name, err)
			}
		}
		next, err := e.run(cur)
		if err != nil {
			return nil, fmt.Errorf("pass %s: %w", p.name, err)
		}
		rep.Passes = append(rep.Passes, PassReport{Name: p.name, Duration: time.Since(start), Changed: next != cur})
		if opt.Dump != nil {
			dump(opt.Dump, p.name, time.Since(start), cur, next)
		}
		cur = next
	}
	start := time.Now()
	if cur, err = letsToDAG(cur); err != nil {
		return nil, fmt.Errorf("pass kernels: %w", err)
	}
	if cur, err = shareCommon(cur); err != nil {
		return nil, fmt.Errorf("pass kernels: sharing common subterms: %w", err)
	}
	g, err := Partition(cur, fusedCut(cur))
	if err != nil {
		return nil, fmt.Errorf("pass kernels: %w", err)
	}
	rep.Passes = append(rep.Passes, PassReport{Name: "kernels", Duration: time.Since(start), Changed: true})
	if opt.Dump != nil {
		fmt.Fprintf(opt.Dump, "== kernels (%v)\n%s", time.Since(start).Round(time.Microsecond), g)
	}
	// The schedule pass last: it orders each kernel's loops, and never
	// moves work between kernels.
	if !opt.Schedule.Off {
		start = time.Now()
		if err := ScheduleGraph(g, opt.Schedule); err != nil {
			return nil, fmt.Errorf("pass schedule: %w", err)
		}
		d := time.Since(start)
		changed := 0
		for _, k := range g.Kernels {
			if k.Schedule != nil && k.Schedule.Changed {
				changed++
			}
		}
		rep.Passes = append(rep.Passes, PassReport{Name: "schedule", Duration: d, Changed: changed > 0})
		mach := opt.Schedule.Machine
		if len(mach.Caches) == 0 {
			mach = DetectMachine()
		}
		rep.Schedule = &ScheduleReport{Machine: mach.String(), Search: d, Changed: changed}
		if opt.Dump != nil {
			if changed == 0 {
				fmt.Fprintf(opt.Dump, "== schedule (%v): unchanged\n", d.Round(time.Microsecond))
			} else {
				fmt.Fprintf(opt.Dump, "== schedule (%v)\n%s", d.Round(time.Microsecond), g)
			}
		}
	}
	// Fusion may drop dead code; the graph still takes every input of the
	// program, so that callers bind the same inputs either way.
	g.Inputs = before.Inputs
	rep.fill(g, e)
	return &Result{Term: cur, Graph: g, Report: rep}, nil
}

// RuleNames lists the names of the rules Fuse's passes run, in the order
// they first appear in the pipeline: the names Options.Disable (and the
// command line's --disable-rule) accept. The exchange and subdivision rules
// of Rules are not among them: the schedule search applies those, one at a
// time (see the package doc).
func RuleNames() []string {
	var out []string
	for _, p := range pipeline {
		for _, r := range p.rules {
			if !slices.Contains(out, r.Name()) {
				out = append(out, r.Name())
			}
		}
	}
	return out
}

func dump(w io.Writer, name string, d time.Duration, before, after graph.Node) {
	if before == after {
		fmt.Fprintf(w, "== %s (%v): unchanged\n", name, d.Round(time.Microsecond))
		return
	}
	fmt.Fprintf(w, "== %s (%v)\n%s\n", name, d.Round(time.Microsecond), graph.Print(after))
}

// letsToDAG replaces each variable bound by a let to a closed value with the
// value itself, shared: the term becomes a DAG in which the value is one
// node with several users, which kernel formation materialises once. A
// value is closed once the lets it reads are replaced too. A let whose
// variable is unused goes with its value (dead code).
func letsToDAG(term graph.Node) (graph.Node, error) {
	free := graph.FreeVarSets(term)
	// value holds the lets to replace, by variable: a let is replaced when
	// every free variable of its value is bound by a let replaced too.
	lets := map[*graph.Var]*graph.Let{}
	for n := range graph.All(term) {
		if l, ok := n.(*graph.Let); ok {
			lets[l.Var] = l
		}
	}
	value := map[*graph.Var]graph.Node{}
	decided := map[*graph.Var]bool{}
	var replaced func(v *graph.Var) bool
	replaced = func(v *graph.Var) bool {
		l, ok := lets[v]
		if !ok {
			return false // a lambda's parameter
		}
		if !decided[v] {
			decided[v] = true // a value cannot read its own variable
			closed := true
			for _, w := range free[l.Value] {
				closed = closed && replaced(w)
			}
			if closed {
				value[v] = l.Value
			}
		}
		_, ok = value[v]
		return ok
	}
	for v := range lets {
		replaced(v)
	}
	if len(value) == 0 {
		return term, nil
	}
	// The rewriter's memo, keyed by the variable, makes every use of it
	// the same rewritten value.
	return graph.Rewriter{Pre: func(n graph.Node) (graph.Node, bool, error) {
		switch m := n.(type) {
		case *graph.Var:
			if v, ok := value[m]; ok {
				return v, true, nil
			}
		case *graph.Let:
			if _, ok := value[m.Var]; ok {
				return m.Body, true, nil
			}
		}
		return n, true, nil
	}}.Rewrite(term)
}

// fusedCut decides where kernel formation cuts a fused term: at a closed
// computing term that several terms use (materialised once, not recomputed
// — vertical fusion already recomputed the cheap ones), that is the array
// argument of a higher-order function (a producer vertical fusion refused to
// fuse), or that lies inside a lambda (a loop-invariant value, such as a
// batch statistic, which must be finished before the loop that reads it).
func fusedCut(term graph.Node) func(graph.Node) bool {
	uses := map[graph.Node]int{}
	for n := range graph.All(term) {
		for _, k := range graph.Children(n) {
			uses[k]++
		}
	}
	cut := map[graph.Node]bool{}
	seen := map[[2]any]bool{}
	var walk func(n graph.Node, underLambda, hofArg bool)
	walk = func(n graph.Node, underLambda, hofArg bool) {
		key := [2]any{n, [2]bool{underLambda, hofArg}}
		if seen[key] {
			return
		}
		seen[key] = true
		if underLambda || hofArg || uses[n] > 1 {
			cut[n] = true
		}
		switch n := n.(type) {
		case *graph.Lambda:
			walk(n.Body, true, false)
			return
		case *graph.NZip:
			walk(n.Fn, underLambda, false)
			for _, a := range n.Args {
				walk(a, underLambda, true)
			}
			return
		case *graph.RNZ:
			walk(n.Red, underLambda, false)
			walk(n.Fn, underLambda, false)
			for _, a := range n.Args {
				walk(a, underLambda, true)
			}
			return
		case *graph.Section:
			walk(n.Operand, true, false)
			return
		case *graph.Let:
			// A let that survived inlining binds a value used more than
			// once: it is computed once, as a kernel of its own.
			walk(n.Value, underLambda, true)
			walk(n.Body, underLambda, false)
			return
		case graph.ViewNode, *graph.Proj:
			// A view of a producer is read like the producer.
			walk(graph.Children(n)[0], underLambda, hofArg)
			return
		}
		for _, k := range graph.Children(n) {
			walk(k, underLambda, false)
		}
	}
	walk(term, false, false)
	return func(n graph.Node) bool { return cut[n] }
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
