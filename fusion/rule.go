package fusion

import (
	"errors"
	"fmt"

	"github.com/hofuse/hofuse/graph"
)

// A Rule is one rewrite law of the paper. Its doc comment states the law and
// its side conditions. The engine calls Rewrite on every node; a rule that
// does not match returns ErrNoMatch, one whose side condition fails returns a
// *Refusal saying why, and one that applies returns the rewritten node,
// which must evaluate (graph.Eval) to the same value as n, up to the
// reassociation of floating-point reductions.
type Rule interface {
	// Name is the rule's stable, kebab-case name (nzip-nzip, map-rnz, ...),
	// as reports and --disable-rule use it.
	Name() string
	// Rewrite applies the rule at n, whose children have already been
	// rewritten.
	Rewrite(c *Context, n graph.Node) (graph.Node, error)
}

// ErrNoMatch is returned by a rule that does not apply to the node's shape.
var ErrNoMatch = errors.New("no match")

// A Refusal is a rule that matched but whose side condition failed.
type Refusal struct {
	Rule   string     // the rule's name
	Node   graph.Node // the term it refused to rewrite
	Reason string     // why, in words a report can print
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s refused at %s: %s", r.Rule, graph.Abbrev(r.Node, 50), r.Reason)
}

func refuse(rule Rule, n graph.Node, format string, args ...any) error {
	return &Refusal{Rule: rule.Name(), Node: n, Reason: fmt.Sprintf(format, args...)}
}

// Context is what rules may consult about the term being rewritten: the
// types of its subterms and how often each is used.
type Context struct {
	info *graph.Info
	// uses counts, for the nodes of the term at the start of the current
	// sweep and the nodes they were rewritten into, the parents using them.
	uses map[graph.Node]int
	// reducer holds the nodes inside the reduction operator of some rnz.
	reducer map[graph.Node]bool
	// fv caches the free variables of the nodes rules ask about in this
	// sweep; made when first asked.
	fv *graph.FreeVarCache
}

// freeVars returns the context's free-variable cache, making one if the
// context has none; nil (no cache: walk everything) for a nil context.
func (c *Context) freeVars() *graph.FreeVarCache {
	if c == nil {
		return nil
	}
	if c.fv == nil {
		c.fv = &graph.FreeVarCache{}
	}
	return c.fv
}

// occurrences is occurrences(n, v) with the context's free-variable cache:
// the subterms in which v is not free are skipped, not walked.
func (c *Context) occurrences(n graph.Node, v *graph.Var) (count int, underLambda bool) {
	return occurrencesIn(c.freeVars(), n, v)
}

// newContext checks term and counts its uses.
func newContext(term graph.Node) (*Context, error) {
	info, err := graph.Check(term)
	if err != nil {
		return nil, err
	}
	c := &Context{info: info, uses: map[graph.Node]int{}, reducer: map[graph.Node]bool{}}
	for n := range graph.All(term) {
		for _, k := range graph.Children(n) {
			c.uses[k]++
		}
		if z, ok := n.(*graph.RNZ); ok && !c.reducer[z.Red] {
			graph.Inspect(z.Red, func(m graph.Node) bool {
				if c.reducer[m] {
					return false
				}
				c.reducer[m] = true
				return true
			})
		}
	}
	return c, nil
}

// InReducer reports whether n lies inside the reduction operator of an rnz
// (see reducerRules).
func (c *Context) InReducer(n graph.Node) bool { return c != nil && c.reducer[n] }

// reducerRules are the rules the engine applies inside the reduction
// operator of an rnz: the λ-calculus housekeeping, which brings an
// operator to the shapes the back ends recognise — an op, a lifted op
// (zip (+)), a lambda applying one op to its two parameters, or a tuple of
// those applied componentwise. The fusion rules stay out: product, for one,
// would merge the components of a tuple operator into one nzip returning a
// tuple, an operator no back end can lower as a reduction body.
var reducerRules = map[string]bool{"beta": true, "inline-let": true, "eta": true}

// TypeOf returns the type of the value term n, if the last check recorded
// one.
func (c *Context) TypeOf(n graph.Node) graph.Type {
	if c == nil || c.info == nil {
		return nil
	}
	return c.info.TypeOf(n)
}

// Closed reports whether n, a node of the term, has no free variables.
func (c *Context) Closed(n graph.Node) bool {
	if c == nil || c.info == nil {
		return len(graph.FreeVars(n)) == 0
	}
	if closed, ok := c.info.Closed[n]; ok {
		return closed
	}
	return len(graph.FreeVars(n)) == 0
}

// Uses returns how many terms use n (at least 1 for a node in the term).
func (c *Context) Uses(n graph.Node) int {
	if c == nil {
		return 1
	}
	if u := c.uses[n]; u > 0 {
		return u
	}
	return 1
}

// Rules returns every rule of the package: first those Fuse's passes run
// (RuleNames), then the exchange and subdivision rules the schedule search
// applies (Search).
func Rules() []Rule {
	return []Rule{
		Beta{}, InlineLet{}, SplitLet{}, FloatLet{}, Eta{}, FlipFlip{}, FlipNZip{}, WindowFlip{}, FlattenMap{},
		SameArg{}, NZipNZip{}, RNZNZip{},
		DeadArg{}, DropCopy{}, Contract{},
		Product{}, FanOut{},
		MapMap{}, MapRNZ{}, RNZMap{}, RNZRNZ{}, HoistView{},
		SubdivMap{}, SubdivRNZ{}, WindowSubdiv{},
	}
}

// RuleByName returns the rule called name.
func RuleByName(name string) (Rule, bool) {
	for _, r := range Rules() {
		if r.Name() == name {
			return r, true
		}
	}
	return nil, false
}
