package fusion

import (
	"errors"
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// engine applies a set of rules to a term until none applies.
//
// Termination: the rules an engine runs together must each shrink the term
// by a well-founded measure. β, inline-let and η remove an application, a
// let or a lambda; nzip-nzip and rnz-nzip remove one higher-order function
// (two nests become one); product and fan-out remove a tuple element or an
// argument. None of them creates the redex of another in reverse, so the
// sequence is finite. The exchange and subdivision rules are not normalising
// (map-map is its own inverse) and never run in an engine: the schedule
// search applies them one at a time. maxSteps guards the promise: an engine
// that exceeds it reports a rule loop instead of running forever.
type engine struct {
	rules    []Rule
	maxSteps int
	applied  map[string]int      // rule name -> applications
	sources  map[string][]string // rule name -> sources of the terms it rewrote
	refused  []*Refusal
	seenRef  map[string]bool
}

func newEngine(rules []Rule) *engine {
	return &engine{rules: rules, maxSteps: 100000, applied: map[string]int{}, sources: map[string][]string{}, seenRef: map[string]bool{}}
}

// ErrRuleLoop reports that an engine did not reach a normal form.
var ErrRuleLoop = errors.New("rules did not terminate")

// run rewrites term to normal form. Each step finds the first node, children
// before parents, at which some rule applies, replaces it everywhere it
// occurs (keeping the DAG's sharing), and starts again on the new term with
// fresh types and use counts. Nodes at which no rule matched are remembered:
// nodes are immutable, so they stay in normal form.
func (e *engine) run(term graph.Node) (graph.Node, error) {
	normal := map[graph.Node]bool{}
	for step := 0; ; step++ {
		if step > e.maxSteps {
			return nil, fmt.Errorf("fusion: %w after %d steps", ErrRuleLoop, e.maxSteps)
		}
		c, err := newContext(term)
		if err != nil {
			return nil, fmt.Errorf("fusion: rewriting produced an ill-typed term (a bug): %w", err)
		}
		old, repl, err := e.findRedex(c, term, normal)
		if err != nil {
			return nil, err
		}
		if old == nil {
			return term, nil
		}
		if term, err = replace(term, old, repl); err != nil {
			return nil, err
		}
	}
}

func (e *engine) findRedex(c *Context, term graph.Node, normal map[graph.Node]bool) (old, repl graph.Node, err error) {
	for n := range graph.All(term) {
		if normal[n] {
			continue
		}
		matched := false
		for _, r := range e.rules {
			out, err := r.Rewrite(c, n)
			var ref *Refusal
			switch {
			case err == nil:
				e.applied[r.Name()]++
				if src := n.Source(); src != "" {
					e.sources[r.Name()] = appendNew(e.sources[r.Name()], src)
				}
				return n, out, nil
			case errors.Is(err, ErrNoMatch):
				continue
			case errors.As(err, &ref):
				matched = true
				// One refusal per rule, source and reason: the same refusal
				// recurs as the term around it changes.
				key := ref.Rule + "\x00" + ref.Node.Source() + "\x00" + ref.Reason
				if !e.seenRef[key] {
					e.seenRef[key] = true
					e.refused = append(e.refused, ref)
				}
			default:
				return nil, nil, fmt.Errorf("fusion: rule %s at %s: %w", r.Name(), graph.Abbrev(n, 60), err)
			}
		}
		if !matched {
			normal[n] = true
		}
	}
	return nil, nil, nil
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// replace returns term with every occurrence of old replaced by repl.
func replace(term, old, repl graph.Node) (graph.Node, error) {
	memo := map[graph.Node]graph.Node{}
	var rw func(graph.Node) (graph.Node, error)
	rw = func(n graph.Node) (graph.Node, error) {
		if n == old {
			return repl, nil
		}
		if r, ok := memo[n]; ok {
			return r, nil
		}
		kids := graph.Children(n)
		for i, k := range kids {
			r, err := rw(k)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		r, err := graph.WithChildren(n, kids)
		if err != nil {
			return nil, err
		}
		memo[n] = r
		return r, nil
	}
	return rw(term)
}
