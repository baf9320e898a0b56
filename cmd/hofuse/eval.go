package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt"
)

func init() {
	register(&command{
		name:    "eval",
		usage:   "[--backend interp|native|pjrt] [--unfused] [--seed N] [--inputs FILE.json|JSON] [--json] 'PROGRAM' | -f FILE",
		summary: "evaluate a program in the notation, with the reference interpreter or on a back end",
		run:     runEval,
	})
}

// evalHelp follows the flags in "hofuse eval --help".
const evalHelp = `
--backend interp runs the reference interpreter (graph.Eval). native and pjrt fuse the
program (fusion.Fuse; with --unfused, fusion.Unfused: one kernel per operation) and
run the kernel graph on the native Go executor or on a PJRT plugin.

--inputs FILE.json gives input values (--inputs '{...}' gives the JSON inline): an
object mapping input names to values. An array input is nested JSON arrays, one level
per axis, outermost first; a scalar input is a number; a tuple input is an array of
its components. Numbers may be written as the strings "NaN", "Inf" and "-Inf".
Inputs the file does not name are random, from --seed. For example, for 'a : f64[3]; Z : f64[2,3]; s : f32; ...':

  {"Z": [[1, 2, 3], [4, 5, "NaN"]], "s": "-Inf"}

The form --json prints, {"dtype": "f64", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]},
is read too. --json writes NaN and infinities as those strings, and bool elements as
true and false (which --inputs takes too, as well as 1 and 0).
`

func runEval(args []string, stdout, stderr io.Writer) (err error) {
	c := commands["eval"]
	fs := newFlags(c, stderr)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, evalHelp)
	}
	backend := fs.String("backend", "interp", "where to run: interp (the reference interpreter), native (in-process Go) or pjrt (a PJRT plugin)")
	unfused := fs.Bool("unfused", false, "with --backend native or pjrt: run one kernel per operation (fusion.Unfused) instead of the fused program")
	plugin := fs.String("plugin", "", "with --backend pjrt: the plugin `path` (default: found by 'hofuse pjrt path')")
	seed := fs.Uint64("seed", 1, "seed for random inputs (uniform in [-1, 1))")
	inputsPath := fs.String("inputs", "", "JSON `file` with input values (format below), or the JSON itself ('{\"x\": [1, 2]}'); inputs it lacks are random")
	file := fs.String("f", "", "read the program from `file` instead of the argument")
	asJSON := fs.Bool("json", false, "print the result as JSON")
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
	if err := checkBackendFlags(set, *backend, "the program as written", &rf); err != nil {
		return err
	}
	var src, name string
	switch {
	case *file != "" && len(pos) == 0:
		b, err := os.ReadFile(*file)
		if err != nil {
			return err
		}
		src, name = string(b), *file
	case *file == "" && len(pos) == 1:
		src, name = pos[0], "program"
	default:
		return usagef("want one program, as an argument or with -f FILE")
	}
	prog, err := parseProgram(src, name)
	if err != nil {
		return err
	}
	body := prog.Body
	info, err := graph.Check(body)
	if err != nil {
		return err
	}
	given := map[string]graph.Value{}
	if *inputsPath != "" {
		// Any declared input may be given; only those the body uses are
		// bound (back ends refuse extra inputs).
		if given, err = readInputs(*inputsPath, prog.Inputs); err != nil {
			return err
		}
	}
	if set["seed"] && len(given) > 0 && !slices.ContainsFunc(info.Inputs, func(in *graph.Input) bool { _, ok := given[in.Name]; return !ok }) {
		return usagef("--seed: every input is given in --inputs, so nothing is random; drop --seed")
	}
	if err := rf.checkMemory(info); err != nil {
		return err
	}
	values := map[string]graph.Value{}
	r := rand.New(rand.NewPCG(*seed, *seed))
	for _, in := range info.Inputs {
		if v, ok := given[in.Name]; ok {
			values[in.Name] = v
			continue
		}
		v, err := randomValue(r, int64(rf.maxMemory), in.Type)
		if err != nil {
			return fmt.Errorf("input %s: %w", in.Name, err)
		}
		values[in.Name] = v
	}
	var out graph.Value
	if *backend == "interp" {
		noteSlowInterp(stderr, body, info.Types)
		out, err = rf.evalInterp(body, values)
	} else {
		out, err = evalOnBackend(*backend, *plugin, *unfused, &rf, body, values)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, valueJSON(out))
	}
	fmt.Fprintln(stdout, formatValue(out))
	return nil
}

// evalOnBackend fuses body (or splits it into one kernel per operation)
// and runs it on the native executor or a PJRT plugin.
func evalOnBackend(backend, plugin string, unfused bool, rf *runFlags, body graph.Node, in map[string]graph.Value) (graph.Value, error) {
	var g *fusion.Graph
	if unfused {
		var err error
		if g, err = fusion.Unfused(body); err != nil {
			return nil, fmt.Errorf("fusion.Unfused: %w", err)
		}
	} else {
		res, err := fusion.Fuse(body, fusion.Options{})
		if err != nil {
			return nil, fmt.Errorf("fusion.Fuse: %w", err)
		}
		g = res.Graph
	}
	var be lowering.Backend
	switch backend {
	case "native":
		be = native.New(rf.nativeOptions())
	case "pjrt":
		path, err := pjrt.Locate(plugin)
		if err != nil {
			return nil, err
		}
		client, err := pjrt.Open(path)
		if err != nil {
			return nil, err
		}
		defer client.Close()
		be = xla.New(client, xla.Options{})
	}
	exe, err := be.Compile(g)
	if err != nil {
		return nil, fmt.Errorf("%s: compile: %w", be.Name(), err)
	}
	defer exe.Close()
	out, err := exe.Run(in)
	if err != nil {
		return nil, fmt.Errorf("%s: run: %w", be.Name(), err)
	}
	return graph.CopyValue(out), nil // the executable reuses its storage
}

// randomValue draws a value of type t; an array past limit bytes (0: the
// library's default) is refused.
func randomValue(r *rand.Rand, limit int64, t graph.Type) (graph.Value, error) {
	switch t := t.(type) {
	case *graph.ArrayType:
		a, err := graph.RandomArrayLimit(r, limit, t.DType, t.Layout.Extents()...)
		if err != nil {
			return nil, err
		}
		return a.CopyTo(t.Layout)
	case *graph.ScalarType:
		return graph.ScalarValue{DType: t.DType, V: t.DType.Round(2*r.Float64() - 1)}, nil
	case *graph.TupleType:
		out := make(graph.TupleValue, len(t.Elems))
		for i, e := range t.Elems {
			v, err := randomValue(r, limit, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("no random values of type %v", t)
}

// checkBackendFlags checks the flags that go with --backend interp, native
// or pjrt in eval and run: --unfused and --threads need a back end, not
// the interpreter (which runs what, as the message says), --threads is
// native's, --plugin is PJRT's; then the run flags themselves.
func checkBackendFlags(set map[string]bool, backend, what string, rf *runFlags) error {
	var err error
	switch backend {
	case "interp":
		err = rejectFlags(set, "needs --backend native or pjrt; the interpreter runs "+what, "unfused", "threads")
	case "native":
	case "pjrt":
		err = rejectFlags(set, "sets the native executor's goroutines, which --backend pjrt does not use", "threads")
	default:
		err = usagef("--backend: %q is not interp, native or pjrt", backend)
	}
	if err == nil && backend != "pjrt" {
		err = rejectFlags(set, "only --backend pjrt loads a plugin", "plugin")
	}
	if err == nil {
		err = rf.check()
	}
	return err
}
