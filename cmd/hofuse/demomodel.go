package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
)

// demoModelOptions are demo's flags that apply to --model.
type demoModelOptions struct {
	backend, plugin string
	seed            uint64
	runs            int
	noRef, asJSON   bool
	outputs         []string // the outputs to keep; all when empty
}

// demoModel is demo on an imported model: for each batch size it imports
// the model with that batch (its symbolic dimensions), fuses it and splits
// it into one kernel per operation, runs both on random data inputs drawn
// from the seed (the parameters are the file's), checks that they agree
// with each other and, unless noRef, with the reference interpreter on the
// whole batch, and times them.
func demoModel(path string, sizes []int, o demoModelOptions, rf *runFlags, stdout, stderr io.Writer) error {
	// Import every batch before opening a back end, so a model hofuse
	// cannot import is said at once.
	ms := make([]*imports.Model, len(sizes))
	for i, b := range sizes {
		m, err := importModel(path, imports.Options{Batch: b, Outputs: o.outputs})
		if err != nil {
			return err
		}
		ms[i] = m
	}
	be, closeBackend, err := demoBackend(o.backend, o.plugin, rf, stderr)
	if err != nil {
		return err
	}
	defer closeBackend()
	rep := &demoReport{Backend: be.fused.Name(), ReferenceChecks: []referenceCheck{}}
	var text strings.Builder
	for i, batch := range sizes {
		m := ms[i]
		res, err := fusion.Fuse(m.Term, fusion.Options{})
		if err != nil {
			return err
		}
		unfused, err := fusion.Unfused(m.Term)
		if err != nil {
			return err
		}
		if i == 0 {
			rep.Model = fmt.Sprintf("%s (%s, opset %d): %s, %s", path, m.Format, m.Opset, count(len(m.Coverage.Ops), "operator"), count(paramElements(m), "parameter value"))
			rep.Fusion = res.Report
			fmt.Fprintf(&text, "%s\nbackend: %s\n\n", rep.Model, rep.Backend)
			fmt.Fprintf(&text, "fusion: %s before, %d after; temporaries %s before, %s after\n",
				count(res.Report.KernelsBefore, "kernel"), res.Report.KernelsAfter, bytes(res.Report.TemporaryBytesBefore), bytes(res.Report.TemporaryBytes))
			for _, k := range res.Report.Kernels {
				fmt.Fprintf(&text, "  %-18s %-14v holds %s\n", k.Name, k.Type, strings.Join(k.Sources, ","))
			}
			text.WriteByte('\n')
		}
		data, err := modelData(m, o.seed, int64(rf.maxMemory))
		if err != nil {
			return err
		}
		bind, err := m.Bindings(data)
		if err != nil {
			return err
		}
		outs, rows, err := timeInTurns([]timeSpec{
			{be.fused, res.Graph, boundFor(res.Graph, bind), "fused", fmt.Sprintf("fused, batch %d", batch)},
			{be.unfused, unfused, boundFor(unfused, bind), "unfused", fmt.Sprintf("unfused, batch %d", batch)},
		}, batch, o.runs, timeRounds, nil)
		if err != nil {
			return err
		}
		fusedOut, fusedRow, unfusedOut, unfusedRow := outs[0], rows[0], outs[1], rows[1]
		d, err := graph.MaxAbsDiff(fusedOut, unfusedOut)
		if err != nil {
			return err
		}
		rep.MaxAbsDiff = max(rep.MaxAbsDiff, d)
		tol := graph.ToleranceOf(unfusedOut)
		if err := graph.Diff(unfusedOut, fusedOut, tol); err != nil {
			return fmt.Errorf("batch %d: fused and unfused results differ: %w", batch, err)
		}
		if !o.noRef {
			ref, err := rf.evalInterp(m.Term, bind)
			if err != nil {
				return fmt.Errorf("batch %d: %w", batch, err)
			}
			d, err := graph.MaxAbsDiff(ref, fusedOut)
			if err != nil {
				return err
			}
			if err := graph.Diff(ref, fusedOut, tol); err != nil {
				return fmt.Errorf("batch %d: fused result differs from the reference interpreter: %w", batch, err)
			}
			rep.MaxAbsDiffRef = max(rep.MaxAbsDiffRef, d)
			rows := make([]int, batch)
			for i := range rows {
				rows[i] = i
			}
			rep.ReferenceChecks = append(rep.ReferenceChecks, referenceCheck{Batch: batch, Rows: rows, All: true})
		}
		rep.Rows = append(rep.Rows, fusedRow, unfusedRow)
		rep.Speedups = append(rep.Speedups, demoSpeedup{batch, unfusedRow.P50ms / fusedRow.P50ms})
	}
	if o.asJSON {
		return printJSON(stdout, rep)
	}
	writeDemoTable(&text, rep, o.noRef)
	_, err = io.WriteString(stdout, text.String())
	return err
}

// boundFor keeps the bindings a kernel graph reads: fusion may drop an
// input the term reads only in dead code, and an executable refuses
// bindings it has no input for.
func boundFor(g *fusion.Graph, bind map[string]graph.Value) map[string]graph.Value {
	out := make(map[string]graph.Value, len(g.Inputs))
	for _, in := range g.Inputs {
		if v, ok := bind[in.Name]; ok {
			out[in.Name] = v
		}
	}
	return out
}

// modelData draws m's data inputs from seed, each within limit bytes
// (0: no limit): the same seed gives the same values.
func modelData(m *imports.Model, seed uint64, limit int64) (map[string]graph.Value, error) {
	r := rand.New(rand.NewPCG(seed, seed))
	data := map[string]graph.Value{}
	for _, in := range m.Inputs {
		v, err := randomValue(r, limit, in.Type)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.Name, err)
		}
		data[in.Name] = v
	}
	return data, nil
}
