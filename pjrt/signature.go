package pjrt

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// TensorType is the type of one parameter or result of a compiled program:
// an element type and the extents, outermost first (row-major, as PJRT
// lays out host data). Dims is empty for a scalar (tensor<f32>).
type TensorType struct {
	DType graph.DType
	Dims  []int
}

// Size is the number of elements.
func (t TensorType) Size() int {
	n := 1
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Equal reports whether t and u have the same element type and extents.
func (t TensorType) Equal(u TensorType) bool {
	return t.DType == u.DType && slices.Equal(t.Dims, u.Dims)
}

// String writes t the way StableHLO does: tensor<2x3xf32>.
func (t TensorType) String() string {
	var sb strings.Builder
	sb.WriteString("tensor<")
	for _, d := range t.Dims {
		sb.WriteString(strconv.Itoa(d))
		sb.WriteByte('x')
	}
	sb.WriteString(mlirElem[t.DType])
	sb.WriteByte('>')
	return sb.String()
}

// mlirElem maps the element types hofuse supports to their MLIR names.
var mlirElem = map[graph.DType]string{
	graph.Float32: "f32",
	graph.Float64: "f64",
	graph.Int32:   "i32",
	graph.Bool:    "i1",
}

// signature is the type of a program's @main function.
type signature struct {
	paramNames []string // SSA names, "%x"; "" where none could be read
	params     []TensorType
	results    []TensorType
}

var mainRE = regexp.MustCompile(`func\.func\s+(?:(?:public|private|nested)\s+)?@main\s*\(`)

// parseSignature reads the parameter and result types of @main from
// StableHLO text in MLIR's pretty syntax, as go-xla's builder and JAX emit
// it: func.func [public] @main(%x: tensor<2x3xf32> {attrs} loc(...), ...)
// -> (tensor<...> {attrs}, ...) {. Element types other than f32, f64, i32
// and i1 are errors: hofuse has no host value for them.
func parseSignature(text string) (*signature, error) {
	loc := mainRE.FindStringIndex(text)
	if loc == nil {
		return nil, fmt.Errorf("no 'func.func @main(' in the program")
	}
	args, rest, err := splitGroup(text[loc[1]-1:])
	if err != nil {
		return nil, fmt.Errorf("@main parameters: %v", err)
	}
	sig := &signature{}
	for i, a := range args {
		name := ""
		if j := strings.IndexByte(a, ':'); j >= 0 && strings.HasPrefix(strings.TrimSpace(a), "%") {
			name = strings.TrimSpace(a[:j])
			a = a[j+1:]
		}
		t, err := parseTensorType(a)
		if err != nil {
			return nil, fmt.Errorf("@main parameter %d %s: %v", i, name, err)
		}
		sig.paramNames = append(sig.paramNames, name)
		sig.params = append(sig.params, t)
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "->") {
		return sig, nil // no results
	}
	rest = strings.TrimSpace(rest[2:])
	var results []string
	if strings.HasPrefix(rest, "(") {
		if results, _, err = splitGroup(rest); err != nil {
			return nil, fmt.Errorf("@main results: %v", err)
		}
	} else {
		results = []string{rest}
	}
	for i, r := range results {
		t, err := parseTensorType(r)
		if err != nil {
			return nil, fmt.Errorf("@main result %d: %v", i, err)
		}
		sig.results = append(sig.results, t)
	}
	return sig, nil
}

// splitGroup takes s starting with '(' and returns the top-level
// comma-separated items up to the matching ')', and the text after it.
func splitGroup(s string) (items []string, rest string, err error) {
	depth := 0
	start := 1
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '(', '<', '{', '[':
			depth++
		case ')', '>', '}', ']':
			if c == '>' && i > 0 && s[i-1] == '-' {
				continue // the arrow of a function type inside an attribute
			}
			depth--
			if depth == 0 {
				if c != ')' {
					return nil, "", fmt.Errorf("unbalanced %q", c)
				}
				if item := strings.TrimSpace(s[start:i]); item != "" || len(items) > 0 {
					items = append(items, item)
				}
				return items, s[i+1:], nil
			}
		case ',':
			if depth == 1 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, "", fmt.Errorf("no closing ')'")
}

// parseTensorType reads the tensor type at the start of s (after spaces);
// what follows it (attributes, locations) is ignored.
func parseTensorType(s string) (TensorType, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "tensor<") {
		word := s
		if i := strings.IndexAny(word, " {,"); i >= 0 {
			word = word[:i]
		}
		return TensorType{}, fmt.Errorf("type %s is not a tensor", word)
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return TensorType{}, fmt.Errorf("unterminated %s", s)
	}
	body := s[len("tensor<"):end]
	if i := strings.IndexByte(body, ','); i >= 0 { // tensor<2xf32, #encoding>
		body = body[:i]
	}
	parts := strings.Split(strings.TrimSpace(body), "x")
	elem := parts[len(parts)-1]
	var t TensorType
	for dt, name := range mlirElem {
		if name == elem {
			t.DType = dt
		}
	}
	if t.DType == graph.Invalid {
		return TensorType{}, fmt.Errorf("element type %s in %s is not supported (want f32, f64, i32 or i1)", elem, s[:end+1])
	}
	t.Dims = []int{}
	for _, p := range parts[:len(parts)-1] {
		d, err := strconv.Atoi(p)
		if err != nil || d < 0 {
			return TensorType{}, fmt.Errorf("extent %q in %s is not a static size", p, s[:end+1])
		}
		t.Dims = append(t.Dims, d)
	}
	return t, nil
}
