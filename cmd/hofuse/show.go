package main

import (
	"fmt"
	"io"

	"github.com/hofuse/hofuse/graph"
)

func init() {
	register(&command{
		name:    "show",
		usage:   "mlp|cnn [model flags: --sizes 784,512,512,10 for mlp; --image 8x8x1 --conv 8,16 ... for cnn] [--batch N] [--dtype f32|f64] [--norm ...] [--mode ...] [--sources]",
		summary: "print the IR of a model in the paper's notation",
		run:     runShow,
	})
}

func runShow(args []string, stdout, stderr io.Writer) error {
	c := commands["show"]
	fs := newFlags(c, stderr)
	var mf mlpFlags
	mf.register(fs, 1)
	sources := fs.Bool("sources", false, "annotate terms with the layers they come from (@dense1 ...)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !isModelName(pos[0]) {
		return usagef("want one model name, %s; got %q", modelNames, pos)
	}
	if err := mf.checkKind(pos[0], flagsSet(fs)); err != nil {
		return err
	}
	m, err := mf.build()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "-- %s\n", mf.summary(m))
	prog := &graph.Program{Inputs: append([]*graph.Input{m.Input}, m.Params...), Body: m.Output}
	for _, in := range prog.Inputs {
		kind := "input"
		if in.Param {
			kind = "param"
		}
		fmt.Fprintf(stdout, "%s %s : %v;\n", kind, in.Name, in.Type)
	}
	fmt.Fprintln(stdout, graph.PrintWith(m.Output, graph.PrintOptions{Sources: *sources}))
	return nil
}
