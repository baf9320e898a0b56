package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// value is a named value of the graph during conversion: a term over the
// model's inputs, a tensor known at import time, or both (a known tensor
// gets its term, a parameter input, when an operation first needs one).
type value struct {
	name string     // the file's name for it
	term graph.Node // nil until needed, for a known tensor
	k    *tensor    // the value when it is known at import time
}

// converter converts one operator over a range of operator-set versions.
type converter struct {
	domain string // "" for the default domain
	op     string
	since  int // the first opset version it covers
	until  int // the last, or 0 for every later one
	// check, when set, says why a node cannot be converted from what the
	// node itself says (attributes, number of outputs), before any type is
	// known: the coverage pass calls it. "" means it can.
	check func(n *onnxpb.NodeProto, opset int) string
	// convert builds the node's outputs.
	convert func(c *ctx) error
	// needKnown lists the inputs that must be known at import time (a
	// shape, axes, clip bounds), by index; allKnown says every input must
	// be. The coverage pass checks them.
	needKnown []int
	allKnown  bool
	// why is the reason the coverage pass gives when an input that must
	// be known is not ("" for a generic one).
	why string
}

// registry holds the converters by domain and operator, each list sorted
// by since.
var registry = map[string][]*converter{}

// register adds converters; an operator's ranges must not overlap.
func register(cs ...*converter) {
	for _, c := range cs {
		key := c.domain + ":" + c.op
		registry[key] = append(registry[key], c)
	}
}

// lookup returns the converter for op of domain at opset version v, or a
// reason there is none.
func lookup(domain, op string, v int) (*converter, string) {
	if domain == "ai.onnx" {
		domain = ""
	}
	cs, ok := registry[domain+":"+op]
	if !ok {
		if r, ok := plannedOps[domain+":"+op]; ok {
			return nil, "no converter: " + r
		}
		if domain != "" && !knownDomains[domain] {
			return nil, fmt.Sprintf("no converter for operators of domain %q", domain)
		}
		return nil, "no converter"
	}
	for _, c := range cs {
		if v >= c.since && (c.until == 0 || v <= c.until) {
			return c, ""
		}
	}
	return nil, fmt.Sprintf("no converter for opset %d (converters cover %s)", v, ranges(cs))
}

func ranges(cs []*converter) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		if c.until == 0 {
			s += fmt.Sprintf("%d and later", c.since)
		} else {
			s += fmt.Sprintf("%d to %d", c.since, c.until)
		}
	}
	return s
}

// plannedOps are operators known to be outside what the IR expresses yet,
// by "domain:op", with the reason the coverage report gives.
var plannedOps = map[string]string{
	":LSTM":                  "recurrent layers are not supported",
	":GRU":                   "recurrent layers are not supported",
	":RNN":                   "recurrent layers are not supported",
	":If":                    "control flow is not supported",
	":Loop":                  "control flow is not supported",
	":Scan":                  "control flow is not supported",
	":NonZero":               "data-dependent shapes are not supported",
	":QuantizeLinear":        "quantized models are not supported",
	":DequantizeLinear":      "quantized models are not supported",
	":DynamicQuantizeLinear": "quantized models are not supported",
	"ai.onnx.ml:ZipMap":      "its output is a sequence of maps, which the IR has no type for; export without it (skl2onnx: options={id(model): {'zipmap': False}}) or name the tensor it reads as the output (--output)",
}

// knownDomains are the domains besides the default one that some
// operators are converted from.
var knownDomains = map[string]bool{"ai.onnx.ml": true}

// effectiveOpset is the version converters are chosen by: the file's,
// and MaxOpset for a newer one (tried as the newest tested).
func effectiveOpset(domain string, l *loaded) int {
	if domain == "ai.onnx" {
		domain = ""
	}
	v, ok := l.opsets[domain]
	if !ok {
		return 0
	}
	if domain == "" && v > MaxOpset {
		return MaxOpset
	}
	return v
}

// coverage is the pass before conversion: it counts the kept nodes by
// operator and lists every one without a converter for its opset, whose
// attributes its converter refuses, or that needs an input known at
// import time (a shape, axes) which is computed from the data. All of
// them at once.
func coverage(l *loaded, cov *imports.Coverage) {
	known := map[string]bool{}
	for name := range l.inits {
		known[name] = true
	}
	for _, i := range l.order {
		n := l.nodes[i]
		cov.Count(n.GetDomain(), n.GetOpType())
		d := n.GetDomain()
		if d == "ai.onnx" {
			d = ""
		}
		u := imports.Unsupported{Domain: d, Op: n.GetOpType(), Opset: l.opsets[d], Node: l.nodeName(i)}
		refuse := func(why string) {
			u.Reason = why
			cov.Refuse(u)
		}
		allIn := len(n.GetInput()) > 0
		for _, in := range n.GetInput() {
			if in != "" && !known[in] {
				allIn = false
			}
		}
		if allIn || (d == "" && (n.GetOpType() == "Constant" || n.GetOpType() == "Shape")) {
			for _, o := range n.GetOutput() {
				known[o] = true
			}
		}
		if _, ok := l.opsets[d]; !ok {
			refuse(fmt.Sprintf("the model imports no version of domain %q (opset_import)", d))
			continue
		}
		v := effectiveOpset(d, l)
		c, why := lookup(d, n.GetOpType(), v)
		if c == nil {
			refuse(why)
			continue
		}
		if c.check != nil {
			if why := c.check(n, v); why != "" {
				refuse(why)
				continue
			}
		}
		for k, in := range n.GetInput() {
			if in == "" || known[in] || !(c.allKnown || slices.Contains(c.needKnown, k)) {
				continue
			}
			if c.why != "" {
				refuse(c.why)
			} else {
				refuse(fmt.Sprintf("input %d (%q) is computed from the data; hofuse needs it known when the model is imported (an initializer, a Constant, or a shape computation)", k, in))
			}
			break
		}
	}
}

// importer converts a loaded model.
type importer struct {
	l      *loaded
	opt    imports.Options
	vals   map[string]*value
	params []*graph.Input // parameters made so far, in order
	pvals  map[string]graph.Value
	// leftOut holds why a converter did not compute an output its node
	// names (string class labels), by the output's name.
	leftOut map[string]string
}

// ctx is what a converter sees of one node.
type ctx struct {
	imp   *importer
	idx   int
	node  *onnxpb.NodeProto
	name  string // the node's name: the source of every term it builds
	opset int    // the version of the node's domain the converter was chosen for
}

// errorf returns an error naming the file, the node and its operator.
func (c *ctx) errorf(format string, args ...any) error {
	return c.imp.l.errf(c.idx, format, args...)
}

// wrap returns err wrapped in an error naming the file and the node.
func (c *ctx) wrap(err error, format string, args ...any) error {
	return &imports.Error{File: c.imp.l.file, Node: c.name, Op: c.node.GetOpType(), Msg: fmt.Sprintf(format, args...), Err: err}
}

// nin is the number of inputs the node lists (optional ones left out at
// the end are not counted; one left out in the middle is "").
func (c *ctx) nin() int { return len(c.node.GetInput()) }

// has reports whether input i is given.
func (c *ctx) has(i int) bool { return i < c.nin() && c.node.GetInput()[i] != "" }

// val returns input i's value; the input must be given.
func (c *ctx) val(i int) (*value, error) {
	if !c.has(i) {
		return nil, c.errorf("input %d is missing", i)
	}
	name := c.node.GetInput()[i]
	v, ok := c.imp.vals[name]
	if !ok {
		if why, left := c.imp.leftOut[name]; left {
			return nil, c.errorf("input %d (%q) was not computed: %s", i, name, why)
		}
		return nil, c.errorf("input %d (%q) has no value", i, name)
	}
	return v, nil
}

// in returns input i as a term: a known tensor becomes a parameter input
// named as the file names it.
func (c *ctx) in(i int) (graph.Node, error) {
	v, err := c.val(i)
	if err != nil {
		return nil, err
	}
	if v.term == nil {
		if err := c.imp.materialize(v); err != nil {
			return nil, c.wrap(err, "input %d (%q)", i, v.name)
		}
	}
	return v.term, nil
}

// known returns input i's value when it is known at import time, or nil.
func (c *ctx) known(i int) *tensor {
	v, err := c.val(i)
	if err != nil {
		return nil
	}
	return v.k
}

// constIn returns input i, which must be known at import time (a shape,
// axes, an exponent…); what names it in the error.
func (c *ctx) constIn(i int, what string) (*tensor, error) {
	v, err := c.val(i)
	if err != nil {
		return nil, c.errorf("input %d (%s) is missing", i, what)
	}
	if v.k == nil {
		return nil, c.errorf("input %d (%s, %q) is computed from the data; hofuse needs it known when the model is imported (an initializer, a Constant, or a shape computation)", i, what, v.name)
	}
	return v.k, nil
}

// outName returns the name of output i, or "" when the node leaves it out.
func (c *ctx) outName(i int) string {
	if i < len(c.node.GetOutput()) {
		return c.node.GetOutput()[i]
	}
	return ""
}

// out sets output i to the term t.
func (c *ctx) out(i int, t graph.Node) {
	if name := c.outName(i); name != "" {
		c.imp.vals[name] = &value{name: name, term: t}
	}
}

// leaveOut records why output i, which the node names, is not computed:
// asking for it, or reading it in another node, is an error that says so.
func (c *ctx) leaveOut(i int, why string) {
	if name := c.outName(i); name != "" {
		if c.imp.leftOut == nil {
			c.imp.leftOut = map[string]string{}
		}
		c.imp.leftOut[name] = why
	}
}

// outConst sets output i to a tensor known at import time.
func (c *ctx) outConst(i int, t *tensor) {
	if name := c.outName(i); name != "" {
		c.imp.vals[name] = &value{name: name, k: t}
	}
}

// materialize gives a known tensor its term: a parameter input (an array,
// or a scalar for rank 0) whose value the model keeps.
func (imp *importer) materialize(v *value) error {
	dt, ok := dtypeOf(v.k.elem)
	if !ok {
		return fmt.Errorf("element type %s has no counterpart in the IR", elemName(v.k.elem))
	}
	var t graph.Type
	var val graph.Value
	if len(v.k.dims) == 0 {
		if v.k.size() != 1 {
			return fmt.Errorf("a scalar with %d elements", v.k.size())
		}
		x := v.k.at(0)
		if dt == graph.Int32 && (x < math.MinInt32 || x > math.MaxInt32) {
			return fmt.Errorf("value %v is past the range of i32", x)
		}
		t, val = graph.Scalar(dt), graph.ScalarValue{DType: dt, V: dt.Round(x)}
	} else {
		a, err := v.k.array()
		if err != nil {
			return err
		}
		t, val = a.Type(), a
	}
	name := v.name
	for i := 2; imp.pvals[name] != nil || imp.isDataInput(name); i++ {
		name = fmt.Sprintf("%s_%d", v.name, i)
	}
	in, err := graph.NewInput(name, t, true)
	if err != nil {
		return err
	}
	imp.params = append(imp.params, in)
	imp.pvals[name] = val
	v.term = in
	return nil
}

func (imp *importer) isDataInput(name string) bool {
	for _, in := range imp.l.inputs {
		if in.GetName() == name {
			return true
		}
	}
	return false
}

// convertAll converts the kept nodes in order and builds the model.
func (imp *importer) convertAll(m *imports.Model) error {
	l := imp.l
	for _, i := range l.order {
		n := l.nodes[i]
		d := n.GetDomain()
		if d == "ai.onnx" {
			d = ""
		}
		v := effectiveOpset(d, l)
		cv, why := lookup(d, n.GetOpType(), v)
		if cv == nil { // the coverage pass has refused the model already
			return l.errf(i, "%s", why)
		}
		c := &ctx{imp: imp, idx: i, node: n, name: l.nodeName(i), opset: v}
		if err := cv.convert(c); err != nil {
			return err
		}
		if err := c.fold(); err != nil {
			return err
		}
	}
	seen := map[*graph.Input]bool{}
	var terms []graph.Node
	for _, name := range l.outputs {
		v := imp.vals[name]
		if v == nil {
			if why, left := imp.leftOut[name]; left {
				return l.errf(-1, "output %q was not computed: %s", name, why)
			}
			return l.errf(-1, "output %q was not computed (an optional output its node does not produce)", name)
		}
		if v.term == nil {
			if err := imp.materialize(v); err != nil {
				return &imports.Error{File: l.file, Node: name, Op: "graph output", Msg: "the output is a constant", Err: err}
			}
		}
		t, err := graph.TypeOf(v.term, nil)
		if err != nil {
			return &imports.Error{File: l.file, Node: name, Op: "graph output", Msg: "the term is ill-typed", Err: err}
		}
		m.Outputs = append(m.Outputs, imports.Output{Name: name, Term: v.term, Type: graph.Concrete(t)})
		terms = append(terms, v.term)
	}
	if len(terms) == 1 {
		m.Term = terms[0]
	} else {
		tup, err := graph.NewTuple(terms...)
		if err != nil {
			return &imports.Error{File: l.file, Msg: "building the tuple of outputs", Err: err}
		}
		m.Term = tup
	}
	// Keep the parameters the outputs read, in the order they were made.
	for n := range graph.All(m.Term) {
		if in, ok := n.(*graph.Input); ok {
			seen[in] = true
		}
	}
	m.Values = map[string]graph.Value{}
	for _, p := range imp.params {
		if seen[p] {
			m.Params = append(m.Params, p)
			m.Values[p.Name] = imp.pvals[p.Name]
		}
	}
	// The index inputs nd's ArgMax and Concat read (0, 1, …, n-1) are
	// parameters too, with their values.
	for n := range graph.All(m.Term) {
		in, ok := n.(*graph.Input)
		if !ok || m.Values[in.Name] != nil {
			continue
		}
		if ext, ok := nd.IndexExtent(in); ok {
			if ext > maxIndexExtent {
				return &imports.Error{File: l.file, Msg: fmt.Sprintf("the model needs the positions 0 … %d along an axis of extent %d (for ArgMax, ArgMin or Concat), more than the %d hofuse makes when it imports; declare a smaller input shape", ext-1, ext, maxIndexExtent)}
			}
			v, err := nd.IndexValue(ext)
			if err != nil {
				return &imports.Error{File: l.file, Msg: "index input", Err: err}
			}
			m.Params = append(m.Params, in)
			m.Values[in.Name] = v
		}
	}
	// Data inputs only pruned outputs read are dropped too.
	m.Inputs = slices.DeleteFunc(m.Inputs, func(in *graph.Input) bool { return !seen[in] })
	return nil
}

// maxIndexExtent is the largest index input (0, 1, …, n-1, which nd's
// ArgMax, ArgMin and Concat read) the importer makes: 2^24 elements, 64
// MiB of i32. Extents come from the file's declared shapes, which cost
// nothing to write, so the value is not made past this bound.
const maxIndexExtent = 1 << 24

// maxFold is the largest output, in elements, that fold computes at import
// time; larger results of known inputs stay terms over parameters.
const maxFold = 1 << 16

// fold evaluates the node's outputs at import time when every input it
// was given is known (a computation on shapes or constants), with the
// reference interpreter, so that later shape inputs can read them.
func (c *ctx) fold() error {
	if c.nin() == 0 {
		return nil
	}
	int64In := false
	for i := range c.nin() {
		if !c.has(i) {
			continue
		}
		k := c.known(i)
		if k == nil {
			return nil
		}
		if k.elem == tInt64 {
			int64In = true
		}
	}
	for _, name := range c.node.GetOutput() {
		v := c.imp.vals[name]
		if name == "" || v == nil || v.k != nil || v.term == nil {
			continue
		}
		t, err := graph.TypeOf(v.term, nil)
		if err != nil {
			return c.wrap(err, "output %q", name)
		}
		var dims []int
		var dt graph.DType
		switch t := graph.Concrete(t).(type) {
		case *graph.ArrayType:
			dims, dt = t.Layout.Extents(), t.DType
		case *graph.ScalarType:
			dims, dt = []int{}, t.DType
		default:
			continue
		}
		if prod(dims) > maxFold {
			continue
		}
		bind := map[string]graph.Value{}
		for n := range graph.All(v.term) {
			if in, ok := n.(*graph.Input); ok {
				if pv, ok := c.imp.pvals[in.Name]; ok {
					bind[in.Name] = pv
				}
			}
		}
		if err := nd.BindIndexes(v.term, bind); err != nil {
			return c.wrap(err, "computing output %q at import time", name)
		}
		res, err := graph.Eval(v.term, bind)
		if err != nil {
			return c.wrap(err, "computing output %q at import time", name)
		}
		k := &tensor{dims: dims}
		switch dt {
		case graph.Float32:
			k.elem = tFloat
		case graph.Float64:
			k.elem = tDouble
		case graph.Bool:
			k.elem = tBool
		default:
			k.elem = tInt32
			if int64In {
				k.elem = tInt64
			}
		}
		var vals []float64
		switch r := res.(type) {
		case *graph.Array:
			vals = r.Values()
		case graph.ScalarValue:
			vals = []float64{r.V}
		}
		if isFloatElem(k.elem) {
			k.f = vals
		} else {
			for _, x := range vals {
				k.i = append(k.i, int64(x))
			}
		}
		c.imp.vals[name] = &value{name: name, k: k}
	}
	return nil
}
