package fusion

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// engine applies a set of rules to a term until none applies.
//
// Termination: the rules an engine runs together must decrease a
// well-founded measure; the package doc gives one for each pass and for
// the schedule search's view engine. The exchange and subdivision rules are
// not normalising (map-map is its own inverse) and never run in an engine:
// the schedule search applies them one at a time. maxSteps guards the
// promise: an engine that exceeds it reports a rule loop, naming the rules
// it applied last, instead of running forever.
type engine struct {
	rules     []Rule
	maxSteps  int
	applied   map[string]int      // rule name -> applications
	sources   map[string][]string // rule name -> sources of the terms it rewrote
	refused   []*Refusal
	last      string   // the rule applied last
	recent    []string // the rules applied in the last steps, for the loop error
	checkEach bool     // check each rewritten term and refuse rewrites that break it
	// repair, in checkEach mode, may mend a rewritten term that does not
	// type-check (by inserting an explicit copy) before the rewrite is
	// refused.
	repair  func(graph.Node) (graph.Node, error)
	seenRef map[string]bool
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
	lastRule := "the input"
	for step := 0; ; step++ {
		if step > e.maxSteps {
			return nil, e.loopError()
		}
		c, err := newContext(term)
		if err != nil {
			return nil, fmt.Errorf("fusion: %s produced an ill-typed term (a bug): %w", lastRule, err)
		}
		redexes, err := e.findRedexes(c, term, normal)
		if err != nil {
			return nil, err
		}
		if len(redexes) == 0 {
			return term, nil
		}
		lastRule = e.last
		if e.checkEach {
			// One rewrite at a time, each checked in its context.
			old, repl := redexes[0].old, redexes[0].repl
			next, err := replace(term, map[graph.Node]graph.Node{old: repl})
			if err != nil {
				return nil, err
			}
			_, cerr := graph.Check(next)
			if cerr != nil && e.repair != nil {
				// A flatten above needs the strides the term had: let the
				// engine's owner copy there, if it knows how.
				if fixed, ferr := e.repair(next); ferr == nil {
					if _, err := graph.Check(fixed); err == nil {
						next, cerr = fixed, nil
					}
				}
			}
			if cerr != nil {
				// The rewrite is sound as an equation, but its result breaks
				// a side condition elsewhere (a flatten that needs the strides
				// the term had): refuse it there.
				e.applied[redexes[0].rule]--
				e.noteRefusal(&Refusal{Rule: redexes[0].rule, Node: old, Reason: "the result would not type-check: " + cerr.Error()})
				normal[old] = true
				continue
			}
			term = next
			continue
		}
		sub := make(map[graph.Node]graph.Node, len(redexes))
		for _, r := range redexes {
			sub[r.old] = r.repl
		}
		if term, err = replace(term, sub); err != nil {
			return nil, err
		}
	}
}

type redex struct {
	old, repl graph.Node
	rule      string
}

// findRedexes finds, children before parents, the nodes at which some rule
// applies. A node whose child was rewritten in this sweep waits for the
// next: its rules' side conditions look at its children, and must see the
// new ones. Deeper rewrites do not hold a node back, which keeps the
// number of sweeps small on long chains of layers (waiting for every
// rewritten descendant makes fusing a 20-block training MLP ten times
// slower). Every rewrite is an equation, so a result stays equal when the
// old subterms in it are replaced by their rewrites too, which replace
// does where the result still holds them; where the outer rule rebuilt
// them (a substitution, say), the inner rewrite is found again in the
// next sweep. Either way each applied rewrite is an instance of its rule,
// which is all the termination measures ask. Nodes at which no rule
// matched are remembered as normal. In checkEach mode it stops at the
// first.
func (e *engine) findRedexes(c *Context, term graph.Node, normal map[graph.Node]bool) ([]redex, error) {
	var out []redex
	rewritten := map[graph.Node]bool{}
	for n := range graph.All(term) {
		if normal[n] {
			continue
		}
		waits := false
		for _, k := range graph.Children(n) {
			waits = waits || rewritten[k]
		}
		if waits {
			continue
		}
		repl, rule, matched, err := e.tryRules(c, n)
		if err != nil {
			return nil, err
		}
		if repl != nil {
			out = append(out, redex{n, repl, rule})
			rewritten[n] = true
			if e.checkEach {
				return out, nil
			}
			continue
		}
		if !matched {
			normal[n] = true
		}
	}
	return out, nil
}

// tryRules tries every rule at n and returns the first rewrite, or reports
// whether some rule matched but refused.
func (e *engine) tryRules(c *Context, n graph.Node) (repl graph.Node, rule string, matched bool, err error) {
	inReducer := c.InReducer(n)
	for _, r := range e.rules {
		if inReducer && !reducerRules[r.Name()] {
			continue
		}
		out, err := r.Rewrite(c, n)
		var ref *Refusal
		switch {
		case err == nil:
			e.last = r.Name()
			e.recent = append(e.recent, r.Name())
			if len(e.recent) > 16 {
				e.recent = e.recent[len(e.recent)-16:]
			}
			e.applied[r.Name()]++
			if src := n.Source(); src != "" {
				e.sources[r.Name()] = appendNew(e.sources[r.Name()], src)
			}
			return out, r.Name(), true, nil
		case errors.Is(err, ErrNoMatch):
		case errors.As(err, &ref):
			matched = true
			e.noteRefusal(ref)
		default:
			return nil, "", false, fmt.Errorf("fusion: rule %s at %s: %w", r.Name(), graph.Abbrev(n, 60), err)
		}
	}
	return nil, "", matched, nil
}

// loopError is the error of an engine that reached maxSteps: it names the
// rules applied in the last steps, among which are the ones that undo each
// other.
func (e *engine) loopError() error {
	names := slices.Clone(e.recent)
	slices.Sort(names)
	names = slices.Compact(names)
	return fmt.Errorf("fusion: %w after %d steps; the last steps applied %s: one undoes what another does (report the program; Options.Disable, or --disable-rule, switches a rule off)",
		ErrRuleLoop, e.maxSteps, strings.Join(names, ", "))
}

// noteRefusal records a refusal once per rule, source and reason: the same
// refusal recurs as the term around it changes.
func (e *engine) noteRefusal(ref *Refusal) {
	key := ref.Rule + "\x00" + ref.Node.Source() + "\x00" + ref.Reason
	if !e.seenRef[key] {
		e.seenRef[key] = true
		e.refused = append(e.refused, ref)
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// replace returns term with every occurrence of each key of sub replaced
// by its value, keeping the DAG's sharing. The replacements are rewritten
// too, so a replacement that contains another key gets its replacement; a
// key inside its own replacement stays (graph.Rewriter's Pre).
func replace(term graph.Node, sub map[graph.Node]graph.Node) (graph.Node, error) {
	return graph.Rewriter{Pre: func(n graph.Node) (graph.Node, bool, error) {
		if r, ok := sub[n]; ok {
			return r, true, nil
		}
		return n, true, nil
	}}.Rewrite(term)
}
