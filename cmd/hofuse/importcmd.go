package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/onnx"
	"github.com/hofuse/hofuse/imports/tf"
)

func init() {
	register(&command{
		name:    "import",
		usage:   "FILE.onnx|FILE.pb [--json] [--batch N] [--output NAME]...",
		summary: "read a model file: the coverage report of what hofuse can import, then the term",
		run:     runImport,
	})
	register(&command{
		name:    "run",
		usage:   "FILE.onnx|FILE.pb --input NAME=FILE.npy... [--out [NAME=]FILE.npy]... [--backend interp|native|pjrt] [--unfused] [--batch N]",
		summary: "run an imported model on inputs from .npy files and write its outputs as .npy",
		run:     runRun,
	})
}

// modelFiles says which model files the commands read, for messages.
const modelFiles = ".onnx (ONNX) or .pb (a frozen TensorFlow GraphDef)"

// isModelFile reports whether path names a model file a command may take
// where it takes 'mlp': a file whose name ends in .onnx or .pb.
func isModelFile(path string) bool {
	ext := filepath.Ext(path)
	return strings.EqualFold(ext, ".onnx") || strings.EqualFold(ext, ".pb")
}

// notModelFile is the usage error for a file of a format hofuse does not
// read; what names the flag or argument.
func notModelFile(what string) error {
	return usagef("%s: want a model file ending in %s", what, modelFiles)
}

// importModel reads the model file path with opt, by its extension: ONNX
// for .onnx, a frozen TensorFlow GraphDef for .pb. Files of other formats
// are a usage error naming the extensions hofuse reads.
func importModel(path string, opt imports.Options) (*imports.Model, error) {
	if !isModelFile(path) {
		return nil, notModelFile(path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(path), ".pb") {
		return tf.Import(path, opt)
	}
	return onnx.Import(path, opt)
}

// modelCoverage returns the coverage report of the model file path: what
// the import would keep, refuse and prune, with the file's outputs in
// order. An import refused for its coverage still has its report.
func modelCoverage(path string, opt imports.Options) (*imports.Coverage, error) {
	if !isModelFile(path) {
		return nil, notModelFile(path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".pb") {
		return onnx.Coverage(path, opt)
	}
	m, err := tf.Import(path, opt)
	if ce := (*imports.CoverageError)(nil); errors.As(err, &ce) {
		return ce.Coverage, nil
	}
	if err != nil {
		return nil, err
	}
	return m.Coverage, nil
}

// modelOptions are the flags of the commands that import a model.
type modelOptions struct {
	batch   int
	outputs listFlag
}

func (m *modelOptions) register(fs *flag.FlagSet, withOutputs bool) {
	usage := "extent of the model's symbolic dimensions (a batch written N); default 1"
	if !withOutputs {
		usage = "extent of the model's symbolic dimensions (a batch written N); default: the extent the --input that fills it has there"
	}
	fs.IntVar(&m.batch, "batch", 0, usage)
	if withOutputs {
		fs.Var(&m.outputs, "output", "keep only the output `NAME` (repeatable, or a comma list); the nodes only other outputs need are pruned before the coverage pass")
	}
}

func (m *modelOptions) options() (imports.Options, error) {
	if m.batch < 0 {
		return imports.Options{}, usagef("--batch %d: a batch size must be at least 1", m.batch)
	}
	return imports.Options{Batch: m.batch, Outputs: m.outputs}, nil
}

// importJSON is what import --json prints.
type importJSON struct {
	Coverage json.RawMessage `json:"coverage"`
	Model    *modelJSON      `json:"model,omitempty"`
	Error    string          `json:"error,omitempty"`
}

type modelJSON struct {
	Format   string       `json:"format"`
	Opset    int          `json:"opset,omitempty"`
	Producer string       `json:"producer,omitempty"`
	Inputs   []ioJSON     `json:"inputs"`
	Params   []ioJSON     `json:"params"`
	Outputs  []ioJSON     `json:"outputs"`
	Symbolic []symbolJSON `json:"symbolic"`
	Term     string       `json:"term"`
}

type ioJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type symbolJSON struct {
	Input  string `json:"input"`
	Axis   int    `json:"axis"`
	Name   string `json:"name"`
	Extent int    `json:"extent"`
}

func runImport(args []string, stdout, stderr io.Writer) error {
	c := commands["import"]
	fs := newFlags(c, stderr)
	var mo modelOptions
	mo.register(fs, true)
	asJSON := fs.Bool("json", false, "print the coverage report and the model as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one model file")
	}
	opt, err := mo.options()
	if err != nil {
		return err
	}
	m, err := importModel(pos[0], opt)
	var ce *imports.CoverageError
	var cov *imports.Coverage
	switch {
	case errors.As(err, &ce):
		cov = ce.Coverage
	case err != nil:
		return err
	default:
		cov = m.Coverage
	}
	if *asJSON {
		cj, jerr := cov.JSON()
		if jerr != nil {
			return jerr
		}
		out := importJSON{Coverage: cj}
		if m != nil {
			out.Model = describeModelJSON(m)
		}
		if err := printJSON(stdout, out); err != nil {
			return err
		}
		return err
	}
	if err := cov.WriteText(stdout); err != nil {
		return err
	}
	if m == nil {
		return err
	}
	fmt.Fprintln(stdout)
	writeSignature(stdout, m)
	fmt.Fprintln(stdout)
	writeProgram(stdout, m)
	return nil
}

func describeModelJSON(m *imports.Model) *modelJSON {
	j := &modelJSON{Format: m.Format, Opset: m.Opset, Producer: m.Producer, Term: graph.Print(m.Term),
		Inputs: []ioJSON{}, Params: []ioJSON{}, Outputs: []ioJSON{}, Symbolic: []symbolJSON{}}
	for _, in := range m.Inputs {
		j.Inputs = append(j.Inputs, ioJSON{in.Name, in.Type.String()})
	}
	for _, p := range m.Params {
		j.Params = append(j.Params, ioJSON{p.Name, p.Type.String()})
	}
	for _, o := range m.Outputs {
		j.Outputs = append(j.Outputs, ioJSON{o.Name, o.Type.String()})
	}
	for _, s := range m.Symbolic {
		j.Symbolic = append(j.Symbolic, symbolJSON(s))
	}
	return j
}

// writeSignature writes what the model reads and gives: the symbolic
// dimensions fixed, the number of parameters, the outputs and their types.
func writeSignature(w io.Writer, m *imports.Model) {
	for _, s := range m.Symbolic {
		name := s.Name
		if name == "" {
			name = "unnamed"
		}
		fmt.Fprintf(w, "axis %d of input %s is symbolic (%s): fixed to %d (--batch)\n", s.Axis, s.Input, name, s.Extent)
	}
	fmt.Fprintf(w, "%s, %s\n", count(len(m.Inputs), "data input"), count(len(m.Params), "parameter")+" ("+count(paramElements(m), "value")+")")
	for _, o := range m.Outputs {
		fmt.Fprintf(w, "output %s : %v\n", quoteName(o.Name), o.Type)
	}
}

// writeProgram writes the model as a program in the notation, one
// declaration a line (data inputs, then parameters), then the term: what
// graph.Parse reads back.
func writeProgram(w io.Writer, m *imports.Model) {
	for _, in := range m.AllInputs() {
		kw := ""
		if in.Param {
			kw = "param "
		}
		fmt.Fprintf(w, "%s%s : %v;\n", kw, quoteName(in.Name), in.Type)
	}
	fmt.Fprintln(w, graph.Print(m.Term))
}

func paramElements(m *imports.Model) int {
	n := 0
	for _, p := range m.Params {
		if at, ok := p.Type.(*graph.ArrayType); ok {
			n += at.Layout.Size()
		} else {
			n++
		}
	}
	return n
}

// quoteName writes a name as the notation reads it: as it is when it is an
// identifier, quoted otherwise ("dense/kernel:0", "0").
func quoteName(s string) string {
	ok := s != ""
	for i, r := range s {
		letter := r == '_' || (r == '\'' || r == '.') && i > 0 || unicode.IsLetter(r) && r < 128
		if !letter && !(i > 0 && '0' <= r && r <= '9') {
			ok = false
		}
	}
	if _, isOp := graph.OpByName(s); !ok || isOp || graph.Keywords[s] {
		return strconv.Quote(s)
	}
	return s
}

// assignFlag collects repeatable NAME=VALUE flags; with allowBare, a value
// without NAME= is kept with an empty name.
type assignFlag struct {
	names, values []string
	allowBare     bool
}

func (a *assignFlag) String() string { return "" }
func (a *assignFlag) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		if !a.allowBare {
			return fmt.Errorf("%q: want NAME=FILE.npy", s)
		}
		name, val = "", s
	}
	if ok && name == "" {
		return fmt.Errorf("%q: the name before = is empty", s)
	}
	if val == "" {
		return fmt.Errorf("%q: no file after the name", s)
	}
	if slices.Contains(a.names, name) {
		if name == "" {
			return fmt.Errorf("%q: only one output may be written without a name (the first output)", s)
		}
		return fmt.Errorf("%q: %s is given twice", s, name)
	}
	a.names = append(a.names, name)
	a.values = append(a.values, val)
	return nil
}

const runHelp = `
The model's data inputs are read from .npy files (numpy.save), one --input NAME=FILE.npy
each: float32 and float64 arrays as they are, integer arrays as i32, bool as bool.
--out FILE.npy writes the model's first output, --out NAME=FILE.npy (repeatable) the
output NAME; without --out every output is printed. Outputs nobody asks for are pruned
before conversion, so operators only they use do not stop the import.

A symbolic dimension of an input (a batch written N) takes --batch, or else the extent
the .npy file for that input has there.
`

func runRun(args []string, stdout, stderr io.Writer) (err error) {
	c := commands["run"]
	fs := newFlags(c, stderr)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, runHelp)
	}
	var mo modelOptions
	mo.register(fs, false)
	inputs := &assignFlag{}
	outs := &assignFlag{allowBare: true}
	fs.Var(inputs, "input", "a data input: `NAME=FILE.npy` (repeatable)")
	fs.Var(outs, "out", "write an output: `[NAME=]FILE.npy` (repeatable; without NAME, the first output)")
	backend := fs.String("backend", "native", "where to run: interp (the reference interpreter), native (in-process Go) or pjrt (a PJRT plugin)")
	unfused := fs.Bool("unfused", false, "with --backend native or pjrt: run one kernel per operation instead of the fused program")
	plugin := fs.String("plugin", "", "with --backend pjrt: the plugin `path` (default: found by 'hofuse pjrt path')")
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	verbose := verboseFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	set := flagsSet(fs)
	if err := checkBackendFlags(set, *backend, "the model as imported", &rf); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one model file")
	}
	for _, p := range outs.values {
		if err := checkOutput("out", p, ".npy"); err != nil {
			return err
		}
	}
	opt, err := mo.options()
	if err != nil {
		return err
	}
	data := map[string]graph.Value{}
	for i, name := range inputs.names {
		v, err := readNpy(inputs.values[i])
		if err != nil {
			return fmt.Errorf("--input %s: %w", name, err)
		}
		data[name] = v
	}
	// Outputs asked by name are the ones kept; an unnamed --out is the
	// file's first output, which the import keeps anyway when it is alone.
	var named []string
	for _, n := range outs.names {
		if n != "" {
			named = append(named, n)
		}
	}
	if slices.Contains(outs.names, "") {
		// The first output: read the file's list of outputs first.
		cov, err := modelCoverage(pos[0], imports.Options{})
		if err != nil {
			return err
		}
		first := cov.Outputs[0]
		for i, n := range outs.names {
			if n == "" {
				outs.names[i] = first
			}
		}
		if slices.Contains(named, first) {
			return usagef("--out: the first output, %s, is also asked for by name", first)
		}
		named = append([]string{first}, named...)
	}
	opt.Outputs = named
	m, err := importModel(pos[0], opt)
	if err != nil {
		return err
	}
	if !set["batch"] && len(m.Symbolic) > 0 {
		// The first symbolic dimension an --input fills sets the batch.
		for _, s := range m.Symbolic {
			a, ok := data[s.Input].(*graph.Array)
			if !ok || s.Axis >= a.Rank() {
				continue
			}
			if b := a.Extents()[s.Axis]; b != s.Extent {
				opt.Batch = b
				if m, err = importModel(pos[0], opt); err != nil {
					return err
				}
			}
			break
		}
	}
	bind, err := m.Bindings(data)
	if err != nil {
		return fmt.Errorf("%s: %w (give each data input with --input NAME=FILE.npy)", pos[0], err)
	}
	var out graph.Value
	if *backend == "interp" {
		out, err = rf.evalInterp(m.Term, bind)
	} else {
		out, err = evalOnBackend(*backend, *plugin, *unfused, &rf, m.Term, bind)
	}
	if err != nil {
		return err
	}
	vals, err := m.OutputValues(out)
	if err != nil {
		return err
	}
	if len(outs.names) == 0 {
		for _, o := range m.Outputs {
			fmt.Fprintf(stdout, "%s = %s\n", o.Name, formatValue(vals[o.Name]))
		}
		return nil
	}
	for i, name := range outs.names {
		v, ok := vals[name]
		if !ok {
			return fmt.Errorf("--out %s: the model has no output %s", outs.values[i], name)
		}
		if err := writeNpy(outs.values[i], v); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s (%s) to %s\n", name, graph.DescribeValue(v), outs.values[i])
	}
	return nil
}
