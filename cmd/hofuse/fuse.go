package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering/native"
)

func init() {
	register(&command{
		name:    "fuse",
		usage:   "mlp|cnn [model flags] | FILE.onnx|FILE.pb [--batch N] [--output NAME]... | 'PROGRAM' | -f FILE  [--json] [--dot FILE] [--dump] [--disable-rule RULE[,RULE...]]... [--no-schedule | --tune [--tune-dir DIR]]",
		summary: "fuse a model or a program and report the kernels, their loop orders, temporaries and rules",
		run:     runFuse,
	})
}

// listFlag collects a repeatable flag; each value may also be a
// comma-separated list (--disable-rule a,b is --disable-rule a
// --disable-rule b).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return fmt.Errorf("%q: an empty name in the list", s)
		}
		*l = append(*l, v)
	}
	return nil
}

func runFuse(args []string, stdout, stderr io.Writer) error {
	c := commands["fuse"]
	fs := newFlags(c, stderr)
	var mf mlpFlags
	mf.register(fs, 1)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	dotPath := fs.String("dot", "", "write the kernel graph as Graphviz DOT to `file`")
	dumpIR := fs.Bool("dump", false, "print the IR after each pass, with its duration, to stderr")
	file := fs.String("f", "", "read the program from `file`")
	var outputs listFlag
	fs.Var(&outputs, "output", "with a model file: keep only the output `NAME` (repeatable, or a comma list); the nodes only other outputs need are pruned")
	var disable listFlag
	fs.Var(&disable, "disable-rule", "switch off `rules` by name (repeatable, or a comma list: a,b); rules: "+strings.Join(fusion.RuleNames(), ", "))
	noSchedule := fs.Bool("no-schedule", false, "keep every kernel's loops in the order fusion wrote them (skip the schedule pass)")
	var tf tuneFlags
	tf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	set := flagsSet(fs)
	switch {
	case *noSchedule && *tf.tune:
		return usagef("--tune chooses the order the schedule pass sets, and --no-schedule skips that pass; pass one of them")
	}
	if *dotPath != "" {
		if err := checkOutput("dot", *dotPath, ".dot", ".gv"); err != nil {
			return err
		}
	}
	term, err := termFromArgs(pos, *file, &mf, outputs, set)
	if err != nil {
		return err
	}
	if err := tf.check(set); err != nil {
		return err
	}
	opt := fusion.Options{Disable: disable, Schedule: fusion.ScheduleOptions{Off: *noSchedule, Tune: tf.tuner(native.Options{}, stderr)}}
	if *dumpIR {
		opt.Dump = stderr
	}
	res, err := fusion.Fuse(term, opt)
	if err != nil {
		if strings.Contains(err.Error(), "unknown rule") {
			return usagef("--disable-rule: %s", strings.TrimPrefix(err.Error(), "fusion: "))
		}
		return err
	}
	if *dotPath != "" {
		f, err := os.Create(*dotPath)
		if err != nil {
			return err
		}
		if err := res.Graph.WriteDOT(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if *asJSON {
		return res.Report.WriteJSON(stdout)
	}
	return res.Report.WriteText(stdout)
}

// termFromArgs returns the term a command works on: the MLP the flags
// describe for "mlp", a model file's term (FILE.onnx or a frozen
// TensorFlow FILE.pb, its symbolic dimensions fixed by --batch, the
// outputs kept, all when empty), or a program given as an argument or in
// a file. Model flags given with a program, and --output without a model
// file, are usage errors.
func termFromArgs(pos []string, file string, mf *mlpFlags, outputs []string, set map[string]bool) (graph.Node, error) {
	if file == "" && len(pos) == 1 && isModelFile(pos[0]) {
		// A model file: --batch fixes its symbolic dimensions; the other
		// model flags describe an MLP.
		if err := rejectFlags(set, "model flags describe the MLP of 'mlp' and the CNN of 'cnn'; a model file fixes its own sizes", without(modelFlagNames, "batch")...); err != nil {
			return nil, err
		}
		m, err := importModel(pos[0], imports.Options{Batch: mf.batch, Outputs: outputs})
		if err != nil {
			return nil, err
		}
		return m.Term, nil
	}
	if set["output"] {
		return nil, usagef("--output: chooses outputs of a model file (%s)", modelFiles)
	}
	if !(file == "" && len(pos) == 1 && isModelName(pos[0])) {
		if err := usedOnlyWithMLP(set); err != nil {
			return nil, err
		}
	}
	switch {
	case file != "" && len(pos) == 0:
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		return parseChecked(string(b), file)
	case file == "" && len(pos) == 1 && isModelName(pos[0]):
		if err := mf.checkKind(pos[0], set); err != nil {
			return nil, err
		}
		m, err := mf.build()
		if err != nil {
			return nil, err
		}
		return m.Output, nil
	case file == "" && len(pos) == 1:
		return parseChecked(pos[0], "program")
	}
	return nil, usagef("want 'mlp', 'cnn', a model file (%s), a program, or -f FILE", modelFiles)
}

// parseChecked parses and checks a program, giving errors their position,
// and returns its body.
func parseChecked(src, name string) (graph.Node, error) {
	prog, err := parseProgram(src, name)
	if err != nil {
		return nil, err
	}
	return prog.Body, nil
}

// parseProgram parses and checks a program, giving errors their position.
func parseProgram(src, name string) (*graph.Program, error) {
	prog, err := graph.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	if _, err := graph.Check(prog.Body); err != nil {
		var ce *graph.Error
		if errors.As(err, &ce) {
			if p, ok := prog.Pos(ce.Node); ok {
				return nil, fmt.Errorf("%s:%v: %w", name, p, err)
			}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return prog, nil
}
