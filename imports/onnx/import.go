package onnx

import (
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
)

// Import reads the ONNX model in the file at path and converts it into a
// term of the graph IR. See ImportBytes.
func Import(path string, opt imports.Options) (*imports.Model, error) {
	data, err := readFile(path, opt)
	if err != nil {
		return nil, err
	}
	return ImportBytes(data, path, opt)
}

// ImportBytes converts the ONNX model data, read from the file named
// file (for messages), into a term of the graph IR.
//
// It decodes the model and checks its structure (an *imports.Error naming
// the file, and the node where there is one), prunes the nodes that only
// outputs outside opt.Outputs need, runs the coverage pass and returns an
// *imports.CoverageError listing every node it cannot convert when there
// is one, and only then converts. The model's Coverage is the pass's
// report either way: on a *imports.CoverageError it is the error's.
func ImportBytes(data []byte, file string, opt imports.Options) (*imports.Model, error) {
	if err := opt.Validate(); err != nil {
		return nil, &imports.Error{File: file, Msg: "options", Err: err}
	}
	if int64(len(data)) > opt.MaxFileBytesOrDefault() {
		return nil, &imports.Error{File: file, Msg: "the model is larger than Options.MaxFileBytes"}
	}
	cov := imports.NewCoverage(file, "onnx")
	l, err := decode(data, file, opt, cov)
	if err != nil {
		return nil, err
	}
	coverage(l, cov)
	if err := cov.Err(); err != nil {
		return nil, err
	}
	return convert(l, opt, cov)
}

// Coverage reads the model at path and returns the coverage report alone,
// converting nothing: what Import would refuse, all at once.
func Coverage(path string, opt imports.Options) (*imports.Coverage, error) {
	data, err := readFile(path, opt)
	if err != nil {
		return nil, err
	}
	cov := imports.NewCoverage(path, "onnx")
	l, err := decode(data, path, opt, cov)
	if err != nil {
		return nil, err
	}
	coverage(l, cov)
	return cov, nil
}

// convert builds the model from a loaded file whose coverage is complete.
func convert(l *loaded, opt imports.Options, cov *imports.Coverage) (*imports.Model, error) {
	m := &imports.Model{Source: l.file, Format: "onnx", Opset: l.opset, Coverage: cov}
	if p := l.model.GetProducerName(); p != "" {
		m.Producer = p
		if v := l.model.GetProducerVersion(); v != "" {
			m.Producer += " " + v
		}
	}
	imp := &importer{l: l, opt: opt, vals: map[string]*value{}, pvals: map[string]graph.Value{}}
	for _, name := range l.initList {
		t, err := decodeTensor(l.inits[name])
		if err != nil {
			return nil, &imports.Error{File: l.file, Node: name, Op: "initializer", Msg: "reading the tensor", Err: err}
		}
		imp.vals[name] = &value{name: name, k: t}
	}
	for _, vi := range l.inputs {
		t, syms, err := l.inputType(vi, opt.BatchOrDefault())
		if err != nil {
			return nil, err
		}
		var typ graph.Type = t
		if t.Rank() == 0 {
			typ = graph.Scalar(t.DType)
		}
		in, err := graph.NewInput(vi.GetName(), typ, false)
		if err != nil {
			return nil, &imports.Error{File: l.file, Node: vi.GetName(), Op: "graph input", Msg: "making the input", Err: err}
		}
		m.Inputs = append(m.Inputs, in)
		m.Symbolic = append(m.Symbolic, syms...)
		imp.vals[vi.GetName()] = &value{name: vi.GetName(), term: in}
	}
	if err := imp.convertAll(m); err != nil {
		return nil, err
	}
	return m, nil
}
