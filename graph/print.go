package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Keywords are the reserved words of the notation; no variable or input may
// be named by one.
var Keywords = map[string]bool{
	"map": true, "zip": true, "nzip": true, "rnz": true, "reduce": true, "lift": true,
	"subdiv": true, "flatten": true, "flip": true, "id": true, "fst": true, "snd": true,
	"proj": true, "let": true, "in": true, "param": true, "input": true,
	"inf": true, "nan": true,
}

// PrintOptions control Print.
type PrintOptions struct {
	// Sources writes source names as @name annotations where they change.
	Sources bool
	// NoShare prints a shared term at each use instead of binding it once
	// with let.
	NoShare bool
}

// Print writes the term n in the paper's notation, for example
//
//	map (\r -> rnz (+) (*) r u) A
//
// Parse reads it back. A non-trivial closed term that n uses more than once
// is bound once with let, unless it reads no input: a term made of
// literals is untyped, each use typed by its context, and a let would make
// it f64, so it is printed at each use. Variables that would print alike get numbered.
func Print(n Node) string { return PrintWith(n, PrintOptions{}) }

// PrintWith is Print with options.
func PrintWith(n Node, opt PrintOptions) string {
	p := &printer{opt: opt, names: map[*Var]string{}, inScope: map[string]int{}}
	for m := range All(n) {
		if in, ok := m.(*Input); ok {
			p.inScope[in.Name]++
		}
	}
	if !opt.NoShare {
		p.shared = sharedTerms(n)
	}
	p.top(n)
	return p.sb.String()
}

// Abbrev prints n and cuts the text to about max bytes, for error messages.
// It stops printing once it has max bytes, so that a term that shares
// subterms, which prints exponentially long without let, costs no more
// than a short one.
func Abbrev(n Node, max int) string {
	p := &printer{opt: PrintOptions{NoShare: true}, names: map[*Var]string{}, inScope: map[string]int{}, stop: max + 1}
	for m := range All(n) {
		if in, ok := m.(*Input); ok {
			p.inScope[in.Name]++
		}
	}
	p.top(n)
	s := p.sb.String()
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// Precedence levels, loosest first.
const (
	precLambda = iota // \x -> e, let
	precCmp           // comparisons
	precAdd           // + -
	precMul           // * /
	precUnary         // -x
	precApp           // f x, map f x
	precAtom          // names, literals, parenthesised terms
)

type printer struct {
	sb      strings.Builder
	opt     PrintOptions
	names   map[*Var]string
	inScope map[string]int // names visible now: inputs and bound variables
	shared  []Node         // closed terms used more than once, in dependency order
	letName map[Node]string
	src     string // the source annotation in force
	stop    int    // stop printing past this many bytes; 0 for never
}

// sharedTerms returns the closed, non-trivial value terms that read an
// input and that n reaches on more than one path, inner ones first.
func sharedTerms(n Node) []Node {
	uses := map[Node]int{}
	var count func(Node)
	count = func(n Node) {
		uses[n]++
		if uses[n] > 1 {
			return
		}
		for _, c := range Children(n) {
			count(c)
		}
	}
	count(n)
	var out []Node
	free := FreeVarSets(n)
	// reads: whether a term reads an input. A closed term that reads none
	// is made of literals, and its type is untyped: each use takes the
	// type of its context, where a let would make it f64 (see "Types" in
	// the package doc). It is printed at each use.
	reads := map[Node]bool{}
	for m := range All(n) {
		_, in := m.(*Input)
		for _, k := range Children(m) {
			in = in || reads[k]
		}
		reads[m] = in
	}
	for m := range All(n) {
		if uses[m] < 2 || m == n || IsFunc(m) || !reads[m] {
			continue
		}
		switch m.(type) {
		case *Input, *Const, *Var, *OpRef, *Ident:
			continue
		}
		if len(free[m]) == 0 {
			out = append(out, m)
		}
	}
	return out
}

func (p *printer) top(n Node) {
	if len(p.shared) > 0 {
		p.letName = map[Node]string{}
		for i, m := range p.shared {
			name := p.fresh("t" + strconv.Itoa(i+1))
			p.sb.WriteString("let " + name + " = ")
			p.expr(m, precLambda, true)
			p.sb.WriteString(" in ")
			p.letName[m] = name
			p.inScope[name]++
		}
	}
	p.expr(n, precLambda, true)
}

// fresh returns base, or base with a number appended, so that it names
// nothing in scope and is not a keyword.
func (p *printer) fresh(base string) string {
	if !isIdent(base) || Keywords[base] {
		base = "v"
	}
	if _, isOp := OpByName(base); isOp {
		base += "_"
	}
	name := base
	for i := 1; p.inScope[name] > 0; i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r == '\'' || r == '.') && i > 0 || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && !(i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

func (p *printer) bind(v *Var) string {
	name := p.fresh(v.Name)
	p.names[v] = name
	p.inScope[name]++
	return name
}

func (p *printer) unbind(v *Var) {
	p.inScope[p.names[v]]--
}

func (p *printer) open(prec, need int) func() {
	if prec < need {
		p.sb.WriteByte('(')
		return func() { p.sb.WriteByte(')') }
	}
	return func() {}
}

// expr prints n in a context that needs precedence at least need; last
// reports whether n ends its context, so that a lambda or let, which extends
// as far right as it can, needs no parentheses there.
func (p *printer) expr(n Node, need int, last bool) {
	if p.stop > 0 && p.sb.Len() >= p.stop {
		return
	}
	if name, ok := p.letName[n]; ok {
		p.sb.WriteString(name)
		return
	}
	if p.opt.Sources {
		if src := n.Source(); src != "" && src != p.src {
			if _, isInput := n.(*Input); !isInput {
				closeParen := p.open(precApp, need)
				p.sb.WriteString("@" + quoteName(src) + " ")
				saved := p.src
				p.src = src
				p.expr(n, precAtom, true)
				p.src = saved
				closeParen()
				return
			}
		}
	}
	switch n := n.(type) {
	case *Input:
		p.sb.WriteString(inputName(n.Name))
	case *Var:
		name, ok := p.names[n]
		if !ok {
			name = n.Name // free: printed as it is
		}
		p.sb.WriteString(name)
	case *Const:
		s := strconv.FormatFloat(n.Value, 'g', -1, 64)
		switch {
		case math.IsInf(n.Value, 1):
			s = "inf"
		case math.IsInf(n.Value, -1):
			s = "-inf"
		case math.IsNaN(n.Value):
			s = "nan"
		}
		if n.Value < 0 || strings.HasPrefix(s, "-") {
			defer p.open(precUnary, need)()
		}
		p.sb.WriteString(s)
	case *Lambda:
		if need > precLambda || !last {
			p.sb.WriteByte('(')
			defer p.sb.WriteByte(')')
		}
		p.sb.WriteByte('\\')
		for i, v := range n.Params {
			if i > 0 {
				p.sb.WriteByte(' ')
			}
			p.sb.WriteString(p.bind(v))
		}
		p.sb.WriteString(" -> ")
		p.expr(n.Body, precLambda, true)
		for _, v := range n.Params {
			p.unbind(v)
		}
	case *Let:
		if need > precLambda || !last {
			p.sb.WriteByte('(')
			defer p.sb.WriteByte(')')
		}
		// The variable is named before the value is printed; fresh keeps the
		// name apart from every name the value may use.
		p.sb.WriteString("let " + p.bind(n.Var) + " = ")
		p.expr(n.Value, precLambda, true)
		p.sb.WriteString(" in ")
		p.expr(n.Body, precLambda, true)
		p.unbind(n.Var)
	case *App:
		defer p.open(precApp, need)()
		p.expr(n.Fn, precAtom, false)
		p.args(n.Args)
	case *Call:
		p.call(n, need, last)
	case *OpRef:
		if sym, _ := n.Op.Infix(); sym != "" {
			p.sb.WriteString("(" + sym + ")")
		} else {
			p.sb.WriteString(n.Op.String())
		}
	case *Section:
		sym, prec := n.Op.Infix()
		p.sb.WriteByte('(')
		if sym == "" {
			// Binary function ops have no section syntax; write the lambda.
			v := p.fresh("x")
			p.inScope[v]++
			if n.Left {
				p.sb.WriteString("\\" + v + " -> " + n.Op.String() + " ")
				p.expr(n.Operand, precAtom, false)
				p.sb.WriteString(" " + v)
			} else {
				p.sb.WriteString("\\" + v + " -> " + n.Op.String() + " " + v + " ")
				p.expr(n.Operand, precAtom, true)
			}
			p.inScope[v]--
		} else if n.Op == Sub && !n.Left {
			// (-e) would read as a negation; write the lambda.
			v := p.fresh("x")
			p.inScope[v]++
			p.sb.WriteString("\\" + v + " -> " + v + " - ")
			p.expr(n.Operand, precMul, true)
			p.inScope[v]--
		} else if n.Left {
			p.expr(n.Operand, prec+1, false)
			p.sb.WriteString(sym)
		} else {
			p.sb.WriteString(sym)
			p.expr(n.Operand, prec+1, true)
		}
		p.sb.WriteByte(')')
	case *Ident:
		p.sb.WriteString("id")
	case *NZip:
		defer p.open(precApp, need)()
		k, ok := FuncArity(n.Fn)
		if !ok {
			k = len(n.Args)
		}
		switch {
		case k == 1 && len(n.Args) <= 1:
			p.sb.WriteString("map")
		case k == 2 && len(n.Args) <= 2:
			p.sb.WriteString("zip")
		default:
			p.sb.WriteString("nzip")
		}
		p.args(append([]Node{n.Fn}, n.Args...))
	case *RNZ:
		defer p.open(precApp, need)()
		if _, isID := n.Fn.(*Ident); isID && len(n.Args) == 1 {
			p.sb.WriteString("reduce")
			p.args([]Node{n.Red, n.Args[0]})
			break
		}
		p.sb.WriteString("rnz")
		p.args(append([]Node{n.Red, n.Fn}, n.Args...))
	case ViewNode:
		defer p.open(precApp, need)()
		p.sb.WriteString(ViewString(n.View()))
		p.args([]Node{n.Operand()})
	case *Tuple:
		p.sb.WriteByte('(')
		for i, e := range n.Elems {
			if i > 0 {
				p.sb.WriteString(", ")
			}
			p.expr(e, precLambda, true)
		}
		p.sb.WriteByte(')')
	case *Proj:
		defer p.open(precApp, need)()
		switch n.Index {
		case 0:
			p.sb.WriteString("fst")
		case 1:
			p.sb.WriteString("snd")
		default:
			fmt.Fprintf(&p.sb, "proj %d", n.Index)
		}
		p.args([]Node{n.X})
	default:
		fmt.Fprintf(&p.sb, "<%T>", n)
	}
}

// args prints application arguments, each as an atom; a lambda in the last
// position needs no parentheses in Haskell, but the notation keeps them, as
// the paper does.
func (p *printer) args(args []Node) {
	for _, a := range args {
		p.sb.WriteByte(' ')
		p.expr(a, precAtom, false)
	}
}

func (p *printer) call(n *Call, need int, last bool) {
	if sym, prec := n.Op.Infix(); sym != "" {
		level := precCmp
		switch prec {
		case 4:
			level = precAdd
		case 5:
			level = precMul
		}
		defer p.open(level, need)()
		// Arithmetic associates to the left; comparisons do not associate.
		right := level + 1
		left := level
		if level == precCmp {
			left = level + 1
		}
		p.expr(n.Args[0], left, false)
		p.sb.WriteString(" " + sym + " ")
		p.expr(n.Args[1], right, last || need <= level)
		return
	}
	if n.Op == Neg {
		defer p.open(precUnary, need)()
		p.sb.WriteByte('-')
		// -x needs an application or atom after it; --x would read as two
		// minus signs anyway, so nested negations get parentheses.
		p.expr(n.Args[0], precApp, last)
		return
	}
	defer p.open(precApp, need)()
	p.sb.WriteString(n.Op.String())
	p.args(n.Args)
}

// inputName writes an input's name as the parser reads it: as it is when it
// is an identifier the notation does not reserve, quoted otherwise (names
// of imported nodes such as "dense/kernel:0").
func inputName(s string) string {
	if _, isOp := OpByName(s); isIdent(s) && !Keywords[s] && !isOp {
		return s
	}
	return strconv.Quote(s)
}

func quoteName(s string) string {
	if isIdent(s) && !Keywords[s] {
		return s
	}
	return strconv.Quote(s)
}

// formatValues writes an array's elements, nested by axis, eliding the
// middle of long axes.
func formatValues(a *Array) string {
	var sb strings.Builder
	idx := make([]int, a.Rank())
	var rec func(d int)
	rec = func(d int) {
		if d == a.Rank() {
			if x := a.At(idx...); a.dtype == Int32 || a.dtype == Bool {
				sb.WriteString(strconv.FormatFloat(x, 'f', -1, 64)) // -2147483648, not -2.147483648e+09
			} else {
				fmt.Fprint(&sb, x)
			}
			return
		}
		sb.WriteByte('[')
		n := a.layout[d].Extent
		for i := 0; i < n; i++ {
			if n > 8 && i == 3 {
				sb.WriteString(" …")
				i = n - 3
			}
			if i > 0 {
				sb.WriteByte(' ')
			}
			idx[d] = i
			rec(d + 1)
		}
		sb.WriteByte(']')
	}
	rec(0)
	return sb.String()
}
