package graph

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads the notation that Print writes:
//
//	program := { decl ";" } term
//	decl    := ["param" | "input"] IDENT ":" type
//	type    := DTYPE | DTYPE "[" INT {"," INT} "]"
//	         | DTYPE "<" "(" INT "," INT ")" {"," "(" INT "," INT ")"} ">"
//	term    := "\" IDENT {IDENT} "->" term | "let" IDENT "=" term "in" term | cmp
//	cmp     := add [ ("<"|"<="|">"|">="|"=="|"!=") add ]
//	add     := mul { ("+"|"-") mul }
//	mul     := unary { ("*"|"/") unary }
//	unary   := "-" unary | app
//	app     := "@" (IDENT|STRING) atom | KEYWORD args | OPNAME {atom} | atom {atom}
//	atom    := NUMBER | IDENT | "(" term ")" | "(" term "," term {"," term} ")"
//	         | "(" OP ")" | "(" OP unary ")" | "(" unary OP ")"
//
// The parser is a recursive descent over a token slice. Errors abandon the
// parse through a bailout panic that Parse recovers; nothing else panics.

// Pos is a position in source text: a 1-based line and a 1-based column,
// counted in characters.
type Pos struct{ Line, Col int }

// String writes the position as line:column, for example "3:14".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// ParseError is a syntax or name-resolution error in the notation: where it
// is and what was expected or found there.
type ParseError struct {
	Pos Pos    // where the offending token or term starts
	Msg string // what is wrong, for example `unexpected ")" (no matching "(")`
}

// Error writes the error as line:column: message.
func (e *ParseError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Program is a parsed source: the inputs it declares and the term.
type Program struct {
	// Inputs are the inputs the source declares, in declaration order,
	// followed by the inputs given to Parse that the term uses, in order of
	// first use.
	Inputs []*Input
	// Body is the term.
	Body Node
	pos  map[Node]Pos // start position of every node the parser built
}

// Pos returns where the term n starts in the source: for a node the parser
// built, its first character; for a variable, its binder; for a declared
// input, its declaration; for an input given to Parse, its first use.
func (p *Program) Pos(n Node) (Pos, bool) {
	pos, ok := p.pos[n]
	return pos, ok
}

// String writes the program so that Parse reads it back: a declaration for
// every input, then the term, as in
//
//	A : f64[4,3]; u : f64[3]; map (\r -> rnz (+) (*) r u) A
func (p *Program) String() string {
	var sb strings.Builder
	for _, in := range p.Inputs {
		if in.Param {
			sb.WriteString("param ")
		}
		fmt.Fprintf(&sb, "%s : %v; ", inputName(in.Name), in.Type)
	}
	sb.WriteString(Print(p.Body))
	return sb.String()
}

// Parse reads a program in the notation Print writes: zero or more input
// declarations, each ended by ';', then one term, for example
//
//	A : f64[4,3]; param u : f64[3];
//	map (\r -> rnz (+) (*) r u) A
//
// A declaration starting with "param" declares a trained parameter; "input"
// (the default) a data input. A type is an element type (f32, f64, bool,
// i32) alone for a scalar, with row-major extents (f64[4,3]), or with an
// explicit layout of (extent, stride) pairs, axis 0 first (f64<(4,1),(3,4)>).
//
// Terms, loosest first: a lambda \x y -> e or a let x = e in e, each
// extending as far right as it can; a comparison (< <= > >= == !=, which do
// not chain); + and -, then * and /, both left associative; a negation -e (a
// minus before a number literal is part of the literal); an application:
//
//   - map f x, zip f x y, nzip f x1 ... xn, lift f, rnz r f x1 ... xn,
//     reduce r x, subdiv d b x, flatten d x, flip d1 [d2] x, fst x, snd x,
//     proj i x, with integer literals for axes, blocks and indices. Given
//     fewer arrays than f takes, map, zip and nzip are partial (zip (+));
//     lift f is nzip f with none. reduce r without an array is the function
//     \x -> reduce r x (map (reduce (+)) A sums each row of A).
//   - a scalar op by name with all its operands, as in exp x or max a b;
//     the name alone is the op as a function, as in rnz max id x.
//   - @name e or @"any name" e: the atom e and every term in it, up to
//     another annotation, carry the source name.
//   - any other atom applied to atoms, as in f a b or (\x -> x) 2.
//
// Atoms are numbers (2, 0.5, 1e-05), names, id, parenthesised terms, tuples
// (a, b), op references ((+), (<)) and sections of infix ops: (*e) is
// \x -> x * e and (e*) is \x -> e * x; (-e) is a negation, not a section.
//
// A name starts with a letter or underscore and goes on with letters,
// digits, underscores, apostrophes and dots (u', dense.kernel). It resolves
// to the innermost lambda or let that binds it, then to a declared input,
// then to one of inputs; keywords and scalar op names cannot be bound or
// declared. Comments run from "--" to the end of the line.
//
// Parse returns a *ParseError, which gives the line and column, for a
// malformed source or an undefined name; it never panics. Whether the term
// is well typed is Check's business.
func Parse(src string, inputs ...*Input) (prog *Program, err error) {
	p := newParser(src, inputs)
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			prog, err = nil, b.err
		}
	}()
	return p.program(), nil
}

// ParseTerm is Parse for a source that is just a term; it returns the term.
// Free names resolve to inputs (and to any inputs the source declares).
func ParseTerm(src string, inputs ...*Input) (Node, error) {
	prog, err := Parse(src, inputs...)
	if err != nil {
		return nil, err
	}
	return prog.Body, nil
}

// MustParseTerm is ParseTerm that panics on error, for tests and examples.
func MustParseTerm(src string, inputs ...*Input) Node {
	n, err := ParseTerm(src, inputs...)
	if err != nil {
		panic(err)
	}
	return n
}

// Limits that keep hostile input from exhausting the stack or overflowing
// sizes.
const (
	// maxParseDepth caps the nesting of parentheses, lambdas and
	// negations, the parser's own recursion. The printer writes at most
	// three such levels for each level of a term (-(-(x)) is a negation,
	// a parenthesis and a term each), so every term within MaxDepth
	// prints as text within it; at the cap the parser's stack stays under
	// 64 MB, a sixteenth of Go's default maximum.
	maxParseDepth = 4 * MaxDepth
)

// ---- Lexer ----

type tokKind uint8

const (
	tEOF    tokKind = iota
	tError          // a lexical error; text is the message
	tIdent          // names and keywords
	tNumber         // decimal literal as written
	tString         // a quoted string, unquoted in text
	tOp             // + - * / < <= > >= == !=
	tPunct          // ( ) [ ] , ; : = \ -> @
)

type token struct {
	kind tokKind
	text string
	pos  Pos
}

// describe names the token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return strconv.Quote(strconv.Quote(t.text))
	}
	return strconv.Quote(t.text)
}

func isLetter(r rune) bool { return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
func isDigit(r rune) bool  { return '0' <= r && r <= '9' }

// isNameRune reports whether r can continue a name: a letter, a digit, an
// underscore, an apostrophe or a dot, as in u', x_1 or dense.kernel.
func isNameRune(r rune) bool { return isLetter(r) || isDigit(r) || r == '\'' || r == '.' }

// lex splits src into tokens. The last token is tEOF, or tError at the first
// lexical error.
func lex(src string) []token {
	var toks []token
	line, col := 1, 1
	i := 0
	peekAt := func(k int) rune { // the rune k bytes ahead (ASCII lookahead only)
		if i+k < len(src) {
			return rune(src[i+k])
		}
		return 0
	}
	advance := func(n int) { // consume n bytes, tracking line and column
		for _, r := range src[i : i+n] {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		i += n
	}
	for {
		// Whitespace and comments.
		for i < len(src) {
			c := src[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				advance(1)
				continue
			}
			if c == '-' && peekAt(1) == '-' {
				j := strings.IndexByte(src[i:], '\n')
				if j < 0 {
					j = len(src) - i
				}
				advance(j)
				continue
			}
			break
		}
		pos := Pos{line, col}
		if i >= len(src) {
			return append(toks, token{kind: tEOF, pos: pos})
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case isLetter(r):
			// A name has the characters the printer's isIdent accepts.
			j := i + 1
			for j < len(src) && isNameRune(rune(src[j])) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: src[i:j], pos: pos})
			advance(j - i)
		case isDigit(r):
			j, ok := scanNumber(src, i)
			if !ok {
				return append(toks, token{kind: tError, text: fmt.Sprintf("invalid number %q", src[i:j]), pos: pos})
			}
			toks = append(toks, token{kind: tNumber, text: src[i:j], pos: pos})
			advance(j - i)
		case r == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return append(toks, token{kind: tError, text: "unterminated string", pos: pos})
			}
			s, err := strconv.Unquote(src[i : j+1])
			if err != nil {
				return append(toks, token{kind: tError, text: fmt.Sprintf("invalid string literal %s", src[i:j+1]), pos: pos})
			}
			toks = append(toks, token{kind: tString, text: s, pos: pos})
			advance(j + 1 - i)
		default:
			two := src[i:min(i+2, len(src))]
			switch two {
			case "->":
				toks = append(toks, token{kind: tPunct, text: two, pos: pos})
				advance(2)
				continue
			case "<=", ">=", "==", "!=":
				toks = append(toks, token{kind: tOp, text: two, pos: pos})
				advance(2)
				continue
			}
			switch r {
			case '+', '-', '*', '/', '<', '>':
				toks = append(toks, token{kind: tOp, text: string(r), pos: pos})
			case '(', ')', '[', ']', ',', ';', ':', '=', '\\', '@':
				toks = append(toks, token{kind: tPunct, text: string(r), pos: pos})
			default:
				return append(toks, token{kind: tError, text: fmt.Sprintf("unexpected character %q", string(r)), pos: pos})
			}
			advance(size)
		}
	}
}

// scanNumber scans a decimal literal starting at src[i]: digits, an optional
// fraction and an optional exponent. It returns the end of the literal and
// whether it is well formed; a malformed literal extends over the letters,
// digits and dots that follow, so the error can quote it.
func scanNumber(src string, i int) (int, bool) {
	j := i
	digits := func() int {
		k := j
		for j < len(src) && isDigit(rune(src[j])) {
			j++
		}
		return j - k
	}
	ok := true
	digits()
	if j < len(src) && src[j] == '.' {
		j++
		ok = digits() > 0
	}
	if ok && j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		ok = digits() > 0
	}
	if j < len(src) && (isLetter(rune(src[j])) || src[j] == '.' || src[j] == '\'') {
		ok = false
	}
	if !ok {
		for j < len(src) && (isLetter(rune(src[j])) || isDigit(rune(src[j])) || src[j] == '.' || src[j] == '\'') {
			j++
		}
	}
	return j, ok
}

// ---- Parser ----

type bailout struct{ err *ParseError }

type binding struct {
	name string
	v    *Var
}

type parser struct {
	toks     []token
	i        int
	prog     *Program
	scope    []binding         // bound variables, innermost last
	declared map[string]*Input // inputs declared in the source
	given    map[string]*Input // inputs given to Parse
	used     map[*Input]bool   // given inputs the term uses
	src      string            // the source annotation in force
	depth    int
}

func newParser(src string, inputs []*Input) *parser {
	p := &parser{
		toks:     lex(src),
		prog:     &Program{pos: map[Node]Pos{}},
		declared: map[string]*Input{},
		given:    map[string]*Input{},
		used:     map[*Input]bool{},
	}
	for _, in := range inputs {
		if in == nil {
			continue
		}
		if _, dup := p.given[in.Name]; !dup {
			p.given[in.Name] = in
		}
	}
	return p
}

func (p *parser) failf(pos Pos, format string, args ...any) {
	panic(bailout{&ParseError{Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

// expected reports that what was expected where t is. A lexical error token
// reports its own message instead.
func (p *parser) expected(t token, what string) {
	if t.kind == tError {
		p.failf(t.pos, "%s", t.text)
	}
	p.failf(t.pos, "expected %s, found %s", what, t.describe())
}

func (p *parser) peek() token { return p.peekAt(0) }

// peekAt returns the token k ahead; past the end it returns the final
// tEOF or tError token.
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (t token) is(kind tokKind, text string) bool { return t.kind == kind && t.text == text }

func (t token) punct(text string) bool { return t.is(tPunct, text) }

func (t token) keyword(text string) bool { return t.is(tIdent, text) }

// expect consumes the punctuation text or fails saying what it was expected
// for.
func (p *parser) expect(text, context string) token {
	t := p.peek()
	if !t.punct(text) {
		p.expected(t, strconv.Quote(text)+" "+context)
	}
	return p.next()
}

func (p *parser) enter(pos Pos) {
	p.depth++
	if p.depth > maxParseDepth {
		p.failf(pos, "expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// builder finishes nodes that start at pos.
type builder struct {
	p   *parser
	pos Pos
}

func (p *parser) at(pos Pos) builder { return builder{p, pos} }

// node finishes a node made by a constructor: a constructor error becomes a
// ParseError at the builder's position, the source annotation in force is
// attached, and the position is recorded.
func (b builder) node(n Node, err error) Node {
	if de := (*DepthError)(nil); errors.As(err, &de) {
		// Point at the end of the operand that made the term too deep: the
		// node starts at b.pos, which for a long chain is far away.
		b.p.failf(b.p.toks[max(b.p.i-1, 0)].pos,
			"the expression nests deeper than %d levels (graph.MaxDepth); split it with let", MaxDepth)
	}
	if err != nil {
		b.p.failf(b.pos, "%v", err)
	}
	if b.p.src != "" {
		n = WithSource(n, b.p.src)
	}
	b.p.record(n, b.pos)
	return n
}

func (p *parser) record(n Node, pos Pos) {
	if _, ok := p.prog.pos[n]; !ok {
		p.prog.pos[n] = pos
	}
}

func (p *parser) program() *Program {
	var decls []*Input
	declPos := map[string]Pos{}
	for p.declStart() {
		in, pos := p.decl(declPos)
		decls = append(decls, in)
		p.declared[in.Name] = in
		declPos[in.Name] = pos
		p.record(in, pos)
	}
	if t := p.peek(); t.kind == tEOF {
		if len(decls) == 0 {
			p.failf(t.pos, "empty input: expected a term")
		}
		p.failf(t.pos, "unexpected end of input: expected a term after the declarations")
	}
	body, _ := p.term()
	if t := p.peek(); t.kind != tEOF {
		switch {
		case t.kind == tError:
			p.failf(t.pos, "%s", t.text)
		case t.punct(")"):
			p.failf(t.pos, `unexpected ")" (no matching "(")`)
		case t.kind == tOp:
			p.expected(p.peekAt(1), "an operand after "+t.describe())
		default:
			p.failf(t.pos, "unexpected %s after the term", t.describe())
		}
	}
	p.prog.Body = body
	p.prog.Inputs = decls
	for m := range All(body) {
		if in, ok := m.(*Input); ok && p.used[in] {
			p.prog.Inputs = append(p.prog.Inputs, in)
		}
	}
	return p.prog
}

func (p *parser) declStart() bool {
	t := p.peek()
	if t.kind == tString {
		return p.peekAt(1).punct(":")
	}
	if t.kind != tIdent {
		return false
	}
	return t.text == "param" || t.text == "input" || p.peekAt(1).punct(":")
}

// checkName rejects a name that the notation reserves: keywords and scalar
// op names. what is "bind" or "declare".
func (p *parser) checkName(t token, what string) {
	if Keywords[t.text] {
		p.failf(t.pos, "cannot %s %s: it is a keyword", what, t.text)
	}
	if _, isOp := OpByName(t.text); isOp {
		p.failf(t.pos, "cannot %s %s: it names a scalar op", what, t.text)
	}
}

func (p *parser) decl(declPos map[string]Pos) (*Input, Pos) {
	param := false
	if t := p.peek(); (t.text == "param" || t.text == "input") && !p.peekAt(1).punct(":") {
		p.next()
		param = t.text == "param"
		if k := p.peek().kind; k != tIdent && k != tString {
			p.expected(p.peek(), "a name after "+strconv.Quote(t.text))
		}
	}
	name := p.next()
	if name.kind == tString {
		if name.text == "" {
			p.failf(name.pos, "empty input name")
		}
	} else {
		p.checkName(name, "declare")
	}
	if first, dup := declPos[name.text]; dup {
		p.failf(name.pos, "%s is declared twice (first at %v)", name.text, first)
	}
	p.expect(":", "after "+name.text)
	typ := p.typ(name.text)
	in, err := NewInput(name.text, typ, param)
	if err != nil {
		p.failf(name.pos, "%v", err)
	}
	p.expect(";", "after the declaration of "+name.text)
	return in, name.pos
}

// typ reads the type of the input called name.
func (p *parser) typ(name string) Type {
	t := p.next()
	if t.kind != tIdent {
		p.expected(t, "an element type (f32, f64, bool or i32)")
	}
	dt, err := ParseDType(t.text)
	if err != nil {
		p.failf(t.pos, "unknown element type %q in the declaration of %s (want f32, f64, bool or i32)", t.text, name)
	}
	// The caps are Layout.Validate's, checked here to point at the
	// number at fault.
	size := 1
	grow := func(pos Pos, e, axis int) {
		if e > MaxExtent {
			p.failf(pos, "extent %d of axis %d of %s is past the cap of %d (graph.MaxExtent)", e, axis, name, MaxExtent)
		}
		if size > MaxElements/e {
			p.failf(pos, "type of %s has more than %d elements (graph.MaxElements)", name, MaxElements)
		}
		size *= e
	}
	switch {
	case p.peek().punct("["):
		p.next()
		var extents []int
		for {
			pos := p.peek().pos
			e := p.typeInt("extent")
			if e < 1 {
				p.failf(pos, "extent %d of axis %d of %s is less than 1", e, len(extents), name)
			}
			grow(pos, e, len(extents))
			extents = append(extents, e)
			if p.peek().punct("]") {
				p.next()
				break
			}
			p.expect(",", `or "]" after an extent`)
		}
		return ArrayOf(dt, extents...)
	case p.peek().is(tOp, "<"):
		p.next()
		var l Layout
		span := 1
		for {
			p.expect("(", `to start an (extent, stride) pair`)
			epos := p.peek().pos
			e := p.typeInt("extent")
			p.expect(",", "after the extent")
			spos := p.peek().pos
			s := p.typeInt("stride")
			p.expect(")", "after the stride")
			if e < 1 {
				p.failf(epos, "extent %d of axis %d of %s is less than 1", e, len(l), name)
			}
			if s < 0 {
				p.failf(spos, "stride %d of axis %d of %s is negative", s, len(l), name)
			}
			grow(epos, e, len(l))
			if s > MaxElements {
				p.failf(spos, "stride %d of axis %d of %s is past the cap of %d (graph.MaxElements)", s, len(l), name, MaxElements)
			}
			if s > 0 && e-1 > (MaxElements-span)/s {
				p.failf(spos, "layout of %s spans more than %d elements (graph.MaxElements)", name, MaxElements)
			}
			span += (e - 1) * s
			l = append(l, Axis{Extent: e, Stride: s})
			if t := p.peek(); t.is(tOp, ">") {
				p.next()
				break
			}
			p.expect(",", `or ">" after an (extent, stride) pair`)
		}
		return &ArrayType{DType: dt, Layout: l}
	}
	return Scalar(dt)
}

// typeInt reads an integer of a type, allowing a minus sign so that a
// negative extent gets a message about its value.
func (p *parser) typeInt(what string) int {
	neg := false
	if p.peek().is(tOp, "-") && p.peekAt(1).kind == tNumber {
		p.next()
		neg = true
	}
	t := p.next()
	v := p.intValue(t, what, "an integer", math.MaxInt)
	if neg {
		return -v
	}
	return v
}

// intValue converts an integer literal token, failing with a message that
// names what the integer is.
func (p *parser) intValue(t token, what, kind string, max int) int {
	if !isIntLit(t) {
		if t.kind == tError {
			p.failf(t.pos, "%s", t.text)
		}
		p.failf(t.pos, "%s must be %s, found %s", what, kind, t.describe())
	}
	v, err := strconv.Atoi(t.text)
	if err != nil || v > max {
		p.failf(t.pos, "%s %s is too large", what, t.text)
	}
	return v
}

func (p *parser) push(name string, v *Var) { p.scope = append(p.scope, binding{name, v}) }

// binder reads the name a lambda or let binds and makes its variable.
func (p *parser) binder() (*Var, token) {
	t := p.next()
	if t.kind != tIdent {
		p.expected(t, "a variable name")
	}
	p.checkName(t, "bind")
	v := NewVar(t.text)
	p.record(v, t.pos)
	return v, t
}

// term := lambda | let | cmp. The level it returns is the precedence of the
// loosest construct written without parentheses.
func (p *parser) term() (Node, int) {
	t := p.peek()
	p.enter(t.pos)
	defer p.leave()
	switch {
	case t.punct(`\`):
		return p.lambda(), precLambda
	case t.keyword("let"):
		return p.let(), precLambda
	}
	return p.cmp()
}

func (p *parser) lambda() Node {
	start := p.next()
	var params []*Var
	seen := map[string]bool{}
	for p.peek().kind == tIdent {
		v, t := p.binder()
		if seen[t.text] {
			p.failf(t.pos, "parameter %s appears twice", t.text)
		}
		seen[t.text] = true
		params = append(params, v)
	}
	if len(params) == 0 {
		p.expected(p.peek(), `a parameter name after "\"`)
	}
	if !p.peek().punct("->") {
		p.expected(p.peek(), `"->" after lambda parameters`)
	}
	p.next()
	mark := len(p.scope)
	for _, v := range params {
		p.push(v.Name, v)
	}
	body, _ := p.term()
	p.scope = p.scope[:mark]
	return p.at(start.pos).node(NewLambda(params, body))
}

// let reads a chain of lets iteratively, so that a long chain does not nest
// the parser's recursion.
func (p *parser) let() Node {
	type pending struct {
		v     *Var
		value Node
		pos   Pos
	}
	var chain []pending
	mark := len(p.scope)
	for p.peek().keyword("let") {
		start := p.next()
		v, _ := p.binder()
		p.expect("=", "after let "+v.Name)
		value, _ := p.term()
		if t := p.peek(); !t.keyword("in") {
			p.expected(t, `"in" after the value of let `+v.Name)
		}
		p.next()
		p.push(v.Name, v)
		chain = append(chain, pending{v, value, start.pos})
	}
	body, _ := p.term()
	p.scope = p.scope[:mark]
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		body = p.at(c.pos).node(NewLet(c.v, c.value, body))
	}
	return body
}

var (
	cmpOps = map[string]Op{"<": Lt, "<=": Le, ">": Gt, ">=": Ge, "==": Eq, "!=": Ne}
	addOps = map[string]Op{"+": Add, "-": Sub}
	mulOps = map[string]Op{"*": Mul, "/": Div}
)

// binop returns the op of the operator token at the head of the input when
// it is one of ops and does not end a left section, as the "+" in "(x+)"
// does.
func (p *parser) binop(ops map[string]Op) (Op, bool) {
	t := p.peek()
	if t.kind != tOp || p.peekAt(1).punct(")") {
		return OpInvalid, false
	}
	op, ok := ops[t.text]
	return op, ok
}

func (p *parser) cmp() (Node, int) {
	start := p.peek().pos
	l, level := p.add()
	op, ok := p.binop(cmpOps)
	if !ok {
		return l, level
	}
	p.next()
	r, _ := p.add()
	n := p.at(start).node(NewCall(op, l, r))
	if _, again := p.binop(cmpOps); again {
		t := p.peek()
		p.failf(t.pos, "comparisons do not chain: parenthesise one side of %s", t.describe())
	}
	return n, precCmp
}

func (p *parser) add() (Node, int) {
	start := p.peek().pos
	l, level := p.mul()
	for {
		op, ok := p.binop(addOps)
		if !ok {
			return l, level
		}
		p.next()
		r, _ := p.mul()
		l, level = p.at(start).node(NewCall(op, l, r)), precAdd
	}
}

func (p *parser) mul() (Node, int) {
	start := p.peek().pos
	l, level := p.unary()
	for {
		op, ok := p.binop(mulOps)
		if !ok {
			return l, level
		}
		p.next()
		r, _ := p.unary()
		l, level = p.at(start).node(NewCall(op, l, r)), precMul
	}
}

func (p *parser) unary() (Node, int) {
	t := p.peek()
	if !t.is(tOp, "-") {
		return p.app()
	}
	p.next()
	// A minus before a number literal that is not applied to anything is
	// part of the literal.
	if num := p.peek(); num.kind == tNumber && !p.atomStart(p.peekAt(1)) {
		p.next()
		return p.at(t.pos).node(NewConst(-p.number(num)), nil), precUnary
	}
	p.enter(t.pos)
	x, _ := p.unary()
	p.leave()
	return p.at(t.pos).node(NewCall(Neg, x)), precUnary
}

func (p *parser) number(t token) float64 {
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		if math.IsInf(v, 0) {
			p.failf(t.pos, "number %s is out of range", t.text)
		}
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			p.failf(t.pos, "invalid number %q", t.text)
		}
		// An underflow rounds to zero or a subnormal, as in Go.
	}
	return v
}

// atomStart reports whether t can start an argument of an application.
func (p *parser) atomStart(t token) bool {
	switch t.kind {
	case tNumber:
		return true
	case tIdent:
		return !Keywords[t.text] || t.text == "id" || t.text == "inf" || t.text == "nan"
	case tString:
		return true // a quoted input name
	case tPunct:
		return t.text == "("
	}
	return false
}

// heads are the keywords that start an application, besides the views'
// (viewSyntaxes).
var heads = map[string]bool{
	"map": true, "zip": true, "nzip": true, "lift": true, "rnz": true, "reduce": true,
	"fst": true, "snd": true, "proj": true,
}

// Arities of the nzip heads: how many array arguments each takes at most
// (-1: any number).
var nzipHeads = map[string]int{"map": 1, "zip": 2, "nzip": -1, "lift": 0}

func (p *parser) app() (Node, int) {
	t := p.peek()
	switch {
	case t.punct("@"):
		return p.annotated(), precApp
	case t.kind == tIdent && (heads[t.text] || viewSyntaxes[t.text].Make != nil):
		return p.head(), precApp
	case t.kind == tIdent:
		if op, ok := OpByName(t.text); ok {
			p.next()
			args := p.atoms()
			if len(args) == 0 {
				return p.at(t.pos).node(NewOpRef(op)), precAtom
			}
			return p.call(t, op, args), precApp
		}
	}
	head := p.atom()
	args := p.atoms()
	if len(args) == 0 {
		return head, precAtom
	}
	if ref, ok := head.(*OpRef); ok {
		if sym, _ := ref.Op.Infix(); sym == "" {
			// (max) a b is max a b: a named op applies as a call.
			return p.call(t, ref.Op, args), precApp
		}
	}
	return p.at(t.pos).node(NewApp(head, args...)), precApp
}

// call builds the scalar op name (the token t) applied to args, which must
// be exactly as many as the op takes.
func (p *parser) call(t token, op Op, args []Node) Node {
	if k := op.Arity(); len(args) != k {
		if len(args) < k {
			p.failf(t.pos, "%v takes %d arguments, found %d: a scalar op cannot be partially applied (use a lambda)", op, k, len(args))
		}
		p.failf(t.pos, "%v takes %d argument%s, found %d", op, k, plural(k), len(args))
	}
	return p.at(t.pos).node(NewCall(op, args...))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// atoms reads the atoms that follow, as arguments of an application.
func (p *parser) atoms() []Node {
	var args []Node
	for p.atomStart(p.peek()) {
		args = append(args, p.atom())
	}
	return args
}

// arg reads one argument of the head h, failing when none follows.
func (p *parser) arg(h token, what string) Node {
	if t := p.peek(); !p.atomStart(t) {
		if t.kind == tError || t.kind == tIdent && Keywords[t.text] || t.punct(`\`) {
			return p.atom() // which fails saying why
		}
		p.failf(t.pos, "%s needs %s, found %s", h.text, what, t.describe())
	}
	return p.atom()
}

// intArg reads an integer literal argument of the head h.
func (p *parser) intArg(what string) int {
	t := p.next()
	if t.is(tOp, "-") && p.peek().kind == tNumber {
		n := p.next()
		p.failf(t.pos, "%s must be a non-negative integer, found %q", what, "-"+n.text)
	}
	return p.intValue(t, what, "a non-negative integer", 1<<31-1)
}

func isIntLit(t token) bool { return t.kind == tNumber && !strings.ContainsAny(t.text, ".eE") }

// head reads an application of a keyword: map, zip, nzip, lift, rnz, reduce,
// fst, snd, proj, or a view (subdiv, flatten, flip, ...).
func (p *parser) head() Node {
	h := p.next()
	var n Node
	switch h.text {
	case "map", "zip", "nzip", "lift":
		fn := p.arg(h, "a function argument")
		max := nzipHeads[h.text]
		var args []Node
		for (max < 0 || len(args) < max) && p.atomStart(p.peek()) {
			args = append(args, p.atom())
		}
		if t := p.peek(); p.atomStart(t) {
			if h.text == "lift" {
				p.failf(t.pos, "lift takes only a function, found %s (lift f is nzip f without arrays)", t.describe())
			}
			p.failf(t.pos, "%s takes at most %d array argument%s, found another: %s (use nzip)", h.text, max, plural(max), t.describe())
		}
		n = p.at(h.pos).node(NewNZip(fn, args...))
	case "rnz":
		red := p.arg(h, "a reduction function")
		fn := p.arg(h, "a function")
		arr := p.arg(h, "at least one array argument")
		args := append([]Node{arr}, p.atoms()...)
		n = p.at(h.pos).node(NewRNZ(red, fn, args...))
	case "reduce":
		red := p.arg(h, "a reduction function")
		if t := p.peek(); !p.atomStart(t) && !(t.kind == tError || t.kind == tIdent && Keywords[t.text] || t.punct(`\`)) {
			// reduce r alone is the function \x -> reduce r x, as zip f
			// alone is: map (reduce (+)) A sums each row.
			x := NewVar("x")
			body := p.at(h.pos).node(NewRNZ(red, p.at(h.pos).node(NewIdent(), nil), x))
			n = p.at(h.pos).node(NewLambda([]*Var{x}, body))
			break
		}
		x := p.arg(h, "an array argument")
		n = p.at(h.pos).node(NewRNZ(red, p.at(h.pos).node(NewIdent(), nil), x))
	case "fst", "snd":
		x := p.arg(h, "a tuple argument")
		n = p.at(h.pos).node(NewProj(map[string]int{"fst": 0, "snd": 1}[h.text], x))
	case "proj":
		i := p.intArg("index")
		x := p.arg(h, "a tuple argument")
		n = p.at(h.pos).node(NewProj(i, x))
	default:
		n = p.view(h, viewSyntaxes[h.text])
	}
	if t := p.peek(); p.atomStart(t) {
		p.failf(t.pos, "too many arguments to %s: %s (parenthesise the application to apply its result)", h.text, t.describe())
	}
	return n
}

// view reads the parameters and operand of the view whose keyword is h.
func (p *parser) view(h token, s ViewSyntax) Node {
	var params []int
	for i, sp := range s.Params {
		// A trailing optional parameter is read only when it is not the
		// operand itself (flip 0 2 is flip 0 applied to 2).
		if i >= len(s.Params)-s.Optional && !(isIntLit(p.peek()) && p.atomStart(p.peekAt(1))) {
			break
		}
		t := p.peek()
		v := p.intArg(sp.Name)
		if v < sp.Min {
			p.failf(t.pos, "%s must be at least %d, found %d", sp.Name, sp.Min, v)
		}
		params = append(params, v)
	}
	x := p.arg(h, "an array argument")
	v, err := s.Make(params)
	if err != nil {
		p.failf(h.pos, "%s: %v", h.text, err)
	}
	return p.at(h.pos).node(NewView(v, x))
}

// annotated reads @name atom: the atom, and every node built inside it,
// carries the source name.
func (p *parser) annotated() Node {
	at := p.next()
	t := p.next()
	var name string
	switch t.kind {
	case tIdent, tString:
		name = t.text
	default:
		p.expected(t, `a source name after "@"`)
	}
	if name == "" {
		p.failf(t.pos, "empty source name")
	}
	saved := p.src
	p.src = name
	p.enter(at.pos)
	x := p.atom()
	p.leave()
	p.src = saved
	return x // built with the source in force; inputs and variables have their own
}

func (p *parser) atom() Node {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return p.at(t.pos).node(NewConst(p.number(t)), nil)
	case tIdent:
		if t.text == "id" {
			p.next()
			return p.at(t.pos).node(NewIdent(), nil)
		}
		if t.text == "inf" || t.text == "nan" {
			p.next()
			v := math.Inf(1)
			if t.text == "nan" {
				v = math.NaN()
			}
			return p.at(t.pos).node(NewConst(v), nil)
		}
		if Keywords[t.text] {
			if t.text == "let" {
				p.failf(t.pos, "a let here needs parentheses: (let ...)")
			}
			if t.text == "in" || t.text == "param" || t.text == "input" {
				p.failf(t.pos, "unexpected %s", t.describe())
			}
			p.failf(t.pos, "an application of %s here needs parentheses: (%s ...)", t.text, t.text)
		}
		p.next()
		if op, ok := OpByName(t.text); ok {
			return p.at(t.pos).node(NewOpRef(op))
		}
		return p.resolve(t)
	case tString:
		// A quoted name: an input whose name is not an identifier (an
		// imported node such as "dense/kernel:0") or is a reserved word.
		p.next()
		return p.resolveInput(t)
	case tPunct:
		switch t.text {
		case "(":
			return p.paren()
		case `\`:
			p.failf(t.pos, `a lambda here needs parentheses: (\... -> ...)`)
		}
	case tEOF:
		p.failf(t.pos, "unexpected end of input")
	}
	p.expected(t, "an expression")
	return nil
}

// resolve finds what the name t refers to: a bound variable, innermost
// first, then a declared input, then a given input.
func (p *parser) resolve(t token) Node {
	for i := len(p.scope) - 1; i >= 0; i-- {
		if p.scope[i].name == t.text {
			return p.scope[i].v
		}
	}
	if in, ok := p.declared[t.text]; ok {
		return in
	}
	if in, ok := p.given[t.text]; ok {
		p.used[in] = true
		p.record(in, t.pos)
		return in
	}
	p.failf(t.pos, "undefined: %s (declare it before the term, as in %s : f64[...];)", t.text, t.text)
	return nil
}

// resolveInput finds the input a quoted name refers to: declared, then
// given. Quoted names never refer to variables.
func (p *parser) resolveInput(t token) Node {
	if in, ok := p.declared[t.text]; ok {
		return in
	}
	if in, ok := p.given[t.text]; ok {
		p.used[in] = true
		p.record(in, t.pos)
		return in
	}
	p.failf(t.pos, "undefined: input %q (declare it before the term, as in %q : f64[...];)", t.text, t.text)
	return nil
}

// paren reads what follows "(": an op reference (+), a right section (*e),
// a left section (e*), a tuple (a, b) or a parenthesised term.
func (p *parser) paren() Node {
	open := p.next()
	p.enter(open.pos)
	defer p.leave()
	if t := p.peek(); t.kind == tOp {
		op := opOf(t)
		if p.peekAt(1).punct(")") {
			p.next()
			p.next()
			return p.at(open.pos).node(NewOpRef(op))
		}
		if t.text != "-" { // (- e) is a negation, not a section
			p.next()
			x, _ := p.unary()
			p.sectionOperand(x, open.pos)
			p.close(open, true)
			return p.at(open.pos).node(NewSection(op, x, false))
		}
	}
	x, level := p.term()
	t := p.peek()
	switch {
	case t.kind == tOp && p.peekAt(1).punct(")"):
		if level < precUnary {
			p.failf(open.pos, "the operand of a left section must be parenthesised: ((...)%s)", t.text)
		}
		p.sectionOperand(x, open.pos)
		p.next()
		p.next()
		return p.at(open.pos).node(NewSection(opOf(t), x, true))
	case t.punct(","):
		elems := []Node{x}
		for p.peek().punct(",") {
			p.next()
			e, _ := p.term()
			elems = append(elems, e)
		}
		p.close(open, false)
		return p.at(open.pos).node(NewTuple(elems...))
	}
	p.close(open, false)
	return x
}

// close consumes the ")" that matches open.
func (p *parser) close(open token, section bool) {
	t := p.peek()
	if t.punct(")") {
		p.next()
		return
	}
	what := fmt.Sprintf(`")" to match the "(" at %v`, open.pos)
	if section && t.kind == tOp {
		what += " (parenthesise the operand of a section)"
	}
	p.expected(t, what)
}

// sectionOperand rejects an operand that is a function, such as a scalar op
// name: a section fixes one operand of a binary op to a value.
func (p *parser) sectionOperand(x Node, pos Pos) {
	switch x.(type) {
	case *OpRef, *Ident, *Lambda, *Section:
		p.failf(pos, "the operand of a section must be a value, not the function %s", Abbrev(x, 40))
	}
}

// opOf returns the op of an operator token.
func opOf(t token) Op {
	op, _ := OpByName(t.text)
	return op
}
